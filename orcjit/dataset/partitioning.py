"""Hive-style partition folders (``root/year=2024/city=New%20York/part-0.orc``), parsed and typed as Spark infers them.

Spark (``PartitioningUtils``, with ``spark.sql.sources.partitionColumnTypeInference.enabled``, its default) gives
each folder value the first type it parses as, in this order, and each column the widest type over its values:

============  ===================================================================================================
type          values (checked against Spark 4 by ``tests/test_partitioning.py``)
============  ===================================================================================================
int           Java's ``Integer.parseInt``: optional sign, any Unicode decimal digits, leading zeros, 32 bits
bigint        the same in 64 bits
decimal(p,0)  Java's ``BigDecimal`` without digits after the point once its exponent is applied (``1e5``,
              ``1.5e1``, an integer past 64 bits), at most 38 digits; ``p`` counts the exponent's zeros too
double        Java's ``Double.parseDouble``: ``1.5``, ``.5``, ``1.0``, ``NaN``, ``-Infinity``, ``0x1p3``, ``1.5d``,
              surrounding whitespace; an integer past 38 digits
timestamp     ``yyyy-MM-dd HH:mm:ss`` with at most one digit of fraction (``...:30.5``, not ``...:30.25``)
date          ``yyyy-MM-dd`` (four digits of year, two of month and day, a real calendar day)
string        anything else, and every column whose values disagree
============  ===================================================================================================

``__HIVE_DEFAULT_PARTITION__`` is null and votes for no type. Conflicts resolve as Spark's
``findWiderTypeForPartitionColumn``: int and bigint widen to bigint, integers and decimals to the wider decimal
(int as ``decimal(10,0)``, bigint as ``decimal(20,0)``), int and double to double, date and timestamp to
timestamp (a date at midnight); bigint or decimal with double, and every other pair, become string. Each value
is then read again as the column's type (``007`` is ``7`` in an int column, ``"007"`` in a string one).

Where this differs from Spark: Spark reads numbers and dates from the folder value before unescaping it and
strings after, so ``k=%205`` is the string ``" 5"`` to Spark and the double ``5.0`` here (values reach this module
unescaped; writers escape no digit, sign or point, but pyarrow does escape spaces); Spark matches keys without
regard to case (``K=1`` and ``k=2`` are one column) where here they must be equal; a timestamp is the wall clock
the folder names, where Spark resolves it in its session time zone (a time in a DST gap moves forward); dates and
timestamps before year 1, which Spark types, are refused; a column of nulls only is a string column (Spark's
``void`` has no ORC kind). Spark also refuses files whose folders above their partitions differ (``k=1/f.orc``
beside ``x/k=2/f.orc``): the dataset reader, which sees those folders, has to check that.

Values are Python objects: ``int``, :class:`decimal.Decimal`, ``float``, :class:`datetime.date`, naive
:class:`datetime.datetime` (the wall clock the folder names), ``str``, or ``None``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..errors import OrcError
from ..types.kinds import DEFAULT_DECIMAL_SCALE, KINDS, MAX_DECIMAL_PRECISION

__all__ = ["DEFAULT_PARTITION", "PartitionColumn", "infer_partitioning", "partition_segments"]

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"

# the kinds a partition column takes (inferred or given), in the order inference tries them
PARTITION_KINDS = ("int", "bigint", "decimal", "double", "timestamp", "date", "string")
assert set(PARTITION_KINDS) <= set(KINDS)

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
# the decimal types Spark sees integers as when it widens them against a decimal
_INTEGER_DIGITS = {"int": 10, "bigint": 20}

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# Java's Integer.parseInt / Long.parseLong: Character.digit takes every Unicode decimal digit, as Python's \d does
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
# Java's BigDecimal(String): digits (Unicode too), an optional point, an optional exponent
_JAVA_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# Java's Double.parseDouble (FloatingDecimal): ASCII digits only, an optional f/F/d/D suffix, hexadecimal with a
# binary exponent; NaN and Infinity take a sign but no suffix
_JAVA_DOUBLE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?")
_JAVA_HEX_DOUBLE = re.compile(r"([+-]?0[xX](?:[0-9A-Fa-f]+\.?[0-9A-Fa-f]*|\.[0-9A-Fa-f]+)[pP][+-]?[0-9]+)[fFdD]?")
_JAVA_SPECIAL_DOUBLE = re.compile(r"([+-]?)(NaN|Infinity)")
# what String.trim() removes before Double.parseDouble reads: every char up to U+0020
_JAVA_WHITESPACE = "".join(map(chr, range(33)))
# Spark's partition timestamp pattern "yyyy-MM-dd HH:mm:ss[.S]" takes one digit of fraction, no more; its date
# pattern "yyyy-MM-dd" takes exactly four digits of year
_DATE = re.compile(r"(-?)([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIMESTAMP = re.compile(r"(-?)([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]))?")
# what a user-given timestamp type also takes: an ISO 'T', no time, and up to nanoseconds (truncated to micros)
_GIVEN_TIMESTAMP = re.compile(
    r"(-?)([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?)?"
)
_DECIMAL_TYPE = re.compile(r"decimal(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?")


@dataclass(frozen=True)
class PartitionColumn:
    """A partition column: its name (unescaped) and ORC type.

    Attributes
    ----------
    name : str
        The key of its ``key=value`` folders, URL-unescaped.
    kind : str
        An ORC kind name of :data:`orcjit.types.kinds.KINDS`: ``"int"``, ``"bigint"``, ``"decimal"``,
        ``"double"``, ``"date"``, ``"timestamp"`` or ``"string"``.
    precision, scale : int or None
        A decimal's precision and scale (scale 0 for inferred decimals); ``None`` for other kinds.
    """

    name: str
    kind: str
    precision: int | None = None
    scale: int | None = None

    def type_string(self) -> str:
        """The type in ORC's spelling: ``"int"``, ``"decimal(20,0)"``, ``"string"``, ..."""
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        return self.kind


