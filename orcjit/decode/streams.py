"""The streams of one stripe that a read needs: found in the stripe footer, fetched as coalesced byte ranges,
decompressed once, handed out as read-only ``uint8`` arrays.

A stream is decompressed whole, into one buffer, as long as that cannot cost much more memory than the file or the
rows the stripe declares: at most :data:`EAGER_RATIO` times its stored size or :data:`EAGER_FLOOR` bytes, or, for
a stream holding at most one value per row of the stripe, :data:`BYTES_PER_VALUE` bytes per row. No encoding of
such a stream in a valid file takes that much (a varint takes at most 10 bytes, a decimal's 19, a double 8, RLE
headers a few bytes per run), so those streams of a valid file always take this path. Real data only compresses
better than ``EAGER_RATIO`` when it repeats itself, and then mostly in streams the rows bound (RLE has already
shrunk runs of equal values); strings repeating one value are the exception, and are read as below, with the same
result.

Past the bound, a hostile file's chunks could expand a few hundred bytes each to a whole block of up to 8 MiB
(3.3 GB from a file of 138 KB): such a stream is decompressed as far as the bound allows, and the rest only as
decoding reaches it, through a :class:`~orcjit.decode.cursor.StreamCursor`, so chunks past the stripe's values
are never decompressed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from .._proto import orc_proto_pb2 as pb
from ..compression import EAGER_RATIO, NONE, decompress_head, decompress_stream, stream_capacity
from ..errors import OrcError
from ..stripes import (
    DATA,
    DATA_KINDS,
    DICTIONARY_COUNT,
    DICTIONARY_DATA,
    DICTIONARY_ENCODINGS,
    ENCRYPTED_DATA,
    ENCRYPTED_INDEX,
    INDEX_KINDS,
    ColumnEncodingInfo,
    StreamInfo,
    StripeFooterInfo,
    StripeInfo,
    stream_kind_name,
)
from ..tail import FileTail
from ..types.schema import TypeNode
from .cursor import StreamCursor, ValueStream

KNOWN_KINDS = DATA_KINDS | INDEX_KINDS | {DICTIONARY_COUNT, ENCRYPTED_INDEX, ENCRYPTED_DATA}
# the decimals ORC Java's pre-2.0 format stores as integers
MAX_DECIMAL64_PRECISION = 18

EMPTY = np.frombuffer(b"", dtype=np.uint8)

# what a stream may decompress to at once (see the module docstring)
EAGER_FLOOR = 1 << 20
BYTES_PER_VALUE = 32
STRING_TYPES = frozenset({pb.Type.STRING, pb.Type.VARCHAR, pb.Type.CHAR, pb.Type.BINARY})
REPEATED_TYPES = frozenset({pb.Type.LIST, pb.Type.MAP})


def coalesce(ranges: Iterable[tuple[int, int]], max_gap: int = 0) -> list[tuple[int, int]]:
    """Merge ``(offset, length)`` ranges that touch or lie at most ``max_gap`` bytes apart."""
    merged: list[list[int]] = []
    for offset, length in sorted(ranges):
        if merged and offset <= merged[-1][0] + merged[-1][1] + max_gap:
            end = max(merged[-1][0] + merged[-1][1], offset + length)
            merged[-1][1] = end - merged[-1][0]
        else:
            merged.append([offset, length])
    return [(o, n) for o, n in merged]


@dataclass
class LazyStream:
    """A stream decompressed only in part: the bytes of its first chunks, and the chunks from ``start`` on as
    stored, decompressed as decoding reaches them."""

    head: np.ndarray
    raw: memoryview
    start: int
    codec: int
    block_size: int

    def open(self, what: str) -> ValueStream:
        """The stream to decode values from, from its start."""
        return _LazyValueStream(self, what)


class _LazyValueStream(ValueStream):
    """The values of a :class:`LazyStream`; asked for the whole stream before decoding any, it decompresses the
    stream in one pass, as it would have been had it been decompressed whole (no more memory, no less)."""

    def __init__(self, lazy: LazyStream, what: str) -> None:
        raw = lazy.raw

        def fetch(offset: int, length: int) -> bytes:  # never called: the cursor starts with the rest in hand
            return bytes(raw[offset : offset + length])

        cursor = StreamCursor(fetch, len(raw), lazy.start, raw[lazy.start :], lazy.codec, lazy.block_size, what)
        super().__init__(lazy.head, what, cursor=cursor)
        self._lazy: LazyStream | None = lazy

    def whole(self) -> np.ndarray:
        lazy, self._lazy = self._lazy, None
        if lazy is not None and self.pos == 0 and self.buf is lazy.head:
            self.buf = _readonly(decompress_stream(lazy.raw, lazy.codec, lazy.block_size, self.what))
            self._cursor = None
        return super().whole()


@dataclass
class StripeStreams:
    """Decompressed streams of one stripe for a set of columns, and the columns' encodings.

    ``lazy`` holds the streams whose chunks expand too far to decompress whole (see the module docstring).
    ``writer`` is the file footer's writer code (0, also when absent, is ORC Java; 1 is ORC C++): whose time zone
    rules wall-clock timestamps are read with. ``decimal64``: the file is ORC Java's pre-2.0 format, whose
    decimals of precision 18 or less are stored as integers (:func:`stored_as_integers`).
    """

    stripe: StripeInfo
    footer: StripeFooterInfo
    buffers: dict[tuple[int, int], np.ndarray]
    name: str
    lazy: dict[tuple[int, int], LazyStream] = field(default_factory=dict)
    writer: int = 0
    decimal64: bool = False

    def get(self, column: int, kind: int) -> np.ndarray | None:
        """The stream, or ``None`` when the stripe has none of that kind for the column."""
        if (column, kind) in self.lazy:
            return self.open(column, kind).whole()
        return self.buffers.get((column, kind))

    def require(self, column: int, kind: int) -> np.ndarray:
        """The stream; a missing stream reads as empty, so decoding values from it fails with a clear error."""
        stream = self.get(column, kind)
        return EMPTY if stream is None else stream

    def open(self, column: int, kind: int) -> ValueStream:
        """The stream to decode values from, from its start; a missing stream reads as empty."""
        lazy = self.lazy.get((column, kind))
        if lazy is not None:
            return lazy.open(self.where(column, kind))
        # the words for errors are put together only if one happens
        return ValueStream(self.buffers.get((column, kind), EMPTY), functools.partial(self.where, column, kind))

    def open_optional(self, column: int, kind: int) -> ValueStream | None:
        """As :meth:`open`, but ``None`` when the stripe has no such stream."""
        key = (column, kind)
        return self.open(column, kind) if key in self.buffers or key in self.lazy else None

    def encoding(self, column: int) -> ColumnEncodingInfo:
        """The column's encoding in this stripe."""
        encodings = self.footer.encodings
        if column >= len(encodings):
            raise OrcError(f"{self.where(column)}: the stripe footer lists no encoding for the column")
        return encodings[column]

    def where(self, column: int, kind: int | None = None) -> str:
        """Words for error messages: file, stripe, column and stream (and that the stripe lacks the stream)."""
        stream = f" {stream_kind_name(kind)} stream" if kind is not None else ""
        key = (column, kind)
        if kind is not None and key not in self.buffers and key not in self.lazy and key not in self._listed:
            stream += " (missing from the stripe)"
        return f"{self.name}: stripe {self.stripe.index}, column {column}{stream}"

    @functools.cached_property
    def _listed(self) -> frozenset[tuple[int, int]]:
        """Every (column, kind) the stripe footer lists, empty streams included."""
        return frozenset((s.column, s.kind) for s in self.footer.streams)


