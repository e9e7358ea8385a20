"""Planning a read: which columns it returns and decodes, which filters prune it, and the runs of rows to decode.

A read returns the columns ``columns=`` names and decodes those and the columns its filters test
(:func:`orcjit.types.resolve.decode_selection`); encryption may take columns out or refuse the read
(:func:`orcjit.encryption.guard_read`). Pruning (:mod:`orcjit.pushdown.plan`) keeps stripes, and inside each
kept stripe the row groups that may match: each maximal run of kept row groups is decoded as one :class:`Run`,
entered at its first row group with the row index, or the whole stripe when it skips none.

When a read has too few runs to keep its threads busy (one big stripe, say), :func:`split_runs` cuts the long
ones into pieces of whole row groups (:func:`piece_bounds`), each entered with the row index as a pruned run is,
so the pieces of one stripe decode side by side; they share the stripe's dictionaries, decoded once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from ..decode.columns import SharedDictionaries
from ..decode.seek import Positions, read_row_positions
from ..encryption import guard_read
from ..errors import OrcError
from ..filemeta import FileMeta
from ..kernels.row_index import RowIndexTable
from ..pushdown.filters import Filters, normalize_filters, tested_columns
from ..pushdown.plan import StripeDecision
from ..pushdown.rowgroups import kept_runs
from ..stripes import DATA_KINDS, StripeFooterInfo, StripeInfo
from ..types.resolve import Selection, decode_selection, select_columns

__all__ = [
    "ReadPlan",
    "Run",
    "piece_bounds",
    "plan_read",
    "row_range_runs",
    "run_positions",
    "split_runs",
    "stripe_runs",
]

# a run is cut into pieces of at least this many rows, and of this many bytes of the decoded columns' streams
# (their share of the stripe's): each piece costs some fetches and a few tenths of a millisecond to set up, more
# than decoding fewer values (or columns as cheap as a sequence or booleans) on another thread saves
MIN_PIECE_ROWS = 1 << 16
MIN_PIECE_BYTES = 1 << 18
# pieces per thread a read's runs are cut into when they are too few: more than one evens out pieces that take
# longer (a thread shared with other work, a column that decodes slower in some rows)
PIECES_PER_WORKER = 2


@dataclass
class Run:
    """Rows ``[first, first + count)`` of one stripe, decoded as one piece; ``start`` is where they go in the
    read's result. ``positions`` is set when the run is entered by row group through the row index;
    ``dictionaries`` when the run is a piece of a stripe cut into several (:func:`split_runs`), shared by them;
    ``indexes``: the row indexes pruning read for the stripe, if it did."""

    stripe: StripeInfo
    first: int
    count: int
    footer: StripeFooterInfo | None  # None where nothing is decoded, only rows counted
    positions: Positions | None = None
    start: int = 0
    dictionaries: SharedDictionaries | None = None
    indexes: dict[int, RowIndexTable] | None = None

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
    return [Run(stripe, 0, stripe.rows, footer, indexes=groups.indexes if groups is not None else None)]


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


def split_runs(meta: FileMeta, runs: list[Run], decode: Selection, workers: int) -> list[Run]:
    """``runs``, the long ones cut into pieces (:func:`piece_bounds`) when they are fewer than two per worker:
    about :data:`PIECES_PER_WORKER` pieces per worker over all, of whole row groups, each entered with the row
    index (read here unless pruning or the run's plan read it already).

    A run is left whole on one thread (``workers`` 1), when it is too short (in rows, or in bytes of the streams
    of the ``decode`` columns), or when its stripe cannot be entered by row group: no row index, one that does
    not fit the stripe (:func:`read_row_positions`) or one that does not decode. Nothing is cut where reads cost
    a round trip (a remote file, :attr:`~orcjit.sources.ByteSource.cheap_reads`): its pieces would wait on
    several requests where the whole stripe takes one.
    """
    if workers <= 1 or len(runs) >= 2 * workers or meta.stride <= 0 or not decode.fields:
        return runs
    if not meta.source.cheap_reads:
        return runs
    pieces = -(-PIECES_PER_WORKER * workers // len(runs))
    out: list[Run] = []
    for run in runs:
        footer, positions = run.footer, run.positions
        if footer is None or run.stripe.rows <= 0:
            out.append(run)
            continue
        stored = sum(s.length for s in footer.streams if s.column in decode.selected and s.kind in DATA_KINDS)
        most = min(pieces, stored * run.count // run.stripe.rows // MIN_PIECE_BYTES)
        if len(runs) == 1 and most > workers:
            most -= most % workers  # as many pieces for each thread
        bounds = piece_bounds(run.first, run.count, meta.stride, most, MIN_PIECE_ROWS)
        if len(bounds) > 1 and positions is None and run.whole_stripe:
            try:
                positions = run_positions(meta, run.stripe, footer, decode, run.indexes)
            except OrcError:  # a corrupt row index: the stripe read whole does without it
                positions = None
        if len(bounds) <= 1 or positions is None:
            out.append(run)
            continue
        shared = SharedDictionaries()
        out.extend(Run(run.stripe, first, count, footer, positions, dictionaries=shared) for first, count in bounds)
    return out


def piece_bounds(
    first: int, count: int, stride: int, pieces: int, min_rows: int = MIN_PIECE_ROWS
) -> list[tuple[int, int]]:
    """Rows ``[first, first + count)`` of a stripe cut into at most ``pieces`` pieces of about equal size, each
    ``(first, count)``: cut only where a row group starts (a multiple of ``stride``, where the row index enters
    the stripe), and each piece of ``min_rows`` rows or more. One piece, the rows as they are, when they cannot
    be cut so."""
    stop = first + count
    for n in range(min(pieces, count // max(min_rows, 1)), 1, -1) if stride > 0 else ():
        # each cut at the row group start nearest to an n-th of the rows
        cuts = [first, *(((first + count * i // n) + stride // 2) // stride * stride for i in range(1, n)), stop]
        if all(b - a >= min_rows for a, b in itertools.pairwise(cuts)):
            return [(a, b - a) for a, b in itertools.pairwise(cuts)]
    return [(first, count)]


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
