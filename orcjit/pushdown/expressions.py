"""Filter expressions as written on a command line, and the typing of their literals by a column's type.

``parse_filter_expression`` reads ``COLUMN OP VALUE`` text (``--filter`` of ``orcjit explain``, ``cat`` and
``convert``) into a :class:`FilterExpression` whose values stay untyped :class:`Literal` s; :func:`filter_term`
types them by the column the schema gives it and returns the ``(column, op, value)`` tuple
:func:`orcjit.read_orc`'s filters take. :func:`typed_literal` is that typing on its own (``typed_value`` adds what
a bloom filter test needs, for ``orcjit bloom --value``), so that every place that turns written text into a
filter value agrees with ``--filter``.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import re
from dataclasses import dataclass
from typing import Any

from ..errors import OrcError
from ..types.kinds import FLOAT_KINDS, INTEGER_KINDS
from ..types.resolve import resolve_column
from ..types.schema import TypeNode

__all__ = [
    "FILTER_OPS",
    "FILTER_SYNTAX",
    "FilterExpression",
    "Literal",
    "filter_term",
    "parse_filter_expression",
    "pd_timestamp",
    "typed_literal",
    "typed_value",
]

INTEGER_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}

# the ops of orcjit's filters, longest spelling first so that "<=" is not read as "<"
FILTER_OPS = [
    ("is not null", "is not null"),
    ("is null", "is null"),
    ("not in", "not in"),
    ("in", "in"),
    ("==", "=="),
    ("!=", "!="),
    ("<=", "<="),
    (">=", ">="),
    ("=", "=="),
    ("<", "<"),
    (">", ">"),
]
_WORD_OP = re.compile(r"(is\s+not\s+null|is\s+null|not\s+in|in)(?![\w.])", re.IGNORECASE)
_SYMBOL_OP = re.compile(r"==|!=|<=|>=|=|<|>")
FILTER_SYNTAX = (
    'use "COLUMN OP VALUE" with OP one of ==, =, !=, <, <=, >, >=, in, not in, or "COLUMN is null" / '
    '"COLUMN is not null"; lists as (a, b, c)'
)


@dataclass(frozen=True)
class Literal:
    """A value as written in a filter expression, typed only once the column is known.

    ``quoted`` values (``'...'`` or ``"..."``) are always text; ``binary`` holds the bytes of ``x'hex'``.
    """

    text: str
    quoted: bool = False
    binary: bytes | None = None


@dataclass(frozen=True)
class FilterExpression:
    """One ``--filter``: a column (dotted path for struct fields), an op of :mod:`orcjit.pushdown.filters`, and
    the literal values (one for a comparison, a list for ``in`` / ``not in``, none for a null test)."""

    text: str
    column: str
    op: str
    values: tuple[Literal, ...]


def _read_quoted(text: str, start: int) -> tuple[str, int]:
    """The string quoted at ``text[start]`` (backslash escapes the quote and itself) and the index after it."""
    quote = text[start]
    out = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if ch == quote:
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    raise ValueError(f"unterminated {quote} quote")


def _read_literal(text: str, start: int, stops: str) -> tuple[Literal, int]:
    """One literal at ``text[start]``; a bare one runs up to a character of ``stops`` (or the end), trimmed."""
    if text[start] in "'\"":
        value, end = _read_quoted(text, start)
        return Literal(value, quoted=True), end
    if text[start] in "xX" and text[start + 1 : start + 2] in ("'", '"'):
        value, end = _read_quoted(text, start + 1)
        try:
            return Literal(value, quoted=True, binary=bytes.fromhex(value)), end
        except ValueError:
            raise ValueError(f"x'{value}' is not hexadecimal") from None
    end = start
    while end < len(text) and text[end] not in stops:
        end += 1
    value = text[start:end].strip()
    if not value:
        raise ValueError("a value is missing")
    return Literal(value), end


def _read_list(text: str, start: int) -> tuple[list[Literal], int]:
    close = ")" if text[start] == "(" else "]"
    items: list[Literal] = []
    i = start + 1
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i < len(text) and text[i] == close:
            return items, i + 1
        if i >= len(text):
            raise ValueError(f"the list lacks its closing {close!r}")
        item, i = _read_literal(text, i, "," + close)
        items.append(item)
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise ValueError(f"the list lacks its closing {close!r}")
        if text[i] == ",":
            i += 1
        elif text[i] != close:
            raise ValueError("list items must be separated by commas")


def parse_filter_expression(text: str) -> FilterExpression:
    """Parse one ``--filter`` expression: ``COLUMN OP VALUE``, ``COLUMN in (A, B)`` or ``COLUMN is null``.

    The column is a name or dotted path (in double quotes or backticks if it holds spaces or operator characters).
    Values are numbers, quoted strings (``'a b'``, ``"it's"``), ``x'00ff'`` bytes, or bare words, which stay text
    until :func:`filter_term` types them by the column. A bare value of a comparison runs to the end, so
    ``ts >= 2024-01-01 12:00`` needs no quotes.

    Raises
    ------
    argparse.ArgumentTypeError
        If the text does not have that shape; argparse turns this into a usage error.
    """
    try:
        return _parse_filter_expression(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"invalid filter {text!r}: {e}; {FILTER_SYNTAX}") from None


def _parse_filter_expression(text: str) -> FilterExpression:
    s = text.strip()
    if not s:
        raise ValueError("it is empty")
    if s[0] in '"`':
        if s[0] == "`":
            end = s.find("`", 1)
            if end < 0:
                raise ValueError("unterminated ` quote")
            column, rest = s[1:end], s[end + 1 :]
        else:
            column, end = _read_quoted(s, 0)
            rest = s[end:]
    else:
        # the column runs to the first space or operator character
        m = re.match(r"[^\s=!<>]+", s)
        if m is None:
            raise ValueError("the column is missing")
        column, rest = m.group(), s[m.end() :]
    if not column:
        raise ValueError("the column is missing")
    rest = rest.lstrip()
    m = _SYMBOL_OP.match(rest) or _WORD_OP.match(rest)
    if m is None:
        raise ValueError(f"no operator after the column {column!r}")
    written = " ".join(m.group().lower().split())
    op = dict(FILTER_OPS)[written]
    rest = rest[m.end() :].strip()
    if op in ("is null", "is not null"):
        if rest:
            raise ValueError(f"{op!r} takes no value")
        return FilterExpression(text, column, op, ())
    if not rest:
        raise ValueError(f"{op!r} needs a value")
    if op in ("in", "not in"):
        if rest[0] not in "([":
            raise ValueError(f"{op!r} needs a list such as (1, 2, 3)")
        items, end = _read_list(rest, 0)
        if rest[end:].strip():
            raise ValueError(f"unexpected {rest[end:].strip()!r} after the list")
        return FilterExpression(text, column, op, tuple(items))
    if rest[0] in "=<>!":
        raise ValueError(f"unexpected {rest[0]!r} after {written!r}")
    value, end = _read_literal(rest, 0, "")
    if rest[end:].strip():
        raise ValueError(f"unexpected {rest[end:].strip()!r} after the quoted value")
    return FilterExpression(text, column, op, (value,))


def typed_literal(literal: Literal, node: TypeNode | None, context: str, column: str) -> Any:
    """``literal`` as a value of ``node``'s type.

    Parameters
    ----------
    literal : Literal
        The value as written.
    node : TypeNode or None
        The column's type; ``None`` for a column the file lacks, left for the filters to report.
    context : str
        Starts error messages: the filter or option the value came from.
    column : str
        The column's name as the user gave it, for error messages.

    Returns
    -------
    object
        ``None`` for an unquoted ``null``; an ``int`` or :class:`decimal.Decimal` for integer and decimal columns
        (a fraction stays a ``Decimal``, which compares with integers exactly), a ``float``, a ``bool``, ``bytes``
        for binary columns; otherwise the text itself, where the filters check and convert it (dates,
        timestamps) or report the column's problem (not primitive).

    Raises
    ------
    OrcError
        If the text is not a value of the column's type.
    """
    text = literal.text
    if not literal.quoted and text.lower() == "null":
        return None  # the filters answer: use 'is null'
    kind = node.kind if node is not None else None

    def wrong(what: str) -> OrcError:
        return OrcError(f"{context}: {text!r} is not {what} ({column} is {kind})")

    if literal.binary is not None and kind != "binary":
        raise wrong("a value of the column's type, x'...' is for binary columns")
    if kind in INTEGER_KINDS or kind == "decimal":
        try:
            value = decimal.Decimal(text.replace("_", ""))
        except decimal.InvalidOperation:
            raise wrong("a number") from None
        if not value.is_finite():
            raise wrong("a finite number")
        if kind in INTEGER_KINDS and value == value.to_integral_value():
            return int(value)
        return value  # a fraction compares with integers exactly, never equal
    if kind in FLOAT_KINDS:
        try:
            return float(text)
        except ValueError:
            raise wrong("a number") from None
    if kind == "boolean":
        lowered = text.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise wrong("true or false")
    if kind == "binary":
        return literal.binary if literal.binary is not None else text.encode("utf-8")
    return text  # strings; dates and timestamps as ISO text; anything else for the filters to reject


def filter_term(expression: FilterExpression, schema: TypeNode) -> tuple[Any, ...]:
    """The ``(column, op, value)`` tuple of :func:`orcjit.read_orc`'s filters for one expression, its literals
    typed by the column's type in ``schema``.

    Raises
    ------
    OrcError
        If the column is not in the file or not primitive, or a literal is not a value of the column's type.
    """
    try:
        node = resolve_column(schema, expression.column, through="structs")
    except OrcError as exc:
        raise OrcError(f"filter {expression.text!r}: {exc}") from None
    if node.is_compound:
        raise OrcError(
            f"filter {expression.text!r}: column {expression.column!r} is a {node.kind}; filters test primitive "
            "columns (name a struct's fields with dotted paths)"
        )
    if expression.op in ("is null", "is not null"):
        return (expression.column, expression.op)
    values = [typed_literal(v, node, f"filter {expression.text!r}", expression.column) for v in expression.values]
    if expression.op in ("in", "not in"):
        return (expression.column, expression.op, values)
    return (expression.column, expression.op, values[0])


def typed_value(text: str, node: TypeNode, column: str) -> Any:
    """A ``--value`` as a Python value of ``node``'s type, written as a ``--filter`` value would be.

    Raises
    ------
    OrcError
        If the text is not a value of the column's type, or is ``null``.
    """
    context = f"--value {text!r}"
    stripped = text.strip()
    if not stripped:
        raise OrcError(f"{context}: a value is missing")
    try:
        literal, end = _read_literal(stripped, 0, "")
    except ValueError as e:
        raise OrcError(f"{context}: {e}") from None
    if stripped[end:].strip():
        raise OrcError(f"{context}: unexpected {stripped[end:].strip()!r} after the quoted value")
    value = typed_literal(literal, node, context, column)
    if value is None:
        raise OrcError(f"{context}: bloom filters record no nulls; the statistics' has null says whether any are there")
    if node.kind == "decimal" and node.precision is not None and node.scale is not None:
        digits = node.precision - node.scale
        if value != value.quantize(decimal.Decimal(1).scaleb(-node.scale)) or abs(value) >= 10**digits:
            raise OrcError(f"{context}: {text!r} does not fit {node} ({column} is {node})")
    bits = INTEGER_BITS.get(node.kind)
    if bits is not None and not (isinstance(value, int) and -(2 ** (bits - 1)) <= value < 2 ** (bits - 1)):
        what = "an integer" if not isinstance(value, int) else f"in the range of a {bits}-bit integer"
        raise OrcError(f"{context}: {text!r} is not {what} ({column} is {node.kind})")
    # the filters convert dates and timestamps themselves; a bloom filter test needs the value itself
    try:
        if node.kind == "date":
            value = datetime.date.fromisoformat(value)
        elif node.kind.startswith("timestamp"):
            value = pd_timestamp(value)
    except ValueError:
        raise OrcError(f"{context}: {text!r} is not a {node.kind} in ISO form ({column} is {node.kind})") from None
    return value


def pd_timestamp(text: str) -> Any:
    """``pandas.Timestamp(text)``, with pandas imported only when a timestamp is parsed."""
    import pandas as pd

    return pd.Timestamp(text)
