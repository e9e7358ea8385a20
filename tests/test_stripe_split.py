"""Parallelism inside a stripe: a read whose runs are too few to keep its threads busy (a file of one stripe) cuts
them into pieces of whole row groups, each entered with the row index and decoded on its own thread into its slice
of the result. The result must be exactly that of the read on one thread (which never cuts) and pandas.read_orc's,
for every type, with nulls, codecs, dictionaries (as strings and as categories), filters, progress and read_rows;
stripes without a usable row index are never cut."""

from __future__ import annotations

import io
import itertools
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import orcjit
import orcjit.progress
from orcjit import ORCFile
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.decode import columns as decode_columns
from orcjit.reading import plan as read_plan
from orcjit.reading import scan
from orcjit.reading.plan import Run, piece_bounds, plan_read, split_runs, stripe_runs
from orcjit.sources import ArrowFileSource, BufferSource, FileObjectSource, FsspecSource, LocalFileSource
from orcjit.stripes import DATA_KINDS, DICTIONARY_DATA
from tests.factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc
from tests.fuzz_harness import decode_file, encode_file
from tests.hive11 import write_hive11_decimals

STRIDE = 1000
ROWS = 20_500  # a partial last row group


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces as small as one row group, so that small files are cut as a big one would be."""
    monkeypatch.setattr(read_plan, "MIN_PIECE_ROWS", STRIDE)
    monkeypatch.setattr(read_plan, "MIN_PIECE_BYTES", 1)
    monkeypatch.setattr(scan, "SMALL_READ_VALUES", 1)


@pytest.fixture
def pieces(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many runs each read decoded after cutting (one entry per read that decoded columns)."""
    seen: list[int] = []

    def spy(meta: Any, runs: list[Run], decode: Any, workers: int) -> list[Run]:
        got = split_runs(meta, runs, decode, workers)
        seen.append(len(got))
        return got

    monkeypatch.setattr(scan, "split_runs", spy)
    yield seen


def one_stripe_pyarrow(path: Path, table: pa.Table, **kwargs: Any) -> Path:
    out = write_pyarrow(path, table, row_index_stride=STRIDE, **kwargs)
    assert ORCFile(out).nstripes == 1
    return out


def assert_same_reads(path: Path, workers: int = 2, **kwargs: Any) -> pd.DataFrame:
    """The threaded read equals the read on one thread, and pandas.read_orc's where it reads the same."""
    got = orcjit.read_orc(path, max_workers=workers, **kwargs)
    alone = orcjit.read_orc(path, use_threads=False, **kwargs)
    pd.testing.assert_frame_equal(got, alone)
    return got


@pytest.fixture(scope="module")
def arrow_tables() -> dict[str, pa.Table]:
    return {nulls: all_types_table(ROWS, 21, nulls) for nulls in ("some", "none")}


# -- deciding the pieces -----------------------------------------------------------------------------------------


def test_piece_bounds() -> None:
    assert piece_bounds(0, 1_000_000, 10_000, 4) == [(i * 250_000, 250_000) for i in range(4)]
    # cut where row groups start; the last piece takes the partial row group
    assert piece_bounds(0, 1_000_005, 10_000, 4) == [
        (0, 250_000),
        (250_000, 250_000),
        (500_000, 250_000),
        (750_000, 250_005),
    ]
    assert piece_bounds(0, 100_000, 30_000, 3, min_rows=1) == [(0, 30_000), (30_000, 30_000), (60_000, 40_000)]
    # a run entered inside a row group (read_rows) keeps its first row; the cuts are still at row group starts
    assert piece_bounds(12_345, 500_000, 10_000, 2) == [(12_345, 250_000 - 2_345), (260_000, 252_345)]
    # pieces never below min_rows: fewer of them, or one
    assert piece_bounds(0, 200_000, 10_000, 4) == [(0, 100_000), (100_000, 100_000)]
    assert piece_bounds(0, 130_000, 10_000, 4) == [(0, 130_000)]
    assert piece_bounds(0, 1_000_000, 400_000, 4) == [(0, 400_000), (400_000, 400_000), (800_000, 200_000)]
    for pieces, stride in ((1, 10_000), (0, 10_000), (4, 0)):
        assert piece_bounds(5, 1_000_000, stride, pieces) == [(5, 1_000_000)]


