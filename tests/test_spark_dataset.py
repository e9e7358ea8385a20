"""Hive-partitioned directories Spark writes (``df.write.partitionBy(...).orc(path)``) through the ``orcjit`` data
source and the ``mapInPandas`` helpers: the partition columns typed and valued as ``spark.read.orc`` gives them
(null for ``__HIVE_DEFAULT_PARTITION__``), filters on them and on stored columns giving ``spark.read.orc``'s rows,
and partition filters skipping files unopened (counted in-process, where planning runs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql.types import LongType, StructField, StructType

import orcjit.spark
import orcjit.spark.datasource as datasource
from orcjit.spark.datasource import OrcjitDataSource, OrcjitPushdownReader
from orcjit.spark.helpers import files_schema, read_files, read_files_arrow, stripe_units

from .spark_support import needs_pushdown, pushdown_taken

# year: int; city: string with a null partition; day: date; big: bigint (past 32 bits, so the stub agrees)
TYPED_SQL = """
SELECT id, CONCAT('s', id) AS s, CAST(2020 + id % 3 AS INT) AS year,
       IF(id % 4 = 0, NULL, CONCAT('c', id % 4)) AS city,
       DATE_ADD(DATE'2024-01-01', CAST(id % 2 AS INT)) AS day
FROM range(120)
"""
PLAIN_SQL = """
SELECT id, CONCAT('s', id) AS s, IF(id % 3 = 0, NULL, CONCAT('c', id % 3)) AS city,
       10000000000 + id % 2 AS big
