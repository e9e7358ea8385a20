"""Exact filtering: which decoded rows satisfy the filters, computed on the column vectors before pandas, with the
semantics of :mod:`orcjit.pushdown.semantics`."""

from __future__ import annotations

import decimal
import math
from typing import Any

import numpy as np

from ..convert.decimals import column_scale, decimal_objects, decimals
from ..decode.vector import ColumnVector
from ..kernels.strings import compare_strings
from ..types.kinds import BYTES_KINDS, FLOAT_KINDS, INTEGER_KINDS, TIMESTAMP_KINDS
from .filters import Filters, Predicate
from .semantics import float_membership, with_null_rows

_EPOCH_DAY = np.datetime64("1970-01-01", "D")


def filters_mask(filters: Filters, vectors: dict[int, ColumnVector], length: int) -> np.ndarray:
    """Rows (of ``length``) that satisfy the DNF ``filters``; ``vectors`` holds each tested column by id."""
    result = np.zeros(length, dtype=np.bool_)
    for group in filters:
        conj = np.ones(length, dtype=np.bool_)
        for p in group:
            conj &= predicate_mask(p, vectors[p.node.column_id])
        result |= conj
    return result


def predicate_mask(p: Predicate, vec: ColumnVector) -> np.ndarray:
    """Rows of ``vec`` that satisfy ``p``; a null satisfies ``is null`` and ``not in`` only."""
    if p.op in ("is null", "is not null"):
        valid = vec.valid if vec.valid is not None else np.ones(vec.length, dtype=np.bool_)
        return ~valid if p.op == "is null" else valid.copy()
    kind = p.node.kind
    if kind in BYTES_KINDS:
        mask = _strings(p, vec)
    elif kind == "decimal":
        mask = _decimals(p, vec)
    else:
        mask = _numbers(p, vec)
    return with_null_rows(p.op, mask, vec.valid)


def _apply(op: str, values: np.ndarray, bound: Any) -> np.ndarray:
    if op == "==":
        return values == bound
    if op == "!=":
        return values != bound
    if op == "<":
        return values < bound
    if op == "<=":
        return values <= bound
    if op == ">":
        return values > bound
    return values >= bound


def _set(op: str, values: np.ndarray, members: list[Any]) -> np.ndarray:
    inside = np.isin(values, np.array(members, dtype=values.dtype)) if members else np.zeros(len(values), bool)
    return ~inside if op == "not in" else inside


def _integral(op: str, values: np.ndarray, bound: Any) -> np.ndarray:
    """Compare integers with a number that may have a fraction, exactly."""
    d = decimal.Decimal(bound) if not isinstance(bound, decimal.Decimal) else bound
    if d == d.to_integral_value():
        b = int(d)
        info = np.iinfo(values.dtype)
        if b < info.min or b > info.max:
            above = b > info.max
            full = np.ones(len(values), bool)
            return {
                "==": ~full,
                "!=": full,
                "<": full if above else ~full,
                "<=": full if above else ~full,
                ">": ~full if above else full,
                ">=": ~full if above else full,
            }[op]
        return _apply(op, values, values.dtype.type(b))
    floor = math.floor(d)
    if op == "==":
        return np.zeros(len(values), bool)
    if op == "!=":
        return np.ones(len(values), bool)
    # v < 2.5 is v <= 2, v > 2.5 is v >= 3
    if op in ("<", "<="):
        return _integral("<=", values, floor)
    return _integral(">=", values, floor + 1)


def _numbers(p: Predicate, vec: ColumnVector) -> np.ndarray:
    kind = p.node.kind
    values = vec.values
    if kind in FLOAT_KINDS and values.dtype != np.float64:
        # exactly, as the statistics compare: NumPy would compare float32 values with a float32-rounded operand
        values = values.astype(np.float64)
    if kind == "date":
        members = [(v - _EPOCH_DAY.astype(object)).days for v in p.values]
    elif kind in TIMESTAMP_KINDS:
        members = [v.value for v in p.values]  # nanoseconds: naive wall clock or UTC instant, as stored
    else:
        members = list(p.values)
    if p.op in ("in", "not in") and kind in FLOAT_KINDS:
        inside = float_membership(values, members)
        return ~inside if p.op == "not in" else inside
    if p.op in ("in", "not in"):
        if kind in INTEGER_KINDS:
            members = [int(m) for m in members if decimal.Decimal(m) == decimal.Decimal(m).to_integral_value()]
            info = np.iinfo(values.dtype)
            members = [m for m in members if info.min <= m <= info.max]
        return _set(p.op, values, members)
    bound = members[0]
    if kind in INTEGER_KINDS:
        return _integral(p.op, values, bound)
    if kind in FLOAT_KINDS:
        return _apply(p.op, values, float(bound))
    return _apply(p.op, values, bound)


def _strings(p: Predicate, vec: ColumnVector) -> np.ndarray:
    def encode(v: Any) -> np.ndarray:
        raw = v if isinstance(v, bytes) else v.encode("utf-8")
        return np.frombuffer(raw, dtype=np.uint8)

    if vec.dictionary is not None:
        # test each dictionary entry once, then look rows up by their index
        dict_offsets, dict_data = vec.dictionary
        entry = ColumnVector(vec.node, len(dict_offsets) - 1, offsets=dict_offsets, data=dict_data)
        per_entry = _strings(p, entry)
        return per_entry[vec.values] if len(per_entry) else np.zeros(vec.length, bool)
    cmp = np.empty(vec.length, dtype=np.int8)
    # strings gathered from a dictionary are writable, those viewed in a stream not: one kernel variant for both
    data = vec.data.view()
    data.flags.writeable = False
    if p.op in ("in", "not in"):
        inside = np.zeros(vec.length, dtype=np.bool_)
        for v in p.values:
            compare_strings(vec.offsets, data, encode(v), cmp)
            inside |= cmp == 0
        return ~inside if p.op == "not in" else inside
    compare_strings(vec.offsets, data, encode(p.value), cmp)
    return _apply(p.op, cmp, 0)


def _decimals(p: Predicate, vec: ColumnVector) -> np.ndarray:
    if vec.scales is not None:  # Hive 0.11 decimals as stored: compared as the objects a read gives
        return _objects(p, decimals(p.node, [vec], "numpy"))
    scale = column_scale(p.node, [vec])
    lo = vec.values[:, 0]
    hi = vec.values[:, 1]
    factor = decimal.Decimal(10) ** scale
    scaled = [v * factor for v in p.values]
    if np.array_equal(hi, lo >> 63):
        # every value fits int64 unscaled: compare integers exactly
        if p.op in ("in", "not in"):
            members = [int(s) for s in scaled if s == s.to_integral_value() and -(2**63) <= s < 2**63]
            return _set(p.op, lo, members)
        return _integral(p.op, lo, scaled[0])
    return _objects(p, decimal_objects(vec.values, scale))


def _objects(p: Predicate, objects: np.ndarray) -> np.ndarray:
    """Rows whose Decimal objects (None at nulls) satisfy ``p``; nulls are sorted out by the caller."""
    present = np.array([o is not None for o in objects], dtype=bool)
    values = np.where(present, objects, decimal.Decimal(0))
    if p.op in ("in", "not in"):
        members = set(p.values)
        inside = np.fromiter((o in members for o in values), dtype=bool, count=len(values))
        return ~inside if p.op == "not in" else inside
    return _apply(p.op, values, p.value).astype(bool)
