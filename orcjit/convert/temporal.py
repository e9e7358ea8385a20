"""Timestamps and dates.

``timestamp`` columns become ``datetime64[ns]`` (the writer's wall clock, naive), ``timestamp with local time
zone`` columns UTC instants (``datetime64[ns, UTC]``; inside lists, maps and structs naive instants, as Arrow
converts them there); nulls are NaT. Dates become one ``datetime.date`` per distinct day, shared by the rows
holding it: a table over the column's range of days (or its distinct days, when the range is wide) and one take;
when the range is wide and most days distinct, one per row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..decode.vector import ColumnVector
from ..errors import OrcError
from ..kernels.convert import distinct_rows, set_nulls
from ..types.schema import TypeNode
from .chunks import check, dedupe_sample, kernel_valid, read_only, table_take, valid_of, values_of
from .env import utc_dtype

__all__ = ["MAX_DATE_DAY", "MIN_DATE_DAY", "dates", "timestamps"]

_NANOSECONDS = np.dtype("M8[ns]")
# the days datetime.date can hold: 0001-01-01 .. 9999-12-31, counted from 1970-01-01
MIN_DATE_DAY = -719162
MAX_DATE_DAY = 2932896


def timestamps(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    values = values_of(chunks, np.int64)
    valid = valid_of(chunks)
    if valid is not None:
        check(set_nulls(values, read_only(valid), np.iinfo(np.int64).min))  # NaT
    stamps = values.view(_NANOSECONDS)
    if target == "element":
        return stamps
    # the DatetimeArray pandas holds a column in, made without its checks (it checked a naive column's values
    # again each time a frame took it in); the values are nanoseconds as decoded
    naive = node.kind == "timestamp"
    dtype = _NANOSECONDS if naive else utc_dtype()
    try:
        return pd.arrays.DatetimeArray._simple_new(stamps, dtype=dtype)
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without the internal constructor
        return stamps if naive else pd.DatetimeIndex(stamps).tz_localize(dtype.tz).array


def dates(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    """``datetime.date`` objects, one per distinct day, shared by the rows holding it (one per row when the days
    are spread wide and most of them distinct)."""
    days = read_only(values_of(chunks, np.int32, owned=False))
    mask = valid_of(chunks)
    # NumPy's vectorised minimum and maximum, and a subtraction below: as fast as a kernel, and nothing to compile
    # in a new environment
    present = days if mask is None else days[mask]
    lo, hi = (int(present.min()), int(present.max())) if len(present) else (0, -1)
    if lo < MIN_DATE_DAY or hi > MAX_DATE_DAY:
        bad = lo if lo < MIN_DATE_DAY else hi
        raise OrcError(f"date {bad} days from 1970-01-01 is outside the years 1 .. 9999 that datetime.date holds")
    indices = np.empty(len(days), dtype=np.intp)
    if hi - lo < max(2 * len(days), 4096):
        # a table over the range: no hashing (a day minus lo fits int32 as the range is small; null slots wrap)
        table = np.arange(lo, hi + 1, dtype=np.int64).astype("M8[D]").astype(object)
        np.subtract(days, np.int32(lo), out=indices)
        if mask is not None:
            indices[~mask] = -1
    else:
        firsts = np.empty(len(days), dtype=np.intp)
        valid = kernel_valid(mask)
        distinct = check(distinct_rows(days.reshape(-1, 1), valid, indices, firsts, dedupe_sample(len(days))))
        if distinct < 0:  # mostly distinct days: one object per row
            out = days.astype("M8[D]").astype(object)
            if mask is not None:
                out[~mask] = None
            return out
        table = days[firsts[:distinct]].astype("M8[D]").astype(object)
    return table_take(table, indices)
