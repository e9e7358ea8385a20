"""The ``orcjit`` command: look inside ORC files, and datasets of them, from the shell.

Subcommands
-----------
``PATH`` is an ORC file, or a directory, a glob or several paths read as one dataset
(:class:`~orcjit.ORCDataset`: Hive ``key=value`` folders become partition columns); ``FILE`` is one file only, and
a directory or glob there is a one-line error.

``orcjit schema PATH``
    The type tree with column ids (a dataset's partition columns marked).
``orcjit meta PATH``
    File facts, then each stripe's layout, streams and column encodings (like ORC's ``orc-metadata``); for a
    dataset, its totals, partition columns and notes, then one row per file.
``orcjit stats PATH``
    Column statistics of the file and of each stripe (like ORC's ``orc-statistics``); for a dataset, each
    top-level column summed up over the files, and with ``--files`` file by file.
``orcjit explain PATH --filter "COLUMN OP VALUE" [--filter ...] [--any] [--columns A,B]``
    What a read with those filters would skip, and why: files by partition values, file, stripe and row-group
    statistics, bloom filters.
``orcjit head PATH [-n N] [--columns A,B]`` / ``orcjit cat PATH [--columns A,B] [--filter EXPR ...]``
    The first rows as a table, or every (matching) row as JSON lines (like ORC's ``orc-contents``).
``orcjit index FILE [--columns A,B] [--stripes LIST]``
    Each stripe's row index: per row group, first row, rows, statistics and stream positions.
``orcjit bloom FILE --column C --value V [--stripes LIST]``
    A value tested against every row group's bloom filter, with each filter's k, m and fill ratio.
``orcjit parquet-bloom FILE --column C --value V``
    The same for a Parquet file: a value against each row group's split-block bloom filter, with its size and
    fill ratio.
``orcjit convert PATH OUT [--format parquet|csv] [--columns A,B] [--filter EXPR ...] [--force]``
    The rows written as Parquet (pyarrow) or CSV, a stripe at a time.
``orcjit demo [FILE]``
    A tour of the bundled sample file: schema, metadata summary and statistics.
``orcjit warmup [--json] [--quiet]``
    Compile (or load from the Numba cache) every kernel a read can use, so that later processes only load.

Every command that shows a file's contents takes ``--columns`` (dotted paths; an unknown name is an error) and
``--json`` (``cat`` always writes JSON lines, ``convert`` writes files). ``schema``, ``meta``, ``stats``,
``explain``, ``index`` and ``bloom`` print one JSON object. ``meta`` and ``stats`` build one plain dict first
(:func:`~orcjit.cli.meta.meta_data`, :func:`~orcjit.cli.stats.stats_data`, and their ``dataset_`` twins) and
render it either as JSON or as aligned text, so the two outputs never disagree about what a file holds.

Layout
------
One module per verb (``schema``, ``meta``, ``stats``, ``explain``, ``head``, ``cat``, ``index``, ``bloom``,
``parquet_bloom``, ``convert``, ``demo``, ``warmup``), each with ``add_to(subparsers)``, which defines its subparser
(arguments, help, examples), ``run(args, out) -> int``, and the plain-data builders and renderers only it uses (for
a file and, where the verb takes a dataset, for a dataset: ``dataset_meta_data`` beside ``meta_data``). ``options``
holds what several verbs share about their arguments (``FILE``, ``PATH``, ``--json``, ``--columns``,
``--filter``/``--any``, ``--stripes``, ``--encrypted``, and their readings against a file; whether the paths name a
dataset); ``render`` holds how they print (tables, field lists, JSON, lines). This module holds :func:`main` and
:func:`build_parser`, which asks each module of :data:`VERBS` to add itself. ``demo`` borrows the builders of
``schema``, ``meta``, ``stats`` and ``head``; no other verb imports another.

What the CLI may import
-----------------------
The API and what faces users: ``orcjit.orcfile`` (``ORCFile``), ``orcjit.orcdataset`` (``ORCDataset``),
``orcjit.dataset.discovery`` (``is_dataset_path``: one file or a dataset), ``orcjit.errors`` (``OrcError``),
``orcjit._extras`` (missing extras), ``orcjit.types`` (``TypeNode``, the kind families, and the one column
resolver every ``--columns``, ``--column`` and ``--filter`` goes through), ``orcjit.indexes`` (row index objects)
and ``orcjit.pushdown.expressions`` (``--filter`` and ``--value`` parsing and typing) as the ``from ..`` lines at
the top of each module; ``orcjit.kernels.bloom`` (``bloom``), ``orcjit.parquet`` (``parquet-bloom``) and
``orcjit.warmup`` (``warmup``) inside the functions that use them, so that a verb loads only what it needs.
pandas and pyarrow are imported only where rows are read or written.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from .._extras import MissingExtraError
from ..errors import OrcError
from . import bloom, cat, convert, demo, explain, head, index, meta, parquet_bloom, schema, stats, warmup
from .options import PROG

__all__ = ["VERBS", "build_parser", "main"]

# in the order orcjit --help lists them
VERBS = [schema, meta, stats, head, cat, explain, index, bloom, parquet_bloom, convert, demo, warmup]
# The exit status a process killed by SIGPIPE reports, as `head` and friends would see from a C tool.
EXIT_BROKEN_PIPE = 128 + 13

EPILOG = """\
examples:
  orcjit demo                     tour of the bundled sample file
  orcjit schema data.orc          the type tree with column ids
  orcjit meta data.orc --json     file and stripe layout as JSON
  orcjit stats data.orc --no-stripes
  orcjit head data.orc -n 5       the first rows as a table
  orcjit cat data.orc --filter 'id > 9'
                                  the matching rows as JSON lines
  orcjit explain data.orc --filter 'id == 42'
                                  what a filtered read skips, and why
  orcjit index data.orc --columns id
                                  row group statistics and stream positions
  orcjit bloom data.orc --column id --value 42
                                  which row groups' bloom filters may hold 42
  orcjit parquet-bloom data.parquet --column key --value 42
                                  the same for a Parquet file's bloom filters
  orcjit convert data.orc data.parquet
                                  write the rows as Parquet (or .csv)
  orcjit head warehouse/events/   a directory (or glob) read as one dataset
  orcjit explain 'warehouse/events/year=*' --filter 'year == 2024'
                                  which files the partition values skip
  orcjit warmup                   compile every kernel ahead of the first read

