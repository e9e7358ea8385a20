"""Three-valued evaluation of filters against statistics: could any row of this file, stripe or row group match?

Each predicate answers YES (every row matches), NO (no row can) or MAYBE, under the semantics of
:mod:`orcjit.pushdown.semantics` (a null satisfies ``not in``); conjunctions and disjunctions combine them with
Kleene's logic. Anything not understood, not recorded, or recorded by a writer known to get it wrong
answers MAYBE, so pruning can only ever skip data that holds no match.
"""

from __future__ import annotations

import datetime
import decimal
import math
from typing import Any

import pandas as pd

from ..statistics import ColumnStatistics
from ..types.kinds import FLOAT_KINDS, INTEGER_KINDS, STRING_KINDS, TIMESTAMP_KINDS
from .filters import Filters, Predicate
from .semantics import NULL_SATISFIES, is_nan

NO, MAYBE, YES = 0, 1, 2
NAMES = {NO: "no", MAYBE: "maybe", YES: "yes"}

# the kinds whose statistics hold a minimum and a maximum
RANGE_KINDS = INTEGER_KINDS | FLOAT_KINDS | STRING_KINDS | TIMESTAMP_KINDS | {"date", "decimal"}

# timestamp statistics are milliseconds; widen them so rounding by any writer cannot exclude a real value
TIMESTAMP_SLACK = pd.Timedelta(milliseconds=1)


def conjunction(values: list[int]) -> int:
    """Kleene AND: NO if any is NO, YES if all are YES."""
    return min(values) if values else YES


def disjunction(values: list[int]) -> int:
    """Kleene OR: YES if any is YES, NO if all are NO."""
    return max(values) if values else NO


def statistics_trusted(kind: str, writer: str, writer_version: int) -> bool:
    """Whether a writer's min/max statistics for ``kind`` can be used to skip data.

    String minima and maxima before HIVE-8732 (writer version 1) compared UTF-16 code units and could be wrong
    at stripe and file level; ORC's own C++ reader ignores decimal statistics of the original writer version;
    timestamps are only decoded from the UTC fields of ORC-135, so older ones arrive as None anyway.
    """
    if writer != "ORC_JAVA":
        return True
    if kind in STRING_KINDS and writer_version < 1:
        return False
    return not (kind == "decimal" and writer_version < 1)


# ORC C++ releases whose bloom filters hash values inconsistently with every other writer (ORC-1024); ORC's own
# readers ignore their filters, and so do we
BAD_CPP_BLOOM_FILTER_RELEASES = frozenset({*(f"1.6.{minor}" for minor in range(12)), "1.7.0"})


def bloom_filters_trusted(writer: str, software_version: str | None) -> bool:
    """Whether a file's bloom filters may be used at all.

    ORC C++ wrote bloom filters from 1.6.0 and recorded its version only from 1.6.11 and 1.7.0, so a C++ file
    without a software version, or from a release with the ORC-1024 hashing bug, keeps its filters unused.
    """
    if writer != "ORC_CPP":
        return True
    if not software_version:
        return False
    return software_version.split("-", 1)[0].strip() not in BAD_CPP_BLOOM_FILTER_RELEASES


def evaluate(filters: Filters, stats: dict[int, ColumnStatistics | None], rows: int, trusted: Any) -> int:
    """Evaluate DNF ``filters`` over data of ``rows`` rows whose columns have ``stats`` (by column id);
    ``trusted(node)`` says whether a column's statistics may be used at all."""
    return disjunction(
        [
            conjunction(
                [evaluate_predicate(p, stats.get(p.node.column_id), rows) if trusted(p.node) else MAYBE for p in group]
            )
            for group in filters
        ]
    )


def _bounds(p: Predicate, s: ColumnStatistics) -> tuple[Any, Any, bool]:
    """(low, high, exact): every value lies in [low, high]; exact when they are the real minimum and maximum."""
    kind = p.node.kind
    low, high, exact = s.minimum, s.maximum, True
    if kind in STRING_KINDS:
        if low is None and s.lower_bound is not None:
            low, exact = s.lower_bound, False
        if high is None and s.upper_bound is not None:
            high, exact = s.upper_bound, False
    if kind in FLOAT_KINDS and ((low is not None and math.isnan(low)) or (high is not None and math.isnan(high))):
        return None, None, False
    if kind in TIMESTAMP_KINDS and low is not None and high is not None:
        low, high = widen_timestamps(low, high)
        exact = False
    return low, high, exact


def widen_timestamps(low: pd.Timestamp, high: pd.Timestamp) -> tuple[pd.Timestamp | None, pd.Timestamp | None]:
    """Timestamp bounds widened by :data:`TIMESTAMP_SLACK`; a bound at the edge of what a Timestamp holds
    becomes ``None`` (unknown) instead of overflowing."""
    try:
        low = low - TIMESTAMP_SLACK
    except (OverflowError, ValueError):  # pandas' OutOfBoundsDatetime is a ValueError
        low = None
    try:
        high = high + TIMESTAMP_SLACK
    except (OverflowError, ValueError):
        high = None
    return low, high


