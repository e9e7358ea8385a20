"""RLE v2: read each run's header, decode the run, and keep what the caller did not ask for.

A run lands straight in ``out`` when the caller wants all of it; otherwise it is decoded into ``scratch`` and the
remainder is delivered by the next call (``state[PENDING]`` values from ``state[SCRATCH_POS]``).

Short repeats, direct runs and delta runs are decoded in the run loop itself, into whichever of ``out`` and
``scratch`` the run lands in, rather than by one function per sub-encoding: each call between compiled functions
that passes arrays costs an NRT incref/decref pair per array (about 40 ns for a call passing two), more than a run
of a few values takes to decode (writing them out here took the LENGTH stream of 10M short unique strings, runs of
2-15 values, from 75 to 500 M values/s); and each compiled function is one more compilation in a new environment
(about 0.1 s however small, and its code optimised again inside every caller). Patched-base runs, long and rare,
and the packed deltas of delta runs are decoded by their modules.

Loops index with unsigned integers: Numba checks a signed index for negative values on every access, which keeps
LLVM from merging byte loads and from vectorizing stores.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..bitpack import WIDTHS, load_be64, unpack_values
from ..status import BAD_LENGTH, ERROR_POS, PENDING, SCRATCH_POS, SCRATCH_SIZE, TRUNCATED
from .delta import delta_header, delta_values, skip_delta
from .direct import skip_direct
from .patched_base import decode_patched_base, skip_patched_base
from .short_repeat import skip_short_repeat

SHORT_REPEAT, DIRECT, PATCHED_BASE, DELTA = 0, 1, 2, 3
U64 = np.uint64


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
    if state[PENDING] > 0 and not 0 <= state[SCRATCH_POS] <= SCRATCH_SIZE - state[PENDING]:
        # a state this decoder did not leave: pending values it would read from outside scratch
        state[ERROR_POS] = pos
        return BAD_LENGTH
    i = start
    stop = start + count
    zz = U64(1 if signed else 0)  # zigzag without a branch: a shift and a mask
    while True:
        pending = state[PENDING]
        if pending > 0:
            # values of a run that this call or an earlier one stopped inside of
            take = pending if pending < stop - i else stop - i
            s = state[SCRATCH_POS]
            src = U64(s)
            at = U64(i)
            for k in range(take):
                out[at + U64(k)] = scratch[src + U64(k)]
            state[PENDING] = pending - take
            state[SCRATCH_POS] = s + take
            i += take
        if i >= stop:
            return pos
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
        # the run lands in out when the caller wants all of it, else in scratch for the loop's top to deliver
        whole = n <= stop - i
        dst = out if whole else scratch
        first = i if whole else 0
        if encoding == SHORT_REPEAT:
            width = ((header >> 3) & 7) + 1
            if pos + 1 + width > end:
                state[ERROR_POS] = pos
                return TRUNCATED
            u = U64(0)
            for k in range(width):
                u = (u << U64(8)) | U64(buf[pos + 1 + k])
            value = np.int64(u >> zz) ^ -np.int64(u & zz)
            at = U64(first)
            for k in range(n):
                dst[at + U64(k)] = value
            pos += 1 + width
        elif encoding == DIRECT:
            width = WIDTHS[(header >> 1) & 31]
            stop_run = pos + 2 + ((n * width + 7) >> 3)
            if stop_run + 7 <= end:
                # unpack_values' loop: one 8-byte load per value (the run's last bytes within 8 of the buffer's
                # end go through unpack_values, which reads them byte by byte)
                w = U64(width)
                shift = U64(64 - width)
                base = U64(pos + 2)
                at = U64(first)
                for k in range(n):
                    uk = U64(k)
                    b = uk * w
                    u = (load_be64(buf, base + (b >> U64(3))) << (b & U64(7))) >> shift
                    dst[at + uk] = np.int64(u >> zz) ^ -np.int64(u & zz)
                pos = stop_run
            else:
                p = unpack_values(buf, pos + 2, end, width, n, dst, first, np.int64(zz), np.int64(0))
                if p < 0:
                    state[ERROR_POS] = pos
                    return p
                pos = p
        elif encoding == PATCHED_BASE:
            pos = decode_patched_base(buf, pos, end, dst, first, signed, state)
            if pos < 0:
                return pos
        else:
            width, _, base, delta, p = delta_header(buf, pos, end, signed)
            if p >= 0:
                if width == 0:
                    # one repeated step: base, base + delta, ... (wrapping as repeated addition does)
                    at = U64(first)
                    for k in range(n):
                        dst[at + U64(k)] = base + k * delta
                else:
                    p = delta_values(buf, p, end, width, n, dst, first, base, delta)
            if p < 0:
                state[ERROR_POS] = pos
                return p
            pos = p
        if whole:
            i += n
        else:
            state[PENDING] = n
            state[SCRATCH_POS] = 0


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
            # the run the skip ends in: decoded into scratch with its first values "delivered" onto themselves
            # (out is scratch, from index 0), the rest kept pending; a throwaway array instead would make loading
            # this kernel from the cache import Numba's array module
            pos = decode_rle_v2(buf, pos, end, scratch, np.int64(0), left, signed, state, scratch)
            if pos < 0:
                return pos
            left = 0
    return pos
