"""Rewrite an ORC file with every stream in BROTLI chunks, row indexes and bloom filters kept (tests only).

No writer within reach of the tests writes Brotli: pyarrow and pyorc (ORC C++ 2.x) have no Brotli codec, and ORC
Java's ``BrotliCodec`` needs the brotli4j library, which Spark's jars lack. :func:`to_brotli` therefore takes a
file ORC C++ wrote with zstd or zlib and stores it again under compression kind 6:

- every stream, stripe footer, the Metadata and the Footer is decompressed by the file's own codec (with
  ``zstandard`` and ``zlib`` here, not with orcjit's compression layer, which is what the tests test) and cut
  again into chunks of ``block_size`` decompressed bytes: every chunk of a stream but its last is exactly a block;
- each chunk is compressed with ``brotli``, or stored as it is ("original") where Brotli does not make it smaller,
  as writers do, and also every ``original_every``-th chunk of the file, so that files mix both kinds;
- row indexes are kept: a position names a chunk (its byte offset in the stream) and an offset into the chunk's
  decompressed bytes, so each is moved to the chunk and offset where the same decompressed byte now lies. Which
  numbers of a positions list are such pairs follows from the spec's table of streams per type and encoding,
  written out here; every pair found must name a chunk start of the source file, which checks the table;
- bloom filters and statistics are kept as they are (they describe values, not bytes).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import brotli
import zstandard

from orcjit._proto import orc_proto_pb2 as pb

__all__ = ["BROTLI", "brotli_chunks", "to_brotli"]

BROTLI = 6
_NONE, _ZLIB, _ZSTD = 0, 1, 5
_HEADER = 3
PRESENT, DATA, LENGTH, DICTIONARY_DATA, DICTIONARY_COUNT, SECONDARY, ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8 = range(
    9
)
_INDEX_KINDS = (ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8)
_DICTIONARY = (pb.ColumnEncoding.DICTIONARY, pb.ColumnEncoding.DICTIONARY_V2)

K = pb.Type.Kind
# the streams with a position, PRESENT aside, in the order of a positions list, and how many numbers each takes
# after its (chunk, offset) pair: one for a run's values to skip, two for boolean RLE (bytes and bits)
_RUN, _BITS, _RAW = 1, 2, 0
_LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    K.BOOLEAN: ((DATA, _BITS),),
    K.BYTE: ((DATA, _RUN),),
    K.UNION: ((DATA, _RUN),),
    K.SHORT: ((DATA, _RUN),),
    K.INT: ((DATA, _RUN),),
    K.LONG: ((DATA, _RUN),),
    K.DATE: ((DATA, _RUN),),
    K.FLOAT: ((DATA, _RAW),),
    K.DOUBLE: ((DATA, _RAW),),
    K.BINARY: ((DATA, _RAW), (LENGTH, _RUN)),
    K.TIMESTAMP: ((DATA, _RUN), (SECONDARY, _RUN)),
    K.TIMESTAMP_INSTANT: ((DATA, _RUN), (SECONDARY, _RUN)),
    K.DECIMAL: ((DATA, _RAW), (SECONDARY, _RUN)),
    K.LIST: ((LENGTH, _RUN),),
    K.MAP: ((LENGTH, _RUN),),
    K.STRUCT: (),
}
_STRINGS = (K.STRING, K.VARCHAR, K.CHAR)


def _layout(kind: int, encoding: int) -> tuple[tuple[int, int], ...]:
    if kind in _STRINGS:
        return ((DATA, _RUN),) if encoding in _DICTIONARY else ((DATA, _RAW), (LENGTH, _RUN))
    return _LAYOUTS[kind]


@dataclass
class _Chunks:
    """Where a stream's chunks start: in the stored stream, and in its decompressed bytes."""

    stored: list[int]
    decompressed: list[int]
    stored_length: int
    decompressed_length: int

    def absolute(self, chunk: int, offset: int) -> int:
        """The decompressed byte a position's (chunk, offset) pair names."""
        if chunk == self.stored_length:  # past the last chunk: the stream's end
            assert offset == 0, (chunk, offset)
            return self.decompressed_length
        at = self.stored.index(chunk)  # ValueError: not a chunk start, so the layout table is wrong
        end = self.decompressed[at + 1] if at + 1 < len(self.decompressed) else self.decompressed_length
        assert self.decompressed[at] + offset <= end, (chunk, offset)
        return self.decompressed[at] + offset

    def position(self, absolute: int) -> tuple[int, int]:
        """The (chunk, offset) pair of a decompressed byte."""
        if absolute == self.decompressed_length:
            return self.stored_length, 0
        at = max(i for i, start in enumerate(self.decompressed) if start <= absolute)
        return self.stored[at], absolute - self.decompressed[at]


def _decompress(stored: bytes, codec: int, block_size: int) -> tuple[bytes, _Chunks]:
    """A stream of the source file decompressed, and where its chunks start."""
    out = bytearray()
    chunks = _Chunks([], [], len(stored), 0)
    pos = 0
    while pos < len(stored):
        header = int.from_bytes(stored[pos : pos + _HEADER], "little")
        body = stored[pos + _HEADER : pos + _HEADER + (header >> 1)]
        chunks.stored.append(pos)
        chunks.decompressed.append(len(out))
        if header & 1:
            out += body
        elif codec == _ZSTD:
            out += zstandard.ZstdDecompressor().decompress(body, max_output_size=block_size)
        elif codec == _ZLIB:
            out += zlib.decompress(body, -15)
        else:
            raise ValueError(f"to_brotli reads zstd or zlib files, not compression kind {codec}")
        pos += _HEADER + (header >> 1)
    chunks.decompressed_length = len(out)
    return bytes(out), chunks


