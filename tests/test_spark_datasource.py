"""The ``orcjit`` Spark data source against Spark's own ORC reader, on files Spark and pyarrow write.

One Spark session for the whole run (the ``spark`` fixture: JVM and session in America/Los_Angeles). Files are
written once per module where possible; each test runs few Spark jobs.
"""

from __future__ import annotations

import datetime as dt
import inspect
import logging
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest
from pyspark.sql.datasource import InputPartition
from pyspark.sql.pandas.types import to_arrow_schema

import orcjit
import orcjit.spark
from orcjit.spark.datasource import (
    REUSED_READ_MESSAGE,
    OrcjitDataSource,
    OrcjitPartition,
    OrcjitPushdownReader,
    OrcjitReader,
    plan_partitions,
    reuses_planned_reads,
)
from orcjit.spark.types import arrow_schema, convert_array, spark_schema
from orcjit.types.resolve import top_level_fields

from .factory import all_types_table, write_pyarrow, write_pyorc
from .spark_support import PUSHDOWN, can_push, needs_pushdown, register_trusting

ZONE = "America/Los_Angeles"
N = 240  # rows of the small dataset
COMPRESSIONS = ["zstd", "snappy", "zlib", "lz4", "none"]
ORC_NAMES = {"zstd": "ZSTD", "snappy": "SNAPPY", "zlib": "ZLIB", "lz4": "LZ4", "none": "NONE"}

# Every column is null in some rows (`id` too, in one). Timestamps avoid 01:00-02:59 local time, where a daylight
# saving change repeats or skips an hour (see orcjit.spark.types); they start in 1950, after every zone's local
# mean time.
DATASET_SQL = f"""
SELECT
  IF(id = 7, NULL, id) AS id,
  IF(id % 7 = 3, NULL, id % 2 = 0) AS flag,
  IF(id % 11 = 1, NULL, CAST(id % 128 - 64 AS TINYINT)) AS i8,
  IF(id % 11 = 2, NULL, CAST(id * 131 % 65536 - 32768 AS SMALLINT)) AS i16,
  IF(id % 11 = 3, NULL, CAST(id * 7919 - 900000 AS INT)) AS i32,
  IF(id % 11 = 4, NULL, id * 1000000007 * IF(id % 2 = 0, 1, -1)) AS i64,
  IF(id % 11 = 5, NULL, CAST(id / 7 AS FLOAT)) AS f32,
  IF(id % 11 = 6, NULL, id * 1.5e100 * IF(id % 3 = 0, -1, 1)) AS f64,
  IF(id % 11 = 7, NULL, CAST(id * 12.34 - 1000 AS DECIMAL(10, 2))) AS d10,
  IF(id % 11 = 8, NULL, CAST(CONCAT(IF(id % 2 = 0, '-', ''), REPEAT('9', 31), '.', LPAD(id, 6, '0'))
                           AS DECIMAL(38, 6))) AS d38,
  IF(id % 13 = 1, NULL, CASE id % 4 WHEN 0 THEN '' WHEN 1 THEN 'ünïcödé ✓' ELSE CONCAT('s', id) END) AS s,
  IF(id % 13 = 2, NULL, CAST(CONCAT('b', id) AS BINARY)) AS bin,
  IF(id % 13 = 3, NULL, DATE_ADD(DATE'1950-01-01', CAST(id * 331 AS INT))) AS d,
  IF(id % 13 = 4, NULL, MAKE_TIMESTAMP(1950 + id % 90, 1 + id % 12, 1 + id % 28, 3 + id % 20, id % 60,
                                       CAST(id % 60 + (id * 7919 % 1000000) / 1e6 AS DECIMAL(8, 6)))) AS ts,
  IF(id % 13 = 5, NULL, CAST(MAKE_TIMESTAMP(2000 + id % 30, 1 + id % 12, 1 + id % 28, id % 24, 30, 1.5)
                             AS TIMESTAMP_NTZ)) AS ntz,
  IF(id % 13 = 6, NULL, IF(id % 5 = 0, ARRAY(), ARRAY(CAST(id AS INT), NULL, CAST(id + 1 AS INT)))) AS arr,
  IF(id % 13 = 7, NULL, MAP(CONCAT('k', id), id * 0.5, 'z', IF(id % 2 = 0, NULL, -1.0D))) AS m,
  IF(id % 13 = 8, NULL, NAMED_STRUCT(
      'x', IF(id % 4 = 0, NULL, CAST(id AS INT)),
      'y', CAST(id AS STRING),
      'z', ARRAY(MAKE_TIMESTAMP(2020, 1 + id % 12, 15, 12, 0, 0.25)))) AS st
FROM range({N})
"""


