"""``orcjit cat PATH [--filter EXPR ...]``: every (matching) row of a file or dataset as JSON lines (like ORC's
``orc-contents``)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..orcfile import ORCFile
from .options import add_columns, add_encrypted, add_filters, add_paths, add_verb, column_list, dataset_of, read_filters
from .render import write_json_rows


def add_to(subparsers: Any) -> None:
    """Add ``cat`` and its options."""
    p = add_verb(
        subparsers,
        "cat",
        "print every row as JSON lines",
        "Print every row of the file as one JSON object per line, as ORC's orc-contents does, reading a stripe at a "
        "time so that memory stays that of one stripe. Timestamps and dates are ISO strings, decimals strings, "
        "binary values hex, NaN and infinities the strings NaN, Infinity and -Infinity. --filter keeps the rows "
        "that match, skipping the stripes and row groups that cannot (as orcjit explain shows). Given a directory, "
        "a glob or several files, print the dataset's rows, file after file; filters on partition columns skip "
        "whole files unopened.",
        "  orcjit cat data.orc\n  orcjit cat data.orc --columns id,name\n  orcjit cat data.orc --filter 'id > 100'\n"
        "  orcjit cat warehouse/events/ --filter 'year == 2024'",
        run,
    )
    add_paths(p)
    add_columns(p)
    add_filters(p)
    add_encrypted(p)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print every row of the file or dataset ``args.file`` names that the filters keep."""
    columns = column_list(args.columns)
    dataset = dataset_of(args)
    if dataset is not None:
        filters = read_filters(args, dataset.schema)
        # a stripe at a time here too, file after file
        for frame in dataset.iter_batches(columns=columns, filters=filters, encrypted=args.encrypted):
            write_json_rows(out, frame)
        return 0
    with ORCFile(args.file[0]) as orc:
        filters = read_filters(args, orc.schema)
        # a stripe at a time: memory stays that of one stripe however large the file
        for frame in orc.iter_stripes(columns=columns, filters=filters, encrypted=args.encrypted):
            write_json_rows(out, frame)
    return 0
