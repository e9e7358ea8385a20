"""``orcjit convert PATH OUT``: the rows of a file or dataset written as Parquet (pyarrow) or CSV, a stripe at a
time."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from .._extras import require
from ..errors import OrcError
from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from .options import (
    PROG,
    add_columns,
    add_encrypted,
    add_filters,
    add_paths,
    add_verb,
    column_list,
    dataset_of,
    read_filters,
    select_nodes,
)
from .render import plural

CONVERT_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def add_to(subparsers: Any) -> None:
    """Add ``convert`` and its options."""
    p = add_verb(
        subparsers,
        "convert",
        "write the rows to a Parquet or CSV file",
        "Write the file's rows to OUT as Parquet (with pyarrow, one row group per stripe, Arrow types as "
        "orcjit.read_arrow gives them) or CSV (a header line, then the rows as pandas writes them), reading a "
        "stripe at a time so that memory stays that of one stripe. The format comes from OUT's suffix (.parquet, "
        ".pq, .csv) unless --format says; OUT - writes CSV to standard output. An existing OUT is left alone "
        "unless --force is given. --columns and --filter choose what is written, as for cat. A summary line "
        "(rows written, path) follows on standard output, or on standard error when the CSV goes there. Given a "
        "directory, a glob or several files before OUT, write the dataset's rows as one table (files in path "
        "order, partition columns last, one Parquet row group per stripe read).",
        "  orcjit convert data.orc data.parquet\n"
        "  orcjit convert warehouse/events/ events.parquet --filter 'year == 2024'\n"
        "  orcjit convert data.orc out.csv --columns id,name --filter 'id > 100'\n"
        "  orcjit convert data.orc - --format csv | head\n"
        "  orcjit convert data.orc data.pq --force",
        run,
    )
    add_paths(p)
    p.add_argument("out", metavar="OUT", help="the file to write, or - for CSV on standard output")
    p.add_argument("--format", choices=("parquet", "csv"), help="the output format (default: from OUT's suffix)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    add_columns(p, "write only these columns")
    add_filters(p)
    add_encrypted(p)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Write the rows of the file or dataset ``args.file`` names to ``args.out``, then a summary line."""
    fmt = _convert_format(args)
    if fmt == "parquet":
        require("parquet", "orcjit convert to Parquet")  # before OUT is touched
    to_stdout = args.out == "-"
    if to_stdout and fmt != "csv":
        raise OrcError("only CSV can be written to standard output ('-'); give a path for Parquet")
    if not to_stdout and os.path.exists(args.out) and not args.force:
        raise OrcError(f"{args.out} exists; give --force to overwrite it")
    columns = column_list(args.columns)
    dataset = dataset_of(args)
    if dataset is not None:
        rows = _convert(dataset, args, fmt, out, columns)
    else:
        with ORCFile(args.file[0]) as orc:
            rows = _convert(orc, args, fmt, out, columns)
    # the summary never mixes into CSV written to standard output
    print(
        f"{PROG}: wrote {plural(rows, 'row')} to {'standard output' if to_stdout else args.out} ({fmt})",
        file=sys.stderr if to_stdout else out,
    )
    return 0


def _convert(
    source: ORCFile | ORCDataset, args: argparse.Namespace, fmt: str, out: TextIO, columns: Sequence[str] | None
) -> int:
    """Write the rows of a file or dataset as ``args`` say; the number of rows written."""
    filters = read_filters(args, source.schema)
    select_nodes(source, columns)  # an unknown column fails before OUT is created
    if args.out == "-":
        return _write_csv(source, out, columns, filters, args.encrypted)
    try:
        if fmt == "parquet":
            if isinstance(source, ORCDataset):
                return _write_dataset_parquet(source, args.out, columns, filters, args.encrypted)
            return _write_parquet(source, args.out, columns, filters, args.encrypted)
        with open(args.out, "w", encoding="utf-8", newline="") as fh:
            return _write_csv(source, fh, columns, filters, args.encrypted)
    except BaseException:
        # a half-written file would pass for a complete one
        if os.path.exists(args.out):
            os.remove(args.out)
        raise


def _convert_format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return str(args.format)
    if args.out == "-":
        return "csv"
    fmt = CONVERT_SUFFIXES.get(os.path.splitext(args.out)[1].lower())
    if fmt is None:
        raise OrcError(f"cannot tell the format from {args.out!r}: name it .parquet, .pq or .csv, or give --format")
    return fmt


def _write_parquet(orc: ORCFile, path: str, columns: Sequence[str] | None, filters: Any, encrypted: str) -> int:
    # a stripe at a time, each one Parquet row group: memory stays that of one stripe
    tables = (
        orc.read_arrow(columns, filters=filters, stripes=[i] if orc.nstripes else None, encrypted=encrypted)
        for i in range(max(orc.nstripes, 1))
    )
    return _write_tables(tables, path, orc.source.name, lambda: None)


def _write_dataset_parquet(
    dataset: ORCDataset, path: str, columns: Sequence[str] | None, filters: Any, encrypted: str
) -> int:
    import pyarrow as pa

    # a stripe at a time, as for one file; pyarrow-backed frames hold the Arrow arrays read_arrow would give,
    # every batch already brought to the dataset's schema, so the writer's schema fits them all
    tables = (
        pa.table({name: pa.array(frame[name].array) for name in frame.columns})
        for frame in dataset.iter_batches(columns, filters=filters, dtype_backend="pyarrow", encrypted=encrypted)
    )
    # no stripe read: the empty table still carries the dataset's columns and types
    return _write_tables(
        tables, path, "the dataset", lambda: dataset.read_arrow(columns, filters=filters, encrypted=encrypted)
    )


def _write_tables(tables: Iterable[Any], path: str, name: str, empty: Callable[[], Any]) -> int:
    """Write ``tables`` as the row groups of one Parquet file (``empty()``: the table whose schema a file gets when
    there are none); the rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    rows = 0
    try:
        for table in tables:
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            if table.num_rows:
                writer.write_table(table)
                rows += table.num_rows
        if writer is None:
            table = empty()
            if table is not None:
                writer = pq.ParquetWriter(path, table.schema)
    except (pa.ArrowException, NotImplementedError) as e:
        raise OrcError(f"{name}: cannot write as Parquet: {e}") from None
    finally:
        if writer is not None:
            writer.close()
    return rows


def _write_csv(
    orc: ORCFile | ORCDataset, out: TextIO, columns: Sequence[str] | None, filters: Any, encrypted: str
) -> int:
    rows = 0
    header = True
    for frame in orc.iter_stripes(columns=columns, filters=filters, encrypted=encrypted):
        frame.to_csv(out, header=header, index=False, lineterminator="\n")
        header = False
        rows += len(frame)
    if header:  # nothing matched, or no stripes: still one header line
        orc.read(columns=columns, filters=filters, encrypted=encrypted).to_csv(out, index=False, lineterminator="\n")
    return rows
