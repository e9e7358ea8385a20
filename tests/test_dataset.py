"""Datasets: directories, globs and lists of ORC files read as one table (``orcjit.ORCDataset``, and ``read_orc``
given a directory), checked against a full read filtered by a reference, pyarrow.dataset and, in
``test_dataset_spark.py``, Spark."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pa_ds
import pyarrow.orc as pa_orc
import pytest

import orcjit
from orcjit import ORCDataset, OrcError
from tests.test_pushdown_differential import reference_mask


def _write(path: Path, table: pa.Table, **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pa_orc.write_table(table, str(path), **{"row_index_stride": 100, "stripe_size": 8192, **kwargs})
    return path


def _events(n: int, seed: int, start: int = 0) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = np.arange(start, start + n)
    values = rng.normal(size=n)
    user = pa.array([None if i % 17 == 0 else f"user{i % 23}" for i in ids])
    return pa.table({"id": ids, "value": values, "user": user})


@pytest.fixture(scope="module")
def hive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Hive-partitioned folder as Spark leaves it: year=/city= folders with part files, ``_SUCCESS``, ``.crc``
    files and a ``_temporary`` folder beside them, an empty part file, and a null partition."""
    root = tmp_path_factory.mktemp("hive") / "events"
    start = 0
    for year in (2022, 2023, 2024):
        for city in ("Paris", "New York", "__HIVE_DEFAULT_PARTITION__"):
            folder = root / f"year={year}" / f"city={city.replace(' ', '%20')}"
            for part in range(2):
                _write(folder / f"part-{part:05d}-c000.snappy.orc", _events(600, seed=start, start=start))
                (folder / f".part-{part:05d}-c000.snappy.orc.crc").write_bytes(b"crc")
                start += 600
    (root / "_SUCCESS").write_bytes(b"")
    _write(root / "_temporary" / "0" / "part-00009.orc", _events(10, seed=99, start=10**6))
    (root / "year=2022" / "city=Paris" / "part-00002-empty.orc").write_bytes(b"")
    return root


