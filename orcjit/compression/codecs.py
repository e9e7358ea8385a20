"""One compression chunk in, its bytes out, for each codec ORC files use.

Every codec is bounded by ``limit`` (the file's compression block size): ORC promises that no chunk expands past
it, so more output means a corrupt or hostile file, and we stop before writing it.

Each codec decompresses straight into a caller's buffer (``decompress_chunk_into``), so a stream of many chunks is
written into one allocation without a copy per chunk; LZO and BROTLI hand back a chunk's bytes, which are copied
in. The codec libraries release the GIL while they decompress, so streams can be decompressed in parallel threads.

BROTLI (ORC format 1.1, ORC Java 2.3) is decoded by Google's reference decoder, the ``brotli`` module of the
Brotli wheel (1.2 or newer, the optional extra ``orcjit[brotli]``), rather than by ``cramjam.brotli``, which is
already installed and decodes into a caller's buffer. Two things decided it:

- speed: on the streams of real files cut into chunks and compressed at qualities 1, 5 and 11
  (``benchmarks/brotli_decoders.py``, in ``benchmarks/RESULTS.md``), the reference decoder decoded 110-470 MB/s,
  its copy included, and cramjam 19-280 MB/s, 1.3 to 6.4 times slower. cramjam pays about 20 us a call against
  7 us, so small chunks fare worst: the 1.3 KiB chunks of the bundled sample file decoded at 19-74 MB/s against
  110-120 MB/s;
- strictness: cramjam returns what a chunk's Brotli stream holds and ignores any bytes after its end, where the
  reference decoder rejects them, as it rejects a stream cut short.

Both stop at a bound on their output: cramjam at the end of the caller's buffer, the reference decoder once its
output has grown past ``output_buffer_limit`` (in steps of at most twice what it holds, starting at 32 KiB), so
a chunk expanding to gigabytes costs at most a few blocks' worth of memory before it is refused.
"""

from __future__ import annotations

import functools
import threading
import zlib
from typing import Any

import numpy as np

from .._extras import MissingExtraError, require
from ..errors import OrcError

__all__ = ["CODEC_NAMES", "decompress_chunk", "decompress_chunk_into", "decompress_whole"]

# CompressionKind numbers of the PostScript
NONE, ZLIB, SNAPPY, LZO, LZ4, ZSTD, BROTLI = range(7)
CODEC_NAMES = {NONE: "NONE", ZLIB: "ZLIB", SNAPPY: "SNAPPY", LZO: "LZO", LZ4: "LZ4", ZSTD: "ZSTD", BROTLI: "BROTLI"}


def _too_large(codec: str, limit: int) -> OrcError:
    return OrcError(f"{codec} chunk expands past the compression block size of {limit} bytes")


def _zlib_checked(chunk: memoryview, limit: int) -> bytes:
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


def _zlib(chunk: memoryview, out: memoryview, limit: int) -> int:
    import cramjam

    try:
        # the spare byte past limit tells a chunk that fills the block exactly from one that expands past it
        n: int = cramjam.deflate.decompress_into(chunk, out[: limit + 1])
    except Exception:  # cramjam's errors do not say which: zlib decides what to report
        data = _zlib_checked(chunk, limit)
        out[: len(data)] = data
        return len(data)
    if n > limit:
        raise _too_large("ZLIB", limit)
    return n


def _snappy(chunk: memoryview, out: memoryview, limit: int) -> int:
    import cramjam

    try:
        size = cramjam.snappy.decompress_raw_len(chunk)
    except Exception as exc:  # cramjam raises its own error types
        raise OrcError(f"SNAPPY chunk is corrupt: {exc}") from None
    if size > limit:
        raise _too_large("SNAPPY", limit)
    try:
        n: int = cramjam.snappy.decompress_raw_into(chunk, out[:size])
    except Exception as exc:
        raise OrcError(f"SNAPPY chunk is corrupt: {exc}") from None
    if n != size:
        raise OrcError(f"SNAPPY chunk is corrupt: it declares {size} bytes but holds {n}")
    return n


def _lz4(chunk: memoryview, out: memoryview, limit: int) -> int:
    import cramjam

    try:
        # a raw LZ4 block: output_len says there is no size prefix; without it cramjam takes the first four bytes
        # for one whenever that decodes, and a chunk of four literal zero bytes came out empty
        n: int = cramjam.lz4.decompress_block_into(chunk, out[:limit], output_len=limit)
    except Exception:
        raise OrcError(f"LZ4 chunk is corrupt or expands past the compression block size of {limit} bytes") from None
    return n


_local = threading.local()


def _zstd_context():  # type: ignore[no-untyped-def]
    # creating a decompression context costs more than decompressing a small chunk; a context serves one thread
    # at a time, so each thread keeps its own
    context = getattr(_local, "zstd", None)
    if context is None:
        import zstandard

        context = _local.zstd = zstandard.ZstdDecompressor()
    return context


def _zstd(chunk: memoryview, out: memoryview, limit: int) -> int:
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
    total = 0
    try:
        while total <= limit:
            n = reader.readinto(out[total : limit + 1])
            if not n:
                break
            total += n
    except zstandard.ZstdError as exc:
        raise OrcError(f"ZSTD chunk is corrupt: {exc}") from None
    if total > limit:
        raise _too_large("ZSTD", limit)
    if total < declared:
        # the reader stops quietly where the input does; the first frame alone should have given this much
        raise OrcError(f"ZSTD chunk ends before its frame does ({total} of {declared} bytes)")
    return total


