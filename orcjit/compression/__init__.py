"""ORC's compression layer: 3-byte chunk headers over a generic codec.

A compressed ORC stream is a sequence of chunks. Each starts with a 3-byte little-endian header holding
``length * 2 + is_original``; an original chunk holds its bytes as they are (the codec did not help), any other
chunk holds ``length`` bytes of codec output. Chunks are independent, which is what lets a reader seek into a
stream at a chunk start. Streams of uncompressed files have no headers at all.
"""

from __future__ import annotations

from ..errors import OrcError
from .codecs import CODEC_NAMES, NONE, decompress_chunk

__all__ = ["CODEC_NAMES", "NONE", "decompress_stream", "iter_chunks"]

HEADER_SIZE = 3


def iter_chunks(data: bytes | memoryview, block_size: int, what: str):  # type: ignore[no-untyped-def]
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
            raise OrcError(f"{what}: chunk header at byte {pos} is cut off by the end of the stream ({end} bytes)")
        header = view[pos] | (view[pos + 1] << 8) | (view[pos + 2] << 16)
        length = header >> 1
        is_original = bool(header & 1)
        start = pos + HEADER_SIZE
        if start + length > end:
            raise OrcError(
                f"{what}: chunk at byte {pos} declares {length} bytes but only {end - start} remain in the stream"
            )
        if is_original and length > block_size:
            raise OrcError(
                f"{what}: uncompressed chunk at byte {pos} holds {length} bytes, "
                f"more than the compression block size of {block_size}"
            )
        yield pos, is_original, view[start : start + length]
        pos = start + length


def decompress_stream(data: bytes | memoryview, codec: int, block_size: int, what: str) -> bytes:
    """Return the decompressed bytes of a whole stream.

    Parameters
    ----------
    data : bytes-like
        The stream as stored in the file.
    codec : int
        The file's CompressionKind (0 = NONE returns ``data`` unchanged).
    block_size : int
        The file's compression block size: the most any chunk may decompress to.
    what : str
        What the stream is, for error messages (e.g. ``"footer at offset 1234"``).
    """
    if codec == NONE:
        return bytes(data)
    parts: list[bytes | memoryview] = []
    for pos, is_original, chunk in iter_chunks(data, block_size, what):
        if is_original:
            parts.append(chunk)  # joined below: one copy, not two
            continue
        try:
            parts.append(decompress_chunk(codec, chunk, block_size))
        except OrcError as exc:
            raise OrcError(f"{what}: chunk at byte {pos}: {exc}") from None
    if len(parts) == 1 and isinstance(parts[0], bytes):
        return parts[0]
    return b"".join(parts)
