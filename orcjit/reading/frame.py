"""From column selection to DataFrame: which column ids a read needs, and how decoded stripes become pandas."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import OrcError
from ..schema import TypeNode
from .columns import STRING_KINDS
from .vector import ColumnVector

BACKENDS = ("numpy", "numpy_nullable", "pyarrow")
ROOT_COLUMN_NAME = "_col0"


@dataclass
class Selection:
    """The columns a read returns and the column ids it must decode.

    ``fields`` are the DataFrame's columns in file order: top-level struct fields, or the root itself when the
    file's root is not a struct. ``selected`` holds every column id to decode: the chosen columns with their whole
    subtrees, plus the structs above a chosen nested field.
    """

    fields: list[TypeNode]
    names: list[str]
    selected: set[int]


def select_columns(schema: TypeNode, columns: Sequence[str | int] | None) -> Selection:
    """Resolve ``columns`` (names, dotted paths to nested struct fields, or indices) against the schema.

    Raises
    ------
    OrcError
        If ``columns`` is not a list of names or indices, or names a column the file does not have.
    """
    if schema.kind != "struct":
        if columns is not None and list(columns) not in ([], [0], [ROOT_COLUMN_NAME]):
            raise OrcError(f"the file's root is {schema.kind}, not a struct: its one column is {ROOT_COLUMN_NAME!r}")
        selected = {n.column_id for n in schema.walk()} if columns is None or list(columns) else set()
        fields = [schema] if selected else []
        return Selection(fields, [ROOT_COLUMN_NAME] * len(fields), selected)
    if columns is None:
        return Selection(
            list(schema.children), [c.name or "" for c in schema.children], {n.column_id for n in schema.walk()}
        )
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Iterable):
        raise OrcError(f"columns must be a list of column names, got {type(columns).__name__}")
    selected = {schema.column_id}
    for column in columns:
        node = _resolve(schema, column)
        selected.update(n.column_id for n in node.walk())
        child, parent = node, node.parent
        while parent is not None:
            selected.add(parent.column_id)
            if parent.kind in ("map", "uniontype"):
                # a field inside a map's keys or values, or one union variant: the map needs the other side, the
                # union every variant, to be read at all
                selected.update(n.column_id for s in parent.children if s is not child for n in s.walk())
            child, parent = parent, parent.parent
    fields = [c for c in schema.children if c.column_id in selected]
    return Selection(fields, [c.name or "" for c in fields], selected)


def _resolve(schema: TypeNode, column: Any) -> TypeNode:
    if isinstance(column, bool) or not isinstance(column, (str, int)):
        raise OrcError(f"columns must hold column names or indices, got {column!r}")
    if isinstance(column, int):
        if not 0 <= column < len(schema.children):
            raise OrcError(f"column index {column} out of range: the file has {len(schema.children)} columns")
        return schema.children[column]
    for child in schema.children:
        if child.name == column:
            return child
    if "." in column:
        node = _dotted_names(schema).get(column)
        if node is not None:
            return node
    names = ", ".join(repr(c.name) for c in schema.children)
    raise OrcError(f"no column {column!r} in the file; its columns are {names}")


def _dotted_names(schema: TypeNode) -> dict[str, TypeNode]:
    """Every field by the dotted name pandas.read_orc (ORC C++) selects it with: struct field names joined by
    dots, list elements, map keys and values and union variants passed through without a name of their own
    (``"items.price"`` is the ``price`` field of a ``list<struct<price:...>>``). Of two equal names the later
    field wins, as in ORC C++."""
    names: dict[str, TypeNode] = {}

    def visit(node: TypeNode, prefix: str) -> None:
        for child in node.children:
            path = prefix
            if node.kind == "struct":
                path = f"{prefix}.{child.name}" if prefix else child.name or ""
                names[path] = child
            visit(child, path)

    visit(schema, "")
    return names


def check_backend(dtype_backend: str | None) -> str:
    """Validate ``dtype_backend`` as pandas does; ``None`` means pandas' default (numpy)."""
    if dtype_backend is None:
        return "numpy"
    if dtype_backend not in ("numpy_nullable", "pyarrow"):
        raise OrcError(f"dtype_backend {dtype_backend!r} is invalid, only 'numpy_nullable' and 'pyarrow' are allowed.")
    if dtype_backend == "pyarrow":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise ImportError("dtype_backend='pyarrow' needs pyarrow: pip install pyarrow") from exc
    return dtype_backend


