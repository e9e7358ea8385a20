"""``orcjit parquet-bloom FILE --column C --value V``: a value against each row group's split-block bloom filter
of a Parquet file, with its size and fill ratio."""

from __future__ import annotations

import argparse
import datetime
import decimal
import re
from typing import Any, TextIO

from ..pushdown.expressions import pd_timestamp
from .options import add_json, add_verb, one_file
from .render import format_fields, format_table, jsonable, plural, write_report


def add_to(subparsers: Any) -> None:
    """Add ``parquet-bloom`` and its options."""
    p = add_verb(
        subparsers,
        "parquet-bloom",
        "test a value against a Parquet column's split-block bloom filters",
        "Test a value against the split-block bloom filter of a Parquet column in each row group (as pyarrow "
        "writes with bloom_filter_options, or Spark with parquet.bloom.filter.enabled#COLUMN): print each row "
        "group's rows, filter size in bytes, fill ratio, and whether it may contain the value or certainly does "
        "not, then how many may. The value is typed by the column's Parquet logical type: integers, floats, "
        "text as written, ISO dates and timestamps, decimals, true/false, x'00ff' for binary. Row groups "
        "without a filter for the column are shown as such and counted as may contain.",
        "  orcjit parquet-bloom data.parquet --column key --value 42\n"
        "  orcjit parquet-bloom data.parquet --column name --value 'New York'\n"
        "  orcjit parquet-bloom data.parquet --column day --value 2024-01-01 --json",
        run,
    )
    p.add_argument("file", metavar="FILE", help="a Parquet file")
    p.add_argument("--column", required=True, metavar="C", help="the column, a dotted path for a nested leaf")
    p.add_argument("--value", required=True, metavar="V", help="the value to test")
    add_json(p, "the answers (bytes, fill ratio and may_contain per row group, with totals)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the answers of the bloom filters of ``args.column`` in the Parquet ``args.file`` for ``args.value``."""
    data = parquet_bloom_data(
        one_file(args.file, "parquet-bloom", "a Parquet file's own bloom filters"), args.column, args.value
    )
    write_report(out, data, args.json, parquet_bloom_lines)
    return 0


def parquet_value(text: str, leaf: Any) -> Any:
    """A ``--value`` typed by a Parquet leaf column's logical (or physical) type.

    Integers, floats, text (as is: no quoting), ISO dates and timestamps, decimals, true/false, and bytes as
    ``x'00ff'`` for binary columns without a string annotation.

    Raises
    ------
    ParquetError
        If the text is not a value of the column's type.
    """
    from ..parquet import ParquetError

    logical = leaf.logical_type.name if leaf.logical_type is not None else None
    converted = leaf.converted_type
    physical = leaf.physical_type
    what = logical or converted or physical
    wrong = ParquetError(f"--value {text!r} is not a value of column {leaf.path!r} ({what})")
    stripped = text.strip()
    try:
        if logical == "DECIMAL" or converted == "DECIMAL":
            value: Any = decimal.Decimal(stripped)
            if not value.is_finite() or value != value.quantize(decimal.Decimal(1).scaleb(-(leaf.scale or 0))):
                raise wrong
            return value
        if logical == "DATE" or converted == "DATE":
            return datetime.date.fromisoformat(stripped)
        if logical == "TIMESTAMP" or (converted or "").startswith("TIMESTAMP") or physical == "INT96":
            stamp = pd_timestamp(stripped)
            utc = leaf.logical_type.utc if leaf.logical_type is not None else None
            if utc and stamp.tzinfo is None:
                stamp = stamp.tz_localize("UTC")
            return stamp
        if logical in ("STRING", "ENUM", "JSON") or converted in ("UTF8", "ENUM", "JSON"):
            return text
        if physical in ("INT32", "INT64"):
            if not re.fullmatch(r"[+-]?\d+", stripped):
                raise wrong
            value = int(stripped)
            bits = (leaf.logical_type.bit_width if logical == "INTEGER" else None) or (
                32 if physical == "INT32" else 64
            )
            signed = not (logical == "INTEGER" and leaf.logical_type.signed is False)
            low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)
            if not low <= value < high:
                raise wrong
            return value
        if physical in ("FLOAT", "DOUBLE"):
            return float(stripped)
        if physical == "BOOLEAN":
            if stripped.lower() not in ("true", "false"):
                raise wrong
            return stripped.lower() == "true"
        if physical in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
            match = re.fullmatch(r"x'([0-9a-fA-F]*)'", stripped)
            return bytes.fromhex(match.group(1)) if match else text.encode()
    except (ValueError, ArithmeticError):
        raise wrong from None
    raise wrong


