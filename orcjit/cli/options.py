"""The options several verbs share: their definitions, and what their values mean for a file or a dataset.

``FILE`` (one file) and ``PATH`` (a file, or a directory, glob or several files read as one dataset), ``--json``,
``--columns``, ``--filter``/``--any``, ``--stripes`` and ``--encrypted`` are defined once here, with the same help
text wherever they appear; so are the readings of their values that need the file (:func:`selected_stripes`,
:func:`select_nodes`, :func:`read_filters`), and whether the paths given name one file or a dataset
(:func:`dataset_of`, :func:`one_file`).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from ..dataset.discovery import is_dataset_path
from ..errors import OrcError
from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from ..pushdown.expressions import filter_term, parse_filter_expression
from ..types.resolve import name_list, resolve_column
from ..types.schema import TypeNode

PROG = "orcjit"
HELP_WIDTH = 79

Handler = Callable[[argparse.Namespace, Any], int]


def add_verb(
    subparsers: Any, name: str, summary: str, description: str, examples: str, run: Handler
) -> argparse.ArgumentParser:
    """Add the subparser of one verb, which ``main`` answers by calling ``run(args, out)``.

    Parameters
    ----------
    subparsers : argparse's subparsers action
    name : str
        The verb as typed, such as ``"parquet-bloom"``.
    summary : str
        Its line in ``orcjit --help``.
    description : str
        One paragraph for ``orcjit NAME --help``, wrapped here.
    examples : str
        Lines shown as written under ``examples:``.
    run : callable
        Takes the parsed arguments and the output stream; returns the exit status.

    Returns
    -------
    argparse.ArgumentParser
        The verb's parser, for its arguments.
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        # the raw formatter keeps the example lines as written, so the description is wrapped here
        description=textwrap.fill(description, HELP_WIDTH),
        epilog="examples:\n" + examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=run)
    return parser


def add_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an ORC file: a local path, or a URL fsspec understands")


def add_paths(parser: argparse.ArgumentParser) -> None:
    """The ``PATH [PATH ...]`` of the verbs that read a dataset as readily as one file (``args.file``, a list)."""
    parser.add_argument(
        "file",
        metavar="PATH",
        nargs="+",
        help="an ORC file, or a directory (searched recursively; Hive key=value folders become columns) or a glob of "
        "them, or several paths, read as one dataset: local paths, or URLs fsspec understands",
    )


def names_dataset(path: str) -> bool:
    """Whether ``path`` is a directory or a glob rather than one file."""
    try:
        return is_dataset_path(path)
    except ImportError:
        # a URL without the fsspec extra: opening it as one file reports the missing extra as it always has
        return False


def dataset_of(args: argparse.Namespace) -> ORCDataset | None:
    """The dataset ``args.file`` (a list of paths) names, or ``None`` when it names one file.

    One path that is a file is left to :class:`~orcjit.orcfile.ORCFile`, so that what a verb prints for one file
    does not change; a directory, a glob, or several paths are opened as one :class:`~orcjit.ORCDataset`.

    Raises
    ------
    FileNotFoundError
        If a path does not exist, a glob matches nothing or a directory holds no file.
    OrcError
        If a file is not ORC, or the files' schemas or partition folders do not agree.
    """
    paths: list[str] = args.file
    if len(paths) == 1 and not names_dataset(paths[0]):
        return None
    return ORCDataset(paths[0] if len(paths) == 1 else paths)


def one_file(path: str, verb: str, reason: str) -> str:
    """``path``, checked to be one file, for a verb that only makes sense for one file (``reason`` says why).

    Raises
    ------
    OrcError
        If the path is a directory or a glob, which such a verb cannot act on.
    """
    if names_dataset(path):
        # a clear refusal rather than whatever opening a directory as a file would say
        raise OrcError(f"{verb} works on one file ({reason}); {path} is a directory or glob: give one of its files")
    return path


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as one JSON object instead of text")


def add_encrypted(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--encrypted",
        choices=("raise", "skip", "masked"),
        default="raise",
        help="columns under ORC column encryption (orcjit holds no keys): fail (default), leave them out, or show "
        "the masked copy readers without the key get",
    )


def add_columns(parser: argparse.ArgumentParser, what: str = "only these columns") -> None:
    parser.add_argument(
        "--columns",
        metavar="A,B",
        help=f"{what}, comma-separated, with dotted paths for nested fields such as trip.fare (default: all); "
        "an unknown name is an error",
    )