@pytest.mark.parametrize("seed", range(20))
def test_piece_bounds_cover_the_rows_at_row_group_starts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    stride = int(rng.integers(1, 5000))
    first = int(rng.integers(0, 3 * stride))
    count = int(rng.integers(1, 400_000))
    pieces, min_rows = int(rng.integers(1, 40)), int(rng.integers(1, 50_000))
    got = piece_bounds(first, count, stride, pieces, min_rows)
    assert got[0][0] == first and sum(n for _, n in got) == count
    assert all(a + n == b for (a, n), (b, _) in itertools.pairwise(got))
    assert len(got) <= max(pieces, 1)
    if len(got) > 1:
        assert all(a % stride == 0 for a, _ in got[1:])
        assert all(n >= min_rows for _, n in got)


def _runs(f: ORCFile, workers: int, columns: Any = None) -> list[Run]:
    meta = f.meta
    plan = plan_read(meta, columns, None, "raise")
    decisions = scan.decide(meta, None, range(f.nstripes))[1]
    runs = [run for d in decisions for run in stripe_runs(meta, d, plan.decode)]
    return split_runs(meta, runs, plan.decode, workers)


def test_split_runs_of_a_big_stripe(tmp_path: Path) -> None:
    """With the default sizes: 400,000 random int64 (3.2 MB) are cut into two pieces per worker, entered with
    the row index and sharing the stripe's dictionaries; one thread never cuts, nor do cheap columns."""
    rng = np.random.default_rng(1)
    n = 400_000
    table = pa.table({"x": rng.integers(-(2**62), 2**62, n), "seq": np.arange(n), "flag": rng.random(n) < 0.5})
    path = one_stripe_pyarrow(tmp_path, table)
    with ORCFile(path) as f:
        runs = _runs(f, 2, ["x"])
        assert [(r.first, r.count) for r in runs] == [(i * 100_000, 100_000) for i in range(4)]
        assert all(r.positions is not None and r.positions is runs[0].positions for r in runs)
        assert all(r.dictionaries is not None and r.dictionaries is runs[0].dictionaries for r in runs)
        assert len(_runs(f, 3, ["x"])) == 6
        assert len(_runs(f, 1, ["x"])) == 1
        # a sequence and booleans take a few kB: not worth a thread
        assert len(_runs(f, 2, ["seq", "flag"])) == 1
        assert [r.whole_stripe for r in _runs(f, 2, ["seq"])] == [True]


def test_a_lone_stripe_is_cut_into_a_multiple_of_the_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes enough for three pieces give two on two threads: a third piece would leave one thread waiting."""
    n = 400_000
    table = pa.table({"x": np.random.default_rng(2).integers(-(2**62), 2**62, n)})
    path = one_stripe_pyarrow(tmp_path, table)
    with ORCFile(path) as f:
        footer = f.meta.stripe_footer(0)
        stored = sum(s.length for s in footer.streams if s.column == 1 and s.kind in DATA_KINDS)
        monkeypatch.setattr(read_plan, "MIN_PIECE_BYTES", stored // 3)
        monkeypatch.setattr(read_plan, "PIECES_PER_WORKER", 3)
        assert len(_runs(f, 2, ["x"])) == 2
        assert len(_runs(f, 3, ["x"])) == 3
        monkeypatch.setattr(read_plan, "MIN_PIECE_BYTES", stored // 5)
        assert len(_runs(f, 2, ["x"])) == 4


def test_many_stripes_are_not_cut(tmp_path: Path, small_pieces: None) -> None:
    table = pa.table({"x": np.random.default_rng(3).integers(0, 2**60, 50_000)})
    path = write_pyarrow(tmp_path, table, row_index_stride=STRIDE, stripe_size=64 * 1024)
    with ORCFile(path) as f:
        assert f.nstripes >= 4
        assert len(_runs(f, 2)) == f.nstripes  # two runs per worker keep them busy
        assert len(_runs(f, 8)) > f.nstripes


def test_without_row_index_nothing_is_cut(tmp_path: Path, small_pieces: None, pieces: list[int]) -> None:
    path = one_stripe_pyarrow(tmp_path, all_types_table(4000, 3, "some"))
    model = decode_file(path.read_bytes())
    model.footer.rowIndexStride = 0
    no_index = tmp_path / "no-index.orc"
    no_index.write_bytes(encode_file(model))
    got = assert_same_reads(no_index)
    assert pieces == [1, 1]
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path))


def test_a_row_index_that_does_not_fit_is_not_used(tmp_path: Path, small_pieces: None, pieces: list[int]) -> None:
    """A footer declaring another stride than the row index was written with: each index holds the wrong number
    of entries for the stripe's row groups, so the stripe is read whole."""
    path = one_stripe_pyarrow(tmp_path, all_types_table(4000, 3, "some"))
    model = decode_file(path.read_bytes())
    model.footer.rowIndexStride = 3 * STRIDE
    wrong = tmp_path / "wrong-stride.orc"
    wrong.write_bytes(encode_file(model))
    with ORCFile(wrong) as f:
        assert [r.whole_stripe for r in _runs(f, 2)] == [True]
    got = assert_same_reads(wrong)
    assert pieces == [1, 1]
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path))