FROM range(90)
"""


def _rows(df: Any) -> list[Any]:
    return sorted(df.collect(), key=lambda row: row["id"])


@pytest.fixture(scope="module")
def session(spark: Any) -> Iterator[Any]:
    """The session with pushdown on and ``orcjit`` taking filters (a fresh DataFrame per query, see
    :func:`tests.spark_support.register_trusting`)."""
    with pushdown_taken(spark):
        yield spark


@pytest.fixture(scope="module")
def typed(session: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("typed") / "t"
    session.sql(TYPED_SQL).write.partitionBy("year", "city", "day").orc(str(path))
    return path


@pytest.fixture(scope="module")
def plain(session: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plain") / "p"
    session.sql(PLAIN_SQL).write.partitionBy("city", "big").orc(str(path))
    return path


def _load(spark: Any, path: Path) -> Any:
    return spark.read.format("orcjit").load(str(path))


def test_partition_columns_as_spark_reads_them(session: Any, plain: Path) -> None:
    ours, theirs = _load(session, plain), session.read.orc(str(plain))
    assert (
        ours.schema.simpleString()
        == theirs.schema.simpleString()
        == "struct<id:bigint,s:string,city:string,big:bigint>"
    )
    assert _rows(ours) == _rows(theirs)
    assert any(row["city"] is None for row in _rows(ours))  # __HIVE_DEFAULT_PARTITION__


def test_int_string_date_partitions_as_spark_reads_them(session: Any, typed: Path) -> None:
    ours, theirs = _load(session, typed), session.read.orc(str(typed))
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert ours.schema.simpleString() == "struct<id:bigint,s:string,year:int,city:string,day:date>"
    assert _rows(ours) == _rows(theirs)
    only = session.read.format("orcjit").option("columns", "day,id,year").load(str(typed))
    assert _rows(only) == _rows(theirs.select("day", "id", "year"))


@needs_pushdown
@pytest.mark.parametrize(
    "condition",
    [
        "year = 2021",
        "city IS NULL",
        "city = 'c1' AND day = DATE'2024-01-02'",
        "year >= 2021 AND id % 5 = 0",
        "city IN ('c2', 'c3') OR id < 10",
        "year = 2022 AND s = 's5'",
        "year = 1999",
    ],
)
def test_filters_give_spark_read_orc_rows(session: Any, typed: Path, condition: str) -> None:
    ours = _load(session, typed).where(condition)
    assert _rows(ours) == _rows(session.read.orc(str(typed)).where(condition))


@needs_pushdown
def test_filters_on_plain_partitions(session: Any, plain: Path) -> None:
    for condition in ["big = 10000000001", "city IS NOT NULL AND big = 10000000000", "city = 'c2' AND id > 40"]:
        assert _rows(_load(session, plain).where(condition)) == _rows(session.read.orc(str(plain)).where(condition))


def _planned(path: Path, filters: list[Any], monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], set[str]]:
    """The files the planning of ``filters`` opens, and those its partitions read (in this process, as Spark's
    planning worker runs it)."""
    source = OrcjitDataSource({"path": str(path)})
    schema = source.schema()
    found = source._found()
    reader = OrcjitPushdownReader(
        found.paths, schema, partition_columns=found.partitions, partition_values=found.values, partitions=64
    )
    assert list(reader.pushFilters(filters)) == []  # all taken
    opened: set[str] = set()
    real = datasource.ORCFile

    def spy(file: str, *args: Any, **kwargs: Any) -> Any:
        opened.add(file)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(datasource, "ORCFile", spy)
    read = {p for part in reader.partitions() for p, _ in part.pieces}  # type: ignore[attr-defined]
    return opened, read


@needs_pushdown
def test_partition_filters_skip_files_unopened(plain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyspark.sql.datasource import EqualTo, IsNull

    files = orcjit.spark.resolve_paths(str(plain))
    ones = {f for f in files if "big=10000000001" in f}
    opened, read = _planned(plain, [EqualTo(("big",), 10000000001)], monkeypatch)
    assert 0 < len(ones) < len(files)
    assert opened == read == ones
    nulls = {f for f in files if "__HIVE_DEFAULT_PARTITION__" in f}
    opened, read = _planned(plain, [IsNull(("city",))], monkeypatch)
    assert opened == read == nulls
    opened, read = _planned(plain, [EqualTo(("city",), "nowhere")], monkeypatch)
    assert opened == read == set()


def test_default_takes_every_file_not_only_orc(session: Any, tmp_path: Path) -> None:
    """Hive's files have no extension: spark.read.orc reads them, and so does orcjit; pathGlobFilter narrows."""
    session.range(5).coalesce(1).write.orc(str(tmp_path / "h"))
    (orc,) = (tmp_path / "h").glob("*.orc")
    orc.rename(tmp_path / "h" / "000000_0")
    assert _rows(_load(session, tmp_path / "h")) == _rows(session.read.orc(str(tmp_path / "h")))
    session.range(5, 8).coalesce(1).write.mode("append").orc(str(tmp_path / "h"))
    narrowed = session.read.format("orcjit").option("pathGlobFilter", "*.orc").load(str(tmp_path / "h"))
    assert [r["id"] for r in _rows(narrowed)] == [5, 6, 7]


def test_helpers_on_a_partitioned_directory(session: Any, typed: Path) -> None:
    units = stripe_units(typed)
    assert list(units.columns) == ["path", "stripe", "rows", "bytes", "year", "city", "day"]
    assert units["city"].isna().any()
    schema = files_schema(typed)
    theirs = session.read.orc(str(typed))
    assert schema.simpleString() == theirs.schema.simpleString()
    frame = session.createDataFrame(units)
    assert _rows(frame.mapInPandas(read_files(schema=schema), schema)) == _rows(theirs)
    # without schema=, a partition value keeps its Python type: year is an integer, so bigint (a null partition
    # has no type at all: PySpark 4.0 then refuses batches of two types, so city is left out here)
    loose = StructType([StructField("id", LongType()), StructField("year", LongType())])
    assert _rows(frame.mapInPandas(read_files(["id", "year"]), loose)) == _rows(theirs.select("id", "year"))
    assert _rows(frame.mapInArrow(read_files_arrow(schema=schema), schema)) == _rows(theirs)
    picked = files_schema(typed, ["id", "year"])
    assert picked.simpleString() == "struct<id:bigint,year:int>"
    narrowed = frame.where("year = 2021").mapInPandas(read_files(["id", "year"], schema=picked), picked)
    assert _rows(narrowed) == _rows(theirs.where("year = 2021").select("id", "year"))
