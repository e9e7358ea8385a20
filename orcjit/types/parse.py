"""ORC type strings, as ORC's tools print them and :class:`~orcjit.types.schema.TypeNode` ``str()`` gives them
(``struct<a:int,b:decimal(10,2),c:array<string>>``), read back into a schema tree: how a user states the schema of
a dataset (``ORCDataset(..., schema=...)``) or the types of its partition columns."""

from __future__ import annotations

import re

from ..errors import OrcError
from .kinds import COMPOUND_KINDS, KINDS, MAX_DECIMAL_PRECISION
from .schema import DEFAULT_ALGORITHM, DEFAULT_CRS, TypeNode, struct_of

__all__ = ["parse_type"]

_PUNCTUATION = "<>(),:"
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
_LOCAL_ZONE = re.compile(r"\s+with\s+local\s+time\s+zone\b", re.IGNORECASE)
_ALGORITHMS = ("SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY")


def _tokens(text: str) -> list[str]:
    """Words, punctuation and backquoted names; a CRS such as ``EPSG:4326`` in parentheses is one word, and so
    is ``timestamp with local time zone``."""
    out: list[str] = []
    pos, depth = 0, 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif ch == "`":
            end = pos + 1
            while True:
                end = text.find("`", end)
                if end < 0:
                    raise OrcError(f"type {text!r}: a name opened with ` at {pos} is never closed")
                if text.startswith("``", end):
                    end += 2
                    continue
                break
            out.append(text[pos : end + 1])
            pos = end + 1
        elif ch in _PUNCTUATION and not (ch == ":" and depth):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            out.append(ch)
            pos += 1
        else:
            word = _WORD.match(text, pos) if ch != ":" else re.compile(r"[A-Za-z0-9_.:\-]+").match(text, pos)
            if word is None:
                raise OrcError(f"type {text!r}: unexpected {ch!r} at {pos}")
            token, pos = word.group(0), word.end()
            while depth and pos < len(text) and text[pos] == ":":  # OGC:CRS84 inside parentheses
                more = _WORD.match(text, pos + 1)
                token, pos = token + ":" + (more.group(0) if more else ""), more.end() if more else pos + 1
            zone = _LOCAL_ZONE.match(text, pos) if token.lower() == "timestamp" else None
            if zone:
                token, pos = "timestamp with local time zone", zone.end()
            out.append(token)
    return out


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def error(self, what: str) -> OrcError:
        return OrcError(f"type {self.text!r}: {what}")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise self.error(f"expected {expected or 'more'} at token {self.pos}, found {token!r}")
        self.pos += 1
        return token

    def number(self) -> int:
        token = self.take()
        if not token.isdigit():
            raise self.error(f"expected a number, found {token!r}")
        return int(token)

    def name(self) -> str:
        token = self.take()
        if token in _PUNCTUATION:
            raise self.error(f"expected a field name, found {token!r}")
        return token[1:-1].replace("``", "`") if token.startswith("`") else token


def parse_type(text: str) -> TypeNode:
    """The schema tree of the ORC type string ``text``, numbered from column 0.

    Raises
    ------
    OrcError
        If ``text`` is not a type ORC's tools would print.
    """
    if not isinstance(text, str):
        raise OrcError(f"a type must be a string such as 'struct<a:int>', got {type(text).__name__}")
    reader = _Reader(text)
    node = _node(reader, 0)
    if reader.peek() is not None:
        raise reader.error(f"unexpected {reader.peek()!r} after the type")
    if node.kind == "struct":
        return struct_of([(c.name or "", c) for c in node.children])
    # any other type: numbered from 0 as the root of its own tree
    tree = struct_of([("_", node)]).children[0]
    tree.parent, tree.name = None, None
    for n in tree.walk():
        n.column_id -= 1
        n.max_column_id -= 1
    return tree


def _node(reader: _Reader, depth: int) -> TypeNode:
    if depth > 100:
        raise reader.error("nested too deeply")
    kind = reader.take().lower()
    kind = " ".join(kind.split())
    if kind not in KINDS:
        raise reader.error(f"unknown kind {kind!r}")
    node = TypeNode(column_id=0, kind=kind)
    if kind in COMPOUND_KINDS:
        reader.take("<")
        while not (kind == "struct" and reader.peek() == ">" and not node.children):
            if kind == "struct":
                name = reader.name()
                reader.take(":")
                child = _node(reader, depth + 1)
                child.name = name
            else:
                child = _node(reader, depth + 1)
            node.children.append(child)
            if reader.peek() == ",":
                reader.take(",")
                continue
            break
        reader.take(">")
        arity = {"array": 1, "map": 2}.get(kind)
        if arity is not None and len(node.children) != arity:
            raise reader.error(f"{kind} takes {arity} type(s), got {len(node.children)}")
    elif kind == "decimal" and reader.peek() == "(":
        reader.take("(")
        node.precision = reader.number()
        reader.take(",")
        node.scale = reader.number()
        reader.take(")")
        if not 1 <= node.precision <= MAX_DECIMAL_PRECISION or node.scale > node.precision:
            raise reader.error(f"decimal({node.precision},{node.scale}) is not a decimal type ORC holds")
    elif kind in ("varchar", "char"):
        reader.take("(")
        node.max_length = reader.number()
        reader.take(")")
    elif kind in ("geometry", "geography"):
        node.crs, node.algorithm = DEFAULT_CRS, DEFAULT_ALGORITHM if kind == "geography" else None
        if reader.peek() == "(":
            reader.take("(")
            node.crs = reader.take()
            if kind == "geography" and reader.peek() == ",":
                reader.take(",")
                node.algorithm = reader.take().upper()
                if node.algorithm not in _ALGORITHMS:
                    raise reader.error(f"unknown edge interpolation algorithm {node.algorithm!r}")
            reader.take(")")
    return node