def add_filters(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument(
        "--filter",
        action="append",
        required=required,
        type=parse_filter_expression,
        metavar="EXPR",
        help='keep the rows where EXPR holds, such as "x == 5", "s in (\'a\', \'b\')" or "d is null"; repeat for more',
    )
    parser.add_argument("--any", action="store_true", help="rows need to match any one filter, not all of them")


def add_stripes(parser: Any) -> None:  # an ArgumentParser or a mutually exclusive group of one
    parser.add_argument(
        "--stripes",
        type=parse_stripe_selection,
        metavar="LIST",
        help="only these stripes: numbers and inclusive ranges, e.g. 0,2 or 1-3 (default: all)",
    )


# -- stripe selection -----------------------------------------------------------------------------------------------


def parse_stripe_selection(text: str) -> list[range]:
    """Parse a ``--stripes`` value: stripe numbers and inclusive ranges, comma separated.

    Parameters
    ----------
    text : str
        For example ``"0,2"``, ``"1-3"`` or ``"0,4-6"``.

    Returns
    -------
    list of range
        One range per item, in the order given. They stay ranges until the file's stripe count is known, so that
        ``0-999999999`` costs nothing.

    Raises
    ------
    argparse.ArgumentTypeError
        If the text is not such a list; argparse turns this into a usage error.
    """
    selection = []
    for part in text.split(","):
        part = part.strip()
        first, sep, last = part.partition("-")
        try:
            lo = int(first)
            hi = int(last) if sep else lo
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid stripe selection {text!r}: use stripe numbers and ranges such as 0,2 or 1-3"
            ) from None
        if lo < 0 or hi < lo:
            raise argparse.ArgumentTypeError(f"invalid stripe range {part!r}: need 0 <= first <= last")
        selection.append(range(lo, hi + 1))
    return selection


def selected_stripes(orc: ORCFile, selection: Sequence[range] | None) -> list[int]:
    """The stripe numbers a ``--stripes`` selection picks from ``orc``, sorted, each once.

    Raises
    ------
    OrcError
        If the selection names a stripe the file does not have.
    """
    n = orc.nstripes
    if selection is None:
        return list(range(n))
    beyond = [r for r in selection if r.stop > n]
    if beyond:
        # an error, not a shorter listing: silently dropping stripes would misreport the file
        have = f"stripes 0-{n - 1}" if n else "no stripes"
        raise OrcError(f"{orc.source.name}: no stripe {max(n, min(r.start for r in beyond))}, the file has {have}")
    return sorted({i for r in selection for i in r})


# -- column selection -----------------------------------------------------------------------------------------------


def column_list(text: str | None) -> list[str] | None:
    """The names of a ``--columns`` value, or ``None`` when the option was not given.

    Raises
    ------
    OrcError
        If the value names no column at all (``--columns ,``).
    """
    return name_list(text, "--columns ")


def select_nodes(orc: ORCFile | ORCDataset, columns: Sequence[str] | None) -> list[TypeNode] | None:
    """The schema nodes ``--columns`` names, in the order given; ``None`` when it was not given.

    Names and paths are spelled as ORC's tools spell them (``tags._elem``, :mod:`orcjit.types.resolve`).

    Raises
    ------
    OrcError
        If a name is no column of the file, or more than one.
    """
    if columns is None:
        return None
    return [resolve_column(orc.schema, name, spelling="orc") for name in columns]


def subtree_ids(nodes: Sequence[TypeNode] | None) -> set[int] | None:
    """The column ids of ``nodes`` and everything below them; ``None`` (every column) for ``None``."""
    if nodes is None:
        return None
    return {n.column_id for node in nodes for n in node.walk()}


# -- filters --------------------------------------------------------------------------------------------------------


def read_filters(args: argparse.Namespace, schema: TypeNode) -> list[Any] | None:
    """The ``--filter`` expressions as :func:`orcjit.read_orc`'s filters, typed by ``schema``: all must hold, or
    with ``--any`` one of them; ``None`` when no ``--filter`` was given.

    Raises
    ------
    OrcError
        If a filter's column is not in the file or a value is not of its type.
    """
    if not args.filter:
        return None
    terms = [filter_term(expression, schema) for expression in args.filter]
    return [[term] for term in terms] if args.any else terms
