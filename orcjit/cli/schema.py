"""``orcjit schema PATH``: the type tree with column ids, of a file or of a dataset (partition columns marked)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from ..types.schema import TypeNode
from .options import add_columns, add_json, add_paths, add_verb, column_list, dataset_of, select_nodes, subtree_ids
from .render import format_fields, format_table, type_label, write_json, write_lines


def add_to(subparsers: Any) -> None:
    """Add ``schema`` and its options."""
    p = add_verb(
        subparsers,
        "schema",
        "print the schema as a tree of columns",
        "Print the file's schema: the one-line type string, then the type tree with each column's id, field name "
        "and type. Children of lists, maps and unions show as <element>, <key>, <value> and <variant N>. Given a "
        "directory, a glob or several files, print the dataset's one schema over its files instead, with the Hive "
        'partition columns (from key=value folders) last and marked as such ("partition": true in --json).',
        "  orcjit schema data.orc\n  orcjit schema data.orc --json | python -m json.tool\n"
        "  orcjit schema warehouse/events/\n  orcjit schema 'warehouse/events/year=2024/*/*.orc'",
        run,
    )
    add_paths(p)
    add_json(p, "the schema tree (id, kind, type, name, children; crs and algorithm of geometry and geography)")
    add_columns(p, "show only these columns' subtrees (and the columns above them)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the schema of the file or dataset ``args.file`` names."""
    columns = column_list(args.columns)
    dataset = dataset_of(args)
    if dataset is not None:
        if args.json:
            write_json(out, dataset_schema_dict(dataset, columns))
        else:
            write_lines(out, dataset_schema_lines(dataset, columns))
        return 0
    with ORCFile(args.file[0]) as orc:
        if args.json:
            write_json(out, schema_dict(orc, columns))
        else:
            write_lines(out, schema_lines(orc, columns))
    return 0


def _tree_label(node: TypeNode) -> str:
    parent = node.parent
    if parent is None:
        return "(root)"
    if parent.kind == "struct":
        return node.name or ""
    if parent.kind == "array":
        return "<element>"
    if parent.kind == "map":
        return "<key>" if parent.children[0] is node else "<value>"
    return f"<variant {parent.children.index(node)}>"


def _depth(node: TypeNode) -> int:
    depth = 0
    while node.parent is not None:
        node = node.parent
        depth += 1
    return depth


def _with_ancestors(nodes: Sequence[TypeNode] | None) -> set[int] | None:
    """The column ids of ``nodes``' subtrees and of the compound columns above them."""
    ids = subtree_ids(nodes)
    for node in nodes or []:
        parent = node.parent
        while parent is not None and ids is not None:
            ids.add(parent.column_id)
            parent = parent.parent
    return ids


def schema_dict(orc: ORCFile | ORCDataset, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The schema tree as :meth:`TypeNode.to_dict` gives it; with ``columns``, only their subtrees and the
    columns above them."""
    shown = _with_ancestors(select_nodes(orc, columns))

    def pruned(node: TypeNode) -> dict[str, Any]:
        out = node.to_dict()
        if node.children and shown is not None:
            out["children"] = [pruned(c) for c in node.children if c.column_id in shown]
        return out

    return pruned(orc.schema)


def schema_lines(orc: ORCFile, columns: Sequence[str] | None = None) -> list[str]:
    """The schema as text: the one-line type, then the tree with column ids, field names and types (with
    ``columns``, only their subtrees and the columns above them)."""
    all_nodes = list(orc.schema.walk())
    shown = _with_ancestors(select_nodes(orc, columns))
    nodes = [n for n in all_nodes if shown is None or n.column_id in shown]
    with_attributes = any(node.attributes for node in nodes)
    headers = ["id", "column", "type"] + (["attributes"] if with_attributes else [])
    rows = []
    for node in nodes:
        row: list[Any] = [node.column_id, "  " * _depth(node) + _tree_label(node), type_label(node)]
        if with_attributes:
            row.append(", ".join(f"{k}={v}" for k, v in sorted(node.attributes.items())) or None)
        rows.append(row)
    return [
        *format_fields(
            [
                ("File", orc.source.name),
                ("Type", str(orc.schema)),
                ("Columns", f"{len(all_nodes)} (ids 0-{len(all_nodes) - 1})" if len(all_nodes) > 1 else "1 (id 0)"),
            ]
        ),
        "",
        *format_table(headers, rows, indent=""),
    ]


def dataset_schema_dict(dataset: ORCDataset, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The dataset's schema tree as :func:`schema_dict` gives a file's, each partition column's node marked
    ``"partition": true``, with ``files`` (how many) and ``partition_columns`` (names, in folder order) at the top."""
    tree = schema_dict(dataset, columns)
    partitions = set(dataset.partition_columns)
    for child in tree.get("children", []):
        if child.get("name") in partitions:
            child["partition"] = True
    return {**tree, "files": len(dataset.files), "partition_columns": dataset.partition_columns}


def dataset_schema_lines(dataset: ORCDataset, columns: Sequence[str] | None = None) -> list[str]:
    """The dataset's schema as text, as :func:`schema_lines` shows a file's, with a ``partition`` column marking
    the columns taken from ``key=value`` folders rather than from the files."""
    all_nodes = list(dataset.schema.walk())
    shown = _with_ancestors(select_nodes(dataset, columns))
    nodes = [n for n in all_nodes if shown is None or n.column_id in shown]
    partitions = set(dataset.partition_columns)
    with_attributes = any(node.attributes for node in nodes)
    headers = ["id", "column", "type", "partition"] + (["attributes"] if with_attributes else [])
    rows = []
    for node in nodes:
        partition = node.parent is dataset.schema and node.name in partitions
        row: list[Any] = [node.column_id, "  " * _depth(node) + _tree_label(node), type_label(node)]
        row.append("yes" if partition else None)
        if with_attributes:
            row.append(", ".join(f"{k}={v}" for k, v in sorted(node.attributes.items())) or None)
        rows.append(row)
    return [
        *format_fields(
            [
                ("Files", len(dataset.files)),
                ("Type", str(dataset.schema)),
                ("Columns", f"{len(all_nodes)} (ids 0-{len(all_nodes) - 1})"),
                ("Partition columns", ", ".join(dataset.partition_columns) or "(none)"),
            ]
        ),
        "",
        *format_table(headers, rows, indent=""),
    ]