@dataclass(frozen=True)
class _Typed:
    """One folder value as inference reads it: the type it votes for (``None`` for the null partition), its
    decimal precision, and its value as that type."""

    kind: str | None
    value: Any
    precision: int = 0


def _unescape(text: str) -> str:
    """``text`` with each ``%XX`` (two hexadecimal digits) replaced by the character of that code, as Spark's
    ``unescapePathName``: one char per escape, so ``%C3%A9`` is two Latin-1 chars, not UTF-8's ``é``; a ``%``
    not followed by two hex digits stays as it is."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def partition_segments(relative_dir: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of the ``key=value`` folders of a directory, relative to the dataset's root.

    Keys and values are URL-unescaped as Spark's ``unescapePathName`` does (``New%20York`` is ``New York``);
    a value keeps every ``=`` after the first. Folders that are not ``key=value`` are ignored, and as in Spark
    (which reads partitions climbing from the file and stops at the first folder that is not one) so are the
    ``key=value`` folders above such a folder: ``a=1/data/b=2`` has the one partition ``b``.

    Parameters
    ----------
    relative_dir : str
        ``'/'``-separated, for example ``'year=2024/city=New%20York'``; empty for the root itself.

    Returns
    -------
    list of (str, str)
        From the outermost folder to the innermost.

    Raises
    ------
    OrcError
        A folder ``=value`` or ``key=`` (Spark refuses empty names and values), or a key twice.
    """
    run: list[tuple[str, str]] = []
    # climb from the innermost folder, as Spark does: folders that are not key=value below the first partition
    # are skipped (a file in a=1/sub/ still has a=1), one above it ends the partitions
    for folder in reversed([f for f in relative_dir.split("/") if f not in ("", ".")]):
        key, eq, value = folder.partition("=")
        if not eq:
            if run:
                break
            continue
        if not key or not value:
            what = "name" if not key else "value"
            raise OrcError(
                f"partition folder {folder!r} in {relative_dir!r} has an empty {what} (Spark refuses it too)"
            )
        run.append((_unescape(key), _unescape(value)))
    run.reverse()
    keys = [k for k, _ in run]
    if len(set(keys)) != len(keys):
        raise OrcError(f"partition folders of {relative_dir!r} name a key twice: {keys}")
    return run


def _java_int(text: str, low: int, high: int) -> int | None:
    if _JAVA_INTEGER.fullmatch(text):
        value = int(text)
        if low <= value <= high:
            return value
    return None


def _java_double(text: str) -> float | None:
    text = text.strip(_JAVA_WHITESPACE)
    if m := _JAVA_SPECIAL_DOUBLE.fullmatch(text):
        return float(("-" if m.group(1) == "-" else "") + ("nan" if m.group(2) == "NaN" else "inf"))
    if m := _JAVA_HEX_DOUBLE.fullmatch(text):
        return float.fromhex(m.group(1))
    if _JAVA_DOUBLE.fullmatch(text):
        return float(text.rstrip("fFdD"))
    return None


