"""``orcjit.spark.helpers``: ORC files decoded inside ``mapInPandas`` / ``mapInArrow``, and ``might_contain`` in a
``pandas_udf``, checked against Spark's own ORC reader on files Spark wrote.

Spark writes two data sets once per module: three files of several stripes with every kind of Spark column (nested
types, nulls, timestamps, decimals, NaN, intervals), and twenty one-stripe files with bloom filters on a key whose
values interleave across files (so that statistics cannot rule a file out, only bloom filters can).
"""

from __future__ import annotations

import datetime as dt
import glob
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

import orcjit
from orcjit.spark.helpers import (
    files_schema,
    might_contain,
    read_files,
    read_files_arrow,
    stripe_units,
)

# every kind of column spark.read.orc gives; timestamps at noon local time, away from the hour a DST change
# repeats (which orcjit's wall clocks cannot place) and after 1582 (Spark reads ORC in the hybrid calendar)
MIXED_SQL = """
select id,
  cast(case when id % 7 = 0 then null else id * 3 end as int) i,
  cast(id % 100 as tinyint) ti,
  cast(id % 1000 as smallint) si,
  case when id % 3 = 0 then null else 9223372036854775807 - id end big,
  case when id % 3 = 0 then null else concat('s', id % 50) end s,
  case when id % 4 = 0 then null
       else timestamp'1950-03-14 12:00:00'
            + make_interval(0, 0, 0, cast(id as int), 0, 0, (id % 997) / 1000.0 + 0.000001)
  end ts,
  timestamp_ntz'2021-03-14 02:30:00' + make_interval(0, 0, 0, 0, cast(id as int), 0, 0) tsn,
  case when id % 5 = 0 then null else cast(id / 7 as decimal(12, 3)) end d,
  cast(id * 1234567.891 as decimal(38, 10)) d38,
  case when id % 2 = 0 then null else date'1970-01-01' + cast(id as int) end dt,
  case when id % 3 = 1 then null else cast(concat('b', id) as binary) end b,
  case when id % 11 = 0 then null when id % 3 = 0 then cast('NaN' as double) else id / 3 end f,
  cast(id / 9 as float) r,
  case when id % 3 = 2 then null else id % 2 = 0 end bo,
  case when id % 6 = 1 then null when id % 6 = 2 then array() else array(cast(id as int), null, 7) end a,
  case when id % 5 = 1 then null
       else map(concat('k', id % 3), named_struct('x', cast(id as int),
                't', timestamp'2020-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id)))
  end m,
  case when id % 9 = 1 then null
       else named_struct('x', id, 'y', case when id % 2 = 0 then null else concat('y', id) end,
                         'z', array(cast(id as double), null), 'w', date'2000-01-01' + cast(id % 1000 as int),
                         'u', named_struct('v', cast(id as decimal(10, 2))))
  end st,
  make_dt_interval(0, 0, 0, id) iv,
  array(cast(id as double), cast('NaN' as double)) zn
from range(0, 4500, 1, 3)
"""
# zn holds NaN inside an array, which pandas cannot carry into Spark (it becomes null): read_files_arrow only
PANDAS_COLUMNS = [
    "st",
    "id",
    "i",
    "ti",
    "si",
    "big",
    "s",
    "ts",
    "tsn",
    "d",
    "d38",
    "dt",
    "b",
    "f",
    "r",
    "bo",
    "a",
    "m",
    "iv",
]
MIXED_ROWS = 4500
NFILES_KEYED = 20
ROWS_PER_KEYED_FILE = 300


def _write(df: DataFrame, path: Path, **options: str) -> list[str]:
    writer = df.write
    for key, value in options.items():
        writer = writer.option(key, value)
    writer.orc(str(path), compression="zlib")
    return sorted(glob.glob(str(path / "*.orc")))


