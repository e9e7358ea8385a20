"""``orcjit stats FILE``: column statistics of the file and of each stripe (like ORC's ``orc-statistics``)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from ..orcfile import ORCFile
from ..types.kinds import COMPOUND_KINDS
from ..types.schema import TypeNode
from .options import (
    add_columns,
    add_file,
    add_json,
    add_stripes,
    add_verb,
    column_list,
    select_nodes,
    selected_stripes,
    subtree_ids,
)
from .render import format_fields, format_table, row_range, stat_cell, write_report

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
    ("bbox", "bbox"),
    ("geometry_types", "geometry types"),
    ("bytes_on_disk", "bytes on disk"),
]


def add_to(subparsers: Any) -> None:
    """Add ``stats`` and its options."""
    p = add_verb(
        subparsers,
        "stats",
        "print column statistics of the file and of each stripe",
        "Print column statistics, like ORC's orc-statistics: for the whole file, then for each stripe, one row per "
        "column with its id, path, type, count, has null, min, max, sum and, where recorded, string bounds, "
        "true/false counts, child counts, the bounding box and geometry types of geometry columns, and bytes on "
        "disk. Long values are shortened in text; --json shows them whole.",
        "  orcjit stats data.orc\n  orcjit stats data.orc --no-stripes\n  orcjit stats data.orc --stripes 0 --json",
        run,
    )
    add_file(p)
    add_json(p, "the statistics")
    add_columns(p, "show only these columns and those below them")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--no-stripes", action="store_true", help="file-level statistics only")
    add_stripes(group)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the statistics of ``args.file``."""
    with ORCFile(args.file) as orc:
        stats = stats_data(orc, args.stripes, include_stripes=not args.no_stripes, columns=column_list(args.columns))
    write_report(out, stats, args.json, stats_lines)
    return 0


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
    shown = subtree_ids(select_nodes(orc, columns))
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
            for i in selected_stripes(orc, stripes)
        ]
    return out


def stats_table(columns: Sequence[dict[str, Any]]) -> list[str]:
    """The ``columns`` of :func:`stats_data` as a table: one row per column, one column per statistic recorded."""
    present = [(key, header) for key, header in STAT_COLUMNS if any(key in c for c in columns)]
    headers = ["id", "path", "type"] + [header for _, header in present]
    rows = []
    for c in columns:
        kind = c["kind"]
        type_label = kind if kind in COMPOUND_KINDS else c["type"]
        rows.append([c["id"], c["path"] or "(root)", type_label, *(stat_cell(key, c.get(key)) for key, _ in present)])
    return format_table(headers, rows)


def stats_lines(stats: dict[str, Any]) -> list[str]:
    """Render :func:`stats_data` as text: a table of file statistics, then one per stripe."""
    lines = [
        *format_fields([("File", stats["file"]), ("Rows", stats["rows"]), ("Stripes", stats["stripe_count"])]),
        "",
        "File statistics:",
        *stats_table(stats["columns"]),
    ]
    for s in stats.get("stripes", []):
        lines += ["", f"Stripe {s['index']} statistics, {row_range(s['first_row'], s['rows'])}:"]
        lines += stats_table(s["columns"])
    return lines
