"""``orcjit head PATH [-n N]``: the first rows of a file or dataset as a table, or as JSON lines."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from .options import add_columns, add_encrypted, add_json, add_paths, add_verb, column_list, dataset_of
from .render import MAX_CELL, write_json_rows, write_lines


def add_to(subparsers: Any) -> None:
    """Add ``head`` and its options."""
    p = add_verb(
        subparsers,
        "head",
        "print the first rows",
        "Print the first rows of the file as a table, reading only the stripes that hold them. --json prints one "
        "JSON object per row instead. Given a directory, a glob or several files, print the first rows of the "
        "dataset read as one table (files in path order, partition columns last).",
        "  orcjit head data.orc\n  orcjit head data.orc -n 20 --columns id,name\n  orcjit head data.orc --json\n"
        "  orcjit head warehouse/events/ --columns id,year",
        run,
    )
    add_paths(p)
    p.add_argument("-n", type=int, default=10, metavar="N", help="how many rows (default 10)")
    add_columns(p)
    add_encrypted(p)
    add_json(p, "each row")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the first ``args.n`` rows of the file or dataset ``args.file`` names."""
    columns = column_list(args.columns)
    dataset = dataset_of(args)
    if dataset is not None:
        frame = dataset_head_frame(dataset, args.n, columns, args.encrypted)
    else:
        with ORCFile(args.file[0]) as orc:
            frame = head_frame(orc, args.n, columns, args.encrypted)
    if args.json:
        write_json_rows(out, frame)
    else:
        write_lines(out, head_lines(frame))
    return 0


def head_frame(orc: ORCFile, n: int, columns: Sequence[str] | None = None, encrypted: str = "raise") -> Any:
    """The first ``n`` rows, decoding only the stripes that hold them."""
    import pandas as pd

    frames = _first_frames(orc.iter_stripes(columns=columns, encrypted=encrypted), n)
    if not frames:
        return orc.read(columns=columns, encrypted=encrypted)
    return pd.concat(frames).iloc[:n] if len(frames) > 1 else frames[0].iloc[:n]


def dataset_head_frame(
    dataset: ORCDataset, n: int, columns: Sequence[str] | None = None, encrypted: str = "raise"
) -> Any:
    """The first ``n`` rows of a dataset, indexed from 0 as its read is, decoding only the stripes that hold them."""
    import pandas as pd

    frames = _first_frames(dataset.iter_batches(columns=columns, encrypted=encrypted), n)
    if not frames:  # no stripe at all: the read gives the empty frame with the dataset's columns
        return dataset.read(columns=columns, encrypted=encrypted)
    # each batch is indexed from 0; the rows shown are numbered as in the whole dataset's read
    return pd.concat(frames, ignore_index=True).iloc[:n]


def _first_frames(frames: Iterator[Any], n: int) -> list[Any]:
    """The frames of ``frames`` up to the one that brings the rows to ``n``; no further frame is decoded."""
    taken = []
    rows = 0
    for frame in frames:
        taken.append(frame)
        rows += len(frame)
        if rows >= n:
            break
    return taken


def head_lines(frame: Any) -> list[str]:
    """A DataFrame as a text table, all columns shown."""
    import pandas as pd

    with pd.option_context("display.max_columns", None, "display.width", 200, "display.max_colwidth", MAX_CELL):
        return str(frame.to_string()).splitlines()
