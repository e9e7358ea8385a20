"""Boolean run-length encoding: PRESENT streams and boolean columns.

Booleans are packed eight to a byte, most significant bit first, and the bytes are byte-RLE encoded (see
:mod:`orcjit.kernels.byte_rle`): ``[0xff, 0x80]`` (a literal list of one byte, 0x80) is one true then seven false.
A stream's last byte is padded with zero bits.

Resuming at any bit (design)
----------------------------
The byte-RLE layer keeps its own slots (``state[PENDING]``, ``state[RUN_VALUE]``, ``state[IN_LITERALS]``, nothing
in ``scratch``, which is accepted and left untouched). On top of it, a byte whose bits were only partly delivered
is kept in ``state[CURRENT_BYTE]`` with ``state[BITS_LEFT]`` bits (its low ones) still to come. A call first
drains those bits, then expands whole bytes eight bits at a time, and takes one more byte for a final partial
byte.

Row-group seeks: the row index gives (byte-RLE position, bytes to skip, bits to skip). Start a fresh state at that
position and ``skip_boolean_rle(8 * bytes + bits)``: skipping whole bytes is the byte-RLE skip, and the leftover
bits land in ``CURRENT_BYTE``.

Errors are byte RLE's (TRUNCATED with ``state[ERROR_POS]`` at the run header or the first missing byte) plus
BAD_LENGTH for an impossible ``pos``, ``end``, ``start`` or ``count``.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .byte_rle import IN_LITERALS, NO_SCRATCH, RUN_VALUE
from .status import BAD_LENGTH, BITS_LEFT, CURRENT_BYTE, ERROR_POS, PENDING, TRUNCATED, check, new_state
from .varint import as_buffer

__all__ = ["boolean_rle_values", "decode_boolean_rle", "skip_boolean_rle"]

U64 = np.uint64


@jit
def decode_boolean_rle(buf, pos, end, out, start, count, state, scratch):  # type: ignore[no-untyped-def]
    """Decode ``count`` booleans into ``out[start:start + count]`` (bool, or uint8 receiving 0/1).

    Returns the position after the bytes consumed (``state`` remembers a partly used byte and group) or a
    negative code; see the module docstring.
    """
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0 or start < 0 or count > out.shape[0] - start:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    i = start
    stop = start + count
    bits = state[BITS_LEFT]
    cur = state[CURRENT_BYTE]
    pending = state[PENDING]
    value = state[RUN_VALUE]
    literals = state[IN_LITERALS]
    while i < stop:
        if bits > 0:
            # the bits left of a partly delivered byte: from an earlier call, or the last byte taken below
            while i < stop and bits > 0:
                bits -= 1
                out[i] = (cur >> bits) & 1
                i += 1
            continue
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
        left = stop - i
        if left < 8:
            # the last byte this call needs, only partly delivered: taken whole, its bits delivered above
            if literals:
                if pos >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                cur = np.int64(buf[pos])
                pos += 1
            else:
                cur = value
            pending -= 1
            bits = 8
            continue
        n = pending if pending < left >> 3 else left >> 3
        if literals:
            if n > end - pos:
                state[ERROR_POS] = end
                return TRUNCATED
            # unsigned indices: a signed one costs a negative-index check per store that keeps LLVM from
            # vectorizing; the loop over the eight bits is unrolled by the compiler
            src = U64(pos)
            at = U64(i)
            for k in range(n):
                b = buf[src + U64(k)]
                o = at + U64(8 * k)
                for t in range(8):
                    out[o + U64(t)] = (b >> (7 - t)) & 1
            pos += n
        elif value == 0 or value == 0xFF:
            bit = value & 1
            at = U64(i)
            for k in range(8 * n):
                out[at + U64(k)] = bit
        else:
            at = U64(i)
            for k in range(8 * n):
                out[at + U64(k)] = (value >> (7 - (k & 7))) & 1
        i += 8 * n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[IN_LITERALS] = literals
    state[BITS_LEFT] = bits
    state[CURRENT_BYTE] = cur
    return pos


@jit
def skip_boolean_rle(buf, pos, end, count, state, scratch):  # type: ignore[no-untyped-def]
    """Pass over ``count`` booleans, checking the stream as decoding would; return the new position."""
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    bits = state[BITS_LEFT]
    cur = state[CURRENT_BYTE]
    drained = min(max(bits, 0), count)
    bits -= drained
    left = count - drained
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
        if left < 8:
            if literals:
                if pos >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                cur = np.int64(buf[pos])
                pos += 1
            else:
                cur = value
            pending -= 1
            bits = 8 - left
            left = 0
            break
        n = min(pending, left >> 3)
        if literals:
            if n > end - pos:
                state[ERROR_POS] = end
                return TRUNCATED
            pos += n
        left -= 8 * n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[IN_LITERALS] = literals
    state[BITS_LEFT] = bits
    state[CURRENT_BYTE] = cur
    return pos


def boolean_rle_values(
    data: bytes | bytearray | memoryview | np.ndarray, count: int, what: str = "boolean RLE stream"
) -> np.ndarray:
    """Decode the first ``count`` booleans of a whole boolean-RLE stream; OrcError (naming ``what``) if the stream
    is corrupt or too short."""
    buf = as_buffer(data)
    out = np.empty(count, dtype=np.bool_)
    state = new_state()
    check(decode_boolean_rle(buf, 0, len(buf), out, 0, count, state, NO_SCRATCH), state, what)
    return out
