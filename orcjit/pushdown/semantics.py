"""What a filter means: the one definition every filtered read of orcjit shares.

Filter semantics
----------------
orcjit answers filters in two conventions, one for each kind of caller.

**pandas-facing reads** (:func:`orcjit.read_orc`; ``ORCFile.read``, ``read_stripe``, ``iter_stripes``,
``read_arrow`` and ``explain``; :func:`orcjit.parquet.read_parquet` and :func:`orcjit.parquet.plan_row_groups`; the
CLI's ``--filter``) keep the rows ``pyarrow.dataset`` keeps for the same filter built by
``pyarrow.parquet.filters_to_expression``, which are the rows ``pandas.read_parquet(path, filters=...)`` returns:

- ``[(column, op, value), ...]`` is a conjunction and ``[[...], [...]]`` a disjunction of conjunctions: a row is
  kept when every test of at least one conjunction holds on it.
- A null (a missing value, or a field of a struct that is null) satisfies ``is null`` and ``not in``, and nothing
  else: no comparison (``!=`` included) and no ``in``. So ``("x", "not in", [1])`` keeps the rows where ``x`` is
  null, as pyarrow's ``~is_in`` does; add ``("x", "is not null")`` to the conjunction for SQL's answer.
- NaN is a value, not a null (``is null`` does not match it). Comparisons follow IEEE 754: NaN satisfies ``!=``
  (with any value, NaN too) and no other comparison. In a list NaN is a member like any value: ``x in [nan]`` keeps
  the NaN rows and ``x not in [nan]`` drops them.
- ``-0.0`` equals ``0.0`` in ``==``, ``!=``, ``in`` and ``not in`` alike.
- Values compare exactly with the column's values: an integer column with a fraction (``i < 2.5``), a ``float``
  (32-bit) column with the double given (``f == 0.1`` and ``f in [0.1]`` both miss the float32 nearest to 0.1,
  while ``f > 0.1`` keeps it), decimals at any scale, timestamps to the nanosecond.
- ``in []`` keeps no row; ``not in []`` keeps every row, nulls included.

orcjit departs from pyarrow on purpose in four places, where pyarrow's answer depends on how a value is written or
how a file is laid out rather than on the values:

- pyarrow's ``is_in`` tells the two zeros apart (``x in [0.0]`` misses ``-0.0``, ``x not in [0.0]`` keeps it),
  though its ``x == 0.0`` does not: orcjit's ``in`` is "equal to a listed value", with both zeros equal.
- pyarrow rounds an ``in`` list to a ``float`` column's type first (``f in [0.1]`` matches the float32 nearest 0.1,
  ``f in [1e300]`` matches infinity): orcjit compares the list's values exactly, as ``==`` does.
- ``pyarrow.parquet.filters_to_expression`` turns a ``pandas.Timestamp`` into microseconds, dropping its
  nanoseconds: orcjit keeps them (give pyarrow ``numpy.datetime64`` values and it compares the same).
- ``pyarrow.dataset`` (so ``pq.read_table`` and ``pandas.read_parquet``) skips a Parquet file's row groups by
  minima and maxima, which leave NaN out, as if there were no NaN: where a row group's other values all fail
  ``x != v``, ``x not in [...]`` or ``x in [nan]``, its NaN rows are lost. orcjit's pruning keeps such row groups
  (a float column's statistics never rule NaN out), so it returns every row pyarrow's expression selects.

orcjit also takes an empty list for every column type (pyarrow's conversion types ``[]`` as null, which it cannot
compare with a string column).

**Spark SQL** (the :mod:`orcjit.spark` data source) keeps Spark's own semantics, which Spark requires because it
does not re-apply a filter it pushed: a filter keeps a row only where it is TRUE in SQL's three-valued logic, so
``a NOT IN (1, 2)`` and ``a <> 1`` never keep a null, and ``NOT IN`` with a null listed keeps nothing.
:func:`orcjit.spark.filters.translate` writes each pushed filter in the convention above with the SQL answer made
explicit (``a NOT IN (1, 2)`` becomes ``("a", "not in", [1, 2])`` and ``("a", "is not null")``) and leaves Spark
the filters it cannot write exactly (those where Spark's NaN, equal to itself and above every number, differs).

Skipping data (file, stripe and row-group statistics, bloom filters, Parquet row groups) is decided with three-valued
logic under the first convention: a part of a file is skipped only when no row of it can satisfy the filter, and a
null row can satisfy ``not in`` (:func:`orcjit.pushdown.prune.with_nulls`); bloom filters are asked only about
``==`` and ``in``, which no null satisfies, and never rule out NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["NULL_SATISFIES", "float_members", "float_membership", "is_nan", "with_null_rows"]

NULL_SATISFIES = frozenset({"is null", "not in"})
"""The ops a null satisfies."""


def is_nan(value: Any) -> bool:
    """Whether a filter's value is a float NaN."""
    return isinstance(value, float) and math.isnan(value)


def float_members(values: Iterable[Any]) -> tuple[list[float], bool]:
    """An ``in`` list of a float column as the values to look up and whether NaN is listed.

    The values are the listed numbers other than NaN, as doubles, with both zeros wherever one is (a lookup by
    bits or by hash then finds either).
    """
    members: list[float] = []
    nan = False
    for v in values:
        x = float(v)
        if math.isnan(x):
            nan = True
        elif x == 0.0:
            members += [0.0, -0.0]
        else:
            members.append(x)
    return members, nan


def float_membership(values: np.ndarray, listed: Iterable[Any]) -> np.ndarray:
    """Which of ``values`` (float64) are members of ``listed``: equal to a listed number, or NaN where NaN is
    listed. Whether a row is null is not this function's concern (see :func:`with_null_rows`)."""
    members, nan = float_members(listed)
    inside = np.isin(values, np.array(members, dtype=np.float64)) if members else np.zeros(len(values), bool)
    if nan:
        inside |= np.isnan(values)
    return inside


def with_null_rows(op: str, on_values: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    """Rows satisfying ``op``, from ``on_values`` (the answer where a row has a value) and ``valid`` (which rows
    have one; ``None`` when all do): a null row satisfies the ops in :data:`NULL_SATISFIES` and no other."""
    if valid is None:
        return on_values
    return on_values | ~valid if op in NULL_SATISFIES else on_values & valid
