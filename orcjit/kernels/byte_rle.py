"""Byte run-length encoding: tinyint columns, and (under boolean RLE) every PRESENT stream and boolean column.

The stream is a sequence of groups, each opened by a header byte ``h``:

- ``h`` in 0..127: a *run* of ``h + 3`` copies (3..130) of the one byte that follows;
- ``h`` in 128..255 (-128..-1 as a signed byte): a *literal list* of ``256 - h`` bytes (1..128) that follow.

Every header byte is valid, so this decoder never reports BAD_HEADER; corruption shows up as TRUNCATED.

Resuming mid-group (design)
---------------------------
A call may stop inside a group. Nothing is copied to ``scratch`` (it is accepted for a uniform signature and left
untouched): a run is fully described by its byte, and the rest of a literal list is still in ``buf`` right where
the returned position points. So the state is three slots:

- ``state[PENDING]``: values of the current group not yet delivered (0: the next byte is a header);
- ``state[RUN_VALUE]`` (slot 5): the repeated byte of the current run;
- ``state[IN_LITERALS]`` (slot 7): 1 while the current group is a literal list, whose next byte is at ``pos``.

The next call must therefore pass the same stream bytes with ``pos`` = the position this call returned.

Errors: TRUNCATED with ``state[ERROR_POS]`` = the run's header when a run's byte is missing, or the offset of the
first missing byte (the header itself, or a literal byte) otherwise; BAD_LENGTH for an impossible ``pos``,
``end``, ``start`` or ``count``. Header parsing is written out in each kernel rather than shared through a helper:
a helper taking ``buf`` costs an NRT incref/decref pair per group (see
:func:`orcjit.kernels.varint.read_uvarint`), which is more than a short group takes to decode.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH, ERROR_POS, PENDING, TRUNCATED, check, new_state
from .varint import as_buffer

__all__ = ["IN_LITERALS", "RUN_VALUE", "byte_rle_values", "decode_byte_rle", "skip_byte_rle"]

RUN_VALUE = 5  # the current run's repeated value
IN_LITERALS = 7  # 1 while the current group is a literal list read in place from buf

# byte RLE keeps no values in scratch; the Python wrappers pass this empty one
NO_SCRATCH = np.zeros(0, dtype=np.int64)


@jit
def decode_byte_rle(buf, pos, end, out, start, count, state, scratch):  # type: ignore[no-untyped-def]
    """Decode ``count`` bytes of a byte-RLE stream into ``out[start:start + count]`` (uint8 or int8).

    Returns the position after the bytes consumed (possibly inside a group: ``state`` remembers it) or a negative
    code; see the module docstring.
    """
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0 or start < 0 or count > out.shape[0] - start:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    i = start
    stop = start + count
    pending = state[PENDING]
    value = state[RUN_VALUE]
    literals = state[IN_LITERALS]
    while i < stop:
        if pending <= 0:
            if pos >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            h = np.int64(buf[pos])
            if h < 0x80:
                if pos + 1 >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                value = np.int64(buf[pos + 1])
                pending = h + 3
                literals = 0
                pos += 2
            else:
                pending = 256 - h
                literals = 1
                pos += 1
        n = min(pending, stop - i)
        # unsigned indices: a signed one costs a negative-index check per byte that keeps LLVM from vectorizing
        at = np.uint64(i)
        if literals:
            if n > end - pos:
                state[ERROR_POS] = end
                return TRUNCATED
            src = np.uint64(pos)
            for k in range(n):
                out[at + np.uint64(k)] = buf[src + np.uint64(k)]
            pos += n
        else:
            for k in range(n):
                out[at + np.uint64(k)] = value
        i += n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[IN_LITERALS] = literals
    return pos


@jit
def skip_byte_rle(buf, pos, end, count, state, scratch):  # type: ignore[no-untyped-def]
    """Pass over ``count`` values, checking the stream as decoding would; return the new position."""
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    left = count
    pending = state[PENDING]
    value = state[RUN_VALUE]
    literals = state[IN_LITERALS]
    while left > 0:
        if pending <= 0:
            if pos >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            h = np.int64(buf[pos])
            if h < 0x80:
                if pos + 1 >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                value = np.int64(buf[pos + 1])
                pending = h + 3
                literals = 0
                pos += 2
            else:
                pending = 256 - h
                literals = 1
                pos += 1
        n = min(pending, left)
        if literals:
            if n > end - pos:
                state[ERROR_POS] = end
                return TRUNCATED
            pos += n
        left -= n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[IN_LITERALS] = literals
    return pos


def byte_rle_values(
    data: bytes | bytearray | memoryview | np.ndarray, count: int, what: str = "byte RLE stream"
) -> np.ndarray:
    """Decode the first ``count`` values of a whole byte-RLE stream to uint8; OrcError (naming ``what``) if the
    stream is corrupt or too short."""
    buf = as_buffer(data)
    out = np.empty(count, dtype=np.uint8)
    state = new_state()
    check(decode_byte_rle(buf, 0, len(buf), out, 0, count, state, NO_SCRATCH), state, what)
    return out
