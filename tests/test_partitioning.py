"""Hive-style partition folders: parsing, type inference and its conflicts, against Spark itself.

The oracle is ``spark.read.orc`` of a directory of tiny ORC files under ``key=value`` folders: the type Spark's
schema gives each partition column must be the one :func:`infer_partitioning` gives, and the value Spark returns
for each file the same Python value. Many cases share one Spark read: case ``i`` is folder key ``c<i>`` and file
``j`` sits under the ``j``-th value of every case (a shorter case repeats its last value).
"""

from __future__ import annotations

import datetime
import math
import os
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from orcjit import OrcError
from orcjit.dataset.partitioning import (
    DEFAULT_PARTITION,
    PartitionColumn,
    infer_partitioning,
    partition_segments,
)

NULL = DEFAULT_PARTITION
SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"


def infer(*values: str, schema: dict[str, str] | None = None) -> tuple[PartitionColumn, list[Any]]:
    """One column ``k`` over one file per value."""
    columns, rows = infer_partitioning([[("k", v)] for v in values], [f"f{i}" for i in range(len(values))], schema)
    assert len(columns) == 1
    return columns[0], [row[0] for row in rows]


# ---------------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("relative_dir", "expected"),
    [
        ("", []),
        (".", []),
        ("year=2024", [("year", "2024")]),
        ("year=2024/city=New%20York", [("year", "2024"), ("city", "New York")]),
        ("t=2024-01-15 10%3A20%3A30", [("t", "2024-01-15 10:20:30")]),
        ("p=a%2Fb/q=100%25", [("p", "a/b"), ("q", "100%")]),
        ("my%20col=1", [("my col", "1")]),
        ("k=v=w", [("k", "v=w")]),
        ("k=%3D", [("k", "=")]),
        ("k=%C3%A9", [("k", "Ã©")]),  # one char per escape, as Spark: no UTF-8 decoding
        ("k=50%", [("k", "50%")]),  # a % without two hex digits stays
        ("k=a%2", [("k", "a%2")]),
        ("k=%zz/l=%+f/m=%-1", [("k", "%zz"), ("l", "%+f"), ("m", "%-1")]),
        ("k=%4a%4A", [("k", "JJ")]),
        ("k=%2525", [("k", "%25")]),  # unescaped once
        ("data/a=1", [("a", "1")]),
        ("a=1/b=2/sub", [("a", "1"), ("b", "2")]),  # below the partitions: ignored
        ("a=1/data/b=2", [("b", "2")]),  # above a folder that is not key=value: not partitions, as in Spark
        ("a=1//b=2/", [("a", "1"), ("b", "2")]),
    ],
)
def test_partition_segments(relative_dir: str, expected: list[tuple[str, str]]) -> None:
    assert partition_segments(relative_dir) == expected


@pytest.mark.parametrize(
    ("relative_dir", "message"), [("k=", "empty value"), ("=1", "empty name"), ("a=1/k=/b=2", "empty value")]
)
def test_empty_partition_names_and_values_are_refused(relative_dir: str, message: str) -> None:
    with pytest.raises(OrcError, match=message):
        partition_segments(relative_dir)


def test_a_key_twice_is_refused() -> None:
    with pytest.raises(OrcError, match="twice"):
        partition_segments("k=1/k=2")


def test_type_strings() -> None:
    assert PartitionColumn("a", "int").type_string() == "int"
    assert PartitionColumn("a", "decimal", 20, 0).type_string() == "decimal(20,0)"
    assert PartitionColumn("a", "string").type_string() == "string"


# ---------------------------------------------------------------------------------------------------- inference