def _zstd_whole(chunk: memoryview, limit: int) -> bytes | None:
    """A chunk that is one zstd frame declaring its size (1 to ``limit`` bytes), decompressed by one call into
    exactly that many bytes; ``None`` for any other chunk, valid or not, which :func:`_zstd` then decompresses
    (and reports).

    ORC C++ and ORC Java write a frame per chunk with its size: a small stream is then one allocation of its own
    size and one call, where the stream reader costs several calls and a block-sized buffer to copy out of. The
    call checks what the stream reader's loop checks: the frame decodes whole to the size it declares, with no
    byte after it (a chunk of several frames goes to :func:`_zstd`, which reads them all). A frame declaring 0
    bytes is left to :func:`_zstd` too: zstandard's ``decompress`` returns nothing for it without decoding it.
    """
    zstandard = _zstandard()
    try:
        declared = zstandard.frame_content_size(chunk)
        if not 0 < declared <= limit:  # -1 when the frame does not say
            return None
        data: bytes = _zstd_context().decompress(chunk, allow_extra_data=False)
    except zstandard.ZstdError:
        return None
    return data if len(data) == declared else None


@functools.cache
def _zstandard() -> Any:
    # imported at the first zstd chunk, once: an import statement costs a lookup on every chunk
    import zstandard

    return zstandard


def _lzo(chunk: memoryview, out: memoryview, limit: int) -> int:
    from .lzo import decompress_lzo

    data = decompress_lzo(chunk, limit)
    out[: len(data)] = data
    return len(data)


@functools.cache
def _brotli_library() -> Any:
    require("brotli", "reading a BROTLI-compressed ORC file")
    import brotli

    try:
        brotli.Decompressor().process(b"", output_buffer_limit=1)
    except (AttributeError, TypeError):  # before 1.2 (or another package's module of that name): no output bound
        found = getattr(brotli, "__version__", getattr(brotli, "version", "an unknown version"))
        raise MissingExtraError(
            f"reading a BROTLI-compressed ORC file needs brotli 1.2 or newer, which bounds what a chunk may "
            f'expand to; found {found}: pip install --upgrade "orcjit[brotli]"',
            name="brotli",
        ) from None
    return brotli


def _brotli(chunk: memoryview, out: memoryview, limit: int) -> int:
    brotli = _brotli_library()
    decoder = brotli.Decompressor()
    try:
        data = decoder.process(chunk, output_buffer_limit=limit + 1)
    except brotli.error:  # its message says only that decoding failed
        raise OrcError("BROTLI chunk is corrupt: it is not one whole Brotli stream") from None
    n = len(data)
    if n > limit:
        raise _too_large("BROTLI", limit)
    if not decoder.is_finished():
        # the output did not reach the bound, so the decoder took every byte and wants more
        raise OrcError("BROTLI chunk ends before its Brotli stream does")
    out[:n] = data
    return n


_DECODERS = {ZLIB: _zlib, SNAPPY: _snappy, LZO: _lzo, LZ4: _lz4, ZSTD: _zstd, BROTLI: _brotli}
# codecs that can decompress a chunk into a buffer of exactly its size, when the chunk says what that is
_WHOLE = {ZSTD: _zstd_whole}


def decoder(codec: int):  # type: ignore[no-untyped-def]
    """The ``(chunk, out, limit) -> length`` function of ``codec``; OrcError for an unknown kind."""
    try:
        return _DECODERS[codec]
    except KeyError:
        raise OrcError(f"unknown compression kind {codec}") from None


def decompress_whole(codec: int, chunk: memoryview, limit: int) -> bytes | None:
    """One chunk of ``codec`` decompressed into ``bytes`` of exactly its size, in one call, where the codec and the
    chunk allow it (a zstd frame declaring its size); ``None`` otherwise, for :func:`decompress_chunk_into` to
    decompress (or report)."""
    whole = _WHOLE.get(codec)
    return None if whole is None else whole(chunk, limit)


def decompress_chunk_into(codec: int, chunk: memoryview, out: memoryview, limit: int) -> int:
    """Decompress one chunk of ``codec`` into the start of ``out``; return its length (at most ``limit``).

    ``out`` is a writable byte buffer of at least ``limit + 1`` bytes: codecs that cannot tell a chunk filling
    ``limit`` exactly from one running past it write one byte further. Bytes of ``out`` past the returned length
    may have been overwritten.

    Raises
    ------
    OrcError
        If the chunk is corrupt, truncated or larger than ``limit`` once decompressed.
    """
    return decoder(codec)(chunk, out, limit)  # type: ignore[no-any-return]


def decompress_chunk(codec: int, chunk: memoryview, limit: int) -> bytes:
    """Decompress one chunk of ``codec`` into at most ``limit`` bytes.

    Raises
    ------
    OrcError
        If the chunk is corrupt, truncated or larger than ``limit`` once decompressed.
    """
    decode = decoder(codec)
    out = memoryview(np.empty(max(limit, 0) + 1, dtype=np.uint8))
    return bytes(out[: decode(chunk, out, limit)])
