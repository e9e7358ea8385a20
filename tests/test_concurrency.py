"""Sixteen threads reading at once get exactly what one thread gets.

Threads share one ``ORCFile`` (over a path, bytes, a file object or an Arrow filesystem), or open their own, of
the same file or of different ones: pyarrow and pyorc files in several codecs with dictionaries, bloom filters,
nested types and unions, and Java files of the ORC project (LZO among them). Every thread runs whole reads,
projections, filters that prune stripes, row groups (seeking into streams) and rows, single stripes, stripe
iteration, row ranges, Arrow tables, statistics, stripe footers and ``explain`` (row indexes and bloom filters),
with ``use_threads`` on and off, and compares each result with a reference read made by one thread beforehand;
that reference equals ``pandas.read_orc`` where pandas can read the file. A ``threading.Barrier`` starts the
threads together, and every round opens a fresh ``ORCFile`` so its lazily read state (stripe statistics) is cold
when the threads arrive.

Closing an ``ORCFile`` while other threads read it gives each of them either a complete, correct result or an
``OrcError``: never a crash, another exception, or bytes of another file that reused the descriptor.

``ORCJIT_CONCURRENCY_ROUNDS`` sets the rounds per test (default 2) for a longer run.
"""

from __future__ import annotations

import io
import os
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.fs
import pytest

import orcjit
from orcjit import OrcError

from .conftest import EXAMPLES
from .factory import _top_level_fields, all_types_pyorc, all_types_table, write_pyarrow, write_pyorc

THREADS = 16
ROUNDS = int(os.environ.get("ORCJIT_CONCURRENCY_ROUNDS", "2"))
# how long a thread waits at the barrier for the others before the test fails (not a timing assertion: a guard
# against a hung test when a thread dies before reaching it)
BARRIER_TIMEOUT = 300.0


@dataclass
class Case:
    """A file and the arguments its reads use; ``ops`` are filled in by :func:`operations`."""

    name: str
    path: Path
    columns: list[str]
    range_column: str
    point_column: str
    id_column: str | None = None
    pandas_columns: list[str] | None = None  # what pandas.read_orc can read; None: every column
    pandas_reads: bool = True
    filters: dict[str, Any] = field(default_factory=dict)
    ops: dict[str, Callable[[orcjit.ORCFile], Any]] = field(default_factory=dict)
    reference: dict[str, Any] = field(default_factory=dict)


def with_id(table: pa.Table) -> pa.Table:
    """The table with a leading ``id`` column counting rows, so that range filters on it prune row groups."""
    return table.add_column(0, "id", pa.array(np.arange(len(table), dtype=np.int64)))


def build_cases(root: Path) -> list[Case]:
    # small files keep 16 threads x rounds quick; small stripes and row groups keep them made of many parts
    a = write_pyarrow(
        root / "pyarrow-zstd.orc",
        with_id(all_types_table(3000, seed=11, nulls="some")),
        compression="zstd",
        row_index_stride=250,
        bloom_filter_columns=["i64", "str"],
        dictionary_key_size_threshold=1.0,
    )
    c = write_pyarrow(
        root / "pyarrow-none.orc",
        with_id(all_types_table(2400, seed=12, nulls="none")),
        compression="none",
        stripe_size=8 * 1024,
        batch_size=512,
        row_index_stride=200,
    )
    d = write_pyarrow(
        root / "pyarrow-lz4.orc", all_types_table(1500, seed=13, nulls="some"), compression="lz4", row_index_stride=400
    )
    schema, rows = all_types_pyorc(2400, seed=5, nulls="some")
    b = write_pyorc(
        root / "pyorc-zlib.orc",
        schema.replace("struct<", "struct<id:bigint,", 1),
        [(i, *row) for i, row in enumerate(rows)],
        compression="zlib",
        stripe_size=24 * 1024,
        row_index_stride=150,
        bloom_filter_columns=["i32", "varchar"],
        dict_key_size_threshold=1.0,
    )
    e = write_pyorc(
        root / "pyorc-snappy.orc", schema, rows[:1500], compression="snappy", stripe_size=16384, row_index_stride=300
    )
    union_free = [name for name in ["id", *field_names(schema)] if name != "union"]
    return [
        Case("pyarrow-zstd", a, ["id", "str", "list", "map", "struct.b", "dec38"], "i64", "str", "id"),
        Case("pyorc-zlib", b, ["varchar", "char", "union", "dec18"], "i32", "varchar", "id", union_free),
        Case("pyarrow-none", c, ["ts", "bin", "struct", "date"], "f64", "i32", "id"),
        Case("java-lzo", EXAMPLES / "TestVectorOrcFile.testLzo.orc", ["x", "z"], "y", "x", pandas_reads=False),
        Case("pyarrow-lz4", d, ["i8", "str", "ts_utc"], "i16", "str"),
        Case("pyorc-snappy", e, ["union", "map", "bool"], "dec5", "i64", pandas_columns=union_free[1:]),
        Case("java-bloom", EXAMPLES / "over1k_bloom.orc", ["_col7", "_col9"], "_col2", "_col7"),
        Case("java-snappy", EXAMPLES / "TestOrcFile.testSnappy.orc", ["string1"], "int1", "string1"),
    ]


