"""Spark's pushed filters as orcjit filters, with exactly Spark SQL's semantics.

Spark does not re-apply a filter that ``DataSourceReader.pushFilters`` accepts, so every accepted filter must select
exactly the rows Spark itself would keep. :func:`translate` takes the filters Spark pushes (their conjunction) and
the file's schema, and returns orcjit DNF filters for the accepted ones and the list of rejected ones (the same
objects, which Spark then applies itself).

What Spark passes
-----------------
Measured with PySpark 4.x (``spark.sql.python.filterPushdown.enabled=true``): a filter's value arrives as the Python
value of the column's Spark type, the literal already cast to it (``i > 2.5`` on an int column arrives as
``GreaterThan(("i",), 2)``): ``int`` for integer types, ``float`` for float and double (a float column's value is
exactly a float32), ``str``, ``bytes``, ``bool``, ``Decimal`` with the column's scale, ``datetime.date``, and
``datetime.datetime``: for ``timestamp_ntz`` a naive wall clock, for ``timestamp`` an aware datetime in UTC (the
instant, whatever the session time zone). ``In`` carries a list that may hold ``None`` (``a IN (1, NULL)``).
``Not`` only ever wraps one other filter (``a <> 1`` is ``Not(EqualTo)``); ``a <=> NULL`` arrives as ``IsNull``.
Nested fields arrive as tuples of field names (``("st", "x")``), names may hold dots (``("a.b",)``). Spark pushes
nothing but ``IsNotNull`` for ``char(n)`` columns and for ``LIKE`` patterns other than a plain prefix.

The mapping
-----------
A filter is TRUE, FALSE or NULL on a row, and a row is kept when it is TRUE; ``Not(x)`` is TRUE exactly where ``x``
is FALSE. So each filter is translated into two DNFs, where it is TRUE and where it is FALSE, and ``Not`` swaps
them (``Not(Not(x))`` is ``x``). With ``a`` the column and ``v`` the value (never null, see below):

===========================  =====================================  ==================================================
Spark filter                 TRUE where                             FALSE where (what ``Not`` of it keeps)
===========================  =====================================  ==================================================
``EqualTo(a, v)``            ``a == v``                             ``a != v``
``EqualNullSafe(a, v)``      ``a == v``                             ``a is null`` OR ``a != v``
``EqualNullSafe(a, None)``   ``a is null``                          ``a is not null``
``GreaterThan(a, v)``        ``a > v``                              ``a <= v`` (and so on for ``>=``, ``<``, ``<=``)
``In(a, [v, ...])``          ``a in [v, ...]``                      ``a not in [v, ...]`` AND ``a is not null``
                                                                   (nothing if a null is listed)
``IsNull(a)``                ``a is null``                          ``a is not null``
``IsNotNull(a)``             ``a is not null``                      ``a is null``
``StringStartsWith(a, p)``   ``p <= a < succ(p)``                   ``a < p`` OR ``a >= succ(p)``
===========================  =====================================  ==================================================

orcjit's filters follow pyarrow's convention (:mod:`orcjit.pushdown.semantics`): a null satisfies no comparison,
as in SQL, but does satisfy ``not in``, unlike SQL; so the FALSE side of ``In`` adds ``a is not null``, and every
other side above already leaves nulls out as SQL's three-valued logic does. A comparison with a null value
(``EqualTo(a, None)``, ``In(a, [None])``) is never TRUE nor FALSE; the nulls of an ``In`` list are dropped for the
TRUE side. A conjunction that can match nothing is written ``(a, "in", [])``.

``succ(p)`` is the smallest string above every string that starts with ``p`` in code point order (which is UTF-8
byte order, the order of both Spark and orcjit): the last code point that is not U+10FFFF is incremented (U+D7FF
goes to U+E000, over the surrogates) and what follows it is dropped; a prefix of only U+10FFFF has no upper bound,
and the empty prefix matches every non-null value (``a is not null``). ``StringStartsWith`` is taken for
``string``, ``varchar`` and ``char`` columns; a ``char(n)`` column is compared as it is stored, padded to ``n``,
which is what ``spark.read.orc`` shows and what orcjit reads (Spark itself pushes no value filter on a column it
types ``char(n)``).

The filters of one call are ANDed; the DNFs are multiplied out, and a filter that would take the result past
:data:`MAX_CONJUNCTIONS` conjunctions is rejected instead (Spark applies it).

Values and columns
------------------
A value must be of the column's type: ``int`` (not ``bool``) for integer columns, ``float`` for float and double,
``bool`` for boolean, ``str`` (encodable as UTF-8) for string, varchar and char, ``bytes`` for binary, ``Decimal``
or ``int`` for decimal, ``date`` (not ``datetime``) for date, ``datetime`` for timestamps; otherwise the filter is
rejected. Columns must be primitive and reached through structs only (no list, map or union on the way).

Timestamps: Spark's values are microseconds, and a value with a finer fraction is read as the microsecond at or
before it (what Spark's ORC reader gives), so every timestamp test becomes a range of whole microseconds
(``a = t`` is ``t <= a < t + 1µs``, ``a > t`` is ``a >= t + 1µs``, ``IN`` one range per value).

- ``timestamp with local time zone`` (instants) takes aware values, compared as instants.
- ``timestamp`` (wall clocks) takes naive values (Spark ``timestamp_ntz``), compared as wall clocks. An aware
  value (Spark ``timestamp``, the type ``spark.read.orc`` gives such columns: the wall clock read in the reader's
  zone, see :func:`orcjit.spark.types.orc_timestamp_micros`) is taken only when ``timezone`` names that zone, and
  only where that zone's UTC offset (by Java's rules, :mod:`orcjit.timezones`) is the same for two days either
  side of the value, so that no row whose wall clock is ambiguous or skipped by a transition can fall on the wrong
  side of it, and from 1900 on (before it ORC C++ files read with other offsets than Java's); it is then compared
  as the wall clock of that instant. ORC's Java reader reads a stripe that records no writer zone with the reader zone's
  offset of 2015-01-01 all year round, so unless the caller says every stripe records one
  (``writer_zones_recorded``), the value is also taken only where the zone has that offset (in winter, for a
  northern zone with DST).
- ``bigint`` columns that Spark wrote for ``timestamp_ntz`` (attribute ``spark.sql.catalyst.type``) take naive
  values as microseconds since 1970-01-01 00:00, and plain integers.

Floats: Spark orders NaN above every number and has ``NaN = NaN``; orcjit compares as IEEE does (and lists NaN as
a member of a list that holds it). The two agree for ``==``, ``!=``, ``<``, ``<=``, ``in`` and ``not in`` with a
non-NaN value (a NaN row satisfies ``!=`` and ``not in`` in both, and nothing else; ``-0.0`` equals ``0.0`` in
both), and differ for ``>`` and ``>=`` (Spark keeps NaN rows). So a filter on a
float or double column is rejected when its value (or one in its list) is NaN, or when the side it needs uses
``>`` or ``>=``: ``GreaterThan``, ``GreaterThanOrEqual``, ``Not(LessThan)`` and ``Not(LessThanOrEqual)`` are
rejected, ``LessThan``, ``LessThanOrEqual``, ``EqualTo``, ``In``, ``EqualNullSafe`` and their negations are pushed.

Column names: orcjit names a struct field by its dotted path. A path is used only if orcjit resolves its dotted
name to the very field Spark means: ``("a.b",)`` is fine (orcjit matches a top-level name first), but
``("a", "b")`` beside a top-level field ``a.b``, a nested name with a dot, or duplicate field names are rejected.

Rejected: ``StringEndsWith``, ``StringContains``, any other class, attributes not in the schema or not primitive,
values of the wrong type, ``In`` with an empty list, and the cases above.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

from ..errors import OrcError
from ..timezones import ORC_JAVA, TimeZoneError, ZoneRules, orc_epoch_seconds, zone_rules
from ..types.kinds import FILTERABLE_KINDS, FLOAT_KINDS, INTEGER_KINDS, STRING_KINDS
from ..types.resolve import field_path, resolve_column
from ..types.schema import TypeNode

__all__ = ["MAX_CONJUNCTIONS", "prefix_successor", "translate"]

MAX_CONJUNCTIONS = 16
"""Most conjunctions the translated DNF may have; a filter that would go past it is left to Spark."""

# how far either side of a Spark TIMESTAMP value the reader's zone must keep one UTC offset for the value to be
# compared as a wall clock: longer than any jump of a zone's offset (a day at most), so that rows whose wall clocks
# lie outside the span cannot land on the other side of the value either
_STEADY_OFFSET_SPAN = datetime.timedelta(days=2)
_STEADY_OFFSET_STEP = datetime.timedelta(hours=3)

# wall clocks are compared for Spark values in 1900-2262 only (see _steady_offset), away from both ends by the span
_STEADY_OFFSET_FROM = (-2_208_988_800 + 3 * 86_400) * 1_000_000
_STEADY_OFFSET_UNTIL = (2**63 - 1) // 1000 - 3 * 86_400 * 1_000_000
_EPOCH_NAIVE = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MICROSECOND = datetime.timedelta(microseconds=1)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_MAX_CODE_POINT = 0x10FFFF

Atom = tuple[str, str, Any]
Dnf = list[list[Atom]]  # a disjunction of conjunctions; [] matches nothing

_COMPARISONS: dict[type, tuple[str, str]] = {
    # the op that is TRUE, and the op that is FALSE on a non-null value
    EqualTo: ("==", "!="),
    GreaterThan: (">", "<="),
    GreaterThanOrEqual: (">=", "<"),
    LessThan: ("<", ">="),
    LessThanOrEqual: ("<=", ">"),
}


class _Reject(Exception):
    """The filter cannot be translated exactly; Spark applies it."""


def translate(
    filters: Sequence[Filter],
    schema: TypeNode,
    *,
    timezone: str | None = None,
    writer_zones_recorded: bool = False,
    max_conjunctions: int = MAX_CONJUNCTIONS,
) -> tuple[list[list[tuple[str, str, Any]]], list[Filter]]:
    """Translate Spark's pushed filters (a conjunction) into orcjit filters with the same meaning.

    Parameters
    ----------
    filters : sequence of pyspark.sql.datasource.Filter
        What ``DataSourceReader.pushFilters`` received.
    schema : TypeNode
        The schema of the files read (``ORCFile.schema``).
    timezone : str, optional
        The zone in which wall-clock ``timestamp`` columns are read as Spark ``timestamp`` values (the reader's
        zone; ``spark.read.orc`` uses the JVM's default zone). Without it, filters comparing such a column with a
        Spark ``timestamp`` value are rejected.
    writer_zones_recorded : bool
        Whether every stripe read records its writer's time zone. ORC's Java reader reads a stripe without one
        with the reader zone's offset of 2015-01-01, in summer too; unless this is true, a Spark ``timestamp``
        value is compared with a wall-clock column only where the reader zone has that offset.
    max_conjunctions : int
        Most conjunctions the result may have; filters that would need more are rejected.

    Returns
    -------
    accepted : list of list of tuple
        orcjit DNF filters (``[(column, op, value), ...]`` conjunctions) that select exactly the rows for which
        every accepted filter is TRUE; ``[]`` when nothing was accepted (no filter).
    rejected : list of Filter
        The filters not translated, the very objects passed in, for Spark to apply.
    """
    reading = _Reading(_zone(timezone), writer_zones_recorded)
    result: Dnf | None = None  # None: no filter accepted yet (everything matches)
    some_column = ""
    rejected: list[Filter] = []
    for f in filters:
        try:
            true_side, _, name = _sides(f, schema, reading)
        except _Reject:
            true_side = None
        combined = None if true_side is None else true_side if result is None else _and(result, true_side)
        if combined is None or len(combined) > max_conjunctions:
            rejected.append(f)
            continue
        result, some_column = combined, name
    if result is None:
        return [], rejected
    if not result:
        return [[(some_column, "in", [])]], rejected  # no row can match
    return result, rejected


@dataclass(frozen=True)
class _Reading:
    """How the reader turns wall-clock ``timestamp`` values into Spark ``timestamp`` instants."""

    zone: ZoneRules | None
    writer_zones_recorded: bool


def _zone(name: str | None) -> ZoneRules | None:
    """The reader zone's rules as ORC Java (Spark's reader) takes them."""
    if name is None:
        return None
    try:
        return zone_rules(name, ORC_JAVA)
    except TimeZoneError:
        return None  # an unknown zone: wall-clock timestamps are then left to Spark


def _and(left: Dnf, right: Dnf) -> Dnf:
    out: Dnf = []
    seen: set[str] = set()
    for a in left:
        for b in right:
            conj = list(a)
            for atom in b:
                if atom not in conj:
                    conj.append(atom)
            key = repr(conj)
            if key not in seen:
                seen.add(key)
                out.append(conj)
    return out


def _or(*parts: Dnf) -> Dnf:
    out: Dnf = []
    for part in parts:
        for conj in part:
            if conj not in out:
                out.append(conj)
    return out


# -- one filter: where it is TRUE and where it is FALSE ------------------------------------------------------------


def _sides(f: Filter, schema: TypeNode, reading: _Reading) -> tuple[Dnf | None, Dnf | None, str]:
    """The DNFs where ``f`` is TRUE and where it is FALSE, and the column it tests.

    Rows where ``f`` is NULL are in neither; a side is None where it cannot be written exactly.
    """
    if isinstance(f, Not):
        true_side, false_side, name = _sides(f.child, schema, reading)
        return false_side, true_side, name
    if isinstance(f, (IsNull, IsNotNull)):
        name, _ = _column(f.attribute, schema)
        null: Dnf = [[(name, "is null", None)]]
        not_null: Dnf = [[(name, "is not null", None)]]
        return (null, not_null, name) if isinstance(f, IsNull) else (not_null, null, name)
    if type(f) not in _COMPARISONS and not isinstance(f, (EqualNullSafe, In, StringStartsWith)):
        raise _Reject  # StringEndsWith, StringContains, and whatever a later Spark adds
    compared: Any = f  # one of the classes with an attribute and a value
    name, node = _column(compared.attribute, schema)
    if isinstance(f, StringStartsWith):
        return (*_starts_with(name, node, compared.value), name)
    if node.kind in ("timestamp", "timestamp with local time zone"):
        return (*_timestamp_sides(f, name, node, reading), name)
    return (*_plain_sides(f, name, node), name)


def _plain_sides(f: Any, name: str, node: TypeNode) -> tuple[Dnf | None, Dnf | None]:
    null: Dnf = [[(name, "is null", None)]]
    if isinstance(f, In):
        values, has_null = _in_values(f.value)
        members = _unique([_value(v, node) for v in values])
        true_side: Dnf = [[(name, "in", members)]] if members else []
        # orcjit's "not in" keeps nulls, SQL's NOT IN does not
        false_side: Dnf = [] if has_null else [[(name, "not in", members), (name, "is not null", None)]]
    elif isinstance(f, EqualNullSafe):
        if f.value is None:
            return null, [[(name, "is not null", None)]]
        v = _value(f.value, node)
        true_side, false_side = [[(name, "==", v)]], _or(null, [[(name, "!=", v)]])
    else:
        if f.value is None:
            return [], []  # a comparison with NULL is NULL on every row
        v = _value(f.value, node)
        yes, no = _COMPARISONS[type(f)]
        true_side, false_side = [[(name, yes, v)]], [[(name, no, v)]]
    if node.kind in FLOAT_KINDS:
        # NaN sorts above every number in Spark and nowhere in IEEE: a side testing > or >= would lose NaN rows
        return _float_safe(true_side), _float_safe(false_side)
    return true_side, false_side


def _float_safe(side: Dnf | None) -> Dnf | None:
    if side is not None and any(op in (">", ">=") for conj in side for _, op, _ in conj):
        return None
    return side


def _in_values(value: Any) -> tuple[list[Any], bool]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise _Reject
    if not value:
        raise _Reject  # Spark folds IN () away; its null semantics vary with a legacy flag
    values = [v for v in value if v is not None]
    return values, len(values) != len(value)


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(type(v) is type(o) and v == o for o in out):
            out.append(v)
    return out


# -- columns and values -------------------------------------------------------------------------------------------


def _column(attribute: Any, schema: TypeNode) -> tuple[str, TypeNode]:
    """The orcjit name of a Spark column path and its node, if orcjit's name means exactly that field."""
    if not isinstance(attribute, tuple) or not attribute or not all(isinstance(p, str) for p in attribute):
        raise _Reject
    node = field_path(schema, attribute)
    if node is None or node.kind not in FILTERABLE_KINDS:
        raise _Reject  # no such field, a name two fields share, or not primitive
    name = ".".join(attribute)
    try:
        resolved = resolve_column(schema, name, through="structs")
    except OrcError:
        raise _Reject from None  # orcjit cannot name it
    if resolved is not node:
        raise _Reject  # the dotted name means another field to orcjit
    return name, node


