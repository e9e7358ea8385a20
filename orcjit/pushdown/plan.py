"""Deciding, stage by stage, what a filtered read must decode: file statistics, stripe statistics, then row
groups (row index statistics and bloom filters). ``ORCFile.explain`` reports the decisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..decode.seek import planned_ranges, read_row_positions, stream_plan
from ..decode.streams import coalesce
from ..errors import OrcError
from ..filemeta import FileMeta
from ..statistics import ColumnStatistics
from ..stripes import DATA_KINDS, ROW_INDEX, StripeFooterInfo
from ..types.schema import TypeNode
from .filters import Filters, describe
from .prune import NAMES, NO, bloom_filters_trusted, evaluate, statistics_trusted
from .rowgroups import RowGroupVerdict, evaluate_row_groups, kept_runs


@dataclass
class StripeDecision:
    """Whether stripe ``index`` is read, and why not if not.

    ``reason`` is ``"file statistics"``, ``"stripe statistics"`` or ``"row groups"`` (every row group skipped)
    for a skipped stripe. ``row_groups`` holds the row-group decisions when the stripe has a usable row index.
    """

    index: int
    rows: int
    keep: bool
    reason: str | None = None
    row_groups: RowGroupVerdict | None = None
    footer: StripeFooterInfo | None = field(default=None, repr=False)


@dataclass
class Explanation:
    """What a filtered read skips and why; ``str()`` gives a readable report."""

    filters: str
    file_verdict: str
    stripes: list[StripeDecision]
    file_size: int
    bytes_to_read: int
    index_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly description."""
        stripes = []
        for d in self.stripes:
            item: dict[str, Any] = {"stripe": d.index, "rows": d.rows, "read": d.keep}
            if d.reason:
                item["skipped_by"] = d.reason
            if d.row_groups is not None:
                rg = d.row_groups
                item["row_groups"] = len(rg.keep)
                item["row_groups_kept"] = int(rg.keep.sum())
                item["row_groups_skipped_by_statistics"] = sum(r == "statistics" for r in rg.reasons)
                item["row_groups_skipped_by_bloom_filter"] = sum(r == "bloom filter" for r in rg.reasons)
            stripes.append(item)
        return {
            "filters": self.filters,
            "file": self.file_verdict,
            "stripes": stripes,
            "stripes_read": sum(d.keep for d in self.stripes),
            "rows_in_stripes_read": sum(d.rows for d in self.stripes if d.keep),
            "bytes_to_read": self.bytes_to_read,
            "index_bytes_read": self.index_bytes,
            "file_size": self.file_size,
        }

    def __str__(self) -> str:
        info = self.to_dict()
        lines = [
            f"filters: {self.filters}",
            f"file statistics: {self.file_verdict}",
            f"stripes read: {info['stripes_read']} of {len(self.stripes)} "
            f"({info['rows_in_stripes_read']} of {sum(d.rows for d in self.stripes)} rows)",
        ]
        for item in info["stripes"]:
            text = f"  stripe {item['stripe']}: {item['rows']} rows, " + (
                "read" if item["read"] else f"skipped by {item['skipped_by']}"
            )
            if "row_groups" in item:
                text += (
                    f"; row groups kept {item['row_groups_kept']} of {item['row_groups']}"
                    f" (skipped: {item['row_groups_skipped_by_statistics']} by statistics,"
                    f" {item['row_groups_skipped_by_bloom_filter']} by bloom filter)"
                )
            lines.append(text)
        pct = 100.0 * self.bytes_to_read / self.file_size if self.file_size else 0.0
        lines.append(
            f"bytes: {self.bytes_to_read} of {self.file_size} ({pct:.1f}%) to read the selected columns,"
            f" {self.index_bytes} of indexes read to decide"
        )
        return "\n".join(lines)


