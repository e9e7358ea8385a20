"""``orcjit explain PATH --filter EXPR``: what a read of a file or dataset with those filters would skip, and
why."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..orcfile import ORCFile
from .options import add_columns, add_filters, add_json, add_paths, add_verb, column_list, dataset_of, read_filters
from .render import write_json, write_lines


def add_to(subparsers: Any) -> None:
    """Add ``explain`` and its options."""
    p = add_verb(
        subparsers,
        "explain",
        "show what a filtered read would skip, and why",
        "Show what orcjit.read_orc(FILE, filters=...) would read: the filters' verdict on the file statistics, each "
        "stripe read or skipped (by file or stripe statistics, or because row-group statistics and bloom filters "
        "rule out every row group), the row groups each stripe keeps and why it skips the others, and the bytes "
        "the read would fetch. Each --filter is COLUMN OP VALUE with OP one of ==, =, !=, <, <=, >, >=, in, not in "
        "(with a list such as (1, 2) or ('a', 'b')), or COLUMN is null / COLUMN is not null. Values take the "
        "column's type: numbers, text (quote it if it has commas or parentheses), dates and timestamps in ISO "
        "form, true/false, x'00ff' bytes. The filters must all hold, or with --any one of them. Given a directory, "
        "a glob or several files, explain the read of the dataset: the files skipped unopened by their partition "
        "values (or because they lack a filtered column), then file by file what the read of each file opened "
        "skips, and the bytes over all files.",
        "  orcjit explain data.orc --filter 'id == 42'\n"
        "  orcjit explain data.orc --filter \"city in ('Oslo', 'Rome')\" --filter 'day >= 2024-01-01'\n"
        "  orcjit explain data.orc --filter 'a < 0' --filter 'b is null' --any --json\n"
        "  orcjit explain data.orc --filter 'trip.fare > 100.5' --columns id,trip\n"
        "  orcjit explain warehouse/events/ --filter 'year == 2024' --filter 'id < 10'",
        run,
    )
    add_paths(p)
    add_filters(p, required=True)
    add_columns(p, "count the bytes of only these columns")
    add_json(p, "the explanation")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print what a read of the file or dataset ``args.file`` names with ``args.filter`` would skip."""
    columns = column_list(args.columns)
    explanation: Any
    dataset = dataset_of(args)
    if dataset is not None:
        explanation = dataset.explain(read_filters(args, dataset.schema), columns=columns)
    else:
        with ORCFile(args.file[0]) as orc:
            explanation = orc.explain(read_filters(args, orc.schema), columns=columns)
    if args.json:
        write_json(out, explanation.to_dict())
    else:
        write_lines(out, str(explanation).splitlines())
    return 0