def _types_mapper(backend: str) -> Any:
    import pyarrow as pa

    if backend == "pyarrow":
        return pd.ArrowDtype
    if backend == "numpy_nullable":
        # the mapping pandas.read_orc applies for dtype_backend="numpy_nullable"
        return {
            pa.int8(): pd.Int8Dtype(),
            pa.int16(): pd.Int16Dtype(),
            pa.int32(): pd.Int32Dtype(),
            pa.int64(): pd.Int64Dtype(),
            pa.uint8(): pd.UInt8Dtype(),
            pa.uint16(): pd.UInt16Dtype(),
            pa.uint32(): pd.UInt32Dtype(),
            pa.uint64(): pd.UInt64Dtype(),
            pa.bool_(): pd.BooleanDtype(),
            pa.float32(): pd.Float32Dtype(),
            pa.float64(): pd.Float64Dtype(),
            pa.string(): pd.StringDtype(),
            pa.large_string(): pd.StringDtype(),
        }.get
    return None


@functools.cache
def _have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def build_frame(
    selection: Selection,
    columns: list[list[ColumnVector]],
    backend: str,
    *,
    dictionary_as_category: bool = False,
) -> pd.DataFrame:
    """Assemble the decoded columns (one list of vectors per field, the column's pieces in row order) into a
    DataFrame."""
    if backend != "pyarrow" and (os.environ.get("ORCJIT_NO_PYARROW") == "1" or not _have_pyarrow()):
        from .numpy_frame import build_frame_numpy

        return build_frame_numpy(selection, columns, backend, dictionary_as_category=dictionary_as_category)
    from .pandas_columns import to_pandas_array

    # pyarrow's to_pandas cannot convert unions, at the top level or inside lists, maps and structs
    # (ArrowNotImplementedError): such columns are converted here, each union value a {"tag", "value"} dict
    unions = {i for i, f in enumerate(selection.fields) if _holds_union(f, selection.selected)}
    unions = unions if backend != "pyarrow" else set()
    arrays: dict[int, Any] = {}
    for i, node in enumerate(selection.fields):
        if i in unions:
            from .numpy_frame import convert_column  # the same conversion as without pyarrow

            arrays[i] = convert_column(node, columns[i], selection.selected)
        elif not (dictionary_as_category and node.kind in STRING_KINDS):
            # categories need Arrow's dictionary unification across pieces; the rest converts directly
            array = to_pandas_array(node, columns[i], backend)
            if array is not None:
                arrays[i] = array
    rest = {i for i in range(len(selection.fields)) if i not in arrays}
    if rest:
        leave_out = set(range(len(selection.fields))) - rest
        table = build_table(selection, columns, dictionary_as_category=dictionary_as_category, leave_out=leave_out)
        converted = table.to_pandas(types_mapper=_types_mapper(backend))
        for j, i in enumerate(sorted(rest)):
            arrays[i] = converted.iloc[:, j]
    # one block per column, as decoded: no consolidation copy
    frame = pd.DataFrame({i: arrays[i] for i in range(len(selection.fields))}, copy=False)
    frame.columns = pd.Index(selection.names)
    return frame


def build_table(
    selection: Selection,
    columns: list[list[ColumnVector]],
    *,
    dictionary_as_category: bool = False,
    leave_out: Set[int] = frozenset(),
) -> Any:
    """The decoded columns as a ``pyarrow.Table`` with pyarrow's ORC types, one chunk per piece, without copying
    the decoded buffers; fields at the positions in ``leave_out`` are left out."""
    import pyarrow as pa

    from .arrow import arrow_type, dictionary_columns, to_arrow

    # strings become dictionaries where at least one piece read keeps a dictionary; directly encoded ones stay strings
    dictionary_ids = dictionary_columns(v for column in columns for v in column) if dictionary_as_category else set()
    kept = [i for i in range(len(selection.fields)) if i not in leave_out]
    types = {i: arrow_type(selection.fields[i], selection.selected, dictionary_ids) for i in kept}
    arrays = [pa.chunked_array([to_arrow(v, types[i]) for v in columns[i]], type=types[i]) for i in kept]
    return pa.Table.from_arrays(arrays, names=[selection.names[i] for i in kept])


def _holds_union(node: TypeNode, selected: set[int]) -> bool:
    """Whether the selected part of ``node``'s subtree holds a union."""
    return any(n.kind == "uniontype" and n.column_id in selected for n in node.walk())
