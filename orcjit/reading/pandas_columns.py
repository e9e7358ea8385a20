"""One column's decoded vectors straight to a pandas array, without a ``pyarrow.Table`` in between.

:func:`to_pandas_array` gives, for the primitive kinds, the array that ``pyarrow.Table.to_pandas`` (with
pandas.read_orc's ``types_mapper``) makes of the Arrow column :func:`orcjit.reading.arrow.to_arrow` builds, so that
``pd.Series(result)`` equals that column in dtype and values. What it does differently is where the time goes:

- fixed-width values are handed over as they are: one writable array becomes the result itself (nulls written
  into it in place), several are concatenated once;
- strings become Arrow ``large_string`` arrays over the vectors' own int64 offsets and bytes, which pandas'
  Arrow-backed ``str`` dtype stores as they are (Arrow's ORC path casts its 32-bit offsets to 64 bits first);
- dates become one ``datetime.date`` per distinct day, shared by every row holding it: a table over the
  column's range of days (or its distinct days, when the range is wide) and one ``take``;
- decimals become ``Decimal`` objects made by ``Decimal(10**-scale) * unscaled`` under a wide context: an exact
  product with the column's exponent. That measured at about half the cost of ``Decimal(str)`` of
  Numba-formatted text (``"-123456E-6"``, which also needs one Python ``str`` per value) and of
  ``Decimal(int).scaleb(-scale)``. Repeated values are found first with a Numba hash table and made once;
- with ``dtype_backend="pyarrow"`` every chunk is an Arrow array over the vectors' buffers, decimals included.

Lists, maps, structs, unions and strings kept as dictionaries (``dictionary_as_category``) are left to the Arrow
path: :func:`to_pandas_array` returns ``None`` for them.
"""

from __future__ import annotations

import decimal
import functools
import itertools
import operator
from typing import Any

import numpy as np
import pandas as pd

from ..errors import OrcError
from ..kernels.convert import distinct_rows, fill_nulls, set_nulls, table_indices, value_range
from ..kernels.status import BAD_LENGTH
from ..schema import TypeNode
from .columns import DEFAULT_DECIMAL, STRING_KINDS
from .vector import ColumnVector

__all__ = ["decimal_objects", "to_pandas_array"]

BACKENDS = ("numpy", "numpy_nullable", "pyarrow")
INTEGER_DTYPES = {"tinyint": np.int8, "smallint": np.int16, "int": np.int32, "bigint": np.int64}
FLOAT_DTYPES = {"float": np.float32, "double": np.float64}
TIMESTAMP_KINDS = frozenset({"timestamp", "timestamp with local time zone"})
# the days datetime.date can hold: 0001-01-01 .. 9999-12-31, counted from 1970-01-01
MIN_DATE_DAY = -719162
MAX_DATE_DAY = 2932896
# below this many values a column is converted value by value without looking for repeats
DEDUPE_MIN_VALUES = 256
# stop looking for repeated decimals when more than half of the first DEDUPE_SAMPLE values (2x, 4x ...) differ
DEDUPE_SAMPLE = 8192
# values converted per block: Python ints for a block at a time stay in cache and their memory is reused
DECIMAL_BLOCK = 1 << 14
# exact products and any exponent: 2**128 has 39 digits
_WIDE = decimal.Context(prec=80, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.InvalidOperation])
# the most bytes one string array with 32-bit offsets can span
STRING32_LIMIT = 2**31 - 1
_NO_VALIDITY = np.zeros(0, dtype=np.bool_)  # the kernels' "every slot valid"
_NO_VALIDITY.flags.writeable = False


def to_pandas_array(node: TypeNode, chunks: list[ColumnVector], backend: str) -> Any:
    """The pandas array of one column, from its vectors in row order.

    Parameters
    ----------
    node : TypeNode
        The column's type.
    chunks : list of ColumnVector
        The column's vectors in row order (one per decoded stripe or run of rows). A lone chunk whose ``values``
        are writable is taken over: its array may become the result, nulls written into it. Read-only values are
        copied; string bytes are never copied, whatever their flags.
    backend : str
        ``"numpy"``, ``"numpy_nullable"`` or ``"pyarrow"``, as ``dtype_backend`` in :func:`pandas.read_orc`.

    Returns
    -------
    numpy.ndarray, pandas ExtensionArray or None
        What ``pyarrow.Table.to_pandas`` gives for this column with pandas.read_orc's ``types_mapper``;
        ``None`` for the kinds left to the Arrow path (lists, maps, structs, unions, strings kept as
        dictionaries). Build frames with ``copy=False``: pandas 3 copies NumPy arrays otherwise.

    Raises
    ------
    OrcError
        If ``backend`` is not one of the three, or a date lies outside the years 1 .. 9999 that
        ``datetime.date`` holds (with the NumPy backends, as pyarrow raises there too).
    """
    if backend not in BACKENDS:
        raise OrcError(f"dtype_backend {backend!r} is invalid, use one of {', '.join(BACKENDS)}")
    kind = node.kind
    if kind in STRING_KINDS or kind == "binary":
        if any(c.dictionary is not None for c in chunks):
            return None
        return _strings(node, chunks, backend)
    if kind not in _NUMPY_CONVERTERS:
        return None
    if backend == "pyarrow":
        return _arrow_backed(node, chunks)
    return _NUMPY_CONVERTERS[kind](node, chunks, backend == "numpy_nullable")