# -- the pieces read what the whole stripe holds -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "nulls", "dictionary"),
    [
        ("zstd", "some", True),
        ("zstd", "none", False),
        ("snappy", "some", False),
        ("zlib", "none", True),
        ("lz4", "some", True),
        ("uncompressed", "some", False),
    ],
)
def test_pyarrow_one_stripe_every_type(
    tmp_path: Path,
    arrow_tables: dict[str, pa.Table],
    small_pieces: None,
    pieces: list[int],
    codec: str,
    nulls: str,
    dictionary: bool,
) -> None:
    path = one_stripe_pyarrow(
        tmp_path,
        arrow_tables[nulls],
        compression=codec,
        dictionary_key_size_threshold=1.0 if dictionary else None,
        compression_block_size=64 * 1024,
    )
    for backend in (None, "numpy_nullable", "pyarrow"):
        want = pd.read_orc(path, dtype_backend=backend) if backend else pd.read_orc(path)
        pieces.clear()
        got = assert_same_reads(path, dtype_backend=backend)
        assert pieces == [4, 1]  # cut with two threads; read whole on one
        pd.testing.assert_frame_equal(got, want)
    # more threads, more pieces; each column alone
    pieces.clear()
    assert_same_reads(path, workers=5)
    assert pieces[0] == 10
    for name in ("str", "list", "map", "struct", "dec38", "ts"):
        assert_same_reads(path, columns=[name])
    f = ORCFile(path)
    assert f.read_arrow(max_workers=3).equals(f.read_arrow(use_threads=False))


@pytest.mark.parametrize(("codec", "dictionary"), [("zstd", True), ("zlib", False), ("snappy", True)])
def test_pyorc_one_stripe_every_type(
    tmp_path: Path, small_pieces: None, pieces: list[int], codec: str, dictionary: bool
) -> None:
    """pyorc's small compression blocks: pieces start inside chunks; char, varchar and a union too."""
    schema, rows = all_types_pyorc(ROWS, 8, "some")
    path = write_pyorc(
        tmp_path,
        schema,
        rows,
        compression=codec,
        compression_block_size=4096,
        row_index_stride=STRIDE,
        dict_key_size_threshold=1.0 if dictionary else None,
    )
    assert ORCFile(path).nstripes == 1
    got = assert_same_reads(path, workers=3)
    assert pieces == [6, 1]
    f = ORCFile(path)
    assert f.read_arrow(max_workers=3).equals(f.read_arrow(use_threads=False))
    others = [name for name in got.columns if name != "union"]  # pandas holds no Arrow union
    pd.testing.assert_frame_equal(got[others], pd.read_orc(path, columns=others))


def test_hive11_decimals(tmp_path: Path, small_pieces: None, pieces: list[int]) -> None:
    rng = np.random.default_rng(4)
    n = 12_000
    values = [
        None if k % 11 == 0 else Decimal(int(rng.integers(-(10**12), 10**12))).scaleb(-int(rng.integers(0, 9)))
        for k in range(n)
    ]
    path = write_hive11_decimals(tmp_path / "h11.orc", {"d": values}, stride=STRIDE, compression="zstd")
    assert ORCFile(path).nstripes == 1
    for mode in ("orc_cpp", "orc_java", "exact"):
        pieces.clear()
        got = assert_same_reads(path, hive11_decimals=mode)
        assert pieces == [4, 1]
        if mode == "exact":
            assert [v for v in got["d"] if v is not None] == [v for v in values if v is not None]


