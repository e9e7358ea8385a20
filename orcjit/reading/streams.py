"""The streams of one stripe that a read needs: found in the stripe footer, fetched as coalesced byte ranges,
decompressed once, handed out as read-only ``uint8`` arrays."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import OrcError
from ..stripes import ColumnEncodingInfo, StripeFooterInfo, StripeInfo, stream_kind_name
from ..tail import FileTail
from .cursor import ValueStream

# stream kinds the row readers use (indexes and bloom filters are read by pushdown, not here)
PRESENT, DATA, LENGTH, DICTIONARY_DATA, DICTIONARY_COUNT, SECONDARY = 0, 1, 2, 3, 4, 5
DATA_KINDS = frozenset({PRESENT, DATA, LENGTH, DICTIONARY_DATA, SECONDARY})
INDEX_KINDS = frozenset({6, 7, 8})  # ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8
KNOWN_KINDS = DATA_KINDS | INDEX_KINDS | {DICTIONARY_COUNT, 9, 10}  # 9, 10: encrypted index/data areas

EMPTY = np.frombuffer(b"", dtype=np.uint8)


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
class StripeStreams:
    """Decompressed streams of one stripe for a set of columns, and the columns' encodings."""

    stripe: StripeInfo
    footer: StripeFooterInfo
    buffers: dict[tuple[int, int], np.ndarray]
    name: str

    def get(self, column: int, kind: int) -> np.ndarray | None:
        """The stream, or ``None`` when the stripe has none of that kind for the column."""
        return self.buffers.get((column, kind))

    def require(self, column: int, kind: int) -> np.ndarray:
        """The stream; a missing stream reads as empty, so decoding values from it fails with a clear error."""
        return self.buffers.get((column, kind), EMPTY)

    def open(self, column: int, kind: int) -> ValueStream:
        """The stream to decode values from, from its start; a missing stream reads as empty."""
        return ValueStream(self.buffers.get((column, kind), EMPTY), self.where(column, kind))

    def open_optional(self, column: int, kind: int) -> ValueStream | None:
        """As :meth:`open`, but ``None`` when the stripe has no such stream."""
        return self.open(column, kind) if (column, kind) in self.buffers else None

    def encoding(self, column: int) -> ColumnEncodingInfo:
        """The column's encoding in this stripe."""
        encodings = self.footer.encodings
        if column >= len(encodings):
            raise OrcError(f"{self.where(column)}: the stripe footer lists no encoding for the column")
        return encodings[column]

    def where(self, column: int, kind: int | None = None) -> str:
        """Words for error messages: file, stripe, column and stream (and that the stripe lacks the stream)."""
        stream = f" {stream_kind_name(kind)} stream" if kind is not None else ""
        if kind is not None and (column, kind) not in self.buffers and (column, kind) not in self._listed:
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
    restart at every stream).

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
    ranges = coalesce(((s.offset, s.length) for s in wanted), max_gap)
    fetched = [(offset, source.read(offset, length)) for offset, length in ranges]
    for s in wanted:
        # the fetched range that holds this stream
        base, blob = next((o, b) for o, b in fetched if o <= s.offset and s.offset + s.length <= o + len(b))
        raw = memoryview(blob)[s.offset - base : s.offset - base + s.length]
        what = f"{source.name}: stripe {stripe.index}, column {s.column} {s.kind_name} stream at offset {s.offset}"
        data = raw if tail.compression == 0 else tail.decompress(raw, what)
        buf = np.frombuffer(data, dtype=np.uint8)
        # kernels are compiled per array type: every stream read-only, whatever the codec hands back, keeps one
        buf.flags.writeable = False
        buffers[(s.column, s.kind)] = buf
    return StripeStreams(stripe=stripe, footer=footer, buffers=buffers, name=source.name)