@pytest.mark.parametrize(
    ("values", "type_string", "expected"),
    [
        (["1", "-2", "007", "+5", "-0"], "int", [1, -2, 7, 5, 0]),
        (["2147483647", "-2147483648"], "int", [2**31 - 1, -(2**31)]),
        (["2147483648"], "bigint", [2**31]),
        (["1", "-2147483649"], "bigint", [1, -(2**31) - 1]),
        (["9223372036854775808"], "decimal(19,0)", [Decimal(2**63)]),
        (["1", "99999999999999999999"], "decimal(20,0)", [Decimal(1), Decimal(10**20 - 1)]),
        (["9" * 38], "decimal(38,0)", [Decimal("9" * 38)]),
        (["9" * 39], "double", [float("9" * 39)]),
        (["1e5"], "decimal(6,0)", [Decimal(100000)]),
        (["0e5", "1.5e1"], "decimal(6,0)", [Decimal(0), Decimal(15)]),
        (["1", "1e5"], "decimal(10,0)", [Decimal(1), Decimal(100000)]),
        (["2147483648", "1e5"], "decimal(20,0)", [Decimal(2**31), Decimal(100000)]),
        (["1.5", "1", ".5", " 5"], "double", [1.5, 1.0, 0.5, 5.0]),
        (["0x1.8p1", "1.1f", "2D", "1e400", "-Infinity"], "double", [3.0, 1.1, 2.0, math.inf, -math.inf]),
        (["1.25e1", "1e38"], "double", [12.5, 1e38]),
        (["2147483648", "1.5"], "string", ["2147483648", "1.5"]),
        (["1e5", "1.5"], "string", ["1e5", "1.5"]),
        (["2024-01-15", "2024-02-29"], "date", [datetime.date(2024, 1, 15), datetime.date(2024, 2, 29)]),
        (
            ["2024-01-15", "2024-01-15 10:20:30.5"],
            "timestamp",
            [datetime.datetime(2024, 1, 15), datetime.datetime(2024, 1, 15, 10, 20, 30, 500000)],
        ),
        (["2024-01-15 10:20:30.25"], "string", ["2024-01-15 10:20:30.25"]),
        (["2023-02-29", "2024-1-5"], "string", ["2023-02-29", "2024-1-5"]),
        (["2024-01-15", "1"], "string", ["2024-01-15", "1"]),
        (["007", "a"], "string", ["007", "a"]),
        (["1", NULL], "int", [1, None]),
        ([NULL, "2024-01-15"], "date", [None, datetime.date(2024, 1, 15)]),
        ([NULL, NULL], "string", [None, None]),
        (["١٢٣", "１２"], "int", [123, 12]),  # Java's Integer.parseInt takes any Unicode digits
        (["١.٥", "nan", "inf", "0x10", "1_000", "NaNd"], "string", ["١.٥", "nan", "inf", "0x10", "1_000", "NaNd"]),
    ],
)
def test_inference(values: list[str], type_string: str, expected: list[Any]) -> None:
    column, got = infer(*values)
    assert column.type_string() == type_string
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


def test_nan_is_a_double() -> None:
    column, got = infer("NaN", "-NaN")
    assert column.kind == "double" and all(math.isnan(v) for v in got)


# the types every pair of single values resolves to (rows and columns: a value of each type)
SAMPLES = {"int": "1", "bigint": "2147483648", "decimal": "99999999999999999999", "double": "1.5"}
SAMPLES |= {"timestamp": "2024-01-15 10:20:30", "date": "2024-01-15", "string": "a", "null": NULL}
WIDER = {
    ("int", "bigint"): "bigint",
    ("int", "decimal"): "decimal(20,0)",
    ("int", "double"): "double",
    ("bigint", "decimal"): "decimal(20,0)",
    ("date", "timestamp"): "timestamp",
}


@pytest.mark.parametrize("a", list(SAMPLES))
@pytest.mark.parametrize("b", list(SAMPLES))
def test_conflicts_resolve_symmetrically(a: str, b: str) -> None:
    column, _ = infer(SAMPLES[a], SAMPLES[b])
    if a == b:
        expected = {"null": "string", "decimal": "decimal(20,0)"}.get(a, a)
    elif "null" in (a, b):
        expected = {"decimal": "decimal(20,0)"}.get(a if b == "null" else b, a if b == "null" else b)
    else:
        expected = WIDER.get((a, b)) or WIDER.get((b, a)) or "string"
    assert column.type_string() == expected