@pytest.mark.parametrize(
    "filters",
    [
        [("i64", ">", 0)],
        [[("i32", "in", [1, 2, 3])], [("str", "is null")]],
        [("f64", "<", 0.0), ("date", ">", pd.Timestamp("1990-01-01").date())],
    ],
)
def test_filters(
    tmp_path: Path, arrow_tables: dict[str, pa.Table], small_pieces: None, pieces: list[int], filters: Any
) -> None:
    path = one_stripe_pyarrow(tmp_path, arrow_tables["some"])
    got = assert_same_reads(path, filters=filters)
    assert pieces == [4, 1]
    got_rows = assert_same_reads(path, filters=filters, columns=["i16"])  # tested columns decoded, not returned
    assert list(got_rows.columns) == ["i16"] and len(got_rows) == len(got)


def test_filters_keeping_a_long_run_of_row_groups(tmp_path: Path, small_pieces: None, pieces: list[int]) -> None:
    """Pruning keeps one long run of row groups (entered with the row index already): it is cut further."""
    n = 40_000
    table = pa.table({"key": np.arange(n, dtype=np.int64), "x": np.arange(n) * 0.5})
    path = one_stripe_pyarrow(tmp_path, table)
    filters = [("key", ">=", 3_500), ("key", "<", 31_200)]
    got = assert_same_reads(path, filters=filters)
    assert pieces == [4, 1]
    np.testing.assert_array_equal(got["key"].to_numpy(), np.arange(3_500, 31_200))
    np.testing.assert_array_equal(got["x"].to_numpy(), np.arange(3_500, 31_200) * 0.5)


def test_read_rows_and_iter_stripes(
    tmp_path: Path, arrow_tables: dict[str, pa.Table], small_pieces: None, pieces: list[int]
) -> None:
    path = one_stripe_pyarrow(tmp_path, arrow_tables["some"], compression="zstd")
    with ORCFile(path) as f:
        full = f.read(use_threads=False)
        pieces.clear()
        part = f.read_rows(1_234, 17_890, max_workers=2)
        assert pieces == [4]
        pd.testing.assert_frame_equal(part, full.iloc[1_234:17_890])
        pd.testing.assert_frame_equal(part, f.read_rows(1_234, 17_890, use_threads=False))
        (stripe,) = list(f.iter_stripes(max_workers=2))
        pd.testing.assert_frame_equal(stripe, full)