def _full(ds: ORCDataset) -> pd.DataFrame:
    """Every file read alone with pandas' own ORC reader, partition values added: the reference."""
    frames = []
    for path, row in zip(ds.files, ds.partitions.itertuples(index=False), strict=True):
        frame = pd.read_orc(path)
        for name in ds.partition_columns:
            frame[name] = getattr(row, name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_discovery_skips_what_spark_skips(hive: Path) -> None:
    ds = ORCDataset(hive)
    assert len(ds.files) == 18
    assert ds.files == sorted(ds.files)
    assert all("_temporary" not in f and ".crc" not in f for f in ds.files)
    assert ds.notes == [f"{hive / 'year=2022' / 'city=Paris' / 'part-00002-empty.orc'}: empty file, skipped"]
    assert ds.partition_columns == ["year", "city"]
    assert ds.columns == ["id", "value", "user", "year", "city"]
    assert ds.nrows == len(ds) == 18 * 600
    assert set(ds.partitions["city"].map(repr)) == {"'Paris'", "'New York'", "None"}


def test_whole_read_equals_the_files_read_one_by_one(hive: Path) -> None:
    ds = ORCDataset(hive)
    got = ds.read()
    assert isinstance(got.index, pd.RangeIndex) and got.index.start == 0
    expected = _full(ds)
    assert got["id"].tolist() == expected["id"].tolist()  # files in sorted path order, then rows
    for column in ("id", "value", "user", "year"):
        assert got[column].tolist() == expected[column].tolist(), column
    assert [None if pd.isna(c) else c for c in got["city"]] == [None if c is None else c for c in expected["city"]]
    pd.testing.assert_frame_equal(orcjit.read_orc(hive), got)
    pd.testing.assert_frame_equal(orcjit.read_orc(str(hive), filesystem=None), got)


def test_equals_pyarrow_dataset(hive: Path) -> None:
    ds = ORCDataset(hive)
    ours = ds.read_arrow()
    # pyarrow fails on the empty file ("File size too small"): it is given the files orcjit found
    with pytest.raises(OSError, match="File size too small"):
        pa_ds.dataset(str(hive), format="orc", partitioning="hive").to_table()
    theirs = pa_ds.dataset(ds.files, format="orc", partitioning="hive", partition_base_dir=str(hive)).to_table()
    assert ours.num_rows == theirs.num_rows
    key = ["id"]
    a = ours.sort_by([(k, "ascending") for k in key])
    b = theirs.sort_by([(k, "ascending") for k in key])
    for name in ("id", "value", "user", "year"):
        assert a.column(name).to_pylist() == b.column(name).to_pylist(), name
    # pyarrow reads the null partition as the string __HIVE_DEFAULT_PARTITION__; Spark and orcjit as null
    cities = [c if c != "__HIVE_DEFAULT_PARTITION__" else None for c in b.column("city").to_pylist()]
    assert a.column("city").to_pylist() == cities


def test_globs_lists_and_urls(hive: Path) -> None:
    ds = ORCDataset(hive)
    whole = ds.read()
    by_glob = ORCDataset(str(hive / "year=2023" / "*"))
    assert by_glob.files == [f for f in ds.files if "year=2023" in f]
    # the glob's fixed part is the root: year is not a folder below it, city is
    assert by_glob.partition_columns == ["city"]
    listed = ORCDataset([str(hive / "year=2024"), str(hive / "year=2022")])
    assert listed.files == [f for f in ds.files if "year=2023" not in f]
    assert ORCDataset("file://" + str(hive)).files == ds.files
    pd.testing.assert_frame_equal(orcjit.read_orc("file://" + str(hive)), whole)
    one = ds.files[0]
    assert orcjit.read_orc([one]).equals(pd.read_orc(one))


def test_fsspec_memory_filesystem(hive: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    for path in ORCDataset(hive).files[:6]:
        relative = os.path.relpath(path, hive)
        fs.pipe(f"/mem-events/{relative}", Path(path).read_bytes())
    fs.pipe("/mem-events/_SUCCESS", b"")
    remote = ORCDataset("memory://mem-events/")
    assert [f.split("mem-events/")[1] for f in remote.files] == [
        os.path.relpath(p, hive) for p in ORCDataset(hive).files[:6]
    ]
    assert remote.partition_columns == ["year", "city"]
    got = orcjit.read_orc("memory://mem-events/", filters=[("city", "==", "Paris")])
    local = ORCDataset(hive).read(filters=[("city", "==", "Paris"), ("year", "==", 2022)])
    pd.testing.assert_frame_equal(got, local)
    assert ORCDataset("/mem-events", filesystem=fs).files == remote.files


def test_not_orc_files_are_named(tmp_path: Path) -> None:
    _write(tmp_path / "a" / "part-0.orc", _events(10, 1))
    (tmp_path / "a" / "notes.txt").write_text("hello, not ORC")
    with pytest.raises(OrcError, match=r"notes\.txt"):
        ORCDataset(tmp_path / "a")
    assert ORCDataset(tmp_path / "a", pattern="*.orc").files == [str(tmp_path / "a" / "part-0.orc")]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ORCDataset(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no path matches"):
        orcjit.read_orc(str(tmp_path / "a" / "*.parquet"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "_SUCCESS").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="no files"):
        ORCDataset(tmp_path / "empty")
    with pytest.raises(OrcError, match="partitioning must be"):
        ORCDataset(tmp_path / "a", partitioning="directory")


# -- filters: never a matching row lost --------------------------------------------------------------------------------


def _reference(frame: pd.DataFrame, dnf: list[list[tuple[Any, ...]]]) -> pd.DataFrame:
    values = {
        c: [
            None if v is None or (isinstance(v, float) and np.isnan(v) and c != "value") else v
            for v in frame[c].astype(object).where(frame[c].notna(), None)
        ]
        for c in frame.columns
    }
    terms = [
        [(t[0], t[1], tuple(t[2]) if t[1] in ("in", "not in") else (t[2] if len(t) > 2 else None)) for t in c]
        for c in dnf
    ]
    return frame[reference_mask(values, terms, len(frame))].reset_index(drop=True)


def _random_filters(rng: random.Random) -> list[list[tuple[Any, ...]]]:
    def term() -> tuple[Any, ...]:
        column = rng.choice(["id", "value", "user", "year", "city"])
        if column == "id":
            return ("id", rng.choice(["<", ">=", "==", "!="]), rng.randrange(0, 11000))
        if column == "value":
            return ("value", rng.choice(["<", ">"]), rng.uniform(-2, 2))
        if column == "user":
            return rng.choice(
                [
                    ("user", "==", f"user{rng.randrange(25)}"),
                    ("user", "is null"),
                    ("user", "in", [f"user{rng.randrange(25)}" for _ in range(3)]),
                ]
            )
        if column == "year":
            return ("year", rng.choice(["==", "<", ">=", "!="]), rng.choice([2021, 2022, 2023, 2024]))
        return rng.choice(
            [
                ("city", "==", "Paris"),
                ("city", "is null"),
                ("city", "in", ["New York", "Rome"]),
                ("city", "not in", ["Paris"]),
                ("city", "is not null"),
                ("city", "<", "Q"),
            ]
        )

    return [[term() for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(1, 2))]


def test_filters_keep_every_matching_row(hive: Path) -> None:
    ds = ORCDataset(hive)
    full = ds.read()
    rng = random.Random(20)
    for _ in range(60):
        dnf = _random_filters(rng)
        got = ds.read(filters=dnf)
        expected = _reference(full, dnf)
        pd.testing.assert_frame_equal(got, expected)
        batches = [b for b in ds.iter_batches(filters=dnf)]
        joined = pd.concat(batches, ignore_index=True) if batches else got.iloc[:0]
        pd.testing.assert_frame_equal(joined, expected)


def test_partition_filters_skip_files_unopened(hive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ds = ORCDataset(hive)
    opened: list[str] = []
    from orcjit.dataset import files

    real = files.open_source

    def spy(path: Any, filesystem: Any = None) -> Any:
        opened.append(str(path))
        return real(path, filesystem)

    monkeypatch.setattr(files, "open_source", spy)
    got = ds.read(filters=[("year", "==", 2023), ("city", "==", "Paris")])
    assert len(got) == 1200 and set(got["year"]) == {2023} and set(got["city"]) == {"Paris"}
    assert len(opened) == 2 and all("year=2023/city=Paris" in p for p in opened)
    report = ds.explain([("year", "==", 2023), ("city", "==", "Paris")])
    info = report.to_dict()
    assert info["files"] == 18 and info["files_read"] == 2
    assert info["files_skipped_by"] == {"partition values": 16}
    assert "files read: 2 of 18 (skipped: 16 by partition values)" in str(report)


def test_explain_counts_statistics_row_groups_and_bytes(hive: Path) -> None:
    ds = ORCDataset(hive)
    # ids are increasing over the files: statistics rule out all files but one, row groups most of that one
    report = ds.explain([("id", "==", 4321)], columns=["value"]).to_dict()
    assert report["files_read"] == 1
    assert report["files_skipped_by"] == {"file statistics": 17}
    assert report["row_groups_kept"] == 1
    assert 0 < report["bytes_to_read"] < report["bytes"] / 50
    assert ds.read(["value", "id"], filters=[("id", "==", 4321)])["id"].tolist() == [4321]


def test_dtypes_and_backends(hive: Path) -> None:
    ds = ORCDataset(hive)
    numpy = ds.read()
    assert numpy["year"].dtype == np.int32  # Spark infers IntegerType
    nullable = ds.read(dtype_backend="numpy_nullable")
    assert str(nullable["year"].dtype) == "Int32" and str(nullable["id"].dtype) == "Int64"
    arrow = ds.read(dtype_backend="pyarrow")
    assert arrow["city"].dtype == pd.ArrowDtype(pa.string())
    assert pa.Table.from_pandas(arrow, preserve_index=False).equals(ds.read_arrow())
    empty = ds.read(filters=[("year", ">", 3000)])
    assert len(empty) == 0 and list(empty.dtypes) == list(numpy.dtypes)


# -- schemas across files -------------------------------------------------------------------------------------------


def test_missing_columns_read_as_nulls_and_integers_widen(tmp_path: Path) -> None:
    _write(
        tmp_path / "d" / "a.orc", pa.table({"k": pa.array([1, 2], pa.int32()), "x": pa.array([1.5, 2.5], pa.float32())})
    )
    _write(tmp_path / "d" / "b.orc", pa.table({"k": pa.array([3, 2**40], pa.int64()), "y": ["p", None]}))
    _write(tmp_path / "d" / "c.orc", pa.table({"y": ["q"], "x": pa.array([0.25], pa.float64())}))
    ds = ORCDataset(tmp_path / "d")
    assert str(ds.schema) == "struct<k:bigint,x:double,y:string>"
    got = ds.read()
    assert got["k"].tolist()[:4] == [1, 2, 3, 2**40] and np.isnan(got["k"].iloc[4])
    assert got["x"].tolist()[:2] == [1.5, 2.5] and np.isnan(got["x"].iloc[2]) and got["x"].iloc[4] == 0.25
    assert [v if isinstance(v, str) else None for v in got["y"]] == [None, None, "p", None, "q"]
    nullable = ds.read(dtype_backend="numpy_nullable")
    assert str(nullable["k"].dtype) == "Int64" and nullable["k"].isna().tolist() == [False] * 4 + [True]
    # a filter on a column a file lacks: the file's rows are nulls there
    assert ds.read(filters=[("y", "is null")])["k"].tolist()[:3] == [1, 2, 2**40]
    kept = ds.read(filters=[("k", ">", 2)])["k"]
    # as in the full read, where the file without k gives it nulls: float64, though the rows kept have none
    assert kept.tolist() == [3, 2**40] and kept.dtype == np.float64
    assert ds.read(filters=[("k", ">", 2)], dtype_backend="numpy_nullable")["k"].dtype == pd.Int64Dtype()
    assert ds.read(filters=[("k", "not in", [1])], columns=["y"])["y"].tolist()[-1] == "q"
    stats = ds.statistics("k")
    assert stats["min"].tolist() == [1, 3, None] and stats["max"].tolist() == [2, 2**40, None]
    assert stats["count"].tolist() == [2, 2, 0] and stats["has_null"].tolist()[2] is True


def test_types_that_do_not_widen_are_refused_naming_both_files(tmp_path: Path) -> None:
    _write(tmp_path / "d" / "a.orc", pa.table({"k": pa.array([1], pa.int64())}))
    _write(tmp_path / "d" / "b.orc", pa.table({"k": ["one"]}))
    with pytest.raises(OrcError, match=r"column 'k' is bigint in .*a\.orc but string in .*b\.orc"):
        ORCDataset(tmp_path / "d")
    ds = ORCDataset(tmp_path / "d" / "a.orc", schema="struct<k:bigint,extra:date>")
    assert ds.read()["extra"].tolist() == [None]
    with pytest.raises(OrcError, match=r"b\.orc: column 'k' is string, which does not read as bigint"):
        ORCDataset(tmp_path / "d", schema="struct<k:bigint>")


def test_hive_positional_names(tmp_path: Path) -> None:
    _write(tmp_path / "d" / "0.orc", pa.table({"id": [1, 2], "name": ["a", "b"]}))
    _write(tmp_path / "d" / "1.orc", pa.table({"_col0": [3], "_col1": ["c"]}))
    got = orcjit.read_orc(tmp_path / "d")
    assert got.to_dict("list") == {"id": [1, 2, 3], "name": ["a", "b", "c"]}
    alone = ORCDataset(tmp_path / "d" / "1.orc", schema="struct<id:bigint,name:string>").read()
    assert alone.to_dict("list") == {"id": [3], "name": ["c"]}


def test_progress_over_files_and_stripes(hive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    ds = ORCDataset(hive)
    got = ds.read(filters=[("year", "==", 2024)], progress=True)
    assert len(got) == 3600
    err = capsys.readouterr().err
    assert "18 files" in err and f"{sum(len(m.stripes) for m in ds.meta.metas)}/" in err


def test_remote_tails_are_fetched_concurrently(hive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A remote tail costs a round trip: many are in flight at once. Local tails cost parsing, which holds the
    GIL, so they are read one after another."""
    import threading
    import time

    fsspec = pytest.importorskip("fsspec")
    from orcjit.dataset import files

    real = files.open_file
    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    def slow(path: Any, filesystem: Any = None) -> Any:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)  # a round trip to remote storage
        try:
            return real(path, filesystem)
        finally:
            with lock:
                state["now"] -= 1

    monkeypatch.setattr(files, "open_file", slow)
    fs = fsspec.filesystem("memory")
    local = ORCDataset(hive)
    assert state["most"] == 1
    for path in local.files[:12]:
        fs.pipe(f"/tails/{os.path.relpath(path, hive)}", Path(path).read_bytes())
    state["most"] = 0
    remote = ORCDataset("memory://tails/")
    assert len(remote.files) == 12 and state["most"] > 4


def test_wrong_columns_are_orc_errors(hive: Path) -> None:
    ds = ORCDataset(hive)
    for bad, message in (("id", "a list of column names"), ([True], "names or indices"), (["nope"], "nope")):
        with pytest.raises(OrcError, match=message):
            ds.read(bad)
        with pytest.raises(OrcError, match=message):
            ds.explain([("year", "==", 2022)], bad)
    assert list(ds.read([4, "id"]).columns) == ["id", "city"]  # positions too; the dataset's order, as pandas
