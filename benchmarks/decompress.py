"""The floor under a column read: decompressing its streams alone, with the codec's library on one thread.

The streams' bytes are read and split into ORC's chunks up front; only the codec calls are timed. Each codec uses
the plain library call a reader would make (zstandard, zlib's raw deflate, cramjam's raw snappy, lz4.block),
with the file's compression block size as the output bound. Chunks the writer stored uncompressed ("original")
cost nothing here: a reader can view them in place.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sized
from dataclasses import dataclass, field

from orcjit import ORCFile
from orcjit.compression import iter_chunks

# streams a full read without filters never touches
_INDEX_KINDS = {"ROW_INDEX", "BLOOM_FILTER", "BLOOM_FILTER_UTF8"}


@dataclass
class Streams:
    """The chunks of some columns' streams, ready to decompress."""

    codec: str
    block_size: int
    compressed: list[bytes] = field(default_factory=list)
    original_bytes: int = 0
    stored_bytes: int = 0

    @property
    def compressed_share(self) -> float:
        """The share of the stored bytes that sit in compressed chunks, rather than stored as they are."""
        return sum(len(c) for c in self.compressed) / self.stored_bytes if self.stored_bytes else 0.0

    @property
    def chunks(self) -> int:
        return len(self.compressed)


def collect(path: str, column_ids: set[int]) -> Streams:
    """Read the data streams of ``column_ids`` (ids in the file's type tree) from every stripe of ``path``."""
    f = ORCFile(path)
    out = Streams(codec=f.compression, block_size=f.compression_block_size)
    for i in range(f.nstripes):
        for stream in f.stripe_footer(i).streams:
            if stream.column not in column_ids or stream.kind_name in _INDEX_KINDS:
                continue
            data = f.source.read(stream.offset, stream.length)
            out.stored_bytes += len(data)
            if out.codec == "NONE":
                out.original_bytes += len(data)
                continue
            for _, is_original, chunk in iter_chunks(data, out.block_size, f"stream at {stream.offset}"):
                if is_original:
                    out.original_bytes += len(chunk)
                else:
                    out.compressed.append(bytes(chunk))
    f.close()
    return out


def decompressor(codec: str, block_size: int) -> Callable[[bytes], Sized] | None:
    """The single-threaded library call that decompresses one chunk of ``codec``; None for NONE."""
    if codec == "ZSTD":
        import zstandard

        context = zstandard.ZstdDecompressor()
        return lambda chunk: context.decompress(chunk, max_output_size=block_size)
    if codec == "ZLIB":
        return lambda chunk: zlib.decompress(chunk, -15, block_size)
    if codec == "SNAPPY":
        import cramjam

        return lambda chunk: cramjam.snappy.decompress_raw(chunk)
    if codec == "LZ4":
        import lz4.block

        return lambda chunk: lz4.block.decompress(chunk, uncompressed_size=block_size)
    if codec == "NONE":
        return None
    raise ValueError(f"no decompressor for {codec}")


def decompress_all(streams: Streams) -> Callable[[], int]:
    """A function that decompresses every chunk of ``streams`` and returns the bytes it produced."""
    decode = decompressor(streams.codec, streams.block_size)
    chunks = streams.compressed

    def run() -> int:
        total = streams.original_bytes
        if decode is not None:
            for chunk in chunks:
                total += len(decode(chunk))
        return total

    return run
