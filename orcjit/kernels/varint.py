"""Base 128 varints, the integer encoding under protobuf, RLE v1 literals, RLE v2 bases and decimal digits.

A varint stores an unsigned 64-bit integer seven bits at a time, least significant group first; the high bit of
each byte says another byte follows. Signed values are zigzag-encoded first (0, -1, 1, -2, ... become 0, 1, 2, 3,
...) so that small negative numbers stay short.

64 bits take at most ten bytes, and the tenth can only carry the top bit: a tenth byte other than ``0x00`` or
``0x01`` (so also one asking for an eleventh byte) is ``VARINT_TOO_LONG``. Rejecting it, instead of silently
dropping high bits as Java's reader does, turns a corrupt stream into an error at the byte where it went wrong.

Values are returned as the ``int64`` with the same 64 bits, so an unsigned value of 2**63 or more reads as a
negative number, exactly as Java's ``long`` holds it. Arithmetic stays in ``int64`` throughout: in Numba, mixing
``uint64`` with ``int64`` promotes to ``float64``.

Every byte read is checked against ``end`` and each value is at most ten bytes, so the loops always terminate.
Errors put the offset of the first byte of the failing varint in ``state[ERROR_POS]``.

Speed: one-byte varints (the common case for lengths, small counts and zigzagged small deltas) take a branch and a
store; longer ones an inner loop in the same function.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH, ERROR_POS, TRUNCATED, VARINT_TOO_LONG, check, new_state

__all__ = [
    "MAX_VARINT_BYTES",
    "as_buffer",
    "decode_svarints",
    "decode_uvarints",
    "read_uvarint",
    "skip_varints",
    "svarint_values",
    "uvarint_values",
    "zigzag",
]

MAX_VARINT_BYTES = 10

# all bits but the sign: masks the arithmetic shift of an int64 into a logical one
_LOW63 = 0x7FFFFFFFFFFFFFFF


@jit
def read_uvarint(buf, pos, end):  # type: ignore[no-untyped-def]
    """Read one varint at ``buf[pos]``: ``(value, new_pos)``, or ``(0, code)`` with a negative code.

    ``value`` is an int64 holding the uint64's bits. The caller owns ``state[ERROR_POS]`` (it knows whether the
    failing item is this varint or the run around it) and must check ``0 <= pos`` and ``end <= len(buf)``.

    For a varint now and then (a run's base). A call that passes ``buf`` costs an NRT incref/decref pair (seen in
    the generated code, even with Numba's inlining: reference-count pruning does not remove them across this
    function's branches), about 10 ns. Loops over many
    varints therefore write the loop out, as :func:`decode_uvarints` and :func:`skip_varints` do: 5x faster on
    4-byte varints.
    """
    if pos >= end:
        return np.int64(0), np.int64(TRUNCATED)
    b = np.int64(buf[pos])
    p = pos + 1
    value = b & 0x7F
    shift = 7
    while b >= 0x80:
        if p >= end:
            return np.int64(0), np.int64(TRUNCATED)
        b = np.int64(buf[p])
        p += 1
        if shift == 63:
            # the tenth byte: one payload bit left, and no continuation
            if b > 1:
                return np.int64(0), np.int64(VARINT_TOO_LONG)
            value |= b << 63
            break
        value |= (b & 0x7F) << shift
        shift += 7
    return value, np.int64(p)


@jit
def zigzag(u):  # type: ignore[no-untyped-def]
    """Undo zigzag encoding of the int64 ``u`` holding uint64 bits: 0, 1, 2, 3, ... become 0, -1, 1, -2, ..."""
    return ((u >> 1) & _LOW63) ^ -(u & 1)


@jit
def _decode(buf, pos, end, out, start, count, signed, state):  # type: ignore[no-untyped-def]
    # The varint loop is written out rather than calling read_uvarint: see its docstring.
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0 or start < 0 or count > out.shape[0] - start:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    for i in range(start, start + count):
        if pos >= end:
            state[ERROR_POS] = pos
            return TRUNCATED
        b = np.int64(buf[pos])
        if b < 0x80:
            out[i] = ((b >> 1) ^ -(b & 1)) if signed else b
            pos += 1
            continue
        p = pos + 1
        value = b & 0x7F
        shift = 7
        while b >= 0x80:
            if p >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            b = np.int64(buf[p])
            p += 1
            if shift == 63:
                if b > 1:
                    state[ERROR_POS] = pos
                    return VARINT_TOO_LONG
                value |= b << 63
                break
            value |= (b & 0x7F) << shift
            shift += 7
        out[i] = zigzag(value) if signed else value
        pos = p
    return pos


@jit
def decode_uvarints(buf, pos, end, out, start, count, state):  # type: ignore[no-untyped-def]
    """Decode ``count`` unsigned varints from ``buf[pos:end]`` into the int64 ``out[start:start + count]``.

    Returns the position after the last varint, or TRUNCATED / VARINT_TOO_LONG (``state[ERROR_POS]`` = the
    varint's first byte) / BAD_LENGTH (an impossible ``pos``, ``end``, ``start`` or ``count``).
    """
    return _decode(buf, pos, end, out, start, count, False, state)


@jit
def decode_svarints(buf, pos, end, out, start, count, state):  # type: ignore[no-untyped-def]
    """Decode ``count`` zigzag-encoded signed varints into the int64 ``out[start:start + count]``.

    Results and errors as :func:`decode_uvarints`.
    """
    return _decode(buf, pos, end, out, start, count, True, state)


@jit
def skip_varints(buf, pos, end, count, state):  # type: ignore[no-untyped-def]
    """Pass over ``count`` varints, checking them exactly as decoding would; return the position after them."""
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    for _ in range(count):
        if pos >= end:
            state[ERROR_POS] = pos
            return TRUNCATED
        b = buf[pos]
        p = pos + 1
        n = 1
        while b >= 0x80:
            if p >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            b = buf[p]
            p += 1
            n += 1
            if n == MAX_VARINT_BYTES:
                if b > 1:
                    state[ERROR_POS] = pos
                    return VARINT_TOO_LONG
                break
        pos = p
    return pos


def as_buffer(data: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
    """A read-only uint8 view of ``data``: kernels are compiled per array type, and read-only is what
    ``np.frombuffer`` gives for the bytes sources return, so one compiled variant serves every caller."""
    if isinstance(data, np.ndarray):
        arr = data.view(np.uint8).view()
        arr.flags.writeable = False
        return arr
    return np.frombuffer(data, dtype=np.uint8)


def uvarint_values(data: bytes | bytearray | memoryview | np.ndarray, count: int, what: str = "varints") -> np.ndarray:
    """Decode ``count`` unsigned varints from the start of ``data``; OrcError (naming ``what``) if it is corrupt."""
    out = np.empty(count, dtype=np.int64)
    state = new_state()
    buf = as_buffer(data)
    check(decode_uvarints(buf, 0, len(buf), out, 0, count, state), state, what)
    return out


def svarint_values(data: bytes | bytearray | memoryview | np.ndarray, count: int, what: str = "varints") -> np.ndarray:
    """Decode ``count`` zigzag-encoded signed varints from the start of ``data``; OrcError if it is corrupt."""
    out = np.empty(count, dtype=np.int64)
    state = new_state()
    buf = as_buffer(data)
    check(decode_svarints(buf, 0, len(buf), out, 0, count, state), state, what)
    return out
