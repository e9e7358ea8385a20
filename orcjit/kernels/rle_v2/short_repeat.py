"""RLE v2 short repeat: one value repeated 3 to 10 times.

Header byte ``00 WWW CCC``: W + 1 is the value's width in bytes, C + 3 the repeat count. The value follows
big-endian, zigzag-encoded when the stream is signed.

The decoder writes whole runs out itself (see :mod:`.decoder`); ``decode_*`` here serves runs that a call stops
inside of, decoded into scratch.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..status import ERROR_POS, TRUNCATED

U64 = np.uint64


@jit
def skip_short_repeat(buf, pos, end, state):  # type: ignore[no-untyped-def]
    width = ((buf[pos] >> 3) & 7) + 1
    if pos + 1 + width > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return pos + 1 + width


@jit
def decode_short_repeat(buf, pos, end, out, offset, signed, state):  # type: ignore[no-untyped-def]
    """Write the run's values to ``out[offset:]``; return the position after the run."""
    header = buf[pos]
    width = ((header >> 3) & 7) + 1
    n = (header & 7) + 3
    if pos + 1 + width > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    u = U64(0)
    for k in range(width):
        u = (u << U64(8)) | U64(buf[pos + 1 + k])
    value = np.int64(u >> U64(1)) ^ -np.int64(u & U64(1)) if signed else np.int64(u)
    for i in range(n):
        out[offset + i] = value
    return pos + 1 + width
