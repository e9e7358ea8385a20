"""Protobuf wire format, read by kernels: the messages ORC repeats per row group (row index entries, bloom filters).

The metadata messages of a file (postscript, footer, stripe footers) are few and go through the protobuf runtime.
The row index and bloom filter streams hold one message per row group, thousands per file; kernels walk those
directly, with the helpers here. Each helper takes the buffer, a position and the end of the enclosing message,
and returns a new position or a negative code from :mod:`orcjit.kernels.status`.

The helpers take no ``state`` array: an array written inside a helper called per field keeps Numba from
optimising the caller's loop (measured 12x slower on a row index). Callers note where the failing field started.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_HEADER, ERROR_POS, TRUNCATED, VARINT_TOO_LONG

__all__ = [
    "BYTES",
    "FIXED32",
    "FIXED64",
    "VARINT",
    "count_messages",
    "int32",
    "key",
    "skip",
    "span",
    "varint",
    "zigzag",
]

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


@jit
def varint(buf, pos, end):  # type: ignore[no-untyped-def]
    """``(value, new_pos)``: a varint of at most ten bytes, as the int64 with its bits."""
    result = np.int64(0)
    shift = 0
    while True:
        if pos >= end:
            return result, TRUNCATED
        byte = np.int64(buf[pos])
        pos += 1
        if shift == 63 and byte > 1:
            return result, VARINT_TOO_LONG
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            return result, VARINT_TOO_LONG


@jit
def skip(buf, pos, end, wire):  # type: ignore[no-untyped-def]
    """Skip one field's value of wire type ``wire`` at ``pos``: the position after it, or an error code."""
    if wire == VARINT:
        _, pos = varint(buf, pos, end)
        return pos
    if wire in (FIXED64, FIXED32):
        size = 8 if wire == FIXED64 else 4
        return pos + size if pos + size <= end else TRUNCATED
    if wire == BYTES:
        _, stop = span(buf, pos, end)
        return stop
    return BAD_HEADER  # groups (3, 4) and wire types 6, 7


@jit
def key(buf, pos, end):  # type: ignore[no-untyped-def]
    """``(field, wire, new_pos)`` of the key at ``pos``."""
    start = pos
    value, pos = varint(buf, pos, end)
    if pos < 0:
        return 0, 0, pos
    field = (value >> 3) & 0x1FFFFFFFFFFFFFFF
    if field == 0 or field > 536870911 or pos - start > 5:  # the runtime reads keys of at most five bytes
        return 0, 0, BAD_HEADER
    return field, value & 7, pos


@jit
def span(buf, pos, end):  # type: ignore[no-untyped-def]
    """``(start, stop)`` of the length-delimited value at ``pos``; ``stop < 0`` is an error code."""
    start = pos
    length, pos = varint(buf, pos, end)
    if pos < 0:
        return 0, pos
    if pos - start > 5:  # a length is an int32 to the runtime: five bytes at most
        return 0, BAD_HEADER
    if length < 0 or length > end - pos:
        return 0, TRUNCATED
    return pos, pos + length


@jit
def zigzag(v):  # type: ignore[no-untyped-def]
    return ((v >> 1) & 0x7FFFFFFFFFFFFFFF) ^ -(v & 1)


@jit
def int32(v):  # type: ignore[no-untyped-def]
    low = v & 0xFFFFFFFF
    return low - 0x100000000 if low >= 0x80000000 else low


@jit
def count_messages(buf, field, state):  # type: ignore[no-untyped-def]
    """How many length-delimited ``field`` values the message ``buf`` holds at its top level (the entries of a
    RowIndex or a BloomFilterIndex), or a negative code with the failing field's offset in ``state``."""
    pos = 0
    end = buf.size
    n = 0
    while pos < end:
        at = pos
        number, wire, pos = key(buf, pos, end)
        if pos >= 0:
            if number == field and wire == BYTES:
                n += 1
            pos = skip(buf, pos, end, wire)
        if pos < 0:
            state[ERROR_POS] = at
            return pos
    return n
