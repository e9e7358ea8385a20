"""Integer run-length encoding, version 1: the integer streams of Hive 0.11 files (``DIRECT`` / ``DICTIONARY``
column encodings).

The stream is a sequence of groups, each opened by a header byte ``h``:

- ``h`` in 0..127: a *run* of ``h + 3`` values (3..130). A signed byte follows, the delta (-128..127, never
  zigzagged), then a varint, the first value. Value ``k`` of the run is ``first + k * delta``, wrapping like Java's
  ``long`` arithmetic (in int64, repeated addition wraps exactly as the multiplication does).
- ``h`` in 128..255 (-128..-1): a *literal list* of ``256 - h`` varints (1..128).

Signed streams zigzag-encode the run's first value and every literal; unsigned streams (lengths, dictionary ids)
return the uint64's bits as int64.

Resuming mid-group (design)
---------------------------
No values go to ``scratch`` (accepted for a uniform signature, left untouched): a run is fully described by its
next value and its delta, and the rest of a literal list is still in ``buf`` at the returned position. State:

- ``state[PENDING]``: values of the current group not yet delivered (0: the next byte is a header);
- ``state[RUN_VALUE]`` (slot 5): the next value of the current run;
- ``state[RUN_DELTA]`` (slot 6): its delta;
- ``state[IN_LITERALS]`` (slot 7): 1 while the current group is a literal list, whose next varint is at ``pos``.

Errors, with ``state[ERROR_POS]``: TRUNCATED at the run's header when its delta or first value is cut off, or at
the varint (or missing header) where the bytes end; VARINT_TOO_LONG at the run's header or the literal varint;
BAD_LENGTH for an impossible ``pos``, ``end``, ``start`` or ``count``. Every header byte is valid, so no
BAD_HEADER. The varint loops are written out in place rather than calling ``read_uvarint``: a helper taking
``buf`` costs an NRT incref/decref pair per use (see
:func:`orcjit.kernels.varint.read_uvarint`), more than decoding a short varint.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .byte_rle import IN_LITERALS, NO_SCRATCH, RUN_VALUE
from .status import BAD_LENGTH, ERROR_POS, PENDING, TRUNCATED, VARINT_TOO_LONG, check, new_state
from .varint import as_buffer

__all__ = ["IN_LITERALS", "RUN_DELTA", "RUN_VALUE", "decode_rle_v1", "rle_v1_values", "skip_rle_v1"]

RUN_DELTA = 6  # the current run's delta

# all bits but the sign: masks the arithmetic shift of an int64 into a logical one (zigzag)
_LOW63 = 0x7FFFFFFFFFFFFFFF


@jit
def decode_rle_v1(buf, pos, end, out, start, count, signed, state, scratch):  # type: ignore[no-untyped-def]
    """Decode ``count`` values of an RLE v1 stream into the int64 ``out[start:start + count]``.

    ``signed``: zigzag varints (signed integer columns) or plain ones (lengths, dictionary ids). Returns the
    position after the bytes consumed (``state`` remembers a partly delivered group) or a negative code; see the
    module docstring.
    """
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0 or start < 0 or count > out.shape[0] - start:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    i = start
    stop = start + count
    pending = state[PENDING]
    value = state[RUN_VALUE]
    delta = state[RUN_DELTA]
    literals = state[IN_LITERALS]
    while i < stop:
        if pending <= 0:
            if pos >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            h = np.int64(buf[pos])
            if h >= 0x80:
                pending = 256 - h
                literals = 1
                pos += 1
            else:
                # run: delta byte, then the first value as a varint; errors point at the header
                if pos + 2 >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                d = np.int64(buf[pos + 1])
                delta = d - 256 if d >= 0x80 else d
                p = pos + 2
                b = np.int64(buf[p])
                p += 1
                v = b & 0x7F
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
                        v |= b << 63
                        break
                    v |= (b & 0x7F) << shift
                    shift += 7
                value = (((v >> 1) & _LOW63) ^ -(v & 1)) if signed else v
                pending = h + 3
                literals = 0
                pos = p
        n = min(pending, stop - i)
        if literals:
            for k in range(i, i + n):
                if pos >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                b = np.int64(buf[pos])
                if b < 0x80:
                    out[k] = ((b >> 1) ^ -(b & 1)) if signed else b
                    pos += 1
                    continue
                p = pos + 1
                v = b & 0x7F
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
                        v |= b << 63
                        break
                    v |= (b & 0x7F) << shift
                    shift += 7
                out[k] = (((v >> 1) & _LOW63) ^ -(v & 1)) if signed else v
                pos = p
        else:
            for k in range(i, i + n):
                out[k] = value
                value += delta
        i += n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[RUN_DELTA] = delta
    state[IN_LITERALS] = literals
    return pos


@jit
def skip_rle_v1(buf, pos, end, count, signed, state, scratch):  # type: ignore[no-untyped-def]
    """Pass over ``count`` values, checking the stream as decoding would; return the new position.

    ``signed`` matters because a run's next value is kept in ``state`` for a following decode.
    """
    if pos < 0 or pos > end or end > buf.shape[0] or count < 0:
        state[ERROR_POS] = pos
        return BAD_LENGTH
    left = count
    pending = state[PENDING]
    value = state[RUN_VALUE]
    delta = state[RUN_DELTA]
    literals = state[IN_LITERALS]
    while left > 0:
        if pending <= 0:
            if pos >= end:
                state[ERROR_POS] = pos
                return TRUNCATED
            h = np.int64(buf[pos])
            if h >= 0x80:
                pending = 256 - h
                literals = 1
                pos += 1
            else:
                if pos + 2 >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                d = np.int64(buf[pos + 1])
                delta = d - 256 if d >= 0x80 else d
                p = pos + 2
                b = np.int64(buf[p])
                p += 1
                v = b & 0x7F
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
                        v |= b << 63
                        break
                    v |= (b & 0x7F) << shift
                    shift += 7
                value = (((v >> 1) & _LOW63) ^ -(v & 1)) if signed else v
                pending = h + 3
                literals = 0
                pos = p
        n = min(pending, left)
        if literals:
            for _ in range(n):
                if pos >= end:
                    state[ERROR_POS] = pos
                    return TRUNCATED
                b = np.int64(buf[pos])
                p = pos + 1
                nbytes = 1
                while b >= 0x80:
                    if p >= end:
                        state[ERROR_POS] = pos
                        return TRUNCATED
                    b = np.int64(buf[p])
                    p += 1
                    nbytes += 1
                    if nbytes == 10:
                        if b > 1:
                            state[ERROR_POS] = pos
                            return VARINT_TOO_LONG
                        break
                pos = p
        else:
            value += delta * n
        left -= n
        pending -= n
    state[PENDING] = pending
    state[RUN_VALUE] = value
    state[RUN_DELTA] = delta
    state[IN_LITERALS] = literals
    return pos


def rle_v1_values(
    data: bytes | bytearray | memoryview | np.ndarray, count: int, signed: bool, what: str = "RLE v1 stream"
) -> np.ndarray:
    """Decode the first ``count`` values of a whole RLE v1 stream to int64; OrcError (naming ``what``) if the
    stream is corrupt or too short."""
    buf = as_buffer(data)
    out = np.empty(count, dtype=np.int64)
    state = new_state()
    check(decode_rle_v1(buf, 0, len(buf), out, 0, count, bool(signed), state, NO_SCRATCH), state, what)
    return out
