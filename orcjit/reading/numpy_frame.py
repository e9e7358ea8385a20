"""Decoded stripes to a DataFrame without pyarrow, for the ``numpy`` and ``numpy_nullable`` backends.

:func:`build_frame_numpy` gives the DataFrame that :func:`orcjit.reading.frame.build_frame` gets from
``pyarrow.Table.to_pandas`` (with pandas.read_orc's ``types_mapper``), built from the column vectors' numpy arrays:

- integers: the NumPy integer type without nulls, float64 with NaN with nulls (``numpy``), ``Int8`` .. ``Int64``
  (``numpy_nullable``); booleans: ``bool``, object with ``None`` for nulls, or ``boolean``; floats: float32 /
  float64 with NaN, or ``Float32`` / ``Float64`` (NaN values masked as NA too where pandas takes NaN for NA, as
  pandas' conversion from Arrow does);
- strings: pandas' default string dtype (``str``; object before pandas 3), or ``StringDtype()`` for
  ``numpy_nullable``. pandas stores these in Arrow memory when pyarrow is installed and as Python ``str`` objects
  when it is not: the one difference to the pyarrow path that pandas itself imposes. With
  ``dictionary_as_category`` a top-level string column that some stripe dictionary-encodes becomes a
  :class:`pandas.Categorical`, the stripes' dictionaries unified in order of appearance as Arrow does;
- binary: object ``bytes``; decimals: object :class:`decimal.Decimal`; dates: object :class:`datetime.date`;
  ``timestamp``: ``datetime64[ns]``; ``timestamp with local time zone``: ``datetime64[ns, UTC]``;
- lists: object arrays of NumPy arrays, all slices of one array per column converted as a column is (so the
  elements are float64 when an integer element anywhere in the column is null, ``datetime64[ns]`` for
  timestamps, objects for strings); maps: lists of ``(key, value)`` tuples; structs: dicts, their fields
  converted per stripe as Arrow converts them per chunk; unions: ``{"tag": variant, "value": value}`` dicts with
  the value as ``pyarrow.Array.to_pylist`` gives it. Scalars inside maps and structs are Python objects as
  ``numpy.ndarray.tolist`` gives them: timestamps there are integers of nanoseconds, as with pyarrow.

pyarrow cannot convert unions below the top level (it raises ``ArrowNotImplementedError``); here they become the
same dicts as top-level unions, and ``build_frame`` converts columns holding them with :func:`convert_column` too.
"""

from __future__ import annotations

import itertools
import zoneinfo
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._jit import jit
from ..errors import OrcError
from ..kernels.decimal import decimal128_to_objects
from ..schema import TypeNode
from .columns import DEFAULT_DECIMAL, STRING_KINDS
from .vector import ColumnVector

if TYPE_CHECKING:
    from .frame import Selection

__all__ = ["build_frame_numpy"]

UTC = zoneinfo.ZoneInfo("UTC")  # the tzinfo pyarrow's to_pandas gives "UTC" timestamps
INTEGER_KINDS = frozenset({"tinyint", "smallint", "int", "bigint"})
FLOAT_KINDS = frozenset({"float", "double"})
TIMESTAMP_KINDS = frozenset({"timestamp", "timestamp with local time zone"})

# what a column of vectors becomes; each takes (node, chunks, selected)
Converter = Callable[[TypeNode, list[ColumnVector], set[int]], np.ndarray]


def build_frame_numpy(
    selection: Selection,
    columns: list[list[ColumnVector]],
    backend: str,
    *,
    dictionary_as_category: bool = False,
) -> pd.DataFrame:
    """Assemble the decoded columns (one list of vectors per field, its pieces in row order) into a DataFrame
    without pyarrow; ``backend`` is ``"numpy"`` or ``"numpy_nullable"``.

    Raises
    ------
    OrcError
        If ``backend`` is ``"pyarrow"``, or a string column holds bytes that are not UTF-8.
    """
    if backend not in ("numpy", "numpy_nullable"):
        raise OrcError(f"dtype_backend {backend!r} needs pyarrow; without it only the NumPy backends work")
    nullable = backend == "numpy_nullable"
    arrays = []
    for i, node in enumerate(selection.fields):
        chunks = columns[i]
        try:
            arrays.append(_top_level(node, chunks, selection.selected, nullable, dictionary_as_category))
        except UnicodeDecodeError as exc:
            raise OrcError(f"column {node.path or selection.names[i]!r}: string is not valid UTF-8 ({exc})") from None
    if arrays:
        frame = pd.DataFrame(dict(enumerate(arrays)), copy=False)
        frame.columns = pd.Index(selection.names)
    else:
        # pyarrow's table of no columns has no rows
        frame = pd.DataFrame(index=pd.RangeIndex(0), columns=pd.Index([], dtype=object))
    return frame