# -- dictionaries ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_dictionary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A string column of 60,000 rows and some 30,000 distinct values, dictionary encoded, with nulls; a column
    of few values; a list of strings."""
    rng = np.random.default_rng(5)
    n = 60_000
    many = [None if k % 17 == 0 else f"value-{int(v)}" for k, v in enumerate(rng.integers(0, 30_000, n))]
    few = [f"w{int(v)}" for v in rng.integers(0, 7, n)]
    lists = [[f"e{int(v)}" for v in rng.integers(0, 50, k % 4)] for k in range(n)]
    table = pa.table({"many": many, "few": few, "lists": lists})
    path = write_pyarrow(
        tmp_path_factory.mktemp("dictionary") / "dict.orc",
        table,
        row_index_stride=STRIDE,
        dictionary_key_size_threshold=1.0,
    )
    with ORCFile(path) as f:
        assert f.nstripes == 1
        assert {e.kind_name for e in f.stripe_footer(0).encodings[1:]} == {"DICTIONARY_V2", "DIRECT_V2"}
    return path


@pytest.mark.parametrize("backend", [None, "numpy_nullable", "pyarrow"])
def test_dictionary_as_category_gives_the_categories_of_a_whole_read(
    big_dictionary: Path, small_pieces: None, pieces: list[int], backend: str | None
) -> None:
    got = assert_same_reads(big_dictionary, dictionary_as_category=True, dtype_backend=backend)
    assert pieces == [4, 1]
    for name in ("many", "few"):
        dtype = got[name].dtype
        if backend == "pyarrow":
            assert pa.types.is_dictionary(dtype.pyarrow_dtype)
        else:  # the same categories in the same order (assert_frame_equal checks that)
            assert isinstance(dtype, pd.CategoricalDtype)
    if backend is None:
        plain = pd.read_orc(big_dictionary)
        for name in ("many", "few"):
            pd.testing.assert_series_equal(got[name].astype(object), plain[name].astype(object), check_dtype=False)
    f = ORCFile(big_dictionary)
    split = f.read_arrow(dictionary_as_category=True, max_workers=2)
    whole = f.read_arrow(dictionary_as_category=True, use_threads=False)
    assert split.equals(whole)
    assert split.column("many").chunk(0).dictionary.equals(whole.column("many").chunk(0).dictionary)


def test_a_dictionary_is_read_and_fetched_once_per_stripe(
    big_dictionary: Path, small_pieces: None, pieces: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[int] = []
    original = decode_columns._read_dictionary

    def counting(streams: Any, col: int, enc: int) -> Any:
        decoded.append(col)
        return original(streams, col, enc)

    monkeypatch.setattr(decode_columns, "_read_dictionary", counting)
    f = ORCFile(big_dictionary)
    stream = next(s for s in f.stripe_footer(0).streams if s.column == 1 and s.kind == DICTIONARY_DATA)
    fetched: list[tuple[int, int]] = []
    lock = threading.Lock()
    read = f.source._read

    def recording(offset: int, length: int) -> bytes:
        with lock:
            fetched.append((offset, length))
        return read(offset, length)

    monkeypatch.setattr(f.source, "_read", recording)
    for category in (False, True):
        decoded.clear()
        fetched.clear()
        got = f.read(columns=["many"], dictionary_as_category=category, max_workers=2)
        assert pieces[-1] == 4
        assert decoded == [1]
        overlapping = [(o, n) for o, n in fetched if o < stream.offset + stream.length and stream.offset < o + n]
        assert len(overlapping) == 1
        pd.testing.assert_frame_equal(got, f.read(columns=["many"], dictionary_as_category=category, use_threads=False))


def test_shared_dictionaries_decode_once_across_threads() -> None:
    shared = decode_columns.SharedDictionaries()
    calls: list[int] = []
    started = threading.Barrier(4)

    def decode() -> Any:
        calls.append(1)
        return np.arange(3), np.zeros(2, np.uint8)

    results: list[Any] = []

    def worker() -> None:
        started.wait()
        results.append(shared.get(7, decode))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and 7 in shared
    assert all(r is results[0] for r in results)

    def failing() -> Any:
        raise orcjit.OrcError("bad dictionary")

    for _ in range(2):  # a failed decode leaves nothing behind: the next run fails the same way
        with pytest.raises(orcjit.OrcError, match="bad dictionary"):
            shared.get(8, failing)
    assert 8 not in shared


# -- progress and errors -----------------------------------------------------------------------------------------


class RecordingBar:
    made: list[RecordingBar] = []  # noqa: RUF012 (reset by each test)

    def __init__(self, total: int, unit: str, desc: str) -> None:
        self.total, self.n, self.closed = total, 0, False
        RecordingBar.made.append(self)

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        self.closed = True


def test_progress_finishes_the_stripe_once(
    tmp_path: Path,
    arrow_tables: dict[str, pa.Table],
    small_pieces: None,
    pieces: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    RecordingBar.made = []
    monkeypatch.setattr(orcjit.progress, "_bar_class", lambda: RecordingBar)
    path = one_stripe_pyarrow(tmp_path, arrow_tables["none"])
    got = orcjit.read_orc(path, progress=True, max_workers=2)
    assert pieces == [4]
    (bar,) = RecordingBar.made
    assert (bar.total, bar.n, bar.closed) == (1, 1, True)
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path, use_threads=False))


def test_a_corrupt_piece_raises_the_error_of_a_whole_read(
    tmp_path: Path, small_pieces: None, pieces: list[int]
) -> None:
    """Bytes broken in the middle of the stripe: the piece holding them fails, and the stripe read whole again
    says what is wrong, in the words of the read on one thread."""
    path = one_stripe_pyarrow(tmp_path, pa.table({"x": np.random.default_rng(2).integers(0, 2**40, ROWS)}))
    f = ORCFile(path)
    stream = next(s for s in f.stripe_footer(0).streams if s.column == 1 and s.kind_name == "DATA")
    data = bytearray(path.read_bytes())
    middle = stream.offset + stream.length // 2
    data[middle : middle + 64] = b"\xff" * 64
    broken = tmp_path / "broken.orc"
    broken.write_bytes(bytes(data))
    errors = []
    for kwargs in ({"max_workers": 2}, {"use_threads": False}):
        with pytest.raises(orcjit.OrcError) as info:
            orcjit.read_orc(broken, **kwargs)
        errors.append(str(info.value))
    assert pieces == [4, 1]
    assert errors[0] == errors[1]


def _with_row_index(path: Path, out: Path, change: Any) -> Path:
    """The (uncompressed) file at ``path`` with ``change(column, RowIndex)`` applied to each column's row index."""
    model = decode_file(path.read_bytes())
    for stream in model.stripes[0].streams:
        if stream.kind == pb.Stream.ROW_INDEX:
            index = pb.RowIndex.FromString(stream.data)
            stream.data = change(stream.column, index) or index.SerializeToString()
    out.write_bytes(encode_file(model))
    return out


