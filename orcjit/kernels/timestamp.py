"""TIMESTAMP columns: seconds from 2015 in DATA, nanoseconds with their trailing zeros encoded in SECONDARY.

DATA holds each value's seconds since the writer's 2015-01-01 00:00:00 as a signed RLE integer; SECONDARY holds its
nanoseconds as an "unsigned" RLE integer ``n`` whose low three bits ``z`` count removed trailing decimal zeros:
nanoseconds are ``n >> 3`` when ``z == 0`` and ``(n >> 3) * 10 ** (z + 1)`` otherwise.

How real writers and readers treat times before 1970, found with files written by ORC Java 2.3 (through Spark),
ORC C++ 2.2 (pyarrow, pyorc) and the ORC examples (``tests/test_kernels_timestamp.py`` holds the evidence):

- ORC Java computes the seconds as ``millis / 1000`` truncated toward zero, so a value before 1970 with a non-zero
  millisecond part is stored one second too large; ORC C++ copies this (``if secs < 0 and nanos > 999999: secs +=
  1``). Readers of both undo it: with ``s`` the stored seconds plus the writer's 2015 epoch (seconds since 1970),
  ``if s < 0 and nanos > 999999: s -= 1``. Values in the last second before 1970 (``-1 < t < 0``) are stored with
  ``s == 0`` and read back one second late by every reader; :func:`combine_timestamp` reads them as they do.
- pyarrow's writer splits negative nanoseconds-since-epoch by truncation, giving negative nanoseconds
  (``-0.5 s`` is seconds 0, nanos ``-500000000``). They go through the encoding as a negative 64-bit number (the
  "unsigned" stream holds its two's complement), ORC C++ reads them with an arithmetic shift, and the value
  comes back exactly. :func:`decode_nanos` does the same, so nanoseconds lie in ``-999999999 .. 999999999``.

``epoch_offset`` is the writer's 2015-01-01 00:00:00 in seconds since 1970: 1420070400 for UTC and for
``timestamp with local time zone`` columns (always UTC), or the writer time zone's (1420099200 for
America/Los_Angeles) so that the result is that zone's UTC instant; the reader adjusts to its own zone after.

DATE columns need no kernel: DATA is signed days since 1970-01-01 from the integer RLE decoders, and
``days.astype("datetime64[D]")`` is the whole conversion.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH, BAD_VALUE, OVERFLOW

__all__ = ["UTC_EPOCH_2015", "combine_timestamp", "decode_nanos"]

# 2015-01-01 00:00:00 UTC in seconds since 1970-01-01
UTC_EPOCH_2015 = 1420070400

_NANOS = 1_000_000_000
_MAX_NANOS = 999_999_999
_INT64_MAX = np.iinfo(np.int64).max
# np.datetime64's NaT is -2**63, so results stop one above it
_INT64_MIN_VALID = -_INT64_MAX
# seconds within this bound give nanoseconds that fit int64 whatever the (valid) nanoseconds are
_SAFE_SECONDS = _INT64_MAX // _NANOS - 1
# seconds within this bound can have any epoch offset added without overflow
_SECONDS_BOUND = 1 << 62
# the factor that restores z removed trailing zeros: 10**(z + 1) for z = 1 .. 7, and 1 for z = 0
_ZEROS_SCALE = np.array([1, 100, 1000, 10**4, 10**5, 10**6, 10**7, 10**8], dtype=np.int64)
# the largest magnitude before scaling that stays a nanosecond count; a table, as a division per value by a
# divisor the compiler cannot see costs more than the rest of the decoding
_ZEROS_LIMIT = _MAX_NANOS // _ZEROS_SCALE


@jit
def decode_nanos(encoded, out):
    """Decode SECONDARY values into nanoseconds: ``out[i]`` for ``encoded[i]``.

    Returns the number of values, BAD_LENGTH if ``out`` is shorter than ``encoded``, or BAD_VALUE if a value is
    not a nanosecond count within ``±999999999``.
    """
    n = encoded.shape[0]
    if out.shape[0] < n:
        return BAD_LENGTH
    for i in range(n):
        # the low three bits count removed zeros; the shift is arithmetic, so that negative nanoseconds written by
        # pyarrow come back negative, as ORC C++ reads them
        v = np.int64(encoded[i])
        zeros = v & 7
        nanos = v >> 3
        limit = _ZEROS_LIMIT[zeros]
        # checked before multiplying, so that no product can wrap around int64
        if nanos > limit or nanos < -limit:
            return BAD_VALUE
        out[i] = nanos * _ZEROS_SCALE[zeros]
    return n


@jit
def combine_timestamp(seconds, nanos_encoded, out_ns, epoch_offset):
    """Combine DATA seconds and SECONDARY values into int64 nanoseconds since 1970-01-01 00:00:00 UTC.

    ``out_ns[i] = (seconds[i] + epoch_offset - c) * 10**9 + nanos`` where ``c`` is 1 for the stored values ORC
    writers rounded toward zero (``seconds[i] + epoch_offset < 0`` and ``nanos > 999999``; see the module) and 0
    otherwise. Returns the number of values, BAD_LENGTH (arrays of different lengths, or ``out_ns`` too short),
    BAD_VALUE (a SECONDARY value that is no nanosecond count) or OVERFLOW (a time outside what int64 nanoseconds
    hold, about 1677-09-21 .. 2262-04-11; the smallest int64, which numpy reads as NaT, counts as outside).
    """
    n = seconds.shape[0]
    if nanos_encoded.shape[0] != n or out_ns.shape[0] < n:
        return BAD_LENGTH
    offset = np.int64(epoch_offset)
    if offset > _SECONDS_BOUND or offset < -_SECONDS_BOUND:
        return OVERFLOW
    for i in range(n):
        # the nanoseconds as decode_nanos decodes them (written out here: a helper is one more compilation)
        v = np.int64(nanos_encoded[i])
        zeros = v & 7
        nanos = v >> 3
        limit = _ZEROS_LIMIT[zeros]
        if nanos > limit or nanos < -limit:
            return BAD_VALUE
        nanos *= _ZEROS_SCALE[zeros]
        s = np.int64(seconds[i])
        if s > _SECONDS_BOUND or s < -_SECONDS_BOUND:
            return OVERFLOW
        s += offset
        if s < 0 and nanos > 999_999:
            s -= 1
        if -_SAFE_SECONDS < s < _SAFE_SECONDS:
            out_ns[i] = s * _NANOS + nanos
        # beyond: s * 10**9 + nanos, exactly: split off one second so that the product cannot overflow on its own
        elif s > 0:
            if s - 1 > _INT64_MAX // _NANOS:
                return OVERFLOW
            base = (s - 1) * _NANOS
            rest = nanos + _NANOS
            if base > _INT64_MAX - rest:
                return OVERFLOW
            out_ns[i] = base + rest
        elif s < 0:
            if s + 1 < -(_INT64_MAX // _NANOS):
                return OVERFLOW
            base = (s + 1) * _NANOS
            rest = nanos - _NANOS
            if base < _INT64_MIN_VALID - rest:
                return OVERFLOW
            out_ns[i] = base + rest
        else:
            out_ns[i] = nanos
    return n
