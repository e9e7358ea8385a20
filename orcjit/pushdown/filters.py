"""Filters in the pandas/pyarrow DNF convention, checked against the schema once.

``[(column, op, value), ...]`` is a conjunction; ``[[...], [...]]`` a disjunction of conjunctions. Ops: ``==``
(or ``=``), ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``, and the null tests ``("x", "is null")`` and
``("x", "is not null")`` (a third element, if given, must be ``None``). Columns are top-level names or dotted
paths to fields inside structs, resolved by :mod:`orcjit.types.resolve`. What a filter
selects is defined in :mod:`orcjit.pushdown.semantics` (pyarrow's convention: a null satisfies ``is null`` and
``not in`` only; NaN compares as IEEE says, and is a member of a list that holds NaN).
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import OrcError
from ..types.kinds import (
    FILTERABLE_KINDS,
    FLOAT_KINDS,
    GEOSPATIAL_KINDS,
    INTEGER_KINDS,
    STRING_KINDS,
    TIMESTAMP_KINDS,
)
from ..types.resolve import resolve_column
from ..types.schema import TypeNode

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
SET_OPS = ("in", "not in")
NULL_OPS = ("is null", "is not null")
OPS = COMPARISONS + SET_OPS + NULL_OPS
ALIASES = {"=": "==", "is_null": "is null", "is_not_null": "is not null", "not_in": "not in"}


@dataclass(frozen=True)
class Predicate:
    """One ``(column, op, value)`` test on a primitive column, its value already of the column's Python type.

    ``values`` holds the set for ``in`` / ``not in`` and the single value otherwise (empty for null tests).
    """

    path: str
    node: TypeNode
    op: str
    values: tuple[Any, ...]

    @property
    def value(self) -> Any:
        """The single value of a comparison."""
        return self.values[0]

    def __str__(self) -> str:
        if self.op in NULL_OPS:
            return f"{self.path} {self.op}"
        if self.op in SET_OPS:
            return f"{self.path} {self.op} [{', '.join(map(shown, self.values))}]"
        return f"{self.path} {self.op} {shown(self.value)}"


def shown(value: Any) -> str:
    """A filter value as ``--filter`` takes it: dates, timestamps and decimals bare; anything else as Python writes
    it (strings quoted, which ``--filter`` takes too)."""
    if isinstance(value, datetime.date | decimal.Decimal):  # pandas Timestamps are datetimes
        return str(value)
    return repr(value)


Filters = list[list[Predicate]]


def canonical_op(op: Any) -> str | None:
    """``op`` as orcjit spells it (``=`` is ``==``, ``NOT IN`` and ``not_in`` are ``not in``, ...), or ``None`` if
    it is no op of :data:`OPS`."""
    if not isinstance(op, str):
        return None
    written = op.strip().lower()
    op = ALIASES.get(written, written)
    return op if op in OPS else None


def normalize_filters(filters: Any, schema: TypeNode) -> Filters | None:
    """Check ``filters`` against the schema and return them as a list of conjunctions.

    Raises
    ------
    OrcError
        On a malformed filter, an unknown op, a column the file lacks or that is not primitive, or a value that
        is not of the column's type.
    """
    groups = dnf_terms(filters)
    if groups is None:
        return None
    return [[_predicate(term, schema) for term in group] for group in groups]


def dnf_terms(filters: Any) -> list[list[Any]] | None:
    """``filters`` in the DNF convention as a list of conjunctions of terms (not yet checked), or ``None``.

    Raises
    ------
    OrcError
        If ``filters`` is not a list of terms, or a list of lists of terms, or a conjunction is empty.
    """
    if filters is None:
        return None
    if isinstance(filters, (str, bytes, tuple)) or not isinstance(filters, Iterable):
        raise OrcError("filters must be a list of (column, op, value) tuples or a list of such lists")
    filters = list(filters)
    if not filters:
        raise OrcError("filters must not be empty; pass None to read everything")
    if all(isinstance(f, tuple) for f in filters):
        groups = [filters]
    elif all(isinstance(f, list) for f in filters):
        groups = filters
    else:
        raise OrcError("filters must be a list of (column, op, value) tuples or a list of such lists, not a mix")
    for group in groups:
        if not group:
            raise OrcError("a conjunction in filters is empty")
    return groups


def _predicate(term: Any, schema: TypeNode) -> Predicate:
    if not isinstance(term, tuple) or len(term) not in (2, 3):
        raise OrcError(f"filter {term!r} is not a (column, op, value) tuple")
    path, written = term[0], term[1]
    value = term[2] if len(term) == 3 else None
    op = canonical_op(written)
    if op is None:
        raise OrcError(f"filter {term!r}: unknown op {written!r}; use one of {', '.join(OPS)}")
    node = _column(path, schema, term)
    if op in NULL_OPS:
        if value is not None:
            raise OrcError(f"filter {term!r}: {op!r} takes no value")
        return Predicate(path, node, op, ())
    if len(term) != 3:
        raise OrcError(f"filter {term!r}: {op!r} needs a value")
    if op in SET_OPS:
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise OrcError(f"filter {term!r}: {op!r} needs a list of values")
        items = list(value)
        if any(v is None for v in items):
            raise OrcError(f"filter {term!r}: None in a list never matches; use 'is null'")
        return Predicate(path, node, op, tuple(_coerce(v, node, term) for v in items))
    if value is None:
        raise OrcError(f"filter {term!r}: comparing with None never matches; use 'is null' or 'is not null'")
    return Predicate(path, node, op, (_coerce(value, node, term),))


def _column(path: Any, schema: TypeNode, term: Any) -> TypeNode:
    if not isinstance(path, str):  # as pyarrow's filters: names, never positions
        raise OrcError(f"filter {term!r}: the column must be a name, got {type(path).__name__}")
    try:
        node = resolve_column(schema, path, through="structs")
    except OrcError as exc:
        raise OrcError(f"filter {term!r}: {exc}") from None
    if node.kind in GEOSPATIAL_KINDS:
        # WKB bytes have no order, and equal shapes need not have equal bytes: no comparison means anything
        raise OrcError(
            f"filter {term!r}: column {path!r} is a {node.kind}, which filters do not test; read it and test the "
            "geometries (geometry='shapely')"
        )
    if node.kind not in FILTERABLE_KINDS:
        raise OrcError(f"filter {term!r}: column {path!r} is a {node.kind}; filters test primitive columns")
    return node


def _type_error(term: Any, node: TypeNode, value: Any) -> OrcError:
    return OrcError(f"filter {term!r}: {value!r} is not a value of {node.kind} column {term[0]!r}")


def _coerce(value: Any, node: TypeNode, term: Any) -> Any:
    """The value as the Python type the column's values compare with."""
    kind = node.kind
    if isinstance(value, np.datetime64) and kind in TIMESTAMP_KINDS:
        value = pd.Timestamp(value)  # .item() would give a bare int for nanoseconds
    elif isinstance(value, np.generic):
        value = value.item()
    if kind == "boolean":
        if isinstance(value, bool):
            return value
    elif kind in INTEGER_KINDS:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, (float, decimal.Decimal)) and math.isfinite(value):
            return value  # a fractional bound on an integer column is fine for <, >, and never equal
    elif kind in FLOAT_KINDS:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return float(value)
            except OverflowError:
                raise OrcError(f"filter {term!r}: {value!r} is beyond the range of {kind}") from None
    elif kind in STRING_KINDS:
        if isinstance(value, str):
            return value
    elif kind == "binary":
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
    elif kind == "decimal":
        if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool):
            d = decimal.Decimal(value)
            if d.is_finite():
                return d
        if isinstance(value, float) and math.isfinite(value):
            return decimal.Decimal(repr(value))
    elif kind == "date":
        if isinstance(value, (datetime.datetime, pd.Timestamp)):
            raise _type_error(term, node, value)
        if isinstance(value, datetime.date):
            return value
        if isinstance(value, str):
            try:
                return datetime.date.fromisoformat(value)
            except ValueError:
                pass
    elif kind in TIMESTAMP_KINDS and isinstance(value, (datetime.datetime, pd.Timestamp, np.datetime64, str)):
        try:
            ts = pd.Timestamp(value)
        except (ValueError, TypeError):
            raise _type_error(term, node, value) from None
        if ts is pd.NaT:
            raise _type_error(term, node, value)
        if kind == "timestamp with local time zone":
            # instants: a naive value is taken as UTC, as the column is shown in UTC
            return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
        if ts.tzinfo is not None:
            raise OrcError(
                f"filter {term!r}: {node.kind} column {term[0]!r} holds wall-clock times; compare it with a"
                " naive datetime"
            )
        return ts
    raise _type_error(term, node, value)


def referenced_paths(filters: Filters | None) -> list[str]:
    """Columns the filters test, each once, in first-use order, as the filters name them."""
    seen: dict[str, None] = {}
    for group in filters or []:
        for p in group:
            seen.setdefault(p.path, None)
    return list(seen)


def tested_columns(filters: Filters | None) -> list[TypeNode]:
    """The columns the filters test, each once, in first-use order."""
    seen: dict[int, TypeNode] = {}
    for group in filters or []:
        for p in group:
            seen.setdefault(p.node.column_id, p.node)
    return list(seen.values())


def describe(filters: Filters | None) -> str:
    """The filters as text: ``(a == 1 and b < 2) or c is null``."""
    if not filters:
        return "(none)"
    parts = [" and ".join(str(p) for p in group) for group in filters]
    return " or ".join(f"({p})" if len(filters) > 1 and " and " in p else p for p in parts)