def _integral_decimal(text: str) -> tuple[Decimal, int] | None:
    """``text`` as Spark's decimal inference takes it: a Java ``BigDecimal`` whose scale is not positive, and the
    precision of its ``DecimalType`` (the unscaled digits plus the exponent: ``0e5`` is ``decimal(6,0)``)."""
    if not _JAVA_BIG_DECIMAL.fullmatch(text):
        return None
    number = Decimal(text)
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    if exponent < 0:
        return None  # digits after the point: Spark wants such values as doubles
    precision = len(number.as_tuple().digits) + exponent
    if precision > MAX_DECIMAL_PRECISION:
        return None
    return number.quantize(Decimal(1)) if exponent else number, precision


def _calendar(match: re.Match[str], value: str, kind: str, time: bool) -> datetime.date | datetime.datetime | None:
    """The date or datetime of a matched date/timestamp; ``None`` for days and times that do not exist."""
    sign, year, month, day = match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4))
    if sign or year == 0:
        # Spark types such values but they lie before year 1, which Python's datetime cannot hold
        raise OrcError(f"partition value {value!r} is a {kind} before year 1, which Python cannot represent")
    try:
        if not time:
            return datetime.date(year, month, day)
        hour, minute, second = (int(match.group(i) or 0) for i in (5, 6, 7))
        fraction = (match.group(8) or "")[:6]
        return datetime.datetime(year, month, day, hour, minute, second, int(fraction.ljust(6, "0")))
    except ValueError:
        return None


def _infer_value(value: str) -> _Typed:
    """The type one folder value votes for and its value as that type, in Spark's order of attempts."""
    if value == DEFAULT_PARTITION:
        return _Typed(None, None)
    if (number := _java_int(value, *_INT32)) is not None:
        return _Typed("int", number)
    if (number := _java_int(value, *_INT64)) is not None:
        return _Typed("bigint", number)
    if (decimal := _integral_decimal(value)) is not None:
        return _Typed("decimal", decimal[0], decimal[1])
    if (double := _java_double(value)) is not None:
        return _Typed("double", double)
    if (m := _TIMESTAMP.fullmatch(value)) and (stamp := _calendar(m, value, "timestamp", True)) is not None:
        return _Typed("timestamp", stamp)
    if (m := _DATE.fullmatch(value)) and (day := _calendar(m, value, "date", False)) is not None:
        return _Typed("date", day)
    return _Typed("string", value)


def _wider(a: _Typed, b: _Typed) -> _Typed:
    """The type two votes resolve to (Spark's ``findWiderTypeForPartitionColumn``); only kind and precision
    matter in the result."""
    if a.kind is None or (a.kind == b.kind and a.kind != "decimal"):
        return b
    if b.kind is None:
        return a
    kinds = {a.kind, b.kind}
    if kinds == {"int", "bigint"}:
        return _Typed("bigint", None)
    if kinds <= {"int", "bigint", "decimal"}:
        digits = max(t.precision if t.kind == "decimal" else _INTEGER_DIGITS[str(t.kind)] for t in (a, b))
        return _Typed("decimal", None, digits)
    if kinds == {"int", "double"}:
        return _Typed("double", None)
    if kinds == {"date", "timestamp"}:
        return _Typed("timestamp", None)
    return _Typed("string", None)


def _as_kind(typed: _Typed, kind: str, raw: str) -> Any:
    """An inferred value as its column's (wider) type; ``raw`` is the folder value as written."""
    if typed.kind is None:
        return None
    if kind == "string":
        return raw
    if kind == "decimal":
        return Decimal(typed.value)
    if kind == "double":
        return float(typed.value)
    if kind == "timestamp" and typed.kind == "date":
        return datetime.datetime.combine(typed.value, datetime.time())
    return typed.value  # int in bigint, or the value's own type


def _given_type(name: str, type_string: str) -> PartitionColumn:
    text = type_string.strip().lower()
    if m := _DECIMAL_TYPE.fullmatch(text):
        precision = int(m.group(1)) if m.group(1) else MAX_DECIMAL_PRECISION
        scale = int(m.group(2)) if m.group(2) else (DEFAULT_DECIMAL_SCALE if not m.group(1) else 0)
        if not 1 <= precision <= MAX_DECIMAL_PRECISION or scale > precision:
            raise OrcError(f"partition column {name!r}: {type_string!r} is not a decimal type ORC can hold")
        return PartitionColumn(name, "decimal", precision, scale)
    if text not in PARTITION_KINDS:
        raise OrcError(
            f"partition column {name!r} cannot be of type {type_string!r}: partition columns take "
            f"{', '.join(k if k != 'decimal' else 'decimal(p,s)' for k in PARTITION_KINDS)}"
        )
    return PartitionColumn(name, text)


