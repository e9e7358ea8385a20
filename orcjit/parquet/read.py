"""Filtered Parquet reads that skip row groups by statistics, then by split-block bloom filters.

Filters mean what they mean for :func:`orcjit.read_orc` (:mod:`orcjit.pushdown.semantics`): the rows
``pyarrow.dataset`` keeps for the filter ``pyarrow.parquet.filters_to_expression`` builds, which
``pq.read_table(path, filters=filters)`` and ``pandas.read_parquet`` return, but for the documented departures
(``-0.0`` and ``0.0`` are one member of an ``in`` list; a ``float`` column's values are compared exactly with a
listed double; a ``pandas.Timestamp`` keeps its nanoseconds).

:func:`plan_row_groups` decides, for each row group, whether a filter can match any of its rows, in two stages and
with three-valued logic (yes / no / maybe, where anything not understood is *maybe* and the group is kept):

1. the footer's statistics (min, max, null count), read with pyarrow's typed statistics;
2. for ``==`` and ``in`` tests the statistics left at *maybe*, the column chunk's bloom filter
   (:func:`orcjit.parquet.bloom.bloom_filter`), which says *no* when none of the values hashes into it.

:func:`read_parquet` reads the kept row groups with pyarrow and filters their rows exactly with a pyarrow expression
that :func:`_expression` builds from the semantics' definitions.

Columns (in ``columns`` and in filters) are top-level names. Filters may only test top-level primitive columns
(not struct, list or map columns, whose leaves pyarrow's expression filters do not address by a dotted name).
"""

from __future__ import annotations

import decimal
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import OrcError
from ..pushdown.filters import NULL_OPS, OPS, SET_OPS, canonical_op, dnf_terms
from ..pushdown.prune import MAYBE as _MAYBE
from ..pushdown.prune import NO as _NO
from ..pushdown.prune import YES as _YES
from ..pushdown.prune import values_verdict, with_nulls
from ..pushdown.semantics import NULL_SATISFIES, float_members, is_nan
from ..types.resolve import resolve_name
from .bloom import bloom_filter
from .errors import ParquetError
from .metadata import read_metadata

__all__ = ["RowGroupPlan", "plan_row_groups", "read_parquet"]

YES, NO, MAYBE = "yes", "no", "maybe"
_NAMES = {_YES: YES, _NO: NO, _MAYBE: MAYBE}


@dataclass(frozen=True)
class _Test:
    """One checked ``(column, op, value)``: ``values`` holds the value(s) as the column's Python type (a float
    column's as the doubles given)."""

    column: str
    leaf: int
    arrow_type: pa.DataType
    op: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class RowGroupPlan:
    """Which row groups a filtered read keeps, and which stage skipped the others.

    Attributes
    ----------
    num_row_groups : int
        Row groups in the file.
    kept : tuple of int
        Row groups read (their rows are then filtered exactly).
    skipped_by_statistics : tuple of int
        Row groups whose min/max/null count rule out every row.
    skipped_by_bloom_filter : tuple of int
        Row groups the statistics kept but whose bloom filters hold none of the ``==`` / ``in`` values.
    rows_kept : int
        Rows in the kept row groups.
    """

    num_row_groups: int
    kept: tuple[int, ...]
    skipped_by_statistics: tuple[int, ...] = ()
    skipped_by_bloom_filter: tuple[int, ...] = ()
    rows_kept: int = 0
    bloom_filters_read: int = field(default=0, compare=False)


