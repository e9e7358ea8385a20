"""RLE v2 direct: 1 to 512 values bit-packed at one fixed width.

Header ``01 WWWWW L`` ``LLLLLLLL``: W is the width code, L + 1 the number of values. The values follow
bit-packed big-endian, zigzag-encoded when the stream is signed.

The decoder writes whole runs out itself (see :mod:`.decoder`); ``decode_*`` here serves runs that a call stops
inside of, decoded into scratch.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..bitpack import decode_width, packed_bytes, unpack_values
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
    stop = unpack_values(buf, pos + 2, end, width, n, out, offset, 1 if signed else 0, np.int64(0))
    if stop < 0:
        state[ERROR_POS] = pos
    return stop