def _parse_given(column: PartitionColumn, value: str, where: str) -> Any:
    """``value`` as the user-given type of ``column``; OrcError naming the file, column and value if it is not."""
    if value == DEFAULT_PARTITION:
        return None
    kind = column.kind
    parsed: Any = None
    if kind in ("int", "bigint"):
        parsed = _java_int(value, *(_INT32 if kind == "int" else _INT64))
    elif kind == "double":
        parsed = _java_double(value)
    elif kind == "decimal" and _JAVA_BIG_DECIMAL.fullmatch(value):
        assert column.precision is not None and column.scale is not None
        number = Decimal(value)
        exact = number.quantize(Decimal(1).scaleb(-column.scale))
        # no rounding: a value with more digits after the point than the scale is refused, not changed
        if exact == number and len(exact.as_tuple().digits) <= column.precision:
            parsed = exact
    elif kind == "date" and (m := _DATE.fullmatch(value)):
        parsed = _calendar(m, value, "date", False)
    elif kind == "timestamp" and (m := _GIVEN_TIMESTAMP.fullmatch(value)):
        parsed = _calendar(m, value, "timestamp", True)
    elif kind == "string":
        parsed = value
    if parsed is None:
        raise OrcError(f"{where}: partition value {value!r} of column {column.name!r} is not a {column.type_string()}")
    return parsed


def _check_structure(segments: Sequence[Sequence[tuple[str, str]]], where: Sequence[str]) -> list[str]:
    """The partition keys every file shares; OrcError naming two files whose keys differ."""
    if len(segments) != len(where):
        raise OrcError(f"{len(segments)} lists of partition folders for {len(where)} files")
    keys = [k for k, _ in segments[0]] if segments else []
    for path, pairs in zip(where, segments, strict=True):
        other = [k for k, _ in pairs]
        if other != keys:
            raise OrcError(
                "conflicting partition folders (Spark refuses them too): "
                f"{where[0]} has partition keys {keys} but {path} has {other}; every file must sit under the "
                "same key=value folders in the same order"
            )
    return keys


def infer_partitioning(
    segments: Sequence[Sequence[tuple[str, str]]],
    where: Sequence[str],
    schema: Mapping[str, str] | None = None,
) -> tuple[list[PartitionColumn], list[tuple[Any, ...]]]:
    """The partition columns of a dataset and each file's values, typed as Spark infers them.

    Parameters
    ----------
    segments : sequence of sequences of (str, str)
        One list per file, from :func:`partition_segments`.
    where : sequence of str
        One path per file (for error messages), in the order of ``segments``.
    schema : mapping of str to str, optional
        Types to force on partition columns, by name, in ORC's spelling (``"int"``, ``"bigint"``,
        ``"decimal(10,2)"``, ``"double"``, ``"date"``, ``"timestamp"``, ``"string"``); the other columns are
        inferred. A forced date is ``yyyy-MM-dd``; a forced timestamp is ``yyyy-MM-dd[( |T)HH:mm[:ss[.f...]]]``
        (fractions past microseconds are truncated); a forced decimal takes no more digits after the point than
        its scale.

    Returns
    -------
    columns : list of PartitionColumn
        In folder order, outermost first; empty when no file sits under a ``key=value`` folder.
    values : list of tuple
        Per file, its value of each column (``None`` for ``__HIVE_DEFAULT_PARTITION__``).

    Raises
    ------
    OrcError
        Files under different partition keys (naming two of them and their keys), a column of ``schema`` that
        no folder names, a type ``schema`` gives that partition columns cannot take, or a value that is not of
        its forced type (naming the file, column and value).
    """
    keys = _check_structure(segments, where)
    schema = dict(schema or {})
    if missing := [name for name in schema if name not in keys]:
        raise OrcError(f"schema gives types of {missing}, which are not partition columns (partition keys: {keys})")
    raws = [[v for _, v in pairs] for pairs in segments]
    columns: list[PartitionColumn] = []
    by_column: list[list[Any]] = []
    for i, name in enumerate(keys):
        if name in schema:
            column = _given_type(name, schema[name])
            by_column.append([_parse_given(column, raw[i], path) for raw, path in zip(raws, where, strict=True)])
        else:
            typed = [_infer_value(raw[i]) for raw in raws]
            wide = _Typed(None, None)
            for t in typed:
                wide = _wider(wide, t)
            kind = wide.kind or "string"  # all null: Spark says void, which ORC has no kind for
            column = PartitionColumn(name, kind, *((wide.precision, 0) if kind == "decimal" else ()))
            by_column.append([_as_kind(t, kind, raw[i]) for t, raw in zip(typed, raws, strict=True)])
        columns.append(column)
    return columns, [tuple(row) for row in zip(*by_column, strict=True)] if keys else [() for _ in segments]
