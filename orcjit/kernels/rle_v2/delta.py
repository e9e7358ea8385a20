"""RLE v2 delta: monotone runs as a base, a first delta, and the sizes of the later deltas.

Header ``11 WWWWW L`` ``LLLLLLLL``: W is the width code of the deltas (code 0 means width 0: every step equals
the first delta), L + 1 values. Then the base (varint, zigzag when signed), the first delta (zigzag varint), and
L - 1 unsigned deltas of W bits whose direction is the first delta's sign. Arithmetic wraps like Java's longs,
as the writers' does.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..bitpack import decode_width, packed_bytes, unpack_bits
from ..status import BAD_HEADER, ERROR_POS, TRUNCATED
from ..varint import read_uvarint

U64 = np.uint64


@jit
def _zigzag(u):  # type: ignore[no-untyped-def]
    return np.int64(U64(u) >> U64(1)) ^ -np.int64(U64(u) & U64(1))


@jit
def _heads(buf, pos, end, state):  # type: ignore[no-untyped-def]
    # (width, n, base bits, first delta, position of the packed deltas); position < 0 on error
    code = (buf[pos] >> 1) & 31
    width = 0 if code == 0 else decode_width(code)
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    base, p = read_uvarint(buf, pos + 2, end)
    if p < 0:
        state[ERROR_POS] = pos
        return width, n, base, np.int64(0), p
    delta, p = read_uvarint(buf, p, end)
    if p < 0:
        state[ERROR_POS] = pos
        return width, n, base, delta, p
    if width != 0 and n < 2:
        state[ERROR_POS] = pos
        return width, n, base, delta, np.int64(BAD_HEADER)
    return width, n, base, _zigzag(delta), p


@jit
def skip_delta(buf, pos, end, state):  # type: ignore[no-untyped-def]
    width, n, _, _, p = _heads(buf, pos, end, state)
    if p < 0:
        return p
    stop = p + (packed_bytes(n - 2, width) if width else 0)
    if stop > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return stop


@jit
def decode_delta(buf, pos, end, out, offset, signed, state):  # type: ignore[no-untyped-def]
    """Write the run's values to ``out[offset:]``; return the position after the run."""
    width, n, base_bits, delta, p = _heads(buf, pos, end, state)
    if p < 0:
        return p
    base = _zigzag(base_bits) if signed else np.int64(base_bits)
    if width == 0:
        value = base
        for i in range(n):
            out[offset + i] = value
            value += delta
        return p
    out[offset] = base
    out[offset + 1] = base + delta
    stop = unpack_bits(buf, p, end, width, n - 2, out, offset + 2)
    if stop < 0:
        state[ERROR_POS] = pos
        return stop
    value = base + delta
    if delta < 0:
        for i in range(offset + 2, offset + n):
            value -= out[i]
            out[i] = value
    else:
        for i in range(offset + 2, offset + n):
            value += out[i]
            out[i] = value
    return stop