# -- shared pieces ----------------------------------------------------------------------------------------------------


def _values(chunks: list[ColumnVector], dtype: Any, width: int = 1, owned: bool = True) -> np.ndarray:
    """The chunks' values end to end as ``dtype`` (``width`` lanes per slot). ``owned``: in an array the result
    may own and write to (a lone writable array as it is, read-only values copied); otherwise only read."""
    parts = [_chunk_values(c, dtype, width) for c in chunks]
    if len(parts) == 1:
        values = parts[0]
        return values if values.flags.writeable or not owned else values.copy()
    if not parts:
        return np.empty((0, width) if width > 1 else 0, dtype=dtype)
    return np.concatenate(parts)


def _chunk_values(vec: ColumnVector, dtype: Any, width: int) -> np.ndarray:
    if vec.values is None:
        return np.zeros((vec.length, width) if width > 1 else vec.length, dtype=dtype)
    values = vec.values
    if dtype == np.bool_ and values.dtype in (np.uint8, np.int8):
        values = values.view(np.bool_)  # 0 / 1 bytes, as the boolean decoder writes them
    values = values.astype(dtype, copy=False)
    return values.reshape(-1, width) if width > 1 else values


def _null_count(chunks: list[ColumnVector]) -> int:
    return sum(c.null_count for c in chunks)


def _valid(chunks: list[ColumnVector]) -> np.ndarray | None:
    """The column's validity over all chunks; None when no slot is null (a vector may carry an all-True mask,
    which Arrow, counting nulls, treats as none)."""
    if _null_count(chunks) == 0:
        return None
    if len(chunks) == 1:
        return chunks[0].valid
    return np.concatenate([np.ones(c.length, dtype=np.bool_) if c.valid is None else c.valid for c in chunks])


def _kernel_valid(valid: np.ndarray | None) -> np.ndarray:
    return _NO_VALIDITY if valid is None else _read_only(valid)


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view: kernels then compile once, not once per writability of their inputs."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.flags.writeable = False
    return view


