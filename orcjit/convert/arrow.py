"""Column vectors to Arrow arrays without copying their buffers, with the types pyarrow's ORC reader gives: for
``read_arrow``, for ``dtype_backend="pyarrow"``, and for Arrow's conversion of nested columns to pandas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from typing import Any

import numpy as np

from ..decode.vector import ColumnVector
from ..errors import OrcError
from ..types.kinds import BYTES_KINDS, KINDS, STRING_KINDS
from ..types.resolve import Selection
from ..types.schema import TypeNode
from .chunks import chunk_values

__all__ = [
    "MAX_UNION_VARIANTS",
    "arrow_column",
    "arrow_type",
    "build_table",
    "decimal_scales",
    "large_strings",
    "to_arrow",
]

# Arrow's union type codes are int8 values 0..127; ORC unions may have up to 256 variants
MAX_UNION_VARIANTS = 128
# the most bytes one string array with 32-bit offsets can span
STRING32_LIMIT = 2**31 - 1


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


def decimal_scales(vectors: Iterable[ColumnVector]) -> dict[int, int]:
    """The scale a read brought the Hive 0.11 decimals among ``vectors`` to, by column id.

    Raises
    ------
    OrcError
        If they were read exactly: their scale varies per value, and an Arrow decimal has one per column.
    """
    found: dict[int, int] = {}
    stack = list(vectors)
    while stack:
        vec = stack.pop()
        if vec.scales is not None:
            raise OrcError(
                f"column {vec.node.path!r}: Hive 0.11 decimals read exactly keep a scale per value, and an Arrow "
                "decimal has one per column: read them with a NumPy dtype_backend, or hive11_decimals='orc_cpp' "
                "or 'orc_java'"
            )
        if vec.scale is not None:
            found[vec.node.column_id] = vec.scale
        stack.extend(vec.children)
    return found


def arrow_type(
    node: TypeNode,
    selected: Set[int] | None = None,
    dictionary_ids: Set[int] = frozenset(),
    scales: Mapping[int, int] | None = None,
) -> Any:
    """The Arrow type pyarrow's ORC reader uses for ``node``: struct fields limited to the ``selected`` column ids,
    the strings whose column ids are in ``dictionary_ids`` as dictionaries (``dictionary_as_category``: the
    columns dictionary-encoded in at least one stripe read), Hive 0.11 decimals at the scale ``scales`` gives
    (:func:`decimal_scales`)."""
    pa = _pa()
    scales = scales or {}
    kind = node.kind
    if kind in STRING_KINDS and node.column_id in dictionary_ids:
        return pa.dictionary(pa.int32(), pa.string())
    simple = KINDS[kind].arrow
    if simple == "timestamp[ns, tz=UTC]":
        return pa.timestamp("ns", tz="UTC")
    if simple is not None:
        return pa.type_for_alias(simple)
    if kind == "decimal":
        return pa.decimal128(node.decimal_precision, scales.get(node.column_id, node.decimal_scale))
    if kind == "array":
        return pa.list_(arrow_type(node.children[0], selected, dictionary_ids, scales))
    if kind == "map":
        key, value = node.children
        return pa.map_(
            arrow_type(key, selected, dictionary_ids, scales), arrow_type(value, selected, dictionary_ids, scales)
        )
    if kind == "struct":
        return pa.struct(
            [
                pa.field(c.name, arrow_type(c, selected, dictionary_ids, scales))
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
        fields = [
            pa.field(f"_union_{i}", arrow_type(c, selected, dictionary_ids, scales))
            for i, c in enumerate(node.children)
        ]
        return pa.sparse_union(fields, list(range(len(fields))))
    raise AssertionError(kind)


def _validity(vec: ColumnVector) -> Any:
    if vec.valid is None or vec.null_count == 0:
        return None
    return _pa().py_buffer(np.packbits(vec.valid, bitorder="little"))


def _offsets32(offsets: np.ndarray) -> Any:
    rebased = offsets - offsets[0] if offsets[0] else offsets
    return _pa().py_buffer(rebased.astype(np.int32))


def _string_bounds(vec: ColumnVector) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64, ``length + 1``) and bytes (at least one, as Arrow wants a buffer) of a string vector."""
    if vec.offsets is None or len(vec.offsets) == 0:
        offsets = np.zeros(vec.length + 1, dtype=np.int64)
    else:
        offsets = np.ascontiguousarray(vec.offsets, dtype=np.int64)
    data = vec.data if vec.data is not None and len(vec.data) else np.zeros(1, dtype=np.uint8)
    return offsets, data