def comparable(value: Any, bound: Any) -> bool:
    """Whether a filter value and a statistics bound can be ordered against each other."""
    if isinstance(bound, bool) or bound is None:
        return False
    if isinstance(bound, (int, float, decimal.Decimal)):
        return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)
    if isinstance(bound, pd.Timestamp):
        return isinstance(value, pd.Timestamp) and (value.tzinfo is None) == (bound.tzinfo is None)
    if isinstance(bound, datetime.date):
        return isinstance(value, datetime.date)
    return type(value) is type(bound)


def evaluate_predicate(p: Predicate, s: ColumnStatistics | None, rows: int) -> int:
    """One predicate against one column's statistics over ``rows`` rows."""
    if s is None or s.count is None or rows <= 0:
        return MAYBE
    count, has_null = s.count, s.has_null
    if count == 0 and not has_null:
        # rows but neither values nor nulls: statistics of writers that recorded none (old files)
        return MAYBE
    all_null = count == 0 and has_null is True
    no_nulls = has_null is False and count >= rows
    op = p.op
    if op == "is null":
        # a field of a struct is null where the struct is, which ORC Java leaves out of the field's hasNull: only
        # a value in every row rules nulls out
        if has_null is False and count >= rows:
            return NO
        return YES if all_null else MAYBE
    if op == "is not null":
        if all_null:
            return NO
        return YES if no_nulls else MAYBE
    if all_null:
        return YES if op in NULL_SATISFIES else NO
    kind = p.node.kind
    if kind == "boolean":
        return with_nulls(op, _boolean(p, s), no_nulls)
    if kind not in RANGE_KINDS:
        return MAYBE
    low, high, exact = _bounds(p, s)
    if low is None or high is None or not all(comparable(v, low) for v in p.values):
        return MAYBE
    return with_nulls(op, values_verdict(op, p.values, low, high, exact, kind in FLOAT_KINDS), no_nulls)


def with_nulls(op: str, on_values: int, no_nulls: bool) -> int:
    """The verdict over all rows from ``on_values``, the verdict over the rows that hold a value, and whether no
    row is null: a null satisfies the ops of :data:`~orcjit.pushdown.semantics.NULL_SATISFIES` (``not in``) and
    fails every other, so nulls keep those from NO and the others from YES."""
    if no_nulls:
        return on_values
    if op in NULL_SATISFIES:
        return MAYBE if on_values == NO else on_values
    return MAYBE if on_values == YES else on_values


def values_verdict(op: str, values: tuple[Any, ...], low: Any, high: Any, exact: bool, floating: bool) -> int:
    """Can the non-null values of a column, all within ``[low, high]`` (the real minimum and maximum when
    ``exact``), satisfy ``op values``? ``floating``: the column is a float column, whose NaN values no statistics
    show; a NaN satisfies ``!=``, ``not in`` without NaN listed, and ``in`` with NaN listed."""
    single = exact and low == high  # every value (but NaN) equals low
    if op in ("in", "not in"):
        nan_listed = any(is_nan(v) for v in values)
        members = [v for v in values if not is_nan(v)]
        if op == "in":
            if floating and nan_listed:
                return MAYBE
            inside = [v for v in members if low <= v <= high]
            if not inside:
                return NO
            return YES if single and not floating and any(v == low for v in inside) else MAYBE
        if single and any(v == low for v in members) and (not floating or nan_listed):
            return NO
        return YES if not nan_listed and all(v < low or v > high for v in members) else MAYBE
    v = values[0]
    if is_nan(v):
        return YES if op == "!=" else NO  # IEEE: NaN is unequal to everything and in no order
    certain = not floating  # a NaN value fails every comparison but !=
    if op == "==":
        if v < low or v > high:
            return NO
        return YES if single and certain and v == low else MAYBE
    if op == "!=":
        if single and certain and v == low:
            return NO
        return YES if v < low or v > high else MAYBE
    if op == "<":
        return NO if low >= v else (YES if certain and high < v else MAYBE)
    if op == "<=":
        return NO if low > v else (YES if certain and high <= v else MAYBE)
    if op == ">":
        return NO if high <= v else (YES if certain and low > v else MAYBE)
    if op == ">=":
        return NO if high < v else (YES if certain and low >= v else MAYBE)
    return MAYBE


def _boolean(p: Predicate, s: ColumnStatistics) -> int:
    """The verdict over a boolean column's non-null values, from its true and false counts."""
    true_count, false_count = s.true_count, s.false_count
    if true_count is None or false_count is None:
        return MAYBE
    wanted = set(p.values) if p.op in ("in", "not in") else {p.value}
    if p.op in ("!=", "not in"):
        wanted = {True, False} - wanted
    elif p.op not in ("==", "in"):
        return MAYBE
    present = {v for v, n in ((True, true_count), (False, false_count)) if n > 0}
    if not present & wanted:
        return NO
    return YES if present <= wanted else MAYBE
