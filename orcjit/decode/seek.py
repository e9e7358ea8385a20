"""Decoding part of a stripe: rows ``[first, first + count)``, entered at a row group with the row index.

The row index gives, per column and row group, where each of the column's streams stands at the group's first row
(:mod:`orcjit.decode.positions`). To decode rows from group ``g`` on, each stream of each selected column is
fetched from its position at ``g`` (the compression chunk holding it) to about its position at the group after
the last one needed, decompressed from that chunk on, and read by the kernels from the position's offset after
skipping the values it says belong to earlier rows (:mod:`orcjit.decode.cursor`). Nested columns are entered at
the same row group with their own positions; how many values a child decodes follows from its parent's lengths
and PRESENT, exactly as in a whole-stripe read. Dictionaries have no positions and are read whole.

Rows between the group's first row and ``first`` are skipped by :func:`skip_column`, which passes over values
with the kernels' skip entry points (decoding only what tells how many values lie below: PRESENT, lengths,
union tags). A stripe without a usable row index is read from its first row the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compression import NONE
from ..errors import OrcError
from ..kernels.row_index import RowIndexTable, parse_row_positions
from ..stripes import (
    DATA,
    DATA_KINDS,
    DICTIONARY_DATA,
    LENGTH,
    PRESENT,
    ROW_INDEX,
    SECONDARY,
    StreamInfo,
    StripeFooterInfo,
    StripeInfo,
    rle_v2,
)
from ..tail import FileTail
from ..types.kinds import (
    BYTES_KINDS,
    FLOAT_KINDS,
    HIVE11_DECIMALS,
    INTEGER_KINDS,
    KINDS,
    TIMESTAMP_KINDS,
    Hive11Decimals,
)
from ..types.schema import TypeNode
from .columns import ReadContext, SharedDictionaries, read_column
from .cursor import EMPTY, HEADER_SIZE, StreamCursor, ValueStream
from .positions import DICTIONARY_ENCODINGS, ColumnPositions, StreamPosition, column_positions
from .streams import StripeStreams, coalesce, stored_as_integers
from .vector import ColumnVector

__all__ = ["SeekStreams", "read_row_positions", "read_stripe_rows", "skip_column"]

# uncompressed streams: bytes past the next row group's position that a run started before it may take (an RLE v2
# run of 512 eight-byte values and its header); more is fetched if a run turns out longer
RUN_SLACK = 4200

Positions = dict[int, ColumnPositions]


def read_row_positions(
    source: Any,
    tail: FileTail,
    stripe: StripeInfo,
    footer: StripeFooterInfo,
    nodes: list[TypeNode],
    stride: int,
    indexes: dict[int, RowIndexTable] | None = None,
) -> Positions | None:
    """Each column's stream positions per row group of ``stripe``, for the columns of ``nodes``.

    ``indexes`` are row indexes already read (by pruning), by column id; the others are fetched. ``None`` when
    the stripe cannot be entered by row group: the file has no row index, a column has no ROW_INDEX stream, or an
    index does not hold one entry per row group.

    Raises
    ------
    OrcError
        If a row index is corrupt or a positions list has the wrong length for its column.
    """
    if stride <= 0 or stripe.rows <= 0:
        return None
    groups = -(-stripe.rows // stride)
    tables = {n.column_id: indexes[n.column_id] for n in nodes if indexes and n.column_id in indexes}
    streams = {s.column: s for s in footer.streams if s.kind == ROW_INDEX}
    wanted = [streams.get(n.column_id) for n in nodes if n.column_id not in tables]
    if any(s is None or s.length == 0 for s in wanted):
        return None
    missing = [s for s in wanted if s is not None]
    fetched = _fetch(source, [(s.offset, s.length) for s in missing])
    where = f"{source.name}: stripe {stripe.index}"
    compressed = tail.compression != NONE
    rows = {column: table.position_rows() for column, table in tables.items()}
    for s in missing:
        what = f"{where}, column {s.column} ROW_INDEX stream at offset {s.offset}"
        raw = _slice(fetched, s.offset, s.length)
        # positions alone: statistics serve pruning, and pruning read the indexes of the columns it tests
        found = parse_row_positions(tail.decompress_message(raw, what) if compressed else raw, what, entries=groups)
        if found is None:
            return None
        rows[s.column] = found
    decimal64 = tail.decimal64
    return {n.column_id: column_positions(rows[n.column_id], n, footer, compressed, where, decimal64) for n in nodes}


def _fetch(source: Any, ranges: list[tuple[int, int]]) -> list[tuple[int, bytes | memoryview]]:
    return [(offset, source.read_buffer(offset, length)) for offset, length in coalesce(ranges) if length > 0]


def _slice(fetched: list[tuple[int, bytes | memoryview]], offset: int, length: int) -> memoryview:
    for base, blob in fetched:
        if base <= offset and offset + length <= base + len(blob):
            return memoryview(blob)[offset - base : offset - base + length]
    raise AssertionError("range not fetched")  # pragma: no cover


class SeekStreams(StripeStreams):
    """The streams of one stripe's selected columns, each opened where a row group starts (or at the stripe's
    first row when ``positions`` is ``None``), fetched only from there to about where row group ``end_group``
    starts (the stripe's end when it is the last), and decompressed as decoding gets to them.

    Each stream is opened once: :meth:`open` hands back the same :class:`ValueStream` every time, so skipping
    rows and then decoding rows continue one another. With ``later_dictionaries`` the streams of dictionaries
    are fetched (whole) only when opened: when the stripe's dictionaries are shared by the runs of rows it was
    cut into, only the run that decodes one fetches it.
    """

    def __init__(
        self,
        source: Any,
        tail: FileTail,
        stripe: StripeInfo,
        footer: StripeFooterInfo,
        columns: set[int],
        positions: Positions | None,
        first_group: int = 0,
        end_group: int = 0,
        later_dictionaries: bool = False,
    ) -> None:
        super().__init__(
            stripe=stripe,
            footer=footer,
            buffers={},
            name=source.name,
            writer=tail.footer.writer,
            decimal64=tail.decimal64,
        )
        self._source = source
        self._tail = tail
        self._opened: dict[tuple[int, int], ValueStream] = {}
        compressed = tail.compression != NONE
        plan = stream_plan(footer, columns, positions, first_group, end_group, compressed, tail.block_size)
        later = {key for key, (s, _, _, _) in plan.items() if _dictionary(s, footer)} if later_dictionaries else set()
        fetched = _fetch(source, planned_ranges({k: v for k, v in plan.items() if k not in later}))
        # per stream: what was fetched of it from ``start`` on, None for a dictionary fetched when opened
        self._plan: dict[tuple[int, int], tuple[StreamInfo, int, memoryview | None, StreamPosition | None]] = {}
        for key, (s, start, end, at) in plan.items():
            raw = None
            if key not in later:
                raw = _slice(fetched, s.offset + start, end - start) if end > start else memoryview(b"")
            self._plan[key] = (s, start, raw, at)

    def open(self, column: int, kind: int) -> ValueStream:
        key = (column, kind)
        stream = self._opened.get(key)
        if stream is not None:
            return stream
        what = self.where(column, kind)
        planned = self._plan.get(key)
        if planned is None:
            stream = ValueStream(EMPTY, what)
        else:
            s, start, raw, at = planned
            source = self._source
            if raw is None:  # a dictionary fetched when opened, whole
                raw = memoryview(source.read_buffer(s.offset, s.length))

            def fetch(offset: int, length: int, base: int = s.offset) -> bytes | memoryview:
                return source.read_buffer(base + offset, length)

            tail = self._tail
            # what was fetched reaches about where the rows end: further fetches are for a run crossing that point
            window = RUN_SLACK if tail.compression == NONE else HEADER_SIZE + tail.block_size
            cursor = StreamCursor(fetch, s.length, start, raw, tail.compression, tail.block_size, what, window)
            if at is None:
                stream = ValueStream.from_cursor(cursor, what)
            else:
                stream = ValueStream.from_cursor(
                    cursor, what, at.decompressed_offset, at.values_to_skip, at.bits_to_skip
                )
        self._opened[key] = stream
        return stream

    def open_optional(self, column: int, kind: int) -> ValueStream | None:
        return self.open(column, kind) if (column, kind) in self._plan else None

    def get(self, column: int, kind: int) -> np.ndarray | None:
        stream = self.open_optional(column, kind)
        return None if stream is None else stream.whole()

    def require(self, column: int, kind: int) -> np.ndarray:
        return self.open(column, kind).whole()


StreamPlan = dict[tuple[int, int], tuple[StreamInfo, int, int, StreamPosition | None]]


def stream_plan(
    footer: StripeFooterInfo,
    columns: set[int],
    positions: Positions | None,
    first_group: int,
    end_group: int,
    compressed: bool,
    block_size: int,
) -> StreamPlan:
    """Per data stream of ``columns`` that a read of row groups ``first_group`` to ``end_group`` opens: the stream,
    the byte offset in it to fetch from, how far to fetch at first, and the position to start decoding at (``None``
    to decode from the stream's start). Without ``positions`` every stream is read whole. :class:`SeekStreams`
    fetches these ranges; :meth:`orcjit.ORCFile.explain` counts them.
    """
    groups = len(next(iter(positions.values()))) if positions else 0
    plan: StreamPlan = {}
    for s in footer.streams:
        if s.column not in columns or s.kind not in DATA_KINDS or s.length <= 0:
            continue
        start, end, at = 0, s.length, None
        if positions is not None and not _dictionary(s, footer):
            entries = positions.get(s.column) or []
            at = entries[first_group].get(s.kind) if entries else None
            if at is None:
                continue  # a stream the column's type does not read
            start = at.chunk_offset
            if end_group < groups:
                later = entries.chunk_offsets(s.kind)[end_group + 1 :]
                end = _fetch_end(entries[end_group][s.kind], later, s.length, compressed, block_size)
            end = max(end, min(start, s.length))
        plan[(s.column, s.kind)] = (s, start, end, at)
    return plan


def planned_ranges(plan: StreamPlan) -> list[tuple[int, int]]:
    """The file byte ranges a :func:`stream_plan` fetches at first, merged as they are fetched."""
    return [r for r in coalesce((s.offset + start, end - start) for s, start, end, _ in plan.values()) if r[1] > 0]


def _dictionary(s: StreamInfo, footer: StripeFooterInfo) -> bool:
    """Whether ``s`` belongs to a dictionary, which has no positions and is read whole."""
    if s.kind == DICTIONARY_DATA:
        return True
    encodings = footer.encodings
    return s.kind == LENGTH and s.column < len(encodings) and encodings[s.column].kind in DICTIONARY_ENCODINGS


def _fetch_end(at: StreamPosition, later: np.ndarray, length: int, compressed: bool, block_size: int) -> int:
    """How far into a stream to fetch at first to decode the rows before the row group ``at`` starts.

    ``later`` are the stream's chunk starts (offsets, uncompressed) the row index lists for the row groups after.
    Those rows end at ``at`` or inside the run or chunk starting there, which ends by any later start listed, as
    runs and chunks lie back to back (a run crossing into the next chunk is fetched when decoding gets there).
    """
    if at.values_to_skip == 0 and at.bits_to_skip == 0 and (at.decompressed_offset == 0 or not compressed):
        return min(at.chunk_offset, length)  # nothing of the run or chunk there is needed
    beyond = later[later > at.chunk_offset]
    following = int(beyond[0]) if beyond.size else length
    if compressed:
        return min(following, at.chunk_offset + 3 + block_size, length)
    return min(following, at.chunk_offset + RUN_SLACK, length)


# -- skipping rows -----------------------------------------------------------------------------------------------


def skip_column(ctx: ReadContext, node: TypeNode, count: int) -> None:
    """Pass over the next ``count`` slots of ``node`` (and of the selected part of its subtree)."""
    if count <= 0:
        return
    streams = ctx.streams
    col = node.column_id
    present = streams.open_optional(col, PRESENT)
    nn = count if present is None else int(np.count_nonzero(present.booleans(count)))
    kind = node.kind
    encoding = streams.encoding(col).kind
    v2 = rle_v2(encoding)
    if kind == "struct":
        for child in node.children:
            if child.column_id in ctx.selected:
                skip_column(ctx, child, nn)
        return
    if nn == 0:
        return
    if kind == "boolean":
        streams.open(col, DATA).skip_booleans(nn)
    elif kind == "tinyint":
        streams.open(col, DATA).skip_octets(nn)
    elif kind in INTEGER_KINDS or kind == "date":
        streams.open(col, DATA).skip_integers(nn, True, v2)
    elif kind in FLOAT_KINDS:
        _skip_bytes(streams, col, nn * KINDS[kind].dtype.itemsize)
    elif kind in BYTES_KINDS:
        if encoding in DICTIONARY_ENCODINGS:
            streams.open(col, DATA).skip_integers(nn, False, v2)
        else:
            _skip_bytes(streams, col, _total(streams.open(col, LENGTH).integers(nn, False, v2), streams, col))
    elif kind in TIMESTAMP_KINDS:
        streams.open(col, DATA).skip_integers(nn, True, v2)
        streams.open(col, SECONDARY).skip_integers(nn, False, v2)
    elif kind == "decimal" and stored_as_integers(node, streams.decimal64):
        streams.open(col, DATA).skip_integers(nn, True, True)
    elif kind == "decimal":
        streams.open(col, DATA).skip_decimals(nn)
        streams.open(col, SECONDARY).skip_integers(nn, True, v2)
    elif kind in ("array", "map"):
        total = _total(streams.open(col, LENGTH).integers(nn, False, v2), streams, col)
        for child in node.children:
            skip_column(ctx, child, total)
    elif kind == "uniontype":
        tags = streams.open(col, DATA).octets(nn)
        for i, child in enumerate(node.children):
            skip_column(ctx, child, int(np.count_nonzero(tags == i)))
    else:
        raise OrcError(f"{streams.where(col)}: cannot skip rows of a {kind} column")


def _total(lengths: np.ndarray, streams: StripeStreams, col: int) -> int:
    if not lengths.size:
        return 0
    if lengths.min() < 0:
        raise OrcError(f"{streams.where(col, LENGTH)}: negative or impossibly large length")
    # int64 sums wrap silently: past what cannot wrap, add as Python ints
    big = int(lengths.max()) > (2**63 - 1) // lengths.size
    total = int(sum(lengths.tolist())) if big else int(lengths.sum())
    if total > 2**63 - 1:
        raise OrcError(f"{streams.where(col, LENGTH)}: lengths add up past 2**63")
    return total


def _skip_bytes(streams: StripeStreams, col: int, nbytes: int) -> None:
    got = streams.open(col, DATA).skip_raw(nbytes)
    if got < nbytes:
        raise OrcError(f"{streams.where(col, DATA)}: ends {nbytes - got} bytes short of the rows to skip")


# -- reading rows ------------------------------------------------------------------------------------------------


def read_stripe_rows(
    source: Any,
    tail: FileTail,
    stripe: StripeInfo,
    footer: StripeFooterInfo,
    schema: TypeNode,
    selected: set[int],
    first: int,
    count: int,
    positions: Positions | None,
    stride: int,
    dictionary_as_category: bool = False,
    outputs: dict[int, np.ndarray] | None = None,
    hive11: Hive11Decimals = HIVE11_DECIMALS["orc_cpp"],
    dictionaries: SharedDictionaries | None = None,
) -> ColumnVector:
    """Decode rows ``[first, first + count)`` of ``stripe`` (row numbers inside the stripe) for the ``selected``
    column ids: the root's vector (``outputs``: arrays to decode top-level columns into, and ``dictionaries``:
    the stripe's dictionaries shared with other runs of its rows, as :class:`~orcjit.decode.columns.ReadContext`
    takes).

    With ``positions`` (from :func:`read_row_positions`) the streams are entered at the row group holding
    ``first`` and fetched only as far as the row group after the last row; without, they are read from the
    stripe's first row. Rows before ``first`` are skipped, not decoded.
    """
    if not 0 <= first <= first + count <= stripe.rows:
        raise OrcError(f"{source.name}: stripe {stripe.index} has {stripe.rows} rows, not [{first}, {first + count})")
    later = dictionaries is not None  # shared: fetched by the run that decodes them
    if positions is not None and stride > 0:
        groups = -(-stripe.rows // stride)
        first_group = first // stride
        end_group = min(-(-(first + count) // stride), groups)
        streams = SeekStreams(source, tail, stripe, footer, selected, positions, first_group, end_group, later)
        skip = first - first_group * stride
    else:
        streams = SeekStreams(source, tail, stripe, footer, selected, None, later_dictionaries=later)
        skip = first
    ctx = ReadContext(streams, selected, dictionary_as_category, outputs, hive11, dictionaries)
    skip_column(ctx, schema, skip)
    return read_column(ctx, schema, count)
