"""One converter per kind, and the nested kinds converted as Arrow's ``to_pandas`` converts them.

:func:`convert_values` turns one column's chunks into a pandas array or NumPy array for a *target*:

- ``"numpy"`` and ``"numpy_nullable"``: a top-level column, as ``pandas.read_orc`` gives it for that
  ``dtype_backend`` (see :mod:`orcjit.types.kinds`);
- ``"element"``: the values inside a list, map or struct, as Arrow's ``to_pandas`` converts them with NumPy
  dtypes (strings and zone-aware timestamps plain NumPy: objects, naive instants).

Lists become object arrays of NumPy arrays, all slices of one array per column converted as a column is (so the
elements are float64 when an integer element anywhere in the column is null); maps lists of ``(key, value)``
tuples; structs dicts, their fields converted per chunk as Arrow converts them per chunk; unions
``{"tag": variant, "value": value}`` dicts with the value as ``pyarrow.Array.to_pylist`` gives it (pyarrow cannot
convert unions at all). Scalars inside maps and structs are Python objects as ``numpy.ndarray.tolist`` gives
them: timestamps there are integers of nanoseconds, as with pyarrow.
"""

from __future__ import annotations

import itertools
import zoneinfo
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..decode.vector import ColumnVector
from ..types.kinds import KINDS
from ..types.schema import TypeNode
from . import decimals, numbers, strings, temporal
from .chunks import valid_of

__all__ = ["CONVERTERS", "TARGETS", "convert_values"]

TARGETS = ("numpy", "numpy_nullable", "element")
UTC = zoneinfo.ZoneInfo("UTC")  # the tzinfo of the Timestamps to_pylist gives instants

# what a column of vectors becomes; each takes (node, chunks, target)
Converter = Callable[[TypeNode, list[ColumnVector], str], Any]


def convert_values(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    """The column of ``chunks`` (its vectors in row order) converted for ``target``."""
    family = KINDS[node.kind].family
    return CONVERTERS[node.kind if family == "compound" else family](node, chunks, target)


# -- compound kinds -----------------------------------------------------------------------------------------------


def _objects(parts: Iterable[Iterable[Any]], count: int) -> np.ndarray:
    """An object array of ``count`` items (numpy arrays among them stay items, not rows)."""
    return np.fromiter(itertools.chain.from_iterable(parts), dtype=object, count=count)


def _with_none(out: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    if valid is not None:
        out[~valid] = None
    return out


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


def _list(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    """Each list a slice of one array of all the column's elements, converted as a column."""
    flat = convert_values(node.children[0], _entries(chunks, 0), "element")
    out = _objects([(flat[a:b] for a, b in _rows(chunks))], sum(c.length for c in chunks))
    return _with_none(out, valid_of(chunks))


def _scalars(node: TypeNode, chunks: list[ColumnVector]) -> list[Any]:
    """The column's values as Python objects, as NumPy's ``tolist`` gives them from the converted array; None for
    nulls (Arrow reads struct fields and map values this way)."""
    values = convert_values(node, chunks, "element").tolist()
    valid = valid_of(chunks)
    if valid is not None:
        for j in np.flatnonzero(~valid).tolist():
            values[j] = None
    return values


def _map(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    keys = _scalars(node.children[0], _entries(chunks, 0))
    items = _scalars(node.children[1], _entries(chunks, 1))
    out = _objects(
        [(list(zip(keys[a:b], items[a:b], strict=True)) for a, b in _rows(chunks))], sum(c.length for c in chunks)
    )
    return _with_none(out, valid_of(chunks))


def _struct(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    """One dict per slot; Arrow converts the fields chunk by chunk, so a field's NumPy type is the chunk's."""
    parts = []
    for vec in chunks:
        names = [child.node.name for child in vec.children]
        columns = [_scalars(child.node, [child]) for child in vec.children]
        rows = zip(*columns, strict=True) if columns else itertools.repeat((), vec.length)
        parts.append(dict(zip(names, row, strict=True)) for row in rows)
    out = _objects(parts, sum(c.length for c in chunks))
    return _with_none(out, valid_of(chunks))


def _union(node: TypeNode, chunks: list[ColumnVector], target: str) -> np.ndarray:
    """``{"tag": variant, "value": value}`` per slot, the value as ``pyarrow.Array.to_pylist`` gives it."""
    out = _objects((_union_pylist(vec, tagged=True) for vec in chunks), sum(c.length for c in chunks))
    return _with_none(out, valid_of(chunks))


# -- Python objects as pyarrow's to_pylist makes them (values inside unions) ------------------------------------------


def _pylist(vec: ColumnVector) -> list[Any]:
    node = vec.node
    kind = node.kind
    family = KINDS[kind].family
    if family in ("integer", "float", "boolean"):
        values = vec.values.astype(KINDS[kind].dtype, copy=False).tolist()
    elif family in ("string", "binary"):
        values = list(strings.strings(node, [vec], "element"))
    elif family == "timestamp":
        stamps = pd.DatetimeIndex(vec.values.view("M8[ns]"))
        values = list(stamps.tz_localize(UTC) if kind == "timestamp with local time zone" else stamps)
    elif family in ("date", "decimal"):
        values = convert_values(node, [vec], "element").tolist()
    elif kind == "array":
        elements = _pylist(_entries([vec], 0)[0])
        values = [elements[a:b] for a, b in _rows([vec])]
    elif kind == "map":
        keys = _pylist(_entries([vec], 0)[0])
        items = _pylist(_entries([vec], 1)[0])
        values = [list(zip(keys[a:b], items[a:b], strict=True)) for a, b in _rows([vec])]
    elif kind == "struct":
        names = [child.node.name for child in vec.children]
        columns = [_pylist(child) for child in vec.children]
        rows = zip(*columns, strict=True) if columns else itertools.repeat((), vec.length)
        values = [dict(zip(names, row, strict=True)) for row in rows]
    else:
        values = _union_pylist(vec, tagged=False)
    if vec.valid is not None:
        for j in np.flatnonzero(~vec.valid).tolist():
            values[j] = None
    return values


def _union_pylist(vec: ColumnVector, tagged: bool) -> list[Any]:
    variants = [_pylist(child) for child in vec.children]
    tags = vec.values.tolist()
    if tagged:
        return [{"tag": tag, "value": variants[tag][j]} for j, tag in enumerate(tags)]
    return [variants[tag][j] for j, tag in enumerate(tags)]


# by family for the primitive kinds, by kind for the compound ones
CONVERTERS: dict[str, Converter] = {
    "boolean": numbers.boolean,
    "integer": numbers.integer,
    "float": numbers.floating,
    "string": strings.strings,
    "binary": strings.strings,
    "decimal": decimals.decimals,
    "date": temporal.dates,
    "timestamp": temporal.timestamps,
    "array": _list,
    "map": _map,
    "struct": _struct,
    "uniontype": _union,
}