def _describe(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return getattr(source, "name", None) or type(source).__name__


def _open(source: Any, filesystem: Any) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(source, filesystem=filesystem)
    except (OSError, pa.ArrowException) as exc:
        raise ParquetError(f"{_describe(source)}: not a readable Parquet file ({exc})") from exc


def _coerce(value: Any, arrow_type: pa.DataType, term: Any) -> Any:
    if value is None:
        raise ParquetError(f"filter {term!r}: compare with None through 'is null' / 'is not null'")
    if pa.types.is_floating(arrow_type) and isinstance(value, (int, float, np.integer, np.floating)):
        # exactly the double given: a float32 column's values are compared with it, not with it rounded
        try:
            return float(value)
        except OverflowError as exc:
            raise ParquetError(f"filter {term!r}: {value!r} is beyond the range of {arrow_type}") from exc
    try:
        return pa.scalar(value, type=arrow_type).as_py()
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise ParquetError(f"filter {term!r}: {value!r} is not a value of the column's type {arrow_type}") from exc


def _test(term: Any, pf: pq.ParquetFile, name: str) -> _Test:
    if not isinstance(term, (tuple, list)) or len(term) not in (2, 3) or not isinstance(term[0], str):
        raise ParquetError(f"{name}: filter {term!r} is not a (column, op, value) tuple")
    column, written = term[0], term[1]
    op = canonical_op(written)
    if op is None:
        raise ParquetError(f"{name}: filter {term!r} has an unknown op {written!r}; use one of {', '.join(OPS)}")
    schema = pf.schema_arrow
    try:
        position = resolve_name(column, schema.names)
    except OrcError as exc:
        raise ParquetError(f"{name}: filter {term!r}: {exc}") from None
    arrow_type = schema.field(position).type
    if pa.types.is_nested(arrow_type):
        raise ParquetError(f"{name}: filter {term!r}: column {column!r} is not primitive ({arrow_type})")
    paths = [pf.schema.column(i).path for i in range(len(pf.schema))]
    leaf = paths.index(column)
    if op in NULL_OPS:
        if len(term) == 3 and term[2] is not None:
            raise ParquetError(f"{name}: filter {term!r}: a null test takes no value")
        return _Test(column, leaf, arrow_type, op, ())
    if len(term) != 3:
        raise ParquetError(f"{name}: filter {term!r} needs a value")
    if op in SET_OPS:
        given = term[2]
        if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
            raise ParquetError(f"{name}: filter {term!r}: {op!r} takes a list of values")
        raw = tuple(given)  # empty: "in" keeps no row, "not in" every row
    else:
        raw = (term[2],)
    values = tuple(_coerce(v, arrow_type, term) for v in raw)
    return _Test(column, leaf, arrow_type, op, values)


def _normalize(filters: Any, pf: pq.ParquetFile, name: str) -> list[list[_Test]] | None:
    try:
        groups = dnf_terms(filters)
    except OrcError as exc:
        raise ParquetError(f"{name}: {exc}") from None
    return None if groups is None else [[_test(term, pf, name) for term in conj] for conj in groups]


def _comparable(test: _Test, stats: Any) -> tuple[Any, Any, tuple[Any, ...]] | None:
    """The statistics' min and max and the test's values on one scale, or None if they cannot be compared."""
    kind = test.arrow_type
    if pa.types.is_timestamp(kind) or pa.types.is_date(kind) or pa.types.is_time(kind):
        # physical integers in the column's unit: Python datetimes would drop nanoseconds
        try:
            physical = pa.int32() if kind.bit_width == 32 else pa.int64()
            values = tuple(pa.scalar(v, type=kind).cast(physical).as_py() for v in test.values)
            lo, hi = stats.min_raw, stats.max_raw
        except (pa.ArrowException, TypeError, ValueError):
            return None
        if not isinstance(lo, int) or not isinstance(hi, int):
            return None
        return lo, hi, values
    if pa.types.is_boolean(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind):
        lo, hi = stats.min, stats.max
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        lo, hi = stats.min, stats.max
        if not isinstance(lo, str) or not isinstance(hi, str):
            return None
    elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind):
        lo, hi = stats.min, stats.max
        if not isinstance(lo, bytes) or not isinstance(hi, bytes):
            return None
    elif pa.types.is_decimal(kind):
        lo, hi = stats.min, stats.max
        if not isinstance(lo, decimal.Decimal) or not isinstance(hi, decimal.Decimal):
            return None
    else:
        return None
    # writers leave NaN out of float min/max; a NaN bound (old writers) or value says nothing
    if pa.types.is_floating(kind) and any(isinstance(x, float) and math.isnan(x) for x in (lo, hi, *test.values)):
        return None
    return lo, hi, test.values


def _by_statistics(test: _Test, rg: pq.RowGroupMetaData) -> str:
    stats = rg.column(test.leaf).statistics
    rows = rg.num_rows
    if stats is None:
        return MAYBE
    nulls = stats.null_count if stats.has_null_count else None
    if test.op == "is null":
        if nulls is None:
            return MAYBE
        return NO if nulls == 0 else (YES if nulls == rows else MAYBE)
    if test.op == "is not null":
        if nulls is None:
            return MAYBE
        return NO if nulls == rows else (YES if nulls == 0 else MAYBE)
    if nulls is not None and nulls == rows and rows > 0:
        return YES if test.op in NULL_SATISFIES else NO  # every row null: "not in" holds on each, nothing else
    if not stats.has_min_max:
        return MAYBE
    try:
        scaled = _comparable(test, stats)
        if scaled is None:
            return MAYBE
        lo, hi, values = scaled
        on_values = values_verdict(test.op, values, lo, hi, True, pa.types.is_floating(test.arrow_type))
        return _NAMES[with_nulls(test.op, on_values, nulls == 0)]
    except (TypeError, ValueError, pa.ArrowException):
        return MAYBE  # statistics pyarrow cannot decode (bytes that are not UTF-8, say) prune nothing