def read_stripe_streams(
    source, tail: FileTail, stripe: StripeInfo, footer: StripeFooterInfo, columns: set[int], max_gap: int = 0
) -> StripeStreams:  # type: ignore[no-untyped-def]
    """Fetch and decompress the data streams of ``columns`` in one stripe.

    Adjacent streams are read with one request; each stream is then decompressed on its own (chunk boundaries
    restart at every stream), whole unless its chunks could expand far past what the stripe's rows need (see the
    module docstring).

    Raises
    ------
    OrcError
        On an unknown stream kind for a selected column, or a stream that fails to decompress.
    """
    wanted = []
    for s in footer.streams:
        if s.column not in columns:
            continue
        if s.kind not in KNOWN_KINDS:
            raise OrcError(
                f"{source.name}: stripe {stripe.index}, column {s.column}: unknown stream kind {s.kind}"
                f" at offset {s.offset}"
            )
        if s.kind in DATA_KINDS and s.length > 0:
            wanted.append(s)
    buffers: dict[tuple[int, int], np.ndarray] = {}
    lazy: dict[tuple[int, int], LazyStream] = {}
    budgets = EagerBudget(tail, footer, stripe.rows)
    ranges = coalesce(((s.offset, s.length) for s in wanted), max_gap)
    fetched = [(offset, memoryview(source.read_buffer(offset, length))) for offset, length in ranges]
    base, blob = fetched[0] if fetched else (0, memoryview(b""))
    prefix = f"{source.name}: stripe {stripe.index}, column "
    for s in wanted:
        start = s.offset - base
        if start < 0 or start + s.length > len(blob):
            # the fetched range that holds this stream (the streams come in the order of the ranges)
            base, blob = next((o, b) for o, b in fetched if o <= s.offset and s.offset + s.length <= o + len(b))
            start = s.offset - base
        raw = blob[start : start + s.length]
        what = functools.partial(_stream_words, prefix, s)  # put together only for an error
        if tail.compression == NONE:
            data: bytes | memoryview = raw
        else:
            capacity = stream_capacity(raw, tail.block_size)
            budget = budgets.budget(s.column, s.kind, len(raw), capacity)
            if capacity <= budget:
                data = tail.decompress(raw, what)
            else:
                data, start = decompress_head(raw, tail.compression, tail.block_size, what, budget)
                if start < len(raw):
                    head = _readonly(data)
                    lazy[(s.column, s.kind)] = LazyStream(head, raw, start, tail.compression, tail.block_size)
                    continue
        buffers[(s.column, s.kind)] = _readonly(data)
    return StripeStreams(
        stripe=stripe,
        footer=footer,
        buffers=buffers,
        name=source.name,
        lazy=lazy,
        writer=tail.footer.writer,
        decimal64=tail.decimal64,
    )