# -- top-level columns -------------------------------------------------------------------------------------------


def _top_level(
    node: TypeNode, chunks: list[ColumnVector], selected: set[int], nullable: bool, as_category: bool
) -> Any:
    kind = node.kind
    if kind in STRING_KINDS:
        if as_category and any(c.dictionary is not None for c in chunks):
            # as build_frame: a Categorical where at least one stripe kept a dictionary, strings where none did
            return _categorical(chunks)
        strings = _strings(chunks, binary=False)
        dtype = pd.StringDtype() if nullable else _default_string_dtype()
        return strings if dtype is None else pd.array(strings, dtype=dtype, copy=False)
    if kind == "timestamp with local time zone":
        return pd.array(_timestamps(node, chunks, selected), dtype=pd.DatetimeTZDtype("ns", UTC), copy=False)
    if nullable and (kind in INTEGER_KINDS or kind in FLOAT_KINDS or kind == "boolean"):
        values = _concat([c.values for c in chunks], _numpy_dtype(kind))
        valid = _valid(chunks)
        mask = np.zeros(len(values), dtype=np.bool_) if valid is None else ~valid
        if kind == "boolean":
            return pd.arrays.BooleanArray(values.astype(np.bool_, copy=False), mask)
        if kind in FLOAT_KINDS:
            if _nan_is_na():
                mask = mask | np.isnan(values)
            return pd.arrays.FloatingArray(values, mask)
        return pd.arrays.IntegerArray(values, mask)
    return convert_column(node, chunks, selected)


def _nan_is_na() -> bool:
    """Whether pandas takes NaN for NA in nullable floats (pandas 3's default): it then masks the NaN of Arrow
    floats too."""
    try:
        return not pd.get_option("future.distinguish_nan_and_na")
    except pd.errors.OptionError:  # pandas 2 keeps NaN a value
        return False


def _default_string_dtype() -> Any:
    """pandas' default dtype for strings (``str``, on Arrow or Python storage), or None where that is object."""
    dtype = pd.Series(["x"]).dtype
    return dtype if isinstance(dtype, pd.StringDtype) else None


def _categorical(chunks: list[ColumnVector]) -> pd.Categorical:
    """Codes and one category per distinct dictionary entry, the stripes' dictionaries unified in order of
    appearance (as Arrow's ``DictionaryUnifier``); a stripe encoded directly has its values' distinct strings in
    order of appearance as its dictionary (as Arrow's ``dictionary_encode``). Only the dictionaries' strings (and
    the directly encoded stripes' values) become Python objects."""
    positions: dict[str, int] = {}
    codes = []
    for vec in chunks:
        if vec.dictionary is not None:
            entries = _decode(*vec.dictionary, binary=False)
            indices = vec.values
        else:
            indices, uniques = pd.factorize(_strings([vec], binary=False), use_na_sentinel=True)
            entries = list(uniques)
        transpose = np.fromiter(
            (positions.setdefault(entry, len(positions)) for entry in entries), dtype=np.int64, count=len(entries)
        )
        chunk_codes = np.full(vec.length, -1, dtype=np.int64)
        valid = np.ones(vec.length, dtype=np.bool_) if vec.valid is None else vec.valid
        if vec.dictionary is None:
            valid = valid & (indices >= 0)
        chunk_codes[valid] = transpose[indices[valid]]
        codes.append(chunk_codes)
    all_codes = _concat(codes, np.int64)
    size = len(positions)
    code_dtype = np.int8 if size < 2**7 else np.int16 if size < 2**15 else np.int32
    categories = pd.Index(list(positions), dtype=_default_string_dtype() or object)
    return pd.Categorical.from_codes(all_codes.astype(code_dtype), categories=categories)


# -- columns as NumPy arrays, as Arrow's to_pandas converts a column (and the values inside lists) ---------------------


