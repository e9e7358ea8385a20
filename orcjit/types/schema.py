"""The schema of an ORC file as a tree of typed nodes.

ORC stores the type tree flattened in pre-order: the root is column 0 and every compound type lists the ids of its
children. :func:`build_schema` checks that the list really is such a tree before anything trusts it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._proto import orc_proto_pb2 as pb
from ..errors import OrcError
from ..tail import text_field
from .kinds import (
    COMPOUND_KINDS,
    DEFAULT_DECIMAL_SCALE,
    GEOSPATIAL_KINDS,
    HIVE11_DECIMALS,
    KIND_NAMES,
    MAX_DECIMAL_PRECISION,
)

__all__ = ["DEFAULT_ALGORITHM", "DEFAULT_CRS", "MAX_DEPTH", "TypeNode", "build_schema", "struct_of"]


# Far beyond any real schema, and shallow enough for the readers, which recurse over the tree with up to 4 Python
# frames per level, to stay well inside Python's default recursion limit of 1000 wherever they are called from.
MAX_DEPTH = 100

_SIMPLE_NAME = re.compile(r"^[A-Za-z0-9_]+$")

# What a geometry or geography type whose footer entry leaves them out means, as ORC Java's reader fills them in
# (TypeDescription's defaults, which its writer always writes out): longitude/latitude on WGS84, and edges drawn as
# arcs of great circles.
DEFAULT_CRS = "OGC:CRS84"
DEFAULT_ALGORITHM = "SPHERICAL"
# the edge interpolation algorithms by number, named as ORC Java's TypeDescription prints them
_ALGORITHMS = pb.Type.EdgeInterpolationAlgorithm


@dataclass(eq=False)
class TypeNode:
    """One node of the schema tree: a column of the file.

    Attributes
    ----------
    column_id : int
        The column's id: its position in the pre-order flattening, as used by streams and statistics.
    kind : str
        ``boolean``, ``tinyint``, ``smallint``, ``int``, ``bigint``, ``float``, ``double``, ``string``,
        ``varchar``, ``char``, ``binary``, ``decimal``, ``date``, ``timestamp``,
        ``timestamp with local time zone``, ``geometry``, ``geography``, ``struct``, ``array``, ``map`` or
        ``uniontype``.
    name : str or None
        The field name under a struct parent; ``None`` for the root and for children of other compound types.
    children : list of TypeNode
        Sub-columns: struct fields, the list element, the map key and value, or the union variants.
    precision, scale : int or None
        For decimals, as the file states them (``None`` where an old writer left them out).
    max_length : int or None
        For ``varchar`` and ``char``.
    crs : str or None
        For ``geometry`` and ``geography``: the coordinate reference system of the values, as the writer stated
        it (ORC Java writes ``OGC:CRS84`` unless told otherwise: longitude and latitude on WGS84); ``OGC:CRS84``
        where the file states none, as ORC Java reads it.
    algorithm : str or None
        For ``geography``: how an edge between two points is drawn, ``SPHERICAL`` (the default, as in ORC Java),
        ``VINCENTY``, ``THOMAS``, ``ANDOYER`` or ``KARNEY``.
    attributes : dict of str to str
        Type attributes written by ORC 1.6 and later writers.
    max_column_id : int
        The largest column id in this subtree; the subtree is ``column_id .. max_column_id``.
    """

    column_id: int
    kind: str
    name: str | None = None
    children: list[TypeNode] = field(default_factory=list)
    precision: int | None = None
    scale: int | None = None
    max_length: int | None = None
    crs: str | None = None
    algorithm: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    max_column_id: int = 0
    parent: TypeNode | None = field(default=None, repr=False)

    @property
    def field_names(self) -> list[str]:
        """Field names of a struct (empty for other kinds)."""
        return [c.name for c in self.children if c.name is not None] if self.kind == "struct" else []

    @property
    def is_compound(self) -> bool:
        """Whether this is a struct, array, map or uniontype."""
        return self.kind in COMPOUND_KINDS

    @property
    def path(self) -> str:
        """Dotted path from the root, e.g. ``"a.b"``; empty for the root.

        Struct fields go by name; the children of other compound types by the names ORC's own tools use:
        ``_elem`` for a list element, ``_key`` and ``_value`` for a map, ``_0``, ``_1``, ... for union variants.
        """
        parts = []
        node: TypeNode | None = self
        while node is not None and node.parent is not None:
            parts.append(node.step_name)
            node = node.parent
        return ".".join(reversed(parts))

    @property
    def step_name(self) -> str:
        """This node's part of :attr:`path`: its field name, or ``_elem``, ``_key``, ``_value``, ``_0`` ...;
        empty for the root."""
        parent = self.parent
        if parent is None:
            return ""
        if parent.kind == "struct":
            return self.name or ""
        index = next(i for i, c in enumerate(parent.children) if c is self)
        if parent.kind == "array":
            return "_elem"
        if parent.kind == "map":
            return ("_key", "_value")[index]
        return f"_{index}"

    @property
    def hive11_decimal(self) -> bool:
        """Whether this is a decimal of a Hive 0.11 file: its type states no precision, and each value is stored
        with a scale of its own (:class:`~orcjit.types.kinds.Hive11Decimals` says how reads give them)."""
        return self.kind == "decimal" and not self.precision

    @property
    def decimal_precision(self) -> int:
        """The precision decimals of this column are read with: the type's, else 38 (Hive 0.11 states none)."""
        return self.precision or MAX_DECIMAL_PRECISION

    @property
    def decimal_scale(self) -> int:
        """The scale decimals of this column are read with: the type's; for Hive 0.11 decimals, which state none,
        the one ORC C++ and ``pandas.read_orc`` read them at (6), unless a read asks for another."""
        if self.hive11_decimal:
            return HIVE11_DECIMALS["orc_cpp"].scale or 0
        return self.scale if self.scale is not None else DEFAULT_DECIMAL_SCALE

    def walk(self) -> Iterator[TypeNode]:
        """Yield this node and every node below it in column-id order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __getitem__(self, name: str) -> TypeNode:
        """The struct field called ``name``.

        Raises
        ------
        KeyError
            If no field, or more than one, has that name.
        """
        matches = [c for c in self.children if c.name == name] if self.kind == "struct" else []
        if len(matches) != 1:
            raise KeyError(name)
        return matches[0]

    def find(self, path: str) -> TypeNode:
        """The node at a dotted path such as ``"a.b.c"`` or ``"tags._elem"``, every step named as :attr:`path`
        names it (for the names and paths ``columns=`` takes, see :mod:`orcjit.types.resolve`).

        Raises
        ------
        KeyError
            If a part of the path names no field, or more than one.
        """
        node = self
        for part in path.split("."):
            matches = [c for c in node.children if c.step_name == part]
            if len(matches) != 1:
                raise KeyError(path)
            node = matches[0]
        return node

    def column(self, column_id: int) -> TypeNode:
        """The node with the given column id in this subtree."""
        for node in self.walk():
            if node.column_id == column_id:
                return node
        raise KeyError(column_id)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly description of this subtree."""
        out: dict[str, Any] = {"id": self.column_id, "kind": self.kind, "type": str(self)}
        if self.name is not None:
            out["name"] = self.name
        if self.precision is not None:
            out["precision"] = self.precision
            out["scale"] = self.scale
        if self.max_length is not None:
            out["max_length"] = self.max_length
        if self.crs is not None:
            out["crs"] = self.crs
        if self.algorithm is not None:
            out["algorithm"] = self.algorithm
        if self.attributes:
            out["attributes"] = dict(self.attributes)
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out

    def __str__(self) -> str:
        kind = self.kind
        if kind == "struct":
            return "struct<" + ",".join(f"{_quote(c.name or '')}:{c}" for c in self.children) + ">"
        if kind in ("array", "map", "uniontype"):
            return f"{kind}<" + ",".join(str(c) for c in self.children) + ">"
        if kind == "decimal" and self.precision is not None:
            return f"decimal({self.precision},{self.scale or 0})"
        if kind in ("varchar", "char") and self.max_length is not None:
            return f"{kind}({self.max_length})"
        # as ORC Java's TypeDescription prints them: geometry(OGC:CRS84), geography(OGC:CRS84,SPHERICAL)
        if kind == "geometry":
            return f"geometry({self.crs})"
        if kind == "geography":
            return f"geography({self.crs},{self.algorithm})"
        return kind

    def __repr__(self) -> str:
        return f"TypeNode({self})"