def test_a_row_index_that_does_not_decode_leaves_the_stripe_whole(
    tmp_path: Path, small_pieces: None, pieces: list[int]
) -> None:
    path = one_stripe_pyarrow(tmp_path, all_types_table(8000, 6, "some"), compression="uncompressed")
    broken = _with_row_index(
        path, tmp_path / "bad-index.orc", lambda column, index: b"\xff\xff\xff" if column == 3 else None
    )
    with ORCFile(broken) as f, pytest.raises(orcjit.OrcError):
        f.read_rows(2500, 2600)  # entering by the row index fails
    got = assert_same_reads(broken)
    assert pieces == [1, 1]
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path))


def test_a_row_index_that_misleads_a_piece_is_not_trusted(
    tmp_path: Path, small_pieces: None, pieces: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A position past its stream where a piece starts: that piece fails, and the stripe is read again whole
    (the bar still counting it once)."""
    table = pa.table({"x": np.random.default_rng(8).integers(0, 2**40, ROWS), "y": np.arange(ROWS) * 0.25})
    path = one_stripe_pyarrow(tmp_path, table, compression="uncompressed")

    def mislead(column: int, index: Any) -> None:
        if column == 1:
            index.entry[5].positions[0] = 10**9  # DATA's byte offset at row 5,000

    broken = _with_row_index(path, tmp_path / "misleading.orc", mislead)
    with ORCFile(broken) as f, pytest.raises(orcjit.OrcError, match="row index position"):
        f.read_rows(5000, 6000)
    RecordingBar.made = []
    monkeypatch.setattr(orcjit.progress, "_bar_class", lambda: RecordingBar)
    pieces.clear()
    got = orcjit.read_orc(broken, max_workers=2, progress=True)
    assert pieces == [4]  # cut; then read whole when a piece failed
    (bar,) = RecordingBar.made
    assert (bar.total, bar.n, bar.closed) == (1, 1, True)
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path, use_threads=False))


# -- where reads cost a round trip -------------------------------------------------------------------------------


class Remote(LocalFileSource):
    """A local file standing in for a remote one: its reads are not cheap."""

    cheap_reads = False


def test_remote_files_are_not_cut(tmp_path: Path, small_pieces: None, pieces: list[int]) -> None:
    """A remote stripe would be fetched in several requests where one does: read whole, columns side by side."""
    path = one_stripe_pyarrow(tmp_path, all_types_table(4000, 3, "some"))
    got = orcjit.read_orc(Remote(path), max_workers=2)
    assert pieces == [1]
    pd.testing.assert_frame_equal(got, orcjit.read_orc(path, use_threads=False))


def test_which_sources_read_cheaply(tmp_path: Path) -> None:
    import fsspec
    import pyarrow.fs as pafs

    path = one_stripe_pyarrow(tmp_path, pa.table({"x": [1, 2, 3]}))
    data = path.read_bytes()
    assert LocalFileSource(path).cheap_reads and BufferSource(data).cheap_reads
    with open(path, "rb") as fh:
        assert FileObjectSource(fh).cheap_reads
    assert FileObjectSource(io.BytesIO(data)).cheap_reads

    class Wrapped:
        def __init__(self) -> None:
            self._inner = io.BytesIO(data)

        def seek(self, *args: Any) -> int:
            return self._inner.seek(*args)

        def read(self, n: int = -1) -> bytes:
            return self._inner.read(n)

    assert not FileObjectSource(Wrapped()).cheap_reads
    assert FsspecSource(fsspec.filesystem("file"), str(path)).cheap_reads
    assert ArrowFileSource(pafs.LocalFileSystem(), str(path)).cheap_reads
    assert not Remote(path).cheap_reads
