"""``orcjit bloom FILE --column C --value V``: a value tested against every row group's bloom filter, with each
filter's k, m and fill ratio."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from ..errors import OrcError
from ..orcfile import ORCFile
from ..pushdown.expressions import typed_value
from .options import add_file, add_json, add_stripes, add_verb, one_file, select_nodes, selected_stripes
from .render import format_fields, format_table, jsonable, plural, row_range, write_report


def add_to(subparsers: Any) -> None:
    """Add ``bloom`` and its options."""
    p = add_verb(
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
        run,
    )
    add_file(p)
    p.add_argument("--column", required=True, metavar="C", help="the column, a dotted path for a nested field")
    p.add_argument("--value", required=True, metavar="V", help="the value to test")
    add_stripes(p)
    add_json(p, "the answers (k, m, fill ratio and may_contain per row group, with totals)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the answers of the bloom filters of ``args.column`` in ``args.file`` for ``args.value``."""
    with ORCFile(one_file(args.file, "bloom", "bloom filters belong to the row groups of a file")) as orc:
        data = bloom_data(orc, args.column, args.value, args.stripes)
    write_report(out, data, args.json, bloom_lines)
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
    from ..kernels.bloom import hash_candidates

    (node,) = select_nodes(orc, [column]) or []
    if node.is_compound:
        raise OrcError(f"column {column!r} is a {node.kind}; bloom filters are kept for primitive columns")
    value = typed_value(text, node, column)
    hash_candidates(value, node.kind)  # a value the column cannot hold fails here, even when no stripe has filters
    stride = orc.row_index_stride
    entries = []
    groups = may = 0
    for i in selected_stripes(orc, stripes):
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
    value = jsonable(data["value"])
    lines = format_fields([("File", data["file"]), ("Column", f"{data['column']} ({data['type']})"), ("Value", value)])
    missing = []
    unreliable = []
    for entry in data["stripes"]:
        if not entry["bloom_filter"]:
            missing.append(entry["stripe"])
            lines += ["", f"Stripe {entry['stripe']}, {row_range(entry['first_row'], entry['rows'])}: no bloom filter"]
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
            f"Stripe {entry['stripe']}, {row_range(entry['first_row'], entry['rows'])}: {entry['stream']}"
            + ("" if entry["reliable"] else " (not reliable)"),
            *format_table(["group", "first row", "rows", "k", "m", "fill ratio", "false positives", "value"], rows),
        ]
    groups, may = data["row_groups"], data["may_contain"]
    summary = f"{may} of {plural(groups, 'row group')} may contain the value"
    if groups:
        summary += f"; {groups - may} certainly do not" if not unreliable else f"; {groups - may} say no"
    lines += ["", f"Summary: {summary}."]
    if missing:
        lines.append(
            f"Note: {data['column']} has no bloom filter in {plural(len(missing), 'stripe')} "
            f"({', '.join(map(str, missing))}); reads cannot skip its row groups by value."
        )
    if unreliable:
        lines.append(
            f"Note: the filters of {plural(len(unreliable), 'stripe')} are not reliable for this column type and "
            "writer (the writer hashed some values wrongly): orcjit does not skip row groups on them, and their "
            '"no" may be wrong.'
        )
    return lines
