"""Strings from a dictionary: gather each row's entry into one offsets + bytes pair, in one pass."""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_VALUE


@jit
def gather_strings(dict_offsets, dict_data, indices, valid, out_offsets, out_data):  # type: ignore[no-untyped-def]
    """Write the dictionary entries named by ``indices`` (one per row; rows where ``valid`` is False are empty)
    into ``out_offsets`` (``len(indices) + 1``) and ``out_data`` (sized by :func:`gathered_size`).

    Returns the number of bytes written, or BAD_VALUE when an index lies outside the dictionary.
    """
    n_entries = len(dict_offsets) - 1
    pos = 0
    out_offsets[0] = 0
    for i in range(len(indices)):
        if valid[i]:
            k = indices[i]
            if k < 0 or k >= n_entries:
                return BAD_VALUE
            start = dict_offsets[k]
            stop = dict_offsets[k + 1]
            for j in range(start, stop):
                out_data[pos] = dict_data[j]
                pos += 1
        out_offsets[i + 1] = pos
    return pos


@jit
def gathered_size(dict_offsets, indices, valid):  # type: ignore[no-untyped-def]
    """Total bytes :func:`gather_strings` writes, or BAD_VALUE when an index lies outside the dictionary."""
    n_entries = len(dict_offsets) - 1
    total = 0
    for i in range(len(indices)):
        if valid[i]:
            k = indices[i]
            if k < 0 or k >= n_entries:
                return BAD_VALUE
            total += dict_offsets[k + 1] - dict_offsets[k]
    return total


def all_valid(n: int) -> np.ndarray:
    """A mask of ``n`` True values, for columns without nulls."""
    return np.ones(n, dtype=np.bool_)


@jit
def compare_strings(offsets, data, literal, out):  # type: ignore[no-untyped-def]
    """``out[i]`` = -1, 0 or 1 as string ``i`` sorts before, equal to or after ``literal`` (bytewise, which for
    UTF-8 is code point order, as Python compares str)."""
    m = len(literal)
    for i in range(len(offsets) - 1):
        start = offsets[i]
        n = offsets[i + 1] - start
        k = min(n, m)
        result = 0
        for j in range(k):
            a = data[start + j]
            b = literal[j]
            if a != b:
                result = -1 if a < b else 1
                break
        if result == 0 and n != m:
            result = -1 if n < m else 1
        out[i] = result