def _is_ntz_bigint(node: TypeNode) -> bool:
    # Spark writes timestamp_ntz as ORC bigint microseconds, marked with its catalyst type
    return node.kind == "bigint" and node.attributes.get("spark.sql.catalyst.type") == "timestamp_ntz"


def _value(value: Any, node: TypeNode) -> Any:
    """``value`` as orcjit compares it with ``node``'s values, or reject."""
    kind = node.kind
    if kind in INTEGER_KINDS:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if (
            _is_ntz_bigint(node)
            and isinstance(value, datetime.datetime)
            and value.tzinfo is None
            and not isinstance(value, pd.Timestamp)
        ):
            return (value - _EPOCH_NAIVE) // _MICROSECOND
    elif kind in FLOAT_KINDS:
        if isinstance(value, float) and not math.isnan(value):
            return value
    elif kind == "boolean":
        if isinstance(value, bool):
            return value
    elif kind in STRING_KINDS:
        if isinstance(value, str) and _utf8(value):
            return value
    elif kind == "binary":
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
    elif kind == "decimal":
        if isinstance(value, decimal.Decimal) and value.is_finite():
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return decimal.Decimal(value)
    elif kind == "date" and isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    raise _Reject


def _utf8(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False  # a lone surrogate: no stored string equals it, and orcjit cannot encode it
    return True


# -- StringStartsWith ---------------------------------------------------------------------------------------------


def _starts_with(name: str, node: TypeNode, prefix: Any) -> tuple[Dnf, Dnf]:
    if node.kind not in STRING_KINDS or not isinstance(prefix, str) or not _utf8(prefix):
        raise _Reject
    if not prefix:
        return [[(name, "is not null", None)]], []
    upper = prefix_successor(prefix)
    if upper is None:
        return [[(name, ">=", prefix)]], [[(name, "<", prefix)]]
    return [[(name, ">=", prefix), (name, "<", upper)]], [[(name, "<", prefix)], [(name, ">=", upper)]]


def prefix_successor(prefix: str) -> str | None:
    """The least string greater than every string that starts with ``prefix``, in code point order.

    ``None`` when there is none (the prefix is empty or all U+10FFFF).
    """
    chars = list(prefix)
    while chars and ord(chars[-1]) == _MAX_CODE_POINT:
        chars.pop()
    if not chars:
        return None
    nxt = ord(chars[-1]) + 1
    if 0xD800 <= nxt <= 0xDFFF:
        nxt = 0xE000  # surrogates are not characters of any UTF-8 string
    chars[-1] = chr(nxt)
    return "".join(chars)


# -- timestamps: ranges of whole microseconds -----------------------------------------------------------------------

Interval = tuple[int | None, int | None]  # [low, high) in microseconds, None unbounded


def _timestamp_sides(f: Any, name: str, node: TypeNode, reading: _Reading) -> tuple[Dnf, Dnf]:
    null: Dnf = [[(name, "is null", None)]]
    if isinstance(f, In):
        values, has_null = _in_values(f.value)
        points = sorted({_micros(v, node, reading) for v in values})
        true_set: list[Interval] = _merge([(p, p + 1) for p in points])
        false_side = [] if has_null else _interval_dnf(name, node, _complement(true_set))
        return _interval_dnf(name, node, true_set), false_side
    if isinstance(f, EqualNullSafe) and f.value is None:
        return null, [[(name, "is not null", None)]]
    if f.value is None:
        return [], []
    t = _micros(f.value, node, reading)
    if isinstance(f, (EqualTo, EqualNullSafe)):
        true_set = [(t, t + 1)]
    elif isinstance(f, GreaterThan):
        true_set = [(t + 1, None)]
    elif isinstance(f, GreaterThanOrEqual):
        true_set = [(t, None)]
    elif isinstance(f, LessThan):
        true_set = [(None, t)]
    else:
        true_set = [(None, t + 1)]
    false_side = _interval_dnf(name, node, _complement(true_set))
    if isinstance(f, EqualNullSafe):
        false_side = _or(null, false_side)
    return _interval_dnf(name, node, true_set), false_side


def _micros(value: Any, node: TypeNode, reading: _Reading) -> int:
    """The value as microseconds on the column's own scale: UTC for instants, the wall clock otherwise."""
    if not isinstance(value, datetime.datetime) or isinstance(value, pd.Timestamp):
        raise _Reject
    if node.kind == "timestamp with local time zone":
        if value.tzinfo is None or value.utcoffset() is None:
            raise _Reject  # a wall clock against instants: not a pairing the reader gives
        return (value - _EPOCH_UTC) // _MICROSECOND
    if value.tzinfo is None:
        return (value - _EPOCH_NAIVE) // _MICROSECOND
    if reading.zone is None or value.utcoffset() is None:
        raise _Reject
    micros = (value - _EPOCH_UTC) // _MICROSECOND
    offset = _steady_offset(micros, reading.zone)
    if not reading.writer_zones_recorded:
        base = np.array([orc_epoch_seconds(reading.zone) * 1_000_000_000], dtype=np.int64)
        if offset != int(reading.zone.utcoffset(base)[0]) // 1000:
            raise _Reject  # a stripe without a writer zone is read with the offset of 2015-01-01
    return micros + offset


def _steady_offset(micros: int, zone: ZoneRules) -> int:
    """The zone's UTC offset (µs) at the instant ``micros``, if it holds for two days either side; else reject.

    Instants before 1900 are rejected too: there the writer's implementation (see :mod:`orcjit.timezones`) may
    read a wall clock with another offset than the Java rules Spark's values are computed with.
    """
    if not _STEADY_OFFSET_FROM <= micros <= _STEADY_OFFSET_UNTIL:
        raise _Reject
    span = _STEADY_OFFSET_SPAN // _MICROSECOND
    step = _STEADY_OFFSET_STEP // _MICROSECOND
    probes = np.arange(micros - span, micros + span + 1, step, dtype=np.int64)
    offsets = zone.utcoffset(np.append(probes, micros) * 1000)
    if (offsets != offsets[-1]).any():
        raise _Reject
    return int(offsets[-1]) // 1000


def _merge(intervals: list[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for low, high in intervals:  # sorted by low, each bounded here
        if out and out[-1][1] is not None and low is not None and low <= out[-1][1]:
            prev_high = out[-1][1]
            out[-1] = (out[-1][0], None if high is None else max(prev_high, high))
        else:
            out.append((low, high))
    return out


def _complement(intervals: list[Interval]) -> list[Interval]:
    out: list[Interval] = []
    cursor: int | None = None  # start of the next gap; None is minus infinity
    for low, high in intervals:
        if low is not None and (cursor is None or cursor < low):
            out.append((cursor, low))
        if high is None:
            return out
        cursor = high
    out.append((cursor, None))
    return out


def _interval_dnf(name: str, node: TypeNode, intervals: list[Interval]) -> Dnf:
    """Each interval of microseconds as a range of the column's nanosecond values."""
    out: Dnf = []
    for low, high in intervals:
        conj: list[Atom] = []
        # a value decoded as n nanoseconds reads as the microsecond floor(n / 1000)
        low_ns = None if low is None else low * 1000
        high_ns = None if high is None else high * 1000
        if low_ns is not None and low_ns <= _INT64_MIN + 1:
            low_ns = None  # every decoded value is above it
        if high_ns is not None and high_ns > _INT64_MAX:
            high_ns = None
        if (low_ns is not None and low_ns > _INT64_MAX) or (high_ns is not None and high_ns <= _INT64_MIN + 1):
            continue  # no decodable value lies in it
        if low_ns is not None:
            conj.append((name, ">=", _timestamp(low_ns, node)))
        if high_ns is not None:
            conj.append((name, "<", _timestamp(high_ns, node)))
        out.append(conj or [(name, "is not null", None)])
    return out


def _timestamp(ns: int, node: TypeNode) -> pd.Timestamp:
    if node.kind == "timestamp with local time zone":
        return pd.Timestamp(ns, unit="ns", tz="UTC")
    return pd.Timestamp(ns, unit="ns")
