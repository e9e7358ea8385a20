"""Columns a dataset's file does not store: partition values (one value on every row of a file) and columns the
file lacks (nulls), made as decoded vectors so that the one converter of each kind (:mod:`orcjit.convert`) turns
them into what every ``dtype_backend`` gives that kind, and the one row filter (:mod:`orcjit.pushdown.rows`)
tests them as it tests stored values."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import numpy as np

from ..decode.vector import ColumnVector
from ..errors import OrcError
from ..types.kinds import BYTES_KINDS, KINDS
from ..types.schema import TypeNode

__all__ = ["constant_vector", "null_vector"]

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DAY = datetime.date(1970, 1, 1)


def null_vector(node: TypeNode, length: int) -> ColumnVector:
    """``length`` nulls of ``node``'s type (compound types included: no elements, no set fields)."""
    valid = np.zeros(length, dtype=np.bool_)
    kind = KINDS[node.kind]
    if node.kind in BYTES_KINDS:
        return ColumnVector(node, length, valid, offsets=np.zeros(length + 1, np.int64), data=np.zeros(0, np.uint8))
    if kind.fixed_width:
        return ColumnVector(node, length, valid, values=np.zeros(length * kind.lanes, dtype=kind.dtype))
    if node.kind in ("array", "map"):
        children = [null_vector(c, 0) for c in node.children]
        return ColumnVector(node, length, valid, offsets=np.zeros(length + 1, np.int64), children=children)
    if node.kind == "struct":
        return ColumnVector(node, length, valid, children=[null_vector(c, length) for c in node.children])
    # a union: tag 0 everywhere, its variants null
    tags = np.zeros(length, dtype=np.int8)
    return ColumnVector(node, length, valid, values=tags, children=[null_vector(c, length) for c in node.children])


def constant_vector(node: TypeNode, value: Any, length: int) -> ColumnVector:
    """``value`` (a partition value: int, float, ``Decimal``, ``date``, naive ``datetime``, str, or None) on each
    of ``length`` rows of ``node``'s primitive type.

    Raises
    ------
    OrcError
        If the value does not fit the type.
    """
    if value is None:
        return null_vector(node, length)
    kind = node.kind
    if kind in BYTES_KINDS:
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        offsets = np.arange(length + 1, dtype=np.int64) * len(raw)
        return ColumnVector(node, length, offsets=offsets, data=np.frombuffer(raw * length, dtype=np.uint8).copy())
    if kind == "decimal":
        unscaled = int(decimal.Decimal(value).scaleb(node.scale or 0).to_integral_value())
        lanes = np.empty(2 * length, dtype=np.int64)
        lanes[0::2] = np.int64(np.uint64(unscaled & (2**64 - 1)).view(np.int64))
        lanes[1::2] = unscaled >> 64
        return ColumnVector(node, length, values=lanes)
    if kind == "date":
        number: Any = (value - _EPOCH_DAY).days
    elif kind in ("timestamp", "timestamp with local time zone"):
        delta = value - _EPOCH
        number = (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    elif kind == "boolean":
        number = bool(value)
    else:
        number = value
    storage = KINDS[kind].dtype
    try:
        values = np.full(length, number, dtype=storage)
    except (OverflowError, ValueError, TypeError):
        raise OrcError(f"partition value {value!r} does not fit {node}") from None
    return ColumnVector(node, length, values=values)
