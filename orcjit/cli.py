"""The ``orcjit`` command: look inside ORC files from the shell.

Subcommands
-----------
``orcjit schema FILE``
    The type tree with column ids.
``orcjit meta FILE``
    File facts, then each stripe's layout, streams and column encodings (like ORC's ``orc-metadata``).
``orcjit stats FILE``
    Column statistics of the file and of each stripe (like ORC's ``orc-statistics``).
``orcjit explain FILE --filter "COLUMN OP VALUE" [--filter ...] [--any] [--columns A,B]``
    What a read with those filters would skip, and why: file, stripe and row-group statistics, bloom filters.
``orcjit head FILE [-n N] [--columns A,B]`` / ``orcjit cat FILE [--columns A,B] [--filter EXPR ...]``
    The first rows as a table, or every (matching) row as JSON lines (like ORC's ``orc-contents``).
``orcjit index FILE [--columns A,B] [--stripes LIST]``
    Each stripe's row index: per row group, first row, rows, statistics and stream positions.
``orcjit bloom FILE --column C --value V [--stripes LIST]``
    A value tested against every row group's bloom filter, with each filter's k, m and fill ratio.
``orcjit parquet-bloom FILE --column C --value V``
    The same for a Parquet file: a value against each row group's split-block bloom filter, with its size and
    fill ratio.
``orcjit convert FILE OUT [--format parquet|csv] [--columns A,B] [--filter EXPR ...] [--force]``
    The rows written as Parquet (pyarrow) or CSV, a stripe at a time.
``orcjit demo [FILE]``
    A tour of the bundled sample file: schema, metadata summary and statistics.
``orcjit warmup [--json] [--quiet]``
    Compile (or load from the Numba cache) every kernel a read can use, so that later processes only load.

Every command that shows a file's contents takes ``--columns`` (dotted paths; an unknown name is an error) and
``--json`` (``cat`` always writes JSON lines, ``convert`` writes files). ``schema``, ``meta``, ``stats``,
``explain``, ``index`` and ``bloom`` print one JSON object. ``meta`` and ``stats`` build one plain dict first
(:func:`meta_data`, :func:`stats_data`) and render it either as JSON or as aligned text, so the two outputs never
disagree about what a file holds.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import importlib.resources
import json
import math
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from . import __version__
from ._extras import MissingExtraError, require
from .errors import OrcError
from .indexes import RowIndex, describe_position, resolve_column
from .orcfile import ORCFile
from .pushdown.expressions import (
    FilterExpression,
    filter_term,
    parse_filter_expression,
    pd_timestamp,
    typed_value,
)
from .schema import COMPOUND_KINDS, TypeNode

__all__ = [
    "FilterExpression",
    "bloom_data",
    "build_parser",
    "filter_term",
    "main",
    "parse_filter_expression",
    "parse_stripe_selection",
    "row_indexes",
    "run_demo",
    "select_nodes",
    "typed_value",
]

PROG = "orcjit"
HELP_WIDTH = 79
SAMPLE_RESOURCE = "data/sample.orc"
# Statistics of long strings would stretch a text table past any screen; --json keeps them whole.
MAX_CELL = 32
# The exit status a process killed by SIGPIPE reports, as `head` and friends would see from a C tool.
EXIT_BROKEN_PIPE = 128 + 13

# statistics fields in the order the text table shows them, with their column headers
STAT_COLUMNS = [
    ("count", "count"),
    ("has_null", "has null"),
    ("minimum", "min"),
    ("maximum", "max"),
    ("sum", "sum"),
    ("lower_bound", "lower bound"),
    ("upper_bound", "upper bound"),
    ("true_count", "true"),
    ("false_count", "false"),
    ("min_children", "min children"),
    ("max_children", "max children"),
    ("total_children", "total children"),
    ("bytes_on_disk", "bytes on disk"),
]
DICTIONARY_ENCODINGS = frozenset({"DICTIONARY", "DICTIONARY_V2"})


# -- stripe selection ---------------------------------------------------------------------------------------------


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


def _selected_stripes(orc: ORCFile, selection: Sequence[range] | None) -> list[int]:
    """The stripe numbers a ``--stripes`` selection picks from ``orc``, sorted, each once."""
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


def _column_list(text: str | None) -> list[str] | None:
    """The names of a ``--columns`` value, or ``None`` when the option was not given."""
    if text is None:
        return None
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise OrcError(f"--columns {text!r} names no column")
    return names


def select_nodes(orc: ORCFile, columns: Sequence[str] | None) -> list[TypeNode] | None:
    """The schema nodes ``--columns`` names, in the order given; ``None`` when it was not given.

    Raises
    ------
    OrcError
        If a name is no column of the file.
    """
    if columns is None:
        return None
    nodes = []
    for name in columns:
        # a top-level field whose name holds a dot is found by its whole name before the name is taken as a path
        node = next((c for c in orc.schema.children if c.name == name), None)
        nodes.append(node if node is not None else resolve_column(orc.schema, name))
    return nodes


def _subtree_ids(nodes: Sequence[TypeNode] | None) -> set[int] | None:
    """The column ids of ``nodes`` and everything below them; ``None`` (every column) for ``None``."""
    if nodes is None:
        return None
    return {n.column_id for node in nodes for n in node.walk()}


# -- plain data: what each command reports --------------------------------------------------------------------------


def _type_label(node: TypeNode) -> str:
    # a compound type's full string repeats its whole subtree, which the rows below it already show
    return node.kind if node.is_compound else str(node)


def _tree_label(node: TypeNode) -> str:
    parent = node.parent
    if parent is None:
        return "(root)"
    if parent.kind == "struct":
        return node.name or ""
    if parent.kind == "array":
        return "<element>"
    if parent.kind == "map":
        return "<key>" if parent.children[0] is node else "<value>"
    return f"<variant {parent.children.index(node)}>"


def _depth(node: TypeNode) -> int:
    depth = 0
    while node.parent is not None:
        node = node.parent
        depth += 1
    return depth


def meta_data(
    orc: ORCFile,
    stripes: Sequence[range] | None = None,
    *,
    stripe_details: bool = True,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Collect what ``orcjit meta`` reports about a file.

    Parameters
    ----------
    orc : ORCFile
    stripes : sequence of range, optional
        Stripes to describe, as :func:`parse_stripe_selection` returns them; all stripes when ``None``.
    stripe_details : bool
        Whether to read each stripe's footer for its streams, encodings and writer time zone. Without it only
        the stripe layout from the file footer is reported, which costs no reads.
    columns : sequence of str, optional
        Report the streams and encodings of only these columns and the columns below them (dotted paths).

    Returns
    -------
    dict
        JSON-ready: file facts, then a ``stripes`` list.

    Raises
    ------
    OrcError
        If a selected stripe does not exist, its footer is corrupt or a column is not in the file.
    """
    selected = _selected_stripes(orc, stripes)
    nodes = list(orc.schema.walk())
    shown = _subtree_ids(select_nodes(orc, columns))
    out: dict[str, Any] = {
        "file": orc.source.name,
        "type": str(orc.schema),
        "rows": orc.nrows,
        "stripe_count": orc.nstripes,
        "column_count": orc.ncolumns,
        "compression": orc.compression,
        "compression_block_size": orc.compression_block_size,
        "file_version": orc.file_version,
        "writer": orc.writer,
        "writer_version": orc.writer_version,
        "writer_version_number": orc.writer_version_number,
        "software_version": orc.software_version,
        "row_index_stride": orc.row_index_stride,
        "file_size": orc.file_size,
        "content_length": orc.content_length,
        "user_metadata": {key: {"size": len(value)} for key, value in orc.user_metadata.items()},
        "stripes": [],
    }
    all_stripes = orc.stripes
    for i in selected:
        s = all_stripes[i]
        entry: dict[str, Any] = {
            "index": s.index,
            "offset": s.offset,
            "length": s.length,
            "index_length": s.index_length,
            "data_length": s.data_length,
            "footer_length": s.footer_length,
            "rows": s.rows,
            "first_row": s.first_row,
        }
        if stripe_details:
            footer = orc.stripe_footer(i)
            entry["writer_timezone"] = footer.writer_timezone
            entry["streams"] = [
                {"kind": st.kind_name, "column": st.column, "offset": st.offset, "length": st.length}
                for st in footer.streams
                if shown is None or st.column in shown
            ]
            encodings = []
            for column, enc in enumerate(footer.encodings):
                if shown is not None and column not in shown:
                    continue
                item: dict[str, Any] = {
                    "column": column,
                    "path": nodes[column].path if column < len(nodes) else None,
                    "kind": enc.kind_name,
                    # only dictionary encodings have a meaningful size; writers fill in 0 for the rest
                    "dictionary_size": enc.dictionary_size if enc.kind_name in DICTIONARY_ENCODINGS else None,
                }
                if enc.bloom_encoding is not None:
                    item["bloom_encoding"] = enc.bloom_encoding
                encodings.append(item)
            entry["encodings"] = encodings
        out["stripes"].append(entry)
    return out


