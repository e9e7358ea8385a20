"""RLE v2 direct: 1 to 512 values bit-packed at one fixed width.

Header ``01 WWWWW L`` ``LLLLLLLL``: W is the width code, L + 1 the number of values. The values follow
bit-packed big-endian, zigzag-encoded when the stream is signed.
"""

from __future__ import annotations

from ..._jit import jit
from ..bitpack import decode_width, packed_bytes, unpack_bits, zigzag_decode
from ..status import ERROR_POS, TRUNCATED


@jit
def skip_direct(buf, pos, end, state):  # type: ignore[no-untyped-def]
    width = decode_width((buf[pos] >> 1) & 31)
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    stop = pos + 2 + packed_bytes(n, width)
    if stop > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return stop


@jit
def decode_direct(buf, pos, end, out, offset, signed, state):  # type: ignore[no-untyped-def]
    """Write the run's values to ``out[offset:]``; return the position after the run.

    The caller has checked that the two header bytes are inside the buffer.
    """
    width = decode_width((buf[pos] >> 1) & 31)
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    stop = unpack_bits(buf, pos + 2, end, width, n, out, offset)
    if stop < 0:
        state[ERROR_POS] = pos
        return stop
    if signed:
        zigzag_decode(out, offset, n)
    return stop