def _stream_words(prefix: str, s: StreamInfo) -> str:
    """A stream of the stripe in the words of error messages (``prefix``: the file, stripe and "column ")."""
    return f"{prefix}{s.column} {stream_kind_name(s.kind)} stream at offset {s.offset}"


def _readonly(data: bytes | memoryview) -> np.ndarray:
    buf = np.frombuffer(data, dtype=np.uint8)
    # kernels are compiled per array type: every stream read-only, whatever the codec hands back, keeps one
    if buf.flags.writeable:
        buf.flags.writeable = False
    return buf


class EagerBudget:
    """How many bytes each stream of a stripe may decompress to at once (see the module docstring)."""

    def __init__(self, tail: FileTail, footer: StripeFooterInfo, rows: int) -> None:
        self._types = tail.footer.types
        self._encodings = footer.encodings
        self._rows = max(rows, 0)

    def budget(self, column: int, kind: int, stored: int, capacity: int) -> int:
        """The bytes a stream of ``stored`` bytes whose chunks may decompress to ``capacity`` may take at once."""
        most = max(EAGER_RATIO * stored, EAGER_FLOOR)
        if capacity > most and self.one_value_per_row(column, kind):
            most = max(most, BYTES_PER_VALUE * self._rows + EAGER_FLOOR)
        return most

    def one_value_per_row(self, column: int, kind: int) -> bool:
        """Whether a valid stream of ``kind`` for ``column`` holds at most one value for each row of the stripe,
        and no value of it runs longer than :data:`BYTES_PER_VALUE`: not the bytes of strings, not a
        dictionary, and no column below a list or map."""
        types = self._types
        if kind == DICTIONARY_DATA or not 0 <= column < len(types):
            return False
        if kind == DATA and types[column].kind in STRING_TYPES:
            encodings = self._encodings
            if column >= len(encodings) or encodings[column].kind not in DICTIONARY_ENCODINGS:
                return False
        parents = self._parents
        at = column
        for _ in range(len(types)):  # a schema whose subtypes loop is never read this far; stop anyway
            parent = parents.get(at)
            if parent is None:
                return True
            if types[parent].kind in REPEATED_TYPES:
                return False
            at = parent
        return False

    @functools.cached_property
    def _parents(self) -> dict[int, int]:
        return {child: i for i, t in enumerate(self._types) for child in t.subtypes}


def stored_as_integers(node: TypeNode, decimal64: bool) -> bool:
    """Whether ``node``'s values are stored as the decimal64 layout of ORC Java's pre-2.0 format (``decimal64``:
    the file is in it): a decimal of precision 18 or less, its unscaled values at the type's scale in one RLE v2
    integer DATA stream, without the SECONDARY stream of scales (ORC C++'s ``Decimal64ColumnReaderV2``; the
    column's encoding says DIRECT all the same)."""
    return (
        decimal64
        and node.kind == "decimal"
        and not node.hive11_decimal
        and node.decimal_precision <= (MAX_DECIMAL64_PRECISION)
    )