def _column_stats(nodes: Sequence[TypeNode], stats: Iterable[Any], shown: set[int] | None) -> list[dict[str, Any]]:
    rows = []
    for node, st in zip(nodes, stats, strict=True):
        if shown is not None and node.column_id not in shown:
            continue
        values = st.to_dict()
        values.pop("column_id", None)
        rows.append({"id": node.column_id, "path": node.path, "type": str(node), **values})
    return rows


def stats_data(
    orc: ORCFile,
    stripes: Sequence[range] | None = None,
    *,
    include_stripes: bool = True,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Collect what ``orcjit stats`` reports about a file.

    Parameters
    ----------
    orc : ORCFile
    stripes : sequence of range, optional
        Stripes whose statistics to include, as :func:`parse_stripe_selection` returns them; all when ``None``.
    include_stripes : bool
        ``False`` for file-level statistics only (the ``stripes`` key is then left out).
    columns : sequence of str, optional
        Only these columns and the columns below them (dotted paths).

    Returns
    -------
    dict
        JSON-ready: ``columns`` holds one dict per column id with the statistics the writer recorded.

    Raises
    ------
    OrcError
        If a selected stripe does not exist, the metadata section holding stripe statistics is corrupt or a column
        is not in the file.
    """
    nodes = list(orc.schema.walk())
    shown = _subtree_ids(select_nodes(orc, columns))
    out: dict[str, Any] = {
        "file": orc.source.name,
        "rows": orc.nrows,
        "stripe_count": orc.nstripes,
        "columns": _column_stats(nodes, orc.statistics, shown),
    }
    if include_stripes:
        all_stripes = orc.stripes
        out["stripes"] = [
            {
                "index": i,
                "first_row": all_stripes[i].first_row,
                "rows": all_stripes[i].rows,
                "columns": _column_stats(nodes, orc.stripe_statistics(i), shown),
            }
            for i in _selected_stripes(orc, stripes)
        ]
    return out


# -- rendering ----------------------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    # a newline or tab inside a value would break the table's rows and columns
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and not value:
        return '""'  # so that an empty string is not mistaken for a missing value
    return _escape(str(value))


def _shorten(value: Any) -> Any:
    """A string value cut to ``MAX_CELL`` characters (after escaping) for a table; other values as they are."""
    if not isinstance(value, str):
        return value
    text = _escape(value)
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 3] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> list[str]:
    """Lay out rows as an aligned text table under underlined headers.

    Parameters
    ----------
    headers : sequence of str
    rows : sequence of sequences
        Raw values; ``None`` shows as an empty cell, ``bool`` as yes/no, control characters are escaped.
    indent : str
        Put before every line.

    Returns
    -------
    list of str
        The lines, without trailing spaces. Columns whose values are all numbers are right-aligned.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [
        any(row[i] is not None for row in rows) and all(row[i] is None or _is_number(row[i]) for row in rows)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return (indent + "  ".join(parts)).rstrip()

    return [line(list(headers)), line(["-" * w for w in widths]), *(line(row) for row in cells)]


def format_fields(pairs: Sequence[tuple[str, Any]], indent: str = "") -> list[str]:
    """Lay out ``label: value`` pairs with the values aligned."""
    width = max((len(label) for label, _ in pairs), default=0) + 1
    return [f"{indent}{label + ':':<{width}} {_cell(value)}".rstrip() for label, value in pairs]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _size(n: int) -> str:
    if n < 1024:
        return _plural(n, "byte")
    value, unit = float(n), "bytes"
    for larger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{n} bytes ({value:.1f} {unit})"


def _row_range(first_row: int, rows: int) -> str:
    if rows == 0:
        return "no rows"
    span = f"{first_row}-{first_row + rows - 1}" if rows > 1 else str(first_row)
    return f"{_plural(rows, 'row')} ({span})"


def _with_ancestors(nodes: Sequence[TypeNode] | None) -> set[int] | None:
    """The column ids of ``nodes``' subtrees and of the compound columns above them."""
    ids = _subtree_ids(nodes)
    for node in nodes or []:
        parent = node.parent
        while parent is not None and ids is not None:
            ids.add(parent.column_id)
            parent = parent.parent
    return ids


def schema_dict(orc: ORCFile, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The schema tree as :meth:`TypeNode.to_dict` gives it; with ``columns``, only their subtrees and the
    columns above them."""
    shown = _with_ancestors(select_nodes(orc, columns))

    def pruned(node: TypeNode) -> dict[str, Any]:
        out = node.to_dict()
        if node.children and shown is not None:
            out["children"] = [pruned(c) for c in node.children if c.column_id in shown]
        return out

    return pruned(orc.schema)


def schema_lines(orc: ORCFile, columns: Sequence[str] | None = None) -> list[str]:
    """The schema as text: the one-line type, then the tree with column ids, field names and types (with
    ``columns``, only their subtrees and the columns above them)."""
    all_nodes = list(orc.schema.walk())
    shown = _with_ancestors(select_nodes(orc, columns))
    nodes = [n for n in all_nodes if shown is None or n.column_id in shown]
    with_attributes = any(node.attributes for node in nodes)
    headers = ["id", "column", "type"] + (["attributes"] if with_attributes else [])
    rows = []
    for node in nodes:
        row: list[Any] = [node.column_id, "  " * _depth(node) + _tree_label(node), _type_label(node)]
        if with_attributes:
            row.append(", ".join(f"{k}={v}" for k, v in sorted(node.attributes.items())) or None)
        rows.append(row)
    return [
        *format_fields(
            [
                ("File", orc.source.name),
                ("Type", str(orc.schema)),
                ("Columns", f"{len(all_nodes)} (ids 0-{len(all_nodes) - 1})" if len(all_nodes) > 1 else "1 (id 0)"),
            ]
        ),
        "",
        *format_table(headers, rows, indent=""),
    ]


def _file_fact_lines(meta: dict[str, Any], *, with_name: bool = True) -> list[str]:
    compression = meta["compression"]
    if compression != "NONE":
        compression += f", block size {_size(meta['compression_block_size'])}"
    stride = meta["row_index_stride"]
    software = meta["software_version"]
    user_metadata = meta["user_metadata"]
    named = [("File", meta["file"]), ("Type", meta["type"])] if with_name else []
    lines = format_fields(
        [
            *named,
            ("Rows", meta["rows"]),
            ("Stripes", meta["stripe_count"]),
            ("Columns", meta["column_count"]),
            ("Compression", compression),
            ("File version", meta["file_version"]),
            ("Writer", meta["writer"]),
            ("Writer version", f"{meta['writer_version']} ({meta['writer_version_number']})"),
            ("Software version", software if software is not None else "(not recorded)"),
            ("Row index stride", stride if stride else "0 (no row index)"),
            ("File size", _size(meta["file_size"])),
            ("Content length", _size(meta["content_length"])),
            ("User metadata", _plural(len(user_metadata), "key") if user_metadata else "(none)"),
        ]
    )
    if user_metadata:
        lines += format_table(["key", "value bytes"], [[key, v["size"]] for key, v in user_metadata.items()])
    return lines


def _stripe_table(meta: dict[str, Any]) -> list[str]:
    stripes = meta["stripes"]
    if not stripes:
        return ["  (none)"]
    with_tz = any("writer_timezone" in s for s in stripes)
    headers = ["stripe", "offset", "length", "index", "data", "footer", "rows", "first row"]
    if with_tz:
        headers.append("writer timezone")
    rows = []
    for s in stripes:
        row = [s["index"], s["offset"], s["length"], s["index_length"], s["data_length"], s["footer_length"]]
        row += [s["rows"], s["first_row"]]
        if with_tz:
            row.append(s.get("writer_timezone"))
        rows.append(row)
    return format_table(headers, rows)


def meta_lines(meta: dict[str, Any]) -> list[str]:
    """Render :func:`meta_data` as text: file facts, a stripe table, then each stripe's streams and encodings."""
    shown = len(meta["stripes"])
    title = f"Stripes ({shown} of {meta['stripe_count']})" if shown != meta["stripe_count"] else "Stripes"
    lines = [*_file_fact_lines(meta), "", f"{title}:", *_stripe_table(meta)]
    for s in meta["stripes"]:
        if "streams" not in s:
            continue
        lines += [
            "",
            f"Stripe {s['index']}: offset {s['offset']}, {_size(s['length'])}, {_row_range(s['first_row'], s['rows'])}"
            f", writer timezone {s['writer_timezone'] or '(not recorded)'}",
            f"  Streams ({len(s['streams'])}):",
            *format_table(
                ["kind", "column", "offset", "length"],
                [[st["kind"], st["column"], st["offset"], st["length"]] for st in s["streams"]],
                indent="    ",
            ),
            f"  Encodings ({len(s['encodings'])}):",
        ]
        with_bloom = any("bloom_encoding" in e for e in s["encodings"])
        headers = ["column", "path", "encoding", "dictionary size"] + (["bloom encoding"] if with_bloom else [])
        rows = []
        for e in s["encodings"]:
            row = [e["column"], e["path"] or ("(root)" if e["column"] == 0 else None), e["kind"], e["dictionary_size"]]
            if with_bloom:
                row.append(e.get("bloom_encoding"))
            rows.append(row)
        lines += format_table(headers, rows, indent="    ")
    return lines


def meta_summary_lines(orc: ORCFile) -> list[str]:
    """File facts and the stripe layout, without reading any stripe footer (for ``orcjit demo``).

    The file name and type are left out: the demo's schema section has just shown them.
    """
    meta = meta_data(orc, stripe_details=False)
    return [*_file_fact_lines(meta, with_name=False), "", "Stripes:", *_stripe_table(meta)]


def _stats_table(columns: Sequence[dict[str, Any]]) -> list[str]:
    present = [(key, header) for key, header in STAT_COLUMNS if any(key in c for c in columns)]
    headers = ["id", "path", "type"] + [header for _, header in present]
    rows = []
    for c in columns:
        kind = c["kind"]
        type_label = kind if kind in COMPOUND_KINDS else c["type"]
        rows.append([c["id"], c["path"] or "(root)", type_label, *(_shorten(c.get(key)) for key, _ in present)])
    return format_table(headers, rows)


def stats_lines(stats: dict[str, Any]) -> list[str]:
    """Render :func:`stats_data` as text: a table of file statistics, then one per stripe."""
    lines = [
        *format_fields([("File", stats["file"]), ("Rows", stats["rows"]), ("Stripes", stats["stripe_count"])]),
        "",
        "File statistics:",
        *_stats_table(stats["columns"]),
    ]
    for s in stats.get("stripes", []):
        lines += ["", f"Stripe {s['index']} statistics, {_row_range(s['first_row'], s['rows'])}:"]
        lines += _stats_table(s["columns"])
    return lines


def file_stats_lines(orc: ORCFile) -> list[str]:
    """File-level statistics as a text table (for ``orcjit demo``)."""
    return _stats_table(stats_data(orc, include_stripes=False)["columns"])


# -- output -------------------------------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy arrays (list cells) and scalars
        value = value.tolist()
    if value is None or value is pd_na() or (isinstance(value, datetime.datetime) and value != value):
        return None  # pandas' NA and NaT
    # NaN and infinities are not JSON; strings keep them readable and the output strictly valid
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):  # pandas.Timestamp is a datetime
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return value


def _write_json(out: TextIO, obj: Any) -> None:
    out.write(json.dumps(_jsonable(obj), indent=2, allow_nan=False, default=str) + "\n")


def _write_lines(out: TextIO, lines: Iterable[str]) -> None:
    text = "\n".join(lines) + "\n"
    encoding = getattr(out, "encoding", None)
    if encoding:
        # a value the terminal's encoding cannot show is printed escaped instead of aborting the listing
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    out.write(text)


# -- commands -----------------------------------------------------------------------------------------------------


def _cmd_schema(args: argparse.Namespace, out: TextIO) -> int:
    columns = _column_list(args.columns)
    with ORCFile(args.file) as orc:
        if args.json:
            _write_json(out, schema_dict(orc, columns))
        else:
            _write_lines(out, schema_lines(orc, columns))
    return 0


def _cmd_meta(args: argparse.Namespace, out: TextIO) -> int:
    with ORCFile(args.file) as orc:
        meta = meta_data(orc, args.stripes, columns=_column_list(args.columns))
    if args.json:
        _write_json(out, meta)
    else:
        _write_lines(out, meta_lines(meta))
    return 0


def _cmd_stats(args: argparse.Namespace, out: TextIO) -> int:
    with ORCFile(args.file) as orc:
        stats = stats_data(orc, args.stripes, include_stripes=not args.no_stripes, columns=_column_list(args.columns))
    if args.json:
        _write_json(out, stats)
    else:
        _write_lines(out, stats_lines(stats))
    return 0


def _cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    columns = _column_list(args.columns)
    with ORCFile(args.file) as orc:
        terms = [filter_term(expression, orc.schema) for expression in args.filter]
        filters: list[Any] = [[term] for term in terms] if args.any else terms
        explanation = orc.explain(filters, columns=columns)
    if args.json:
        _write_json(out, explanation.to_dict())
    else:
        _write_lines(out, str(explanation).splitlines())
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


def pd_na() -> Any:
    """pandas' missing-value singleton, imported only when rows are printed."""
    import pandas as pd

    return pd.NA


def _value(value: Any) -> Any:
    # a NaN cell of a numeric column is a missing value in a row listing
    return None if isinstance(value, float) and math.isnan(value) else value


def head_lines(frame: Any) -> list[str]:
    """A DataFrame as a text table, all columns shown."""
    import pandas as pd

    with pd.option_context("display.max_columns", None, "display.width", 200, "display.max_colwidth", MAX_CELL):
        return str(frame.to_string()).splitlines()


def _cmd_head(args: argparse.Namespace, out: TextIO) -> int:
    columns = _column_list(args.columns)
    with ORCFile(args.file) as orc:
        frame = head_frame(orc, args.n, columns, args.encrypted)
    if args.json:
        for row in frame.to_dict("records"):
            out.write(json.dumps(_jsonable({k: _value(v) for k, v in row.items()}), default=str) + "\n")
    else:
        _write_lines(out, head_lines(frame))
    return 0


def _cmd_cat(args: argparse.Namespace, out: TextIO) -> int:
    columns = _column_list(args.columns)
    with ORCFile(args.file) as orc:
        filters: list[Any] | None = None
        if args.filter:
            terms = [filter_term(expression, orc.schema) for expression in args.filter]
            filters = [[term] for term in terms] if args.any else terms
        # a stripe at a time: memory stays that of one stripe however large the file
        for frame in orc.iter_stripes(columns=columns, filters=filters, encrypted=args.encrypted):
            for row in frame.to_dict("records"):
                cells = {k: _value(v) for k, v in row.items()}
                out.write(json.dumps(_jsonable(cells), allow_nan=False, default=str) + "\n")
    return 0


def row_indexes(
    orc: ORCFile, stripes: Sequence[range] | None = None, columns: Sequence[str] | None = None
) -> list[RowIndex]:
    """The row indexes ``orcjit index`` shows: for each selected stripe, each column (with ``columns``, those and
    the columns below them) that has one.

    Without ``columns``, encrypted columns are passed over (orcjit holds no keys to read their indexes); named,
    they raise :class:`OrcError` as :meth:`ORCFile.row_index` does.
    """
    named = select_nodes(orc, columns)
    selected = _selected_stripes(orc, stripes)
    if named is None:
        encryption = orc.encryption
        ids = [n.column_id for n in orc.schema.walk() if encryption is None or encryption.covering(n.column_id) is None]
    else:
        ids = sorted(_subtree_ids(named) or ())
    if orc.row_index_stride <= 0:
        return []  # no writer index to look for, and no stripe footer to read
    found = []
    for i in selected:
        for column_id in ids:
            index = orc.row_index(i, column_id)
            if index is not None:
                found.append(index)
    return found


def index_lines(orc: ORCFile, indexes: Sequence[RowIndex]) -> list[str]:
    """Row indexes as text: per stripe and column, a table of row groups with statistics and stream positions."""
    stride = orc.row_index_stride
    lines = format_fields(
        [("File", orc.source.name), ("Rows", orc.nrows), ("Stripes", orc.nstripes), ("Row index stride", stride)]
    )
    if not indexes:
        why = "the writer made no row index (row index stride 0)" if stride <= 0 else "no row index"
        if stride > 0:
            why += " in the selected stripes and columns"
        return [*lines, "", f"{orc.source.name}: {why}"]
    for index in indexes:
        node = orc.schema.column(index.column_id)
        streams = list(dict.fromkeys(name for group in index.positions for name in group))
        headers = ["group", "first row", "rows", "count", "has null", "min", "max"]
        headers += [f"{name} position" for name in streams]
        rows = []
        for g, stats in enumerate(index.statistics):
            row: list[Any] = [g, int(index.first_rows[g]), int(index.rows[g]), stats.count, stats.has_null]
            row += [_shorten(_jsonable(stats.minimum)), _shorten(_jsonable(stats.maximum))]
            row += [
                describe_position(index.positions[g][name], index.compressed) if name in index.positions[g] else None
                for name in streams
            ]
            rows.append(row)
        lines += [
            "",
            f"Stripe {index.stripe}, column {index.column_id} {index.path or '(root)'} ({_type_label(node)}), "
            f"{_plural(len(index), 'row group')}:",
            *format_table(headers, rows),
        ]
    return lines


def _cmd_index(args: argparse.Namespace, out: TextIO) -> int:
    with ORCFile(args.file) as orc:
        indexes = row_indexes(orc, args.stripes, _column_list(args.columns))
        if args.json:
            _write_json(
                out,
                {
                    "file": orc.source.name,
                    "rows": orc.nrows,
                    "row_index_stride": orc.row_index_stride,
                    "indexes": [index.to_dict() for index in indexes],
                },
            )
        else:
            _write_lines(out, index_lines(orc, indexes))
    return 0


def bloom_data(orc: ORCFile, column: str, text: str, stripes: Sequence[range] | None = None) -> dict[str, Any]:
    """What ``orcjit bloom`` reports: ``text``, typed by ``column``, tested against each row group's filter.

    Returns
    -------
    dict
        JSON-ready: the column and value, one entry per selected stripe (``bloom_filter`` false for a stripe
        without filters, else the filter's :meth:`BloomFilterIndex.to_dict` with ``first_row``, ``rows`` and
        ``may_contain`` in each row group), and the totals ``row_groups`` and ``may_contain``.

    Raises
    ------
    OrcError
        If the column is not in the file or compound, or ``text`` is not a value of its type.
    """
    from .kernels.bloom import hash_candidates

    (node,) = select_nodes(orc, [column]) or []
    if node.is_compound:
        raise OrcError(f"column {column!r} is a {node.kind}; bloom filters are kept for primitive columns")
    value = typed_value(text, node, column)
    hash_candidates(value, node.kind)  # a value the column cannot hold fails here, even when no stripe has filters
    stride = orc.row_index_stride
    entries = []
    groups = may = 0
    for i in _selected_stripes(orc, stripes):
        stripe = orc.stripes[i]
        bloom = orc.bloom_filter(i, node.column_id)
        if bloom is None:
            entries.append({"stripe": i, "first_row": stripe.first_row, "rows": stripe.rows, "bloom_filter": False})
            continue
        hits = bloom.might_contain(value).tolist()
        entry = {"first_row": stripe.first_row, "rows": stripe.rows, "bloom_filter": True, **bloom.to_dict()}
        for g, group in enumerate(entry["row_groups"]):
            start = g * stride
            group.update(
                first_row=stripe.first_row + start, rows=min(stride, stripe.rows - start), may_contain=bool(hits[g])
            )
            group["false_positive_rate"] = float(bloom.false_positive_rate[g])
        entries.append(entry)
        groups += len(hits)
        may += sum(hits)
    return {
        "file": orc.source.name,
        "column": node.path,
        "column_id": node.column_id,
        "type": str(node),
        "value": value,
        "stripes": entries,
        "row_groups": groups,
        "may_contain": may,
    }


def bloom_lines(data: dict[str, Any]) -> list[str]:
    """Render :func:`bloom_data` as text: a table per stripe, then a summary and notes."""
    value = _jsonable(data["value"])
    lines = format_fields([("File", data["file"]), ("Column", f"{data['column']} ({data['type']})"), ("Value", value)])
    missing = []
    unreliable = []
    for entry in data["stripes"]:
        if not entry["bloom_filter"]:
            missing.append(entry["stripe"])
            lines += ["", f"Stripe {entry['stripe']}, {_row_range(entry['first_row'], entry['rows'])}: no bloom filter"]
            continue
        if not entry["reliable"]:
            unreliable.append(entry["stripe"])
        rows = [
            [
                g["group"],
                g["first_row"],
                g["rows"],
                g["num_hash_functions"],
                g["num_bits"],
                round(g["fill_ratio"], 3),
                float(f"{g['false_positive_rate']:.2g}"),
                "may contain" if g["may_contain"] else "no",
            ]
            for g in entry["row_groups"]
        ]
        lines += [
            "",
            f"Stripe {entry['stripe']}, {_row_range(entry['first_row'], entry['rows'])}: {entry['stream']}"
            + ("" if entry["reliable"] else " (not reliable)"),
            *format_table(["group", "first row", "rows", "k", "m", "fill ratio", "false positives", "value"], rows),
        ]
    groups, may = data["row_groups"], data["may_contain"]
    summary = f"{may} of {_plural(groups, 'row group')} may contain the value"
    if groups:
        summary += f"; {groups - may} certainly do not" if not unreliable else f"; {groups - may} say no"
    lines += ["", f"Summary: {summary}."]
    if missing:
        lines.append(
            f"Note: {data['column']} has no bloom filter in {_plural(len(missing), 'stripe')} "
            f"({', '.join(map(str, missing))}); reads cannot skip its row groups by value."
        )
    if unreliable:
        lines.append(
            f"Note: the filters of {_plural(len(unreliable), 'stripe')} are not reliable for this column type and "
            "writer (the writer hashed some values wrongly): orcjit does not skip row groups on them, and their "
            '"no" may be wrong.'
        )
    return lines


def _cmd_bloom(args: argparse.Namespace, out: TextIO) -> int:
    with ORCFile(args.file) as orc:
        data = bloom_data(orc, args.column, args.value, args.stripes)
    if args.json:
        _write_json(out, data)
    else:
        _write_lines(out, bloom_lines(data))
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
    from .parquet import ParquetError

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
    from .parquet import ParquetError, read_metadata
    from .parquet.bloom import bloom_filter

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
        [("File", data["file"]), ("Column", f"{data['column']} ({data['type']})"), ("Value", _jsonable(data["value"]))]
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
    summary = f"{may} of {_plural(groups, 'row group')} may contain the value; {groups - may} certainly do not"
    if with_filter < groups:
        summary += f" ({groups - with_filter} without a bloom filter for this column)"
    return [*lines, "", f"Summary: {summary}."]


def _cmd_parquet_bloom(args: argparse.Namespace, out: TextIO) -> int:
    data = parquet_bloom_data(args.file, args.column, args.value)
    if args.json:
        _write_json(out, data)
    else:
        _write_lines(out, parquet_bloom_lines(data))
    return 0


CONVERT_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


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
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    rows = 0
    try:
        # a stripe at a time, each one Parquet row group: memory stays that of one stripe
        for i in range(max(orc.nstripes, 1)):
            table = orc.read_arrow(columns, filters=filters, stripes=[i] if orc.nstripes else None, encrypted=encrypted)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            if table.num_rows:
                writer.write_table(table)
                rows += table.num_rows
    except (pa.ArrowException, NotImplementedError) as e:
        raise OrcError(f"{orc.source.name}: cannot write as Parquet: {e}") from None
    finally:
        if writer is not None:
            writer.close()
    return rows


def _write_csv(orc: ORCFile, out: TextIO, columns: Sequence[str] | None, filters: Any, encrypted: str) -> int:
    rows = 0
    header = True
    for frame in orc.iter_stripes(columns=columns, filters=filters, encrypted=encrypted):
        frame.to_csv(out, header=header, index=False, lineterminator="\n")
        header = False
        rows += len(frame)
    if header:  # nothing matched, or no stripes: still one header line
        orc.read(columns=columns, filters=filters, encrypted=encrypted).to_csv(out, index=False, lineterminator="\n")
    return rows


def _cmd_convert(args: argparse.Namespace, out: TextIO) -> int:
    fmt = _convert_format(args)
    if fmt == "parquet":
        require("parquet", "orcjit convert to Parquet")  # before OUT is touched
    to_stdout = args.out == "-"
    if to_stdout and fmt != "csv":
        raise OrcError("only CSV can be written to standard output ('-'); give a path for Parquet")
    if not to_stdout and os.path.exists(args.out) and not args.force:
        raise OrcError(f"{args.out} exists; give --force to overwrite it")
    columns = _column_list(args.columns)
    with ORCFile(args.file) as orc:
        filters: list[Any] | None = None
        if args.filter:
            terms = [filter_term(expression, orc.schema) for expression in args.filter]
            filters = [[term] for term in terms] if args.any else terms
        select_nodes(orc, columns)  # an unknown column fails before OUT is created
        if to_stdout:
            rows = _write_csv(orc, out, columns, filters, args.encrypted)
        else:
            try:
                if fmt == "parquet":
                    rows = _write_parquet(orc, args.out, columns, filters, args.encrypted)
                else:
                    with open(args.out, "w", encoding="utf-8", newline="") as fh:
                        rows = _write_csv(orc, fh, columns, filters, args.encrypted)
            except BaseException:
                # a half-written file would pass for a complete one
                if os.path.exists(args.out):
                    os.remove(args.out)
                raise
    # the summary never mixes into CSV written to standard output
    print(
        f"{PROG}: wrote {_plural(rows, 'row')} to {'standard output' if to_stdout else args.out} ({fmt})",
        file=sys.stderr if to_stdout else out,
    )
    return 0


def rows_lines(orc: ORCFile) -> list[str]:
    """The demo's view of the rows: the first five, read into a DataFrame."""
    frame = head_frame(orc, 5)
    return [f"orcjit.read_orc(path).head() of {orc.nrows} rows:", "", *head_lines(frame)]


# Each demo section is a title and a function from an open file to text lines. Later features (reading rows into a
# DataFrame, pushdown) join the tour by appending a section here.
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
            _write_lines(out, [f"orcjit {__version__} demo: the bundled sample file, made-up taxi trips", ""])
            run_demo(path, out, sections)
        return
    with ORCFile(source) as orc:
        for i, (title, render) in enumerate(sections):
            lines = render(orc)
            _write_lines(out, ([""] if i else []) + [f"== {title} ==", "", *lines])


def _cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    run_demo(args.file, out)
    return 0


def _cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    from .warmup import warmup

    summary = warmup(out=out, quiet=args.quiet or args.json)
    if args.json:
        _write_json(out, summary.to_dict())
    return 0


# -- the parser ---------------------------------------------------------------------------------------------------


def _add_subcommand(
    subparsers: Any, name: str, summary: str, description: str, examples: str, handler: Callable[..., int]
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        # the raw formatter keeps the example lines as written, so the description is wrapped here
        description=textwrap.fill(description, HELP_WIDTH),
        epilog="examples:\n" + examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=handler)
    return parser


def _add_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an ORC file: a local path, or a URL fsspec understands")


def _add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as one JSON object instead of text")


def _add_encrypted(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--encrypted",
        choices=("raise", "skip", "masked"),
        default="raise",
        help="columns under ORC column encryption (orcjit holds no keys): fail (default), leave them out, or show "
        "the masked copy readers without the key get",
    )


def _add_columns(parser: argparse.ArgumentParser, what: str = "only these columns") -> None:
    parser.add_argument(
        "--columns",
        metavar="A,B",
        help=f"{what}, comma-separated, with dotted paths for nested fields such as trip.fare (default: all); "
        "an unknown name is an error",
    )


def _add_filters(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument(
        "--filter",
        action="append",
        required=required,
        type=parse_filter_expression,
        metavar="EXPR",
        help='keep the rows where EXPR holds, such as "x == 5", "s in (\'a\', \'b\')" or "d is null"; repeat for more',
    )
    parser.add_argument("--any", action="store_true", help="rows need to match any one filter, not all of them")


def _add_stripes(parser: Any) -> None:  # an ArgumentParser or a mutually exclusive group of one
    parser.add_argument(
        "--stripes",
        type=parse_stripe_selection,
        metavar="LIST",
        help="only these stripes: numbers and inclusive ranges, e.g. 0,2 or 1-3 (default: all)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``orcjit`` argument parser, with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Look inside Apache ORC files: schema, file and stripe metadata, column statistics, rows.",
        epilog=(
            "examples:\n"
            "  orcjit demo                     tour of the bundled sample file\n"
            "  orcjit schema data.orc          the type tree with column ids\n"
            "  orcjit meta data.orc --json     file and stripe layout as JSON\n"
            "  orcjit stats data.orc --no-stripes\n"
            "  orcjit head data.orc -n 5       the first rows as a table\n"
            "  orcjit cat data.orc --filter 'id > 9'\n"
            "                                  the matching rows as JSON lines\n"
            "  orcjit explain data.orc --filter 'id == 42'\n"
            "                                  what a filtered read skips, and why\n"
            "  orcjit index data.orc --columns id\n"
            "                                  row group statistics and stream positions\n"
            "  orcjit bloom data.orc --column id --value 42\n"
            "                                  which row groups' bloom filters may hold 42\n"
            "  orcjit parquet-bloom data.parquet --column key --value 42\n"
            "                                  the same for a Parquet file's bloom filters\n"
            "  orcjit convert data.orc data.parquet\n"
            "                                  write the rows as Parquet (or .csv)\n"
            "  orcjit warmup                   compile every kernel ahead of the first read\n\n"
            "Run 'orcjit COMMAND --help' for a command's options."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = _add_subcommand(
        subparsers,
        "schema",
        "print the schema as a tree of columns",
        "Print the file's schema: the one-line type string, then the type tree with each column's id, field name "
        "and type. Children of lists, maps and unions show as <element>, <key>, <value> and <variant N>.",
        "  orcjit schema data.orc\n  orcjit schema data.orc --json | python -m json.tool",
        _cmd_schema,
    )
    _add_file(p)
    _add_json(p, "the schema tree (id, kind, type, name, children)")
    _add_columns(p, "show only these columns' subtrees (and the columns above them)")

    p = _add_subcommand(
        subparsers,
        "meta",
        "print file metadata and each stripe's streams and encodings",
        "Print the file's metadata, like ORC's orc-metadata: rows, stripes, compression and block size, file "
        "version, writer and writer version, software version, row index stride, file size, content length and "
        "user metadata keys with their value sizes. Then, per stripe: offset, section lengths, rows, writer "
        "timezone, its streams (kind, column, offset, length) and each column's encoding (kind, dictionary size).",
        "  orcjit meta data.orc\n  orcjit meta data.orc --stripes 0,2\n  orcjit meta data.orc --json --stripes 1-3",
        _cmd_meta,
    )
    _add_file(p)
    _add_json(p, "the metadata")
    _add_stripes(p)
    _add_columns(p, "show the streams and encodings of only these columns and those below them")

    p = _add_subcommand(
        subparsers,
        "stats",
        "print column statistics of the file and of each stripe",
        "Print column statistics, like ORC's orc-statistics: for the whole file, then for each stripe, one row per "
        "column with its id, path, type, count, has null, min, max, sum and, where recorded, string bounds, "
        "true/false counts, child counts and bytes on disk. Long values are shortened in text; --json shows them "
        "whole.",
        "  orcjit stats data.orc\n  orcjit stats data.orc --no-stripes\n  orcjit stats data.orc --stripes 0 --json",
        _cmd_stats,
    )
    _add_file(p)
    _add_json(p, "the statistics")
    _add_columns(p, "show only these columns and those below them")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--no-stripes", action="store_true", help="file-level statistics only")
    _add_stripes(group)

    p = _add_subcommand(
        subparsers,
        "head",
        "print the first rows",
        "Print the first rows of the file as a table, reading only the stripes that hold them. --json prints one "
        "JSON object per row instead.",
        "  orcjit head data.orc\n  orcjit head data.orc -n 20 --columns id,name\n  orcjit head data.orc --json",
        _cmd_head,
    )
    _add_file(p)
    p.add_argument("-n", type=int, default=10, metavar="N", help="how many rows (default 10)")
    _add_columns(p)
    _add_encrypted(p)
    _add_json(p, "each row")

    p = _add_subcommand(
        subparsers,
        "cat",
        "print every row as JSON lines",
        "Print every row of the file as one JSON object per line, as ORC's orc-contents does, reading a stripe at a "
        "time so that memory stays that of one stripe. Timestamps and dates are ISO strings, decimals strings, "
        "binary values hex, NaN and infinities the strings NaN, Infinity and -Infinity. --filter keeps the rows "
        "that match, skipping the stripes and row groups that cannot (as orcjit explain shows).",
        "  orcjit cat data.orc\n  orcjit cat data.orc --columns id,name\n  orcjit cat data.orc --filter 'id > 100'",
        _cmd_cat,
    )
    _add_file(p)
    _add_columns(p)
    _add_filters(p)
    _add_encrypted(p)

    p = _add_subcommand(
        subparsers,
        "explain",
        "show what a filtered read would skip, and why",
        "Show what orcjit.read_orc(FILE, filters=...) would read: the filters' verdict on the file statistics, each "
        "stripe read or skipped (by file or stripe statistics, or because row-group statistics and bloom filters "
        "rule out every row group), the row groups each stripe keeps and why it skips the others, and the bytes "
        "the read would fetch. Each --filter is COLUMN OP VALUE with OP one of ==, =, !=, <, <=, >, >=, in, not in "
        "(with a list such as (1, 2) or ('a', 'b')), or COLUMN is null / COLUMN is not null. Values take the "
        "column's type: numbers, text (quote it if it has commas or parentheses), dates and timestamps in ISO "
        "form, true/false, x'00ff' bytes. The filters must all hold, or with --any one of them.",
        "  orcjit explain data.orc --filter 'id == 42'\n"
        "  orcjit explain data.orc --filter \"city in ('Oslo', 'Rome')\" --filter 'day >= 2024-01-01'\n"
        "  orcjit explain data.orc --filter 'a < 0' --filter 'b is null' --any --json\n"
        "  orcjit explain data.orc --filter 'trip.fare > 100.5' --columns id,trip",
        _cmd_explain,
    )
    _add_file(p)
    _add_filters(p, required=True)
    _add_columns(p, "count the bytes of only these columns")
    _add_json(p, "the explanation")

    p = _add_subcommand(
        subparsers,
        "index",
        "print each row group's statistics and stream positions (the row index)",
        "Print the row index the writer keeps in each stripe: for every column that has one, a table of its row "
        "groups (row index stride rows each) with the first row, rows, count, has null, min and max, and where "
        "each of the column's streams (PRESENT, DATA, LENGTH, SECONDARY) stands at the group's first row: a "
        "compression chunk's offset plus an offset inside it (or a byte offset in uncompressed files), and the "
        "values or bits to skip from there. Long values are shortened in text; --json shows them whole. A file "
        "written without row indexes says so.",
        "  orcjit index data.orc\n  orcjit index data.orc --columns id,trip.fare --stripes 0\n"
        "  orcjit index data.orc --json",
        _cmd_index,
    )
    _add_file(p)
    _add_columns(p, "only these columns and those below them")
    _add_stripes(p)
    _add_json(p, "the row indexes (one entry per stripe and column, one per row group inside)")

    p = _add_subcommand(
        subparsers,
        "bloom",
        "test a value against every row group's bloom filter",
        "Test a value against the bloom filter of each row group of a column, stripe by stripe: print each "
        "filter's k (hash functions), m (bits), fill ratio and estimated false positive rate, and whether the "
        "group may contain the value or certainly does not, then how many row groups may. The value is written "
        "as in a --filter and typed by the column: numbers, text (quoted if it has spaces at the ends), dates and "
        "timestamps in ISO form, true/false, x'00ff' bytes. Stripes without a filter for the column, and filters "
        "orcjit does not trust for this column type and writer (it never skips row groups on those), are noted.",
        "  orcjit bloom data.orc --column id --value 42\n"
        "  orcjit bloom data.orc --column city --value 'New York' --stripes 0-3\n"
        "  orcjit bloom data.orc --column day --value 2024-01-01 --json",
        _cmd_bloom,
    )
    _add_file(p)
    p.add_argument("--column", required=True, metavar="C", help="the column, a dotted path for a nested field")
    p.add_argument("--value", required=True, metavar="V", help="the value to test")
    _add_stripes(p)
    _add_json(p, "the answers (k, m, fill ratio and may_contain per row group, with totals)")

    p = _add_subcommand(
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
        _cmd_parquet_bloom,
    )
    p.add_argument("file", metavar="FILE", help="a Parquet file")
    p.add_argument("--column", required=True, metavar="C", help="the column, a dotted path for a nested leaf")
    p.add_argument("--value", required=True, metavar="V", help="the value to test")
    _add_json(p, "the answers (bytes, fill ratio and may_contain per row group, with totals)")

    p = _add_subcommand(
        subparsers,
        "convert",
        "write the rows to a Parquet or CSV file",
        "Write the file's rows to OUT as Parquet (with pyarrow, one row group per stripe, Arrow types as "
        "orcjit.read_arrow gives them) or CSV (a header line, then the rows as pandas writes them), reading a "
        "stripe at a time so that memory stays that of one stripe. The format comes from OUT's suffix (.parquet, "
        ".pq, .csv) unless --format says; OUT - writes CSV to standard output. An existing OUT is left alone "
        "unless --force is given. --columns and --filter choose what is written, as for cat. A summary line "
        "(rows written, path) follows on standard output, or on standard error when the CSV goes there.",
        "  orcjit convert data.orc data.parquet\n"
        "  orcjit convert data.orc out.csv --columns id,name --filter 'id > 100'\n"
        "  orcjit convert data.orc - --format csv | head\n"
        "  orcjit convert data.orc data.pq --force",
        _cmd_convert,
    )
    _add_file(p)
    p.add_argument("out", metavar="OUT", help="the file to write, or - for CSV on standard output")
    p.add_argument("--format", choices=("parquet", "csv"), help="the output format (default: from OUT's suffix)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    _add_columns(p, "write only these columns")
    _add_filters(p)
    _add_encrypted(p)

    p = _add_subcommand(
        subparsers,
        "demo",
        "tour the bundled sample file: schema, metadata, statistics, rows",
        "Open the sample file that ships with orcjit (a few thousand made-up taxi trips in several zstd stripes) "
        "and print its schema, a metadata summary with the stripe layout, its file-level column statistics and "
        "its first rows read into a DataFrame. Give FILE to take the same tour of another file.",
        "  orcjit demo\n  orcjit demo data.orc",
        _cmd_demo,
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="an ORC file to show instead of the bundled sample")

    p = _add_subcommand(
        subparsers,
        "warmup",
        "compile every kernel ahead of time, so that later reads only load them",
        "Compile, or load from the Numba cache, every kernel specialisation a read can use: all types and "
        "encodings, every codec including LZO, row index and bloom filter kernels, read-only and writable buffers. "
        "It reads small files through the public API (the ones bundled with orcjit, and more that pyarrow writes "
        "if it is installed) and prints each group's time with the kernels it compiled and loaded, then the "
        "cache directories. Run it once after installing, or in a container image's build step: a new process "
        "then reads without compiling. The cache goes to NUMBA_CACHE_DIR if set, else the user's cache directory "
        "(~/.cache/orcjit), else a private directory in $TMPDIR; never into the installed package.",
        "  orcjit warmup\n  NUMBA_CACHE_DIR=/opt/cache orcjit warmup\n  orcjit warmup --json",
        _cmd_warmup,
    )
    p.add_argument("--quiet", action="store_true", help="print nothing (the exit status says whether it worked)")
    _add_json(p, "the summary (seconds, kernels compiled and loaded per group, cache directories)")
    return parser


# -- entry point --------------------------------------------------------------------------------------------------


def _error_message(exc: BaseException, path: str | None) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        # OSError's own text reads "[Errno 2] No such file or directory: 'x'"; name the file first instead, and
        # name the file the user gave when the failing call had none (a read on a directory, say)
        name = exc.filename if exc.filename is not None else path
        if isinstance(name, bytes):
            name = os.fsdecode(name)
        message = f"{name}: {exc.strerror}" if name is not None else exc.strerror
    else:
        message = str(exc) or type(exc).__name__
    return " ".join(message.split("\n"))


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
        print(f"{PROG}: error: {_error_message(exc, getattr(args, 'file', None))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 128 + 2


if __name__ == "__main__":
    sys.exit(main())