def _combine(filters: list[list[str]]) -> str:
    results = []
    for conj in filters:
        results.append(NO if NO in conj else (YES if all(r == YES for r in conj) else MAYBE))
    return YES if YES in results else (NO if all(r == NO for r in results) else MAYBE)


class _Blooms:
    """Bloom filters read on demand, once per (row group, column)."""

    def __init__(self, source: Any, filesystem: Any) -> None:
        self.source, self.filesystem = source, filesystem
        self.meta: Any = None
        self.cache: dict[tuple[int, str], Any] = {}
        self.read = 0

    def says_no(self, row_group: int, test: _Test) -> bool:
        if self.meta is None:
            self.meta = read_metadata(self.source, filesystem=self.filesystem)
        key = (row_group, test.column)
        if key not in self.cache:
            self.cache[key] = bloom_filter(self.meta, row_group, test.column)
            self.read += self.cache[key] is not None
        found = self.cache[key]
        if found is None or any(is_nan(v) for v in test.values):
            return False  # no filter, or NaN, whose bits (and so hashes) vary: keep the group
        try:
            return not any(bool(m) for m in found.might_contain_many(list(test.values)))
        except ParquetError:
            return False  # a value the filter's hashing does not cover: keep the group

    def close(self) -> None:
        if self.meta is not None:
            self.meta.close()


def _with_blooms(
    filters: list[list[_Test]], verdicts: list[list[str]], row_group: int, blooms: _Blooms
) -> list[list[str]]:
    """The verdicts with each ``==`` / ``in`` test the statistics left at maybe asked of its bloom filter."""
    out = []
    for conj, results in zip(filters, verdicts, strict=True):
        out.append(
            [
                NO if r == MAYBE and t.op in ("==", "in") and blooms.says_no(row_group, t) else r
                for t, r in zip(conj, results, strict=True)
            ]
        )
    return out


def _plan(pf: pq.ParquetFile, filters: list[list[_Test]] | None, source: Any, filesystem: Any) -> RowGroupPlan:
    meta = pf.metadata
    count = meta.num_row_groups
    if filters is None:
        rows = sum(meta.row_group(i).num_rows for i in range(count))
        return RowGroupPlan(count, tuple(range(count)), rows_kept=rows)
    kept: list[int] = []
    by_stats: list[int] = []
    by_bloom: list[int] = []
    rows = 0
    blooms = _Blooms(source, filesystem)
    try:
        for i in range(count):
            rg = meta.row_group(i)
            verdicts = [[_by_statistics(t, rg) for t in conj] for conj in filters]
            if _combine(verdicts) == NO:
                by_stats.append(i)
                continue
            if _combine(verdicts) == MAYBE and _combine(_with_blooms(filters, verdicts, i, blooms)) == NO:
                by_bloom.append(i)
                continue
            kept.append(i)
            rows += rg.num_rows
    finally:
        blooms.close()
    return RowGroupPlan(count, tuple(kept), tuple(by_stats), tuple(by_bloom), rows, blooms.read)


def plan_row_groups(source: Any, filters: Any, *, filesystem: Any = None) -> RowGroupPlan:
    """Decide which row groups of a Parquet file a filter can match, without reading their data.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        The Parquet file.
    filters : list of tuples or list of lists of tuples, or None
        Filters as for :func:`read_parquet`.
    filesystem : pyarrow or fsspec filesystem, optional
        Where ``source`` lives.

    Returns
    -------
    RowGroupPlan
        The row groups kept and those skipped by statistics and by bloom filters.

    Raises
    ------
    ParquetError
        On an unreadable file, a malformed filter, an unknown column or a value not of the column's type.
    """
    pf = _open(source, filesystem)
    try:
        return _plan(pf, _normalize(filters, pf, _describe(source)), source, filesystem)
    finally:
        pf.close()


def _scalar(test: _Test, value: Any) -> pa.Scalar:
    # a float column is compared with the double given (pyarrow widens float32 values to it), anything else with
    # the value in the column's own type, exactly (a pandas.Timestamp keeps its nanoseconds)
    if pa.types.is_floating(test.arrow_type):
        return pa.scalar(value, pa.float64())
    return pa.scalar(value, test.arrow_type)


