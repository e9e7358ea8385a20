"""What every converter does with a column's chunks (its decoded vectors in row order): their values end to end,
their validity, and object arrays taken from a small table of objects."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..decode.vector import ColumnVector
from ..kernels.status import BAD_LENGTH

__all__ = [
    "DEDUPE_MIN_VALUES",
    "DEDUPE_SAMPLE",
    "NO_VALIDITY",
    "check",
    "chunk_values",
    "dedupe_sample",
    "kernel_valid",
    "null_count",
    "nulls_mask",
    "read_only",
    "table_take",
    "valid_of",
    "values_of",
]

# below this many values a column is converted value by value without looking for repeats
DEDUPE_MIN_VALUES = 256
# the most values the search for repeats looks at before it decides whether they are worth it
DEDUPE_SAMPLE = 8192

NO_VALIDITY = np.zeros(0, dtype=np.bool_)  # the kernels' "every slot valid": one compiled variant instead of None
NO_VALIDITY.flags.writeable = False


def dedupe_sample(n: int) -> int:
    """How many of a column's ``n`` values the search for repeated values (the ``sample`` of
    :func:`~orcjit.kernels.convert.distinct_rows` and :func:`~orcjit.kernels.convert.distinct_strings`) looks at
    before it gives up when more than half of them are distinct (and again at twice as many, four times ...): a
    quarter of the column, at least :data:`DEDUPE_MIN_VALUES` and at most :data:`DEDUPE_SAMPLE`. A column of
    mostly distinct values is then hashed over a quarter of its values at most, not all of them before a
    conversion of every value all the same."""
    return min(DEDUPE_SAMPLE, max(DEDUPE_MIN_VALUES, n // 4))


def chunk_values(vec: ColumnVector, dtype: Any, width: int = 1) -> np.ndarray:
    """One chunk's values as ``dtype``, ``width`` lanes per slot (zeros where the chunk holds none)."""
    if vec.values is None:
        return np.zeros((vec.length, width) if width > 1 else vec.length, dtype=dtype)
    values = vec.values
    if dtype == np.bool_ and values.dtype in (np.uint8, np.int8):
        values = values.view(np.bool_)  # 0 / 1 bytes, as the boolean decoder writes them
    values = values.astype(dtype, copy=False)
    return values.reshape(-1, width) if width > 1 else values


def values_of(chunks: list[ColumnVector], dtype: Any, width: int = 1, owned: bool = True) -> np.ndarray:
    """The chunks' values end to end as ``dtype`` (``width`` lanes per slot).

    ``owned``: in an array the result may own and write to: a lone writable array as it is (the documented
    contract of the converters: a lone writable chunk is taken over, nulls written into it), read-only values
    copied, several chunks concatenated once. Otherwise the values are only read and may be a view.
    """
    parts = [chunk_values(c, dtype, width) for c in chunks]
    if len(parts) == 1:
        values = parts[0]
        return values if values.flags.writeable or not owned else values.copy()
    if not parts:
        return np.empty((0, width) if width > 1 else 0, dtype=dtype)
    return np.concatenate(parts)


def null_count(chunks: list[ColumnVector]) -> int:
    """Null slots over all chunks."""
    return sum(c.null_count for c in chunks)


def valid_of(chunks: list[ColumnVector]) -> np.ndarray | None:
    """The column's validity over all chunks; ``None`` when no slot is null (a vector may carry an all-True mask,
    which Arrow, counting nulls, treats as none)."""
    if null_count(chunks) == 0:
        return None
    if len(chunks) == 1:
        return chunks[0].valid
    return np.concatenate([np.ones(c.length, dtype=np.bool_) if c.valid is None else c.valid for c in chunks])


def nulls_mask(valid: np.ndarray | None, n: int) -> np.ndarray:
    """pandas' mask of a masked array: True at null slots."""
    return np.zeros(n, dtype=np.bool_) if valid is None else ~valid


def kernel_valid(valid: np.ndarray | None) -> np.ndarray:
    """Validity as the conversion kernels take it (:mod:`orcjit.kernels.convert`)."""
    return NO_VALIDITY if valid is None else read_only(valid)


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view: kernels then compile once, not once per writability of their inputs."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


def check(result: int) -> int:
    """A conversion kernel's result, after making sure it was called right."""
    if result == BAD_LENGTH:
        raise AssertionError("kernel called with arrays of different lengths")
    return result


def table_take(table: list[Any] | np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``table[indices]`` as an object array, ``None`` where an index is -1."""
    if isinstance(table, np.ndarray) and table.dtype == object and table.ndim == 1:
        objects = table  # only read
    else:
        objects = np.empty(len(table), dtype=object)
        objects[:] = table
    out = np.empty(len(indices), dtype=object)
    take = _object_take()
    if take is not None:
        take(objects, indices, out, fill_value=None)
        return out
    with_none = np.empty(len(objects) + 1, dtype=object)  # None last, where index -1 points
    with_none[:-1] = objects
    return np.take(with_none, indices, out=out)


@functools.cache
def _object_take() -> Any:
    """pandas' compiled object take (with a fill value for -1): a quarter faster than ``numpy.take``, whose
    reference counting goes through a generic per-item call. Internal to pandas, so looked up with care."""
    try:
        from pandas._libs import algos

        take = algos.take_1d_object_object
        probe = np.empty(2, dtype=object)
        take(np.array(["x"], dtype=object), np.array([0, -1], dtype=np.intp), probe, fill_value=None)
    except (ImportError, AttributeError, TypeError, ValueError):  # pragma: no cover - another pandas
        return None
    return take if probe[0] == "x" and probe[1] is None else None
