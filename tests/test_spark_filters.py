"""``orcjit.spark.filters.translate``: Spark's pushed filters as orcjit filters, with Spark SQL's semantics.

The first half checks the mapping filter by filter (every class, ``Not`` of each, nested fields, values of each
type, what is rejected). The second half is a property test: random conjunctions of random (possibly negated)
Spark filters are translated, the accepted ones are read with orcjit from a small pyarrow-written file, and the
rows must be exactly those for which a reference evaluator, written here with SQL's three-valued logic and Spark's
ordering (NaN above every number and equal to itself, microsecond timestamps), finds every accepted filter TRUE.
No Spark session is needed: the filter classes are plain dataclasses.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
import zoneinfo
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
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
    StringContains,
    StringEndsWith,
    StringStartsWith,
)

import orcjit
import orcjit.pushdown.filters
from orcjit.spark.filters import MAX_CONJUNCTIONS, prefix_successor, translate
from orcjit.types.schema import TypeNode
from tests.factory import write_pyarrow

LA = "America/Los_Angeles"
UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1)
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=UTC)
US = dt.timedelta(microseconds=1)


def _struct(*fields: tuple[str, TypeNode]) -> TypeNode:
    node = TypeNode(0, "struct")
    next_id = 1

    def number(n: TypeNode, parent: TypeNode) -> None:
        nonlocal next_id
        n.column_id = next_id
        n.parent = parent
        next_id += 1
        for c in n.children:
            number(c, n)

    for name, child in fields:
        child.name = name
        node.children.append(child)
        number(child, node)
    return node


def _leaf(kind: str, **kw: Any) -> TypeNode:
    return TypeNode(0, kind, **kw)


def _nested(kind: str, *fields: tuple[str, TypeNode]) -> TypeNode:
    n = TypeNode(0, kind)
    for name, child in fields:
        child.name = name if kind == "struct" else None
        n.children.append(child)
    return n


def schema() -> TypeNode:
    return _struct(
        ("i", _leaf("int")),
        ("l", _leaf("bigint")),
        ("f", _leaf("float")),
        ("d", _leaf("double")),
        ("s", _leaf("string")),
        ("v", _leaf("varchar", max_length=5)),
        ("c", _leaf("char", max_length=5)),
        ("b", _leaf("binary")),
        ("bo", _leaf("boolean")),
        ("dec", _leaf("decimal", precision=10, scale=2)),
        ("dt", _leaf("date")),
        ("ts", _leaf("timestamp")),
        ("tsi", _leaf("timestamp with local time zone")),
        ("ntz", _leaf("bigint", attributes={"spark.sql.catalyst.type": "timestamp_ntz"})),
        (
            "st",
            _nested(
                "struct",
                ("x", _leaf("int")),
                ("y.z", _leaf("string")),
                ("in", _nested("struct", ("q", _leaf("bigint")))),
            ),
        ),
        ("a.b", _leaf("int")),
        ("arr", _nested("array", ("", _leaf("int")))),
        ("m", _nested("map", ("", _leaf("string")), ("", _leaf("int")))),
    )


SCHEMA = schema()


def tr(*filters: Filter, **kw: Any) -> tuple[list[list[tuple]], list[Filter]]:
    return translate(list(filters), SCHEMA, **kw)


def accepted(*filters: Filter, **kw: Any) -> list[list[tuple]]:
    result, rejected = tr(*filters, **kw)
    assert rejected == [], f"{filters} rejected"
    # what comes out must be valid orcjit filters for the schema
    orcjit.pushdown.filters.normalize_filters(result, SCHEMA)
    return result


def rejected(f: Filter, **kw: Any) -> None:
    result, rej = tr(f, **kw)
    assert result == []
    assert len(rej) == 1 and rej[0] is f


# -- the mapping, class by class ------------------------------------------------------------------------------------


def test_comparisons_and_their_negations() -> None:
    assert accepted(EqualTo(("i",), 3)) == [[("i", "==", 3)]]
    assert accepted(Not(EqualTo(("i",), 3))) == [[("i", "!=", 3)]]
    assert accepted(GreaterThan(("i",), 3)) == [[("i", ">", 3)]]
    assert accepted(Not(GreaterThan(("i",), 3))) == [[("i", "<=", 3)]]
    assert accepted(GreaterThanOrEqual(("l",), -5)) == [[("l", ">=", -5)]]
    assert accepted(Not(GreaterThanOrEqual(("l",), -5))) == [[("l", "<", -5)]]
    assert accepted(LessThan(("s",), "k")) == [[("s", "<", "k")]]
    assert accepted(Not(LessThan(("s",), "k"))) == [[("s", ">=", "k")]]
    assert accepted(LessThanOrEqual(("dt",), dt.date(2020, 1, 2))) == [[("dt", "<=", dt.date(2020, 1, 2))]]
    assert accepted(Not(LessThanOrEqual(("dt",), dt.date(2020, 1, 2)))) == [[("dt", ">", dt.date(2020, 1, 2))]]


def test_not_not_is_the_filter_itself() -> None:
    for f in (EqualTo(("i",), 3), EqualNullSafe(("i",), 3), In(("i",), [1, None]), IsNull(("i",))):
        assert accepted(Not(Not(f))) == accepted(f)
        assert accepted(Not(Not(Not(f)))) == accepted(Not(f))


def test_equal_null_safe() -> None:
    assert accepted(EqualNullSafe(("i",), 3)) == [[("i", "==", 3)]]
    # NOT (i <=> 3) keeps the nulls
    assert accepted(Not(EqualNullSafe(("i",), 3))) == [[("i", "is null", None)], [("i", "!=", 3)]]
    assert accepted(EqualNullSafe(("i",), None)) == [[("i", "is null", None)]]
    assert accepted(Not(EqualNullSafe(("i",), None))) == [[("i", "is not null", None)]]


def test_null_tests() -> None:
    assert accepted(IsNull(("s",))) == [[("s", "is null", None)]]
    assert accepted(IsNotNull(("s",))) == [[("s", "is not null", None)]]
    assert accepted(Not(IsNull(("s",)))) == accepted(IsNotNull(("s",)))
    assert accepted(Not(IsNotNull(("s",)))) == accepted(IsNull(("s",)))
    # orcjit tests primitive columns only
    rejected(IsNull(("st",)))
    rejected(Not(IsNotNull(("arr",))))


def test_in() -> None:
    assert accepted(In(("i",), [1, 2, 2])) == [[("i", "in", [1, 2])]]
    # orcjit's "not in" keeps nulls (pyarrow's convention), SQL's NOT IN does not
    assert accepted(Not(In(("i",), [1, 2]))) == [[("i", "not in", [1, 2]), ("i", "is not null", None)]]
    # a IN (1, NULL) is TRUE for 1 and NULL otherwise: NOT of it keeps nothing
    assert accepted(In(("i",), [1, None])) == [[("i", "in", [1])]]
    assert accepted(Not(In(("i",), [1, None]))) == [[("i", "in", [])]]
    assert accepted(In(("i",), [None])) == [[("i", "in", [])]]
    assert accepted(Not(In(("i",), [None]))) == [[("i", "in", [])]]
    assert accepted(In(("i",), (4,))) == [[("i", "in", [4])]]
    rejected(In(("i",), []))  # Spark folds it away; its null semantics depend on a legacy flag
    rejected(In(("i",), [1, "x"]))


def test_comparison_with_null_matches_nothing() -> None:
    for cls in (EqualTo, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual):
        assert accepted(cls(("i",), None)) == [[("i", "in", [])]]
        assert accepted(Not(cls(("i",), None))) == [[("i", "in", [])]]
    # an empty result names a column of an accepted filter, even when another is rejected
    result, rej = tr(StringEndsWith(("s",), "x"), IsNull(("l",)), EqualTo(("i",), None))
    assert result == [[("i", "in", [])]] and len(rej) == 1


def test_string_starts_with() -> None:
    assert accepted(StringStartsWith(("s",), "ab")) == [[("s", ">=", "ab"), ("s", "<", "ac")]]
    assert accepted(Not(StringStartsWith(("s",), "ab"))) == [[("s", "<", "ab")], [("s", ">=", "ac")]]
    assert accepted(StringStartsWith(("s",), "")) == [[("s", "is not null", None)]]
    assert accepted(Not(StringStartsWith(("s",), ""))) == [[("s", "in", [])]]
    assert accepted(StringStartsWith(("s",), "a\U0010ffff")) == [[("s", ">=", "a\U0010ffff"), ("s", "<", "b")]]
    assert accepted(StringStartsWith(("s",), "\U0010ffff\U0010ffff")) == [[("s", ">=", "\U0010ffff\U0010ffff")]]
    assert accepted(Not(StringStartsWith(("s",), "\U0010ffff"))) == [[("s", "<", "\U0010ffff")]]
    assert accepted(StringStartsWith(("v",), "x")) == [[("v", ">=", "x"), ("v", "<", "y")]]
    # char(n) values are compared as stored, padded
    assert accepted(StringStartsWith(("c",), "ab ")) == [[("c", ">=", "ab "), ("c", "<", "ab!")]]
    rejected(StringStartsWith(("b",), "a"))
    rejected(StringStartsWith(("i",), "1"))
    rejected(StringStartsWith(("s",), "\ud800"))


def test_prefix_successor() -> None:
    assert prefix_successor("abc") == "abd"
    assert prefix_successor("a\U0010ffff") == "b"
    assert prefix_successor("\U0010ffff") is None
    assert prefix_successor("") is None
    assert prefix_successor("\ud7ff") == "\ue000"  # over the surrogates
    assert prefix_successor("z\uffff") == "z\U00010000"
    for prefix in ("abc", "a\U0010ffff", "\ud7ff", "é", "\x00"):
        upper = prefix_successor(prefix)
        assert upper is not None
        # in UTF-8 byte order too, which is what orcjit compares
        assert prefix.encode() < upper.encode()
        for tail in ("", "\x00", "\U0010ffff", "zz"):
            assert (prefix + tail).encode() < upper.encode()


def test_rejected_classes_and_order_kept() -> None:
    ends, contains, odd = StringEndsWith(("s",), "a"), StringContains(("s",), "a"), Not(StringContains(("s",), "a"))
    eq = EqualTo(("i",), 1)
    result, rej = tr(ends, eq, contains, odd)
    assert result == [[("i", "==", 1)]]
    assert len(rej) == 3 and rej[0] is ends and rej[1] is contains and rej[2] is odd

    class Unknown(Filter):
        pass

    rejected(Unknown())


def test_columns_and_nested_fields() -> None:
    assert accepted(EqualTo(("st", "x"), 1)) == [[("st.x", "==", 1)]]
    assert accepted(LessThan(("st", "in", "q"), 5)) == [[("st.in.q", "<", 5)]]
    assert accepted(EqualTo(("a.b",), 1)) == [[("a.b", "==", 1)]]  # orcjit matches a top-level name first
    rejected(EqualTo(("st", "y.z"), "a"))  # orcjit would split the dotted name
    rejected(EqualTo(("nope",), 1))
    rejected(EqualTo(("st", "nope"), 1))
    rejected(EqualTo(("I",), 1))  # names are exact, as Spark passes the schema's own
    rejected(EqualTo(("st",), {"x": 1}))  # not a primitive column
    rejected(EqualTo(("arr",), [1]))
    rejected(EqualTo(("m",), {"a": 1}))
    rejected(IsNull(("arr", "_elem")))  # only struct fields have paths Spark can push
    rejected(EqualTo((), 1))
    rejected(EqualTo("i", 1))  # type: ignore[arg-type]


def test_ambiguous_names_are_rejected() -> None:
    # a struct a with field b beside a top-level field called "a.b": ("a", "b") would read the wrong one
    s = _struct(("a", _nested("struct", ("b", _leaf("int")))), ("a.b", _leaf("int")), ("dup", _leaf("int")))
    s.children.append(TypeNode(5, "int", name="dup", parent=s))
    assert translate([EqualTo(("a.b",), 1)], s)[0] == [[("a.b", "==", 1)]]
    for f in (EqualTo(("a", "b"), 1), EqualTo(("dup",), 1)):
        result, rej = translate([f], s)
        assert result == [] and rej == [f]


def test_root_that_is_not_a_struct() -> None:
    root = TypeNode(0, "bigint")
    assert translate([EqualTo(("_col0",), 5)], root)[0] == [[("_col0", "==", 5)]]
    assert translate([EqualTo(("x",), 5)], root)[0] == []


@pytest.mark.parametrize(
    ("column", "good", "bad"),
    [
        ("i", [0, -(2**31), 2**40], [True, 1.5, "1", Decimal(1)]),
        ("l", [2**63 - 1], [False, 2.0, b"1"]),
        ("f", [1.5, -0.0, math.inf], [1, True, "1.5", math.nan]),
        ("d", [0.1, -math.inf], [Decimal("0.1"), math.nan]),
        ("s", ["", "é", "\U0010ffff"], [b"a", 1, "\udc00"]),
        ("v", ["abc"], [b"abc"]),
        ("b", [b"", b"\xff"], ["a"]),
        ("bo", [True, False], [1, 0, "true"]),
        ("dec", [Decimal("1.50"), Decimal("-99999999.99"), 7], [1.5, True, Decimal("NaN"), Decimal("Infinity")]),
        ("dt", [dt.date(1, 1, 1), dt.date(2020, 2, 29)], [dt.datetime(2020, 1, 1), "2020-01-01", 0]),
    ],
)
def test_value_types(column: str, good: list[Any], bad: list[Any]) -> None:
    for v in good:
        assert accepted(EqualTo((column,), v)) == [[(column, "==", v)]]
        assert accepted(In((column,), [v, None])) == [[(column, "in", [v])]]
    for v in bad:
        rejected(EqualTo((column,), v))
        rejected(In((column,), [v]))
        rejected(Not(EqualNullSafe((column,), v)))


def test_float_ranges_follow_spark_nan_ordering() -> None:
    # NaN is above every number in Spark: only the tests NaN fails in both orders are pushed
    for column in ("f", "d"):
        assert accepted(LessThan((column,), 1.0)) == [[(column, "<", 1.0)]]
        assert accepted(LessThanOrEqual((column,), 1.0)) == [[(column, "<=", 1.0)]]
        assert accepted(Not(GreaterThan((column,), 1.0))) == [[(column, "<=", 1.0)]]
        assert accepted(Not(GreaterThanOrEqual((column,), 1.0))) == [[(column, "<", 1.0)]]
        assert accepted(Not(EqualTo((column,), 1.0))) == [[(column, "!=", 1.0)]]
        assert accepted(Not(In((column,), [1.0, 2.0]))) == [
            [(column, "not in", [1.0, 2.0]), (column, "is not null", None)]
        ]
        assert accepted(Not(EqualNullSafe((column,), 1.0))) == [[(column, "is null", None)], [(column, "!=", 1.0)]]
        for f in (
            GreaterThan((column,), 1.0),
            GreaterThanOrEqual((column,), 1.0),
            Not(LessThan((column,), 1.0)),
            Not(LessThanOrEqual((column,), 1.0)),
            EqualTo((column,), math.nan),
            Not(EqualTo((column,), math.nan)),
            EqualNullSafe((column,), math.nan),
            In((column,), [1.0, math.nan]),
        ):
            rejected(f)


def test_timestamps() -> None:
    naive = dt.datetime(2020, 1, 2, 3, 4, 5, 6)
    ns = (naive - EPOCH) // US * 1000
    lo, hi = pd_ts(ns), pd_ts(ns + 1000)
    # a value read with a finer fraction is the microsecond before it: every test is a range of microseconds
    assert accepted(EqualTo(("ts",), naive)) == [[("ts", ">=", lo), ("ts", "<", hi)]]
    assert accepted(Not(EqualTo(("ts",), naive))) == [[("ts", "<", lo)], [("ts", ">=", hi)]]
    assert accepted(GreaterThan(("ts",), naive)) == [[("ts", ">=", hi)]]
    assert accepted(GreaterThanOrEqual(("ts",), naive)) == [[("ts", ">=", lo)]]
    assert accepted(LessThan(("ts",), naive)) == [[("ts", "<", lo)]]
    assert accepted(LessThanOrEqual(("ts",), naive)) == [[("ts", "<", hi)]]
    assert accepted(Not(EqualNullSafe(("ts",), naive))) == [
        [("ts", "is null", None)],
        [("ts", "<", lo)],
        [("ts", ">=", hi)],
    ]
    later = naive + dt.timedelta(microseconds=1)
    # adjacent values merge into one range; the complement has the two ends
    assert accepted(In(("ts",), [later, naive, None])) == [[("ts", ">=", lo), ("ts", "<", pd_ts(ns + 2000))]]
    assert accepted(Not(In(("ts",), [later, naive]))) == [[("ts", "<", lo)], [("ts", ">=", pd_ts(ns + 2000))]]
    assert accepted(Not(In(("ts",), [later, None]))) == [[("ts", "in", [])]]

    # instants take aware values, whatever their zone
    aware = dt.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=zoneinfo.ZoneInfo(LA))
    ins = (aware - EPOCH_UTC) // US * 1000
    assert accepted(EqualTo(("tsi",), aware)) == [
        [("tsi", ">=", pd_ts(ins, "UTC")), ("tsi", "<", pd_ts(ins + 1000, "UTC"))]
    ]
    rejected(EqualTo(("tsi",), naive))

    # wall clocks with an aware value: only with the reader's zone, read there
    rejected(EqualTo(("ts",), aware))
    rejected(EqualTo(("ts",), aware), timezone="No/Such_Zone")
    wall = (naive - EPOCH) // US * 1000  # aware is naive's wall clock in LA
    assert accepted(LessThan(("ts",), aware), timezone=LA) == [[("ts", "<", pd_ts(wall))]]
    assert accepted(LessThan(("ts",), aware.astimezone(UTC)), timezone=LA) == [[("ts", "<", pd_ts(wall))]]
    assert accepted(LessThan(("ts",), aware), timezone="UTC") == [[("ts", "<", pd_ts(ins))]]
    # near a DST transition a wall clock can stand for two instants, or for none: left to Spark
    spring = dt.datetime(2020, 3, 8, 10, 0, tzinfo=UTC)
    for delta in (dt.timedelta(hours=-47), dt.timedelta(0), dt.timedelta(hours=47)):
        rejected(GreaterThan(("ts",), spring + delta), timezone=LA)
    # in summer only if every stripe records its writer's zone: Java reads the others with the offset of 2015-01-01
    summer = spring + dt.timedelta(hours=49)
    wall_summer = (summer.replace(tzinfo=None) - dt.timedelta(hours=7) - EPOCH) // US * 1000
    rejected(GreaterThan(("ts",), summer), timezone=LA)
    assert accepted(GreaterThan(("ts",), summer), timezone=LA, writer_zones_recorded=True) == [
        [("ts", ">=", pd_ts(wall_summer + 1000))]
    ]
    assert accepted(GreaterThan(("ts",), spring), timezone="UTC")
    rejected(GreaterThan(("ts",), dt.datetime(1, 1, 1, tzinfo=UTC)), timezone=LA)

    # out of the nanosecond range: the bound is open on that side, or nothing can match
    assert accepted(GreaterThan(("ts",), dt.datetime(1, 1, 1))) == [[("ts", "is not null", None)]]
    assert accepted(LessThan(("ts",), dt.datetime(1, 1, 1))) == [[("ts", "in", [])]]
    assert accepted(GreaterThan(("tsi",), dt.datetime(9999, 1, 1, tzinfo=UTC))) == [[("tsi", "in", [])]]

    # Spark's timestamp_ntz as written by Spark: bigint microseconds
    micros = (naive - EPOCH) // US
    assert accepted(EqualTo(("ntz",), naive)) == [[("ntz", "==", micros)]]
    assert accepted(Not(In(("ntz",), [naive]))) == [[("ntz", "not in", [micros]), ("ntz", "is not null", None)]]
    assert accepted(GreaterThan(("ntz",), 5)) == [[("ntz", ">", 5)]]
    rejected(EqualTo(("ntz",), aware))
    rejected(EqualTo(("l",), naive))  # a plain bigint
    rejected(EqualTo(("dt",), naive))
    rejected(EqualTo(("ts",), dt.date(2020, 1, 1)))


def pd_ts(ns: int, tz: str | None = None) -> Any:
    import pandas as pd

    return pd.Timestamp(ns, unit="ns", tz=tz)


def test_conjunctions_multiply_out_up_to_the_cap() -> None:
    a = Not(EqualNullSafe(("i",), 1))
    b = Not(EqualNullSafe(("l",), 2))
    result = accepted(a, b, IsNotNull(("s",)))
    assert result == [
        [("i", "is null", None), ("l", "is null", None), ("s", "is not null", None)],
        [("i", "is null", None), ("l", "!=", 2), ("s", "is not null", None)],
        [("i", "!=", 1), ("l", "is null", None), ("s", "is not null", None)],
        [("i", "!=", 1), ("l", "!=", 2), ("s", "is not null", None)],
    ]
    many = [Not(EqualNullSafe(("i",), k)) for k in range(10)]
    result, rej = translate(many, SCHEMA)
    assert len(result) <= MAX_CONJUNCTIONS
    assert len(result) == 2**4 and rej == many[4:] and all(r is m for r, m in zip(rej, many[4:], strict=True))
    result, rej = translate(many[:3], SCHEMA, max_conjunctions=2)
    assert len(result) == 2 and len(rej) == 2
    # the same atom twice is kept once
    assert accepted(EqualTo(("i",), 1), EqualTo(("i",), 1)) == [[("i", "==", 1)]]


def test_nothing_accepted_means_no_filter() -> None:
    assert translate([], SCHEMA) == ([], [])
    f = StringContains(("s",), "x")
    assert translate([f], SCHEMA) == ([], [f])


# -- property: translated filters read with orcjit select exactly the rows Spark would --------------------------------

N = 160
ZONE = zoneinfo.ZoneInfo(LA)


def _data() -> dict[str, list[Any]]:
    rng = random.Random(6)

    def nulls(values: list[Any], p: float = 0.15) -> list[Any]:
        return [None if rng.random() < p else v for v in values]

    def pick(pool: list[Any]) -> list[Any]:
        return nulls([rng.choice(pool) for _ in range(N)])

    walls = [
        dt.datetime(2020, 3, 8, 1, 30),
        dt.datetime(2020, 3, 8, 2, 0),
        dt.datetime(2020, 3, 8, 2, 30),  # skipped in LA
        dt.datetime(2020, 3, 8, 3, 0),
        dt.datetime(2020, 11, 1, 0, 59, 59),
        dt.datetime(2020, 11, 1, 1, 30),  # twice in LA
        dt.datetime(2020, 11, 1, 2, 0),
        dt.datetime(2021, 6, 1, 12, 0),
        dt.datetime(1969, 12, 31, 23, 59, 59),
        dt.datetime(1900, 1, 1),
        dt.datetime(2200, 1, 1),
    ]
    # nanoseconds, with fractions finer than Spark's microseconds, before and after 1970
    ts_pool = [(w - EPOCH) // US * 1000 + rng.choice([0, 1, 999, 1000, 123456789 % 1000, 500_000]) for w in walls]
    ts_pool += [rng.randrange(-2 * 10**18, 7 * 10**18) for _ in range(20)]
    floats = [0.0, -0.0, 1.0, -1.5, 2.5, math.inf, -math.inf, math.nan, 1e300, 3.0]
    strings = ["", "a", "ab", "ab ", "abc", "b", "é", "éa", "\U0010ffff", "a\U0010ffff", "a\U0010ffffb", "\ue000", "z"]
    return {
        "rid": list(range(N)),
        "i": pick([-(2**31), -1, 0, 1, 2, 3, 7, 2**31 - 1]),
        "l": pick([-(2**63), -5, 0, 5, 6, 2**63 - 1]),
        "f": pick([float(pa.scalar(x, pa.float32()).as_py()) for x in [*floats, 0.1]]),
        "d": pick([*floats, 0.1]),
        "s": pick(strings),
        "b": pick([b"", b"\x00", b"a", b"ab", b"\xff", b"\xff\x00"]),
        "bo": pick([True, False]),
        "dec": pick([Decimal("0.00"), Decimal("1.50"), Decimal("-1.50"), Decimal("99999999.99"), Decimal("0.01")]),
        "dt": pick([dt.date(1970, 1, 1), dt.date(1969, 12, 31), dt.date(2020, 2, 29), dt.date(1, 1, 1)]),
        "ts": pick(ts_pool),
        "tsi": pick(ts_pool),
        "st": nulls(
            [{"x": rng.choice([None, 1, 2, 3]), "y": rng.choice([None, "a", "ab", "b"])} for _ in range(N)], 0.2
        ),
        "a.b": pick([1, 2, 3]),
    }


DATA = _data()
COLUMN_TYPES = {
    "rid": pa.int64(),
    "i": pa.int32(),
    "l": pa.int64(),
    "f": pa.float32(),
    "d": pa.float64(),
    "s": pa.string(),
    "b": pa.binary(),
    "bo": pa.bool_(),
    "dec": pa.decimal128(10, 2),
    "dt": pa.date32(),
    "ts": pa.timestamp("ns"),
    "tsi": pa.timestamp("ns", tz="UTC"),
    "st": pa.struct([("x", pa.int32()), ("y", pa.string())]),
    "a.b": pa.int32(),
}


@pytest.fixture(scope="module")
def orc_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = pa.table({name: pa.array(DATA[name], COLUMN_TYPES[name]) for name in COLUMN_TYPES})
    path = tmp_path_factory.mktemp("spark_filters") / "data.orc"
    # small stripes and row groups, and bloom filters, so that pruning is exercised, not only the row filter
    write_pyarrow(
        path,
        table,
        compression="uncompressed",
        stripe_size=1024,
        batch_size=40,
        row_index_stride=10,
        bloom_filter_columns=["i", "s", "ts"],
    )
    with orcjit.ORCFile(path) as f:
        assert f.nstripes > 1
    # the file as pyarrow reads it back is the reference's input
    back = pa_orc.read_table(path)
    assert back.column("rid").to_pylist() == DATA["rid"]
    return path


# Spark's view of a row's value: what the reference compares


# How the reader turns a wall clock into a Spark TIMESTAMP: "zone", the wall clock in the reader's zone (stripes that
# record their writer's zone; the rule for the DST hours does not matter), or "fixed", with the zone's offset of
# 2015-01-01 all year (ORC's Java reader on stripes without a writer zone)
MODEL = {"wall": "zone"}
FIXED_OFFSET = dt.datetime(2015, 1, 1, tzinfo=ZONE).utcoffset()


def spark_value(column: tuple[str, ...], row: int, value: Any) -> Any:
    """The value Spark sees for ``column`` in ``row``, on the scale of the filter value ``value``."""
    if column == ("st", "x") or column == ("st", "y"):
        parent = DATA["st"][row]
        return None if parent is None else parent[column[1]]
    v = DATA[column[0]][row]
    if v is None:
        return None
    if column[0] in ("ts", "tsi"):
        micros = v // 1000  # Spark reads the microsecond at or before the value
        if column[0] == "tsi":
            return EPOCH_UTC + micros * US
        wall = EPOCH + micros * US
        if isinstance(value, dt.datetime) and value.tzinfo is not None:
            # a Spark TIMESTAMP of a wall clock
            if MODEL["wall"] == "fixed":
                return (wall - FIXED_OFFSET).replace(tzinfo=UTC)
            return wall.replace(tzinfo=ZONE).astimezone(UTC)
        return wall
    return v


def spark_compare(a: Any, b: Any) -> int:
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return (math.isnan(a) > math.isnan(b)) - (math.isnan(a) < math.isnan(b))
    return (a > b) - (a < b)


def reference(f: Filter, row: int) -> bool | None:
    """SQL three-valued evaluation of a Spark filter on one row: True, False or None (NULL)."""
    if isinstance(f, Not):
        r = reference(f.child, row)
        return None if r is None else not r
    if isinstance(f, (IsNull, IsNotNull)):
        v = spark_value(f.attribute, row, None)
        return (v is None) == isinstance(f, IsNull)
    sample = f.value[0] if isinstance(f, In) and f.value else f.value
    a = spark_value(f.attribute, row, sample)
    if isinstance(f, EqualNullSafe):
        if a is None or f.value is None:
            return a is None and f.value is None
        return spark_compare(a, f.value) == 0
    if isinstance(f, In):
        if a is None:
            return None
        if any(v is not None and spark_compare(a, v) == 0 for v in f.value):
            return True
        return None if any(v is None for v in f.value) else False
    if a is None or f.value is None:
        return None
    if isinstance(f, StringStartsWith):
        return a.startswith(f.value)
    c = spark_compare(a, f.value)
    return {
        EqualTo: c == 0,
        GreaterThan: c > 0,
        GreaterThanOrEqual: c >= 0,
        LessThan: c < 0,
        LessThanOrEqual: c <= 0,
    }[type(f)]


def _ts_values(column: str) -> st.SearchStrategy[Any]:
    raw = [v for v in DATA[column] if v is not None]

    def naive(ns: int) -> dt.datetime:
        return EPOCH + (ns // 1000) * US

    near = st.builds(
        lambda ns, d: naive(ns) + d * US,
        st.sampled_from(raw),
        st.sampled_from([-1, 0, 0, 1, 3_600_000_000]),
    )
    if column == "tsi":
        return near.map(lambda w: w.replace(tzinfo=UTC))
    # wall clocks: naive (timestamp_ntz) or an instant read in LA (timestamp)
    aware = near.map(lambda w: w.replace(tzinfo=ZONE).astimezone(UTC))
    return st.one_of(near, aware)


def _values(column: tuple[str, ...]) -> st.SearchStrategy[Any]:
    if column[0] in ("ts", "tsi"):
        return _ts_values(column[0])
    if column[0] == "st":
        pool = [r[column[1]] for r in DATA["st"] if r is not None and r[column[1]] is not None]
    else:
        pool = [v for v in DATA[column[0]] if v is not None]
    extra = {
        "i": st.integers(-(2**31) - 1, 2**31),
        "l": st.integers(-(2**63), 2**63 - 1),
        "f": st.floats(width=32),
        "d": st.floats(),
        "s": st.text(alphabet="ab é\U0010ffff\ue000", max_size=3),
        "b": st.binary(max_size=2),
        "dec": st.decimals(min_value=-(10**8), max_value=10**8, places=2),
        "dt": st.dates(),
        "st": st.integers(0, 4) if column[-1] == "x" else st.text(alphabet="ab", max_size=2),
        "a.b": st.integers(0, 4),
        "bo": st.booleans(),
    }[column[0]]
    return st.one_of(st.sampled_from(sorted(set(pool), key=repr)), extra)


PATHS = [("i",), ("l",), ("f",), ("d",), ("s",), ("b",), ("bo",), ("dec",), ("dt",), ("ts",), ("tsi",)]
PATHS += [("st", "x"), ("st", "y"), ("a.b",)]


@st.composite
def spark_filters(draw: st.DrawFn) -> Filter:
    column = draw(st.sampled_from(PATHS))
    cls = draw(
        st.sampled_from(
            [EqualTo, EqualNullSafe, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual, In, IsNull, IsNotNull]
            + ([StringStartsWith, StringEndsWith] if column in (("s",), ("st", "y")) else [])
        )
    )
    if cls in (IsNull, IsNotNull):
        f: Filter = cls(column)
    elif cls is In:
        values = _values(column)
        first = draw(values)
        # one Spark type per filter: the rest of the list of the same kind as the first value
        rest = draw(st.lists(values.filter(lambda v: type(v) is type(first) and _same_zone(v, first)), max_size=3))
        nulls = [None] * draw(st.integers(0, 1))
        f = In(column, [first, *rest, *nulls])
    elif cls in (StringStartsWith, StringEndsWith):
        f = cls(column, draw(st.text(alphabet="ab é\U0010ffff\ue000", max_size=2)))
    else:
        f = cls(
            column, draw(st.one_of(_values(column), st.none()) if draw(st.integers(0, 9)) == 0 else _values(column))
        )
    for _ in range(draw(st.integers(0, 2))):
        f = Not(f)
    return f


def _same_zone(a: Any, b: Any) -> bool:
    return not isinstance(a, dt.datetime) or (a.tzinfo is None) == (b.tzinfo is None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(filters=st.lists(spark_filters(), min_size=1, max_size=3), recorded=st.booleans())
def test_translated_filters_select_what_spark_would(orc_file: Path, filters: list[Filter], recorded: bool) -> None:
    result, rej = translate(filters, orcjit.ORCFile(orc_file).schema, timezone=LA, writer_zones_recorded=recorded)
    assert all(any(r is f for f in filters) for r in rej)
    kept = [f for f in filters if not any(f is r for r in rej)]
    event(f"{len(kept)} of {len(filters)} accepted")
    if not result:
        assert not kept
        return
    got = orcjit.ORCFile(orc_file).read_arrow(columns=["rid"], filters=result).column("rid").to_pylist()
    # without the promise that stripes record their zone, both ways of reading wall clocks must agree
    for model in ["zone"] if recorded else ["zone", "fixed"]:
        MODEL["wall"] = model
        want = [row for row in range(N) if all(reference(f, row) is True for f in kept)]
        MODEL["wall"] = "zone"
        assert got == want, f"{kept} -> {result} ({model})"


def test_property_filters_are_mostly_accepted(orc_file: Path) -> None:
    # the property above would pass by rejecting everything: here a plain sample of its filters is mostly taken
    schema_ = orcjit.ORCFile(orc_file).schema
    samples = [
        EqualTo(("i",), 3),
        Not(EqualNullSafe(("s",), "ab")),
        In(("dec",), [Decimal("1.50"), None]),
        Not(In(("b",), [b"a"])),
        StringStartsWith(("st", "y"), "a"),
        Not(StringStartsWith(("s",), "a\U0010ffff")),
        LessThan(("d",), 2.5),
        Not(GreaterThan(("f",), 1.0)),
        GreaterThanOrEqual(("dt",), dt.date(1970, 1, 1)),
        LessThanOrEqual(("ts",), dt.datetime(2020, 11, 1, 1, 30)),
        GreaterThan(("ts",), dt.datetime(2020, 11, 5, 12, 0, tzinfo=UTC)),
        Not(EqualTo(("tsi",), dt.datetime(2020, 3, 8, 10, 0, tzinfo=UTC))),
        IsNull(("st", "x")),
        EqualTo(("a.b",), 2),
        EqualTo(("bo",), True),
    ]
    for f in samples:
        result, rej = translate([f], schema_, timezone=LA)
        assert rej == [], f
        got = orcjit.ORCFile(orc_file).read_arrow(columns=["rid"], filters=result).column("rid").to_pylist()
        want = [row for row in range(N) if reference(f, row) is True]
        assert got == want, f
        assert 0 < len(want) < N, f  # each sample splits the rows, so the check above means something


def test_timestamp_filters_around_dst_transitions(orc_file: Path) -> None:
    # every comparison of the wall-clock and instant columns with values at and next to the DST hours: the cases
    # where a wall clock stands for two instants or for none, which random draws rarely hit
    schema_ = orcjit.ORCFile(orc_file).schema
    walls = sorted({EPOCH + (v // 1000) * US for v in DATA["ts"][:400] if v is not None})
    walls = [w for w in walls if w.year in (2020, 2021)]  # the DST days and a summer day
    assert len(walls) >= 6
    deltas = [-US, 0 * US, US, dt.timedelta(hours=1)]
    classes = [EqualTo, GreaterThan, GreaterThanOrEqual, LessThanOrEqual]
    accepted_count = 0
    orc = orcjit.ORCFile(orc_file)
    cases = []
    for wall, delta in itertools.product(walls, deltas):
        cases.append(((wall + delta,), "ts", True))
        for fold in (0, 1):
            instant = (wall + delta).replace(tzinfo=ZONE, fold=fold).astimezone(UTC)
            cases += [((instant,), "tsi", True), ((instant,), "ts", True), ((instant,), "ts", False)]
    for (value,), column, recorded in cases:
        for cls in classes:
            for f in (cls((column,), value), Not(cls((column,), value))):
                result, rej = translate([f], schema_, timezone=LA, writer_zones_recorded=recorded)
                if rej:
                    continue
                accepted_count += 1
                got = orc.read_arrow(columns=["rid"], filters=result).column("rid").to_pylist()
                for model in ["zone"] if recorded else ["zone", "fixed"]:
                    MODEL["wall"] = model
                    want = [row for row in range(N) if reference(f, row) is True]
                    MODEL["wall"] = "zone"
                    assert got == want, (f, result, model)
    assert accepted_count > 300
