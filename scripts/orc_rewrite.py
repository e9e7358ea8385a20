"""Rewrite an ORC file uncompressed or with LZO: :func:`recompress`, used by ``make_warmup_orc.py``.

No Python library writes LZO (the ORC C++ writer behind pyarrow and pyorc has no LZO compressor), so the LZO here is
the simplest valid kind: every chunk one literal run, which any LZO1X decoder reads back. Import it from the
``scripts`` directory (``make_warmup_orc.py`` runs with it on ``sys.path``) or load it by path; it needs orcjit only.
"""

from __future__ import annotations

from collections.abc import Callable

from orcjit._proto import orc_proto_pb2 as pb
from orcjit.compression import decompress_stream

__all__ = ["LZO", "LZO_BLOCK_SIZE", "NONE", "lzo_literal_block", "lzo_stream", "recompress"]

# CompressionKind numbers of the PostScript
NONE, LZO = 0, 3
# chunks of the LZO rewrite; ORC's default compression block size
LZO_BLOCK_SIZE = 256 * 1024
# a literal run that the first byte of an LZO1X block can state alone holds at most 255 - 17 bytes
_LZO_SHORT_RUN = 238
_LZO_END = b"\x11\x00\x00"
# ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8: the streams of a stripe's index section
_INDEX_KINDS = (6, 7, 8)


def lzo_literal_block(data: bytes | memoryview) -> bytes:
    """``data`` as one LZO1X block of a single literal run: valid LZO that any decoder reads back.

    A run of up to 238 bytes is stated by its first byte (length + 17); a longer one by a zero byte and the length
    less 18 in the zero-run scheme (each further zero byte adds 255, a final non-zero byte adds itself). The block
    ends with the end-of-stream marker.

    Parameters
    ----------
    data : bytes or memoryview
        The bytes to store.

    Returns
    -------
    bytes
        The LZO1X block.
    """
    n = len(data)
    if n <= _LZO_SHORT_RUN:
        head = bytes([n + 17])
    else:
        rest = n - 18
        zeros, last = divmod(rest, 255)
        if last == 0:  # the final length byte must not be zero
            zeros, last = zeros - 1, 255
        head = b"\x00" + b"\x00" * zeros + bytes([last])
    return head + bytes(data) + _LZO_END


def lzo_stream(data: bytes) -> bytes:
    """A stream as ORC stores it under LZO: chunks of at most LZO_BLOCK_SIZE bytes, each after its 3-byte header.

    Parameters
    ----------
    data : bytes
        The stream's uncompressed bytes.

    Returns
    -------
    bytes
        The stream's bytes in the file.
    """
    out = bytearray()
    for start in range(0, len(data), LZO_BLOCK_SIZE):
        block = lzo_literal_block(memoryview(data)[start : start + LZO_BLOCK_SIZE])
        out += (len(block) << 1).to_bytes(3, "little")  # the low bit clear: a compressed chunk
        out += block
    return bytes(out)


def recompress(data: bytes, codec: int) -> bytes:
    """Rewrite an ORC file uncompressed (``codec`` 0) or with LZO (``codec`` 3).

    Every stream, stripe footer, the metadata and the footer are decompressed (whatever the file's codec) and
    stored again, as they are or as LZO chunks (literal runs only: valid LZO, not smaller). Row indexes and bloom
    filters are left out, since their positions count compressed bytes that no longer hold; the footer's row
    index stride becomes 0.

    Parameters
    ----------
    data : bytes
        A whole ORC file.
    codec : int
        The CompressionKind to write: 0 (NONE) or 3 (LZO).

    Returns
    -------
    bytes
        A whole ORC file with the same rows, schema and statistics.
    """
    if codec not in (NONE, LZO):
        raise ValueError(f"recompress writes NONE (0) or LZO (3), not compression kind {codec}")
    encode: Callable[[bytes], bytes] = lzo_stream if codec == LZO else bytes
    ps_len = data[-1]
    postscript = pb.PostScript.FromString(data[-1 - ps_len : -1])
    old_codec, block = postscript.compression, postscript.compressionBlockSize or LZO_BLOCK_SIZE
    footer_start = len(data) - 1 - ps_len - postscript.footerLength
    metadata_start = footer_start - postscript.metadataLength

    def plain(start: int, length: int, what: str) -> bytes:
        return bytes(decompress_stream(memoryview(data)[start : start + length], old_codec, block, what))

    footer = pb.Footer.FromString(plain(footer_start, postscript.footerLength, "footer"))
    metadata = plain(metadata_start, postscript.metadataLength, "metadata")
    out = bytearray(b"ORC")
    for stripe in footer.stripes:
        stripe_footer = pb.StripeFooter.FromString(
            plain(stripe.offset + stripe.indexLength + stripe.dataLength, stripe.footerLength, "stripe footer")
        )
        kept, pos = [], stripe.offset
        for s in stripe_footer.streams:
            if s.kind not in _INDEX_KINDS:
                kept.append((s, encode(plain(pos, s.length, "stream"))))
            pos += s.length
        del stripe_footer.streams[:]
        stripe.offset = len(out)
        for s, body in kept:
            stream = stripe_footer.streams.add()
            stream.CopyFrom(s)
            stream.length = len(body)
            out += body
        stripe.indexLength = 0
        stripe.dataLength = len(out) - stripe.offset
        body = encode(stripe_footer.SerializeToString())
        stripe.footerLength = len(body)
        out += body
    footer.contentLength = len(out)
    footer.rowIndexStride = 0
    metadata_body = encode(metadata)
    footer_body = encode(footer.SerializeToString())
    out += metadata_body + footer_body
    postscript.compression = codec
    postscript.compressionBlockSize = LZO_BLOCK_SIZE
    postscript.metadataLength = len(metadata_body)
    postscript.footerLength = len(footer_body)
    ps = postscript.SerializeToString()
    return bytes(out + ps + bytes([len(ps)]))
