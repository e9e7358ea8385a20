"""``orcjit demo [FILE]``: a tour of the bundled sample file: schema, metadata summary, statistics and rows.

The tour is made of the other verbs' builders; a new feature joins it by appending a section to
:data:`DEMO_SECTIONS`.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from .. import __version__
from ..orcfile import ORCFile
from .head import head_frame, head_lines
from .meta import file_fact_lines, meta_data, stripe_table
from .options import add_verb, one_file
from .render import write_lines
from .schema import schema_lines
from .stats import stats_data, stats_table

SAMPLE_RESOURCE = "data/sample.orc"


def add_to(subparsers: Any) -> None:
    """Add ``demo`` and its argument."""
    p = add_verb(
        subparsers,
        "demo",
        "tour the bundled sample file: schema, metadata, statistics, rows",
        "Open the sample file that ships with orcjit (a few thousand made-up taxi trips in several zstd stripes) "
        "and print its schema, a metadata summary with the stripe layout, its file-level column statistics and "
        "its first rows read into a DataFrame. Give FILE to take the same tour of another file.",
        "  orcjit demo\n  orcjit demo data.orc",
        run,
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="an ORC file to show instead of the bundled sample")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the tour of ``args.file``, or of the bundled sample."""
    run_demo(None if args.file is None else one_file(args.file, "demo", "it tours one file"), out)
    return 0


def meta_summary_lines(orc: ORCFile) -> list[str]:
    """File facts and the stripe layout, without reading any stripe footer.

    The file name and type are left out: the demo's schema section has just shown them.
    """
    meta = meta_data(orc, stripe_details=False)
    return [*file_fact_lines(meta, with_name=False), "", "Stripes:", *stripe_table(meta)]


def file_stats_lines(orc: ORCFile) -> list[str]:
    """File-level statistics as a text table."""
    return stats_table(stats_data(orc, include_stripes=False)["columns"])


def rows_lines(orc: ORCFile) -> list[str]:
    """The demo's view of the rows: the first five, read into a DataFrame."""
    frame = head_frame(orc, 5)
    return [f"orcjit.read_orc(path).head() of {orc.nrows} rows:", "", *head_lines(frame)]


# Each demo section is a title and a function from an open file to text lines.
DemoSection = tuple[str, Callable[[ORCFile], list[str]]]
DEMO_SECTIONS: list[DemoSection] = [
    ("Schema", schema_lines),
    ("Metadata", meta_summary_lines),
    ("Statistics", file_stats_lines),
    ("Rows", rows_lines),
]


def run_demo(
    source: str | os.PathLike[str] | None, out: TextIO, sections: Sequence[DemoSection] = DEMO_SECTIONS
) -> None:
    """Print a tour of an ORC file: each of ``sections`` under a heading.

    Parameters
    ----------
    source : str or os.PathLike, optional
        The file to show; the bundled sample (``orcjit/data/sample.orc``) when ``None``.
    out : text stream
    sections : sequence of (title, function)
        What to show, in order; each function takes the open :class:`ORCFile` and returns lines of text.
    """
    if source is None:
        # as_file gives a real path even when the package is imported from a zip
        with importlib.resources.as_file(importlib.resources.files("orcjit").joinpath(SAMPLE_RESOURCE)) as path:
            write_lines(out, [f"orcjit {__version__} demo: the bundled sample file, made-up taxi trips", ""])
            run_demo(path, out, sections)
        return
    with ORCFile(source) as orc:
        for i, (title, render) in enumerate(sections):
            lines = render(orc)
            write_lines(out, ([""] if i else []) + [f"== {title} ==", "", *lines])
