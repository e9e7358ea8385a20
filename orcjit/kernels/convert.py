"""Kernels that prepare the conversion of decoded columns to pandas objects.

Python objects (``decimal.Decimal``, ``datetime.date``) can only be made under the GIL, one call each; these
kernels do everything around those calls so that the Python side is a handful of C-level ``map`` and ``take``
calls:

- :func:`distinct_rows` numbers the distinct values of a column (one or two int64 lanes per value), and
  :func:`distinct_strings` the distinct strings between consecutive offsets, so that repeated values are
  converted once and shared;
- :func:`table_indices` turns values over a small range into indices into a table of objects, one per value of
  the range;
- :func:`fill_nulls` and :func:`set_nulls` write NaN or NaT into the null slots, while widening integers to
  float64 or in place.

Validity follows one convention throughout: ``valid`` is a bool array, and an empty one means every slot holds
a value (one compiled variant instead of one for ``None``). A null slot gets index ``-1``, which the callers
point at a ``None`` kept at the end of the table.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH

__all__ = [
    "distinct_rows",
    "distinct_strings",
    "fill_nulls",
    "number_rows",
    "set_nulls",
    "table_indices",
]


# a row's hash: h = (h ^ lane) * _HASH_MUL, h ^= h >> 29 over its lanes from _HASH_SEED, written out where it is
# needed (as are np.full and np.iinfo): each helper is one more compilation in a new environment
_HASH_SEED = np.uint64(0x9E3779B97F4A7C15)
_HASH_MUL = np.uint64(0xFF51AFD7ED558CCD)


# number_rows' state slots, and its result when its table is half full
_NEXT_ROW, _COUNT, _SEEN, _CHECK_AT = 0, 1, 2, 3
TABLE_FULL = -100


@jit
def number_rows(keys, valid, ids, firsts, table, stored, state):  # type: ignore[no-untyped-def]
    """The kernel of :func:`distinct_rows`, which owns the hash table: ``table`` (a power of two of slots, -1 where
    empty) and ``stored`` (the keys of each slot, ``(len(table), w)``) come from the caller, so that the kernel
    allocates nothing (an allocation in a kernel makes loading it from the cache import Numba's array module, 0.1 to
    0.25 s of a new process). ``state`` holds the next row, the distinct values so far, the valid rows seen and the
    next give-up check.

    A call first places the distinct values found so far (by their first rows) in the table, then goes on with the
    rows. Returns the number of distinct values when every row is numbered, TABLE_FULL when the table is half full
    (call again with one twice the size), -1 when giving up, BAD_LENGTH when the arrays do not match ``keys``.
    """
    n = keys.shape[0]
    width = keys.shape[1]
    size = table.shape[0]
    all_valid = valid.shape[0] == 0
    if (
        ids.shape[0] != n
        or firsts.shape[0] < n
        or (not all_valid and valid.shape[0] != n)
        or size < 2
        or size & (size - 1) != 0
        or stored.shape[0] != size
        or stored.shape[1] != width
        or state.shape[0] < 4
        or not 0 <= state[_COUNT] <= state[_NEXT_ROW] <= n
        or 2 * state[_COUNT] > size
    ):
        return BAD_LENGTH
    mask = size - 1
    count = state[_COUNT]
    seen = state[_SEEN]
    check_at = state[_CHECK_AT]
    for k in range(count):
        row = firsts[k]
        h = _HASH_SEED
        for j in range(width):
            h = (h ^ np.uint64(keys[row, j])) * _HASH_MUL
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = k
        for j in range(width):
            stored[slot, j] = keys[row, j]
    for i in range(state[_NEXT_ROW], n):
        if not all_valid and not valid[i]:
            ids[i] = -1
            continue
        h = _HASH_SEED
        for j in range(width):
            h = (h ^ np.uint64(keys[i, j])) * _HASH_MUL
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(mask))
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = count
                for j in range(width):
                    stored[slot, j] = keys[i, j]
                firsts[count] = i
                ids[i] = count
                count += 1
                break
            same = True
            for j in range(width):
                if stored[slot, j] != keys[i, j]:
                    same = False
                    break
            if same:
                ids[i] = k
                break
            slot = (slot + 1) & mask
        seen += 1
        if seen == check_at:
            if 2 * count > seen:
                return -1
            check_at *= 2
        if 2 * count > size:
            state[_NEXT_ROW] = i + 1
            state[_COUNT] = count
            state[_SEEN] = seen
            state[_CHECK_AT] = check_at
            return TABLE_FULL
    return count


def distinct_rows(keys: np.ndarray, valid: np.ndarray, ids: np.ndarray, firsts: np.ndarray, sample: int) -> int:
    """Number the distinct rows of ``keys`` (shape ``(n, w)``, integers): ``ids[i]`` is the number of row ``i``'s
    distinct value (``-1`` where ``valid``, empty for all rows, is False) and ``firsts[k]`` the first row holding
    distinct value ``k``. An open-addressing hash table holding the keys themselves (a probe reads no row
    elsewhere in ``keys``), grown as distinct values come (by :func:`number_rows`, called again with a table twice
    the size).

    Returns the number of distinct values; -1 (giving up) when more than half of the first ``sample``,
    ``2 * sample``, ``4 * sample`` ... valid rows are distinct, repeats being too rare to pay for the search;
    BAD_LENGTH when ``ids``, ``firsts`` or ``valid`` do not match ``keys``.
    """
    state = np.zeros(4, dtype=np.int64)
    state[_CHECK_AT] = sample
    size = 1024
    while True:
        table = np.full(size, -1, dtype=np.int64)
        stored = np.empty((size, keys.shape[1]), dtype=np.int64)
        result = int(number_rows(keys, valid, ids, firsts, table, stored, state))
        if result != TABLE_FULL:
            return result
        size *= 2


@jit
def table_indices(values, valid, lo, out):  # type: ignore[no-untyped-def]
    """``out[i] = values[i] - lo``, or -1 where ``valid`` (empty: everywhere) is False. Returns the number of
    values, or BAD_LENGTH when the arrays do not match."""
    n = values.shape[0]
    all_valid = valid.shape[0] == 0
    if out.shape[0] != n or (not all_valid and valid.shape[0] != n):
        return BAD_LENGTH
    if all_valid:
        for i in range(n):
            out[i] = np.int64(values[i]) - lo
    else:
        for i in range(n):
            out[i] = np.int64(values[i]) - lo if valid[i] else -1
    return n


@jit
def fill_nulls(values, valid, fill, out):  # type: ignore[no-untyped-def]
    """``out[i] = values[i]`` where ``valid[i]``, else ``fill``: one pass, where NumPy needs the inverted mask as a
    temporary and a masked copy. Returns the number of values, or BAD_LENGTH when the arrays do not match."""
    n = values.shape[0]
    if valid.shape[0] != n or out.shape[0] != n:
        return BAD_LENGTH
    for i in range(n):
        out[i] = values[i] if valid[i] else fill
    return n


@jit
def set_nulls(values, valid, fill):  # type: ignore[no-untyped-def]
    """``values[i] = fill`` where ``valid[i]`` is False, in place: only the null slots are written. Returns the
    number of values, or BAD_LENGTH when the arrays do not match."""
    n = values.shape[0]
    if valid.shape[0] != n:
        return BAD_LENGTH
    for i in range(n):
        if not valid[i]:
            values[i] = fill
    return n


@jit
def distinct_strings(offsets, data, ids, firsts, sample):  # type: ignore[no-untyped-def]
    """Number the distinct byte strings between consecutive ``offsets``: ``ids[i]`` is the number of value ``i``'s
    distinct string and ``firsts[k]`` the first value holding distinct string ``k``. An open-addressing table of
    FNV-1a hashes, every match confirmed byte by byte, grown as distinct strings come (a small table stays in
    cache when few strings repeat often).

    Returns the number of distinct strings, or -1 (giving up) when more than half of the first ``sample``,
    ``2 * sample``, ``4 * sample`` ... values are distinct: repeats too rare to be worth the search.
    """
    check_at = sample
    size = 1024
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    hashes = np.empty(size, dtype=np.uint64)
    count = 0
    for i in range(len(offsets) - 1):
        start = offsets[i]
        length = offsets[i + 1] - start
        h = np.uint64(14695981039346656037)
        for j in range(start, start + length):
            h = (h ^ np.uint64(data[j])) * np.uint64(1099511628211)
        slot = np.int64(h & np.uint64(mask))
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = count
                hashes[slot] = h
                firsts[count] = i
                ids[i] = count
                count += 1
                break
            if hashes[slot] == h:
                other = offsets[firsts[k]]
                same = offsets[firsts[k] + 1] - other == length
                j = 0
                while same and j < length:
                    same = data[start + j] == data[other + j]
                    j += 1
                if same:
                    ids[i] = k
                    break
            slot = (slot + 1) & mask
        if 2 * count > size:
            old_table, old_hashes = table, hashes
            size *= 2
            mask = size - 1
            table = np.full(size, -1, dtype=np.int64)
            hashes = np.empty(size, dtype=np.uint64)
            for old in range(len(old_table)):
                if old_table[old] >= 0:
                    slot = np.int64(old_hashes[old] & np.uint64(mask))
                    while table[slot] >= 0:
                        slot = (slot + 1) & mask
                    table[slot] = old_table[old]
                    hashes[slot] = old_hashes[old]
        if i + 1 == check_at:
            if 2 * count > check_at:
                return -1
            check_at *= 2
    return count
