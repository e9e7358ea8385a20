"""The one resolver of column names, dotted paths and positions, and the column selections of a read.

Every argument that names a column goes through :func:`resolve_column`: ``columns=`` and ``filters=`` of every
read, ``explain``, ``row_index`` and ``bloom_filter``, the CLI's ``--columns``, ``--filter`` and ``--column``, the
Spark data source's columns and pushed filters, and the Parquet reader. So a name means the same column
everywhere, and every caller refuses the same names.

The rule
--------
A column is named by

- a **position** (an ``int``): the n-th top-level column, as ``columns=[0]`` takes it in pandas and pyarrow;
  where the caller asks for column ids instead (``ORCFile.row_index``), the column with that id. Filters take
  names only, as pyarrow's do;
- a **name**: a top-level field with exactly that name, even when the name holds dots;
- else a **dotted path**: struct field names joined by dots (``"trip.fare"``). Children of lists, maps and unions
  have no names. The reads (``columns=``) spell paths as pandas.read_orc (ORC C++) selects, passing through them
  (``"items.price"`` is the ``price`` field of a ``list<struct<price:...>>``); what shows a file's inner columns
  (``row_index``, ``bloom_filter``, the CLI) names them as ORC's tools do (``"items._elem.price"``, ``"m._key"``,
  ``"m._value"``, ``"u._0"``, :attr:`TypeNode.path`). Filters accept only paths through structs, where both
  spellings agree.

A name that more than one column answers to at the same step (two top-level fields named ``a``, as
``pyarrow.Table.from_arrays(..., names=["a", "a"])`` writes; two paths to one name) is ambiguous: an
:class:`~orcjit.OrcError` lists the candidates, and ``columns=`` positions choose among top-level ones. pyarrow
refuses such names the same way (``Table.select``: 'Field "a" exists 2 times', ``pyarrow.dataset``);
``pandas.read_orc`` silently reads the last of them.

A file whose root is not a struct has one column, named ``_col0`` (position 0): the root itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import OrcError
from .schema import TypeNode

__all__ = [
    "ROOT_COLUMN_NAME",
    "Selection",
    "decode_selection",
    "field_path",
    "name_list",
    "named",
    "resolve_column",
    "resolve_name",
    "select_columns",
    "top_level_fields",
]

ROOT_COLUMN_NAME = "_col0"

Through = Literal["any", "structs"]
Spelling = Literal["pandas", "orc"]


@dataclass
class Selection:
    """The columns a read returns and the column ids it must decode.

    ``fields`` are the DataFrame's columns in file order: top-level struct fields, or the root itself when the
    file's root is not a struct; ``names`` their labels. ``selected`` holds every column id to decode: the chosen
    columns with their whole subtrees, the structs above a chosen nested field, and what a map or union needs
    beside a chosen part of it.
    """

    fields: list[TypeNode]
    names: list[str]
    selected: set[int]


def top_level_fields(schema: TypeNode) -> list[tuple[str, TypeNode]]:
    """The columns of a file as a DataFrame has them: ``(name, node)`` of each field of the root struct, or
    ``("_col0", root)`` when the root is not a struct."""
    if schema.kind != "struct":
        return [(ROOT_COLUMN_NAME, schema)]
    return [(child.name or "", child) for child in schema.children]


# -- one column ------------------------------------------------------------------------------------------------------


def resolve_column(
    schema: TypeNode,
    column: Any,
    *,
    ints: Literal["position", "column_id"] = "position",
    through: Through = "any",
    spelling: Spelling = "pandas",
) -> TypeNode:
    """The node ``column`` names in ``schema``, by the rule of this module.

    Parameters
    ----------
    schema : TypeNode
        The file's root.
    column : str or int
        A name, a dotted path, or an int: a top-level position (``ints="position"``) or a column id
        (``ints="column_id"``).
    ints : {"position", "column_id"}
        What an int means.
    through : {"any", "structs"}
        ``"structs"``: only columns reached through structs (what filters test).
    spelling : {"pandas", "orc"}
        How a path names the children of lists, maps and unions: passed through (pandas), or ``_elem``,
        ``_key``, ``_value``, ``_0`` (ORC's tools).

    Raises
    ------
    OrcError
        If no column answers to ``column``, more than one does, or ``column`` is neither a str nor an int.
    """
    if isinstance(column, bool) or not isinstance(column, (str, int)):
        raise OrcError(f"a column is named by a str or an int, got {column!r}")
    if isinstance(column, int):
        return _by_int(schema, column, ints)
    fields = top_level_fields(schema)
    exact = [fields[i][1] for i in named(column, [name for name, _ in fields])]
    if not exact and "." in column:
        exact = _by_path(schema, column, spelling)
        if through == "structs":
            exact = [n for n in exact if _through_structs(n)]
    if len(exact) == 1:
        return exact[0]
    if exact:
        raise _ambiguous(schema, column, exact)
    names = ", ".join(repr(name) for name, _ in fields)
    reach = " that filters can test (paths go through structs only)" if through == "structs" and "." in column else ""
    raise OrcError(f"no column {column!r} in the file{reach}; its columns are {names}")


def named(column: str, names: Sequence[str]) -> list[int]:
    """The positions in ``names`` of those equal to ``column``: the step every lookup by name takes."""
    return [i for i, name in enumerate(names) if name == column]


def resolve_name(column: Any, names: Sequence[str]) -> int:
    """The position of the one top-level column called ``column`` among ``names``, by the rule of this module,
    for readers whose schema is a flat list of names (the Parquet reader's top-level columns).

    Raises
    ------
    OrcError
        If no name is ``column``, more than one is, or ``column`` is not a str.
    """
    if not isinstance(column, str):
        raise OrcError(f"a column is named by a str, got {column!r}")
    found = named(column, names)
    if not found:
        raise OrcError(f"no column {column!r} in the file; its columns are {', '.join(map(repr, names))}")
    if len(found) > 1:
        positions = ", ".join(str(i) for i in found)
        raise OrcError(f"column name {column!r} is ambiguous: it names {len(found)} columns, at positions {positions}")
    return found[0]


def name_list(text: str | None, option: str) -> list[str] | None:
    """The names of a comma-separated option value (``"id, trip.fare"``), or ``None`` when it was not given.

    Raises
    ------
    OrcError
        If the value names no column at all (``","``); the message starts with ``option``.
    """
    if text is None:
        return None
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise OrcError(f"{option}{text!r} names no column")
    return names


def field_path(schema: TypeNode, parts: Sequence[str]) -> TypeNode | None:
    """The node reached from ``schema`` by struct field names ``parts`` taken exactly (each step one field, none
    holding a dot of its own for the next): ``None`` if a step names no field, or more than one, or leaves
    structs. The root of a file that is not a struct answers to ``("_col0",)``."""
    if schema.kind != "struct":
        return schema if tuple(parts) == (ROOT_COLUMN_NAME,) else None
    node = schema
    for part in parts:
        if node.kind != "struct":
            return None
        matches = named(part, [c.name or "" for c in node.children])
        if len(matches) != 1:
            return None
        node = node.children[matches[0]]
    return node if node is not schema else None


def _by_int(schema: TypeNode, column: int, ints: str) -> TypeNode:
    if ints == "column_id":
        if 0 <= column <= schema.max_column_id:
            return schema.column(column)
        raise OrcError(f"no column {column}: column ids go from 0 to {schema.max_column_id}")
    fields = top_level_fields(schema)
    if not 0 <= column < len(fields):
        raise OrcError(f"column index {column} out of range: the file has {len(fields)} columns")
    return fields[column][1]


def _by_path(schema: TypeNode, path: str, spelling: Spelling) -> list[TypeNode]:
    """Every node a dotted path names in ``spelling`` (pandas' pass-through names or ORC's ``_elem``)."""
    found: dict[int, TypeNode] = {}
    steps = [(schema, 0)]
    parts = path.split(".")
    while steps:
        node, i = steps.pop()
        if i == len(parts):
            if node is not schema:
                found.setdefault(node.column_id, node)
            continue
        for child in node.children:
            if node.kind == "struct":
                if child.name == parts[i]:
                    steps.append((child, i + 1))
            elif spelling == "orc":
                if child.step_name == parts[i]:
                    steps.append((child, i + 1))
            else:  # pandas: an unnamed child is passed through without a step of its own
                steps.append((child, i))
    return [found[k] for k in sorted(found)]


def _through_structs(node: TypeNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.kind != "struct":
            return False
        parent = parent.parent
    return True


def _ambiguous(schema: TypeNode, column: str, nodes: list[TypeNode]) -> OrcError:
    fields = [node for _, node in top_level_fields(schema)]
    described = []
    for node in nodes:
        where = f"position {fields.index(node)}, " if node in fields else f"path {node.path!r}, "
        described.append(f"{where}column id {node.column_id} ({node})")
    hint = "; choose one by position, as columns=[0]" if all(n in fields for n in nodes) else ""
    return OrcError(f"column name {column!r} is ambiguous: it names {len(nodes)} columns: {'; '.join(described)}{hint}")


# -- selections ------------------------------------------------------------------------------------------------------


def select_columns(schema: TypeNode, columns: Iterable[str | int] | None) -> Selection:
    """Resolve ``columns`` (names, dotted paths or positions; ``None`` for all) into the read's selection.

    As in pandas, the result keeps the file's column order, not the list's.

    Raises
    ------
    OrcError
        If ``columns`` is not a list of names or positions, or a name is unknown or ambiguous.
    """
    if columns is None:
        fields = top_level_fields(schema)
        return Selection([n for _, n in fields], [name for name, _ in fields], {n.column_id for n in schema.walk()})
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Iterable):
        raise OrcError(f"columns must be a list of column names, got {type(columns).__name__}")
    columns = list(columns)
    for column in columns:
        if isinstance(column, bool) or not isinstance(column, (str, int)):
            raise OrcError(f"columns must hold column names or indices, got {column!r}")
    try:
        nodes = [resolve_column(schema, c) for c in columns]
    except OrcError:
        if schema.kind != "struct":
            kind = schema.kind
            raise OrcError(f"the file's root is {kind}, not a struct: its one column is {ROOT_COLUMN_NAME!r}") from None
        raise
    return selection_of(schema, nodes)


def selection_of(schema: TypeNode, nodes: Iterable[TypeNode]) -> Selection:
    """The selection that reads ``nodes``: the top-level fields holding them, in file order, and every column id
    their decoding needs."""
    chosen = list(nodes)
    selected = {schema.column_id}
    for node in chosen:
        selected |= _needed(node)
    fields = [(name, node) for name, node in top_level_fields(schema) if node.column_id in selected]
    if schema.kind != "struct" and not chosen:
        fields, selected = [], set()  # the root is the one column: none chosen reads nothing
    return Selection([n for _, n in fields], [name for name, _ in fields], selected)


def decode_selection(schema: TypeNode, output: Selection, tested: Iterable[TypeNode]) -> Selection:
    """What a read that returns ``output`` and tests the ``tested`` columns (its filters') must decode.

    The tested columns are added with the structs holding them, not with the rest of those structs (which may be
    encrypted, and is not needed); the fields are the output's and those holding a tested column, in file order.
    """
    selected = set(output.selected)
    for node in tested:
        selected |= _needed(node)
    fields = [(name, node) for name, node in top_level_fields(schema) if node.column_id in selected]
    if len(fields) == len(output.fields):
        return Selection(list(output.fields), list(output.names), selected)
    return Selection([n for _, n in fields], [name for name, _ in fields], selected)


def _needed(node: TypeNode) -> set[int]:
    """The column ids a read of ``node`` decodes: its subtree and what lies above it (a map needs both sides and a
    union every variant, to be read at all)."""
    ids = {n.column_id for n in node.walk()}
    child, parent = node, node.parent
    while parent is not None:
        ids.add(parent.column_id)
        if parent.kind in ("map", "uniontype"):
            ids.update(n.column_id for s in parent.children if s is not child for n in s.walk())
        child, parent = parent, parent.parent
    return ids
