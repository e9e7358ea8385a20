"""orcjit reads wall-clock timestamps with the rules of the implementation that wrote the file, and converts them
for Spark as Spark does, with time zone rules of its own (``orcjit.timezones``): files written by ORC C++ (pyorc)
against pyarrow, pyorc and a reference, files written by ORC Java (through the Spark JVM, with the writer's time
zone chosen) against ORC Java's reader and Spark, from 1677 to 2262, among them ORC Java's own test files for dates
from 1900 and from 2038. The same under pandas 2.2 and 3: orcjit never hands a zone name to pandas (pandas 2
would resolve it through pytz, whose rules stop in 2037).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyorc
import pytest
from pyorc.converters import ORCConverter

import orcjit
from orcjit import timezones as tzs
from orcjit.spark.types import orc_timestamp_micros
from tests.factory import orc_cpp_wall_clock, write_pyorc
from tests.orc_java import NS, jvm_time_zone, read_orc_java, write_orc_java
from tests.test_timezones import HIGH, JAVA_1900, LA, LOW, ZONES, probes

SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"


def test_no_zone_name_reaches_pandas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # reading wall clocks and turning them into Spark's instants: pandas is never asked to convert between zones
    walls = [pd.Timestamp("2040-07-01 12:00:00.123456789"), pd.Timestamp("1890-01-01 08:00")]
    path = write_pyorc(tmp_path, "struct<ts:timestamp>", [(w,) for w in walls], timezone="America/New_York")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a zone conversion was handed to pandas")

    for cls in (pd.DatetimeIndex, pd.Timestamp, pd.Series):
        monkeypatch.setattr(cls, "tz_convert", refuse)
        monkeypatch.setattr(cls, "tz_localize", refuse)
    got = orcjit.read_orc(path)["ts"]
    with orcjit.ORCFile(path) as f:
        arrow = f.read_arrow().column("ts").to_numpy().view("i8")
    micros = orc_timestamp_micros(got.to_numpy().view("i8"), "America/New_York", "Asia/Kolkata", "ORC_CPP")
    monkeypatch.undo()
    assert got.tolist() == walls
    assert arrow.tolist() == [w.value for w in walls]
    # Spark in a JVM in Kolkata shows the same wall clocks there (in 1890 Spark's own step finds them by local mean
    # time there, as zoneinfo does)
    assert micros.tolist() == [w.tz_localize(zoneinfo.ZoneInfo("Asia/Kolkata")).value // 1000 for w in walls]


# -- ORC C++ files (pyorc writes, pyarrow and pyorc read) ----------------------------------------------------------


def orc_cpp_quirks(instants: np.ndarray, walls: np.ndarray, rules: tzs.ZoneRules) -> np.ndarray:
    """The values ORC C++'s reader gets wrong when its zone differs from the writer's (pyarrow reads in UTC).

    Its writer stores the second after an instant's own for an instant before 1970 with a millisecond or more of
    fraction (ORC's convention), and its reader looks the writer's offset up at that stored second before taking
    the second back: an instant in the last second before a transition gets the next offset. Then it takes the
    second back by the sign of the wall clock instead of the instant's, a second off where the two lie on either
    side of 1970.
    """
    seconds, nanos = np.divmod(instants, NS)
    stored_later = (seconds < 0) & (nanos > 999_999)
    late = stored_later & np.isin((seconds + 1) * NS, rules.starts)
    across = (nanos > 999_999) & ((instants < 0) != (walls < 0))
    return late | across


@pytest.mark.parametrize("zone", (*ZONES, "Europe/Dublin"))
def test_orc_cpp_files_read_as_orc_cpp_reads_them(tmp_path: Path, zone: str) -> None:
    rules = tzs.zone_rules(zone, tzs.ORC_CPP)
    rng = np.random.default_rng(len(zone) + 3)
    starts = rules.starts[1:]
    # with instants half an hour either side of 1970, whose wall clocks lie on the other side of it
    across = np.array([-1800 * NS - NS // 2, 1800 * NS + NS // 2, 1800 * NS + 1_000_000])
    x = np.concatenate([probes(rules, rng, 3000), starts - NS // 2, starts - 1_000_001, starts + 999_999, across])
    # the ORC C++ writer cannot store an instant in the second before 1970 with a millisecond of fraction
    x = x[(x > LOW) & (x < HIGH) & ~((x >= -NS) & (x < 0))]
    path = write_pyorc(tmp_path, "struct<ts:timestamp>", [((v // NS, v % NS),) for v in x.tolist()], timezone=zone)
    with orcjit.ORCFile(path) as f:
        assert f.writer == "ORC_CPP"
        assert f.stripe_footer(0).writer_timezone == zone
    got = orcjit.read_orc(path)["ts"].to_numpy().view("i8")
    expected = [orc_cpp_wall_clock(pd.Timestamp(v, tz="UTC"), zone).value for v in x.tolist()]
    assert got.tolist() == expected
    # pandas (ORC C++ through pyarrow) agrees but for ORC C++'s own quirks
    theirs = pd.read_orc(path)["ts"].to_numpy().view("i8")
    differ = theirs != got
    quirks = orc_cpp_quirks(x, got, rules)
    assert np.array_equal(differ, quirks), [pd.Timestamp(v) for v in x[differ != quirks]]
    assert quirks.any() == (zone != "UTC")
    # pyorc (ORC C++ read in the writer's zone, which it then leaves alone) gives back the instants written
    with open(path, "rb") as fh:
        reader = pyorc.Reader(fh, timezone=zoneinfo.ZoneInfo(zone), converters={pyorc.TypeKind.TIMESTAMP: Raw})
        assert [row[0] for row in reader] == [(v // NS, v % NS) for v in x.tolist()]


class Raw(ORCConverter):
    """pyorc converter giving ORC's (seconds, nanoseconds) as they come."""

    @staticmethod
    def from_orc(seconds: int, nanoseconds: int, timezone: Any) -> tuple[int, int]:
        return seconds, nanoseconds

    @staticmethod
    def to_orc(obj: Any, timezone: Any) -> Any:
        return obj


def test_pruning_agrees_with_orc_cpp_statistics(tmp_path: Path) -> None:
    # ORC C++ computes the statistics of a wall-clock column with its own rules: before New York's first
    # transition (1883-11-18) EST, not local mean time (3 min 58 s apart). Row groups are pruned by them, so the
    # values must be read with the same rules, or a filter between the two readings loses rows.
    zone = "America/New_York"
    walls = [*pd.date_range("1800-01-01", periods=3000, freq="37min"), *pd.date_range("2000-01-01", periods=3000)]
    path = write_pyorc(tmp_path, "struct<ts:timestamp>", [(w,) for w in walls], timezone=zone, row_index_stride=1000)
    full = orcjit.read_orc(path)["ts"]
    assert full.iloc[0] == pd.Timestamp("1799-12-31 23:56:02")  # pyorc wrote local mean time, ORC C++ reads EST
    groups = [full.iloc[i : i + 1000] for i in range(0, len(full), 1000)]
    bounds = [t + d for g in groups[:3] for t in (g.min(), g.max()) for d in (-pd.Timedelta("1min"), pd.Timedelta(0))]
    compare = {"<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__", "==": "__eq__"}
    pruned = 0
    for bound in bounds:
        for op, method in compare.items():
            filters = [("ts", op, bound)]
            got = orcjit.read_orc(path, filters=filters)["ts"].tolist()
            assert got == [t for t in full if getattr(t, method)(bound)], (bound, op)
            with orcjit.ORCFile(path) as f:
                plan = f.explain(filters).to_dict()
            pruned += sum(s.get("row_groups_skipped_by_statistics", 0) for s in plan["stripes"])
    assert pruned > 0


# -- ORC Java files (ORC Java writes and reads through the Spark JVM; Spark reads) -------------------------------


def java_offsets(spark: Any, zone: str, millis: np.ndarray) -> np.ndarray:
    tz = spark._jvm.java.util.TimeZone.getTimeZone(zone)
    return np.array([tz.getOffset(int(m)) for m in millis.tolist()], dtype=np.int64)


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
def test_orc_java_rules_against_java_time_zone(spark: Any) -> None:
    rng = np.random.default_rng(5)
    for zone in (*ZONES, "Europe/Dublin", "Pacific/Chatham"):
        rules = tzs.zone_rules(zone, tzs.ORC_JAVA)
        starts = rules.starts[1:]
        millis = np.concatenate([rng.integers(LOW, HIGH, 100) // 10**6, starts // 10**6, starts // 10**6 - 1])
        millis = millis[(millis > LOW // 10**6) & (millis < HIGH // 10**6)]
        assert np.array_equal(rules.utcoffset(millis * 10**6) // 10**6, java_offsets(spark, zone, millis)), zone


def java_probes(rules: tzs.ZoneRules, rng: np.random.Generator, randoms: int) -> np.ndarray:
    starts = rules.starts[1:]
    x = np.concatenate([probes(rules, rng, randoms), starts - NS // 2, starts - NS, starts + 999_999])
    # 1900-2100 with nanoseconds, and the second before the epoch, which ORC Java reads back with a quirk
    x = np.concatenate([x, rng.integers(JAVA_1900, pd.Timestamp("2100-01-01").value, randoms)])
    return x[(x > LOW) & (x < HIGH) & ~((x >= -NS) & (x < 0))]


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
@pytest.mark.parametrize("zone", (*ZONES, "Europe/Dublin", "GMT+05:30"))
def test_orc_java_files_read_as_orc_java_reads_them(spark: Any, tmp_path: Path, zone: str) -> None:
    rules = tzs.zone_rules(zone, tzs.ORC_JAVA)
    rng = np.random.default_rng(len(zone) + 4)
    x = java_probes(rules, rng, 1500)
    days = rng.integers(-106_000, 106_000, len(x))  # dates from 1680 to 2260
    columns = {"id": np.arange(len(x)), "ts": x, "d": days}
    path = write_orc_java(spark, tmp_path / "java.orc", "struct<id:bigint,ts:timestamp,d:date>", columns, zone)
    with orcjit.ORCFile(path) as f:
        assert f.writer == "ORC_JAVA"
        assert f.stripe_footer(0).writer_timezone == zone
    frame = orcjit.read_orc(path)
    walls = frame["ts"].to_numpy().view("i8")
    # wall clocks: ORC Java's reader in a UTC JVM gives the writer's wall clock as UTC
    assert np.array_equal(walls, read_orc_java(spark, path, "UTC")["ts"])
    # instants: ORC Java's reader in the writer's zone gives back what was written; orcjit finds them from the wall
    # clocks, but for the later reading of an hour the clocks repeat
    java = read_orc_java(spark, path, zone)
    assert np.array_equal(java["ts"], x) and np.array_equal(java["d"], days)
    instants = rules.to_instant(walls)
    repeated = instants != x
    assert np.all(instants[repeated] < x[repeated]) and np.array_equal(rules.to_wall(x[repeated]), walls[repeated])
    assert repeated.any() == (not rules.fixed)
    # Spark in the writer's zone: the instants (from 1900 on; before, Spark moves them by its own rebasing)
    known = (x >= JAVA_1900) & ~repeated
    micros = orc_timestamp_micros(walls, zone, zone, "ORC_JAVA")
    assert np.array_equal(micros[known], np.floor_divide(x[known], 1000))
    got_days = (frame["d"].to_numpy().astype("M8[D]") - np.datetime64("1970-01-01", "D")).astype(np.int64)
    assert np.array_equal(got_days, days)
    # Spark (ORC Java in the JVM's zone, Los Angeles, then its own rebasing before 1900)
    spark_values = spark_micros(spark, path)
    ours = orc_timestamp_micros(walls, zone, LA, "ORC_JAVA")
    differ = ours != spark_values["ts"]
    # only Los Angeles files in repeated hours: Spark knows the instant, orcjit's wall clock does not
    assert (zone == LA and np.array_equal(differ, repeated)) or not differ.any()
    assert np.array_equal(spark_values["d"], days)


def spark_micros(spark: Any, path: Path, reader_zone: str | None = None) -> dict[str, np.ndarray]:
    """Spark's read of a file (``id``, ``ts`` as microseconds, ``d`` as days), with the JVM in ``reader_zone``."""
    df = spark.read.orc(str(path))
    exprs = ["id", "unix_micros(ts) AS ts"] + (["unix_date(d) AS d"] if "d" in df.columns else [])
    query = df.selectExpr(*exprs)
    if reader_zone is None:
        rows = query.toPandas()
    else:
        with jvm_time_zone(spark, reader_zone):
            rows = query.toPandas()
    rows = rows.sort_values("id")
    return {name: rows[name].to_numpy(dtype=np.int64) for name in rows.columns}


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
def test_spark_conversions_in_other_jvm_zones(spark: Any, tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    # a Java file and a C++ file, read by Spark in JVMs whose zones differ from the writers'
    rules = tzs.zone_rules("America/New_York", tzs.ORC_JAVA)
    x = java_probes(rules, rng, 800)
    java_path = write_orc_java(
        spark, tmp_path / "java.orc", "struct<id:bigint,ts:timestamp>", {"id": np.arange(len(x)), "ts": x}, rules.name
    )
    cpp_rules = tzs.zone_rules("Asia/Kolkata", tzs.ORC_CPP)
    y = java_probes(cpp_rules, rng, 800)
    cpp_path = write_pyorc(
        tmp_path,
        "struct<id:bigint,ts:timestamp>",
        [(i, (v // NS, v % NS)) for i, v in enumerate(y.tolist())],
        timezone=cpp_rules.name,
    )
    cases = [(java_path, x, rules, "ORC_JAVA"), (cpp_path, y, cpp_rules, "ORC_CPP")]
    for path, written, writer_rules, writer in cases:
        walls = orcjit.read_orc(path)["ts"].to_numpy().view("i8")
        # Spark starts from the instant written, which orcjit cannot tell from the wall clock of a repeated hour
        repeated = writer_rules.to_instant(walls) != written
        assert repeated.sum() < len(written) // 4
        for reader_zone in ("Asia/Kolkata", "UTC", "Australia/Lord_Howe", LA):
            theirs = spark_micros(spark, path, reader_zone)["ts"]
            ours = orc_timestamp_micros(walls, writer_rules.name, reader_zone, writer)
            assert np.array_equal(ours[~repeated], theirs[~repeated]), (path.name, reader_zone)


# ORC Java's own test files TestOrcFile.testDate1900.orc and testDate2038.orc, written again by ORC Java: for
# every year, 1000 rows at yyyy-05-05 12:34:56.1000 to .1999 (Timestamp.valueOf in the writer's zone) and the date
# yyyy-12-25, stripes of 100,000 bytes and buffers of 10,000 bytes


def write_dates_file(spark: Any, path: Path, first_year: int, end_year: int, zone: str) -> tuple[np.ndarray, ...]:
    rows = (end_year - first_year) * 1000
    # the instants of those wall clocks in the writer's zone, as Spark (java.time) finds them
    instants = (
        spark.range(rows)
        .selectExpr(
            f"unix_micros(make_timestamp({first_year} + cast(id div 1000 as int), 5, 5, 12, 34,"
            f" cast(56 + (1000 + id % 1000) / 10000 as decimal(8, 6)), '{zone}')) AS us"
        )
        .toPandas()["us"]
        .to_numpy(dtype=np.int64)
        * 1000
    )
    years = first_year + np.arange(rows) // 1000
    walls = np.array([f"{y}-05-05T12:34:56" for y in years], dtype="M8[ns]").view("i8")
    walls = walls + (1000 + np.arange(rows) % 1000) * 100_000
    days = np.array([(dt.date(int(y), 12, 25) - dt.date(1970, 1, 1)).days for y in years], dtype=np.int64)
    write_orc_java(
        spark,
        path,
        "struct<time:timestamp,date:date>",
        {"time": instants, "date": days},
        zone,
        batch_size=1000,
        stripe_size=100_000,
        buffer_size=10_000,
        proleptic=True,
    )
    return instants, walls, days


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
@pytest.mark.parametrize(
    ("first_year", "end_year", "zone"),
    [(1900, 1910, LA), (1900, 1910, "Asia/Kolkata"), (1900, 1910, "Australia/Lord_Howe"), (2038, 2250, LA)],
    ids=["1900-la", "1900-kolkata", "1900-lord-howe", "2038-la"],
)
def test_orc_java_date_files(spark: Any, tmp_path: Path, first_year: int, end_year: int, zone: str) -> None:
    path = tmp_path / f"date{first_year}.orc"
    instants, walls, days = write_dates_file(spark, path, first_year, end_year, zone)
    assert len(walls) == (212_000 if first_year == 2038 else 10_000)
    with orcjit.ORCFile(path) as f:
        assert f.nstripes > 1 or first_year == 1900
    frame = orcjit.read_orc(path)
    got = frame["time"].to_numpy().view("i8")
    # the wall clocks written, ORC Java's read of them, and the instants and dates
    assert np.array_equal(got, walls)
    java_utc = read_orc_java(spark, path, "UTC")
    assert np.array_equal(java_utc["time"], walls)
    java = read_orc_java(spark, path, zone)
    assert np.array_equal(java["time"], instants) and np.array_equal(java["date"], days)
    got_days = (frame["date"].to_numpy().astype("M8[D]") - np.datetime64("1970-01-01", "D")).astype(np.int64)
    assert np.array_equal(got_days, days)
    assert np.array_equal(orc_timestamp_micros(got, zone, zone), instants // 1000)
    # Spark (the JVM in Los Angeles)
    df = spark.read.orc(str(path)).selectExpr("unix_micros(time) AS us", "unix_date(date) AS d").toPandas()
    assert np.array_equal(df["us"].to_numpy(dtype=np.int64), orc_timestamp_micros(got, zone, LA))
    assert np.array_equal(df["d"].to_numpy(dtype=np.int64), days)
