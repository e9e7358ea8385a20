"""Planning a read: which columns it returns and decodes, which filters prune it, and the runs of rows to decode.

A read returns the columns ``columns=`` names and decodes those and the columns its filters test
(:func:`orcjit.types.resolve.decode_selection`); encryption may take columns out or refuse the read
(:func:`orcjit.encryption.guard_read`). Pruning (:mod:`orcjit.pushdown.plan`) keeps stripes, and inside each
kept stripe the row groups that may match: each maximal run of kept row groups is decoded as one :class:`Run`,
entered at its first row group with the row index, or the whole stripe when it skips none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..decode.seek import Positions, read_row_positions
from ..encryption import guard_read
from ..filemeta import FileMeta
from ..kernels.row_index import RowIndexTable
from ..pushdown.filters import Filters, normalize_filters, tested_columns
from ..pushdown.plan import StripeDecision
from ..pushdown.rowgroups import kept_runs
from ..stripes import StripeFooterInfo, StripeInfo
from ..types.resolve import Selection, decode_selection, select_columns

__all__ = ["ReadPlan", "Run", "plan_read", "row_range_runs", "run_positions", "stripe_runs"]


@dataclass
class Run:
    """Rows ``[first, first + count)`` of one stripe, decoded as one piece; ``start`` is where they go in the
    read's result. ``positions`` is set when the run is entered by row group through the row index."""

    stripe: StripeInfo
    first: int
    count: int
    footer: StripeFooterInfo | None  # None where nothing is decoded, only rows counted
    positions: Positions | None = None
    start: int = 0

    @property
    def whole_stripe(self) -> bool:
        return self.positions is None and self.first == 0 and self.count == self.stripe.rows


@dataclass
class ReadPlan:
    """The columns a read returns (``output``) and decodes (``decode``: the output's and those its filters test),
    its filters (``predicates``, tested row by row) and those that may prune by statistics (``pruning``: none on
    encrypted columns, whose statistics describe the masked copy at best)."""

    output: Selection
    decode: Selection
    predicates: Filters | None
    pruning: Filters | None


def plan_read(meta: FileMeta, columns: Any, filters: Any, encrypted: str) -> ReadPlan:
    """Resolve a read's ``columns`` and ``filters`` against the file and apply ``encrypted``.

    Raises
    ------
    OrcError
        If a column or filter is wrong, or the read needs an encrypted column it may not have.
    """
    output = select_columns(meta.schema, columns)
    predicates = normalize_filters(filters, meta.schema)
    decode = decode_selection(meta.schema, output, tested_columns(predicates))
    output, decode, pruning = guard_read(meta.encryption, encrypted, meta.schema, output, decode, predicates, meta.name)
    return ReadPlan(output, decode, predicates, pruning)


def stripe_runs(meta: FileMeta, decision: StripeDecision, decode: Selection) -> list[Run]:
    """The runs of rows to decode for a kept stripe: each maximal run of the row groups pruning kept, or the whole
    stripe when it skips none or cannot be entered by row group."""
    stripe = meta.stripes[decision.index]
    footer = decision.footer or meta.stripe_footer(decision.index)
    groups = decision.row_groups
    if groups is not None and not groups.keep.all() and groups.stride > 0:
        positions = run_positions(meta, stripe, footer, decode, groups.indexes)
        if positions is not None:
            runs = []
            for start, stop in kept_runs(groups.keep):
                first = start * groups.stride
                count = min(stop * groups.stride, stripe.rows) - first
                runs.append(Run(stripe, first, count, footer, positions))
            return runs
    return [Run(stripe, 0, stripe.rows, footer)]


def row_range_runs(meta: FileMeta, start: int, stop: int, decode: Selection) -> list[Run]:
    """The runs of rows ``[start, stop)`` of the file (within its rows): a stripe the range covers whole, or the
    part of one it covers, entered at the row group holding its first row where the stripe has a row index."""
    runs = []
    for stripe in meta.stripes:
        lo, hi = max(start, stripe.first_row), min(stop, stripe.first_row + stripe.rows)
        if lo >= hi:
            continue
        footer = meta.stripe_footer(stripe.index)
        first, count = lo - stripe.first_row, hi - lo
        positions = None if count == stripe.rows else run_positions(meta, stripe, footer, decode)
        runs.append(Run(stripe, first, count, footer, positions))
    return runs


def run_positions(
    meta: FileMeta,
    stripe: StripeInfo,
    footer: StripeFooterInfo,
    decode: Selection,
    indexes: dict[int, RowIndexTable] | None = None,
) -> Positions | None:
    """Stream positions per row group of the decoded columns (``indexes``: row indexes pruning read already);
    ``None`` when the stripe cannot be entered by row group."""
    nodes = [node for node in meta.schema.walk() if node.column_id in decode.selected]
    return read_row_positions(meta.source, meta.tail, stripe, footer, nodes, meta.stride, indexes)
