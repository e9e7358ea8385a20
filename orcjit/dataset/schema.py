"""One schema over a dataset's files, and how each file's columns map into it.

Columns are matched by name (top-level fields). Files Hive wrote before it stored column names, whose fields are
``_col0``, ``_col1``, ..., are matched by position to the names of the other files (or of ``schema=``). The
dataset's columns are the first file's, then those later files add, in the order they appear; a column missing
from a file reads as nulls there. Types may differ between files only as ORC Java's schema evolution widens them
without loss: integers to wider integers, ``float`` to ``double``, ``char`` and ``varchar`` to ``string``; the
dataset column has the widest. Anything else is an :class:`~orcjit.errors.OrcError` naming two files and the
column. A ``schema=`` the user passes fixes the columns and their types instead: a file's column must be of that
type or one that widens to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import OrcError
from ..types.kinds import FLOAT_KINDS, INTEGER_KINDS, STRING_KINDS
from ..types.resolve import top_level_fields
from ..types.schema import TypeNode

__all__ = ["FileColumns", "unify_schemas", "widens"]

_HIVE_POSITIONAL = re.compile(r"_col\d+$")
_INTEGER_RANK = {"tinyint": 0, "smallint": 1, "int": 2, "bigint": 3}
_FLOAT_RANK = {"float": 0, "double": 1}


@dataclass
class FileColumns:
    """Each dataset column a file holds: dataset column name -> the file's top-level field."""

    fields: dict[str, TypeNode]

    def __contains__(self, name: str) -> bool:
        return name in self.fields


def widens(narrow: TypeNode, wide: TypeNode) -> bool:
    """Whether values of type ``narrow`` read without loss as ``wide`` (equal types included)."""
    if str(narrow) == str(wide):
        return True
    if narrow.kind in INTEGER_KINDS and wide.kind in INTEGER_KINDS:
        return _INTEGER_RANK[narrow.kind] <= _INTEGER_RANK[wide.kind]
    if narrow.kind in FLOAT_KINDS and wide.kind in FLOAT_KINDS:
        return _FLOAT_RANK[narrow.kind] <= _FLOAT_RANK[wide.kind]
    return narrow.kind in STRING_KINDS and wide.kind == "string"


def _wider(a: TypeNode, b: TypeNode) -> TypeNode | None:
    if widens(a, b):
        return b
    if widens(b, a):
        return a
    if a.kind in STRING_KINDS and b.kind in STRING_KINDS:
        return None  # char and varchar of different lengths: both widen to string, which neither file has
    return None


def unify_schemas(
    schemas: Sequence[TypeNode], names: Sequence[str], given: TypeNode | None = None
) -> tuple[list[tuple[str, TypeNode]], list[FileColumns]]:
    """The dataset's columns (name and type, a node of one file's tree or of ``given``) and each file's mapping.

    ``names``: each file's path, for errors.

    Raises
    ------
    OrcError
        If two files give a column types that do not widen to one another (naming both files and the column), a
        file's column does not widen to ``given``'s type, or a file holds a name twice.
    """
    fields = [_fields(schema, name) for schema, name in zip(schemas, names, strict=True)]
    if given is not None:
        reference = [n for n, _ in top_level_fields(given)]
    else:
        reference = next(([n for n, _ in f] for f in fields if not _positional(f)), [])
    mapped = [_by_position(f, reference) if _positional(f) and reference else f for f in fields]
    files = [FileColumns(dict(f)) for f in mapped]
    if given is not None:
        columns = list(top_level_fields(given))
        for column, node in columns:
            for file, name in zip(files, names, strict=True):
                own = file.fields.get(column)
                if own is not None and not widens(own, node):
                    raise OrcError(f"{name}: column {column!r} is {own}, which does not read as {node} (schema=)")
        for file in files:
            file.fields = {c: n for c, n in file.fields.items() if any(c == g for g, _ in columns)}
        return columns, files
    order: dict[str, tuple[TypeNode, str]] = {}
    for file, name in zip(files, names, strict=True):
        for column, node in file.fields.items():
            if column not in order:
                order[column] = (node, name)
                continue
            seen, first = order[column]
            wide = _wider(seen, node)
            if wide is None:
                raise OrcError(
                    f"column {column!r} is {seen} in {first} but {node} in {name}: the types do not widen to one "
                    "another (pass schema= to choose one both read as, or read the files apart)"
                )
            if wide is node:
                order[column] = (node, name)
    return [(column, node) for column, (node, _) in order.items()], files


def _fields(schema: TypeNode, name: str) -> list[tuple[str, TypeNode]]:
    fields = top_level_fields(schema)
    seen: set[str] = set()
    for column, _ in fields:
        if column in seen:
            raise OrcError(f"{name}: column {column!r} appears twice, so it cannot be matched by name across files")
        seen.add(column)
    return fields


def _positional(fields: list[tuple[str, TypeNode]]) -> bool:
    return bool(fields) and all(_HIVE_POSITIONAL.match(n) for n, _ in fields)


def _by_position(fields: list[tuple[str, TypeNode]], reference: list[str]) -> list[tuple[str, TypeNode]]:
    if all(_HIVE_POSITIONAL.match(n) for n in reference):
        return fields
    return [(reference[i] if i < len(reference) else n, node) for i, (n, node) in enumerate(fields)]
