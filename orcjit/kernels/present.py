"""Nulls: placing densely decoded values at the rows the PRESENT stream marks, and list/map offsets.

A column's DATA (and LENGTH, SECONDARY, ...) streams hold values for the non-null rows only. The column assembler
decodes them densely, then :func:`spread_present` moves them to their rows, filling null rows with a fill value.
LIST and MAP columns turn their per-row lengths into child offsets with :func:`lengths_to_offsets`.

``present`` is one entry per row, non-zero where the row has a value (a ``bool`` or ``uint8`` array, as the boolean
RLE decoder produces). These kernels work on whole arrays, not on byte buffers: they return a count ``>= 0`` on
success and a negative code from :mod:`orcjit.kernels.status` on failure.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import BAD_LENGTH, OVERFLOW

__all__ = ["count_present", "lengths_to_offsets", "spread_present"]

_INT64_MAX = np.iinfo(np.int64).max


@jit
def count_present(present, start, stop):
    """The number of set entries of ``present[start:stop]``, or BAD_LENGTH if the range lies outside it."""
    if start < 0 or stop < start or stop > present.shape[0]:
        return BAD_LENGTH
    n = 0
    for i in range(start, stop):
        if present[i]:
            n += 1
    return n


@jit
def spread_present(dense, present, out, fill):
    """Write ``dense`` values to the rows of ``out`` where ``present`` is set and ``fill`` to the others.

    ``out`` needs at least ``len(present)`` entries; ``dense`` must hold exactly one value per set entry of
    ``present``. Returns the number of dense values used (the non-null count), or BAD_LENGTH when ``dense`` holds
    too few or too many values or ``out`` is too short; ``out`` may then be partly written.
    """
    n = present.shape[0]
    if out.shape[0] < n:
        return BAD_LENGTH
    m = dense.shape[0]
    j = 0
    for i in range(n):
        if present[i]:
            if j >= m:
                return BAD_LENGTH
            out[i] = dense[j]
            j += 1
        else:
            out[i] = fill
    if j != m:
        return BAD_LENGTH
    return j


@jit
def lengths_to_offsets(lengths, present, offsets):
    """Turn LIST/MAP lengths into child offsets: row ``i`` owns children ``offsets[i]:offsets[i + 1]``.

    ``lengths`` holds one length per non-null row (the decoded LENGTH stream, any integer dtype); ``present`` is the
    column's PRESENT bits, or ``None`` when the column has no nulls. ``offsets`` (int64, ``len(rows) + 1``
    entries) gets ``offsets[0] = 0`` and the running sum; null rows own no children. Returns the number of lengths
    used, or BAD_LENGTH (a negative length, a length past int64, too few or too many lengths, ``offsets`` too
    short) or OVERFLOW (the child count passes int64).
    """
    m = lengths.shape[0]
    n = m if present is None else present.shape[0]
    if offsets.shape[0] < n + 1:
        return BAD_LENGTH
    offsets[0] = 0
    total = np.int64(0)
    j = 0
    for i in range(n):
        if present is None or present[i]:
            if j >= m:
                return BAD_LENGTH
            # an unsigned length past int64 comes out negative here, and is rejected with the negative ones
            length = np.int64(lengths[j])
            j += 1
            if length < 0:
                return BAD_LENGTH
            if length > _INT64_MAX - total:
                return OVERFLOW
            total += length
        offsets[i + 1] = total
    if j != m:
        return BAD_LENGTH
    return j