Run 'orcjit COMMAND --help' for a command's options."""


def build_parser() -> argparse.ArgumentParser:
    """The ``orcjit`` argument parser, with one subparser per module of :data:`VERBS`."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Look inside Apache ORC files: schema, file and stripe metadata, column statistics, rows. "
        "Most commands also take a directory, a glob or several files, read as one dataset.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for verb in VERBS:
        verb.add_to(subparsers)
    return parser


def _error_message(exc: BaseException, path: str | None) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        # OSError's own text reads "[Errno 2] No such file or directory: 'x'"; name the file first instead, and
        # name the file the user gave when the failing call had none (a read on a directory, say)
        name = exc.filename if exc.filename is not None else path
        if isinstance(name, bytes):
            name = os.fsdecode(name)
        message = f"{name}: {exc.strerror}" if name is not None else exc.strerror
    else:
        # dataset discovery names itself ("orcjit: no files ... found in 'dir'"); the prefix is printed once already
        message = (str(exc) or type(exc).__name__).removeprefix(f"{PROG}: ")
    return " ".join(message.split("\n"))


def _given_path(args: argparse.Namespace) -> str | None:
    """The one path the user gave, to name in an error that names no file; ``None`` for several paths or none."""
    path = getattr(args, "file", None)
    if isinstance(path, list):  # the verbs that take a dataset take PATH [PATH ...]
        return path[0] if len(path) == 1 else None
    return path if isinstance(path, str) else None


def _silence_stdout() -> None:
    # Whatever is still buffered for the closed pipe would fail again when Python flushes stdout at exit and print
    # "Exception ignored ... BrokenPipeError"; point the descriptor at /dev/null so that flush goes nowhere.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file descriptor (tests capture stdout in memory): nothing will flush to a pipe


def main(argv: list[str] | None = None) -> int:
    """Run the ``orcjit`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when ``None``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 when the file cannot be read or is not valid ORC (after one
        ``orcjit: error: ...`` line on stderr), 2 for a usage error (argparse's message on stderr).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors: argparse has printed what it has to say
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    out = sys.stdout
    try:
        status = int(args.handler(args, out))
        out.flush()  # inside the try, so that a closed pipe is reported here and not at interpreter exit
        return status
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (OrcError, OSError, MissingExtraError) as exc:  # a missing extra names what to install, in one line
        print(f"{PROG}: error: {_error_message(exc, _given_path(args))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 128 + 2
