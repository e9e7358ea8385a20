"""Three-valued evaluation of a predicate against every row group of a stripe at once.

The answers are those of :func:`~orcjit.pushdown.prune.evaluate_predicate` on each row group's decoded
statistics, computed with numpy over the columns of a :class:`~orcjit.kernels.row_index.RowIndexTable`. Minima
and maxima become object arrays of the same Python values :func:`~orcjit.statistics.decode_statistics` gives
(``int``, ``float``, ``str``, ``Decimal``, ``date``, ``Timestamp``), so every comparison is Python's own; only
the loop over row groups moves into numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels import row_index as ri
from ..kernels.varint import as_buffer
from ..statistics import date_of_days, decimal_of_text, timestamp_of_millis
from ..types.kinds import FLOAT_KINDS, INTEGER_KINDS, STRING_KINDS, TIMESTAMP_KINDS
from ..types.schema import TypeNode
from .filters import Predicate
from .prune import MAYBE, NO, RANGE_KINDS, YES, comparable, widen_timestamps
from .semantics import NULL_SATISFIES, is_nan

__all__ = ["GroupStatistics"]


class GroupStatistics:
    """One column's row-group statistics in one stripe, decoded lazily for the predicates asked about."""

    def __init__(self, table: ri.RowIndexTable, node: TypeNode, rows: np.ndarray) -> None:
        self.table = table
        self.node = node
        self.rows = rows
        present = table.present
        known = present[:, ri.STATISTICS].astype(bool) & present[:, ri.COUNT].astype(bool)
        self.count = np.where(known, table.value[:, ri.COUNT], -1)
        # a count of 2**63 or more (negative here) is no count a row group can have: left unknown
        known &= self.count >= 0
        self.has_null = np.where(present[:, ri.HAS_NULL].astype(bool), table.value[:, ri.HAS_NULL], -1)
        # rows but neither values nor nulls: statistics of writers that recorded none (old files)
        known &= ~((self.count == 0) & (self.has_null != 1)) & (rows > 0)
        self.known = known
        self.all_null = known & (self.count == 0) & (self.has_null == 1)
        self.no_nulls = known & (self.has_null == 0) & (self.count >= rows)
        self._bounds: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._spans: tuple[Spans, Spans, np.ndarray, np.ndarray] | None = None

    def evaluate(self, p: Predicate) -> np.ndarray:
        """Per row group: NO, MAYBE or YES for ``p`` (an ``int8`` array)."""
        out = np.full(self.count.shape, MAYBE, dtype=np.int8)
        op = p.op
        if op == "is null":
            # a struct's null fields are left out of the field's hasNull by ORC Java: only a value in every row
            # rules nulls out
            out[self.no_nulls] = NO
            out[self.all_null] = YES
            return out
        if op == "is not null":
            out[self.all_null] = NO
            out[self.no_nulls] = YES
            return out
        kind = self.node.kind
        on_values = out.copy()  # the verdict over the rows that hold a value
        if kind == "boolean":
            self._boolean(p, on_values)
        elif kind in STRING_KINDS and _utf8_values(p.values):
            low, high, exact, usable = self.string_bounds()
            usable = usable & self.known & ~self.all_null
            if usable.any():
                on_values[usable] = _range(op, p.values, low[usable], high[usable], exact[usable], kind)
        elif kind in RANGE_KINDS:
            low, high, exact, usable = self.bounds()
            usable = usable & self.known & ~self.all_null
            if usable.any() and all(comparable(v, low[np.argmax(usable)]) for v in p.values):
                with np.errstate(invalid="ignore"):  # NaN values compare False, as in Python, without a warning
                    on_values[usable] = _range(op, p.values, low[usable], high[usable], exact[usable], kind)
        # nulls keep "not in" from NO and every other op from YES (prune.with_nulls)
        held = NO if op in NULL_SATISFIES else YES
        out = np.where((on_values == held) & ~self.no_nulls, MAYBE, on_values).astype(np.int8)
        out[self.all_null] = YES if op in NULL_SATISFIES else NO
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(low, high, exact, usable)``: object arrays of the bounds, whether they are the real minimum and
        maximum, and where both bounds are known."""
        if self._bounds is None:
            self._bounds = self._decode_bounds()
        return self._bounds

    def string_bounds(self) -> tuple[Spans, Spans, np.ndarray, np.ndarray]:
        """:meth:`bounds` of a string column as spans of the row index's bytes, compared with values without
        decoding a string: the minimum (or else the lower bound) and the maximum (or else the upper bound) where
        they are UTF-8, as :meth:`bounds` takes them."""
        if self._spans is None:
            t = self.table
            data = as_buffer(t.data)
            n = len(t)
            ok = {}
            for slot in (ri.STRING_MIN, ri.STRING_MAX, ri.STRING_LOWER, ri.STRING_UPPER):
                ok[slot] = np.zeros(n, dtype=np.bool_)
                starts, lengths = _column(t.value, slot), _column(t.extra, slot)
                ri.utf8_spans(data, starts, lengths, _column(t.present, slot), ok[slot])
            has = t.present[:, ri.STRING] != 0
            use_min, use_max = has & ok[ri.STRING_MIN], has & ok[ri.STRING_MAX]
            use_lower = has & ~use_min & ok[ri.STRING_LOWER]
            use_upper = has & ~use_max & ok[ri.STRING_UPPER]

            def pick(main: int, fallback: int, use: np.ndarray) -> Spans:
                starts = np.where(use, t.value[:, main], t.value[:, fallback])
                return Spans(data, starts, np.where(use, t.extra[:, main], t.extra[:, fallback]))

            low = pick(ri.STRING_MIN, ri.STRING_LOWER, use_min)
            high = pick(ri.STRING_MAX, ri.STRING_UPPER, use_max)
            usable = (use_min | use_lower) & (use_max | use_upper)
            self._spans = low, high, ~use_lower & ~use_upper, usable
        return self._spans

    def _decode_bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        t, kind = self.table, self.node.kind
        n = len(t)
        low = np.full(n, None, dtype=object)
        high = np.full(n, None, dtype=object)
        exact = np.ones(n, dtype=bool)
        if kind in INTEGER_KINDS:
            _fill_numbers(t, ri.INT, ri.INT_MIN, low, t.value[:, ri.INT_MIN])
            _fill_numbers(t, ri.INT, ri.INT_MAX, high, t.value[:, ri.INT_MAX])
        elif kind in FLOAT_KINDS:
            lows, highs = t.value[:, ri.DOUBLE_MIN].view(np.float64), t.value[:, ri.DOUBLE_MAX].view(np.float64)
            _fill_numbers(t, ri.DOUBLE, ri.DOUBLE_MIN, low, lows)
            _fill_numbers(t, ri.DOUBLE, ri.DOUBLE_MAX, high, highs)
            nan = np.isnan(lows) | np.isnan(highs)
            low[nan] = None
            high[nan] = None
        elif kind in STRING_KINDS:
            mins, maxs = t.texts(ri.STRING_MIN), t.texts(ri.STRING_MAX)
            lowers, uppers = t.texts(ri.STRING_LOWER), t.texts(ri.STRING_UPPER)
            for g in np.flatnonzero(t.present[:, ri.STRING]).tolist():
                lo, hi = _utf8(mins[g]), _utf8(maxs[g])
                if lo is None:
                    lo = _utf8(lowers[g])
                    exact[g] = lo is None
                if hi is None:
                    hi = _utf8(uppers[g])
                    exact[g] &= hi is None
                low[g], high[g] = lo, hi
        elif kind == "decimal":
            mins, maxs = t.texts(ri.DECIMAL_MIN), t.texts(ri.DECIMAL_MAX)
            for g in np.flatnonzero(t.present[:, ri.DECIMAL]):
                low[g] = None if mins[g] is None else decimal_of_text(mins[g])
                high[g] = None if maxs[g] is None else decimal_of_text(maxs[g])
        elif kind == "date":
            for g in np.flatnonzero(t.present[:, ri.DATE]):
                if t.present[g, ri.DATE_MIN]:
                    low[g] = date_of_days(int(t.value[g, ri.DATE_MIN]))
                if t.present[g, ri.DATE_MAX]:
                    high[g] = date_of_days(int(t.value[g, ri.DATE_MAX]))
        elif kind in TIMESTAMP_KINDS:
            utc = kind == "timestamp with local time zone"
            for g in np.flatnonzero(t.present[:, ri.TIMESTAMP]):
                if t.present[g, ri.TIMESTAMP_MIN_UTC]:
                    nanos = int(t.value[g, ri.TIMESTAMP_MIN_NANOS]) if t.present[g, ri.TIMESTAMP_MIN_NANOS] else None
                    low[g] = timestamp_of_millis(int(t.value[g, ri.TIMESTAMP_MIN_UTC]), nanos, utc)
                if t.present[g, ri.TIMESTAMP_MAX_UTC]:
                    nanos = int(t.value[g, ri.TIMESTAMP_MAX_NANOS]) if t.present[g, ri.TIMESTAMP_MAX_NANOS] else None
                    high[g] = timestamp_of_millis(
                        int(t.value[g, ri.TIMESTAMP_MAX_UTC]), 1_000_000 if nanos is None else nanos, utc
                    )
        usable = np.fromiter((lo is not None and hi is not None for lo, hi in zip(low, high, strict=True)), bool, n)
        if kind in TIMESTAMP_KINDS:
            # timestamp statistics are milliseconds: widened so no writer's rounding can exclude a real value
            for g in np.flatnonzero(usable).tolist():
                low[g], high[g] = widen_timestamps(low[g], high[g])
                usable[g] = low[g] is not None and high[g] is not None
            exact[:] = False
        return low, high, exact, usable

    def _boolean(self, p: Predicate, out: np.ndarray) -> None:
        """Fill ``out`` with the verdict over each group's non-null values, from its true count
        (:func:`~orcjit.pushdown.prune._boolean`)."""
        t = self.table
        has = self.known & ~self.all_null & t.has(ri.BUCKET) & t.has(ri.TRUE_COUNT)
        if p.op in ("==", "in", "!=", "not in"):
            wanted = set(p.values) if p.op in ("in", "not in") else {p.value}
            if p.op in ("!=", "not in"):
                wanted = {True, False} - wanted
        else:
            return
        # a true count of 2**63 or more reads negative here: true values present, false ones not (count - true
        # count is negative), as the Python integers of the scalar evaluation say
        true_count = t.value[:, ri.TRUE_COUNT]
        huge = true_count < 0
        has_true = huge | (true_count > 0)
        has_false = ~huge & (self.count > true_count)
        overlap = (has_true & (True in wanted)) | (has_false & (False in wanted))
        inside = (~has_true | (True in wanted)) & (~has_false | (False in wanted))
        out[has & ~overlap] = NO
        out[has & overlap & inside] = YES


class Spans:
    """String bounds of row groups as spans of a row index's bytes (UTF-8): compared with a value by one kernel
    call, bytewise, which for UTF-8 is the code point order in which Python compares ``str``."""

    def __init__(self, data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        self.data = data
        self.starts = np.ascontiguousarray(starts, dtype=np.int64)
        self.lengths = np.ascontiguousarray(lengths, dtype=np.int64)
        self._signs: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, where: np.ndarray) -> Spans:
        return Spans(self.data, self.starts[where], self.lengths[where])

    def sign(self, value: str) -> np.ndarray:
        """-1, 0 or 1 per span as it sorts before, equal to or after ``value``."""
        out = self._signs.get(value)
        if out is None:
            out = np.empty(len(self), dtype=np.int8)
            literal = np.frombuffer(value.encode("utf-8"), dtype=np.uint8)
            ri.compare_spans(self.data, self.starts, self.lengths, literal, out)
            self._signs[value] = out
        return out

    def equal(self, other: Spans) -> np.ndarray:
        out = np.empty(len(self), dtype=np.bool_)
        ri.equal_spans(self.data, self.starts, self.lengths, other.starts, other.lengths, out)
        return out


def _utf8_values(values: tuple[Any, ...]) -> bool:
    """Whether every value is a ``str`` that UTF-8 can hold (no lone surrogate): compared as spans."""
    if not all(type(v) is str for v in values):
        return False
    try:
        for v in values:
            v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _column(table: np.ndarray, slot: int) -> np.ndarray:
    return np.ascontiguousarray(table[:, slot])


def _fill_numbers(t: ri.RowIndexTable, message: int, slot: int, out: np.ndarray, values: np.ndarray) -> None:
    where = t.present[:, message].astype(bool) & t.present[:, slot].astype(bool)
    out[where] = values[where].tolist() if where.any() else []


def _field(t: ri.RowIndexTable, g: int, slot: int, default: int | None) -> int | None:
    return int(t.value[g, slot]) if t.present[g, slot] else default


def _utf8(value: str | bytes | None) -> str | None:
    return value if isinstance(value, str) else None  # not UTF-8: says nothing reliable


def _scalar(value: Any) -> np.ndarray:
    # a 0-d object array: numpy then compares element by element with Python's operators, never converting the
    # value (a Timestamp would otherwise become datetime64)
    out = np.empty((), dtype=object)
    out[()] = value
    return out


Bounds = Any  # an object array of bounds, or Spans


def _range(op: str, values: tuple[Any, ...], low: Bounds, high: Bounds, exact: np.ndarray, kind: str) -> np.ndarray:
    """:func:`~orcjit.pushdown.prune.values_verdict` over arrays of bounds."""

    def lt(a: Bounds, v: Any) -> np.ndarray:
        return a.sign(v) < 0 if isinstance(a, Spans) else np.less(a, _scalar(v)).astype(bool)

    def le(a: Bounds, v: Any) -> np.ndarray:
        return a.sign(v) <= 0 if isinstance(a, Spans) else np.less_equal(a, _scalar(v)).astype(bool)

    def gt(a: Bounds, v: Any) -> np.ndarray:
        return a.sign(v) > 0 if isinstance(a, Spans) else np.greater(a, _scalar(v)).astype(bool)

    def ge(a: Bounds, v: Any) -> np.ndarray:
        return a.sign(v) >= 0 if isinstance(a, Spans) else np.greater_equal(a, _scalar(v)).astype(bool)

    def eq(a: Bounds, v: Any) -> np.ndarray:
        return a.sign(v) == 0 if isinstance(a, Spans) else np.equal(a, _scalar(v)).astype(bool)

    n = len(low)
    none = np.zeros(n, dtype=bool)
    floating = kind in FLOAT_KINDS
    same = low.equal(high) if isinstance(low, Spans) and isinstance(high, Spans) else np.equal(low, high)
    single = exact & np.asarray(same).astype(bool)
    if op in ("in", "not in"):
        nan_listed = any(is_nan(v) for v in values)
        members = [v for v in values if not is_nan(v)]
        inside, listed, all_outside = none.copy(), none.copy(), ~none
        for v in members:
            inside |= le(low, v) & ge(high, v)
            listed |= eq(low, v)
            all_outside &= gt(low, v) | lt(high, v)
        if op == "in":
            if floating and nan_listed:
                return np.full(n, MAYBE, dtype=np.int8)
            no, yes = ~inside, (single & inside & listed) if not floating else none
        else:
            no = single & listed if (not floating or nan_listed) else none
            yes = all_outside if not nan_listed else none
    elif is_nan(values[0]):
        return np.full(n, YES if op == "!=" else NO, dtype=np.int8)
    elif op in ("==", "!=", "<", "<=", ">", ">="):
        v = values[0]
        certain = none if floating else ~none
        outside = gt(low, v) | lt(high, v)
        no, yes = {
            "==": (outside, single & certain & eq(low, v)),
            "!=": (single & certain & eq(low, v), outside),
            "<": (ge(low, v), certain & lt(high, v)),
            "<=": (gt(low, v), certain & le(high, v)),
            ">": (le(high, v), certain & gt(low, v)),
            ">=": (lt(high, v), certain & ge(low, v)),
        }[op]
    else:
        return np.full(n, MAYBE, dtype=np.int8)
    return np.where(no, NO, np.where(yes, YES, MAYBE)).astype(np.int8)