def test_resolution_does_not_depend_on_the_order_of_files() -> None:
    import itertools

    values = ["1", "2147483648", "1.5", "1e5", NULL]
    for n in range(1, 4):
        for combo in itertools.combinations(values, n):
            kinds = {infer(*order)[0].type_string() for order in itertools.permutations(combo)}
            assert len(kinds) == 1, combo


def test_several_columns_and_no_partitions() -> None:
    segments = [partition_segments(p) for p in ("y=2024/c=New%20York", "y=2025/c=Paris")]
    columns, rows = infer_partitioning(segments, ["a.orc", "b.orc"])
    assert columns == [PartitionColumn("y", "int"), PartitionColumn("c", "string")]
    assert rows == [(2024, "New York"), (2025, "Paris")]
    assert infer_partitioning([[], []], ["a.orc", "b.orc"]) == ([], [(), ()])
    assert infer_partitioning([], []) == ([], [])


@pytest.mark.parametrize(
    "layout",
    [
        [[("a", "1"), ("b", "2")], [("a", "1"), ("c", "2")]],
        [[("a", "1"), ("b", "2")], [("b", "2"), ("a", "1")]],
        [[("a", "1"), ("b", "2")], [("a", "3")]],
        [[("a", "1")], []],
    ],
)
def test_conflicting_structures_name_two_files_and_their_keys(layout: list[list[tuple[str, str]]]) -> None:
    with pytest.raises(OrcError, match=r"first\.orc has partition keys \[.*\] but second\.orc has \[.*\]"):
        infer_partitioning(layout, ["first.orc", "second.orc"])


@pytest.mark.parametrize("value", ["0000-01-01", "-0001-01-01", "0000-01-01 00:00:00", "-0001-01-01 00:00:00"])
def test_days_before_year_one_are_refused(value: str) -> None:
    """Spark 4 types these as dates and timestamps (checked by hand); Python's datetime cannot hold them."""
    with pytest.raises(OrcError, match="before year 1"):
        infer(value)


# ---------------------------------------------------------------------------------------------------- schema=


def test_schema_forces_types() -> None:
    segments = [[("a", "1"), ("d", "2024-01-15"), ("s", "007")], [("a", NULL), ("d", "2024-01-16"), ("s", "8")]]
    schema = {"a": "decimal(10,2)", "d": "timestamp", "s": "STRING"}
    columns, rows = infer_partitioning(segments, ["f0", "f1"], schema)
    assert [c.type_string() for c in columns] == ["decimal(10,2)", "timestamp", "string"]
    assert rows == [
        (Decimal("1.00"), datetime.datetime(2024, 1, 15), "007"),
        (None, datetime.datetime(2024, 1, 16), "8"),
    ]
    assert infer("5", schema={"k": "bigint"})[0] == PartitionColumn("k", "bigint")
    assert infer("5", schema={"k": "double"})[1] == [5.0]
    assert infer("2024-01-15", schema={"k": "date"})[1] == [datetime.date(2024, 1, 15)]
    assert infer("2024-01-15T10:20:30.123456789", schema={"k": "timestamp"})[1] == [
        datetime.datetime(2024, 1, 15, 10, 20, 30, 123456)
    ]
    assert infer("1.25", schema={"k": "decimal(3,2)"})[1] == [Decimal("1.25")]
    assert infer("1", schema={"k": "decimal"})[0] == PartitionColumn("k", "decimal", 38, 10)


@pytest.mark.parametrize(
    ("value", "type_string"),
    [
        ("x", "int"),
        ("2147483648", "int"),
        ("1.5", "bigint"),
        ("a", "double"),
        ("1.234", "decimal(10,2)"),
        ("1000", "decimal(5,2)"),
        ("2023-02-29", "date"),
        ("2024-01-15 25:00:00", "timestamp"),
    ],
)
def test_a_value_not_of_its_forced_type_names_file_column_and_value(value: str, type_string: str) -> None:
    with pytest.raises(
        OrcError, match="^" + re.escape(f"f1: partition value '{value}' of column 'k' is not a {type_string}")
    ):
        infer("2024-01-01" if type_string in ("date", "timestamp") else "1", value, schema={"k": type_string})


