"""``orcjit stats PATH``: column statistics of the file and of each stripe (like ORC's ``orc-statistics``); for a
dataset, each top-level column summed up over the files, then file by file."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from ..errors import OrcError
from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from ..types.kinds import COMPOUND_KINDS
from ..types.schema import TypeNode
from .options import (
    add_columns,
    add_json,
    add_paths,
    add_stripes,
    add_verb,
    column_list,
    dataset_of,
    select_nodes,
    selected_stripes,
    subtree_ids,
)
from .render import format_fields, format_table, pd_na, row_range, stat_cell, write_report

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
        "disk. Long values are shortened in text; --json shows them whole. Given a directory, a glob or several "
        "files, print for each top-level column (partition columns too) the dataset's summary: values (count), "
        "has null, the least minimum and greatest maximum over the files (blank when a file holding values records "
        "no bounds, as then they are unknown), then with --files one row per file: rows, count, has null, min, max "
        "and a flag naming the files that hold the dataset's min and max, or that record no bounds.",
        "  orcjit stats data.orc\n  orcjit stats data.orc --no-stripes\n  orcjit stats data.orc --stripes 0 --json\n"
        "  orcjit stats warehouse/events/ --columns id,year --files",
        run,
    )
    add_paths(p)
    add_json(p, "the statistics")
    add_columns(p, "show only these columns and those below them")
    p.add_argument("--files", action="store_true", help="datasets: each column's statistics file by file too")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--no-stripes", action="store_true", help="file-level statistics only")
    add_stripes(group)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the statistics of the file or dataset ``args.file`` names."""
    dataset = dataset_of(args)
    if dataset is not None:
        if args.stripes is not None:
            raise OrcError("--stripes selects the stripes of one file; give one of the dataset's files")
        data = dataset_stats_data(dataset, column_list(args.columns), per_file=args.files)
        write_report(out, data, args.json, dataset_stats_lines)
        return 0
    if args.files:
        raise OrcError("--files lists a dataset's files; give a directory, a glob or several files")
    with ORCFile(args.file[0]) as orc:
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


def _plain(value: Any) -> Any:
    """A cell of :meth:`ORCDataset.statistics` as a plain value: pandas fills a missing bound with NaN (or NA)
    in a column of numbers, which here means the file records none."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd_na():
        return None
    return value


def _bound(values: list[Any], pick: Callable[[list[Any]], Any]) -> Any:
    try:
        return pick(values) if values else None
    except TypeError:  # bounds of kinds that do not compare (never after schema unification, but never a crash)
        return None


def _dataset_column(dataset: ORCDataset, node: TypeNode, per_file: bool) -> dict[str, Any]:
    """One top-level column summed up over the dataset's files, and with ``per_file`` file by file."""
    files = [{k: _plain(v) for k, v in row.items()} for row in dataset.statistics(node.name or "").to_dict("records")]
    # a file with values but no recorded bound leaves the dataset's bound unknown: min of the others would lie
    unbounded = [f for f in files if f["count"] and (f["min"] is None or f["max"] is None)]
    minimum = None if unbounded else _bound([f["min"] for f in files if f["min"] is not None], min)
    maximum = None if unbounded else _bound([f["max"] for f in files if f["max"] is not None], max)
    out: dict[str, Any] = {
        "id": node.column_id,
        "path": node.path,
        "type": str(node),
        "kind": node.kind,
        "partition": node.name in dataset.partition_columns,
        "rows": sum(f["rows"] for f in files),
        "count": sum(f["count"] for f in files),
        "has_null": any(f["has_null"] for f in files),
        "minimum": minimum,
        "maximum": maximum,
        "files_without_bounds": len(unbounded),
    }
    if per_file:
        for f in files:
            holds = [
                name for name, bound in (("min", minimum), ("max", maximum)) if bound is not None and f[name] == bound
            ]
            # which file to look in for the dataset's extremes, or why it has none
            f["flag"] = "no bounds" if any(f is u for u in unbounded) else (", ".join(holds) or None)
        out["files"] = files
    return out


def dataset_stats_data(
    dataset: ORCDataset, columns: Sequence[str] | None = None, *, per_file: bool = False
) -> dict[str, Any]:
    """Collect what ``orcjit stats`` reports about a dataset, from each file's file-level statistics.

    Parameters
    ----------
    dataset : ORCDataset
    columns : sequence of str, optional
        Only these top-level columns (default: all, partition columns included).
    per_file : bool
        Also list each column's statistics file by file (``files`` in each column's dict), with a ``flag``:
        ``"min"``/``"max"`` for the files holding the dataset's bounds, ``"no bounds"`` for a file with values
        but no recorded minimum or maximum.

    Returns
    -------
    dict
        JSON-ready: ``columns`` holds one dict per column with its count, has null, least minimum and greatest
        maximum over the files (``None`` when unknown) and how many files left them unknown.

    Raises
    ------
    OrcError
        If a column is not in the dataset, or is nested (statistics are summed up per top-level column).
    """
    nodes = select_nodes(dataset, columns) or list(dataset.schema.children)
    return {
        "file_count": len(dataset.files),
        "rows": dataset.nrows,
        "partition_columns": dataset.partition_columns,
        "columns": [_dataset_column(dataset, node, per_file) for node in nodes],
    }


def dataset_stats_lines(stats: dict[str, Any]) -> list[str]:
    """Render :func:`dataset_stats_data` as text: a table of the dataset's columns, then one per column of its
    files where they were collected."""
    columns = stats["columns"]
    lines = [
        *format_fields([("Files", stats["file_count"]), ("Rows", stats["rows"])]),
        "",
        "Dataset statistics (over the files' own):",
        *format_table(
            ["id", "path", "type", "partition", "count", "has null", "min", "max", "files without bounds"],
            [
                [
                    c["id"],
                    c["path"],
                    c["kind"] if c["kind"] in COMPOUND_KINDS else c["type"],
                    c["partition"],
                    c["count"],
                    c["has_null"],
                    stat_cell("minimum", c["minimum"]),
                    stat_cell("maximum", c["maximum"]),
                    c["files_without_bounds"],
                ]
                for c in columns
            ],
        ),
    ]
    for c in columns:
        if "files" not in c:
            continue
        lines += ["", f"Column {c['path']} by file:"]
        lines += format_table(
            ["path", "rows", "count", "has null", "min", "max", "flag"],
            [
                [
                    f["path"],
                    f["rows"],
                    f["count"],
                    f["has_null"],
                    stat_cell("minimum", f["min"]),
                    stat_cell("maximum", f["max"]),
                    f["flag"],
                ]
                for f in c["files"]
            ],
        )
    return lines