def convert_column(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    """The NumPy array pyarrow's ``to_pandas`` makes of a column with NumPy dtypes (no types_mapper)."""
    return _CONVERTERS[node.kind](node, chunks, selected)


def _numpy_dtype(kind: str) -> Any:
    return {
        "boolean": np.bool_,
        "tinyint": np.int8,
        "smallint": np.int16,
        "int": np.int32,
        "bigint": np.int64,
        "float": np.float32,
        "double": np.float64,
        "date": np.int32,
        "timestamp": np.int64,
        "timestamp with local time zone": np.int64,
    }[kind]


def _concat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    """The parts end to end, in an array the DataFrame may own: writable (values may be views of a stripe's
    read-only buffers) and of no other use."""
    if len(parts) == 1:
        return parts[0] if parts[0].flags.writeable else parts[0].copy()
    if not parts:
        return np.empty(0, dtype=dtype)
    return np.concatenate(parts)


def _valid(chunks: list[ColumnVector]) -> np.ndarray | None:
    """The column's validity over all chunks, or None when no slot is null."""
    if all(c.valid is None for c in chunks):
        return None
    return np.concatenate([np.ones(c.length, dtype=np.bool_) if c.valid is None else c.valid for c in chunks])


def _objects(parts: Iterable[Iterable[Any]], count: int) -> np.ndarray:
    """An object array of ``count`` items (numpy arrays among them stay items, not rows)."""
    return np.fromiter(itertools.chain.from_iterable(parts), dtype=object, count=count)


def _with_none(out: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    if valid is not None:
        out[~valid] = None
    return out


def _boolean(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    values = _concat([c.values for c in chunks], np.bool_).astype(np.bool_, copy=False)
    valid = _valid(chunks)
    if valid is None:
        return values
    return _with_none(values.astype(object), valid)


def _integer(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    values = _concat([c.values for c in chunks], _numpy_dtype(node.kind))
    valid = _valid(chunks)
    if valid is None:
        return values
    out = values.astype(np.float64)
    out[~valid] = np.nan
    return out


def _floating(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    values = _concat([c.values for c in chunks], _numpy_dtype(node.kind))
    valid = _valid(chunks)
    if valid is None:
        return values
    out = values.copy()
    out[~valid] = np.nan
    return out


def _timestamps(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    """datetime64[ns] with NaT; a zone-aware column's UTC instants (Arrow drops the zone inside lists)."""
    values = _concat([c.values for c in chunks], np.int64).view("M8[ns]")
    valid = _valid(chunks)
    if valid is None:
        return values
    out = values.copy()
    out[~valid] = np.datetime64("NaT", "ns")
    return out


def _date(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    days = _concat([c.values for c in chunks], np.int32)
    return _with_none(days.astype("M8[D]").astype(object), _valid(chunks))


def _decimal(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    scale = node.scale if node.scale is not None else DEFAULT_DECIMAL[1]
    lanes = _concat([c.values for c in chunks], np.int64).reshape(-1, 2)
    valid = _valid(chunks)
    if valid is None:
        return decimal128_to_objects(lanes[:, 1], lanes[:, 0], scale)
    out = np.full(len(lanes), None, dtype=object)
    dense = lanes[valid]
    out[valid] = decimal128_to_objects(dense[:, 1], dense[:, 0], scale)
    return out


# below this many values a string column is decoded value by value without looking for repeats
DEDUPE_MIN_VALUES = 256
# stop looking for repeats when more than half of the first DEDUPE_SAMPLE values (or 2x, 4x ... as many) differ
DEDUPE_SAMPLE = 8192


@jit
def _distinct_values(offsets, data, ids, firsts, sample):  # type: ignore[no-untyped-def]
    """Number the distinct byte strings between consecutive ``offsets``: ``ids[i]`` is the number of value ``i``'s
    distinct string and ``firsts[k]`` the first value holding distinct string ``k``. An open-addressing table of
    FNV-1a hashes, every match confirmed byte by byte, grown as distinct strings come (a small table stays in
    cache when few strings repeat often).

    Returns the number of distinct strings, or -1 (giving up) when more than half of the first ``sample``,
    ``2 * sample``, ``4 * sample`` ... values are distinct: repeats too rare to be worth the search.
    """
    check_at = sample
    size = 1024
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    hashes = np.empty(size, dtype=np.uint64)
    count = 0
    for i in range(len(offsets) - 1):
        start = offsets[i]
        length = offsets[i + 1] - start
        h = np.uint64(14695981039346656037)
        for j in range(start, start + length):
            h = (h ^ np.uint64(data[j])) * np.uint64(1099511628211)
        slot = np.int64(h & np.uint64(mask))
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = count
                hashes[slot] = h
                firsts[count] = i
                ids[i] = count
                count += 1
                break
            if hashes[slot] == h:
                other = offsets[firsts[k]]
                same = offsets[firsts[k] + 1] - other == length
                j = 0
                while same and j < length:
                    same = data[start + j] == data[other + j]
                    j += 1
                if same:
                    ids[i] = k
                    break
            slot = (slot + 1) & mask
        if 2 * count > size:
            old_table, old_hashes = table, hashes
            size *= 2
            mask = size - 1
            table = np.full(size, -1, dtype=np.int64)
            hashes = np.empty(size, dtype=np.uint64)
            for old in range(len(old_table)):
                if old_table[old] >= 0:
                    slot = np.int64(old_hashes[old] & np.uint64(mask))
                    while table[slot] >= 0:
                        slot = (slot + 1) & mask
                    table[slot] = old_table[old]
                    hashes[slot] = old_hashes[old]
        if i + 1 == check_at:
            if 2 * count > check_at:
                return -1
            check_at *= 2
    return count


def _decode(offsets: np.ndarray, data: np.ndarray, binary: bool) -> np.ndarray:
    """Object array of the values between consecutive ``offsets`` into ``data``: ``bytes``, or ``str`` decoded as
    UTF-8.

    Repeated values are decoded once and share one object (as pyarrow's ``to_pandas`` deduplicates objects): a
    Numba hash table numbers the distinct values first, unless the first values are mostly distinct. Decoding is
    one ``bytes`` copy of the range, then one slice (and decode) per distinct value. Per million strings: about
    0.2 s all distinct (the Python objects themselves being most of it), 0.03 s with few distinct values.
    """
    n = len(offsets) - 1
    if n <= 0:
        return np.empty(0, dtype=object)
    start = int(offsets[0])
    buf = data[start : int(offsets[-1])].tobytes()
    bounds = offsets - start
    ids = None
    if n >= DEDUPE_MIN_VALUES:
        ids = np.empty(n, dtype=np.int64)
        firsts = np.empty(n, dtype=np.int64)
        view = data[start:]
        view.flags.writeable = False  # one kernel variant whether the bytes were gathered or viewed in a stream
        count = _distinct_values(bounds, view, ids, firsts, DEDUPE_SAMPLE)
        if count >= 0:
            pairs = zip(bounds[firsts[:count]].tolist(), bounds[firsts[:count] + 1].tolist(), strict=True)
        else:
            ids = None
    if ids is None:
        pairs = itertools.pairwise(bounds.tolist())
    values = [buf[a:b] for a, b in pairs] if binary else [buf[a:b].decode() for a, b in pairs]
    out = np.fromiter(values, dtype=object, count=len(values))
    return out if ids is None else out[ids]


def _chunk_strings(vec: ColumnVector, binary: bool) -> np.ndarray:
    if vec.dictionary is None:
        return _decode(vec.offsets, vec.data, binary)
    entries = _decode(*vec.dictionary, binary=binary)
    if vec.valid is None:
        return entries[vec.values]
    out = np.full(vec.length, None, dtype=object)
    out[vec.valid] = entries[vec.values[vec.valid]]
    return out


def _strings(chunks: list[ColumnVector], binary: bool) -> np.ndarray:
    """Object array of ``str`` (or ``bytes``), None for nulls; dictionaries are looked up."""
    out = _concat([_chunk_strings(c, binary) for c in chunks], object)
    return _with_none(out, _valid(chunks))


def _string(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    return _strings(chunks, binary=node.kind == "binary")


def _slice(vec: ColumnVector, start: int, stop: int) -> ColumnVector:
    """Slots ``start .. stop`` of ``vec``."""
    if start == 0 and stop == vec.length:
        return vec
    compound = vec.node.kind in ("struct", "uniontype")
    return ColumnVector(
        vec.node,
        stop - start,
        None if vec.valid is None else vec.valid[start:stop],
        values=None if vec.values is None else vec.values[start:stop],
        offsets=None if vec.offsets is None else vec.offsets[start : stop + 1],
        data=vec.data,
        dictionary=vec.dictionary,
        children=[_slice(c, start, stop) for c in vec.children] if compound else vec.children,
    )


def _entries(chunks: list[ColumnVector], child: int) -> list[ColumnVector]:
    """The list elements (or map keys or values) the chunks' offsets span, one vector per chunk."""
    return [_slice(c.children[child], int(c.offsets[0]), int(c.offsets[-1])) for c in chunks]


def _rows(chunks: list[ColumnVector]) -> Iterable[tuple[int, int]]:
    """Each slot's ``(start, end)`` into the chunks' entries laid end to end."""
    base = 0
    for vec in chunks:
        bounds = (vec.offsets - vec.offsets[0] + base).tolist()
        yield from itertools.pairwise(bounds)
        base = bounds[-1]


def _list(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    """Each list a slice of one array of all the column's elements, converted as a column."""
    flat = convert_column(node.children[0], _entries(chunks, 0), selected)
    out = _objects([(flat[a:b] for a, b in _rows(chunks))], sum(c.length for c in chunks))
    return _with_none(out, _valid(chunks))


def _scalars(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> list[Any]:
    """The column's values as Python objects, as NumPy's ``tolist`` gives them from the converted array; None for
    nulls (Arrow reads struct fields and map values this way)."""
    values = convert_column(node, chunks, selected).tolist()
    valid = _valid(chunks)
    if valid is not None:
        for j in np.flatnonzero(~valid).tolist():
            values[j] = None
    return values


def _map(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    keys = _scalars(node.children[0], _entries(chunks, 0), selected)
    items = _scalars(node.children[1], _entries(chunks, 1), selected)
    out = _objects(
        [(list(zip(keys[a:b], items[a:b], strict=True)) for a, b in _rows(chunks))], sum(c.length for c in chunks)
    )
    return _with_none(out, _valid(chunks))


def _struct(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    """One dict per slot; Arrow converts the fields chunk by chunk, so a field's NumPy type is the chunk's."""
    fields = [c for c in node.children if c.column_id in selected]
    names = [f.name for f in fields]
    parts = []
    for vec in chunks:
        columns = [_scalars(f, [child], selected) for f, child in zip(fields, vec.children, strict=True)]
        rows = zip(*columns, strict=True) if columns else itertools.repeat((), vec.length)
        parts.append(dict(zip(names, row, strict=True)) for row in rows)
    out = _objects(parts, sum(c.length for c in chunks))
    return _with_none(out, _valid(chunks))


def _union(node: TypeNode, chunks: list[ColumnVector], selected: set[int]) -> np.ndarray:
    """``{"tag": variant, "value": value}`` per slot, the value as ``pyarrow.Array.to_pylist`` gives it."""
    out = _objects((_union_pylist(node, vec, selected, tagged=True) for vec in chunks), sum(c.length for c in chunks))
    return _with_none(out, _valid(chunks))


# -- Python objects as pyarrow's to_pylist makes them (values inside unions) ------------------------------------------


def _pylist(node: TypeNode, vec: ColumnVector, selected: set[int]) -> list[Any]:
    kind = node.kind
    if kind in INTEGER_KINDS or kind in FLOAT_KINDS or kind == "boolean":
        values = vec.values.astype(_numpy_dtype(kind), copy=False).tolist()
    elif kind in STRING_KINDS or kind == "binary":
        values = list(_chunk_strings(vec, binary=kind == "binary"))
    elif kind in TIMESTAMP_KINDS:
        stamps = pd.DatetimeIndex(vec.values.view("M8[ns]"))
        values = list(stamps.tz_localize(UTC) if kind == "timestamp with local time zone" else stamps)
    elif kind in ("date", "decimal"):
        values = convert_column(node, [vec], selected).tolist()
    elif kind == "array":
        elements = _pylist(node.children[0], _entries([vec], 0)[0], selected)
        values = [elements[a:b] for a, b in _rows([vec])]
    elif kind == "map":
        keys = _pylist(node.children[0], _entries([vec], 0)[0], selected)
        items = _pylist(node.children[1], _entries([vec], 1)[0], selected)
        values = [list(zip(keys[a:b], items[a:b], strict=True)) for a, b in _rows([vec])]
    elif kind == "struct":
        fields = [c for c in node.children if c.column_id in selected]
        names = [f.name for f in fields]
        columns = [_pylist(f, child, selected) for f, child in zip(fields, vec.children, strict=True)]
        rows = zip(*columns, strict=True) if columns else itertools.repeat((), vec.length)
        values = [dict(zip(names, row, strict=True)) for row in rows]
    elif kind == "uniontype":
        values = _union_pylist(node, vec, selected, tagged=False)
    else:
        raise AssertionError(kind)
    if vec.valid is not None:
        for j in np.flatnonzero(~vec.valid).tolist():
            values[j] = None
    return values


def _union_pylist(node: TypeNode, vec: ColumnVector, selected: set[int], tagged: bool) -> list[Any]:
    variants = [_pylist(child.node, child, selected) for child in vec.children]
    tags = vec.values.tolist()
    if tagged:
        return [{"tag": tag, "value": variants[tag][j]} for j, tag in enumerate(tags)]
    return [variants[tag][j] for j, tag in enumerate(tags)]


_CONVERTERS: dict[str, Converter] = {
    "boolean": _boolean,
    "tinyint": _integer,
    "smallint": _integer,
    "int": _integer,
    "bigint": _integer,
    "float": _floating,
    "double": _floating,
    "string": _string,
    "varchar": _string,
    "char": _string,
    "binary": _string,
    "decimal": _decimal,
    "date": _date,
    "timestamp": _timestamps,
    "timestamp with local time zone": _timestamps,
    "array": _list,
    "map": _map,
    "struct": _struct,
    "uniontype": _union,
}