def _quote(name: str) -> str:
    return name if _SIMPLE_NAME.match(name) else "`" + name.replace("`", "``") + "`"


def build_schema(types: Sequence[Any]) -> TypeNode:
    """Build the schema tree from the footer's ``types`` list, checking it is a pre-order tree.

    Raises
    ------
    OrcError
        If the list is empty, a kind is unknown, a geography names an unknown edge interpolation algorithm, a child
        id breaks pre-order, a compound type has the wrong number of children or field names, or the tree is nested
        deeper than any real schema.
    """
    if not types:
        raise OrcError("footer lists no types: the file has no schema")
    nodes: list[TypeNode] = []
    # each type's fields that are set, by name, from one ListFields() call: the protobuf runtime makes a Python
    # object for each field read from a freshly parsed message, and most of a type's fields are unset
    listed = [{f.name: v for f, v in t.ListFields()} for t in types]
    for column_id, fields in enumerate(listed):
        kind_number = fields.get("kind", 0)
        if kind_number not in KIND_NAMES:
            raise OrcError(f"type of column {column_id} has unknown kind {kind_number}")
        kind = KIND_NAMES[kind_number]
        node = TypeNode(column_id=column_id, kind=kind)
        if kind == "decimal":
            node.precision = fields.get("precision")
            node.scale = fields.get("scale")
            if node.precision is not None and not 0 <= node.precision <= 38:
                raise OrcError(f"decimal column {column_id} has precision {node.precision}, outside 0..38")
            if node.hive11_decimal:
                # each value carries its scale, so ORC C++ ignores the type's (Hive 0.11 writes none): so do we
                node.scale = None
            elif node.scale is not None and node.scale > node.precision:
                raise OrcError(
                    f"decimal column {column_id} has scale {node.scale} larger than its precision {node.precision}"
                )
        if kind in ("varchar", "char"):
            node.max_length = fields.get("maximumLength")
        if kind in GEOSPATIAL_KINDS:
            node.crs = text_field(fields["crs"]) if "crs" in fields else DEFAULT_CRS
        if kind == "geography":
            node.algorithm = _algorithm(fields.get("algorithm"), column_id)
        if "attributes" in fields:
            node.attributes = {text_field(a.key): text_field(a.value) for a in fields["attributes"]}
        nodes.append(node)

    # Walk the tree from the root: each child id must be exactly the next id in pre-order, which also rules out
    # cycles, shared children and ids out of range.
    next_id = 1
    stack: list[tuple[TypeNode, int, int]] = [(nodes[0], 0, 0)]  # node, next child index, depth
    while stack:
        node, index, depth = stack.pop()
        fields = listed[node.column_id]
        subtypes = fields.get("subtypes", ())
        if index == 0:
            _check_arity(node, len(subtypes), len(fields.get("fieldNames", ())))
            if depth > MAX_DEPTH:
                raise OrcError(f"schema is nested deeper than {MAX_DEPTH} levels at column {node.column_id}")
        if index < len(subtypes):
            child_id = subtypes[index]
            if child_id != next_id or child_id >= len(nodes):
                raise OrcError(
                    f"type of column {node.column_id} lists child {child_id} where pre-order requires {next_id}"
                )
            child = nodes[child_id]
            if node.kind == "struct":
                child.name = text_field(fields["fieldNames"][index])
            child.parent = node
            node.children.append(child)
            next_id += 1
            stack.append((node, index + 1, depth))
            stack.append((child, 0, depth + 1))
        else:
            node.max_column_id = next_id - 1
    if next_id != len(types):
        raise OrcError(f"footer lists {len(types)} types but the schema tree reaches only {next_id}")
    return nodes[0]


