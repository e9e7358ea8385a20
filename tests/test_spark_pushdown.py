"""Filter pushdown through ``spark.read.format("orcjit")``: the same rows as ``spark.read.orc``, the pushed filters
in the plan, and stripes skipped when the read is planned; and one DataFrame queried again and again, with and
without filters, as the Spark guide's flow (docs/guides/spark.md) lets a user do, in both orders of ``register``
and the pushdown setting.

Spark 4.1-4.3 keep a read planned with pushed filters for later queries of the same DataFrame that push none
(``test_spark_reuses_planned_reads_as_orcjit_assumes``), so :func:`orcjit.spark.register` has orcjit take no filters
there. The pushdown tests register it as on a Spark with the read kept in its scan
(:func:`tests.spark_support.register_trusting`) and load a fresh DataFrame for every query.

Spark does not re-apply the filters the reader accepts, so every filtered read here is compared, row id for row id,
with ``spark.read.orc`` of the same files under the same filter: a fixed list covering every filter class Spark
pushes (negated too, on nested fields, with nulls, NaN, decimals, dates, both timestamp types, binary) and a few
dozen random filters. The ground truth for all of them comes from one Spark job over ``spark.read.orc``
(``collect_list(CASE WHEN filter THEN id END)`` for each filter); each orcjit read is one small job.

The data is written by Spark (ORC Java) in two files of several stripes each, with a row index every 1000 rows and
bloom filters on ``k`` and ``s``; ``id`` is sorted, the other columns are scrambled, with nulls.
"""

from __future__ import annotations

import contextlib
import io
import logging
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orcjit.spark.datasource import REUSED_READ_MESSAGE, reuses_planned_reads

from .spark_support import PUSHDOWN, can_push, needs_pushdown, pushdown_taken, register_trusting

SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"
pytestmark = pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)

ROWS_PER_FILE = 4096
STRIPE_ROWS = 1024  # what ORC Java gives with the tiny stripe size below: memory is checked every 512 rows

COLUMNS = """
    id,
    CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(pmod(hash(id), 50000) AS INT) END AS k,
    CASE WHEN id % 17 = 0 THEN NULL
         WHEN id % 41 = 0 THEN concat('é', CAST(id % 7 AS STRING))
         ELSE concat(char(97 + pmod(hash(id, 1), 5)), CAST(id % 37 AS STRING)) END AS s,
    CASE WHEN id % 11 = 0 THEN double('NaN') WHEN id % 19 = 0 THEN NULL
         WHEN id % 23 = 0 THEN -0.0D ELSE pmod(hash(id, 2), 23) / 4.0D END AS d,
    CASE WHEN id % 29 = 0 THEN float('NaN') WHEN id % 31 = 0 THEN NULL
         ELSE CAST(pmod(hash(id, 3), 9) / 2.0 AS FLOAT) END AS f,
    CASE WHEN id % 7 = 3 THEN NULL ELSE CAST(pmod(hash(id, 4), 101) / 8 AS DECIMAL(10, 2)) END AS dec,
    CASE WHEN id % 9 = 4 THEN NULL ELSE date_add(DATE'2020-01-01', pmod(hash(id, 5), 400)) END AS dt,
    CASE WHEN id % 10 = 5 THEN NULL
         ELSE TIMESTAMP'2020-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, pmod(hash(id, 6), 600) * 1000, id % 3)
         END AS ts,
    CASE WHEN id % 8 = 6 THEN NULL
         ELSE TIMESTAMP_NTZ'2020-03-08 00:00:00' + make_interval(0, 0, 0, 0, 0, pmod(hash(id, 7), 300), 0) END AS tn,
    CASE WHEN id % 5 = 1 THEN NULL ELSE pmod(hash(id, 8), 3) = 0 END AS bo,
    CASE WHEN id % 6 = 2 THEN NULL ELSE CAST(char(97 + pmod(hash(id, 9), 3)) AS BINARY) END AS bin,
    CASE WHEN id % 7 = 0 THEN NULL
         ELSE named_struct('x', CASE WHEN id % 4 = 1 THEN NULL ELSE CAST(pmod(hash(id, 10), 9) AS INT) END,
                           'y', char(97 + pmod(hash(id, 11), 4))) END AS st
"""


