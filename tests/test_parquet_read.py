"""orcjit.parquet.read_parquet against pyarrow's filtered read (the oracle), and what its plan skips."""

from __future__ import annotations

import datetime
import decimal
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orcjit.parquet import ParquetError, read_parquet
from orcjit.parquet.read import plan_row_groups

ROWS = 4_000
GROUP = 500
GROUPS = ROWS // GROUP


def _table() -> pa.Table:
    rng = np.random.default_rng(11)
    ids = np.arange(ROWS, dtype=np.int64)
    key = rng.permutation(ROWS).astype(np.int64) * 31 + 7
    names = [None if i % 13 == 0 else f"name-{int(k):07d}" for i, k in enumerate(key)]
    day0 = datetime.date(2020, 1, 1)
    return pa.table(
        {
            "id": ids,
            "key": key,
            "name": pa.array(names, pa.string()),
            "score": pa.array([None if i % 17 == 0 else float(x) for i, x in enumerate(rng.normal(0, 10, ROWS))]),
            "day": pa.array([day0 + datetime.timedelta(days=int(i) // 10) for i in ids], pa.date32()),
            "ts": pa.array(
                np.datetime64("2024-01-01T00:00:00", "ns") + (ids * 1_000_000_007).astype("timedelta64[ns]"),
                pa.timestamp("ns"),
            ),
            "price": pa.array(
                [decimal.Decimal(int(x)).scaleb(-2) for x in rng.integers(0, 100_000, ROWS)], pa.decimal128(9, 2)
            ),
            "nothing": pa.array([None] * ROWS, pa.int32()),
            "sometimes": pa.array([None if (i // GROUP) % 2 else i for i in range(ROWS)], pa.int64()),
        }
    )


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return _table()


@pytest.fixture(scope="module")
def path(table: pa.Table, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("parquet-read") / "data.parquet"
    pq.write_table(
        table,
        out,
        row_group_size=GROUP,
        bloom_filter_options={"key": {"ndv": GROUP, "fpp": 0.01}, "name": {"ndv": GROUP, "fpp": 0.01}},
    )
    return out


def _as_expression(filters: Any) -> Any:
    """pyarrow's own filter conversion, with the null tests it lacks written as expressions."""
    if filters is None:
        return None
    groups = filters if isinstance(filters[0], list) else [filters]
    out = None
    for conj in groups:
        part = None
        for column, op, *rest in conj:
            if op in ("is null", "is not null"):
                term = pc.field(column).is_null() if op == "is null" else ~pc.field(column).is_null()
            else:
                term = pq.filters_to_expression([[(column, op, rest[0])]])
            part = term if part is None else part & term
        out = part if out is None else out | part
    return out


def _oracle(path: Path, filters: Any, columns: list[str] | None = None) -> pd.DataFrame:
    return pq.read_table(path, filters=_as_expression(filters), columns=columns).to_pandas()


def _same(path: Path, filters: Any, columns: list[str] | None = None) -> None:
    got = read_parquet(path, columns=columns, filters=filters)
    pd.testing.assert_frame_equal(got, _oracle(path, filters, columns))


def _filters(table: pa.Table) -> list[Any]:
    key = table.column("key").to_pylist()
    names = [n for n in table.column("name").to_pylist() if n is not None]
    return [
        [("id", "<", 700)],
        [("id", ">=", 3_500), ("id", "!=", 3_600)],
        [("id", "=", 1234)],
        [("key", "==", key[2_345])],
        [("key", "==", 8)],  # absent everywhere
        [("key", "in", [key[5], key[3_999], 10, 12])],
        [("key", "not in", key[:3_000])],
        [("name", "==", names[77])],
        [("name", "==", "nobody")],
        [("name", "in", [names[1], names[2_000], "zzz"])],
        [("name", "is null")],
        [("name", "is not null"), ("id", "<", 50)],
        [("name", "not in", names[:10])],
        [("score", ">", 15.0)],
        [("score", "!=", 0.0), ("id", "<", 100)],
        [("score", "is null")],
        [("day", ">=", datetime.date(2020, 6, 1))],
        [("day", "==", datetime.date(2020, 2, 3))],
        [("ts", "<", pd.Timestamp("2024-01-01T00:10:00.000000001").to_datetime64())],
        [("ts", "==", datetime.datetime(1999, 1, 1))],
        [("price", ">", decimal.Decimal("990.00"))],
        [("price", "in", [decimal.Decimal("1.00"), decimal.Decimal("5.50")])],
        [("nothing", "is null"), ("id", "<", 10)],
        [("nothing", "==", 3)],
        [("sometimes", "is null")],
        [("sometimes", "is not null")],
        [("sometimes", "not in", [1, 2, 3])],
        [("sometimes", "!=", 5)],
        [[("id", "<", 100)], [("key", "==", key[3_900])], [("name", "==", names[2_500])]],
        [[("id", ">", 3_990)], [("id", "<", 5), ("score", "is not null")]],
        [[("key", "==", 8)], [("name", "==", "nobody")]],
    ]


def test_reads_equal_the_oracle(path: Path, table: pa.Table) -> None:
    for filters in _filters(table):
        _same(path, filters)
        _same(path, filters, columns=["key", "name"])
        _same(path, filters, columns=["price", "id"])


def test_no_filters_reads_everything(path: Path) -> None:
    _same(path, None)
    _same(path, None, columns=["ts", "day"])


def test_sorted_range_is_pruned_by_statistics(path: Path) -> None:
    plan = plan_row_groups(path, [("id", "<", 700)])
    assert plan.kept == (0, 1)
    assert plan.skipped_by_statistics == tuple(range(2, GROUPS))
    assert plan.skipped_by_bloom_filter == ()
    assert plan.rows_kept == 2 * GROUP
    plan = plan_row_groups(path, [("day", "==", datetime.date(2020, 2, 3))])
    assert plan.kept == (0,)  # row 340 is the first on that day


def test_null_tests_are_pruned_by_null_counts(path: Path) -> None:
    assert plan_row_groups(path, [("sometimes", "is null")]).kept == tuple(range(1, GROUPS, 2))
    assert plan_row_groups(path, [("sometimes", "is not null")]).kept == tuple(range(0, GROUPS, 2))
    assert plan_row_groups(path, [("nothing", "==", 3)]).kept == ()


def test_random_key_is_pruned_by_bloom_filters(path: Path, table: pa.Table) -> None:
    key = table.column("key").to_pylist()
    value = key[2_345]
    plan = plan_row_groups(path, [("key", "==", value)])
    assert 2_345 // GROUP in plan.kept
    # the keys are spread over every row group's min..max, so only the bloom filters can tell them apart;
    # with fpp 0.01 nearly all of the other seven say no
    assert plan.skipped_by_statistics == ()
    assert len(plan.skipped_by_bloom_filter) >= GROUPS - 3
    assert set(plan.kept) | set(plan.skipped_by_bloom_filter) == set(range(GROUPS))
    absent = plan_row_groups(path, [("name", "==", "name-0050000")])
    assert len(absent.skipped_by_bloom_filter) >= GROUPS - 2
    # an "in" is skipped only where no value may be present
    both = plan_row_groups(path, [("key", "in", [key[10], key[3_990]])])
    assert {0, GROUPS - 1} <= set(both.kept)


def test_bloom_filters_are_not_read_when_statistics_decide(path: Path) -> None:
    plan = plan_row_groups(path, [("key", "==", -5)])  # below every minimum
    assert plan.skipped_by_statistics == tuple(range(GROUPS))
    assert plan.bloom_filters_read == 0


def test_disjunction_keeps_a_group_any_branch_needs(path: Path, table: pa.Table) -> None:
    key = table.column("key").to_pylist()
    plan = plan_row_groups(path, [[("id", "<", 100)], [("key", "==", key[3_900])]])
    assert 0 in plan.kept and 3_900 // GROUP in plan.kept
    assert len(plan.kept) <= 4


@pytest.mark.parametrize(
    ("columns", "filters", "message"),
    [
        (["missing"], None, "missing"),
        (None, [("missing", "==", 1)], "missing"),
        (None, [("id", "~", 1)], "unknown op"),
        (None, [("id", "==", "seven")], "not a value"),
        (None, [("id", "in", 5)], "list of values"),
        (None, [], "must not be empty"),
        (None, "id == 1", "list"),
        (None, [("id", "==")], "needs a value"),
        (None, [("id", "is null", 3)], "no value"),
        (None, [("id", "==", 1), [("id", "==", 2)]], "mix"),
        (None, [("id", "==", None)], "is null"),
    ],
)
def test_bad_arguments_raise_parquet_error(path: Path, columns: Any, filters: Any, message: str) -> None:
    with pytest.raises(ParquetError, match=message):
        read_parquet(path, columns=columns, filters=filters)


def test_empty_lists(tmp_path: Path) -> None:
    """``in []`` keeps no row and ``not in []`` every row, nulls included, for every type, as for ``read_orc``
    (pyarrow's own conversion types an empty list as null, which it cannot compare with a string column)."""
    out = tmp_path / "empty.parquet"
    table = pa.table({"i": [1, None, 3], "s": ["a", None, "c"], "x": [0.5, None, float("nan")]})
    pq.write_table(table, out, row_group_size=2)
    for column in ("i", "s", "x"):
        assert len(read_parquet(out, filters=[(column, "in", [])])) == 0
        pd.testing.assert_frame_equal(read_parquet(out, filters=[(column, "not in", [])]), table.to_pandas())
        assert 0 not in plan_row_groups(out, [(column, "in", [])]).kept  # (1 of x holds only NaN: no min, max)


def test_not_a_parquet_file_raises(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(ParquetError, match=r"bad\.parquet"):
        read_parquet(bad)


def test_nested_columns_are_read_but_not_filtered(tmp_path: Path) -> None:
    out = tmp_path / "nested.parquet"
    table = pa.table({"id": [1, 2, 3], "s": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, None]})
    pq.write_table(table, out)
    _same(out, [("id", ">", 1)], columns=["s"])
    with pytest.raises(ParquetError, match="not primitive"):
        read_parquet(out, filters=[("s", "is null")])


def test_file_objects_are_read(path: Path, table: pa.Table) -> None:
    key = table.column("key").to_pylist()
    with open(path, "rb") as handle:
        got = read_parquet(handle, columns=["id"], filters=[("key", "==", key[42])])
    assert got["id"].tolist() == [42]


def test_floats_with_nan_are_never_lost(tmp_path: Path) -> None:
    out = tmp_path / "nan.parquet"
    values = [float("nan"), 1.0, 1.0, float("nan"), -0.0, 0.0, 2.0, None]
    table = pa.table({"x": values})
    pq.write_table(table, out, row_group_size=2)
    # pyarrow's own filtered read is no oracle here: it skips [NaN, 1.0] for "x != 1.0" by its min/max
    for filters in (
        [("x", "!=", 1.0)],
        [("x", "==", 0.0)],
        [("x", "==", -0.0)],
        [("x", "not in", [1.0])],
        [("x", ">", 0.5)],
        [("x", "==", float("nan"))],
        [("x", "is null")],
    ):
        pd.testing.assert_frame_equal(read_parquet(out, filters=filters), _reference(table, [filters]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_pruning_never_loses_a_row(path: Path, table: pa.Table, data: st.DataObject) -> None:
    key = table.column("key").to_pylist()
    names = [n for n in table.column("name").to_pylist() if n is not None]
    ops = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null"]

    def term() -> tuple[Any, ...]:
        column = data.draw(st.sampled_from(["id", "key", "name", "sometimes"]))
        op = data.draw(st.sampled_from(ops))
        if op in ("is null", "is not null"):
            return (column, op)
        if column == "name":
            pick = st.one_of(st.sampled_from(names), st.text(alphabet="amen-0123", max_size=12))
        elif column == "key":
            pick = st.one_of(st.sampled_from(key), st.integers(-10, 200_000))
        else:
            pick = st.integers(-10, ROWS + 10)
        if op in ("in", "not in"):
            return (column, op, data.draw(st.lists(pick, min_size=1, max_size=4)))
        return (column, op, data.draw(pick))

    filters = [[term() for _ in range(data.draw(st.integers(1, 2)))] for _ in range(data.draw(st.integers(1, 3)))]
    got = read_parquet(path, filters=filters)
    expected = _reference(table, filters)
    pd.testing.assert_frame_equal(got, expected)


def _reference(table: pa.Table, filters: Any) -> pd.DataFrame:
    """The full read filtered row by row in pandas, by pyarrow's rules (nulls fail comparisons but pass "not in";
    NaN is unequal to everything)."""
    frame = table.to_pandas()
    if not isinstance(filters[0], list):
        filters = [filters]
    keep = pd.Series(False, index=frame.index)
    for conj in filters:
        part = pd.Series(True, index=frame.index)
        for column, op, *rest in conj:
            col = frame[column]
            # arrow's nulls, not pandas' isna(), which cannot tell a null from NaN
            null = pd.Series(table.column(column).is_null().to_numpy(zero_copy_only=False), index=frame.index)
            if op == "is null":
                hit = null
            elif op == "is not null":
                hit = ~null
            elif op == "in":
                hit = col.isin(rest[0]) & ~null
            elif op == "not in":
                hit = ~col.isin(rest[0]) | null
            else:
                v = rest[0]
                compare = {"==": col.eq, "!=": col.ne, "<": col.lt, "<=": col.le, ">": col.gt, ">=": col.ge}[op]
                hit = compare(v).fillna(False).astype(bool) & ~null
            part &= hit.astype(bool)
        keep |= part
    return table.take(np.flatnonzero(keep.to_numpy())).to_pandas()


def test_spark_written_bloom_filters_prune(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    rng = random.Random(5)
    n = 20_000
    keys = rng.sample(range(10**9), n)
    rows = [(i, keys[i], f"k{keys[i]}") for i in range(n)]
    frame = spark.createDataFrame(rows, "id long, key long, skey string").repartition(1)
    out = tmp_path_factory.mktemp("spark-parquet") / "t"
    (
        frame.write.option("parquet.bloom.filter.enabled#key", "true")
        .option("parquet.bloom.filter.enabled#skey", "true")
        .option("parquet.block.size", 64 * 1024)
        .option("parquet.page.size", 8 * 1024)
        .parquet(str(out))
    )
    (path,) = sorted(out.glob("*.parquet"))
    assert pq.ParquetFile(path).metadata.num_row_groups > 1
    full = pq.read_table(path)
    for filters in (
        [("key", "==", keys[1_234])],
        [("skey", "==", f"k{keys[19_000]}")],
        [("key", "in", [keys[7], keys[15_000], -1])],
        [("skey", "==", "absent")],
        [[("key", "==", keys[3])], [("id", ">", 19_990)]],
    ):
        got = read_parquet(path, filters=filters)
        pd.testing.assert_frame_equal(got, _reference(full, filters))
    plan = plan_row_groups(path, [("key", "==", keys[1_234])])
    assert plan.skipped_by_bloom_filter and len(plan.kept) < plan.num_row_groups


def test_benchmark_runs_at_tiny_size(tmp_path: Path) -> None:
    from benchmarks import parquet_bloom

    results = parquet_bloom.run(4_000, 1, tmp_path)
    assert [r["rows"] for r in results] == [1] * 6 + [0] * 6  # it checks the three reads agree itself
    assert sum(int(r["kept"]) for r in results[6:]) <= 2  # bloom filters (fpp 0.01) rule out nearly all
    assert "| int key, present |" in "\n".join(parquet_bloom.table_lines(results))


@pytest.mark.parametrize("arrow_type", [pa.float32(), pa.float64()], ids=["float", "double"])
@pytest.mark.parametrize("stored", [0.0, -0.0])
def test_float_zeros_are_equal_for_bloom_pruning(tmp_path: Path, arrow_type: pa.DataType, stored: float) -> None:
    """0.0 and -0.0 have different PLAIN bits, so a writer hashes only the one it stored; ``x == 0.0`` still
    matches ``-0.0`` rows, so the bloom filter must be asked about both zeros."""
    x = pa.array([stored, 1.5, 2.5] * 10 + [-1.0, 1.0, 0.5] * 10, arrow_type)  # the later groups span 0.0
    path = tmp_path / "zeros.parquet"
    pq.write_table(pa.table({"x": x}), path, row_group_size=10, bloom_filter_options={"x": True})
    for value in (0.0, -0.0):
        for filters in ([("x", "==", value)], [("x", "in", [value, 9.0])]):
            got = read_parquet(path, filters=filters)
            # pyarrow's is_in tells the zeros apart where == does not; orcjit's "in" does not (a documented
            # departure): pyarrow agrees once both zeros are listed
            listed = [(c, op, [*v, -value]) if op == "in" else (c, op, v) for c, op, v in filters]
            pd.testing.assert_frame_equal(got, pq.read_table(path, filters=listed).to_pandas())
            assert len(got) == 10
            plan = plan_row_groups(path, filters)
            assert plan.kept == (0, 1, 2) and plan.skipped_by_bloom_filter == (3, 4, 5)
