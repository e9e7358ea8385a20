"""UTF-8 validation of string columns.

ORC string columns are bytes that writers promise are UTF-8, and a corrupt or hostile file can break the promise.
pandas' ``str`` dtype and Arrow's ``string`` type both assume valid UTF-8 and fail later, far from the file, when
it is not (pyarrow's ``to_pandas`` raises "Wrapping ... failed"); so string columns are checked as they are decoded
and a bad value becomes an OrcError naming the column and the value.

Each string is checked on its own, because a sequence split between two neighbours is invalid in both even though
their concatenation is valid. Data that is all ASCII, by far the common case, is recognised by one vectorized pass
and needs no per-string work.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..errors import OrcError

__all__ = ["check_utf8", "first_invalid", "valid_utf8"]


@jit
def valid_utf8(data, start, stop):  # type: ignore[no-untyped-def]
    """Whether ``data[start:stop]`` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF)."""
    pos = start
    while pos < stop:
        b = data[pos]
        if b < 0x80:
            pos += 1
            continue
        if 0xC2 <= b <= 0xDF:
            need = 1
            low, high = 0x80, 0xBF
        elif 0xE0 <= b <= 0xEF:
            need = 2
            low = 0xA0 if b == 0xE0 else 0x80  # E0 80..9F would be overlong
            high = 0x9F if b == 0xED else 0xBF  # ED A0..BF would be a surrogate
        elif 0xF0 <= b <= 0xF4:
            need = 3
            low = 0x90 if b == 0xF0 else 0x80  # F0 80..8F would be overlong
            high = 0x8F if b == 0xF4 else 0xBF  # F4 90.. would be past U+10FFFF
        else:
            return False
        if pos + need >= stop:
            return False
        second = data[pos + 1]
        if second < low or second > high:
            return False
        for k in range(2, need + 1):
            if data[pos + k] & 0xC0 != 0x80:
                return False
        pos += need + 1
    return True


@jit
def first_invalid(offsets, data):  # type: ignore[no-untyped-def]
    """The index of the first string (``data[offsets[i]:offsets[i + 1]]``) that is not valid UTF-8, or -1.

    Valid means well-formed: no overlongs, surrogates or code points past U+10FFFF. Offsets are trusted to be
    non-decreasing and within ``data``; the callers check that first. Strings are checked by :func:`valid_utf8`,
    which the row index's string statistics share (:mod:`orcjit.kernels.row_index`).
    """
    n = len(offsets) - 1
    if n <= 0:
        return -1
    # all ASCII: an OR over blocks of bytes, which the compiler turns into vector instructions; a block with a high
    # bit ends it
    pos = offsets[0]
    stop = offsets[n]
    while pos < stop:
        end = min(pos + 4096, stop)
        acc = 0
        for i in range(pos, end):
            acc |= data[i]
        if acc & 0x80:
            break
        pos = end
    if pos >= stop:
        return -1
    for i in range(n):
        if not valid_utf8(data, offsets[i], offsets[i + 1]):
            return i
    return -1


def check_utf8(offsets: np.ndarray, data: np.ndarray, what: str, item: str = "value") -> None:
    """Raise OrcError naming ``what`` and the string's position (``item`` says what the strings are: values in
    row order, or dictionary entries) when a string is not valid UTF-8.

    All-ASCII bytes are recognised by NumPy's maximum (about 20 GB/s, as fast as the kernel's own scan), so a read
    whose strings are all ASCII never compiles :func:`first_invalid` and :func:`valid_utf8` (about 0.5 s of a new
    environment's first read); only bytes with a high bit set go through them.
    """
    n = len(offsets) - 1
    if n <= 0:
        return
    start, stop = int(offsets[0]), int(offsets[n])
    if stop <= start or int(data[start:stop].max()) < 0x80:
        return
    bad = first_invalid(offsets, data)
    if bad < 0:
        return
    start, stop = int(offsets[bad]), int(offsets[bad + 1])
    sample = bytes(data[start : min(stop, start + 24)])
    raise OrcError(f"{what}: {item} {bad} is not valid UTF-8 (starts {sample!r})")