def _sorted_rows(df: Any) -> list[Any]:
    # rows with equal ids are equal rows, so this order makes equal multisets equal lists
    return sorted(df.collect(), key=lambda row: (row["id"] is None, row["id"] if row["id"] is not None else 0))


def _orc_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.orc"))


def _has_filter(df: Any) -> bool:
    """Whether Spark filters the rows itself (a Filter node in the physical plan)."""
    return re.search(r"\bFilter\b", df._jdf.queryExecution().executedPlan().toString()) is not None


@pytest.fixture(scope="module")
def registered(spark: Any) -> Any:
    """The session with ``orcjit`` registered and filter pushdown off (Spark's default)."""
    spark.conf.set(PUSHDOWN, "false")
    orcjit.spark.register(spark)
    return spark


@pytest.fixture(scope="module")
def dataset(registered: Any) -> Any:
    return registered.sql(DATASET_SQL)


@pytest.fixture(scope="module")
def written(registered: Any, dataset: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset written by Spark once per codec, two files each, with bloom filters on some columns:
    ``<root>/<codec>/part-*.orc``."""
    root = tmp_path_factory.mktemp("spark")
    frame = dataset.repartition(2).cache()
    for codec in COMPRESSIONS:
        frame.write.option("orc.bloom.filter.columns", "id,s,d").orc(str(root / codec), compression=codec)
    frame.unpersist()
    return root


@pytest.fixture(scope="module")
def striped(registered: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three files of 4096 sorted rows each, in stripes of about 1024 rows (ORC checks the size every batch)."""
    folder = tmp_path_factory.mktemp("striped") / "data"
    df = registered.range(0, 3 * 4096, numPartitions=3).selectExpr("id", "CONCAT('v', id * 7) AS s", "id * 0.5 AS x")
    # ORC checks the stripe size every 1024 rows (ORC 2.1, in Spark 4.0, every 5000 unless told)
    writer = df.write.option("orc.stripe.size", "4096").option("orc.rows.between.memory.checks", "1024")
    writer.option("orc.bloom.filter.columns", "id").orc(str(folder))
    return folder


# -- types ------------------------------------------------------------------------------------------------------------


def _zoned_arrow_schemas() -> bool:
    """Whether PySpark's ``to_arrow_schema`` takes a zone (4.1+); 4.0 has timestamps in UTC only."""
    return "timezone" in inspect.signature(to_arrow_schema).parameters


def _sparks_arrow_schema(schema: Any, zone: str) -> pa.Schema:
    """The Arrow schema Spark checks a data source's batches against, with timestamps in ``zone``."""
    if _zoned_arrow_schemas():
        return to_arrow_schema(schema, timezone=zone)
    assert zone == "UTC"
    return to_arrow_schema(schema)


def test_arrow_schema_is_sparks_own(written: Path, dataset: Any) -> None:
    """The Arrow schema orcjit yields is exactly the one Spark checks batches against, nested types included."""
    path = _orc_files(written / "zstd")[0]
    with orcjit.ORCFile(path) as f:
        schema = spark_schema(f.schema)
        assert schema.simpleString() == dataset.schema.simpleString()
        for zone in ("UTC", ZONE) if _zoned_arrow_schemas() else ("UTC",):
            assert arrow_schema(schema, zone).equals(_sparks_arrow_schema(schema, zone))
        assert spark_schema(f.schema, ["st", "id"]).fieldNames() == ["st", "id"]
        with pytest.raises(orcjit.OrcError, match="no column 'nope' in the file"):
            spark_schema(f.schema, ["id", "nope"])


def test_union_char_varchar_types(tmp_path: Path, registered: Any) -> None:
    """Unions become struct<tag, field0, ...>; char/varchar are strings with Spark's char/varchar metadata, as
    spark.read.orc gives them (which cannot read unions at all)."""
    plain = write_pyorc(tmp_path / "cv.orc", "struct<c:char(5),v:varchar(4),n:int>", [("ab", "cd", 1), (None, None, 2)])
    union = write_pyorc(tmp_path / "u.orc", "struct<u:uniontype<int,string>>", [(5,), ("x",), (-1,)])

    ours, theirs = registered.read.format("orcjit").load(str(plain)), registered.read.orc(str(plain))
    assert ours.schema == theirs.schema
    assert [f.metadata for f in ours.schema.fields][:2] == [
        {"__CHAR_VARCHAR_TYPE_STRING": "char(5)"},
        {"__CHAR_VARCHAR_TYPE_STRING": "varchar(4)"},
    ]
    rows = sorted(ours.collect(), key=lambda r: r.n)
    assert rows == sorted(theirs.collect(), key=lambda r: r.n)
    assert rows[0].c == "ab   "  # stored padded, read as stored

    df = registered.read.format("orcjit").load(str(union))
    assert df.schema.simpleString() == "struct<u:struct<tag:int,field0:int,field1:string>>"
    assert [tuple(r.u) for r in df.collect()] == [(0, 5, None), (1, None, "x"), (0, -1, None)]


def test_conversion_of_sliced_arrays(tmp_path: Path) -> None:
    """Batches that are slices of larger arrays (offsets into shared children) convert as the whole does."""
    path = write_pyarrow(tmp_path / "all.orc", all_types_table(300))
    with orcjit.ORCFile(path) as f:
        table = f.read_arrow()
        fields = top_level_fields(f.schema)
    target = arrow_schema(spark_schema(f.schema))
    for (name, node), field in zip(fields, target, strict=True):
        column = table.column(name).combine_chunks()
        whole = convert_array(column, node, field.type, "GMT", ZONE)
        assert whole.type == field.type
        for start, length in [(0, 3), (37, 50), (290, 10)]:
            part = convert_array(column.slice(start, length), node, field.type, "GMT", ZONE)
            part.validate(full=True)
            assert part.to_pylist() == whole.slice(start, length).to_pylist(), name


# -- Spark-written files ----------------------------------------------------------------------------------------------


def test_spark_written_files(written: Path, registered: Any, dataset: Any) -> None:
    """Files Spark writes with every codec read as spark.read.orc reads them: same schema, same rows."""
    folders = [str(written / codec) for codec in COMPRESSIONS]
    for codec in COMPRESSIONS:
        files = _orc_files(written / codec)
        assert len(files) == 2
        for path in files:
            with orcjit.ORCFile(path) as f:
                assert f.compression == ORC_NAMES[codec]
                assert f.schema["ntz"].kind == "bigint"  # Spark's timestamp_ntz: microseconds, marked by an attribute

    ours = registered.read.format("orcjit").load(folders)
    theirs = registered.read.orc(folders)
    assert ours.schema == theirs.schema
    assert ours.schema.simpleString() == dataset.schema.simpleString()
    rows = _sorted_rows(ours)
    assert len(rows) == N * len(COMPRESSIONS)
    assert rows == _sorted_rows(theirs)
    assert all(any(row[name] is None for row in rows) for name in ours.columns)  # nulls in every column


def test_glob_and_several_paths(written: Path, registered: Any) -> None:
    """A glob over directories, and a list of files and directories, read what spark.read.orc reads."""
    pattern = str(written / "z*")  # zlib and zstd
    ours = _sorted_rows(registered.read.format("orcjit").load(pattern))
    assert len(ours) == 2 * N
    assert ours == _sorted_rows(registered.read.orc(pattern))

    one_file = _orc_files(written / "lz4")[0]
    paths = [str(one_file), str(written / "snappy"), str(written / "none" / "part-*.orc")]
    with orcjit.ORCFile(one_file) as f:
        expected = f.nrows + 2 * N
    assert registered.read.format("orcjit").load(paths).count() == expected


def test_columns_option(written: Path, registered: Any) -> None:
    path = str(written / "snappy")
    df = registered.read.format("orcjit").option("columns", " st, id ,ts").load(path)
    assert df.columns == ["st", "id", "ts"]
    want = registered.read.orc(path).select("st", "id", "ts")
    assert df.schema == want.schema
    assert _sorted_rows(df) == _sorted_rows(want)
    with pytest.raises(Exception, match="no column 'nope' in the file"):
        registered.read.format("orcjit").option("columns", "id,nope").load(path).schema  # noqa: B018


# -- pyarrow-written files --------------------------------------------------------------------------------------------


def test_pyarrow_timestamps(tmp_path: Path, registered: Any) -> None:
    """ORC ``timestamp`` (wall clocks, read by Spark in the JVM's zone) and ``timestamp with local time zone``
    (instants) from pyarrow, whose writer zone is GMT: the values Spark gives, DST gaps and repeats included."""
    walls = [
        dt.datetime(2024, 3, 10, 2, 30, 0, 123456),  # skipped by the spring change in Los Angeles
        dt.datetime(2024, 11, 3, 1, 30),  # repeated by the autumn change
        dt.datetime(2024, 11, 3, 0, 59, 59, 999999),
        dt.datetime(2024, 11, 3, 2, 0),
        dt.datetime(1969, 12, 31, 23, 59, 58),  # before the epoch: whole seconds (ORC C++ writes fractions oddly)
        dt.datetime(1900, 1, 1),
        dt.datetime(2100, 7, 1, 1, 2, 3),
        dt.datetime(1970, 1, 1, 0, 0, 0, 1),
        dt.datetime(2262, 1, 1),
        None,
    ]
    epoch = dt.datetime(1970, 1, 1)
    nanos = [None if w is None else (w - epoch) // dt.timedelta(microseconds=1) * 1000 for w in walls]
    nanos = [None if v is None else v + (789 if v > 0 else 0) for v in nanos]  # sub-microsecond parts are floored
    table = pa.table(
        {
            "k": pa.array(range(len(walls)), pa.int32()),
            "ts": pa.array(nanos, pa.timestamp("ns")),
            "inst": pa.array(nanos, pa.timestamp("ns", tz="UTC")),
        }
    )
    path = tmp_path / "ts.orc"
    pa_orc.write_table(table, path)
    with orcjit.ORCFile(path) as f:
        assert [n.kind for n in f.schema.children] == ["int", "timestamp", "timestamp with local time zone"]

    ours = registered.read.format("orcjit").load(str(path))
    assert [f.dataType.simpleString() for f in ours.schema.fields] == ["int", "timestamp", "timestamp"]
    got = ours.toArrow()
    if tuple(int(x) for x in registered.version.split(".")[:2]) >= (4, 1):
        theirs = registered.read.orc(str(path))
        assert ours.schema == theirs.schema
        assert got.sort_by("k").equals(theirs.toArrow().sort_by("k"))
    else:
        # Spark 4.0's ORC reader cannot parse the type name "timestamp with local time zone": it reads the wall
        # clocks from a copy without the instants, and the instants are checked against what was written
        walls_only = tmp_path / "walls.orc"
        pa_orc.write_table(table.select(["k", "ts"]), walls_only)
        theirs = registered.read.orc(str(walls_only))
        assert got.select(["k", "ts"]).sort_by("k").equals(theirs.toArrow().sort_by("k"))
        utc_epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        instants = [None if v is None else utc_epoch + dt.timedelta(microseconds=v // 1000) for v in nanos]
        assert got.sort_by("k").column("inst").to_pylist() == instants
    # a wall clock is not an instant: midnight in Los Angeles in winter is 08:00 UTC
    assert got.column("ts")[5].as_py() == dt.datetime(1900, 1, 1, 8, 0, tzinfo=dt.UTC)
    assert got.column("inst")[5].as_py() == dt.datetime(1900, 1, 1, tzinfo=dt.UTC)

    # the timeZone option: wall clocks read in UTC are the instants of the same numbers
    reader = _reader(path, timeZone="UTC")
    (batch,) = [b for p in reader.partitions() for b in reader.read(p)]
    assert batch.column("ts").to_pylist() == batch.column("inst").to_pylist()
    assert batch.schema.equals(_sparks_arrow_schema(ours.schema, "UTC"))


# -- planning ---------------------------------------------------------------------------------------------------------


def _reader(path: Path, **options: str) -> Any:
    source = OrcjitDataSource({"path": str(path), **options})
    return source.reader(source.schema())


def _pushdown_reader(path: Path, **options: str) -> OrcjitPushdownReader:
    """The reader Spark's filter pushdown worker gets where orcjit takes filters."""
    reader = _reader(path, **options)
    return OrcjitPushdownReader(
        reader.files, reader.schema, time_zone=reader.time_zone, partitions=reader.max_partitions
    )


def test_partitions_balanced_by_bytes(striped: Path, registered: Any) -> None:
    files = _orc_files(striped)
    assert len(files) == 3
    units = {}
    for path in files:
        with orcjit.ORCFile(path) as f:
            assert f.nstripes >= 3
            units.update({(str(path), s.index): s.data_length for s in f.stripes})
    biggest = max(units.values())

    parts = _reader(striped, partitions="4").partitions()
    assert len(parts) == 4
    assert all(isinstance(p, OrcjitPartition) for p in parts)
    planned = [(path, i) for p in parts for path, stripes in p.pieces for i in stripes]
    assert planned == sorted(units, key=lambda u: (u[0], u[1]))  # every stripe once, in file order
    sizes = [p.nbytes for p in parts]
    assert sizes == [sum(units[(path, i)] for path, stripes in p.pieces for i in stripes) for p in parts]
    assert max(sizes) - min(sizes) <= biggest
    assert any(len(p.pieces) > 1 for p in parts)  # a partition spans files

    total = sum(units.values())
    by_bytes = _reader(striped, bytesPerPartition=str(total // 6 + 1)).partitions()
    assert len(by_bytes) == 6

    df = registered.read.format("orcjit").option("partitions", "5").load(str(striped))
    assert df.rdd.getNumPartitions() == 5
    default = registered.read.format("orcjit").load(str(striped))
    assert default.rdd.getNumPartitions() == registered.sparkContext.defaultParallelism == 2


def test_plan_partitions_contiguous_runs() -> None:
    units = [("a", 0, 10), ("a", 1, 10), ("b", 0, 100), ("b", 1, 10), ("c", 0, 10)]
    parts = plan_partitions(units, 3)
    assert [p.pieces for p in parts] == [[("a", [0, 1])], [("b", [0])], [("b", [1]), ("c", [0])]]
    assert [p.nbytes for p in parts] == [20, 100, 20]
    assert len(plan_partitions(units, 50)) == len(units)
    assert plan_partitions([], 4) == []


@needs_pushdown
def test_pushed_filters_skip_stripes(striped: Path, registered: Any) -> None:
    """Stripes the statistics rule out are not planned; the rows read are exactly the matching ones."""
    from pyspark.sql.datasource import EqualTo, GreaterThanOrEqual, StringContains

    last = 3 * 4096
    reader = _pushdown_reader(striped, partitions="2")
    everything = sum(len(stripes) for p in reader.partitions() for _, stripes in p.pieces)
    assert everything >= 9

    contains = StringContains(("s",), "7")
    assert list(reader.pushFilters([GreaterThanOrEqual(("id",), last - 1500), contains])) == [contains]
    parts = reader.partitions()
    kept = sum(len(stripes) for p in parts for _, stripes in p.pieces)
    assert 0 < kept <= 3 < everything  # the last 1500 ids lie in the last two or three stripes
    ids = sorted(i for p in parts for batch in reader.read(p) for i in batch.column("id").to_pylist())
    assert ids == list(range(last - 1500, last))  # exact: Spark does not apply a filter it pushed

    reader = _pushdown_reader(striped)
    assert list(reader.pushFilters([EqualTo(("s",), "nope")])) == []  # below every value: no stripe may match
    assert reader.partitions() == []
    assert list(reader.read(InputPartition(None))) == []  # what Spark reads when no partition is planned


@needs_pushdown
def test_pushdown_on(striped: Path, written: Path, registered: Any) -> None:
    """Where orcjit takes filters, Spark leaves those it pushed to orcjit, and the rows are still exactly right."""
    registered.conf.set(PUSHDOWN, "true")
    register_trusting(registered)  # a fresh DataFrame for each query below
    try:
        query = "id >= 12000 AND s LIKE 'v8%'"
        df = registered.read.format("orcjit").load(str(striped)).where(query)
        assert not _has_filter(df)  # taken by orcjit, not applied by Spark again
        rows = sorted(df.collect())
        assert rows == sorted(registered.read.orc(str(striped)).where(query).collect())
        assert len(rows) == len([i for i in range(12000, 3 * 4096) if str(i * 7).startswith("8")])

        # nested columns and every type come through filtered reads too
        query = "(id > 200 OR id < 10) AND d IS NOT NULL AND i8 <> 0"
        path = str(written / "lz4")
        ours = registered.read.format("orcjit").load(path).where(query)
        assert _sorted_rows(ours) == _sorted_rows(registered.read.orc(path).where(query))
    finally:
        registered.conf.set(PUSHDOWN, "false")
        orcjit.spark.register(registered)  # as the other tests of this module expect


def test_pushdown_off_reads(striped: Path, registered: Any, caplog: pytest.LogCaptureFixture) -> None:
    registered.conf.set(PUSHDOWN, "false")
    with caplog.at_level(logging.WARNING, logger="orcjit.spark"):
        orcjit.spark.register(registered)
    messages = [r.getMessage() for r in caplog.records if r.name == "orcjit.spark"]
    # register cannot know the setting Spark will plan with, so it says nothing of it
    assert not any("pushdown is off" in m for m in messages)

    df = registered.read.format("orcjit").load(str(striped)).where("id BETWEEN 100 AND 140 AND x > 60")
    assert _has_filter(df)  # Spark applies the filter itself
    assert sorted(r.id for r in df.collect()) == list(range(121, 141))


def test_register_says_when_spark_reuses_planned_reads(registered: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="orcjit.spark"):
        source = orcjit.spark.register(registered)
    messages = [r.getMessage() for r in caplog.records if r.name == "orcjit.spark"]
    reused = reuses_planned_reads(registered.version)
    assert messages == ([REUSED_READ_MESSAGE % registered.version] if reused else [])
    assert source.defaults["reusesPlannedReads"] == ("true" if reused else "false")
    versions = ["3.5.1", "4.0.0", "4.0.1", "4.1.0", "4.2.1", "4.3.0", "4.3.1", "5.0.0", "4.3.0-SNAPSHOT", "unknown"]
    assert [reuses_planned_reads(v) for v in versions] == [False, False, False] + [True] * 7


def test_reader_outside_a_planning_worker_takes_no_filters(striped: Path) -> None:
    """Called by anything but Spark's filter pushdown, ``reader()`` returns a reader without ``pushFilters``."""
    trusting = type("Trusting", (OrcjitDataSource,), {"defaults": {"reusesPlannedReads": "false"}})
    schema = OrcjitDataSource({"path": str(striped)}).schema()
    for cls in (OrcjitDataSource, trusting):
        assert type(cls({"path": str(striped)}).reader(schema)) is OrcjitReader
    assert "pushFilters" not in vars(OrcjitReader)
    with pytest.raises(orcjit.OrcError, match="option pushdown='maybe' must be true or false"):
        OrcjitDataSource({"path": str(striped), "pushdown": "maybe"}).reader(schema)


def _worker(module: str, code: str) -> Any:
    """A function compiled as if in PySpark's worker ``module``, for ``reader()`` to find in its callers' frames."""
    namespace: dict[str, Any] = {"__name__": module}
    exec(compile(code, module.rsplit(".", 1)[-1] + ".py", "exec"), namespace)
    return namespace["_main"]


def test_reader_follows_the_planning_workers_setting(
    striped: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Spark refuses a reader with ``pushFilters`` when pushdown is off, and tells only its planning worker;
    ``reader()`` reads the setting from that worker's frame (or sees the worker that pushes filters), and takes
    filters only where Spark keeps each planned read to its own query."""
    from orcjit.spark import datasource

    plan = _worker(
        "pyspark.sql.worker.plan_data_source_read",
        "def _main(source, schema, enable_pushdown):\n    return source.reader(schema)\n",
    )
    push = _worker(
        "pyspark.sql.worker.data_source_pushdown_filters",
        "def _main(source, schema):\n    return source.reader(schema)\n",
    )
    schema = OrcjitDataSource({"path": str(striped)}).schema()
    trusting = type("Trusting", (OrcjitDataSource,), {"defaults": {"reusesPlannedReads": "false"}})
    reusing = type("Reusing", (OrcjitDataSource,), {"defaults": {"reusesPlannedReads": "true"}})
    pushing = OrcjitPushdownReader if can_push() else OrcjitReader  # PySpark 4.0 has no pushdown

    monkeypatch.setattr(datasource, "_logged_pushdown_off", False)
    with caplog.at_level(logging.WARNING, logger="orcjit.spark"):
        source = trusting({"path": str(striped)})
        off = [plan(source, schema, False) for _ in range(2)]
        assert all(type(r) is OrcjitReader for r in off)
        assert type(plan(source, schema, True)) is pushing
        assert type(push(source, schema)) is pushing
        assert type(push(trusting({"path": str(striped), "pushdown": "false"}), schema)) is OrcjitReader
        # on a Spark that would run the filtered read again for another query: never
        source = reusing({"path": str(striped)})
        assert type(plan(source, schema, False)) is OrcjitReader
        assert type(plan(source, schema, True)) is OrcjitReader
        assert type(push(source, schema)) is OrcjitReader
        # registered without register(): by the PySpark the worker runs
        import pyspark

        plain = type(push(OrcjitDataSource({"path": str(striped)}), schema))
        assert plain is (OrcjitReader if reuses_planned_reads(pyspark.__version__) else pushing)
    messages = [r.getMessage() for r in caplog.records if r.name == "orcjit.spark"]
    if can_push():
        assert len(messages) == 1  # once per process, however many reads
        assert "filter pushdown is off" in messages[0]
    else:
        assert messages == []


# -- errors -----------------------------------------------------------------------------------------------------------


def test_missing_path(tmp_path: Path, registered: Any) -> None:
    missing = tmp_path / "nothing-here"
    with pytest.raises(Exception, match="path does not exist") as info:
        registered.read.format("orcjit").load(str(missing)).schema  # noqa: B018
    assert str(missing) in str(info.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(Exception, match=r"no files \(not hidden, not empty\) found"):
        registered.read.format("orcjit").load(str(tmp_path / "empty")).schema  # noqa: B018


def test_file_of_another_schema(tmp_path: Path, registered: Any) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    pa_orc.write_table(pa.table({"a": [1, 2]}), folder / "a.orc")
    pa_orc.write_table(pa.table({"a": ["x"]}), folder / "b.orc")
    pa_orc.write_table(pa.table({"a": [3]}), folder / "_hidden.orc")  # skipped, as Spark skips it
    df = registered.read.format("orcjit").load(str(folder))
    assert df.schema.simpleString() == "struct<a:bigint>"
    with pytest.raises(Exception, match="same schema") as info:
        df.collect()
    assert str(folder / "b.orc") in str(info.value)
    with pytest.raises(orcjit.OrcError, match=r"b\.orc has schema struct<a:string>"):
        _reader(folder).partitions()
    assert registered.read.format("orcjit").load(str(folder / "a.orc")).count() == 2
