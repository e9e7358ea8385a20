"""Reading a dataset: each file planned against the dataset's schema, read with orcjit's scan, and its columns
brought to the dataset's (renamed, widened, partition values and missing columns added).

Filters are stated against the dataset's columns. For each file, a test on a partition column, or on a column the
file lacks (nulls there), has one answer for the whole file: it is decided here, exactly as the row filter
decides it (:func:`orcjit.pushdown.rows.predicate_mask` on the file's one value), and dropped from the filters;
a conjunction it fails is dropped, and a file whose every conjunction fails is skipped unopened. The tests left
are the file's own columns', which the file's read prunes by statistics, row groups and bloom filters and then
applies row by row. So the rows read are exactly the rows a full read filtered by the same filters keeps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..decode.vector import ColumnVector
from ..pushdown.filters import NULL_OPS, SET_OPS, Filters, Predicate
from ..pushdown.rows import predicate_mask
from ..reading.scan import Scanned
from ..types.kinds import KINDS
from ..types.resolve import ROOT_COLUMN_NAME, resolve_column, select_columns
from ..types.schema import TypeNode
from .columns import constant_vector, null_vector
from .files import DatasetMeta

__all__ = ["SKIP", "FilePlan", "file_columns", "file_filters", "file_vectors", "plan_files", "retarget"]

SKIP = "skip"  # a file's filters rule out every row: it is not opened


@dataclass
class FilePlan:
    """How one file is read: the columns to ask it for (its own names), the filters left for it (``None``: none;
    :data:`SKIP`: no row matches), and why it is skipped, if it is."""

    index: int
    columns: list[str]
    filters: list[list[tuple[Any, ...]]] | str | None
    reason: str | None = None


def top_name(node: TypeNode) -> str:
    """The dataset column (top-level field) a node of the dataset's schema lies in."""
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    return node.name or ""


def _file_path(dataset: DatasetMeta, index: int, node: TypeNode) -> str | None:
    """``node``'s path in file ``index`` (its top-level field renamed as the file names it), or None if the file
    does not hold that column."""
    field = dataset.columns[index].fields.get(top_name(node))
    if field is None:
        return None
    rest = node.path.split(".")[1:]
    return ".".join([field.path, *rest])


def file_columns(dataset: DatasetMeta, index: int, columns: Sequence[TypeNode] | None) -> list[str]:
    """The columns to ask file ``index`` for: every dataset column it holds (``columns`` None), or the paths of
    the given dataset nodes it holds, in the file's names."""
    if columns is None:
        return [node.path for node in dataset.columns[index].fields.values()]
    paths = [_file_path(dataset, index, node) for node in columns]
    return [p for p in paths if p is not None]


def _constant(dataset: DatasetMeta, index: int, node: TypeNode) -> tuple[bool, Any]:
    """Whether ``node`` has one value over file ``index`` (a partition column, or a column the file lacks), and
    that value (None for nulls)."""
    name = top_name(node)
    if name in dataset.partition_names:
        return True, dataset.partition_values(index)[name]
    return name not in dataset.columns[index], None


def _term(path: str, p: Predicate) -> tuple[Any, ...]:
    if p.op in NULL_OPS:
        return (path, p.op)
    return (path, p.op, list(p.values) if p.op in SET_OPS else p.value)


def file_filters(dataset: DatasetMeta, index: int, filters: Filters | None) -> list[list[tuple[Any, ...]]] | str | None:
    """The filters left for file ``index`` (see the module docstring): ``None`` when every row passes, :data:`SKIP`
    when none does, else the conjunctions in the file's own column names."""
    if not filters:
        return None
    kept: list[list[tuple[Any, ...]]] = []
    for conjunction in filters:
        terms: list[tuple[Any, ...]] | None = []
        for p in conjunction:
            constant, value = _constant(dataset, index, p.node)
            if not constant:
                path = _file_path(dataset, index, p.node)
                assert terms is not None and path is not None
                terms.append(_term(path, p))
            elif not bool(predicate_mask(p, constant_vector(p.node, value, 1))[0]):
                terms = None  # this conjunction fails on every row of the file
                break
        if terms == []:
            return None  # a conjunction every row satisfies
        if terms is not None:
            kept.append(terms)
    return kept if kept else SKIP


def plan_files(dataset: DatasetMeta, columns: Sequence[TypeNode] | None, filters: Filters | None) -> list[FilePlan]:
    """Each file's plan (skipped files included, with the reason)."""
    plans = []
    for index in range(len(dataset.metas)):
        left = file_filters(dataset, index, filters)
        reason = None
        if left == SKIP:
            on_partitions = any(top_name(p.node) in dataset.partition_names for c in filters or [] for p in c)
            reason = "partition values" if on_partitions else "missing columns"
        plans.append(FilePlan(index, file_columns(dataset, index, columns), left, reason))
    return plans


def resolve_nodes(schema: TypeNode, columns: Any) -> list[TypeNode] | None:
    """The dataset nodes ``columns`` names (names, dotted paths or positions), or None for every column.

    Raises
    ------
    OrcError
        If ``columns`` is not a list of names or positions, or names an unknown or ambiguous column.
    """
    if columns is None:
        return None
    select_columns(schema, columns)  # the one check of what columns= may hold
    return [resolve_column(schema, c) for c in columns]


def file_vectors(
    dataset: DatasetMeta, index: int, scanned: Scanned, output: Sequence[TypeNode], names: Sequence[str]
) -> list[list[ColumnVector]]:
    """File ``index``'s decoded columns as the dataset's: for each output column (top-level ``output`` nodes
    called ``names``) its vectors, retyped onto the dataset's nodes and widened to the dataset's types, or one
    vector of its partition value or of nulls where the file does not store it."""
    rows = sum(scanned.row_counts)
    decoded = dict(zip(scanned.output.names, scanned.columns, strict=True))
    fields = dataset.columns[index].fields
    out = []
    for node, name in zip(output, names, strict=True):
        own = fields.get(name)
        if own is not None:
            out.append([retarget(v, node) for v in decoded[own.name if own.name is not None else ROOT_COLUMN_NAME]])
            continue
        constant, value = _constant(dataset, index, node)
        out.append([constant_vector(node, value, rows) if constant and value is not None else null_vector(node, rows)])
    return out


def retarget(vec: ColumnVector, node: TypeNode) -> ColumnVector:
    """``vec`` (decoded with a file's schema) on the dataset's node ``node``: the same structure under other column
    ids (which the converters key dictionaries, scales and selections by), integers and floats widened."""
    kind = KINDS[node.kind]
    values = vec.values
    if values is not None and kind.fixed_width and node.kind != vec.node.kind and values.dtype != kind.dtype:
        values = values.astype(kind.dtype)
    if node.kind == "struct":
        by_name = {c.name: c for c in node.children}
        children = [retarget(c, by_name[c.node.name]) for c in vec.children]
    else:
        children = [retarget(c, n) for c, n in zip(vec.children, node.children, strict=True)]
    return dataclasses.replace(vec, node=node, values=values, children=children)