@pytest.fixture(scope="module")
def mixed(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Three Spark-written files of 1500 rows, two stripes each (Spark's writer cuts stripes at its 1024-row
    batches once a stripe passes orc.stripe.size)."""
    folder = tmp_path_factory.mktemp("mixed") / "data"
    files = _write(
        spark.sql(MIXED_SQL),
        folder,
        **{"orc.stripe.size": "16384", "orc.row.index.stride": "1000", "orc.rows.between.memory.checks": "1000"},
    )
    return folder, files


def test_stripe_units_cover_every_row(mixed: tuple[Path, list[str]]) -> None:
    folder, files = mixed
    units = stripe_units(folder)
    assert list(units.columns) == ["path", "stripe", "rows", "bytes"]
    assert sorted(set(units["path"])) == files
    assert int(units["rows"].sum()) == sum(orcjit.ORCFile(p).nrows for p in files) == MIXED_ROWS
    for path in files:
        with orcjit.ORCFile(path) as f:
            mine = units[units["path"] == path]
            assert mine["stripe"].tolist() == list(range(f.nstripes))
            assert mine["rows"].tolist() == [s.rows for s in f.stripes]
            assert f.nstripes >= 2
            assert int(mine["bytes"].sum()) < f.file_size
            assert (mine["bytes"] > 0).all()
    # the same units from a list of files, a glob, and file: URLs
    assert stripe_units(files).equals(units)
    assert stripe_units(str(folder / "*.orc")).equals(units)
    assert int(stripe_units([f"file://{p}" for p in files])["rows"].sum()) == MIXED_ROWS


def test_read_files_equal_spark_read_orc(spark: SparkSession, mixed: tuple[Path, list[str]]) -> None:
    folder, files = mixed
    reference = spark.read.orc(str(folder))
    units = spark.createDataFrame(stripe_units(folder))
    schema = files_schema(folder, PANDAS_COLUMNS)
    full = files_schema(files[0])
    assert schema == reference.select(PANDAS_COLUMNS).schema
    assert full == reference.schema

    # one row per file (as file: URLs, as Spark shows paths)
    paths = spark.createDataFrame(pd.DataFrame({"path": [f"file://{p}" for p in files]}))
    by_file = paths.mapInPandas(read_files(PANDAS_COLUMNS, schema=schema), schema=schema)
    # one row per stripe (the units are sliced over the session's tasks, the stripes of a file apart)
    by_stripe = units.mapInPandas(read_files(PANDAS_COLUMNS, batch_rows=700), schema=schema)
    # mapInArrow: every column, NaN inside arrays included
    arrow = units.mapInArrow(read_files_arrow(), schema=full)

    # one Spark job for all: each row as JSON (microsecond timestamps), compared as sorted strings
    parts = [
        ("spark", reference, PANDAS_COLUMNS),
        ("spark full", reference, full.fieldNames()),
        ("by_file", by_file, PANDAS_COLUMNS),
        ("by_stripe", by_stripe, PANDAS_COLUMNS),
        ("arrow", arrow, full.fieldNames()),
    ]
    got = _collect_json(parts)
    assert len(got["spark"]) == MIXED_ROWS
    assert got["by_file"] == got["spark"]
    assert got["by_stripe"] == got["spark"]
    assert got["arrow"] == got["spark full"]
    assert sum('"zn":[' in row and 'NaN"]' in row for row in got["arrow"]) == MIXED_ROWS


JSON_OPTIONS = {
    "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
    "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
}


def _collect_json(parts: list[tuple[str, DataFrame, list[str]]]) -> dict[str, list[str]]:
    """Rows of each ``(tag, DataFrame, columns)`` as sorted JSON strings, with one Spark job for all (collecting
    nested rows into Python and comparing them there costs more than the reads)."""
    union: DataFrame | None = None
    for tag, df, columns in parts:
        row = F.to_json(F.struct(*columns), JSON_OPTIONS).alias("row")
        df = df.select(F.lit(tag).alias("tag"), row)
        union = df if union is None else union.unionByName(df)
    assert union is not None
    out: dict[str, list[str]] = {tag: [] for tag, _, _ in parts}
    for r in union.collect():
        out[r["tag"]].append(r["row"])
    return {tag: sorted(rows) for tag, rows in out.items()}


def test_read_files_yields_one_stripe_at_a_time(spark: SparkSession, mixed: tuple[Path, list[str]]) -> None:
    # called here, outside Spark's workers (read_files takes the time zone from the active session)
    _, files = mixed
    path = files[1]
    with orcjit.ORCFile(path) as f:
        stripes = f.stripes
        second = f.read_stripe(1, ["id"])["id"].tolist()
    read = read_files(["id", "ts", "d", "dt", "f", "a", "m", "st"], batch_rows=400)
    frames = list(read(iter([pd.DataFrame({"path": [path]})])))
    assert [len(x) for x in frames] == [n for s in stripes for n in [400] * (s.rows // 400) + [s.rows % 400] if n]
    assert sum(len(x) for x in frames) == sum(s.rows for s in stripes)
    frame = frames[0]
    # the dtypes Spark's pandas-to-Arrow conversion takes exactly
    assert str(frame["ts"].dtype) == "datetime64[us, UTC]"
    assert isinstance(frame["id"].dtype, pd.ArrowDtype)
    assert isinstance(frame["d"].dtype, pd.ArrowDtype) and isinstance(frame["dt"].dtype, pd.ArrowDtype)
    assert frame["f"].isna().sum() > 0 and frame["f"].astype("float64").isna().sum() > frame["f"].isna().sum()
    row0, row1 = frame.iloc[0], frame.iloc[1]  # ids 1500 (every nested value set) and 1501 (null map, array)
    assert isinstance(row0["m"], dict) and isinstance(row0["st"], dict) and isinstance(row0["a"], list)
    assert row1["m"] is None and row1["a"] is None

    # path/stripe rows: only those stripes, in the order asked; a null stripe means the whole file
    units = pd.DataFrame({"path": [path, path], "stripe": [1, None]})
    got = list(read_files(["id"])(iter([units.iloc[:1], units.iloc[1:]])))
    ids = [v for x in got for v in x["id"].tolist()]
    assert ids[: len(second)] == second
    assert len(ids) == len(second) + sum(s.rows for s in stripes)

    with pytest.raises(orcjit.OrcError, match="'path' column"):
        list(read(iter([pd.DataFrame({"file": [path]})])))
    with pytest.raises(orcjit.OrcError, match="declared"):
        list(read_files(["id"], schema=files_schema(path, ["s"]))(iter([pd.DataFrame({"path": [path]})])))


FILTERS = {
    "disjunction-with-nulls": (
        [[("i", ">=", 9000), ("s", "!=", "s7")], [("ts", "is null"), ("bo", "==", True)]],
        "(i >= 9000 and s != 's7') or (ts is null and bo = true)",
        PANDAS_COLUMNS,
        False,
    ),
    "decimal-date-in-other-columns": (
        [("d", "<", Decimal("300")), ("dt", ">=", dt.date(1970, 3, 1)), ("si", "in", [101, 203, 305, 999, 1501])],
        "d < 300 and dt >= date'1970-03-01' and si in (101, 203, 305, 999, 1501)",
        ["id", "s", "m"],
        True,
    ),
}


def test_filters_give_the_rows_spark_filter_gives(spark: SparkSession, mixed: tuple[Path, list[str]]) -> None:
    folder, files = mixed
    by_file = spark.createDataFrame(pd.DataFrame({"path": files}))
    by_stripe = spark.createDataFrame(stripe_units(files)).repartition(4)
    parts = []
    for name, (orcjit_filters, condition, columns, stripes) in FILTERS.items():
        source = by_stripe if stripes else by_file
        got = source.mapInPandas(read_files(columns, filters=orcjit_filters), schema=files_schema(files[0], columns))
        want = spark.read.orc(str(folder)).where(condition).select(columns)
        parts += [(f"spark {name}", want, columns), (f"orcjit {name}", got, columns)]
    collected = _collect_json(parts)
    for name in FILTERS:
        assert 0 < len(collected[f"spark {name}"]) < MIXED_ROWS, name
        assert collected[f"orcjit {name}"] == collected[f"spark {name}"], name


@pytest.fixture(scope="module")
def keyed(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Twenty files; file p holds the keys p, p + 20, p + 40, ... up to 6000, so every file's key range spans
    nearly all keys and only bloom filters (on ``key`` and ``skey``) can rule a file out."""
    n = NFILES_KEYED * ROWS_PER_KEYED_FILE
    key = f"(id % {ROWS_PER_KEYED_FILE}) * {NFILES_KEYED} + cast(id / {ROWS_PER_KEYED_FILE} as int)"
    df = spark.range(0, n, 1, NFILES_KEYED).selectExpr("id", f"{key} as key", f"concat('k', {key}) as skey")
    folder = tmp_path_factory.mktemp("keyed") / "data"
    files = _write(df, folder, **{"orc.bloom.filter.columns": "key,skey", "orc.bloom.filter.fpp": "0.01"})
    assert len(files) == NFILES_KEYED
    return files


def _may_hold_udf(column: str, value: Any) -> Any:
    def may_hold(paths: pd.Series) -> pd.Series:
        return might_contain(paths, column, value, max_workers=4)

    return pandas_udf(may_hold, "boolean")


def test_might_contain_in_a_pandas_udf(spark: SparkSession, keyed: list[str]) -> None:
    probes: list[tuple[str, Any]] = [
        ("key", 2001),
        ("key", 2222),
        ("key", 3003),
        ("key", 4444),
        ("key", 5005),
        ("key", 777),
        ("skey", "k3030"),
        ("skey", "k1919"),
        ("key", 10**9),  # beyond every file's maximum: statistics rule it out everywhere
    ]
    paths = spark.createDataFrame(pd.DataFrame({"path": keyed})).repartition(2)
    answers = paths.select(
        "path", *[_may_hold_udf(c, v)("path").alias(f"p{i}") for i, (c, v) in enumerate(probes)]
    ).collect()
    by_path = {r["path"]: [r[f"p{i}"] for i in range(len(probes))] for r in answers}
    assert sorted(by_path) == keyed

    holds = {path: orcjit.read_orc(path, columns=["key", "skey"]) for path in keyed}
    ruled_out = negatives = by_bloom = 0
    for i, (column, value) in enumerate(probes):
        holders = [p for p in keyed if (holds[p][column] == value).any()]
        assert len(holders) == (0 if value == 10**9 else 1)
        for path in keyed:
            answer = by_path[path][i]
            with orcjit.ORCFile(path) as f:
                explanation = f.explain([(column, "==", value)])
            assert answer == any(s.keep for s in explanation.stripes)  # what explain says
            if path in holders:
                assert answer is True  # never a false negative
            elif value != 10**9:
                negatives += 1
                ruled_out += not answer
                stripes = explanation.to_dict()["stripes"]
                by_bloom += any(s.get("row_groups_skipped_by_bloom_filter", 0) for s in stripes)
        if value == 10**9:
            assert not any(by_path[p][i] for p in keyed)
    assert negatives == 8 * (NFILES_KEYED - 1)
    # bloom filters at fpp 0.01 let about 1 in 100 through; statistics alone would rule out almost none
    assert ruled_out >= 0.9 * negatives
    assert by_bloom >= 0.85 * negatives


def test_might_contain_outside_spark(keyed: list[str]) -> None:
    paths = pd.Series([keyed[3], None, keyed[4], keyed[3]], index=[10, 11, 12, 13])
    got = might_contain(paths, "key", 3 + 20 * 7)  # key 143 sits in file 3 only
    assert got.dtype == "boolean"
    assert got.index.tolist() == [10, 11, 12, 13]
    assert got[10] and got[13] and got.isna()[11]
    assert got[12] == any(s.keep for s in orcjit.ORCFile(keyed[4]).explain([("key", "==", 143)]).stripes)
    with pytest.raises(orcjit.OrcError, match="nope"):
        might_contain(pd.Series([keyed[0]]), "nope", 1)
