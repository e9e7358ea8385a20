"""ORC's compression layer: 3-byte chunk headers over a generic codec.

A compressed ORC stream is a sequence of chunks. Each starts with a 3-byte little-endian header holding
``length * 2 + is_original``; an original chunk holds its bytes as they are (the codec did not help), any other
chunk holds ``length`` bytes of codec output. Chunks are independent, which is what lets a reader seek into a
stream at a chunk start. Streams of uncompressed files have no headers at all.

It imports only :mod:`orcjit.errors`, :mod:`orcjit._jit` (the LZO kernel) and the codec libraries.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import OrcError
from .codecs import CODEC_NAMES, NONE, decoder, decompress_whole

__all__ = ["CODEC_NAMES", "NONE", "What", "decompress_head", "decompress_stream", "iter_chunks", "stream_capacity"]

HEADER_SIZE = 3
# A stream's buffer is allocated whole when the most its chunks may hold is at most EAGER_RATIO times its stored
# size (or EAGER_BYTES): real streams compress far less than that. Past it, hostile headers could ask for far more
# than the data can produce, and the buffer grows as chunks really decompress instead.
EAGER_RATIO = 64
EAGER_BYTES = 16 << 20
# a result using less than half its buffer, and leaving more than this unused, is copied to one of its own size
COMPACT_SLACK = 1 << 16

# what a stream is, in the words of error messages, or a function giving them (called only when an error happens)
What = str | Callable[[], str]


def _words(what: What) -> str:
    return what if isinstance(what, str) else what()


def iter_chunks(data: bytes | memoryview, block_size: int, what: What):  # type: ignore[no-untyped-def]
    """Yield ``(offset, is_original, chunk)`` for each chunk of a compressed stream.

    Raises
    ------
    OrcError
        If a header is cut off, a chunk runs past the end of the stream, or an original chunk is larger than the
        compression block size.
    """
    view = memoryview(data).cast("B")
    end = len(view)
    pos = 0
    while pos < end:
        if pos + HEADER_SIZE > end:
            raise OrcError(
                f"{_words(what)}: chunk header at byte {pos} is cut off by the end of the stream ({end} bytes)"
            )
        header = view[pos] | (view[pos + 1] << 8) | (view[pos + 2] << 16)
        length = header >> 1
        is_original = bool(header & 1)
        start = pos + HEADER_SIZE
        if start + length > end:
            raise OrcError(
                f"{_words(what)}: chunk at byte {pos} declares {length} bytes but only {end - start} remain in the "
                "stream"
            )
        if is_original and length > block_size:
            raise OrcError(
                f"{_words(what)}: uncompressed chunk at byte {pos} holds {length} bytes, "
                f"more than the compression block size of {block_size}"
            )
        yield pos, is_original, view[start : start + length]
        pos = start + length


def decompress_stream(
    data: bytes | memoryview, codec: int, block_size: int, what: What, buffer: np.ndarray | None = None
) -> bytes | memoryview:
    """Return the decompressed bytes of a whole stream.

    Every chunk is decompressed straight into one buffer for the stream, and a stream that is a single original
    chunk (or not compressed at all) is returned as a view of ``data`` without a copy. The result is read-only,
    so ``np.frombuffer`` gives the read-only arrays the kernels are compiled for.

    Parameters
    ----------
    data : bytes-like
        The stream as stored in the file.
    codec : int
        The file's CompressionKind (0 = NONE returns ``data`` itself).
    block_size : int
        The file's compression block size: the most any chunk may decompress to.
    what : str or callable
        What the stream is, for error messages (e.g. ``"footer at offset 1234"``), or a function giving those words,
        called only if there is an error.
    buffer : np.ndarray, optional
        A writable uint8 array to decompress into when it can hold the most the chunks may decompress to (see
        :func:`stream_capacity`), so that a caller can reuse memory the kernel has already paged in; otherwise a
        new buffer is allocated. The result is a view of it: do not reuse it while the result is in use.

    Returns
    -------
    bytes or memoryview
        ``data`` itself for codec NONE, else a read-only memoryview of the decompressed bytes.

    Raises
    ------
    OrcError
        If the framing is broken (see :func:`iter_chunks`) or a chunk fails to decompress.
    """
    if codec == NONE:
        return data
    return _decompress(memoryview(data).cast("B"), codec, block_size, what, buffer, None)[0]


def decompress_head(
    data: bytes | memoryview, codec: int, block_size: int, what: What, budget: int
) -> tuple[bytes | memoryview, int]:
    """Decompress the chunks at the start of a stream for as long as they stay within ``budget`` bytes in all.

    A chunk that could expand past what is left of the budget is decompressed at most that far: one that
    expands further, or fails to decompress within it, is left with the chunks after it, for whoever reads on
    to decompress (and report, if it is corrupt) once decoding needs it.

    Parameters
    ----------
    data, codec, block_size, what
        As for :func:`decompress_stream`.
    budget : int
        The most bytes to decompress.

    Returns
    -------
    bytes or memoryview
        The decompressed bytes of the chunks that fit, read-only (``data`` itself for codec NONE).
    int
        The offset in ``data`` of the first chunk left: ``len(data)`` when every chunk fit.

    Raises
    ------
    OrcError
        If the framing of a chunk reached is broken, or a chunk that fits the budget fails to decompress.
    """
    if codec == NONE:
        return data, len(data)
    return _decompress(memoryview(data).cast("B"), codec, block_size, what, None, budget)


def _decompress(
    view: memoryview, codec: int, block_size: int, what: What, buffer: np.ndarray | None, budget: int | None
) -> tuple[memoryview, int]:
    if buffer is None and len(view) > HEADER_SIZE:
        # a stream of one chunk (every small stream): as it is stored, or decompressed into bytes of its own size
        # where the codec can; anything else (or wrong) as any stream below
        header = view[0] | (view[1] << 8) | (view[2] << 16)
        length = header >> 1
        if HEADER_SIZE + length == len(view):
            if header & 1:
                if length <= block_size and (budget is None or length <= budget):
                    return view[HEADER_SIZE:].toreadonly(), len(view)
            elif budget is None or budget >= block_size:
                whole = decompress_whole(codec, view[HEADER_SIZE:], block_size)
                if whole is not None:
                    return memoryview(whole), len(view)
    bound = stream_capacity(view, block_size)
    if budget is not None:
        bound = min(bound, budget + 1)  # the spare byte a codec may write past its limit
    out = buffer if buffer is not None and len(buffer) >= bound else None
    buf = memoryview(b"" if out is None else out)
    used = 0
    for pos, is_original, chunk in iter_chunks(view, block_size, what):
        room = block_size if budget is None else min(block_size, budget - used)
        if budget is not None and (len(chunk) if is_original else 1) > room:
            return _result(out, buffer, buf, used), pos
        if is_original and len(chunk) + HEADER_SIZE == len(view):
            return chunk.toreadonly(), len(view)  # the whole stream, stored as it is
        if out is None:
            out = np.empty(min(bound, max(EAGER_BYTES, EAGER_RATIO * len(view))), dtype=np.uint8)
            buf = memoryview(out)
        need = used + (len(chunk) if is_original else room + 1)
        if need > len(out):
            out = _grow(out, used, min(bound, max(need, 2 * len(out))))
            buf = memoryview(out)
        if is_original:
            buf[used : used + len(chunk)] = chunk
            used += len(chunk)
            continue
        try:
            used += decoder(codec)(chunk, buf[used:], room)
        except OrcError as exc:
            if room < block_size:  # may expand past the budget rather than be corrupt: left to whoever reads on
                return _result(out, buffer, buf, used), pos
            raise OrcError(f"{_words(what)}: chunk at byte {pos}: {exc}") from None
    return _result(out, buffer, buf, used), len(view)


def _result(out: np.ndarray | None, buffer: np.ndarray | None, buf: memoryview, used: int) -> memoryview:
    if out is not None and out is not buffer and len(out) - used > max(used, COMPACT_SLACK):
        # mostly unused (short chunks: a small stream still reserves a whole block): keep only what is used
        return memoryview(out[:used].copy()).toreadonly()
    return buf[:used].toreadonly()


def stream_capacity(data: bytes | memoryview, block_size: int) -> int:
    """The most bytes the chunks of a compressed stream may decompress to, plus the one spare byte codecs use.

    Reads only the chunk headers; a header cut off, or a chunk past the end, ends the count (decompressing the
    stream reports it).
    """
    view = memoryview(data).cast("B")
    end = len(view)
    total = 1
    pos = 0
    while pos + HEADER_SIZE <= end:
        header = view[pos] | (view[pos + 1] << 8) | (view[pos + 2] << 16)
        total += header >> 1 if header & 1 else block_size
        pos += HEADER_SIZE + (header >> 1)
    return total


def _grow(out: np.ndarray, used: int, size: int) -> np.ndarray:
    bigger = np.empty(size, dtype=np.uint8)
    bigger[:used] = out[:used]
    return bigger
