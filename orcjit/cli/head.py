"""``orcjit head FILE [-n N]``: the first rows as a table, or as JSON lines."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from ..orcfile import ORCFile
from .options import add_columns, add_encrypted, add_file, add_json, add_verb, column_list
from .render import MAX_CELL, write_json_rows, write_lines


def add_to(subparsers: Any) -> None:
    """Add ``head`` and its options."""
    p = add_verb(
        subparsers,
        "head",
        "print the first rows",
        "Print the first rows of the file as a table, reading only the stripes that hold them. --json prints one "
        "JSON object per row instead.",
        "  orcjit head data.orc\n  orcjit head data.orc -n 20 --columns id,name\n  orcjit head data.orc --json",
        run,
    )
    add_file(p)
    p.add_argument("-n", type=int, default=10, metavar="N", help="how many rows (default 10)")
    add_columns(p)
    add_encrypted(p)
    add_json(p, "each row")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the first ``args.n`` rows of ``args.file``."""
    columns = column_list(args.columns)
    with ORCFile(args.file) as orc:
        frame = head_frame(orc, args.n, columns, args.encrypted)
    if args.json:
        write_json_rows(out, frame)
    else:
        write_lines(out, head_lines(frame))
    return 0


def head_frame(orc: ORCFile, n: int, columns: Sequence[str] | None = None, encrypted: str = "raise") -> Any:
    """The first ``n`` rows, decoding only the stripes that hold them."""
    import pandas as pd

    frames = []
    rows = 0
    for frame in orc.iter_stripes(columns=columns, encrypted=encrypted):
        frames.append(frame)
        rows += len(frame)
        if rows >= n:
            break
    if not frames:
        return orc.read(columns=columns, encrypted=encrypted)
    return pd.concat(frames).iloc[:n] if len(frames) > 1 else frames[0].iloc[:n]


def head_lines(frame: Any) -> list[str]:
    """A DataFrame as a text table, all columns shown."""
    import pandas as pd

    with pd.option_context("display.max_columns", None, "display.width", 200, "display.max_colwidth", MAX_CELL):
        return str(frame.to_string()).splitlines()