class _Writer:
    """Brotli chunks of ``block_size`` bytes; counts chunks over the file to pick the original ones."""

    def __init__(self, block_size: int, original_every: int, quality: int) -> None:
        self.block_size = block_size
        self.original_every = original_every
        self.quality = quality
        self.count = 0
        self.kinds = {"brotli": 0, "original": 0, "brotli, a whole block": 0, "original, a whole block": 0}

    def stream(self, data: bytes) -> tuple[bytes, _Chunks]:
        out = bytearray()
        chunks = _Chunks([], [], 0, len(data))
        for start in range(0, len(data), self.block_size):
            block = data[start : start + self.block_size]
            self.count += 1
            packed = brotli.compress(block, quality=self.quality)
            forced = self.original_every and self.count % self.original_every == 0
            original = forced or len(packed) >= len(block)
            body = block if original else packed
            chunks.stored.append(len(out))
            chunks.decompressed.append(start)
            out += ((len(body) << 1) | original).to_bytes(_HEADER, "little") + body
            kind = "original" if original else "brotli"
            self.kinds[kind + (", a whole block" if len(block) == self.block_size else "")] += 1
        chunks.stored_length = len(out)
        return bytes(out), chunks


def brotli_chunks(data: bytes, block_size: int, quality: int = 5) -> bytes:
    """``data`` as a stream of Brotli chunks of ``block_size`` decompressed bytes (original where not smaller)."""
    return _Writer(block_size, 0, quality).stream(data)[0]


def to_brotli(
    data: bytes, block_size: int | None = None, original_every: int = 0, quality: int = 5
) -> tuple[bytes, dict[str, int]]:
    """The ORC file ``data`` (zstd or zlib) with every stream and message stored in Brotli chunks.

    Parameters
    ----------
    data : bytes
        A whole ORC file compressed with zstd or zlib, without column encryption.
    block_size : int, optional
        The compression block size of the new file (the source file's by default).
    original_every : int
        Store every n-th chunk of the file as it is even where Brotli would make it smaller (0: never).
    quality : int
        Brotli's quality, 0-11.

    Returns
    -------
    bytes
        The new file: the same rows, schema, statistics, row indexes and bloom filters.
    dict
        How many chunks of each kind it holds (Brotli or original, a whole block or less).
    """
    ps_len = data[-1]
    postscript = pb.PostScript.FromString(data[-1 - ps_len : -1])
    codec, source_block = postscript.compression, postscript.compressionBlockSize or 256 * 1024
    writer = _Writer(block_size or source_block, original_every, quality)
    footer_start = len(data) - 1 - ps_len - postscript.footerLength
    metadata_start = footer_start - postscript.metadataLength

    def plain(start: int, length: int) -> tuple[bytes, _Chunks]:
        return _decompress(data[start : start + length], codec, source_block)

    footer = pb.Footer.FromString(plain(footer_start, postscript.footerLength)[0])
    assert not footer.HasField("encryption"), "to_brotli does not rewrite encrypted files"
    out = bytearray(b"ORC")
    for stripe in footer.stripes:
        stripe_footer = pb.StripeFooter.FromString(
            plain(stripe.offset + stripe.indexLength + stripe.dataLength, stripe.footerLength)[0]
        )
        streams = []
        pos = stripe.offset
        for s in stripe_footer.streams:
            streams.append((s, *plain(pos, s.length)))
            pos += s.length
        rewritten = {(s.kind, s.column): writer.stream(raw) for s, raw, _ in streams if s.kind != ROW_INDEX}
        old = {(s.kind, s.column): chunks for s, _, chunks in streams}
        for s, raw, _ in streams:
            if s.kind == ROW_INDEX:
                index = pb.RowIndex.FromString(raw)
                _move_positions(index, s.column, footer.types[s.column].kind, stripe_footer, old, rewritten)
                rewritten[(s.kind, s.column)] = writer.stream(index.SerializeToString())
        stripe.offset = len(out)
        stripe.indexLength = stripe.dataLength = 0
        for s in stripe_footer.streams:
            body = rewritten[(s.kind, s.column)][0]
            s.length = len(body)
            out += body
            if s.kind in _INDEX_KINDS:
                stripe.indexLength += len(body)
            else:
                stripe.dataLength += len(body)
        body = writer.stream(stripe_footer.SerializeToString())[0]
        stripe.footerLength = len(body)
        out += body
    footer.contentLength = len(out)
    metadata = writer.stream(plain(metadata_start, postscript.metadataLength)[0])[0]
    footer_body = writer.stream(footer.SerializeToString())[0]
    out += metadata + footer_body
    postscript.compression = BROTLI
    postscript.compressionBlockSize = writer.block_size
    postscript.metadataLength = len(metadata)
    postscript.footerLength = len(footer_body)
    ps = postscript.SerializeToString()
    return bytes(out + ps + bytes([len(ps)])), writer.kinds


def _move_positions(
    index: pb.RowIndex,
    column: int,
    kind: int,
    stripe_footer: pb.StripeFooter,
    old: dict[tuple[int, int], _Chunks],
    new: dict[tuple[int, int], tuple[bytes, _Chunks]],
) -> None:
    """Point each (chunk, offset) pair of a column's positions at the new chunks holding the same byte."""
    encoding = stripe_footer.columns[column].kind
    streams = (((PRESENT, _BITS),) if (PRESENT, column) in old else ()) + _layout(kind, encoding)
    for entry in index.entry:
        positions = list(entry.positions)
        assert len(positions) == sum(2 + extra for _, extra in streams), (column, positions)
        i = 0
        for stream_kind, extra in streams:
            absolute = old[(stream_kind, column)].absolute(positions[i], positions[i + 1])
            positions[i : i + 2] = new[(stream_kind, column)][1].position(absolute)
            i += 2 + extra
        entry.positions[:] = positions