def test_schema_errors() -> None:
    with pytest.raises(OrcError, match=r"\['z'\], which are not partition columns"):
        infer("1", schema={"z": "int"})
    with pytest.raises(OrcError, match="cannot be of type 'boolean'"):
        infer("1", schema={"k": "boolean"})
    with pytest.raises(OrcError, match="not a decimal type"):
        infer("1", schema={"k": "decimal(40,0)"})


# ---------------------------------------------------------------------------------------------------- Spark


# each a column's folder values as written in the folder names (escaped), in batches of one Spark read each
NUMBER_CASES = [
    ["1", "2", "-3"],
    ["2147483647", "-2147483648", "007", "+5", "-0"],
    ["1", "2147483648"],
    ["9223372036854775807", "-9223372036854775808"],
    ["9223372036854775808"],
    ["1", "99999999999999999999"],
    ["12345678901234567890123456789012345678"],
    ["123456789012345678901234567890123456789"],
    ["1e5", "1"],
    ["1.5e1", "0e5", "-1e5", "+1e+5", "5."],
    ["1.5", ".5", "1.0", "1e-400", "1e400", "-Infinity", "NaN", "0x1.8p1", "1.1f", "2D"],
    ["2147483648", "1.5"],
    ["99999999999999999999", "1.5"],
    ["1e5", "1.5"],
    ["1", NULL],
    [NULL, "1.5"],
    ["١٢٣", "１２"],
    ["١e5"],
    ["١.٥", "nan", "inf", "0x10", "1_000", "NaNd", "1e", ".", "+", "-", "1e+", "0x1p"],
]
TEMPORAL_CASES = [
    ["2024-01-15", "0999-01-01", "2024-02-29", "0001-01-01"],
    ["2024-01-15 10%3A20%3A30", "2024-01-15 10%3A20%3A30.5", "2024-01-15%2023%3A59%3A59", "2024-01-15 00:00:00.%31"],
    ["1900-01-01 00%3A00%3A00", "2024-11-03 01%3A30%3A00", "2024-01-15 10%3A20%3A30.1"],
    ["2024-01-15", "2024-01-15 10%3A20%3A30"],
    ["2024-01-15 10%3A20%3A30.25", "2024-01-15 10%3A20%3A30.123456", "2024-01-15 10%3A20%3A30."],
    ["2024-01-15T10%3A20%3A30", "2024-01-15 10%3A20", "2024-01-15 1%3A2%3A3", "2024-01-15 24%3A00%3A00"],
    ["2024-01-15 10%3A20%3A60", "2024-01-15 10%3A20%3A30Z", "2024-01-15 10%3A20%3A30+02%3A00"],
    ["2024-1-5", "2023-02-29", "2024-13-01", "999-01-01", "+2024-01-15", "10000-01-01", "2024-01-15 "],
    ["2024-01-15", "1"],
    ["2024-01-15 10%3A20%3A30", "1"],
    ["2024-01-15", "1.5"],
    ["2024-01-15", "99999999999999999999"],
    [NULL, "2024-01-15"],
    ["2024-01-15 10%3A20%3A30", NULL],
]
STRING_CASES = [
    ["1", "a"],
    ["007", "a"],
    ["New%20York", "a%2Fb", "100%25", "x%3Ay", "%C3%A9", "50%", "%zz", "a=b"],
    ["a", NULL],
    ["%+f", "%-1", "a%2", "%4a%4A"],
]


def _write_layout(root: Path, paths: list[str]) -> None:
    import pyarrow as pa
    import pyarrow.orc

    for i, relative in enumerate(paths):
        folder = root / relative
        folder.mkdir(parents=True, exist_ok=True)
        pyarrow.orc.write_table(pa.table({"x": [i]}), str(folder / "part-0.orc"))


