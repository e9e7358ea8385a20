"""Decoded columns to a DataFrame for each ``dtype_backend``, with or without pyarrow.

Each column goes through one converter for its kind (:func:`orcjit.convert.values.convert_values`), whatever the
backend and whether pyarrow is installed; what differs is only the representation pandas itself chooses
(strings stored in Arrow memory when pyarrow is there, as Python objects when it is not). Two fast paths use
Arrow where it is there: ``dtype_backend="pyarrow"`` wraps Arrow arrays over the decoded buffers
(:mod:`orcjit.convert.arrow`), and lists, maps and structs without unions go through Arrow's own conversion,
which makes their per-row NumPy arrays and dicts in C++. Unions, which Arrow cannot convert, always take the
converters here.
"""

from __future__ import annotations

import inspect
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import pandas as pd

try:
    from pandas.core.internals.construction import arrays_to_mgr

    # pandas 2 also builds array managers, and asks which
    _MGR_OPTIONS = {"typ": "block"} if "typ" in inspect.signature(arrays_to_mgr).parameters else {}
except ImportError:  # pragma: no cover - a pandas whose internals differ: assemble() takes the public constructor
    arrays_to_mgr = None

from ..decode.vector import ColumnVector
from ..errors import OrcError
from ..types.kinds import BACKENDS, STRING_KINDS
from ..types.resolve import Selection
from ..types.schema import TypeNode
from .arrow import arrow_column, arrow_type, build_table, decimal_scales, dictionary_columns
from .env import arrow_available, default_string_dtype
from .strings import categorical
from .values import convert_values

__all__ = ["assemble", "build_frame", "convert_column", "names_index"]


def convert_column(
    node: TypeNode,
    chunks: list[ColumnVector],
    backend: str,
    *,
    selected: AbstractSet[int] | None = None,
    dictionary_ids: AbstractSet[int] = frozenset(),
) -> Any:
    """One top-level column's pandas array for ``backend`` (``"numpy"``, ``"numpy_nullable"`` or ``"pyarrow"``),
    from its vectors in row order.

    ``selected``: the column ids read (struct fields outside it are left out of Arrow types); ``dictionary_ids``:
    column ids of strings to return as categories (``dictionary_as_category``: those some piece keeps a
    dictionary of). A lone chunk whose values are writable may be taken over: its array may become
    the result, nulls written into it; read-only values are copied. Build frames with ``copy=False``: pandas 3
    copies NumPy arrays otherwise.
    """
    if backend not in BACKENDS:
        raise OrcError(f"dtype_backend {backend!r} is invalid, use one of {', '.join(BACKENDS)}")
    if backend == "pyarrow":
        type_ = arrow_type(node, selected, dictionary_ids, decimal_scales(chunks))
        return pd.arrays.ArrowExtensionArray(arrow_column(chunks, type_))
    if node.kind in STRING_KINDS and node.column_id in dictionary_ids:
        return categorical(node, chunks)
    return convert_values(node, chunks, backend)


def build_frame(
    selection: Selection,
    columns: list[list[ColumnVector]],
    backend: str,
    *,
    dictionary_as_category: bool = False,
) -> pd.DataFrame:
    """Assemble the decoded columns (one list of vectors per field of ``selection``, each column's pieces in row
    order) into a DataFrame."""
    dictionary_ids = dictionary_columns(v for column in columns for v in column) if dictionary_as_category else set()
    selected = selection.selected
    arrays: dict[int, Any] = {}
    through_arrow = []
    for i, (node, chunks) in enumerate(zip(selection.fields, columns, strict=True)):
        if backend != "pyarrow" and node.is_compound and arrow_available() and not _holds_union(node, selected):
            through_arrow.append(i)
        else:
            arrays[i] = convert_column(node, chunks, backend, selected=selected, dictionary_ids=dictionary_ids)
    if through_arrow:
        picked = Selection([selection.fields[i] for i in through_arrow], [str(i) for i in through_arrow], selected)
        table = build_table(picked, [columns[i] for i in through_arrow], dictionary_as_category=dictionary_as_category)
        converted = table.to_pandas()
        for j, i in enumerate(through_arrow):
            arrays[i] = converted.iloc[:, j]
    return assemble([arrays[i] for i in range(len(selection.fields))], selection.names)


def assemble(arrays: list[Any], names: list[str]) -> pd.DataFrame:
    """A DataFrame of ``arrays`` (NumPy arrays, pandas extension arrays or Series of one length) named ``names``,
    one block per column as decoded: no consolidation copy, no copy at all.

    The arrays are made by the converters with the dtypes they must have, so pandas' own checking and inference
    (a third of a small read's time) is skipped through its block-manager constructor; a pandas without it
    takes the public constructor.
    """
    columns = names_index(names)
    rows = len(arrays[0]) if arrays else 0
    try:
        mgr = arrays_to_mgr(
            arrays, columns, pd.RangeIndex(rows), verify_integrity=False, consolidate=False, **_MGR_OPTIONS
        )
        return pd.DataFrame._from_mgr(mgr, axes=mgr.axes)  # type: ignore[attr-defined]
    except (TypeError, AttributeError):  # pragma: no cover - a pandas whose internals differ
        frame = pd.DataFrame(dict(enumerate(arrays)), copy=False)
        frame.columns = columns
        return frame


def names_index(names: list[str]) -> pd.Index:
    """``pd.Index(names)`` of column names: of pandas' default dtype for strings, made from the names without
    pandas inferring it (for ten names that inference took longer than building the rest of the frame)."""
    if not names or not all(type(name) is str for name in names):
        return pd.Index(names)
    dtype = default_string_dtype()
    try:
        if dtype is None:  # object, as pandas 2 infers strings
            return pd.Index._simple_new(np.array(names, dtype=object))
        return pd.Index._simple_new(dtype.construct_array_type()._from_sequence(names, dtype=dtype))
    except (AttributeError, TypeError):  # pragma: no cover - a pandas whose internals differ
        return pd.Index(names)


def _holds_union(node: TypeNode, selected: AbstractSet[int]) -> bool:
    """Whether the selected part of ``node``'s subtree holds a union."""
    return any(n.kind == "uniontype" and n.column_id in selected for n in node.walk())
