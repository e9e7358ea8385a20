"""DECIMAL columns: unbounded zigzag varints in DATA, a per-value scale in SECONDARY.

Encodings
---------
``DIRECT`` / ``DIRECT_V2``
    DATA holds each non-null value's unscaled integer as an unbounded zigzag base-128 varint (the protobuf varint
    of ``(v << 1) ^ (v >> 127)``); SECONDARY holds that value's own scale as a signed RLE v1 / v2 integer. A
    precision-38 value needs 127 bits plus the sign, so a varint holds at most 19 bytes (``ceil(128 / 7)``).
    :func:`decode_decimal_varints` decodes them into two lanes of a 128-bit two's complement integer (``hi``
    int64, ``lo`` uint64, ``value = hi * 2**64 + lo``); :func:`decode_decimal64_varints` is the fast path into
    int64 for columns of precision <= 18. Then :func:`rescale_decimal128` / :func:`rescale_decimal64` bring every
    value to the column's declared scale.

``DECIMAL_64`` (ORC v2 / Hive 4 writers, precision <= 18)
    DATA holds the unscaled values, already at the column's scale, as a signed RLE v2 integer stream and there is
    no SECONDARY stream: the RLE v2 decoder produces the final int64 values and no kernel here is involved.

Scales
------
Writers store per-value scales that differ from the column's: ORC Java writes each value's normalized scale
(``1.50000`` in a ``decimal(10,5)`` column is unscaled ``15`` with scale 1), so values usually need multiplying by
``10 ** (column_scale - scale)``. A scale larger than the column's (which no current writer produces, but a Hive
0.11 file or a foreign writer can) needs dividing: ORC C++ (so pyarrow and pyorc) truncates toward zero, and that
is the default here; ORC Java (as Spark reads) rounds half away from zero, which ``round_half_up=True`` gives.
A value beyond 38 digits after rescaling is OVERFLOW.

Python objects are made by :func:`orcjit.convert.decimals.decimal_objects` from the rescaled values.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH, ERROR_POS, OVERFLOW, TRUNCATED, VARINT_TOO_LONG

__all__ = [
    "MAX_DECIMAL_VARINT_BYTES",
    "decode_decimal64_varints",
    "decode_decimal_varints",
    "rescale_decimal64",
    "rescale_decimal128",
]

# a 128-bit zigzag value needs at most ceil(128 / 7) varint bytes
MAX_DECIMAL_VARINT_BYTES = 19

_MASK7 = np.uint64(0x7F)
_MASK32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
# 10**38 - 1, the largest magnitude of a 38-digit decimal, as two uint64 lanes
_MAX38_HI = np.uint64(0x4B3B4CA85A86C47A)
_MAX38_LO = np.uint64(0x098A223FFFFFFFFF)
# 10**k for k = 0 .. 19 (10**19 < 2**64)
_POW10 = np.array([10**k for k in range(20)], dtype=np.uint64)
_INT64_MAX_U = np.uint64(np.iinfo(np.int64).max)


# -- decoding ---------------------------------------------------------------------------------------------------------


@jit
def decode_decimal_varints(buf, pos, end, hi, lo, start, count, state):
    """Decode ``count`` zigzag varints of up to 128 bits from ``buf[pos:end]`` into ``hi``/``lo[start:start + count]``.

    ``hi`` (int64) and ``lo`` (uint64, or int64 holding the same bits) are the high and low 64 bits of each
    value's two's complement. Returns the new byte position, or TRUNCATED (the bytes end inside a varint),
    VARINT_TOO_LONG (more than 19 bytes) or OVERFLOW (a bit past the 128th is set), with the varint's offset in
    ``state[ERROR_POS]``; BAD_LENGTH if the byte range or the output window lies outside the arrays.
    """
    if (
        pos < 0
        or pos > end
        or end > buf.shape[0]
        or start < 0
        or count < 0
        or start + count > hi.shape[0]
        or start + count > lo.shape[0]
    ):
        state[ERROR_POS] = pos
        return BAD_LENGTH
    for k in range(start, start + count):
        item = pos
        u_lo = _ZERO
        u_hi = _ZERO
        i = 0
        while True:
            if pos >= end:
                state[ERROR_POS] = item
                return TRUNCATED
            if i == MAX_DECIMAL_VARINT_BYTES:
                state[ERROR_POS] = item
                return VARINT_TOO_LONG
            b = buf[pos]
            pos += 1
            payload = np.uint64(b) & _MASK7
            if i < 9:
                u_lo |= payload << np.uint64(7 * i)
            elif i == 9:
                # bits 63 .. 69: one bit to the low lane, six to the high lane
                u_lo |= payload << np.uint64(63)
                u_hi |= payload >> _ONE
            elif i < 18:
                u_hi |= payload << np.uint64(7 * i - 64)
            else:
                # bits 126 .. 132: only bits 126 and 127 exist
                if payload > np.uint64(3):
                    state[ERROR_POS] = item
                    return OVERFLOW
                u_hi |= payload << np.uint64(62)
            i += 1
            if b < 0x80:
                break
        # zigzag: value = (u >> 1) ^ -(u & 1), over 128 bits
        negative = (u_lo & _ONE) != _ZERO
        v_lo = (u_lo >> _ONE) | (u_hi << np.uint64(63))
        v_hi = u_hi >> _ONE
        if negative:
            v_lo = ~v_lo
            v_hi = ~v_hi
        hi[k] = np.int64(v_hi)
        lo[k] = v_lo
    return pos


@jit
def decode_decimal64_varints(buf, pos, end, out, start, count, state):
    """Decode ``count`` zigzag varints into int64 ``out[start:start + count]``: DECIMAL DATA of precision <= 18.

    Accepts every varint the 128-bit decoder does, but returns OVERFLOW for a value outside int64. Otherwise as
    :func:`decode_decimal_varints`.
    """
    if pos < 0 or pos > end or end > buf.shape[0] or start < 0 or count < 0 or start + count > out.shape[0]:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    for k in range(start, start + count):
        item = pos
        u = _ZERO
        i = 0
        too_big = False
        while True:
            if pos >= end:
                state[ERROR_POS] = item
                return TRUNCATED
            if i == MAX_DECIMAL_VARINT_BYTES:
                state[ERROR_POS] = item
                return VARINT_TOO_LONG
            b = buf[pos]
            pos += 1
            payload = np.uint64(b) & _MASK7
            if i < 9:
                u |= payload << np.uint64(7 * i)
            elif i == 9:
                # bit 63 is the last one a 64-bit zigzag value has
                if payload > _ONE:
                    too_big = True
                u |= payload << np.uint64(63)
            elif payload != _ZERO:
                too_big = True
            i += 1
            if b < 0x80:
                break
        if too_big:
            state[ERROR_POS] = item
            return OVERFLOW
        v = u >> _ONE
        if (u & _ONE) != _ZERO:
            v = ~v
        out[k] = np.int64(v)
    return pos


# -- rescaling -------------------------------------------------------------------------------------------------------


@jit
def rescale_decimal128(hi, lo, scales, target_scale, round_half_up=False):
    """Bring each 128-bit value ``(hi[i], lo[i])`` of scale ``scales[i]`` to ``target_scale``, in place.

    Values of a smaller scale are multiplied by a power of ten; those of a larger scale divided, truncating toward
    zero as ORC C++ does, or rounding half away from zero as ORC Java does when ``round_half_up``. Returns the
    number of values, OVERFLOW when a result passes 38 digits (checked for every value, rescaled or not), or
    BAD_LENGTH when ``lo`` or ``scales`` is shorter than ``hi``.

    The magnitude is multiplied and divided as four 32-bit limbs, by at most 10**9 a step, all in this one
    function: helpers for the 128-bit steps were three more compilations in a new environment (about 0.8 s).
    """
    n = hi.shape[0]
    if lo.shape[0] < n or scales.shape[0] < n:
        return BAD_LENGTH
    s = np.uint64(32)
    for i in range(n):
        diff = np.int64(target_scale) - np.int64(scales[i])
        high = np.uint64(hi[i])
        low = np.uint64(lo[i])
        negative = hi[i] < 0
        if negative:
            low = ~low + _ONE
            high = ~high + (_ONE if low == _ZERO else _ZERO)
        if high == _ZERO and low == _ZERO:
            continue
        if diff > 0:
            if diff > 38:
                return OVERFLOW
            while diff > 0:
                step = diff if diff < 9 else 9  # not min(): one more compilation in a new environment
                m = _POW10[step]
                # (high, low) * m, limb by limb; a carry out of the top limb passes 128 bits
                p = (low & _MASK32) * m
                r0 = p & _MASK32
                p = (low >> s) * m + (p >> s)
                r1 = p & _MASK32
                p = (high & _MASK32) * m + (p >> s)
                r2 = p & _MASK32
                p = (high >> s) * m + (p >> s)
                if (p >> s) != _ZERO:
                    return OVERFLOW
                high = (p << s) | r2
                low = (r1 << s) | r0
                diff -= step
        elif diff < 0:
            k = -diff
            if k > 39:
                # |value| < 2**128 < 10**39: every digit goes, and the first one dropped is 0
                high = _ZERO
                low = _ZERO
            else:
                # drop k - 1 digits, at most 9 a step, then the last one alone to round on it
                rest = k
                last = _ZERO
                while rest > 0:
                    step = 1 if rest == 1 else (rest - 1 if rest < 10 else 9)
                    d = _POW10[step]
                    cur = high >> s
                    q3 = cur // d
                    r = cur - q3 * d
                    cur = (r << s) | (high & _MASK32)
                    q2 = cur // d
                    r = cur - q2 * d
                    cur = (r << s) | (low >> s)
                    q1 = cur // d
                    r = cur - q1 * d
                    cur = (r << s) | (low & _MASK32)
                    q0 = cur // d
                    last = cur - q0 * d
                    high = (q3 << s) | q2
                    low = (q1 << s) | q0
                    rest -= step
                if round_half_up and last >= np.uint64(5):
                    low += _ONE
                    if low == _ZERO:
                        high += _ONE
        if high > _MAX38_HI or (high == _MAX38_HI and low > _MAX38_LO):
            return OVERFLOW
        if negative:
            low = ~low + _ONE
            high = ~high + (_ONE if low == _ZERO else _ZERO)
        hi[i] = np.int64(high)
        lo[i] = low
    return n


@jit
def rescale_decimal64(values, scales, target_scale, round_half_up=False):
    """Bring each int64 value of scale ``scales[i]`` to ``target_scale``, in place; see :func:`rescale_decimal128`.

    Returns the number of values, OVERFLOW when a result leaves int64, or BAD_LENGTH when ``scales`` is too short.
    """
    n = values.shape[0]
    if scales.shape[0] < n:
        return BAD_LENGTH
    for i in range(n):
        v = values[i]
        diff = np.int64(target_scale) - np.int64(scales[i])
        if v == 0 or diff == 0:
            continue
        negative = v < 0
        # |v| as uint64, exact for -2**63 too
        mag = np.uint64(-(v + 1)) + _ONE if negative else np.uint64(v)
        if diff > 0:
            if diff > 18:
                return OVERFLOW
            p = _POW10[diff]
            if mag > _INT64_MAX_U // p:
                return OVERFLOW
            mag *= p
        else:
            k = -diff
            if k > 20:
                mag = _ZERO
            else:
                mag //= _POW10[k - 1]
                last = mag % np.uint64(10)
                mag //= np.uint64(10)
                if round_half_up and last >= np.uint64(5):
                    mag += _ONE
        if mag > _INT64_MAX_U:
            return OVERFLOW
        values[i] = -np.int64(mag) if negative else np.int64(mag)
    return n


# -- Python objects ---------------------------------------------------------------------------------------------------