def _algorithm(number: int | None, column_id: int) -> str:
    """A geography's edge interpolation algorithm by name, from its number in the footer (``None``: unset)."""
    if number is None:
        return DEFAULT_ALGORITHM
    try:
        return str(_ALGORITHMS.Name(number))
    except ValueError:
        raise OrcError(f"geography column {column_id} has unknown edge interpolation algorithm {number}") from None


def _check_arity(node: TypeNode, n: int, names: int) -> None:
    """Whether ``node``, listing ``n`` children and ``names`` field names, has as many as its kind needs."""
    kind = node.kind
    if kind == "struct" and names != n:
        problem = f"has {n} children but {names} field names"
    elif kind == "array" and n != 1:
        problem = f"must have 1 child, has {n}"
    elif kind == "map" and n != 2:
        problem = f"must have 2 children, has {n}"
    elif kind == "uniontype" and not 1 <= n <= 256:
        problem = f"must have 1 to 256 variants, has {n}"
    elif kind not in COMPOUND_KINDS and n:
        problem = f"is primitive but lists {n} children"
    else:
        return
    raise OrcError(f"{kind} column {node.column_id} {problem}")


def struct_of(fields: Sequence[tuple[str, TypeNode]]) -> TypeNode:
    """A new schema tree: a struct of ``fields``, each a copy of the given subtree renumbered in pre-order (the
    schema of a dataset, whose columns come from several files' trees)."""
    root = TypeNode(column_id=0, kind="struct")
    next_id = 1

    def copy(node: TypeNode, parent: TypeNode, name: str | None) -> TypeNode:
        nonlocal next_id
        new = dataclasses.replace(node, column_id=next_id, name=name, children=[], parent=parent)
        new.attributes = dict(node.attributes)
        next_id += 1
        for child in node.children:
            new.children.append(copy(child, new, child.name if node.kind == "struct" else None))
        new.max_column_id = next_id - 1
        return new

    for name, node in fields:
        root.children.append(copy(node, root, name))
    root.max_column_id = next_id - 1
    return root
