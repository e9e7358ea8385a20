"""Point lookups on large stripes (issue 21): deciding cheaply must decide the same, and a lookup must return what a
full read filtered by pandas returns.

- Bloom filters are tested straight from the decompressed stream bytes
  (:func:`~orcjit.kernels.bloom.bloom_filter_index_may_contain`): pinned against the protobuf path
  (``filters_may_contain(read_bloom_filter_index(...))``) on the streams of real files from pyarrow and pyorc
  (ORC C++) in every codec, and on corrupt bytes (the same OrcError, naming the stream); on random messages in
  ``test_kernels_bloom.py``.
- Seeking reads the positions of row indexes alone (:func:`~orcjit.kernels.row_index.parse_row_positions`): the
  full parser's positions on real files here, on random messages in ``test_kernels_row_index.py``.
- String statistics are compared as spans of the row index's bytes: against the scalar reference.
- A lookup decodes the tested columns first, then the other columns only between each run's first and last match
  (:func:`~orcjit.reading.scan.scan_lookup`, slicing vectors with :func:`~orcjit.decode.vector.slice_vector`):
  checked against full reads on one-stripe files with every type, nested ones included, with and without bloom
  filters, through every entry point that filters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import orcjit
from orcjit import ORCFile
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.decode.vector import ColumnVector, slice_vector
from orcjit.errors import OrcError
from orcjit.kernels.bloom import (
    bloom_filter_index_may_contain,
    filters_may_contain,
    hash_candidates,
    read_bloom_filter_index,
)
from orcjit.kernels.row_index import parse_row_index, parse_row_positions
from orcjit.pushdown.filters import normalize_filters
from orcjit.pushdown.rowgroups import BloomStream, read_index_stream
from orcjit.reading import scan
from orcjit.stripes import BLOOM_FILTER, BLOOM_FILTER_UTF8, ROW_INDEX

from . import test_group_statistics as gs_tests
from .factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc
from .test_kernels_bloom import pb_field, pb_varint

CODECS = ["zstd", "zlib", "snappy", "lz4", "none"]


def outcome(fn: Any) -> Any:
    try:
        return fn()
    except OrcError as exc:
        return f"OrcError: {exc}"


def assert_same_answers(raw: bytes, hashes: list[int] | None, what: str = "col 4 bloom filter index") -> None:
    want = outcome(lambda: filters_may_contain(read_bloom_filter_index(raw, what), hashes))
    got = outcome(lambda: bloom_filter_index_may_contain(raw, hashes, what))
    if isinstance(want, str) or isinstance(got, str):
        assert got == want, raw.hex()
    else:
        assert got.dtype == np.bool_ and got.tolist() == want.tolist(), raw.hex()


# -- the bloom filter kernel against the protobuf path -----------------------------------------------------------


def _bloom_streams(path: Path) -> list[tuple[str, int, bytes | memoryview]]:
    """``(column kind, stream kind, decompressed bytes)`` of every bloom filter stream of the file; each stream
    tested as pruning tests it (:class:`BloomStream`, on the stored chunks) answers as on the joined bytes."""
    found = []
    with ORCFile(path) as f:
        meta = f.meta
        kinds = {n.column_id: n.kind for n in meta.schema.walk()}
        for stripe in meta.stripes:
            for s in meta.stripe_footer(stripe.index).streams:
                if s.kind in (BLOOM_FILTER, BLOOM_FILTER_UTF8):
                    joined = read_index_stream(meta.source, meta.tail, stripe, s)
                    stream = BloomStream(meta.source.read(s.offset, s.length), meta.tail, "x")
                    for hashes in ([], [1, 2**40 + 3], None):
                        want = bloom_filter_index_may_contain(joined, hashes, "x")
                        assert stream.may_contain(hashes).tolist() == want.tolist()
                    found.append((kinds[s.column], s.kind, joined))
    return found


def test_bloom_filters_are_tested_on_the_stored_chunks(one_stripe: tuple[Path, pd.DataFrame]) -> None:
    path, _ = one_stripe
    with ORCFile(path) as f:
        meta = f.meta
        streams = [s for s in meta.stripe_footer(0).streams if s.kind == BLOOM_FILTER_UTF8]
        assert len(streams) == 2
        for s in streams:
            stream = BloomStream(meta.source.read(s.offset, s.length), meta.tail, "x")
            assert len(stream.may_contain([7])) == 24
            # never joined: original chunks (compressed file) tested where they lie, or the stored message itself
            assert (stream._chunks is not None) == bool(meta.tail.compression)


def _probe_hashes(kind: str, values: list[Any]) -> list[list[int] | None]:
    out: list[list[int] | None] = [None, []]
    for value in values:
        try:
            candidates = hash_candidates(value, kind)
        except OrcError:
            continue
        out.append(None if candidates is None else list(candidates))
    return out


@pytest.mark.parametrize("codec", CODECS)
def test_bloom_answers_on_pyarrow_files(codec: str, tmp_path: Path) -> None:
    table = all_types_table(3000, seed=4)
    columns = ["i8", "i16", "i32", "i64", "f32", "f64", "str", "bin", "dec18", "date", "ts", "ts_utc"]
    path = write_pyarrow(
        tmp_path / "a.orc",
        table,
        compression=codec,
        row_index_stride=500,
        bloom_filter_columns=columns,
        bloom_filter_fpp=0.05,
        stripe_size=1 << 16,
    )
    streams = _bloom_streams(path)
    assert {k for _, k, _ in streams} == {BLOOM_FILTER_UTF8} and len(streams) >= len(columns)
    by_kind = {
        node.kind: name for name, node in zip(table.column_names, ORCFile(path).meta.schema.children, strict=True)
    }
    for kind, _, raw in streams:
        values = [v for v in table.column(by_kind[kind]).to_pylist()[::97] if v is not None]
        for hashes in _probe_hashes(kind, [*values, "absent", 12345678901, 0.5]):
            assert_same_answers(bytes(raw), hashes)


@pytest.mark.parametrize("codec", [c for c in CODECS if c != "lz4"] + ["lz4"])
def test_bloom_answers_on_pyorc_files(codec: str, tmp_path: Path) -> None:
    schema, rows = all_types_pyorc(2500, seed=9)
    path = write_pyorc(
        tmp_path / "p.orc",
        schema,
        rows,
        compression=codec,
        row_index_stride=400,
        bloom_filter_columns=["i32", "i64", "str", "varchar", "f64", "date"],
        bloom_filter_fpp=0.02,
    )
    streams = _bloom_streams(path)
    assert streams
    for kind, _, raw in streams:
        for hashes in _probe_hashes(kind, ["x", "absent", 3, -7, 2.5, 10**12]):
            assert_same_answers(bytes(raw), hashes)


def test_corrupt_bloom_bytes_raise_the_same_error_naming_the_stream(tmp_path: Path) -> None:
    table = pa.table({"k": [f"key-{i:06d}" for i in range(4000)]})
    path = write_pyarrow(tmp_path / "b.orc", table, row_index_stride=500, bloom_filter_columns=["k"])
    [(_, _, raw)] = _bloom_streams(path)
    raw = bytes(raw)
    what = "b.orc: stripe 0, column 1 bloom filter index"
    for bad in (raw[:-1], raw[: len(raw) // 2 + 1], raw[:3] + b"\xff" * 8 + raw[11:], b"\x0a\x05\x08\x03\x1a\x01\x00"):
        assert_same_answers(bad, [1, 2], what)
        with pytest.raises(OrcError, match=r"b\.orc: stripe 0, column 1 bloom filter index"):
            bloom_filter_index_may_contain(bad, [1, 2], what)
    # an entry with too many hash functions for its bits, and one with legacy longs only (the runtime's way)
    too_many = pb_field(1, 2, pb_field(1, 0, pb_varint(65)) + pb_field(3, 2, b"\x01" * 8))
    with pytest.raises(OrcError, match="entry 0 has 65 hash functions for 64 bits"):
        bloom_filter_index_may_contain(too_many, [1], what)
    legacy = pb_field(1, 2, pb_field(1, 0, pb_varint(1)) + pb_field(2, 1, b"\xff" * 8))
    assert bloom_filter_index_may_contain(legacy, [5], what).tolist() == [True]


# -- lookups against full reads ----------------------------------------------------------------------------------


def _keys_table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    key_int = rng.permutation(n).astype(np.int64) * 7919 + 13
    base = all_types_table(n, seed=seed)
    return base.append_column("key_int", pa.array(key_int)).append_column(
        "key_str", pa.array([f"user-{k:012d}" for k in key_int.tolist()])
    )


@pytest.fixture(scope="module", params=["zstd", "none"])
def one_stripe(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """12,000 rows of every type pyarrow writes in ONE stripe of 24 row groups, bloom filters on the unique keys."""
    table = _keys_table(12_000, seed=21)
    path = write_pyarrow(
        tmp_path_factory.mktemp("one-stripe") / "t.orc",
        table,
        compression=request.param,
        stripe_size=1 << 30,
        row_index_stride=500,
        bloom_filter_columns=["key_int", "key_str"],
        bloom_filter_fpp=0.01,
    )
    with ORCFile(path) as f:
        assert f.nstripes == 1
        return path, f.read()


def _expected(full: pd.DataFrame, mask: pd.Series | np.ndarray, columns: list[str] | None) -> pd.DataFrame:
    got = full[np.asarray(mask)].reset_index(drop=True)
    return got if columns is None else got[[c for c in full.columns if c in columns]]


@pytest.mark.parametrize("columns", [None, ["key_str"], ["key_int", "str", "list", "map", "struct"], ["ts", "dec38"]])
def test_lookups_equal_full_reads_filtered_by_pandas(one_stripe: tuple[Path, pd.DataFrame], columns: Any) -> None:
    path, full = one_stripe
    keys = full["key_str"].tolist()
    ints = full["key_int"].tolist()
    cases = [
        ([("key_str", "==", keys[0])], full["key_str"] == keys[0]),
        ([("key_str", "==", keys[-1])], full["key_str"] == keys[-1]),
        ([("key_str", "==", "user-absent")], full["key_str"] == "user-absent"),
        (
            [("key_int", "in", [ints[7], ints[5_000], ints[11_999], -1])],
            full["key_int"].isin([ints[7], ints[5_000], ints[11_999]]),
        ),
        (
            [[("key_str", "==", keys[123])], [("key_int", "==", ints[9_876]), ("i32", "is not null")]],
            (full["key_str"] == keys[123]) | ((full["key_int"] == ints[9_876]) & full["i32"].notna()),
        ),
        ([("key_int", "==", ints[42]), ("f64", ">", 1e300)], (full["key_int"] == ints[42]) & (full["f64"] > 1e300)),
    ]
    for filters, mask in cases:
        got = orcjit.read_orc(path, columns=columns, filters=filters)
        pd.testing.assert_frame_equal(got, _expected(full, mask, columns), obj=str(filters))


def test_dense_lookups_equal_full_reads(one_stripe: tuple[Path, pd.DataFrame]) -> None:
    """``in`` with many values, and ``==`` on a column most rows share: the runs are read as pruning left them."""
    path, full = one_stripe
    some = full["key_int"].iloc[::3].tolist()
    flag = bool(full["bool"].dropna().iloc[0])
    for filters, mask in (
        ([("key_int", "in", some)], full["key_int"].isin(some)),
        ([("bool", "==", flag)], full["bool"] == flag),
        ([("i8", "in", [1, 2, 3]), ("bool", "==", flag)], full["i8"].isin([1, 2, 3]) & (full["bool"] == flag)),
    ):
        for columns in (None, ["str", "map"]):
            got = orcjit.read_orc(path, columns=columns, filters=filters)
            pd.testing.assert_frame_equal(got, _expected(full, mask, columns), obj=str(filters))


def test_lookup_through_every_entry_point(one_stripe: tuple[Path, pd.DataFrame]) -> None:
    path, full = one_stripe
    key = full["key_str"].iloc[7_777]
    filters = [("key_str", "in", [key, full["key_str"].iloc[3]])]
    mask = full["key_str"].isin([key, full["key_str"].iloc[3]])
    with ORCFile(path) as f:
        # read_stripe keeps the file's row numbers as the index, and dtypes of the rows it decoded (NumPy dtypes
        # of integers hold no nulls where those rows have none)
        got = f.read_stripe(0, filters=filters)
        pd.testing.assert_frame_equal(got, full[mask.to_numpy()], check_dtype=False)
        stripe = f.read_stripe(0, filters=filters, dtype_backend="pyarrow")
        pd.testing.assert_frame_equal(stripe, f.read_stripe(0, dtype_backend="pyarrow")[mask.to_numpy()])
        table = f.read_arrow(filters=filters)
        assert table.to_pandas()["key_str"].tolist() == full["key_str"][mask].tolist()
        for backend in ("numpy_nullable", "pyarrow"):
            want = f.read(dtype_backend=backend)
            got = f.read(dtype_backend=backend, filters=filters)
            pd.testing.assert_frame_equal(got, want[mask.to_numpy()].reset_index(drop=True))
    got = orcjit.read_orc(path, filters=filters, dictionary_as_category=True, columns=["key_str", "str"])
    assert got["key_str"].tolist() == full["key_str"][mask].tolist()
    assert got["str"].tolist() == full["str"][mask].tolist()


def test_lookup_decodes_other_columns_only_where_rows_match(
    one_stripe: tuple[Path, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, full = one_stripe
    seen: list[tuple[set[int], int]] = []
    original = scan.decode_run

    def spy(meta: Any, run: Any, selected: set[int], *args: Any) -> Any:
        seen.append((set(selected), run.count))
        return original(meta, run, selected, *args)

    monkeypatch.setattr(scan, "decode_run", spy)
    key = full["key_str"].iloc[6_001]
    got = orcjit.read_orc(path, filters=[("key_str", "==", key)])
    assert got["key_str"].tolist() == [key]
    with ORCFile(path) as f:
        key_id = next(n.column_id for n in f.meta.schema.children if n.name == "key_str")
    first = [count for selected, count in seen if selected == {0, key_id}]
    later = [count for selected, count in seen if key_id not in selected]
    assert first and sum(first) >= 500  # whole row groups, to test
    assert later == [1] * len(later) and later  # the one matching row, for the other columns


def test_lookup_on_pyorc_file_with_unions(tmp_path: Path) -> None:
    schema, rows = all_types_pyorc(6000, seed=3)
    path = write_pyorc(
        tmp_path / "u.orc",
        schema,
        rows,
        row_index_stride=250,
        bloom_filter_columns=["i64", "str"],
        bloom_filter_fpp=0.01,
    )
    with ORCFile(path) as f:
        assert f.nstripes == 1
        full = f.read()
    for value in full["i64"].dropna().iloc[[0, 2_000, -1]].tolist():
        mask = full["i64"] == value
        got = orcjit.read_orc(path, filters=[("i64", "==", value)])
        pd.testing.assert_frame_equal(got, full[mask.to_numpy()].reset_index(drop=True))
    string = full["str"].dropna().iloc[1_500]
    got = orcjit.read_orc(path, filters=[("str", "in", [string, "nope"])])
    pd.testing.assert_frame_equal(got, full[(full["str"] == string).to_numpy()].reset_index(drop=True))


def test_lookup_of_a_nested_field(tmp_path: Path) -> None:
    n = 8000
    table = pa.table(
        {
            "s": pa.array([{"a": i * 3, "b": f"b{i}"} for i in range(n)]),
            "x": pa.array([[i, i + 1] if i % 3 else None for i in range(n)], pa.list_(pa.int64())),
        }
    )
    path = write_pyarrow(tmp_path / "n.orc", table, row_index_stride=500, bloom_filter_columns=["s.a"])
    full = orcjit.read_orc(path)
    for columns in (None, ["x"], ["s"]):
        got = orcjit.read_orc(path, columns=columns, filters=[("s.a", "in", [300, 7_500 * 3])])
        mask = full["s"].map(lambda s: s["a"] in (300, 22_500)).to_numpy()
        want = full[mask].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want if columns is None else want[columns])


# -- slicing vectors ---------------------------------------------------------------------------------------------


def test_slice_vector_is_a_vector_of_its_own(tmp_path: Path) -> None:
    table = all_types_table(600, seed=5)
    path = write_pyarrow(tmp_path / "s.orc", table)
    with ORCFile(path) as f:
        full = f.read()
        root = _root_vector(f)
    for start, stop in ((0, 600), (0, 1), (17, 18), (100, 377), (599, 600), (300, 300)):
        chunks = [[slice_vector(child, start, stop)] for child in root.children]
        from orcjit.convert.frame import build_frame
        from orcjit.types.resolve import select_columns

        with ORCFile(path) as f:
            selection = select_columns(f.meta.schema, None)
        frame = build_frame(selection, chunks, "numpy")
        pd.testing.assert_frame_equal(frame, full.iloc[start:stop].reset_index(drop=True), check_dtype=False)
        for child in chunks:
            vec = child[0]
            if vec.offsets is not None:
                assert vec.offsets[0] == 0 and len(vec.offsets) == vec.length + 1


def _root_vector(f: ORCFile) -> ColumnVector:
    from orcjit.decode.columns import ReadContext, read_column
    from orcjit.decode.streams import read_stripe_streams

    meta = f.meta
    selected = {n.column_id for n in meta.schema.walk()}
    footer = meta.stripe_footer(0)
    streams = read_stripe_streams(meta.source, meta.tail, meta.stripes[0], footer, selected)
    return read_column(ReadContext(streams, selected, False, None), meta.schema, meta.stripes[0].rows)


# -- corrupt row indexes -----------------------------------------------------------------------------------------


def test_corrupt_row_index_of_the_filter_column_names_the_stream(tmp_path: Path) -> None:
    table = pa.table({"k": np.arange(6000), "v": np.arange(6000) * 2.0})
    path = write_pyarrow(tmp_path / "c.orc", table, compression="none", row_index_stride=500)
    with ORCFile(path) as f:
        [s] = [s for s in f.meta.stripe_footer(0).streams if s.column == 1 and s.kind == ROW_INDEX]
    data = bytearray(path.read_bytes())
    data[s.offset : s.offset + s.length] = b"\x0a" + b"\xff" * (s.length - 1)
    bad = tmp_path / "bad.orc"
    bad.write_bytes(bytes(data))
    with pytest.raises(OrcError, match=r"bad.orc: stripe 0, column 1: row index"):
        orcjit.read_orc(bad, filters=[("k", "==", 5)])


# -- string statistics compared as spans -------------------------------------------------------------------------

TEXT = st.text(
    alphabet=st.sampled_from(["a", "b", "\x00", "é", "\uffff", "日", "\U0001f600", "\U0010ffff"]), max_size=4
)
BAD_UTF8 = st.sampled_from([b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"])


@st.composite
def string_groups(draw: Any) -> tuple[tuple[Any, ...], list[pb.ColumnStatistics | None], list[int]]:
    kind = draw(st.sampled_from(["string", "varchar", "char"]))
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]))
    name = gs_tests.COLUMN[kind]
    values = draw(st.lists(TEXT, min_size=1, max_size=3))
    term = (name, op, values) if op in ("in", "not in") else (name, op, values[0])
    groups: list[pb.ColumnStatistics | None] = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 6)) == 0:
            groups.append(None)
            continue
        s = pb.ColumnStatistics(numberOfValues=draw(st.integers(0, 5)), hasNull=draw(st.booleans()))
        sub = s.stringStatistics
        sub.SetInParent()
        for number, field in ((1, "minimum"), (2, "maximum"), (4, "lowerBound"), (5, "upperBound")):
            pick = draw(st.integers(0, 4))
            if pick == 0:
                sub.MergeFromString(pb_field(number, 2, draw(BAD_UTF8)))
            elif pick > 1 or number < 3:
                setattr(sub, field, draw(TEXT))
        groups.append(s)
    rows = draw(st.lists(st.integers(0, 6), min_size=len(groups), max_size=len(groups)))
    return term, groups, rows


@settings(max_examples=1500, deadline=None)
@given(string_groups())
def test_string_bounds_as_spans_match_the_scalar_reference(case: Any) -> None:
    term, groups, row_counts = case
    [[predicate]] = normalize_filters([term], gs_tests.SCHEMA)
    rows = np.array(row_counts, dtype=np.int64)
    want = gs_tests.reference(predicate, groups, rows)
    assert gs_tests.vectorised(predicate, groups, rows).tolist() == want, (predicate, groups, row_counts)


def test_string_values_utf8_cannot_hold_are_compared_as_objects() -> None:
    s = pb.ColumnStatistics(numberOfValues=3, hasNull=False)
    s.stringStatistics.minimum, s.stringStatistics.maximum = "a", "\U0001f600"
    for value in ("\ud800", "b", "\ud83d"):
        [[predicate]] = normalize_filters([(gs_tests.COLUMN["string"], "<", value)], gs_tests.SCHEMA)
        rows = np.array([3], dtype=np.int64)
        assert gs_tests.vectorised(predicate, [s], rows).tolist() == gs_tests.reference(predicate, [s], rows)


# -- row index positions alone, for seeking ----------------------------------------------------------------------


@pytest.mark.parametrize("writer", ["pyarrow", "pyorc"])
@pytest.mark.parametrize("codec", CODECS)
def test_positions_alone_on_real_files(writer: str, codec: str, tmp_path: Path) -> None:
    if writer == "pyarrow":
        path = write_pyarrow(tmp_path / "a.orc", all_types_table(3000, seed=2), compression=codec, row_index_stride=300)
    else:
        schema, rows = all_types_pyorc(3000, seed=2)
        path = write_pyorc(tmp_path / "p.orc", schema, rows, compression=codec, row_index_stride=300)
    with ORCFile(path) as f:
        meta = f.meta
        groups = -(-meta.stripes[0].rows // meta.stride)
        streams = [s for s in meta.stripe_footer(0).streams if s.kind == ROW_INDEX]
        assert len(streams) == len(list(meta.schema.walk()))
        for s in streams:
            raw = bytes(read_index_stream(meta.source, meta.tail, meta.stripes[0], s))
            table = parse_row_index(raw, "x", entries=groups)
            assert table is not None
            got = parse_row_positions(raw, "x", entries=groups)
            assert isinstance(got, np.ndarray) and np.array_equal(got, table.position_rows())
            assert parse_row_positions(raw, "x", entries=groups + 1) is None
        # a read by row range seeks with them
        got = f.read_rows(1234, 1240, dtype_backend="numpy_nullable")
        pd.testing.assert_frame_equal(got, f.read(dtype_backend="numpy_nullable").iloc[1234:1240])


def test_corrupt_row_index_of_a_column_read_by_seeking_names_the_stream(tmp_path: Path) -> None:
    table = pa.table({"k": np.arange(6000), "v": np.arange(6000) * 2.0})
    path = write_pyarrow(tmp_path / "c.orc", table, compression="none", row_index_stride=500)
    with ORCFile(path) as f:
        [s] = [s for s in f.meta.stripe_footer(0).streams if s.column == 2 and s.kind == ROW_INDEX]
    data = bytearray(path.read_bytes())
    data[s.offset : s.offset + s.length] = b"\x0a" + b"\xff" * (s.length - 1)  # a length no varint can hold
    bad = tmp_path / "bad.orc"
    bad.write_bytes(bytes(data))
    with pytest.raises(OrcError, match=r"bad.orc: stripe 0, column 2 ROW_INDEX stream at offset \d+: row index"):
        orcjit.read_orc(bad, filters=[("k", "==", 5)])