def _spark_rows(spark: Any, root: Path) -> tuple[dict[str, str], dict[int, dict[str, Any]]]:
    """Spark's type of each partition column, and each file's row (by ``x``); timestamps as the session's wall
    clock."""
    df = spark.read.orc(str(root))
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields if f.name != "x"}
    fmt = "yyyy-MM-dd HH:mm:ss.SSSSSS"
    exprs = [f"date_format(`{n}`, '{fmt}') AS `{n}`" if t == "timestamp" else f"`{n}`" for n, t in types.items()]
    rows: dict[int, dict[str, Any]] = {}
    for row in df.selectExpr("x", *exprs).collect():
        values = row.asDict()
        for name, t in types.items():
            if t == "timestamp" and values[name] is not None:
                values[name] = datetime.datetime.strptime(values[name], "%Y-%m-%d %H:%M:%S.%f")
        rows[values.pop("x")] = values
    return types, rows


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
@pytest.mark.parametrize("cases", [NUMBER_CASES, TEMPORAL_CASES, STRING_CASES], ids=["numbers", "temporal", "strings"])
def test_inference_matches_spark(spark: Any, tmp_path: Path, cases: list[list[str]]) -> None:
    files = max(len(c) for c in cases)
    # the key of case i; escaped in the folder (c%20i) to check that names are unescaped too
    paths = ["/".join(f"c%20{i}={c[min(j, len(c) - 1)]}" for i, c in enumerate(cases)) for j in range(files)]
    _write_layout(tmp_path, paths)
    columns, rows = infer_partitioning([partition_segments(p) for p in paths], paths)
    types, spark_rows = _spark_rows(spark, tmp_path)
    assert [c.name for c in columns] == list(types) == [f"c {i}" for i in range(len(cases))]
    wrong = []
    for i, (column, case) in enumerate(zip(columns, cases, strict=True)):
        if column.type_string() != types[column.name]:
            wrong.append(f"{case}: ours {column.type_string()}, Spark {types[column.name]}")
        for j in range(files):
            ours, theirs = rows[j][i], spark_rows[j][column.name]
            if not _same(ours, theirs):
                wrong.append(f"{case} file {j}: ours {ours!r}, Spark {theirs!r}")
    assert wrong == []


def test_a_column_of_nulls_only(spark: Any, tmp_path: Path) -> None:
    """Spark types it ``void`` (and cannot then read the files as ORC); orcjit's ORC kinds have no void, so
    such a column is a string column of nulls."""
    _write_layout(tmp_path, [f"k={NULL}"])
    assert spark.read.orc(str(tmp_path)).schema["k"].dataType.simpleString() == "void"
    assert infer(NULL) == (PartitionColumn("k", "string"), [None])


@pytest.mark.parametrize(
    "paths",
    [
        ["data/a=1", "data/a=2"],
        ["a=1/data/b=2"],
        ["a=1/b=x/sub", "a=2/b=y/sub"],
        ["a=1/b=2", "a=1/c=2"],
        ["a=1/b=2", "b=2/a=1"],
        ["a=1/b=2", "a=3"],
    ],
)
def test_layouts_as_spark(spark: Any, tmp_path: Path, paths: list[str]) -> None:
    _write_layout(tmp_path, paths)
    try:
        df = spark.read.orc(str(tmp_path))
        spark_columns: list[str] | None = [f.name for f in df.schema.fields if f.name != "x"]
    except Exception as error:  # Spark's AnalysisException for conflicting partition columns
        assert "CONFLICTING_PARTITION_COLUMN_NAMES" in str(error)
        spark_columns = None
    try:
        columns, _ = infer_partitioning([partition_segments(p) for p in paths], paths)
        ours: list[str] | None = [c.name for c in columns]
    except OrcError:
        ours = None
    assert ours == spark_columns


def test_escapes_round_trip_through_os_paths(tmp_path: Path) -> None:
    """What the dataset reader will hand over: a path relative to the root, with the OS's separator turned to /."""
    folder = tmp_path / "city=New%20York" / "t=2024-01-15 10%3A20%3A30"
    folder.mkdir(parents=True)
    relative = os.path.relpath(folder, tmp_path).replace(os.sep, "/")
    assert partition_segments(relative) == [("city", "New York"), ("t", "2024-01-15 10:20:30")]