@pytest.fixture(scope="module")
def pushdown(spark: Any) -> Iterator[Any]:
    """The session with Python filter pushdown on and ``orcjit`` registered to take filters (as on a Spark that
    keeps each planned read in its scan); the setting restored after."""
    with pushdown_taken(spark):
        yield spark


@pytest.fixture
def restore(pushdown: Any) -> Iterator[Any]:
    """For a test that registers ``orcjit`` and sets pushdown its own way: the module's session again after it."""
    try:
        yield pushdown
    finally:
        pushdown.conf.set(PUSHDOWN, "true")
        register_trusting(pushdown)


@pytest.fixture(scope="module")
def data(pushdown: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spark_pushdown") / "data"
    (
        pushdown.range(0, 2 * ROWS_PER_FILE, numPartitions=2)
        .selectExpr(*[c.strip() for c in _split(COLUMNS)])
        .write.option("orc.stripe.size", 1024)
        .option("orc.rows.between.memory.checks", STRIPE_ROWS // 2)
        .option("orc.row.index.stride", 1000)
        .option("orc.bloom.filter.columns", "k,s")
        .orc(str(path), compression="zstd")
    )
    files = sorted(path.glob("*.orc"))
    assert len(files) == 2
    import orcjit

    for file in files:
        with orcjit.ORCFile(file) as f:
            assert f.nstripes == ROWS_PER_FILE // STRIPE_ROWS
    return path


def _split(columns: str) -> list[str]:
    """The comma-separated expressions of ``columns``, commas inside parentheses kept."""
    out, depth, current = [], 0, ""
    for ch in columns:
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += (ch == "(") - (ch == ")")
        current += ch
    out.append(current)
    return out


def orcjit_df(spark: Any, path: Path, **options: str) -> Any:
    reader = spark.read.format("orcjit")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(str(path))


def explain(df: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain("formatted")
    return out.getvalue()


def pushed_filters(plan: str) -> str:
    match = re.search(r"PushedFilters: \[(.*)\]", plan)
    assert match, plan
    return match.group(1)


def expected_ids(spark: Any, path: Path, conditions: list[str]) -> list[list[int]]:
    """The ids ``spark.read.orc`` keeps under each condition, all from one job."""
    from pyspark.sql import functions as F

    df = spark.read.orc(str(path))
    # a row is kept where the condition is TRUE (not FALSE, not NULL)
    tests = [F.coalesce(F.expr(c), F.lit(False)).alias(f"c{i}") for i, c in enumerate(conditions)]
    table = df.select("id", *tests).toArrow()
    ids = table.column("id").to_pylist()
    out = []
    for i in range(len(conditions)):
        keep = table.column(f"c{i}").to_pylist()
        out.append(sorted(v for v, k in zip(ids, keep, strict=True) if k))
    return out


def orcjit_ids(df: Any, condition: str) -> list[int]:
    from pyspark.sql import functions as F

    return list(df.where(condition).agg(F.sort_array(F.collect_list("id")).alias("ids")).first()["ids"])


# -- the pushed filters in the plan -----------------------------------------------------------------------------------


@needs_pushdown
def test_pushed_filters_appear_in_the_plan(pushdown: Any, data: Path) -> None:
    df = orcjit_df(pushdown, data).where("id >= 100 AND k <=> 5 AND s LIKE 'a%' AND NOT st.x IN (1, 2) AND d > 1.0")
    plan = explain(df)
    pushed = pushed_filters(plan)
    for f in ("GreaterThanOrEqual(id,100)", "EqualNullSafe(k,5)", "StringStartsWith(s,a)", "Not(In(st.x, [1,2]))"):
        assert f.replace(" ", "") in pushed.replace(" ", ""), plan
    # d > 1.0 on a double is left to Spark (NaN is above every number in Spark, not in orcjit): a Filter after the
    # scan applies it, and it is not among the pushed ones
    assert "GreaterThan(d" not in pushed, plan
    assert re.search(r"Filter.*\n.*\nCondition : .*\(d#\d+ > 1\.0\)", plan), plan


# -- the same rows as spark.read.orc ----------------------------------------------------------------------------------

# each line pushes several filters (a conjunction), so that one Spark job checks several
FIXED = [
    "k <=> NULL AND s LIKE 'b1%'",
    "NOT (k <=> 2) AND NOT s LIKE 'c%' AND s LIKE 'é%'",
    "k < 3000 AND NOT (k IN (1, 2, NULL))",
    "NOT (d > 2.0D) AND NOT (f <= CAST(1.5 AS FLOAT))",
    "d = double('NaN') AND NOT (dec >= 5BD)",
    "dt IN (DATE'2020-02-29', DATE'2020-12-31') AND ts < TIMESTAMP'2020-03-01 00:00:00'",
    "ts = TIMESTAMP'2020-01-01 16:40:01'",
    "ts >= TIMESTAMP'2020-07-01 00:00:00' AND NOT (tn <=> TIMESTAMP_NTZ'2020-03-08 00:01:00')",
    "bin = X'62' AND NOT bo AND st.x IS NULL",
    "NOT (st.y IN ('a', 'b')) AND st.x > 4",
]


def _literal(column: str, value: Any) -> str:
    import datetime as dt
    from decimal import Decimal

    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if column in ("d", "f"):
        text = "NaN" if value != value else repr(value)
        return f"{'double' if column == 'd' else 'float'}('{text}')"
    if isinstance(value, Decimal):
        return f"{value}BD"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + value + "'"
    if isinstance(value, (bytes, bytearray)):
        return "X'" + bytes(value).hex() + "'"
    if isinstance(value, dt.datetime) and column == "tn":
        return f"TIMESTAMP_NTZ'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.datetime):
        # PySpark gives TIMESTAMP values as naive datetimes in this process's local zone
        return f"timestamp_micros({int(value.replace(microsecond=0).timestamp()) * 10**6 + value.microsecond})"
    if isinstance(value, dt.date):
        return f"DATE'{value.isoformat()}'"
    raise TypeError(value)


def random_atoms(samples: dict[str, list[Any]], count: int, rng: random.Random) -> list[str]:
    """Random single filters on the sampled columns: every pushed class, a third of them negated."""
    out: list[str] = []
    while len(out) < count:
        column = rng.choice(list(samples))
        values = samples[column]
        op = rng.choice(["=", "<=>", "<", "<=", ">", ">=", "IN", "IS NULL", "IS NOT NULL", "LIKE"])
        if op in ("IS NULL", "IS NOT NULL"):
            condition = f"{column} {op}"
        elif op == "IN":
            chosen = rng.sample(values, min(len(values), rng.randint(1, 3))) + [None] * rng.randint(0, 1)
            condition = f"{column} IN ({', '.join(_literal(column, v) for v in chosen)})"
        elif op == "LIKE":
            if column not in ("s", "st.y"):
                continue
            prefix = rng.choice(values)[: rng.randint(0, 2)]
            condition = f"{column} LIKE '{prefix}%'"
        else:
            condition = f"{column} {op} {_literal(column, rng.choice(values))}"
        out.append(f"NOT ({condition})" if rng.random() < 0.35 else condition)
    return out


@needs_pushdown
def test_filters_give_the_rows_of_spark_read_orc(pushdown: Any, data: Path) -> None:
    sample_rows = pushdown.read.orc(str(data)).where("id % 97 = 0").collect()
    samples: dict[str, list[Any]] = {}
    for column in ("k", "s", "d", "f", "dec", "dt", "ts", "tn", "bo", "bin"):
        samples[column] = sorted({r[column] for r in sample_rows if r[column] is not None}, key=repr)
    for field in ("x", "y"):
        samples[f"st.{field}"] = sorted({r["st"][field] for r in sample_rows if r["st"] and r["st"][field] is not None})
    # random conjunctions of two or three random filters; Spark's own answers for all of them come from one job,
    # and the orcjit reads check those that keep some rows and drop others
    rng = random.Random(6)
    atoms = random_atoms(samples, 200, rng)
    candidates = [" AND ".join(f"({a})" for a in rng.sample(atoms, rng.choice([2, 3, 3]))) for _ in range(60)]
    conditions = FIXED + candidates
    want = dict(zip(conditions, expected_ids(pushdown, data, conditions), strict=True))
    chosen = [c for c in candidates if 0 < len(want[c]) < 2 * ROWS_PER_FILE][:12]
    assert len(chosen) == 12
    assert sum(0 < len(want[c]) < 2 * ROWS_PER_FILE for c in FIXED) >= len(FIXED) - 2
    mismatches = []
    for condition in FIXED + chosen:
        # a DataFrame per query: Spark 4.1-4.3 let a scan reuse the read planned for another (see below)
        got = orcjit_ids(orcjit_df(pushdown, data, partitions="2"), condition)
        if got != want[condition]:
            mismatches.append((condition, len(got), len(want[condition])))
    assert not mismatches


# -- stripes skipped at planning ---------------------------------------------------------------------------------------


@needs_pushdown
def test_stripes_are_pruned_when_planning(pushdown: Any, data: Path) -> None:
    stripes = 2 * ROWS_PER_FILE // STRIPE_ROWS

    def planned(condition: str) -> int:
        # partitions=64: one stripe per partition at most, so partitions count the stripes planned
        return orcjit_df(pushdown, data, partitions="64").where(condition).rdd.getNumPartitions()

    assert planned("true") == stripes
    # sorted ids: stripe statistics leave one stripe, or two
    assert planned("id < 600") == 1
    assert planned("id >= 7000") == 2
    assert planned("id >= 7000 OR id < 0") == stripes  # an OR is not pushed
    # scrambled k: only the bloom filters (and row-group statistics) can tell which stripes hold a value
    key = pushdown.read.orc(str(data)).where("id = 5000").first()["k"]
    narrowed = orcjit_df(pushdown, data, partitions="64").where(f"k = {key}")
    assert narrowed.rdd.getNumPartitions() <= 2
    assert orcjit_ids(narrowed, "true") == orcjit_ids(pushdown.read.orc(str(data)), f"k = {key}")
    # nothing can match: no stripe is planned (Spark reads its one empty partition)
    nothing = orcjit_df(pushdown, data, partitions="64").where("id = -1")
    assert nothing.rdd.getNumPartitions() <= 1
    assert orcjit_ids(nothing, "true") == []


@needs_pushdown
def test_reader_plans_fewer_pieces(pushdown: Any, data: Path) -> None:
    # the reader itself, as Spark's planner drives it: pushFilters, then partitions
    from pyspark.sql.datasource import GreaterThanOrEqual, LessThan, StringEndsWith

    import orcjit.spark

    files = sorted(str(p) for p in data.glob("*.orc"))
    schema = orcjit_df(pushdown, data).schema
    reader = orcjit.spark.OrcjitPushdownReader(files, schema, time_zone="America/Los_Angeles", partitions=64)
    all_stripes = sum(len(s) for p in reader.partitions() for _, s in p.pieces)
    assert all_stripes == 2 * ROWS_PER_FILE // STRIPE_ROWS
    low, high, ends = GreaterThanOrEqual(("id",), 3000), LessThan(("id",), 5000), StringEndsWith(("s",), "1")
    left = list(reader.pushFilters([low, ends, high]))
    assert len(left) == 1 and left[0] is ends
    pieces = [piece for p in reader.partitions() for piece in p.pieces]
    kept = sorted((Path(path).name, i) for path, stripes_ in pieces for i in stripes_)
    # ids 3000..4999 lie in stripes 2 and 3 of the first file and 0 of the second
    assert kept == sorted([(Path(files[0]).name, 2), (Path(files[0]).name, 3), (Path(files[1]).name, 0)])


# -- one DataFrame, many queries ---------------------------------------------------------------------------------------

# queried in this order on one DataFrame: filters Spark pushes, none at all, an OR and an expression (which Spark
# cannot send to Python), then none again
SEQUENCE = [
    "id < 600",
    None,
    "id >= 7000",
    "id < 10 OR id >= 8000",
    "k IS NOT NULL AND s LIKE 'a%'",
    "id % 3 = 0",
    None,
]


def _normal(value: Any) -> Any:
    """``value`` with NaN as a string, so that equal rows compare equal."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def _rows(df: Any) -> list[dict[str, Any]]:
    return sorted((_normal(row) for row in df.toArrow().to_pylist()), key=lambda row: row["id"])


def _check_queries(spark: Any, data: Path, sequence: list[str | None]) -> None:
    """Query one orcjit DataFrame with each of ``sequence`` in turn: counts and rows as ``spark.read.orc`` has them."""
    df = orcjit_df(spark, data, partitions="64")
    wanted = expected_ids(spark, data, [query or "true" for query in sequence])
    truth = {row["id"]: row for row in _rows(spark.read.orc(str(data)))}
    for query, ids in zip(sequence, wanted, strict=True):
        view = df if query is None else df.where(query)
        assert view.count() == len(ids), query
        assert _rows(view) == [truth[i] for i in ids], query


def _register_logs(spark: Any, caplog: pytest.LogCaptureFixture) -> list[str]:
    import orcjit.spark

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="orcjit.spark"):
        orcjit.spark.register(spark)
    return [r.getMessage() for r in caplog.records if r.name == "orcjit.spark"]


def _reused_message(spark: Any) -> list[str]:
    """What :func:`orcjit.spark.register` logs on this Spark: the reused-read warning, or nothing."""
    return [REUSED_READ_MESSAGE % spark.version] if reuses_planned_reads(spark.version) else []


def test_one_dataframe_queried_with_and_without_filters(
    restore: Any, data: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # the Spark guide's order: register, then turn pushdown on
    spark = restore
    spark.conf.set(PUSHDOWN, "false")
    assert _register_logs(spark, caplog) == _reused_message(spark)  # no "pushdown is off": it is not, when planning
    spark.conf.set(PUSHDOWN, "true")
    if can_push():
        # no filter taken where the read would leak (the plan then lists no PushedFilters at all)
        plan = explain(orcjit_df(spark, data).where("id < 600"))
        assert ("PushedFilters" not in plan) == reuses_planned_reads(spark.version), plan
    _check_queries(spark, data, SEQUENCE)


def test_pushdown_setting_before_register(restore: Any, data: Path, caplog: pytest.LogCaptureFixture) -> None:
    spark = restore
    spark.conf.set(PUSHDOWN, "true")
    assert _register_logs(spark, caplog) == _reused_message(spark)
    _check_queries(spark, data, ["id >= 7000", None, "id < 10 OR id >= 8000"])


@needs_pushdown
def test_pushdown_setting_read_when_planning(restore: Any, data: Path) -> None:
    """Where orcjit takes filters, it follows the setting as Spark plans each read, whatever it was at register."""
    spark = restore
    stripes = 2 * ROWS_PER_FILE // STRIPE_ROWS
    spark.conf.set(PUSHDOWN, "false")
    register_trusting(spark)
    spark.conf.set(PUSHDOWN, "true")  # after register, as the Spark guide has it
    df = orcjit_df(spark, data, partitions="64").where("id < 600")
    assert "LessThan(id,600)" in pushed_filters(explain(df)).replace(" ", "")
    assert df.rdd.getNumPartitions() == 1  # one stripe planned
    assert df.count() == 600
    # off again: Spark would refuse a reader that takes filters, and Spark filters the rows
    spark.conf.set(PUSHDOWN, "false")
    df = orcjit_df(spark, data, partitions="64").where("id < 600")
    assert df.rdd.getNumPartitions() == stripes
    assert df.count() == 600


@needs_pushdown
def test_spark_reuses_planned_reads_as_orcjit_assumes(pushdown: Any, data: Path) -> None:
    """What Spark does with a reader that takes filters: a query of the same DataFrame that pushes no filter Spark
    can send to Python runs the read planned for the query before. orcjit takes no filters on the versions where
    :func:`reuses_planned_reads` says so; when a release plans each query afresh, this fails until it says so too."""
    df = orcjit_df(pushdown, data)
    total, high, either = 2 * ROWS_PER_FILE, 2 * ROWS_PER_FILE - 7000, 10 + 2 * ROWS_PER_FILE - 8000
    assert df.where("id < 600").count() == 600
    assert df.where("id >= 7000").count() == high  # a filter Spark sends to Python: planned again
    reused = reuses_planned_reads(pushdown.version)
    assert df.count() == (high if reused else total)  # the rows of "id >= 7000"
    assert df.where("id < 10 OR id >= 8000").count() == (either - 10 if reused else either)
