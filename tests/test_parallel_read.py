"""Parallel reads: stripes and columns decoded on a thread pool into arrays allocated once per read give exactly
what one thread and pandas.read_orc give, with and without filters, and errors still surface as OrcError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import orcjit
from orcjit.reading import options, scan
from orcjit.types.schema import TypeNode

from .factory import all_types_table, write_pyarrow


@pytest.fixture(scope="module")
def striped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several stripes of every type with nulls, row groups of 1,000 rows."""
    table = all_types_table(30_000, seed=7, nulls="some")
    path = tmp_path_factory.mktemp("parallel") / "striped.orc"
    write_pyarrow(path, table, compression="zstd", stripe_size=64 * 1024, row_index_stride=1000)
    f = orcjit.ORCFile(path)
    assert f.nstripes >= 3
    return path


@pytest.fixture(scope="module")
def one_stripe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = all_types_table(5_000, seed=3, nulls="none")
    path = tmp_path_factory.mktemp("parallel") / "one.orc"
    write_pyarrow(path, table, compression="snappy")
    assert orcjit.ORCFile(path).nstripes == 1
    return path


@pytest.mark.parametrize("workers", [1, 2, 5])
@pytest.mark.parametrize("backend", [None, "numpy_nullable", "pyarrow"])
def test_threads_give_what_one_thread_and_pandas_give(striped: Path, workers: int, backend: str | None) -> None:
    want = pd.read_orc(striped, dtype_backend=backend) if backend else pd.read_orc(striped)
    got = orcjit.read_orc(striped, dtype_backend=backend, max_workers=workers)
    alone = orcjit.read_orc(striped, dtype_backend=backend, use_threads=False)
    pd.testing.assert_frame_equal(got, alone)
    pd.testing.assert_frame_equal(got, want)


def test_one_stripe_is_split_by_column(one_stripe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With fewer stripes than workers each column is its own task, and the result is unchanged."""
    seen: list[int] = []
    original = scan.run_tasks

    def counting(fn, tasks, workers):  # type: ignore[no-untyped-def]
        seen.append(len(tasks))
        return original(fn, tasks, workers)

    monkeypatch.setattr("orcjit.reading.scan.run_tasks", counting)
    f = orcjit.ORCFile(one_stripe)
    got = f.read(max_workers=4)
    assert seen == [len(f.schema.children)]
    pd.testing.assert_frame_equal(got, pd.read_orc(one_stripe))
    seen.clear()
    f.read(use_threads=False)
    assert seen == [1]


@pytest.mark.parametrize(
    "filters",
    [
        [("i64", ">", 0)],
        [("i64", "<", -(2**40)), ("f64", ">", 0.0)],
        [[("i32", "in", [1, 2, 3])], [("str", "is null")]],
    ],
)
def test_filtered_threads_match_a_filtered_full_scan(striped: Path, filters: list) -> None:
    full = pd.read_orc(striped)
    got = orcjit.read_orc(striped, filters=filters, max_workers=3)
    alone = orcjit.read_orc(striped, filters=filters, use_threads=False)
    pd.testing.assert_frame_equal(got, alone)
    conjunctions = filters if isinstance(filters[0], list) else [filters]
    mask = np.zeros(len(full), dtype=bool)
    for conjunction in conjunctions:
        part = np.ones(len(full), dtype=bool)
        for name, op, *value in conjunction:
            column = full[name]
            if op == "is null":
                part &= column.isna().to_numpy()
            elif op == "in":
                part &= column.isin(value[0]).to_numpy()
            else:
                part &= column.notna().to_numpy() & {">": np.greater, "<": np.less}[op](column, value[0]).to_numpy()
        mask |= part
    want = full[mask].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_row_group_runs_decode_into_their_slices(tmp_path: Path) -> None:
    """Runs of kept row groups land at the right rows of the preallocated result (sorted key, two runs)."""
    n = 20_000
    table = pa.table({"key": np.arange(n, dtype=np.int64), "x": np.arange(n, dtype=np.float64) * 0.5})
    path = write_pyarrow(tmp_path, table, row_index_stride=1000)
    filters = [[("key", "<", 1500)], [("key", ">=", 17_200)]]
    f = orcjit.ORCFile(path)
    assert int(f.explain(filters).stripes[0].row_groups.keep.sum()) < 20
    got = f.read(filters=filters, max_workers=2)
    keys = np.r_[0:1500, 17_200:n]
    np.testing.assert_array_equal(got["key"].to_numpy(), keys)
    np.testing.assert_array_equal(got["x"].to_numpy(), keys * 0.5)


def test_result_columns_can_be_written(striped: Path) -> None:
    """Columns decoded into the read's own arrays (not views of read-only stream buffers) take assignments."""
    frame = orcjit.read_orc(striped, columns=["i8", "i64", "f32", "f64", "bool", "date", "ts"])
    before = frame.copy()
    for name in frame.columns:
        frame.loc[0, name] = before.loc[1, name]
        pd.testing.assert_series_equal(frame[name].iloc[:2], before[name].iloc[[1, 1]].set_axis([0, 1]))
        pd.testing.assert_series_equal(frame[name].iloc[1:], before[name].iloc[1:])


def test_read_arrow_and_iter_stripes_with_threads(striped: Path) -> None:
    f = orcjit.ORCFile(striped)
    assert f.read_arrow(max_workers=4).equals(f.read_arrow(use_threads=False))
    for a, b in zip(f.iter_stripes(max_workers=4), f.iter_stripes(use_threads=False), strict=True):
        pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(f.read_stripe(1, max_workers=3), f.read_stripe(1, use_threads=False))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_max_workers_must_be_a_positive_int(striped: Path, bad: object) -> None:
    with pytest.raises(orcjit.OrcError, match="max_workers"):
        orcjit.read_orc(striped, max_workers=bad)


def test_use_threads_must_be_a_bool(striped: Path) -> None:
    with pytest.raises(orcjit.OrcError, match="use_threads"):
        orcjit.read_orc(striped, use_threads="yes")


def test_a_corrupt_column_raises_orc_error_from_a_worker(one_stripe: Path, tmp_path: Path) -> None:
    """A stream that fails to decode in a worker thread raises the same OrcError as on one thread."""
    f = orcjit.ORCFile(one_stripe)
    footer = f.stripe_footer(0)
    column = next(c.column_id for c in f.schema.children if c.name == "i64")
    stream = next(s for s in footer.streams if s.column == column and s.kind_name == "DATA")
    data = bytearray(one_stripe.read_bytes())
    data[stream.offset : stream.offset + stream.length] = b"\xff" * stream.length
    broken = tmp_path / "broken.orc"
    broken.write_bytes(bytes(data))
    errors = []
    for kwargs in ({"max_workers": 4}, {"use_threads": False}):
        with pytest.raises(orcjit.OrcError) as info:
            orcjit.read_orc(broken, **kwargs)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert "column" in errors[0]


def test_field_groups() -> None:
    fields = [TypeNode(i, "bigint", name=f"c{i}") for i in range(1, 4)]
    assert scan.field_groups(fields, runs=1, workers=1) == [fields]
    assert scan.field_groups(fields, runs=8, workers=2) == [fields]
    assert scan.field_groups(fields, runs=1, workers=2) == [[f] for f in fields]


def test_workers_default_to_the_cpus_this_process_may_use() -> None:
    assert options.workers_for(True, None) >= 1
    assert options.workers_for(False, 8) == 1
    assert options.workers_for(True, 3) == 3
