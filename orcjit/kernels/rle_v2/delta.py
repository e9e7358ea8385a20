"""RLE v2 delta: monotone runs as a base, a first delta, and the sizes of the later deltas.

Header ``11 WWWWW L`` ``LLLLLLLL``: W is the width code of the deltas (code 0 means width 0: every step equals
the first delta), L + 1 values. Then the base (varint, zigzag when signed), the first delta (zigzag varint), and
L - 1 unsigned deltas of W bits whose direction is the first delta's sign. Arithmetic wraps like Java's longs,
as the writers' does.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..bitpack import WIDTHS, load_be64, unpack_values
from ..status import BAD_HEADER, ERROR_POS, TRUNCATED, VARINT_TOO_LONG

U64 = np.uint64


@jit
def delta_header(buf, pos, end, signed):  # type: ignore[no-untyped-def]
    """Read a delta run's header: ``(width, n, base, first delta, position of the packed deltas)``.

    The position is a negative status on error (the caller sets ``state[ERROR_POS]``: it takes no state, so that
    the decoder's call passes one array, not two). The caller has checked the two header bytes. The two varints
    are read here rather than by read_uvarint: a call that passes ``buf`` costs more than a short varint.
    """
    code = (buf[pos] >> 1) & 31
    width = 0 if code == 0 else WIDTHS[code]
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    base = np.int64(0)
    delta = np.int64(0)
    p = pos + 2
    for which in range(2):
        value = np.int64(0)
        shift = 0
        while True:
            if p >= end:
                return width, n, base, delta, np.int64(TRUNCATED)
            b = np.int64(buf[p])
            p += 1
            if shift == 63:
                # the tenth byte: one payload bit left, and no continuation
                if b > 1:
                    return width, n, base, delta, np.int64(VARINT_TOO_LONG)
                value |= b << 63
                break
            value |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
        # zigzag: (u >> 1) ^ -(u & 1), the shift unsigned
        if which == 0:
            base = np.int64(U64(value) >> U64(1)) ^ -(value & 1) if signed else value
        else:
            delta = np.int64(U64(value) >> U64(1)) ^ -(value & 1)
    if width != 0 and n < 2:
        return width, n, base, delta, np.int64(BAD_HEADER)
    return width, n, base, delta, np.int64(p)


@jit
def delta_values(buf, p, end, width, n, out, offset, base, delta):  # type: ignore[no-untyped-def]
    """Write the ``n`` values of a run with deltas of ``width`` (> 0) bits at ``buf[p:]`` to ``out[offset:]``.

    Returns the position after the run, or TRUNCATED.
    """
    stop = p + (((n - 2) * width + 7) >> 3)
    if stop > end:
        return TRUNCATED
    out[offset] = base
    value = base + delta
    out[offset + 1] = value
    # the later deltas are magnitudes in the first delta's direction: negate them (d ^ -1) - -1 when it is negative
    neg = np.int64(-1) if delta < 0 else np.int64(0)
    if stop + 7 <= end:
        # unpacked and summed in one pass, as unpack_values unpacks: one 8-byte load per delta
        w = U64(width)
        shift = U64(64 - width)
        src = U64(p)
        at = U64(offset + 2)
        for k in range(n - 2):
            uk = U64(k)
            b = uk * w
            d = np.int64((load_be64(buf, src + (b >> U64(3))) << (b & U64(7))) >> shift)
            value += (d ^ neg) - neg
            out[at + uk] = value
        return stop
    unpack_values(buf, p, end, width, n - 2, out, offset + 2, np.int64(0), np.int64(0))
    for i in range(offset + 2, offset + n):
        value += (out[i] ^ neg) - neg
        out[i] = value
    return stop


@jit
def skip_delta(buf, pos, end, state):  # type: ignore[no-untyped-def]
    # np.bool_(False), not False: a literal argument would compile delta_header once more, for the literal
    width, n, _, _, p = delta_header(buf, pos, end, np.bool_(False))
    if p >= 0:
        p += (((n - 2) * width + 7) >> 3) if width else 0
        if p > end:
            p = TRUNCATED
    if p < 0:
        state[ERROR_POS] = pos
    return p
