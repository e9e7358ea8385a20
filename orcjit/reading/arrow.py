"""Column vectors to Arrow arrays without copying their buffers, with the types pyarrow's ORC reader gives."""

from __future__ import annotations

from collections.abc import Iterable, Set
from typing import Any

import numpy as np

from ..errors import OrcError
from ..schema import TypeNode
from .columns import DEFAULT_DECIMAL
from .vector import ColumnVector

# Arrow's union type codes are int8 values 0..127; ORC unions may have up to 256 variants
MAX_UNION_VARIANTS = 128


def _pa() -> Any:
    import pyarrow

    return pyarrow


def dictionary_columns(vectors: Iterable[ColumnVector]) -> set[int]:
    """Column ids of the strings kept as dictionaries (``dictionary_as_category``) anywhere in ``vectors``."""
    found: set[int] = set()
    stack = list(vectors)
    while stack:
        vec = stack.pop()
        if vec.dictionary is not None:
            found.add(vec.node.column_id)
        stack.extend(vec.children)
    return found


def arrow_type(node: TypeNode, selected: set[int] | None = None, dictionary_ids: Set[int] = frozenset()) -> Any:
    """The Arrow type pyarrow's ORC reader uses for ``node``: struct fields limited to the ``selected`` column ids,
    the strings whose column ids are in ``dictionary_ids`` as dictionaries (``dictionary_as_category``: the
    columns dictionary-encoded in at least one stripe read)."""
    pa = _pa()
    kind = node.kind
    simple = {
        "boolean": pa.bool_(),
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "binary": pa.binary(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("ns"),
        "timestamp with local time zone": pa.timestamp("ns", tz="UTC"),
    }
    if kind in simple:
        return simple[kind]
    if kind in ("string", "varchar", "char"):
        return pa.dictionary(pa.int32(), pa.string()) if node.column_id in dictionary_ids else pa.string()
    if kind == "decimal":
        precision = node.precision or DEFAULT_DECIMAL[0]
        scale = node.scale if node.scale is not None else DEFAULT_DECIMAL[1]
        return pa.decimal128(precision, scale)
    if kind == "array":
        return pa.list_(arrow_type(node.children[0], selected, dictionary_ids))
    if kind == "map":
        key, value = node.children
        return pa.map_(arrow_type(key, selected, dictionary_ids), arrow_type(value, selected, dictionary_ids))
    if kind == "struct":
        return pa.struct(
            [
                pa.field(c.name, arrow_type(c, selected, dictionary_ids))
                for c in node.children
                if selected is None or c.column_id in selected
            ]
        )
    if kind == "uniontype":
        if len(node.children) > MAX_UNION_VARIANTS:
            raise OrcError(
                f"column {node.path!r}: a union of {len(node.children)} variants, more than an Arrow union holds "
                f"({MAX_UNION_VARIANTS}); the NumPy backends read it"
            )
        fields = [pa.field(f"_union_{i}", arrow_type(c, selected, dictionary_ids)) for i, c in enumerate(node.children)]
        return pa.sparse_union(fields, list(range(len(fields))))
    raise AssertionError(kind)


def _validity(vec: ColumnVector) -> Any:
    if vec.valid is None:
        return None
    return _pa().py_buffer(np.packbits(vec.valid, bitorder="little"))


def _offsets32(offsets: np.ndarray) -> Any:
    rebased = offsets - offsets[0] if offsets[0] else offsets
    return _pa().py_buffer(rebased.astype(np.int32))


def to_arrow(vec: ColumnVector, type_: Any) -> Any:
    """The Arrow array of ``vec`` with type ``type_`` (from :func:`arrow_type` of a possibly pruned schema)."""
    pa = _pa()
    kind = vec.node.kind
    n = vec.length
    validity = _validity(vec)
    nulls = vec.null_count
    if kind == "boolean":
        bits = pa.py_buffer(np.packbits(vec.values.astype(np.bool_), bitorder="little"))
        return pa.Array.from_buffers(type_, n, [validity, bits], nulls)
    if kind in ("string", "varchar", "char", "binary"):
        if vec.dictionary is not None:
            dict_offsets, dict_data = vec.dictionary
            if dict_offsets[-1] >= 2**31:
                raise OrcError(
                    f"column {vec.node.path!r}: a dictionary of {int(dict_offsets[-1])} bytes, more than an Arrow "
                    "string dictionary holds (2**31 - 1)"
                )
            dictionary = pa.Array.from_buffers(
                pa.string(), len(dict_offsets) - 1, [None, _offsets32(dict_offsets), pa.py_buffer(dict_data)]
            )
            indices = pa.Array.from_buffers(pa.int32(), n, [validity, pa.py_buffer(vec.values.astype(np.int32))], nulls)
            return pa.DictionaryArray.from_arrays(indices, dictionary)
        if pa.types.is_dictionary(type_):
            # a stripe that encodes directly a column other stripes dictionary-encode: a dictionary of its own, the
            # stripes' dictionaries unified by to_pandas
            return to_arrow(vec, type_.value_type).dictionary_encode()
        offsets = vec.offsets
        data = vec.data[offsets[0] : offsets[-1]]
        if offsets[-1] - offsets[0] >= 2**31:
            large = pa.large_binary() if kind == "binary" else pa.large_string()
            arr = pa.Array.from_buffers(large, n, [validity, pa.py_buffer(offsets - offsets[0]), pa.py_buffer(data)])
            return arr.cast(type_)
        return pa.Array.from_buffers(type_, n, [validity, _offsets32(offsets), pa.py_buffer(data)], nulls)
    if kind in ("array", "map"):
        # list and map offsets start at 0 and end at their children's length: stripes are decoded whole
        offsets = vec.offsets
        if offsets[-1] - offsets[0] >= 2**31:
            raise OrcError(
                f"column {vec.node.path!r}: {int(offsets[-1] - offsets[0])} {kind} elements in one stripe are more "
                "than an Arrow list holds (2**31 - 1)"
            )
        if kind == "array":
            child = to_arrow(vec.children[0], type_.value_type)
            return pa.Array.from_buffers(type_, n, [validity, _offsets32(offsets)], nulls, children=[child])
        keys = to_arrow(vec.children[0], type_.key_type)
        items = to_arrow(vec.children[1], type_.item_type)
        entries = pa.StructArray.from_arrays([keys, items], fields=[type_.key_field, type_.item_field])
        return pa.Array.from_buffers(type_, n, [validity, _offsets32(offsets)], nulls, children=[entries])
    if kind == "struct":
        children = [to_arrow(c, type_.field(i).type) for i, c in enumerate(vec.children)]
        return pa.Array.from_buffers(type_, n, [validity], nulls, children=children)
    if kind == "uniontype":
        children = [to_arrow(c, type_.field(i).type) for i, c in enumerate(vec.children)]
        type_ids = pa.py_buffer(vec.values.astype(np.int8))
        return pa.Array.from_buffers(type_, n, [None, type_ids], 0, children=children)
    # fixed-width values: ints, floats, dates, timestamps, decimals
    values = np.ascontiguousarray(vec.values)
    return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(values)], nulls)
