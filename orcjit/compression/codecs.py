"""One compression chunk in, its bytes out, for each codec ORC files use.

Every codec is bounded by ``limit`` (the file's compression block size): ORC promises that no chunk expands past
it, so more output means a corrupt or hostile file, and we stop before allocating it.
"""

from __future__ import annotations

import threading
import zlib

from ..errors import OrcError

__all__ = ["CODEC_NAMES", "decompress_chunk"]

# CompressionKind numbers of the PostScript
NONE, ZLIB, SNAPPY, LZO, LZ4, ZSTD = range(6)
CODEC_NAMES = {NONE: "NONE", ZLIB: "ZLIB", SNAPPY: "SNAPPY", LZO: "LZO", LZ4: "LZ4", ZSTD: "ZSTD"}


def _too_large(codec: str, limit: int) -> OrcError:
    return OrcError(f"{codec} chunk expands past the compression block size of {limit} bytes")


def _zlib(chunk: memoryview, limit: int) -> bytes:
    # ORC's ZLIB is raw deflate: no zlib header, no checksum
    dec = zlib.decompressobj(-15)
    try:
        out = dec.decompress(chunk, limit + 1)
    except zlib.error as exc:
        raise OrcError(f"ZLIB chunk is corrupt: {exc}") from None
    if len(out) > limit or dec.unconsumed_tail:
        raise _too_large("ZLIB", limit)
    if not dec.eof:
        raise OrcError("ZLIB chunk ends before its deflate stream does")
    return out


def _snappy(chunk: memoryview, limit: int) -> bytes:
    import cramjam

    try:
        size = cramjam.snappy.decompress_raw_len(chunk)
    except Exception as exc:  # cramjam raises its own error types
        raise OrcError(f"SNAPPY chunk is corrupt: {exc}") from None
    if size > limit:
        raise _too_large("SNAPPY", limit)
    try:
        return bytes(cramjam.snappy.decompress_raw(chunk))
    except Exception as exc:
        raise OrcError(f"SNAPPY chunk is corrupt: {exc}") from None


def _lz4(chunk: memoryview, limit: int) -> bytes:
    import lz4.block

    try:
        # a raw LZ4 block; uncompressed_size is the capacity, the result is the real length
        return lz4.block.decompress(bytes(chunk), uncompressed_size=limit)  # type: ignore[no-any-return]
    except lz4.block.LZ4BlockError:
        raise OrcError(f"LZ4 chunk is corrupt or expands past the compression block size of {limit} bytes") from None


_local = threading.local()


def _zstd_context():  # type: ignore[no-untyped-def]
    # creating a decompression context costs more than decompressing a small chunk; a context serves one thread
    # at a time, so each thread keeps its own
    context = getattr(_local, "zstd", None)
    if context is None:
        import zstandard

        context = _local.zstd = zstandard.ZstdDecompressor()
    return context


def _zstd(chunk: memoryview, limit: int) -> bytes:
    import zstandard

    try:
        declared = zstandard.frame_content_size(chunk)
    except zstandard.ZstdError as exc:
        raise OrcError(f"ZSTD chunk is corrupt: {exc}") from None
    if declared > limit:  # -1 when the frame does not say
        raise _too_large("ZSTD", limit)
    # a stream reader rather than decompress(): decompress() trusts the declared size over max_output_size and
    # stops after the first frame
    reader = _zstd_context().stream_reader(chunk, read_across_frames=True, read_size=len(chunk) or 1)
    parts = []
    total = 0
    try:
        while True:
            part = reader.read(limit + 1 - total)
            if not part:
                break
            parts.append(part)
            total += len(part)
            if total > limit:
                raise _too_large("ZSTD", limit)
    except zstandard.ZstdError as exc:
        raise OrcError(f"ZSTD chunk is corrupt: {exc}") from None
    return b"".join(parts)


def _lzo(chunk: memoryview, limit: int) -> bytes:
    from .lzo import decompress_lzo

    return decompress_lzo(chunk, limit)


_DECODERS = {ZLIB: _zlib, SNAPPY: _snappy, LZO: _lzo, LZ4: _lz4, ZSTD: _zstd}


def decompress_chunk(codec: int, chunk: memoryview, limit: int) -> bytes:
    """Decompress one chunk of ``codec`` into at most ``limit`` bytes.

    Raises
    ------
    OrcError
        If the chunk is corrupt, truncated or larger than ``limit`` once decompressed.
    """
    try:
        decode = _DECODERS[codec]
    except KeyError:
        raise OrcError(f"unknown compression kind {codec}") from None
    return decode(chunk, limit)
