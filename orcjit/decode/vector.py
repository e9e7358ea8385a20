"""``ColumnVector``: one column of one stripe, decoded, in Arrow's memory layout held in numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..types.schema import TypeNode


@dataclass
class ColumnVector:
    """A decoded column.

    Attributes
    ----------
    node : TypeNode
        The column's type.
    length : int
        Number of slots (rows at this column's level).
    valid : bool array or None
        Which slots hold a value; ``None`` when all do.
    values : numpy array or None
        Primitives: one value per slot (zero at null slots). Dictionary strings: the dictionary index per slot.
        Unions: the tag per slot.
    offsets : int64 array or None
        Strings, binary, lists and maps: ``length + 1`` offsets into ``data`` or the child (empty at null slots).
    data : uint8 array or None
        Strings and binary: the bytes the offsets point into.
    dictionary : (offsets, data) or None
        Dictionary-encoded strings kept as a dictionary (``dictionary_as_category``).
    children : list of ColumnVector
        Struct fields (each ``length`` slots), the list element, the map key and value, or the union variants
        (each ``length`` slots, valid where the tag selects it).
    scale : int or None
        Decimals of Hive 0.11 files: the scale the values were brought to (the type states none); ``None`` for
        every other column, whose values have their type's scale.
    scales : int64 array or None
        Hive 0.11 decimals read exactly: each value's own scale, one per slot (``values`` then unscaled as
        stored).
    """

    node: TypeNode
    length: int
    valid: np.ndarray | None = None
    values: np.ndarray | None = None
    offsets: np.ndarray | None = None
    data: np.ndarray | None = None
    dictionary: tuple[np.ndarray, np.ndarray] | None = None
    children: list[ColumnVector] = field(default_factory=list)
    scale: int | None = None
    scales: np.ndarray | None = None

    @property
    def null_count(self) -> int:
        """Number of null slots."""
        return 0 if self.valid is None else int(self.length - np.count_nonzero(self.valid))


def find_vector(fields: dict[int, ColumnVector], node: TypeNode) -> ColumnVector:
    """The vector of ``node`` (a root field, or a field nested in structs) among the decoded root ``fields``."""
    chain = []
    current: TypeNode | None = node
    while current is not None and current.column_id not in fields:
        chain.append(current.column_id)
        current = current.parent
    if current is None:
        raise KeyError(node.column_id)
    vec = fields[current.column_id]
    for column_id in reversed(chain):
        vec = next(c for c in vec.children if c.node.column_id == column_id)
    return vec


def prune_vector(vec: ColumnVector, selected: set[int]) -> ColumnVector:
    """``vec`` without the struct fields outside ``selected`` (decoded only for filtering)."""
    if vec.node.kind != "struct":
        return vec
    children = [prune_vector(c, selected) for c in vec.children if c.node.column_id in selected]
    if len(children) == len(vec.children) and all(a is b for a, b in zip(children, vec.children, strict=True)):
        return vec
    return ColumnVector(vec.node, vec.length, vec.valid, children=children)


def slice_vector(vec: ColumnVector, start: int, stop: int) -> ColumnVector:
    """Slots ``[start, stop)`` of ``vec`` as a vector of its own, laid out as decoding them alone would: offsets
    from 0 over only the bytes or child slots they span, so any consumer takes it as it takes a decoded vector.
    Arrays are views where they can be (a rebased offsets array is new)."""
    if start == 0 and stop == vec.length:
        return vec
    offsets, data, children = vec.offsets, vec.data, vec.children
    if offsets is not None:
        bounds = offsets[start : stop + 1]
        base, end = (int(bounds[0]), int(bounds[-1])) if len(bounds) else (0, 0)
        offsets = bounds - bounds[0] if len(bounds) else bounds
        if data is not None:
            data = data[base:end]
        if vec.node.kind in ("array", "map"):
            children = [slice_vector(c, base, end) for c in children]
    if vec.node.kind in ("struct", "uniontype"):
        children = [slice_vector(c, start, stop) for c in children]
    return ColumnVector(
        vec.node,
        stop - start,
        None if vec.valid is None else vec.valid[start:stop],
        values=None if vec.values is None else vec.values[start:stop],
        offsets=offsets,
        data=data,
        dictionary=vec.dictionary,
        children=children,
        scale=vec.scale,
        scales=None if vec.scales is None else vec.scales[start:stop],
    )
