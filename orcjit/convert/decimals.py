"""Decimals as :class:`decimal.Decimal` objects, each with the column's scale as its exponent, as pyarrow makes them.

``Decimal(10**-scale) * unscaled`` under a wide context is an exact product carrying the column's exponent. That
measured at about half the cost of ``Decimal(str)`` of Numba-formatted text (``"-123456E-6"``, which also needs one
Python ``str`` per value) and of ``Decimal(int).scaleb(-scale)``. Repeated values are found first with a Numba hash
table (:func:`orcjit.kernels.convert.distinct_rows`) and made once.
"""

from __future__ import annotations

import decimal
import itertools
import operator
from typing import Any

import numpy as np

from ..decode.vector import ColumnVector
from ..kernels.convert import distinct_rows
from ..types.schema import TypeNode
from .chunks import (
    DEDUPE_MIN_VALUES,
    DEDUPE_SAMPLE,
    check,
    dedupe_sample,
    kernel_valid,
    read_only,
    table_take,
    valid_of,
    values_of,
)

__all__ = ["DEDUPE_MIN_VALUES", "DEDUPE_SAMPLE", "column_scale", "decimal_objects", "decimals"]

# values converted per block: Python ints for a block at a time stay in cache and their memory is reused
DECIMAL_BLOCK = 1 << 14
# exact products and any exponent: 2**128 has 39 digits
_WIDE = decimal.Context(prec=80, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.InvalidOperation])


def decimals(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    if any(c.scales is not None for c in chunks):
        return _exact(chunks)
    scale = column_scale(node, chunks)
    lanes = read_only(values_of(chunks, np.int64, width=2, owned=False))
    valid = valid_of(chunks)
    n = len(lanes)
    if n >= DEDUPE_MIN_VALUES and not _mostly_distinct(lanes, valid):
        ids = np.empty(n, dtype=np.intp)
        firsts = np.empty(n, dtype=np.intp)
        distinct = check(distinct_rows(lanes, kernel_valid(valid), ids, firsts, dedupe_sample(n)))
        if distinct >= 0:
            return table_take(decimal_objects(lanes[firsts[:distinct]], scale), ids)
    if valid is None:
        return decimal_objects(lanes, scale)
    out = np.full(n, None, dtype=object)
    out[valid] = decimal_objects(lanes[valid], scale)
    return out


def _mostly_distinct(lanes: np.ndarray, valid: np.ndarray | None) -> bool:
    """Whether the hash table would give up on ``lanes`` at its first look: more than half of the first
    ``DEDUPE_SAMPLE`` values distinct. Told from their low lanes alone, sorted (about 0.1 ms): values whose low lanes
    differ are distinct, so what this finds mostly distinct the table finds so too, and the converse is left to the
    table. Decimals without repeats, as amounts and prices often are, then do not compile the table's kernel in a
    new environment (about 0.8 s)."""
    if valid is None:
        rows: np.ndarray | slice = slice(0, DEDUPE_SAMPLE)
    else:
        rows = np.flatnonzero(valid[: 4 * DEDUPE_SAMPLE])[:DEDUPE_SAMPLE]
    low = np.sort(lanes[rows, 0])
    if len(low) < DEDUPE_SAMPLE:
        return False
    return 2 * (1 + int(np.count_nonzero(low[1:] != low[:-1]))) > DEDUPE_SAMPLE


def column_scale(node: TypeNode, chunks: list[ColumnVector]) -> int:
    """The scale of a decimal column's values: its type's, or the one a read brought Hive 0.11 decimals to."""
    return next((c.scale for c in chunks if c.scale is not None), node.decimal_scale)


def _exact(chunks: list[ColumnVector]) -> np.ndarray:
    """Hive 0.11 decimals as stored: each value with its own scale (few distinct ones: one conversion each)."""
    lanes = values_of(chunks, np.int64, width=2, owned=False)
    scales = np.concatenate([np.zeros(c.length, np.int64) if c.scales is None else c.scales for c in chunks])
    valid = valid_of(chunks)
    out = np.full(len(lanes), None, dtype=object)
    rows = np.arange(len(lanes)) if valid is None else np.flatnonzero(valid)
    for scale in np.unique(scales[rows]).tolist():
        at = rows[scales[rows] == scale]
        out[at] = decimal_objects(lanes[at], scale)
    return out


def decimal_objects(lanes: np.ndarray, scale: int) -> np.ndarray:
    """An object array of :class:`decimal.Decimal`, one per row of ``lanes`` (int64 ``[low, high]`` of a 128-bit
    two's complement unscaled value), each with exponent ``-scale`` as pyarrow makes them (``Decimal("1.50")``
    at scale 2, ``Decimal("0E-38")``, ``Decimal("5")`` at scale 0).

    Python ints come a block at a time, so their memory is reused. Per value this is one ``int``, one temporary
    and one result ``Decimal``, all made by C calls under :func:`map`.
    """
    n = len(lanes)
    unit = decimal.Decimal(f"1E-{int(scale)}")
    low = lanes[:, 0]
    high = lanes[:, 1]
    wide = not np.array_equal(high, low >> 63)

    def blocks() -> Any:
        for start in range(0, n, DECIMAL_BLOCK):
            stop = min(n, start + DECIMAL_BLOCK)
            if not wide:
                yield low[start:stop].tolist()
            else:
                # beyond int64: high * 2**64 + the low lane read as unsigned
                shifted = map(operator.lshift, high[start:stop].tolist(), itertools.repeat(64))
                yield list(map(operator.add, shifted, low[start:stop].view(np.uint64).tolist()))

    with decimal.localcontext(_WIDE):
        # operator.mul is a fast call straight to Decimal's multiply; unit.__mul__ would build an argument tuple
        products = map(operator.mul, itertools.repeat(unit), itertools.chain.from_iterable(blocks()))
        return np.fromiter(products, dtype=object, count=n)