def _membership(test: _Test, field: Any) -> Any:
    """Where a value of the column is a member of the test's list (null where it is null)."""
    if pa.types.is_floating(test.arrow_type):
        # pyarrow's is_in tells -0.0 from 0.0 and rounds the list to float32: look up doubles, both zeros listed
        members, nan = float_members(test.values)
        inside = field.cast(pa.float64()).isin(pa.array(members, pa.float64()))
        return inside | pc.is_nan(field) if nan else inside
    return field.isin(pa.array(test.values, test.arrow_type))


_COMPARE = {
    "==": lambda f, v: f == v,
    "!=": lambda f, v: f != v,
    "<": lambda f, v: f < v,
    "<=": lambda f, v: f <= v,
    ">": lambda f, v: f > v,
    ">=": lambda f, v: f >= v,
}


def _expression(filters: list[list[_Test]]) -> Any:
    """The filters as a pyarrow expression with the semantics of :mod:`orcjit.pushdown.semantics`; a row is kept
    where it is true (pyarrow's Kleene logic makes a comparison with a null null, which drops the row)."""
    disjunction = None
    for conj in filters:
        conjunction = None
        for t in conj:
            field = pc.field(t.column)
            if t.op == "is null":
                term = field.is_null()
            elif t.op == "is not null":
                term = field.is_valid()
            elif t.op in SET_OPS:
                inside = _membership(t, field)
                term = ~inside | field.is_null() if t.op == "not in" else inside
            else:
                term = _COMPARE[t.op](field, _scalar(t, t.values[0]))
            conjunction = term if conjunction is None else conjunction & term
        disjunction = conjunction if disjunction is None else disjunction | conjunction
    return disjunction


def read_parquet(
    source: Any, columns: list[str] | None = None, filters: Any = None, *, filesystem: Any = None
) -> pd.DataFrame:
    """Read the rows of a Parquet file that match ``filters``, skipping row groups by statistics and bloom filters.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        The Parquet file.
    columns : list of str, optional
        Top-level columns to return, in this order; all of them by default.
    filters : list of tuples or list of lists of tuples, optional
        The pandas/pyarrow DNF convention: ``[(column, op, value), ...]`` is a conjunction and
        ``[[...], [...]]`` a disjunction of conjunctions. Ops: ``==`` (or ``=``), ``!=``, ``<``, ``<=``, ``>``,
        ``>=``, ``in``, ``not in``, ``is null``, ``is not null`` (with the spellings :func:`orcjit.read_orc`
        takes). Columns are top-level primitive columns. Values must convert to the column's type. Rows are
        selected as :func:`orcjit.read_orc` selects them (:mod:`orcjit.pushdown.semantics`), which is as pyarrow's
        filters select them: a null satisfies no comparison but does satisfy ``not in``; NaN compares as IEEE 754
        says and is a member of a list that holds NaN; ``-0.0`` equals ``0.0``, in lists too.
    filesystem : pyarrow or fsspec filesystem, optional
        Where ``source`` lives.

    Returns
    -------
    pandas.DataFrame
        Exactly the matching rows, equal to ``pq.read_table(source, filters=filters, columns=columns).to_pandas()``
        but for the departures :mod:`orcjit.pushdown.semantics` documents.

    Raises
    ------
    ParquetError
        On an unreadable file, an unknown column, a malformed filter or a value not of the column's type.

    See Also
    --------
    plan_row_groups : which row groups the read keeps, and why it skips the others.
    """
    return _read(source, columns, filters, filesystem)[0]


def _read(source: Any, columns: list[str] | None, filters: Any, filesystem: Any) -> tuple[pd.DataFrame, RowGroupPlan]:
    name = _describe(source)
    pf = _open(source, filesystem)
    try:
        names = pf.schema_arrow.names
        if columns is not None:
            if isinstance(columns, str) or not isinstance(columns, Iterable):
                raise ParquetError(f"{name}: columns must be a list of column names")
            columns = list(columns)
            try:
                for column in columns:
                    resolve_name(column, names)
            except OrcError as exc:
                raise ParquetError(f"{name}: {exc}") from None
        tests = _normalize(filters, pf, name)
        plan = _plan(pf, tests, source, filesystem)
        wanted = list(names) if columns is None else columns
        needed = list(dict.fromkeys(wanted + [t.column for conj in tests or [] for t in conj]))
        table = pf.read_row_groups(list(plan.kept), columns=needed)
        if tests is not None:
            table = table.filter(_expression(tests))
        return table.select(wanted).to_pandas(), plan
    except pa.ArrowException as exc:
        raise ParquetError(f"{name}: {exc}") from exc
    finally:
        pf.close()
