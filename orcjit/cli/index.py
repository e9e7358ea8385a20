"""``orcjit index FILE``: each stripe's row index: per row group, first row, rows, statistics and stream
positions."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from ..indexes import RowIndex, describe_position
from ..orcfile import ORCFile
from .options import (
    add_columns,
    add_file,
    add_json,
    add_stripes,
    add_verb,
    column_list,
    one_file,
    select_nodes,
    selected_stripes,
    subtree_ids,
)
from .render import (
    format_fields,
    format_table,
    jsonable,
    plural,
    shorten,
    stat_cell,
    type_label,
    write_json,
    write_lines,
)


def add_to(subparsers: Any) -> None:
    """Add ``index`` and its options."""
    p = add_verb(
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
        run,
    )
    add_file(p)
    add_columns(p, "only these columns and those below them")
    add_stripes(p)
    add_json(p, "the row indexes (one entry per stripe and column, one per row group inside)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the row indexes of ``args.file``."""
    with ORCFile(one_file(args.file, "index", "row indexes belong to the stripes of a file")) as orc:
        indexes = row_indexes(orc, args.stripes, column_list(args.columns))
        if args.json:
            write_json(
                out,
                {
                    "file": orc.source.name,
                    "rows": orc.nrows,
                    "row_index_stride": orc.row_index_stride,
                    "indexes": [index.to_dict() for index in indexes],
                },
            )
        else:
            write_lines(out, index_lines(orc, indexes))
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
    selected = selected_stripes(orc, stripes)
    if named is None:
        encryption = orc.encryption
        ids = [n.column_id for n in orc.schema.walk() if encryption is None or encryption.covering(n.column_id) is None]
    else:
        ids = sorted(subtree_ids(named) or ())
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
        # geometry columns: each row group's bounding box and geometry types, where the writer recorded them
        extra = [key for key in ("bbox", "geometry_types") if any(key in s.to_dict() for s in index.statistics)]
        headers = ["group", "first row", "rows", "count", "has null", "min", "max"]
        headers += [key.replace("_", " ") for key in extra] + [f"{name} position" for name in streams]
        rows = []
        for g, stats in enumerate(index.statistics):
            row: list[Any] = [g, int(index.first_rows[g]), int(index.rows[g]), stats.count, stats.has_null]
            row += [shorten(jsonable(stats.minimum)), shorten(jsonable(stats.maximum))]
            row += [stat_cell(key, stats.to_dict().get(key)) for key in extra]
            row += [
                describe_position(index.positions[g][name], index.compressed) if name in index.positions[g] else None
                for name in streams
            ]
            rows.append(row)
        lines += [
            "",
            f"Stripe {index.stripe}, column {index.column_id} {index.path or '(root)'} ({type_label(node)}), "
            f"{plural(len(index), 'row group')}:",
            *format_table(headers, rows),
        ]
    return lines