def parquet_bloom_data(path: str, column: str, text: str) -> dict[str, Any]:
    """What ``orcjit parquet-bloom`` reports: ``text``, typed by ``column``, tested against each row group's
    split-block bloom filter.

    Returns
    -------
    dict
        JSON-ready: file, column, type and value; one entry per row group (``rows``, ``bloom_filter`` false when
        it has none, else ``bytes``, ``fill_ratio`` and ``may_contain``); totals ``row_groups``, ``with_filter``
        and ``may_contain`` (row groups without a filter count as may contain).

    Raises
    ------
    ParquetError
        If the file is not Parquet, the column is not a leaf of it, or ``text`` is not a value of its type.
    """
    from ..parquet import ParquetError, read_metadata
    from ..parquet.bloom import bloom_filter

    meta = read_metadata(path)
    try:
        try:
            leaf = meta.column(column)
        except (KeyError, IndexError, ParquetError) as exc:
            raise ParquetError(f"{path}: no leaf column {column!r} ({exc})") from None
        value = parquet_value(text, leaf)
        groups = []
        with_filter = may = 0
        for group in meta.row_groups:
            entry: dict[str, Any] = {"row_group": group.index, "first_row": group.first_row, "rows": group.num_rows}
            found = bloom_filter(meta, group.index, leaf.index)
            if found is None:
                entry["bloom_filter"] = False
                may += 1
            else:
                hit = bool(found.might_contain(value))
                entry.update(bloom_filter=True, bytes=found.num_bytes, fill_ratio=found.fill_ratio, may_contain=hit)
                with_filter += 1
                may += hit
            groups.append(entry)
    finally:
        meta.close()
    logical = leaf.logical_type.name if leaf.logical_type is not None else leaf.converted_type
    return {
        "file": path,
        "column": leaf.path,
        "type": leaf.physical_type + (f" ({logical})" if logical else ""),
        "value": value,
        "groups": groups,
        "row_groups": len(groups),
        "with_filter": with_filter,
        "may_contain": may,
    }


def parquet_bloom_lines(data: dict[str, Any]) -> list[str]:
    """Render :func:`parquet_bloom_data` as text: one table row per row group, then a summary."""
    lines = format_fields(
        [("File", data["file"]), ("Column", f"{data['column']} ({data['type']})"), ("Value", jsonable(data["value"]))]
    )
    rows = [
        [
            g["row_group"],
            g["first_row"],
            g["rows"],
            g["bytes"] if g["bloom_filter"] else "",
            round(g["fill_ratio"], 3) if g["bloom_filter"] else "",
            ("may contain" if g["may_contain"] else "no") if g["bloom_filter"] else "no filter",
        ]
        for g in data["groups"]
    ]
    lines += ["", *format_table(["row group", "first row", "rows", "filter bytes", "fill ratio", "value"], rows)]
    groups, with_filter, may = data["row_groups"], data["with_filter"], data["may_contain"]
    summary = f"{may} of {plural(groups, 'row group')} may contain the value; {groups - may} certainly do not"
    if with_filter < groups:
        summary += f" ({groups - with_filter} without a bloom filter for this column)"
    return [*lines, "", f"Summary: {summary}."]