def large_strings(vec: ColumnVector, type_: Any) -> Any:
    """A ``large_string`` / ``large_binary`` array over ``vec``'s int64 offsets and bytes as they are."""
    pa = _pa()
    offsets, data = _string_bounds(vec)
    return pa.Array.from_buffers(
        type_, vec.length, [_validity(vec), pa.py_buffer(offsets), pa.py_buffer(data)], vec.null_count
    )


def _strings32(vec: ColumnVector, type_: Any) -> list[Any]:
    """``string`` / ``binary`` arrays with 32-bit offsets over ``vec``'s bytes: one, or one per run of slots
    holding less than 2 GiB."""
    pa = _pa()
    offsets, data = _string_bounds(vec)
    pieces = []
    start = 0
    while True:
        base = int(offsets[start])
        # the last slot whose end is within 2 GiB of this piece's start (at least one slot per piece)
        stop = max(start + 1, int(np.searchsorted(offsets, base + STRING32_LIMIT, side="right")) - 1)
        stop = min(stop, vec.length)
        if offsets[stop] <= STRING32_LIMIT:
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
            pa.Array.from_buffers(type_, stop - start, [bitmap, pa.py_buffer(bounds), pa.py_buffer(piece_data)], nulls)
        )
        if stop >= vec.length:
            return pieces
        start = stop


def to_arrow(vec: ColumnVector, type_: Any) -> Any:
    """The Arrow array of ``vec`` with type ``type_`` (from :func:`arrow_type` of a possibly pruned schema)."""
    pa = _pa()
    kind = vec.node.kind
    n = vec.length
    validity = _validity(vec)
    nulls = vec.null_count
    if kind == "boolean":
        bits = pa.py_buffer(np.packbits(chunk_values(vec, np.bool_), bitorder="little"))
        return pa.Array.from_buffers(type_, n, [validity, bits], nulls)
    if kind in BYTES_KINDS:
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
        pieces = _strings32(vec, type_)
        if len(pieces) == 1:
            return pieces[0]
        return pa.concat_arrays(pieces)  # past 2 GiB inside a nested column: Arrow says what it cannot hold
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


def arrow_column(chunks: list[ColumnVector], type_: Any) -> Any:
    """A top-level column's chunks as one ``pyarrow.ChunkedArray`` of ``type_``; strings past 2 GiB in a chunk are
    split into chunks that 32-bit offsets can hold."""
    pa = _pa()
    parts: list[Any] = []
    for vec in chunks:
        plain = vec.node.kind in BYTES_KINDS and vec.dictionary is None and not pa.types.is_dictionary(type_)
        if plain:
            parts.extend(_strings32(vec, type_))
        else:
            parts.append(to_arrow(vec, type_))
    return pa.chunked_array(parts, type=type_)


def build_table(
    selection: Selection, columns: list[list[ColumnVector]], *, dictionary_as_category: bool = False
) -> Any:
    """The decoded columns as a ``pyarrow.Table`` with pyarrow's ORC types, one chunk per piece, without copying
    the decoded buffers."""
    pa = _pa()
    # strings become dictionaries where at least one piece read keeps a dictionary; directly encoded ones stay strings
    dictionary_ids = dictionary_columns(v for column in columns for v in column) if dictionary_as_category else set()
    scales = decimal_scales(v for column in columns for v in column)
    arrays = [
        arrow_column(chunks, arrow_type(node, selection.selected, dictionary_ids, scales))
        for node, chunks in zip(selection.fields, columns, strict=True)
    ]
    return pa.Table.from_arrays(arrays, names=list(selection.names))
