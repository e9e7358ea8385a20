"""RLE v2: read each run's header, hand the run to its sub-encoding, and keep what the caller did not ask for.

A run lands straight in ``out`` when the caller wants all of it; otherwise it is decoded into ``scratch`` and the
remainder is delivered by the next call (``state[PENDING]`` values from ``state[SCRATCH_POS]``).

The run loop reads headers and dispatches in place rather than through helper functions: each call between
compiled functions that passes arrays costs reference-count updates, which made 6-value short-repeat runs twice as
slow when the header was read by one helper and the dispatch done by another.
"""

from __future__ import annotations

from ..._jit import jit
from ..status import BAD_LENGTH, ERROR_POS, PENDING, SCRATCH_POS, SCRATCH_SIZE, TRUNCATED
from .delta import decode_delta, skip_delta
from .direct import decode_direct, skip_direct
from .patched_base import decode_patched_base, skip_patched_base
from .short_repeat import decode_short_repeat, skip_short_repeat

SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA = 0, 1, 2, 3


@jit
def _take_pending(out, start, count, state, scratch):  # type: ignore[no-untyped-def]
    # deliver up to count pending values to out[start:]; return how many
    take = min(state[PENDING], count)
    s = state[SCRATCH_POS]
    for i in range(take):
        out[start + i] = scratch[s + i]
    state[PENDING] -= take
    state[SCRATCH_POS] = s + take
    return take


@jit
def decode_rle_v2(buf, pos, end, out, start, count, signed, state, scratch):  # type: ignore[no-untyped-def]
    """Decode ``count`` values of an RLE v2 stream into ``out[start:start + count]`` (int64).

    Parameters
    ----------
    buf : uint8 array (read-only)
    pos, end : int
        The bytes that may be read: ``buf[pos:end]``.
    out : int64 array (contiguous)
    start, count : int
    signed : bool
        Whether values are zigzag-encoded (signed integer columns) or not (lengths, dictionary ids).
    state, scratch : int64 arrays
        ``status.new_state()`` and ``SCRATCH_SIZE`` values, kept between calls on the same stream.

    Returns
    -------
    int
        The byte position after the last run touched, or a negative status code.
    """
    if count < 0 or start < 0 or start + count > len(out) or len(scratch) < SCRATCH_SIZE or pos < 0 or end > len(buf):
        state[ERROR_POS] = pos
        return BAD_LENGTH
    i = start
    stop = start + count
    if state[PENDING] > 0:
        i += _take_pending(out, i, count, state, scratch)
    while i < stop:
        if pos >= end:
            state[ERROR_POS] = pos
            return TRUNCATED
        header = buf[pos]
        encoding = header >> 6
        if encoding == SHORT_REPEAT:
            n = (header & 7) + 3
        elif pos + 2 > end:
            state[ERROR_POS] = pos
            return TRUNCATED
        else:
            n = (((header & 1) << 8) | buf[pos + 1]) + 1
        whole = n <= stop - i
        target = out if whole else scratch
        at = i if whole else 0
        if encoding == SHORT_REPEAT:
            pos = decode_short_repeat(buf, pos, end, target, at, signed, state)
        elif encoding == DIRECT:
            pos = decode_direct(buf, pos, end, target, at, signed, state)
        elif encoding == PATCHED_BASE:
            pos = decode_patched_base(buf, pos, end, target, at, signed, state)
        else:
            pos = decode_delta(buf, pos, end, target, at, signed, state)
        if pos < 0:
            return pos
        if whole:
            i += n
        else:
            state[PENDING] = n
            state[SCRATCH_POS] = 0
            i += _take_pending(out, i, stop - i, state, scratch)
    return pos


@jit
def skip_rle_v2(buf, pos, end, count, signed, state, scratch):  # type: ignore[no-untyped-def]
    """Pass over ``count`` values without decoding the runs skipped whole; return the new position."""
    if count < 0 or len(scratch) < SCRATCH_SIZE or pos < 0 or end > len(buf):
        state[ERROR_POS] = pos
        return BAD_LENGTH
    left = count
    if state[PENDING] > 0:
        take = min(state[PENDING], left)
        state[PENDING] -= take
        state[SCRATCH_POS] += take
        left -= take
    while left > 0:
        if pos >= end:
            state[ERROR_POS] = pos
            return TRUNCATED
        header = buf[pos]
        encoding = header >> 6
        if encoding == SHORT_REPEAT:
            n = (header & 7) + 3
        elif pos + 2 > end:
            state[ERROR_POS] = pos
            return TRUNCATED
        else:
            n = (((header & 1) << 8) | buf[pos + 1]) + 1
        if n <= left:
            if encoding == SHORT_REPEAT:
                pos = skip_short_repeat(buf, pos, end, state)
            elif encoding == DIRECT:
                pos = skip_direct(buf, pos, end, state)
            elif encoding == PATCHED_BASE:
                pos = skip_patched_base(buf, pos, end, state)
            else:
                pos = skip_delta(buf, pos, end, state)
            if pos < 0:
                return pos
            left -= n
        else:
            # the run the skip ends in: decode it whole and keep the rest for the next decode
            if encoding == SHORT_REPEAT:
                pos = decode_short_repeat(buf, pos, end, scratch, 0, signed, state)
            elif encoding == DIRECT:
                pos = decode_direct(buf, pos, end, scratch, 0, signed, state)
            elif encoding == PATCHED_BASE:
                pos = decode_patched_base(buf, pos, end, scratch, 0, signed, state)
            else:
                pos = decode_delta(buf, pos, end, scratch, 0, signed, state)
            if pos < 0:
                return pos
            state[PENDING] = n - left
            state[SCRATCH_POS] = left
            left = 0
    return pos