def field_names(schema: str) -> list[str]:
    return [part.split(":", 1)[0] for part in _top_level_fields(schema)]


def python_value(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def make_filters(case: Case, full: pd.DataFrame) -> dict[str, Any]:
    """Filters from the data itself: a range on a numeric column, a point for bloom filters, a disjunction with a
    null test, and (where the file has an ``id`` column) a range of rows that row-group statistics single out."""
    numbers = full[case.range_column].dropna()
    middle = python_value(numbers.sort_values().iloc[len(numbers) // 2])
    low = python_value(numbers.sort_values().iloc[len(numbers) // 4])
    points = full[case.point_column].dropna()
    point = python_value(points.iloc[min(7, len(points) - 1)])
    filters: dict[str, Any] = {
        "range": [(case.range_column, ">", middle)],
        "point": [(case.point_column, "==", point)],
        "dnf": [[(case.range_column, "<", low)], [(case.point_column, "is null")]],
    }
    if case.id_column is not None:
        n = len(full)
        filters["row groups"] = [(case.id_column, ">=", n * 3 // 10), (case.id_column, "<", n * 9 // 20)]
    return filters


def operations(case: Case) -> dict[str, Callable[[orcjit.ORCFile], Any]]:
    """Every read and accessor a thread runs on an open file, by name."""
    cols, flt = case.columns, case.filters
    ops: dict[str, Callable[[orcjit.ORCFile], Any]] = {
        "read": lambda f: f.read(),
        "read, 1 thread": lambda f: f.read(use_threads=False),
        "read columns": lambda f: f.read(columns=cols, max_workers=3),
        "read range filter": lambda f: f.read(filters=flt["range"]),
        "read range filter and columns, 1 thread": lambda f: f.read(
            columns=cols, filters=flt["range"], use_threads=False
        ),
        "read point (bloom filters)": lambda f: f.read(filters=flt["point"]),
        "read dnf, pyarrow dtypes": lambda f: f.read(filters=flt["dnf"], dtype_backend="pyarrow"),
        "read dictionaries as categories": lambda f: f.read(dictionary_as_category=True, use_threads=False),
        "read_stripe each": lambda f: [f.read_stripe(i, columns=cols, use_threads=False) for i in range(f.nstripes)],
        "read_stripe last, filtered": lambda f: f.read_stripe(-1, filters=flt["range"]),
        "iter_stripes filtered": lambda f: list(f.iter_stripes(columns=cols, filters=flt["range"])),
        "iter_stripes, 1 thread": lambda f: list(f.iter_stripes(use_threads=False)),
        "read_rows": lambda f: f.read_rows(f.nrows // 3, f.nrows // 3 + 777, columns=cols),
        "read_arrow filtered": lambda f: f.read_arrow(filters=flt["dnf"], columns=cols),
        "statistics": lambda f: [s.to_dict() for s in f.statistics],
        "stripe_statistics": lambda f: [[s.to_dict() for s in f.stripe_statistics(i)] for i in range(f.nstripes)],
        "stripe_footer": lambda f: [f.stripe_footer(i) for i in range(f.nstripes)],
        "explain point (bloom filters)": lambda f: f.explain(flt["point"]).to_dict(),
        "explain range": lambda f: f.explain(flt["range"], columns=cols).to_dict(),
    }
    if "row groups" in flt:
        ops["read row groups"] = lambda f: f.read(filters=flt["row groups"])
        ops["read row groups and columns, 1 thread"] = lambda f: f.read(
            columns=cols, filters=flt["row groups"], use_threads=False
        )
        ops["explain row groups"] = lambda f: f.explain(flt["row groups"]).to_dict()
    return ops


def assert_frames_equal(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    # pandas cannot compare ArrowDtype unions: those columns are compared as Arrow arrays
    unions = [
        name
        for name, dtype in want.dtypes.items()
        if isinstance(dtype, pd.ArrowDtype) and pa.types.is_union(dtype.pyarrow_dtype)
    ]
    for name in unions:
        assert pa.array(got[name]).equals(pa.array(want[name])), f"{what}: column {name}"
    pd.testing.assert_frame_equal(got.drop(columns=unions), want.drop(columns=unions), obj=what)


def assert_same(got: Any, want: Any, what: str) -> None:
    if isinstance(want, pd.DataFrame):
        assert_frames_equal(got, want, what)
    elif isinstance(want, pa.Table):
        assert got.equals(want), what
    elif isinstance(want, list) and want and isinstance(want[0], pd.DataFrame):
        assert len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_frames_equal(g, w, f"{what} [{i}]")
    else:
        assert got == want, what


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    """Each case with its filters, operations and single-threaded reference results, checked against pandas."""
    out = build_cases(tmp_path_factory.mktemp("concurrency"))
    for case in out:
        with orcjit.ORCFile(case.path) as f:
            assert f.nrows >= 1500
            case.filters = make_filters(case, f.read())
            case.ops = operations(case)
            case.reference = {name: op(f) for name, op in case.ops.items()}
            if "row groups" in case.filters:
                # the row-group filter really skips row groups inside a stripe it keeps, so seeks are exercised
                stripes = case.reference["explain row groups"]["stripes"]
                assert any(0 < s.get("row_groups_kept", 0) < s.get("row_groups", 0) for s in stripes), stripes
        if case.pandas_reads:
            want = pd.read_orc(case.path, columns=case.pandas_columns)
            got = case.reference["read"]
            assert_same(got[want.columns] if case.pandas_columns else got, want, f"{case.name}: pandas.read_orc")
    return out


def run_together(work: Callable[[int], None], threads: int = THREADS) -> None:
    """Run ``work(i)`` on ``threads`` threads released together by a barrier; fail with every thread's error."""
    barrier = threading.Barrier(threads)
    errors: list[str] = []

    def main(i: int) -> None:
        try:
            barrier.wait(BARRIER_TIMEOUT)
            work(i)
        except BaseException as exc:  # any exception at all fails the test, with its thread named
            errors.append(f"thread {i}: " + "".join(traceback.format_exception(exc)))

    pool = [threading.Thread(target=main, args=(i,), name=f"test-concurrency-{i}") for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, f"{len(errors)} of {threads} threads failed:\n" + "\n".join(errors[:3])


def run_ops(case: Case, f: orcjit.ORCFile, thread: int, count: int, round_: int = 0) -> None:
    """Run ``count`` of the case's operations on ``f``, starting at one that depends on the thread and the round
    (so that at any moment threads run different operations and the same ones, and two operations from every
    thread cover them all), and compare each with the reference."""
    names = list(case.ops)
    for k in range(count):
        name = names[(thread * 5 + round_ * 3 + k) % len(names)]
        assert_same(case.ops[name](f), case.reference[name], f"{case.name}: {name}")


def test_references(cases: list[Case]) -> None:
    """Every operation of every case has a reference, and reads that filter keep fewer rows than full reads."""
    for case in cases:
        assert set(case.reference) == set(case.ops)
        full = len(case.reference["read"])
        assert 0 < len(case.reference["read range filter"]) < full
        assert 0 < len(case.reference["read point (bloom filters)"]) < full


@pytest.mark.parametrize("name", ["pyarrow-zstd", "pyorc-zlib", "pyarrow-none", "java-lzo"])
def test_one_shared_orcfile(cases: list[Case], name: str) -> None:
    """Sixteen threads share one ORCFile over the file's path, each running operations in its own order."""
    case = next(c for c in cases if c.name == name)
    for r in range(ROUNDS):
        with orcjit.ORCFile(case.path) as f:  # fresh each round: lazily read state is cold when threads arrive
            run_together(lambda i, f=f, r=r: run_ops(case, f, i, 2, r))


def open_as(kind: str, path: Path, opened: list[Any]) -> orcjit.ORCFile:
    """An ORCFile over ``path`` through one kind of source; file objects it needs are put in ``opened``."""
    if kind == "path":
        return orcjit.ORCFile(path)
    if kind == "bytes":
        return orcjit.ORCFile(path.read_bytes())
    if kind == "BytesIO":
        opened.append(io.BytesIO(path.read_bytes()))
        return orcjit.ORCFile(opened[-1])
    if kind == "open file":
        opened.append(open(path, "rb"))  # noqa: SIM115 - closed by the caller
        return orcjit.ORCFile(opened[-1])
    if kind == "arrow filesystem":
        return orcjit.ORCFile(str(path), filesystem=pyarrow.fs.LocalFileSystem())
    raise AssertionError(kind)


SOURCES = ["bytes", "BytesIO", "open file", "arrow filesystem"]


@pytest.mark.parametrize(
    ("kind", "name"), [(kind, ["pyarrow-zstd", "pyorc-zlib"][k % 2]) for k, kind in enumerate(SOURCES)]
)
def test_one_shared_orcfile_over_other_sources(cases: list[Case], kind: str, name: str) -> None:
    """A shared ORCFile over bytes, a file object (whose position every read moves, under a lock) or an Arrow
    file."""
    case = next(c for c in cases if c.name == name)
    for r in range(ROUNDS):
        opened: list[Any] = []
        f = open_as(kind, case.path, opened)
        try:
            run_together(lambda i, f=f, r=r: run_ops(case, f, i, 2, r))
        finally:
            f.close()
            for obj in opened:
                obj.close()


def test_one_orcfile_per_thread_over_different_files(cases: list[Case]) -> None:
    """Each thread opens its own ORCFile, of one of the files through one kind of source, so that different
    files and the same file through different sources are read at once; read_orc runs beside them."""
    kinds = ["path", *SOURCES]

    def work(i: int) -> None:
        case = cases[i % len(cases)]
        opened: list[Any] = []
        f = open_as(kinds[i % len(kinds)], case.path, opened)
        try:
            run_ops(case, f, i, 2)
        finally:
            f.close()
            for obj in opened:
                obj.close()
        columns = case.columns if i % 2 else None
        filters = case.filters["range"] if i % 3 else None
        got = orcjit.read_orc(case.path, columns=columns, filters=filters, use_threads=bool(i % 4))
        with orcjit.ORCFile(case.path) as alone:
            want = alone.read(columns=columns, filters=filters, use_threads=False)
        assert_same(got, want, f"{case.name}: read_orc")

    for _ in range(ROUNDS):
        run_together(work)


def test_many_orcfiles_over_one_file_object(cases: list[Case]) -> None:
    """ORCFiles that each wrap the same file object take turns with its position: a read by one never sees the
    bytes another one seeked to."""
    case = cases[0]
    with open(case.path, "rb") as fh:
        for _ in range(ROUNDS):
            run_together(lambda i: run_ops(case, orcjit.ORCFile(fh), i, 1))
        buffer = io.BytesIO(case.path.read_bytes())
        for _ in range(ROUNDS):
            run_together(lambda i: run_ops(case, orcjit.ORCFile(buffer), i, 1))


CLOSE_OPS = ["read columns", "read row groups and columns, 1 thread", "read_stripe last, filtered", "stripe_footer"]


def close_under_readers(case: Case, kind: str, other: Path) -> None:
    """Thread 0 closes a shared ORCFile (or the file object under it) while the other threads read it in a loop,
    then opens files of ``other`` that may be given the freed descriptor numbers."""
    opened: list[Any] = []
    f = open_as(kind, case.path, opened)
    closed = threading.Event()
    outcomes: list[str] = []
    others: list[Any] = []

    def work(i: int) -> None:
        if i == 0:
            run_ops(case, f, 1, 1)  # the readers get going meanwhile
            f.close()
            for obj in opened:
                obj.close()
            closed.set()
            others.extend(open(other, "rb") for _ in range(8))  # noqa: SIM115 - closed below
            return
        k = 0
        while True:
            name = CLOSE_OPS[(i + k) % len(CLOSE_OPS)]
            k += 1
            after_close = closed.is_set()
            try:
                got = case.ops[name](f)
            except OrcError as exc:
                assert "closed" in str(exc), str(exc)
                outcomes.append("OrcError")
                return
            assert not after_close, f"{name} read a closed file"
            assert_same(got, case.reference[name], f"{case.name}: {name} while closing")
            outcomes.append("read")

    try:
        run_together(work)
    finally:
        for handle in others:
            handle.close()
    assert outcomes.count("OrcError") == THREADS - 1  # every reader ended on the closed file's error
    # an ORCFile closes only what it opened; a file object was closed by its owner
    assert f.source.closed or (kind == "open file" and opened[0].closed)
    if kind == "path":
        assert f.source._fd == -1  # type: ignore[attr-defined]  # released after the last read in flight


@pytest.mark.parametrize("kind", ["path", "bytes", "arrow filesystem", "open file"])
def test_close_while_threads_read(cases: list[Case], kind: str) -> None:
    """Closing an ORCFile (or, for a file object, the object itself) while fifteen threads read it: each read
    that runs gives the reference result or OrcError, and after the close every thread's next read raises
    OrcError. Right after the close, files of another ORC file are opened: had a descriptor been freed while a
    read still used it, that read could get the other file's bytes."""
    for _ in range(ROUNDS):
        close_under_readers(cases[0], kind, cases[2].path)


def test_a_forked_child_reads_on_threads_of_its_own(tmp_path: Path) -> None:
    """Decoding threads are started once per process and shared by reads; a child forked after the parent's
    threaded reads starts its own (a pool copied over a fork has no threads, and would never run a task)."""
    import subprocess
    import sys
    import textwrap

    path = write_pyarrow(tmp_path / "big.orc", all_types_table(200_000, seed=3), stripe_size=256 * 1024)
    code = textwrap.dedent(
        f"""
        import multiprocessing, orcjit
        from orcjit.reading import scan
        expected = orcjit.read_orc({str(path)!r})
        assert scan._POOLS, "the parent's read used the shared pool"
        def child(_):
            return orcjit.read_orc({str(path)!r}).equals(expected)
        with multiprocessing.get_context("fork").Pool(2) as pool:
            print(pool.map(child, [0, 1]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[True, True]"


def test_small_reads_decode_on_the_calling_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read of a few thousand values starts no thread (handing its tasks over costs more than decoding them);
    a large one uses the pool. Both give what pyarrow gives."""
    from orcjit.reading import scan

    submitted: list[int] = []
    real = scan._pool

    def counting(workers: int) -> Any:
        submitted.append(workers)
        return real(workers)

    monkeypatch.setattr(scan, "_pool", counting)
    small = write_pyarrow(tmp_path / "small.orc", all_types_table(1000, seed=4))
    got = orcjit.read_orc(small, max_workers=4)
    assert submitted == []
    assert got.equals(pd.read_orc(small))
    large = write_pyarrow(tmp_path / "large.orc", all_types_table(100_000, seed=5), stripe_size=64 * 1024)
    got = orcjit.read_orc(large, max_workers=4)
    assert submitted and set(submitted) == {4}
    assert got.equals(pd.read_orc(large))