def decide(meta: FileMeta, filters: Filters | None, indices: Sequence[int]) -> tuple[str, list[StripeDecision]]:
    """Decide each stripe in ``indices``: file statistics, stripe statistics, then row groups."""
    stripes = meta.stripes
    if not filters:
        return "maybe", [StripeDecision(i, stripes[i].rows, True) for i in indices]
    writer, version = meta.writer, meta.writer_version

    def trusted(node: TypeNode) -> bool:
        # a Hive 0.11 decimal is read at a scale its values are brought to (truncated, rounded): its statistics and
        # bloom filters describe the values as stored, not as read
        return not node.hive11_decimal and statistics_trusted(node.kind, writer, version)

    use_bloom = bloom_filters_trusted(writer, meta.software_version)
    tested = {p.node.column_id for group in filters for p in group}
    file_stats: dict[int, ColumnStatistics | None] = dict(meta.column_statistics(tested))
    file_verdict = evaluate(filters, file_stats, meta.nrows, trusted)
    if file_verdict == NO:
        return NAMES[NO], [StripeDecision(i, stripes[i].rows, False, "file statistics") for i in indices]
    decisions = []
    for i in indices:
        stripe = stripes[i]
        try:
            stats: dict[int, ColumnStatistics | None] = dict(meta.column_statistics(tested, i))
        except OrcError:
            stats = {}  # no stripe statistics: decide by row groups alone
        if stats and evaluate(filters, stats, stripe.rows, trusted) == NO:
            decisions.append(StripeDecision(i, stripe.rows, False, "stripe statistics"))
            continue
        footer = meta.stripe_footer(i)
        groups = evaluate_row_groups(meta, stripe, footer, filters, trusted, use_bloom)
        if groups is not None and not groups.keep.any():
            decisions.append(StripeDecision(i, stripe.rows, False, "row groups", groups, footer))
            continue
        decisions.append(StripeDecision(i, stripe.rows, True, None, groups, footer))
    return NAMES[file_verdict], decisions


def explain(meta: FileMeta, filters: Filters | None, selected: set[int]) -> Explanation:
    """Decide every stripe and total the bytes the read would fetch for the ``selected`` column ids."""
    file_verdict, decisions = decide(meta, filters, range(len(meta.stripes)))
    index_bytes = sum(d.row_groups.index_bytes for d in decisions if d.row_groups is not None)
    data = 0
    for d in decisions:
        if d.keep:
            footer = d.footer or meta.stripe_footer(d.index)
            data += meta.stripes[d.index].footer_length + _stripe_bytes(meta, d, footer, selected)
    return Explanation(describe(filters), file_verdict, decisions, meta.tail.file_size, data, index_bytes)


def _stripe_bytes(meta: FileMeta, d: StripeDecision, footer: StripeFooterInfo, selected: set[int]) -> int:
    """What a read fetches of kept stripe ``d`` beyond its footer: the data streams of the ``selected`` columns,
    or, when it skips row groups, the row indexes it seeks with and the ranges each run of kept row groups starts
    with (:func:`~orcjit.decode.seek.stream_plan`; a run that ends inside a long chunk fetches a little more)."""
    groups = d.row_groups
    whole = coalesce((s.offset, s.length) for s in footer.streams if s.column in selected and s.kind in DATA_KINDS)
    if groups is None or groups.keep.all() or groups.stride <= 0:
        return sum(length for _, length in whole)
    stripe = meta.stripes[d.index]
    tail = meta.tail
    nodes = [node for node in meta.schema.walk() if node.column_id in selected]
    positions = read_row_positions(meta.source, tail, stripe, footer, nodes, groups.stride, groups.indexes)
    if positions is None:
        return sum(length for _, length in whole)
    fetched_indexes = [s for s in footer.streams if s.kind == ROW_INDEX and s.column in selected]
    seek_indexes = sum(s.length for s in fetched_indexes if s.column not in groups.indexes)
    runs = [
        stream_plan(footer, selected, positions, first, end, meta.compressed, tail.block_size)
        for first, end in kept_runs(groups.keep)
    ]
    return seek_indexes + sum(length for plan in runs for _, length in planned_ranges(plan))