def _table_take(table: list[Any] | np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``table[indices]`` as an object array, ``None`` where an index is -1."""
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


# -- NumPy and nullable backends ----------------------------------------------------------------------------------


def _boolean(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> Any:
    values = _values(chunks, np.bool_)
    valid = _valid(chunks)
    if nullable:
        return pd.arrays.BooleanArray(values, _mask(valid, len(values)))
    if valid is None:
        return values
    # object True / False / None, as Arrow converts booleans with nulls
    indices = np.empty(len(values), dtype=np.intp)
    _check(table_indices(_read_only(values.view(np.uint8)), _read_only(valid), 0, indices))
    return _table_take([False, True], indices)


def _mask(valid: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.bool_) if valid is None else ~valid


def _integer(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> Any:
    values = _values(chunks, INTEGER_DTYPES[node.kind])
    valid = _valid(chunks)
    if nullable:
        return pd.arrays.IntegerArray(values, _mask(valid, len(values)))
    if valid is None:
        return values
    out = np.empty(len(values), dtype=np.float64)
    _check(fill_nulls(_read_only(values), _read_only(valid), np.nan, out))
    return out


def _floating(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> Any:
    values = _values(chunks, FLOAT_DTYPES[node.kind])
    valid = _valid(chunks)
    if nullable:
        mask = _mask(valid, len(values))
        if _nan_is_na():
            mask |= np.isnan(values)
        return pd.arrays.FloatingArray(values, mask)
    if valid is not None:
        _check(set_nulls(values, _read_only(valid), values.dtype.type(np.nan)))
    return values


def _nan_is_na() -> bool:
    """Whether pandas takes NaN for NA in nullable floats (pandas 3's default): its conversion from Arrow then
    masks NaN values too."""
    try:
        return not pd.get_option("future.distinguish_nan_and_na")
    except (pd.errors.OptionError, KeyError):  # pandas 2 keeps NaN a value
        return False


def _timestamps(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> Any:
    values = _values(chunks, np.int64)
    valid = _valid(chunks)
    if valid is not None:
        _check(set_nulls(values, _read_only(valid), np.iinfo(np.int64).min))  # NaT
    stamps = values.view("M8[ns]")
    if node.kind == "timestamp":
        return stamps
    dtype = _utc_dtype()
    try:
        return pd.arrays.DatetimeArray._simple_new(stamps, dtype=dtype)
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without the internal constructor
        return pd.DatetimeIndex(stamps).tz_localize(dtype.tz).array


@functools.cache
def _utc_dtype() -> pd.DatetimeTZDtype:
    """The dtype Arrow gives ``timestamp[ns, tz=UTC]``, whose time zone object differs between versions."""
    import pyarrow as pa

    dtype = pa.array([], pa.timestamp("ns", tz="UTC")).to_pandas().dtype
    return dtype if isinstance(dtype, pd.DatetimeTZDtype) else pd.DatetimeTZDtype("ns", "UTC")


def _date(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> np.ndarray:
    """``datetime.date`` objects, one per distinct day, shared by the rows holding it."""
    days = _read_only(_values(chunks, np.int32, owned=False))
    valid = _kernel_valid(_valid(chunks))
    lo, hi, count = value_range(days, valid)
    if count and (lo < MIN_DATE_DAY or hi > MAX_DATE_DAY):
        bad = lo if lo < MIN_DATE_DAY else hi
        raise OrcError(f"date {bad} days from 1970-01-01 is outside the years 1 .. 9999 that datetime.date holds")
    indices = np.empty(len(days), dtype=np.intp)
    if hi - lo < max(2 * len(days), 4096):
        # a table over the range: one pass, no hashing
        table = np.arange(lo, hi + 1, dtype=np.int64).astype("M8[D]").astype(object)
        _check(table_indices(days, valid, lo, indices))
    else:
        firsts = np.empty(len(days), dtype=np.intp)
        distinct = _check(distinct_rows(days.reshape(-1, 1), valid, indices, firsts, len(days) + 1))
        table = days[firsts[:distinct]].astype("M8[D]").astype(object)
    return _table_take(table, indices)


def _check(result: int) -> int:
    if result == BAD_LENGTH:
        raise AssertionError("kernel called with arrays of different lengths")
    return result


def _decimal(node: TypeNode, chunks: list[ColumnVector], nullable: bool) -> np.ndarray:
    scale = node.scale if node.scale is not None else DEFAULT_DECIMAL[1]
    lanes = _read_only(_values(chunks, np.int64, width=2, owned=False))
    valid = _valid(chunks)
    n = len(lanes)
    if n >= DEDUPE_MIN_VALUES:
        ids = np.empty(n, dtype=np.intp)
        firsts = np.empty(n, dtype=np.intp)
        distinct = _check(distinct_rows(lanes, _kernel_valid(valid), ids, firsts, DEDUPE_SAMPLE))
        if distinct >= 0:
            return _table_take(decimal_objects(lanes[firsts[:distinct]], scale), ids)
    if valid is None:
        return decimal_objects(lanes, scale)
    out = np.full(n, None, dtype=object)
    out[valid] = decimal_objects(lanes[valid], scale)
    return out


def decimal_objects(lanes: np.ndarray, scale: int) -> np.ndarray:
    """An object array of :class:`decimal.Decimal`, one per row of ``lanes`` (int64 ``[low, high]`` of a 128-bit
    two's complement unscaled value), each with exponent ``-scale`` as pyarrow makes them (``Decimal("1.50")``
    at scale 2, ``Decimal("0E-38")``, ``Decimal("5")`` at scale 0).

    ``Decimal(10**-scale) * unscaled``: the product is exact under a context of 80 digits and carries the first
    factor's exponent. Python ints come a block at a time, so their memory is reused. Per value this is one
    ``int``, one temporary and one result ``Decimal``, all made by C calls under :func:`map`.
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


# the NumPy type of each kind's values, as Arrow stores them
_STORAGE_DTYPES = {
    **INTEGER_DTYPES,
    **FLOAT_DTYPES,
    **dict.fromkeys(TIMESTAMP_KINDS, np.int64),
    "date": np.int32,
    "decimal": np.int64,
}

_NUMPY_CONVERTERS = {
    "boolean": _boolean,
    **dict.fromkeys(INTEGER_DTYPES, _integer),
    **dict.fromkeys(FLOAT_DTYPES, _floating),
    **dict.fromkeys(TIMESTAMP_KINDS, _timestamps),
    "date": _date,
    "decimal": _decimal,
}


# -- strings and binary -----------------------------------------------------------------------------------------------


def _strings(node: TypeNode, chunks: list[ColumnVector], backend: str) -> Any:
    """Arrow arrays over the vectors' offsets and bytes, converted as Arrow's to_pandas converts them."""
    import pyarrow as pa

    binary = node.kind == "binary"
    if backend == "pyarrow":
        # ArrowDtype keeps the Arrow type, and pyarrow's ORC reader gives 32-bit offsets
        type_ = pa.binary() if binary else pa.string()
        parts = [piece for vec in chunks for piece in _arrow_strings32(vec, type_)]
        return pd.arrays.ArrowExtensionArray(pa.chunked_array(parts, type=type_))
    type_ = pa.large_binary() if binary else pa.large_string()
    column = pa.chunked_array([_arrow_strings64(vec, type_) for vec in chunks], type=type_)
    mapper = {pa.large_string(): pd.StringDtype()}.get if backend == "numpy_nullable" else None
    # the dtype to_pandas gives (it follows pandas' version and options): the Arrow-backed str of pandas 3 (and
    # 2.3 with future.infer_string) or StringDtype() keep Arrow's buffers as they are; object str / bytes are made
    # by Arrow's own conversion
    dtype = pa.chunked_array([], type=type_).to_pandas(types_mapper=mapper).dtype
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return dtype.__from_arrow__(column)
    return column.to_numpy(zero_copy_only=False)


def _validity(vec: ColumnVector) -> Any:
    import pyarrow as pa

    if vec.valid is None or vec.null_count == 0:
        return None
    return pa.py_buffer(np.packbits(vec.valid, bitorder="little"))


def _arrow_strings64(vec: ColumnVector, type_: Any) -> Any:
    """A large_string / large_binary array over ``vec``'s offsets and bytes as they are."""
    import pyarrow as pa

    offsets = _string_offsets(vec)
    data = vec.data if vec.data is not None and len(vec.data) else np.zeros(1, dtype=np.uint8)
    return pa.Array.from_buffers(
        type_, vec.length, [_validity(vec), pa.py_buffer(offsets), pa.py_buffer(data)], vec.null_count
    )


def _string_offsets(vec: ColumnVector) -> np.ndarray:
    if vec.offsets is None or len(vec.offsets) == 0:
        return np.zeros(vec.length + 1, dtype=np.int64)
    return np.ascontiguousarray(vec.offsets, dtype=np.int64)


def _arrow_strings32(vec: ColumnVector, type_: Any) -> list[Any]:
    """string / binary arrays with 32-bit offsets over ``vec``'s bytes: one, or one per run of slots holding
    less than 2 GiB."""
    import pyarrow as pa

    offsets = _string_offsets(vec)
    data = vec.data if vec.data is not None and len(vec.data) else np.zeros(1, dtype=np.uint8)
    limit = STRING32_LIMIT
    pieces = []
    start = 0
    while True:
        base = int(offsets[start])
        # the last slot whose end is within 2 GiB of this piece's start (at least one slot per piece)
        stop = max(start + 1, int(np.searchsorted(offsets, base + limit, side="right")) - 1)
        stop = min(stop, vec.length)
        if offsets[stop] <= limit:
            # Arrow's offsets need not start at 0: narrowed as they are, over all of the bytes
            bounds = offsets[start : stop + 1].astype(np.int32)
            piece_data = data
        else:
            bounds = (offsets[start : stop + 1] - base).astype(np.int32)
            piece_data = data[base:]
        valid = None if vec.valid is None else vec.valid[start:stop]
        nulls = 0 if valid is None else int(stop - start - np.count_nonzero(valid))
        bitmap = None if valid is None or not nulls else pa.py_buffer(np.packbits(valid, bitorder="little"))
        pieces.append(
            pa.Array.from_buffers(
                type_,
                stop - start,
                [bitmap, pa.py_buffer(bounds), pa.py_buffer(piece_data)],
                nulls,
            )
        )
        if stop >= vec.length:
            return pieces
        start = stop


# -- pyarrow backend --------------------------------------------------------------------------------------------------


def _arrow_backed(node: TypeNode, chunks: list[ColumnVector]) -> Any:
    """``pd.ArrowDtype`` of pyarrow's ORC type, one Arrow array per chunk over the chunk's buffers."""
    import pyarrow as pa

    from .arrow import arrow_type

    type_ = arrow_type(node)
    kind = node.kind
    parts = []
    for vec in chunks:
        if kind == "boolean":
            values = _chunk_values(vec, np.bool_, 1)
            buffer = pa.py_buffer(np.packbits(values, bitorder="little"))
        else:
            width = 2 if kind == "decimal" else 1
            values = _chunk_values(vec, _STORAGE_DTYPES[kind], width)
            if not values.flags.writeable or not values.flags.c_contiguous:
                values = np.ascontiguousarray(values).copy()
            buffer = pa.py_buffer(values)
        parts.append(pa.Array.from_buffers(type_, vec.length, [_validity(vec), buffer], vec.null_count))
    return pd.arrays.ArrowExtensionArray(pa.chunked_array(parts, type=type_))
