"""Filters: how ``normalize_filters`` reads every accepted spelling and shape and rejects everything else, and the
three-valued truth tables of ``prune.evaluate_predicate`` on hand-made statistics."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest

from orcjit import ColumnStatistics, OrcError, TypeNode
from orcjit.pushdown.filters import Predicate, describe, normalize_filters, referenced_paths
from orcjit.pushdown.prune import (
    MAYBE,
    NO,
    TIMESTAMP_SLACK,
    YES,
    conjunction,
    disjunction,
    evaluate,
    evaluate_predicate,
)

# -- a schema ---------------------------------------------------------------------------------------------------------

Spec = Any  # a kind, or (kind, [children]) where struct children are (name, spec)


def build(spec: list[tuple[str, Spec]]) -> TypeNode:
    """A struct schema from ``(name, spec)`` fields, with pre-order column ids and parent links."""
    counter = iter(range(1000))

    def make(kind_spec: Spec, name: str | None, parent: TypeNode | None) -> TypeNode:
        kind, children = (kind_spec, []) if isinstance(kind_spec, str) else kind_spec
        node = TypeNode(column_id=next(counter), kind=kind, name=name, parent=parent)
        if kind == "decimal":
            node.precision, node.scale = 10, 2
        for child in children:
            child_name, child_spec = child if kind == "struct" else (None, child)
            node.children.append(make(child_spec, child_name, node))
        node.max_column_id = node.children[-1].max_column_id if node.children else node.column_id
        return node

    return make(("struct", spec), None, None)


SCHEMA = build(
    [
        ("i8", "tinyint"),
        ("i", "int"),
        ("big", "bigint"),
        ("f", "float"),
        ("d", "double"),
        ("s", "string"),
        ("vc", "varchar"),
        ("ch", "char"),
        ("bin", "binary"),
        ("dec", "decimal"),
        ("day", "date"),
        ("ts", "timestamp"),
        ("tsl", "timestamp with local time zone"),
        ("b", "boolean"),
        ("st", ("struct", [("a", "int"), ("inner", ("struct", [("x", "string")]))])),
        ("lst", ("array", ["int"])),
        ("m", ("map", ["string", "int"])),
        ("u", ("uniontype", ["int", "string"])),
        ("lst_of_st", ("array", [("struct", [("y", "int")])])),
    ]
)


def test_schema_helper() -> None:
    assert str(SCHEMA).startswith("struct<i8:tinyint,i:int,big:bigint")
    assert SCHEMA.find("st.inner.x").column_id == SCHEMA.find("st.inner").column_id + 1
    assert [n.column_id for n in SCHEMA.walk()] == list(range(SCHEMA.max_column_id + 1))


def norm(filters: Any) -> Any:
    return normalize_filters(filters, SCHEMA)


def one(term: tuple[Any, ...]) -> Predicate:
    (group,) = norm([term])
    (p,) = group
    return p


# -- spellings and shapes ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "op"),
    [
        ("==", "=="),
        ("=", "=="),
        (" == ", "=="),
        ("!=", "!="),
        ("<", "<"),
        ("<=", "<="),
        (">", ">"),
        (">=", ">="),
        ("in", "in"),
        ("IN", "in"),
        (" In ", "in"),
        ("not in", "not in"),
        ("NOT IN", "not in"),
        ("not_in", "not in"),
    ],
)
def test_op_spellings(written: str, op: str) -> None:
    value = [1, 2] if op in ("in", "not in") else 1
    p = one(("i", written, value))
    assert p.op == op and p.path == "i" and p.node is SCHEMA["i"]
    assert p.values == ((1, 2) if op in ("in", "not in") else (1,))


@pytest.mark.parametrize(
    ("term", "op"),
    [
        (("s", "is null"), "is null"),
        (("s", "IS NULL"), "is null"),
        (("s", "is_null"), "is null"),
        (("s", "is null", None), "is null"),
        (("s", "is not null"), "is not null"),
        (("s", "Is Not Null", None), "is not null"),
        (("s", "is_not_null"), "is not null"),
    ],
)
def test_null_test_spellings(term: tuple[Any, ...], op: str) -> None:
    p = one(term)
    assert p.op == op and p.values == ()
    assert str(p) == f"s {op}"


def test_shapes() -> None:
    assert norm(None) is None
    a, b, c = ("i", "==", 1), ("s", "==", "x"), ("b", "is null")
    assert [[p.path for p in g] for g in norm([a])] == [["i"]]
    assert [[p.path for p in g] for g in norm([a, b])] == [["i", "s"]]
    assert [[p.path for p in g] for g in norm([[a]])] == [["i"]]
    assert [[p.path for p in g] for g in norm([[a, b], [c]])] == [["i", "s"], ["b"]]
    assert [[p.path for p in g] for g in norm(t for t in [a, c])] == [["i", "b"]]  # any iterable of tuples
    with pytest.raises(OrcError, match="filters must be a list"):
        norm(([a], [b]))  # a tuple is a single filter, never a list of them


@pytest.mark.parametrize(
    ("filters", "problem"),
    [
        ("i == 1", "filters must be a list of \\(column, op, value\\) tuples"),
        (b"i", "filters must be a list"),
        (("i", "==", 1), "filters must be a list"),
        (5, "filters must be a list"),
        ([], "filters must not be empty; pass None to read everything"),
        ([[]], "a conjunction in filters is empty"),
        ([[("i", "==", 1)], []], "a conjunction in filters is empty"),
        ([("i", "==", 1), [("s", "==", "a")]], "not a mix"),
        ([["i", "==", 1]], "filter 'i' is not a \\(column, op, value\\) tuple"),
        ([("i",)], "filter \\('i',\\) is not a \\(column, op, value\\) tuple"),
        ([("i", "==", 1, 2)], "is not a \\(column, op, value\\) tuple"),
        ([{"i": 1}], "not a mix|is not a"),
    ],
)
def test_malformed_filters(filters: Any, problem: str) -> None:
    with pytest.raises(OrcError, match=problem):
        norm(filters)


@pytest.mark.parametrize(
    ("term", "problem"),
    [
        (("i", "~", 1), "unknown op '~'; use one of ==, !=, <, <=, >, >=, in, not in, is null, is not null"),
        (("i", "===", 1), "unknown op '==='"),
        (("i", "not  in", [1]), "unknown op 'not  in'"),
        (("i", None, 1), "unknown op None"),
        (("i", 5, 1), "unknown op 5"),
        (("nope", "==", 1), "no column 'nope' in the file"),
        (("st.nope", "==", 1), "no column 'st.nope'"),
        (("I", "==", 1), "no column 'I'"),
        (("lst._elem", "==", 1), "no column 'lst._elem'"),
        (("lst_of_st.y", "==", 1), "no column 'lst_of_st.y'"),
        (("m._key", "==", "a"), "no column 'm._key'"),
        ((1, "==", 1), "the column must be a name, got int"),
        ((None, "is null"), "the column must be a name, got NoneType"),
        (("st", "is null"), "column 'st' is a struct; filters test primitive columns"),
        (("st.inner", "is not null"), "column 'st.inner' is a struct"),
        (("lst", "==", 1), "column 'lst' is a array"),
        (("m", "is null"), "column 'm' is a map"),
        (("u", "==", 1), "column 'u' is a uniontype"),
    ],
)
def test_bad_op_or_column(term: tuple[Any, ...], problem: str) -> None:
    with pytest.raises(OrcError, match=problem) as info:
        norm([term])
    assert str(info.value).startswith(f"filter {term!r}: ")


@pytest.mark.parametrize(
    ("term", "problem"),
    [
        (("i", "==", None), "comparing with None never matches; use 'is null' or 'is not null'"),
        (("s", "!=", None), "comparing with None never matches"),
        (("i", "in", [1, None]), "None in a list never matches; use 'is null'"),
        (("i", "not in", (None,)), "None in a list never matches"),
        (("i", "in", "123"), "'in' needs a list of values"),
        (("bin", "in", b"ab"), "'in' needs a list of values"),
        (("i", "not in", 5), "'not in' needs a list of values"),
        (("i", "is null", 5), "'is null' takes no value"),
        (("i", "is not null", 0), "'is not null' takes no value"),
        (("i", "=="), "'==' needs a value"),
        (("i", "in"), "'in' needs a value"),
    ],
)
def test_none_and_missing_values(term: tuple[Any, ...], problem: str) -> None:
    with pytest.raises(OrcError, match=problem):
        norm([term])


WRONG_VALUES = [
    ("i8", "1"),
    ("i", True),
    ("i", b"1"),
    ("i", math.nan),
    ("i", math.inf),
    ("i", Decimal("NaN")),
    ("big", dt.date(2020, 1, 1)),
    ("f", "1.0"),
    ("f", True),
    ("d", Decimal("1.5")),
    ("d", b"x"),
    ("s", 5),
    ("s", b"abc"),
    ("vc", 1.5),
    ("ch", True),
    ("bin", "abc"),
    ("bin", 5),
    ("dec", "1.5"),
    ("dec", True),
    ("dec", math.nan),
    ("dec", math.inf),
    ("dec", Decimal("Infinity")),
    ("day", dt.datetime(2020, 1, 1)),
    ("day", pd.Timestamp("2020-01-01")),
    ("day", "2020-13-01"),
    ("day", 5),
    ("ts", 5),
    ("ts", "not a time"),
    ("ts", dt.date(2020, 1, 1)),
    ("ts", pd.NaT),
    ("ts", np.datetime64("NaT", "ns")),
    ("tsl", 5),
    ("tsl", "garbage"),
    ("b", 1),
    ("b", "true"),
    ("st.a", "5"),
]


@pytest.mark.parametrize(("column", "value"), WRONG_VALUES)
def test_wrong_value_types(column: str, value: Any) -> None:
    node = SCHEMA.find(column)
    with pytest.raises(OrcError, match=f"is not a value of {node.kind} column '{column}'"):
        norm([(column, "==", value)])
    with pytest.raises(OrcError, match=f"is not a value of {node.kind} column '{column}'"):
        norm([(column, "in", [value])])


def test_aware_timestamp_on_wall_clock_column() -> None:
    with pytest.raises(OrcError, match="holds wall-clock times; compare it with a naive datetime"):
        norm([("ts", "<", pd.Timestamp("2020-01-01", tz="UTC"))])


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("i", np.int64(5), 5),
        ("i", 5.0, 5),
        ("i", 2.5, 2.5),
        ("i", Decimal("2.5"), Decimal("2.5")),
        ("big", 2**70, 2**70),
        ("i8", np.int8(-3), -3),
        ("f", 5, 5.0),
        ("f", np.float32(0.5), 0.5),
        ("d", np.float64(-0.0), -0.0),
        ("d", math.inf, math.inf),
        ("dec", 5, Decimal(5)),
        ("dec", 0.1, Decimal("0.1")),
        ("dec", Decimal("1.10"), Decimal("1.10")),
        ("s", "日本", "日本"),
        ("vc", "", ""),
        ("bin", bytearray(b"ab"), b"ab"),
        ("bin", memoryview(b"\x00"), b"\x00"),
        ("day", "2020-02-29", dt.date(2020, 2, 29)),
        ("day", np.datetime64("2020-02-29"), dt.date(2020, 2, 29)),
        ("day", dt.date(1, 1, 1), dt.date(1, 1, 1)),
        ("ts", "2020-01-01 00:00:00.000000001", pd.Timestamp("2020-01-01 00:00:00.000000001")),
        ("ts", dt.datetime(2020, 1, 1, 12), pd.Timestamp("2020-01-01 12:00")),
        ("ts", np.datetime64("2020-01-01T00:00:00.000000001", "ns"), pd.Timestamp("2020-01-01 00:00:00.000000001")),
        ("ts", np.datetime64("2020-01-01T00:00:01", "s"), pd.Timestamp("2020-01-01 00:00:01")),
        ("tsl", "2020-01-01", pd.Timestamp("2020-01-01", tz="UTC")),  # a naive value is taken as UTC
        ("tsl", pd.Timestamp("2020-01-01 09:00", tz="Asia/Tokyo"), pd.Timestamp("2020-01-01", tz="UTC")),
        ("tsl", "2020-01-01T01:00:00+01:00", pd.Timestamp("2020-01-01", tz="UTC")),
        ("b", np.bool_(True), True),
        ("b", False, False),
        ("st.inner.x", "deep", "deep"),
    ],
)
def test_values_take_the_columns_type(column: str, value: Any, expected: Any) -> None:
    p = one((column, "==", value))
    assert p.value == expected and type(p.value) is type(expected)
    if isinstance(expected, pd.Timestamp):
        assert p.value.value == expected.value and str(p.value.tz) == str(expected.tz)
    q = one((column, "not in", [value, value]))
    assert q.values == (expected, expected)


def test_list_containers() -> None:
    assert one(("i", "in", {3})).values == (3,)
    assert one(("i", "in", (x for x in [1, 2]))).values == (1, 2)
    assert one(("i", "in", np.array([1, 2]))).values == (1, 2)
    assert one(("i", "in", [])).values == ()


def test_describe_and_paths() -> None:
    assert describe(None) == "(none)"
    assert describe(norm([("i", "==", 1), ("s", "==", "a")])) == "i == 1 and s == 'a'"
    flt = norm([[("i", "==", 1), ("s", "in", ["a"])], [("b", "is null")], [("st.a", ">", 2), ("i", "<", 0)]])
    assert describe(flt) == "(i == 1 and s in ['a']) or b is null or (st.a > 2 and i < 0)"
    assert referenced_paths(flt) == ["i", "s", "b", "st.a"]
    assert referenced_paths(None) == []


# -- truth tables ------------------------------------------------------------------------------------------------------

ROWS = 100


def stats(column: str, count: int | None, has_null: bool | None, **kw: Any) -> ColumnStatistics:
    node = SCHEMA.find(column)
    return ColumnStatistics(column_id=node.column_id, kind=node.kind, count=count, has_null=has_null, **kw)


def verdict(term: tuple[Any, ...], s: ColumnStatistics | None, rows: int = ROWS) -> int:
    return evaluate_predicate(one(term), s, rows)


def both(column: str, **kw: Any) -> tuple[ColumnStatistics, ColumnStatistics]:
    """Statistics of ``ROWS`` rows with these bounds: without nulls, and with 10 nulls."""
    return stats(column, ROWS, False, **kw), stats(column, ROWS - 10, True, **kw)


# (op, value, verdict without nulls, verdict with nulls) for an int column holding 10 .. 20
INT_TABLE = [
    ("==", 5, NO, NO),
    ("==", 25, NO, NO),
    ("==", 10, MAYBE, MAYBE),
    ("==", 15, MAYBE, MAYBE),
    ("==", 20, MAYBE, MAYBE),
    ("==", 15.5, MAYBE, MAYBE),
    ("!=", 5, YES, MAYBE),
    ("!=", 21, YES, MAYBE),
    ("!=", 15, MAYBE, MAYBE),
    ("<", 10, NO, NO),
    ("<", 9.5, NO, NO),
    ("<", 15, MAYBE, MAYBE),
    ("<", 20, MAYBE, MAYBE),
    ("<", 21, YES, MAYBE),
    ("<", 20.5, YES, MAYBE),
    ("<=", 9, NO, NO),
    ("<=", 10, MAYBE, MAYBE),
    ("<=", 20, YES, MAYBE),
    (">", 20, NO, NO),
    (">", 20.5, NO, NO),
    (">", 19, MAYBE, MAYBE),
    (">", 9, YES, MAYBE),
    (">=", 21, NO, NO),
    (">=", 20, MAYBE, MAYBE),
    (">=", 10, YES, MAYBE),
    ("in", [1, 2, 30], NO, NO),
    ("in", [1, 15], MAYBE, MAYBE),
    ("in", [], NO, NO),
    # a null satisfies "not in": nulls take nothing from its YES, and keep it from NO
    ("not in", [1, 2], YES, YES),
    ("not in", [1, 15], MAYBE, MAYBE),
    ("not in", [10, 20], MAYBE, MAYBE),
    ("not in", [], YES, YES),
    ("is null", None, NO, MAYBE),
    ("is not null", None, YES, MAYBE),
]


@pytest.mark.parametrize(("op", "value", "without_nulls", "with_nulls"), INT_TABLE)
def test_int_truth_table(op: str, value: Any, without_nulls: int, with_nulls: int) -> None:
    term = ("i", op) if value is None else ("i", op, value)
    plain, nulls = both("i", minimum=10, maximum=20)
    assert verdict(term, plain) == without_nulls
    assert verdict(term, nulls) == with_nulls


# one value only (10): equality becomes certain
SINGLE_TABLE = [
    ("==", 10, YES, MAYBE),
    ("==", 11, NO, NO),
    ("!=", 10, NO, NO),
    ("!=", 11, YES, MAYBE),
    ("in", [10, 11], YES, MAYBE),
    ("in", [11], NO, NO),
    ("not in", [10], NO, MAYBE),  # the nulls satisfy it
    ("not in", [9, 11], YES, YES),
    ("<", 10, NO, NO),
    ("<=", 10, YES, MAYBE),
    (">=", 10, YES, MAYBE),
    (">", 10, NO, NO),
]


@pytest.mark.parametrize(("op", "value", "without_nulls", "with_nulls"), SINGLE_TABLE)
def test_single_value_truth_table(op: str, value: Any, without_nulls: int, with_nulls: int) -> None:
    plain, nulls = both("big", minimum=10, maximum=10)
    assert verdict(("big", op, value), plain) == without_nulls
    assert verdict(("big", op, value), nulls) == with_nulls


ALL_TERMS = [
    ("==", 1),
    ("!=", 1),
    ("<", 1),
    ("<=", 1),
    (">", 1),
    (">=", 1),
    ("in", [1]),
    ("not in", [1]),
    ("is null", None),
    ("is not null", None),
]


@pytest.mark.parametrize(("op", "value"), ALL_TERMS)
def test_all_null(op: str, value: Any) -> None:
    term = ("i", op) if value is None else ("i", op, value)
    expected = {"is null": YES, "not in": YES}.get(op, NO)  # a null satisfies "not in" and no comparison, "!=" too
    assert verdict(term, stats("i", 0, True)) == expected
    assert verdict(term, stats("i", 0, True, minimum=None, maximum=None)) == expected


@pytest.mark.parametrize(("op", "value"), ALL_TERMS)
def test_unknown_statistics(op: str, value: Any) -> None:
    term = ("i", op) if value is None else ("i", op, value)
    # rows but neither values nor nulls counted: old writers that recorded nothing
    assert verdict(term, stats("i", 0, False)) == MAYBE
    assert verdict(term, stats("i", 0, False, minimum=5, maximum=5)) == MAYBE
    assert verdict(term, None) == MAYBE
    assert verdict(term, stats("i", None, None, minimum=100, maximum=100)) == MAYBE
    assert verdict(term, stats("i", ROWS, False, minimum=5, maximum=5), rows=0) == MAYBE


def test_has_null_unrecorded() -> None:
    s = stats("i", ROWS, None, minimum=10, maximum=20)
    assert verdict(("i", "is null"), s) == MAYBE
    assert verdict(("i", "is not null"), s) == MAYBE
    assert verdict(("i", "==", 5), s) == NO
    assert verdict(("i", ">", 5), s) == MAYBE  # YES needs to know there are no nulls
    assert verdict(("i", "!=", 5), s) == MAYBE


def test_struct_field_nulls_come_from_the_struct() -> None:
    # ORC Java leaves a struct's nulls out of its fields' hasNull: 60 values in 100 rows, "no nulls"
    s = stats("st.a", 60, False, minimum=1, maximum=9)
    assert verdict(("st.a", "is null"), s) == MAYBE
    assert verdict(("st.a", "is not null"), s) == MAYBE
    assert verdict(("st.a", "!=", 100), s) == MAYBE
    assert verdict(("st.a", "==", 100), s) == NO
    assert verdict(("st.a", "not in", [100]), s) == YES  # the values are not listed, and the nulls satisfy it
    single = stats("st.a", 60, False, minimum=5, maximum=5)
    assert verdict(("st.a", "not in", [5]), single) == MAYBE  # the rows where st is null satisfy it
    assert verdict(("st.a", "is null"), stats("st.a", ROWS, False, minimum=1, maximum=9)) == NO


def test_more_values_than_rows() -> None:
    # a count can only be trusted to rule nulls out; more values than rows still means no nulls
    assert verdict(("i", "is null"), stats("i", ROWS + 5, False, minimum=1, maximum=2)) == NO


STRING_TABLE = [
    ("==", "a", NO),
    ("==", "b", MAYBE),
    ("==", "bz", MAYBE),
    ("==", "m", MAYBE),
    ("==", "ma", NO),
    ("<", "b", NO),
    ("<", "b\x00", MAYBE),
    ("<=", "b", MAYBE),
    (">", "m", NO),
    (">=", "m", MAYBE),
    (">", "", YES),
    ("<", "n", YES),
    ("in", ["a", "z"], NO),
    ("in", ["a", "c"], MAYBE),
    ("not in", ["a", "z"], YES),
    ("!=", "é", YES),  # UTF-8 order: "é" sorts after ASCII
    ("<", "é", YES),
]


@pytest.mark.parametrize(("op", "value", "expected"), STRING_TABLE)
def test_string_truth_table(op: str, value: Any, expected: int) -> None:
    for column in ("s", "vc", "ch"):
        assert verdict((column, op, value), stats(column, ROWS, False, minimum="b", maximum="m")) == expected


STRING_BOUND_TABLE = [
    ("==", "a", NO),
    ("==", "b", MAYBE),
    ("==", "n", NO),
    ("<", "b", NO),
    (">", "m", NO),
    ("!=", "z", YES),
    ("<=", "zz", YES),
]


@pytest.mark.parametrize(("op", "value", "bounded"), STRING_BOUND_TABLE)
def test_string_bounds(op: str, value: Any, bounded: int) -> None:
    """Minima and maxima too long to store are replaced by bounds: every value lies within them."""
    s = stats("s", ROWS, False, lower_bound="b", upper_bound="m")
    assert verdict(("s", op, value), s) == bounded
    # with one side unknown nothing is decided
    assert verdict(("s", op, value), stats("s", ROWS, False, lower_bound="b")) == MAYBE
    assert verdict(("s", op, value), stats("s", ROWS, False, minimum="b")) == MAYBE
    # equal bounds are not a single value: the strings between them are many
    same = stats("s", ROWS, False, lower_bound="b", upper_bound="b")
    assert verdict(("s", "==", "b"), same) == MAYBE
    assert verdict(("s", "!=", "b"), same) == MAYBE
    # a real minimum with a bound as maximum
    mixed = stats("s", ROWS, False, minimum="b", upper_bound="m")
    assert verdict(("s", "<", "b"), mixed) == NO and verdict(("s", ">", "m"), mixed) == NO


FLOAT_TABLE = [
    ("==", 0.5, NO),
    ("==", 1.0, MAYBE),
    ("==", 2.0, MAYBE),
    ("==", 2.5, NO),
    ("==", math.nan, NO),  # IEEE: NaN equals nothing, and is in no order
    ("<", 1.0, NO),
    ("<", math.nan, NO),
    ("!=", math.nan, YES),
    ("<", math.inf, MAYBE),  # not YES: a NaN value is not below infinity
    (">", 2.0, NO),
    (">=", -math.inf, MAYBE),
    ("!=", 5.0, YES),  # NaN values, which the statistics never show, satisfy "!=" too
    ("!=", 1.5, MAYBE),
    ("not in", [5.0], YES),
    ("in", [0.0, 3.0], NO),
    ("in", [0.0, 1.5], MAYBE),
    # NaN is a member of a list holding it, and NaN values may be there
    ("in", [math.nan], MAYBE),
    ("in", [math.nan, 5.0], MAYBE),
    ("not in", [math.nan], MAYBE),
    ("not in", [math.nan, 5.0], MAYBE),
    (">", 1.5, MAYBE),
    (">=", 1.0, MAYBE),  # not YES: a NaN value is not >= 1
]


@pytest.mark.parametrize(("op", "value", "expected"), FLOAT_TABLE)
def test_float_truth_table(op: str, value: Any, expected: int) -> None:
    for column in ("f", "d"):
        assert verdict((column, op, value), stats(column, ROWS, False, minimum=1.0, maximum=2.0)) == expected


def test_float_single_value_is_never_certain() -> None:
    # NaN values never show in the statistics: a single value may sit beside NaN rows
    s = stats("d", ROWS, False, minimum=3.0, maximum=3.0)
    assert verdict(("d", "==", 3.0), s) == MAYBE
    assert verdict(("d", "!=", 3.0), s) == MAYBE
    assert verdict(("d", "not in", [3.0]), s) == MAYBE
    assert verdict(("d", "not in", [3.0, math.nan]), s) == NO
    assert verdict(("d", "in", [3.0, math.nan]), s) == MAYBE
    assert verdict(("d", "!=", 4.0), s) == YES


def test_float_zero_and_infinities() -> None:
    s = stats("d", ROWS, False, minimum=-0.0, maximum=0.0)
    assert verdict(("d", "==", 0.0), s) == MAYBE
    assert verdict(("d", "==", -0.0), s) == MAYBE
    assert verdict(("d", "<", 0.0), s) == NO
    assert verdict(("d", "in", [-0.0]), s) == MAYBE  # -0.0 and 0.0 are one member
    assert verdict(("d", "not in", [0.0, math.nan]), s) == NO
    assert verdict(("d", "!=", -0.0), s) == MAYBE
    wide = stats("d", ROWS, False, minimum=-math.inf, maximum=math.inf)
    assert verdict(("d", "==", 1e308), wide) == MAYBE
    assert verdict(("d", ">", math.inf), wide) == NO


@pytest.mark.parametrize(
    "bounds", [(math.nan, 2.0), (1.0, math.nan), (math.nan, math.nan)], ids=["nan-min", "nan-max", "nan-both"]
)
@pytest.mark.parametrize(("op", "value"), [("==", 5.0), ("<", 0.0), (">", 10.0), ("in", [7.0]), ("<=", -1.0)])
def test_float_nan_bounds_say_nothing(bounds: tuple[float, float], op: str, value: Any) -> None:
    s = stats("d", ROWS, False, minimum=bounds[0], maximum=bounds[1])
    assert verdict(("d", op, value), s) == MAYBE
    assert verdict(("d", "is null"), s) == NO


BOOLEAN_TABLE = [
    # op, value, all true, all false, both
    ("==", True, YES, NO, MAYBE),
    ("==", False, NO, YES, MAYBE),
    ("!=", True, NO, YES, MAYBE),
    ("!=", False, YES, NO, MAYBE),
    ("in", [True], YES, NO, MAYBE),
    ("in", [True, False], YES, YES, YES),
    ("in", [], NO, NO, NO),
    ("not in", [True], NO, YES, MAYBE),
    ("not in", [True, False], NO, NO, NO),
    ("<", True, MAYBE, MAYBE, MAYBE),
    (">=", False, MAYBE, MAYBE, MAYBE),
]


@pytest.mark.parametrize(("op", "value", "all_true", "all_false", "mixed"), BOOLEAN_TABLE)
def test_boolean_truth_table(op: str, value: Any, all_true: int, all_false: int, mixed: int) -> None:
    def s(true: int, false: int, nulls: int = 0) -> ColumnStatistics:
        return stats("b", true + false, nulls > 0, true_count=true, false_count=false)

    assert verdict(("b", op, value), s(ROWS, 0)) == all_true
    assert verdict(("b", op, value), s(0, ROWS)) == all_false
    assert verdict(("b", op, value), s(40, 60)) == mixed
    # with nulls, "not in" (which they satisfy) is never impossible and every other op never certain
    for counts, expected in (((90, 0), all_true), ((0, 90), all_false), ((40, 50), mixed)):
        lost = NO if op == "not in" else YES
        assert verdict(("b", op, value), s(*counts, nulls=10)) == (MAYBE if expected == lost else expected)
    assert verdict(("b", op, value), stats("b", ROWS, False)) == MAYBE  # counts not recorded


def test_decimal_date_timestamp_ranges() -> None:
    dec = stats("dec", ROWS, False, minimum=Decimal("1.50"), maximum=Decimal("2.25"))
    assert verdict(("dec", "==", Decimal("1.5")), dec) == MAYBE
    assert verdict(("dec", "<", Decimal("1.5")), dec) == NO
    assert verdict(("dec", "<", 1.5), dec) == NO
    assert verdict(("dec", ">", 2), dec) == MAYBE
    assert verdict(("dec", ">", Decimal("2.2500001")), dec) == NO
    assert verdict(("dec", "<=", Decimal("2.25")), dec) == YES

    day = stats("day", ROWS, False, minimum=dt.date(2020, 1, 1), maximum=dt.date(2020, 12, 31))
    assert verdict(("day", "<", "2020-01-01"), day) == NO
    assert verdict(("day", "==", dt.date(2021, 1, 1)), day) == NO
    assert verdict(("day", ">=", dt.date(2020, 1, 1)), day) == YES
    assert verdict(("day", "in", [dt.date(2019, 1, 1), dt.date(2020, 6, 1)]), day) == MAYBE


def test_timestamp_statistics_are_widened_by_a_millisecond() -> None:
    t = pd.Timestamp("2020-01-01 00:00:00.123456789")
    ts = stats("ts", ROWS, False, minimum=t, maximum=t)
    assert pd.Timedelta(milliseconds=1) == TIMESTAMP_SLACK
    assert verdict(("ts", "==", t), ts) == MAYBE  # never YES: the bounds are not exact
    assert verdict(("ts", "==", t + pd.Timedelta(microseconds=999)), ts) == MAYBE
    assert verdict(("ts", "==", t + pd.Timedelta(milliseconds=1, nanoseconds=1)), ts) == NO
    assert verdict(("ts", "<", t - pd.Timedelta(milliseconds=1)), ts) == NO
    assert verdict(("ts", ">", t + pd.Timedelta(milliseconds=2)), ts) == NO
    assert verdict(("ts", "<", t + pd.Timedelta(milliseconds=2)), ts) == YES
    utc = t.tz_localize("UTC")
    tsl = stats("tsl", ROWS, False, minimum=utc, maximum=utc)
    assert verdict(("tsl", "==", utc + pd.Timedelta(seconds=1)), tsl) == NO
    assert verdict(("tsl", "==", utc.tz_convert("Asia/Tokyo")), tsl) == MAYBE
    # a naive bound against aware statistics (or the reverse) is not compared
    assert verdict(("ts", "==", t), stats("ts", ROWS, False, minimum=utc, maximum=utc)) == MAYBE


def test_incomparable_statistics_say_maybe() -> None:
    # statistics of another type than the value (a corrupt or foreign message) never rule anything out
    assert verdict(("i", "==", 5), stats("i", ROWS, False, minimum="a", maximum="b")) == MAYBE
    assert verdict(("s", "==", "x"), stats("s", ROWS, False, minimum=1, maximum=2)) == MAYBE
    assert verdict(("i", "==", 5), stats("i", ROWS, False, minimum=True, maximum=True)) == MAYBE


def test_kleene_logic_and_evaluate() -> None:
    assert conjunction([]) == YES and disjunction([]) == NO
    assert conjunction([YES, MAYBE]) == MAYBE and conjunction([YES, NO, MAYBE]) == NO
    assert disjunction([NO, MAYBE]) == MAYBE and disjunction([NO, YES, MAYBE]) == YES
    i = stats("i", ROWS, False, minimum=10, maximum=20)
    s = stats("s", ROWS, True, minimum="b", maximum="m")
    by_id = {i.column_id: i, s.column_id: s}

    def ev(filters: Any, trusted: Any = lambda node: True) -> int:
        return evaluate(norm(filters), by_id, ROWS, trusted)

    assert ev([("i", "==", 5)]) == NO
    assert ev([("i", ">", 5), ("s", "==", "a")]) == NO
    assert ev([("i", ">", 5), ("s", "==", "c")]) == MAYBE
    assert ev([("i", ">", 5), ("s", "is not null")]) == MAYBE
    assert ev([("i", ">", 5), ("i", "<", 30)]) == YES
    assert ev([[("i", "==", 5)], [("s", "==", "a")]]) == NO
    assert ev([[("i", "==", 5)], [("i", ">=", 10)]]) == YES
    assert ev([("big", "==", 5)]) == MAYBE  # no statistics for the column
    assert ev([("i", "==", 5)], trusted=lambda node: node.kind != "int") == MAYBE  # untrusted: never pruned
