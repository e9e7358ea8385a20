"""Entering stripes by row group: row index positions, seeking every stream, ``read_rows`` and filtered reads that
decode only the row groups kept.

Every row group read alone (through its positions) must equal the same rows of a whole read, for every type and
encoding each writer produces: pyarrow and pyorc (ORC C++), Spark (ORC Java); RLE v1 and v2, dictionary and
direct strings, with nulls and without, nested lists, maps, structs and unions; uncompressed and every codec, with
small compression blocks so that row groups start inside chunks and runs cross chunk boundaries.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as po
import pytest

from orcjit import OrcError, ORCFile
from orcjit.compression import NONE
from orcjit.decode.cursor import StreamCursor, ValueStream
from orcjit.decode.positions import BOOLEAN, RAW, RLE, VARINTS, column_positions, split_positions, stream_layouts
from orcjit.decode.seek import read_row_positions
from orcjit.pushdown.rowgroups import kept_runs
from orcjit.stripes import DATA, LENGTH, PRESENT, SECONDARY, StreamInfo
from orcjit.types.schema import TypeNode
from tests.factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc

CODECS = ("uncompressed", "zlib", "zstd", "snappy", "lz4")


# -- helpers ---------------------------------------------------------------------------------------------------------


def _arrow(series: pd.Series) -> pa.Array:
    arr = pa.array(series)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def assert_rows(part: pd.DataFrame, full: pd.DataFrame, start: int, stop: int) -> None:
    """``part`` holds rows ``[start, stop)`` of ``full``, exactly, indexed by their row numbers."""
    assert list(part.columns) == list(full.columns)
    assert list(part.index) == list(range(start, stop))
    for column in full.columns:
        expected = _arrow(full[column]).slice(start, stop - start)
        got = _arrow(part[column])
        assert got.equals(expected), f"column {column!r}, rows [{start}, {stop}): {got} != {expected}"


def positions_of(f: ORCFile, i: int) -> Any:
    """The positions of every column of stripe ``i``; ``None`` when the stripe has no usable row index."""
    return read_row_positions(
        f.source, f.meta.tail, f.stripes[i], f.stripe_footer(i), list(f.schema.walk()), f.row_index_stride
    )


def check_every_row_group(path: Path, expect_chunks: bool = False) -> None:
    """Read every row group of every stripe alone; each must equal its rows of the whole read. Every stripe must
    have a usable row index (so the reads go through the positions)."""
    with ORCFile(path) as f:
        full = f.read(dtype_backend="pyarrow")
        stride = f.row_index_stride
        assert stride > 0
        mid_chunk = False
        for stripe in f.stripes:
            positions = positions_of(f, stripe.index)
            assert positions is not None, f"stripe {stripe.index} cannot be entered by row group"
            mid_chunk |= any(p.decompressed_offset > 0 for c in positions.values() for e in c for p in e.values())
            for first in range(0, stripe.rows, stride):
                start = stripe.first_row + first
                stop = min(start + stride, stripe.first_row + stripe.rows)
                assert_rows(f.read_rows(start, stop, dtype_backend="pyarrow"), full, start, stop)
        if expect_chunks:
            assert mid_chunk, "no row group starts inside a compression chunk"


def check_random_ranges(path: Path, n: int = 12, seed: int = 0) -> None:
    rng = random.Random(seed)
    with ORCFile(path) as f:
        full = f.read(dtype_backend="pyarrow")
        for _ in range(n):
            start = rng.randrange(0, f.nrows)
            stop = min(f.nrows, start + rng.choice((1, 2, 50, 777, 1500, f.nrows)))
            assert_rows(f.read_rows(start, stop, dtype_backend="pyarrow"), full, start, stop)


# -- position layouts ------------------------------------------------------------------------------------------------


def test_split_positions_per_layout() -> None:
    layouts = ((DATA, RAW), (LENGTH, RLE))  # a directly encoded string
    compressed = split_positions([0, 112, 12, 3, 9, 500, 7, 40, 6], layouts, True, True)
    assert compressed is not None
    assert compressed[PRESENT] == dataclasses.replace(compressed[PRESENT], chunk_offset=0, decompressed_offset=112)
    assert (compressed[PRESENT].values_to_skip, compressed[PRESENT].bits_to_skip) == (12, 3)
    assert compressed[PRESENT].booleans_to_skip == 99 and compressed[PRESENT].layout == BOOLEAN
    assert (compressed[DATA].chunk_offset, compressed[DATA].decompressed_offset, compressed[DATA].values_to_skip) == (
        9,
        500,
        0,
    )
    assert (compressed[LENGTH].chunk_offset, compressed[LENGTH].decompressed_offset) == (7, 40)
    assert compressed[LENGTH].values_to_skip == 6
    plain = split_positions([8274, 932, 76], layouts, False, False)
    assert plain is not None and plain[DATA].chunk_offset == 8274 and plain[LENGTH].values_to_skip == 76
    assert plain[LENGTH].decompressed_offset == 0
    assert split_positions([8274, 932], layouts, False, False) is None
    assert split_positions([1, 2, 3, 8274, 932, 76], layouts, False, False) is None  # no PRESENT stream


def test_layouts_per_type_and_encoding() -> None:
    def node(kind: str) -> TypeNode:
        return TypeNode(column_id=1, kind=kind)

    assert stream_layouts(node("boolean"), 2) == ((DATA, BOOLEAN),)
    assert stream_layouts(node("tinyint"), 0) == ((DATA, RLE),)
    assert stream_layouts(node("uniontype"), 0) == ((DATA, RLE),)
    assert stream_layouts(node("date"), 2) == ((DATA, RLE),)
    assert stream_layouts(node("double"), 0) == ((DATA, RAW),)
    assert stream_layouts(node("varchar"), 2) == ((DATA, RAW), (LENGTH, RLE))
    assert stream_layouts(node("string"), 3) == ((DATA, RLE),)  # DICTIONARY_V2: the ids only
    assert stream_layouts(node("char"), 1) == ((DATA, RLE),)
    assert stream_layouts(node("binary"), 0) == ((DATA, RAW), (LENGTH, RLE))
    assert stream_layouts(node("decimal"), 2) == ((DATA, VARINTS), (SECONDARY, RLE))
    assert stream_layouts(node("timestamp"), 2) == ((DATA, RLE), (SECONDARY, RLE))
    assert stream_layouts(node("map"), 2) == ((LENGTH, RLE),)
    assert stream_layouts(node("struct"), 0) == ()


def _layout_files(tmp: Path) -> list[Path]:
    table = all_types_table(2500, 3, "some")
    files = [
        write_pyarrow(tmp, table, compression="zstd", row_index_stride=1000, dictionary_key_size_threshold=1.0),
        write_pyarrow(tmp, table, compression="uncompressed", row_index_stride=1000, file_version="0.11"),
        write_pyarrow(tmp, all_types_table(2500, 3, "none"), compression="snappy", row_index_stride=1000),
    ]
    schema, rows = all_types_pyorc(2500, 3, "some")
    files.append(write_pyorc(tmp, schema, rows, compression="zlib", row_index_stride=1000, dict_key_size_threshold=1.0))
    return files


def test_real_files_match_the_layouts(tmp_path: Path) -> None:
    """Positions of files by each C++ writer configuration have exactly the lengths the layouts give, PRESENT
    included exactly where the stripe has a PRESENT stream (the parse raises otherwise)."""
    seen_present = seen_without = 0
    for path in _layout_files(tmp_path):
        with ORCFile(path) as f:
            compressed = f.compression != "NONE"
            for i in range(f.nstripes):
                footer = f.stripe_footer(i)
                positions = positions_of(f, i)
                assert positions is not None
                for column, entries in positions.items():
                    has_present = any(s.column == column and s.kind == PRESENT for s in footer.streams)
                    seen_present += has_present
                    seen_without += not has_present
                    for entry in entries:
                        assert (PRESENT in entry) == has_present
                        for p in entry.values():
                            if not compressed:
                                assert p.decompressed_offset == 0
                            if p.layout in (RAW, VARINTS):
                                assert p.values_to_skip == 0
    assert seen_present and seen_without


def test_wrong_length_positions_raise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_pyarrow(tmp_path, all_types_table(2500, 1, "none"), compression="zlib", row_index_stride=1000)
    with ORCFile(path) as f:
        footer = f.stripe_footer(0)
        nodes = list(f.schema.walk())
        i64 = f.schema["i64"].column_id
        # a PRESENT stream the writer did not record positions for: the lists are 4 numbers short
        fake = StreamInfo(kind=PRESENT, column=i64, offset=footer.streams[-1].offset, length=0)
        bad = dataclasses.replace(footer, streams=[*footer.streams, fake])
        with pytest.raises(OrcError, match=rf"stripe 0, column {i64}, row group 0: .* holds 3 positions.* needs 7"):
            read_row_positions(f.source, f.meta.tail, f.stripes[0], bad, nodes, f.row_index_stride)
        with pytest.raises(OrcError, match=r"column 5, row group 1: the row index holds 2 positions, a bigint"):
            column_positions([[0, 0, 0], [1, 2]], f.schema["i64"], footer, True, "x: stripe 0")
        with pytest.raises(OrcError, match="row group 0"):
            column_positions([[0, 0, 0, 0]], f.schema["i64"], footer, True, "x: stripe 0")

        # read_rows reaches the same error when the row index it enters by does not fit the streams
        monkeypatch.setattr("orcjit.filemeta.read_stripe_footer", lambda *args, **kwargs: bad)
        with pytest.raises(OrcError, match=rf"column {i64}, row group 0"):
            f.read_rows(1200, 1300, columns=["i64"])


# -- every row group alone: ORC C++ (pyarrow, pyorc) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def arrow_tables() -> dict[str, pa.Table]:
    return {nulls: all_types_table(4000, 11, nulls) for nulls in ("some", "none")}


@pytest.mark.parametrize(
    ("codec", "nulls", "version", "dictionary", "stride"),
    [
        ("uncompressed", "some", "0.12", False, 1000),
        ("uncompressed", "none", "0.11", True, 777),
        ("zlib", "some", "0.11", False, 777),
        ("zlib", "none", "0.12", True, 1000),
        ("zstd", "some", "0.12", True, 777),
        ("snappy", "some", "0.12", False, 1000),
        ("snappy", "none", "0.11", True, 1000),
        ("lz4", "some", "0.12", True, 1000),
        ("lz4", "some", "0.11", False, 777),
    ],
)
def test_pyarrow_row_groups_alone(
    tmp_path: Path,
    arrow_tables: dict[str, pa.Table],
    codec: str,
    nulls: str,
    version: str,
    dictionary: bool,
    stride: int,
) -> None:
    path = write_pyarrow(
        tmp_path,
        arrow_tables[nulls],
        compression=codec,
        file_version=version,
        row_index_stride=stride,
        dictionary_key_size_threshold=1.0 if dictionary else None,
        stripe_size=256 * 1024 if codec == "uncompressed" else None,
    )
    with ORCFile(path) as f:
        encodings = {e.kind_name for i in range(f.nstripes) for e in f.stripe_footer(i).encodings}
        assert "DIRECT_V2" in encodings if version == "0.12" else encodings <= {"DIRECT", "DICTIONARY"}
        assert bool(encodings & {"DICTIONARY", "DICTIONARY_V2"}) == dictionary
    check_every_row_group(path, expect_chunks=codec != "uncompressed")


@pytest.fixture(scope="module")
def pyorc_rows() -> dict[str, tuple[str, list[tuple[Any, ...]]]]:
    return {nulls: all_types_pyorc(3000, 5, nulls) for nulls in ("some", "none")}


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("dictionary", [False, True], ids=["direct", "dictionary"])
def test_pyorc_row_groups_alone(tmp_path: Path, pyorc_rows: Any, codec: str, dictionary: bool) -> None:
    """4 KiB compression blocks: row groups start inside chunks, and runs cross chunk boundaries. Stripes of
    about 100 KB, so that stripes hold a partial last row group. Nulls or none, alternating over the cases."""
    nulls = "some" if dictionary == (codec in ("zlib", "lz4", "uncompressed")) else "none"
    schema, rows = pyorc_rows[nulls]
    path = write_pyorc(
        tmp_path,
        schema,
        rows,
        compression=codec,
        compression_block_size=4096,
        row_index_stride=777,
        stripe_size=100_000,
        dict_key_size_threshold=1.0 if dictionary else None,
    )
    with ORCFile(path) as f:
        assert f.nstripes > 1 and any(s.rows % 777 for s in f.stripes)
    check_every_row_group(path, expect_chunks=codec != "uncompressed")


# -- every row group alone: ORC Java (Spark) --------------------------------------------------------------------------


def _spark_schema() -> Any:
    from pyspark.sql import types as T

    def f(name: str, typ: Any) -> Any:
        return T.StructField(name, typ, True)

    return T.StructType(
        [
            T.StructField("id", T.IntegerType(), False),
            f("b", T.BooleanType()),
            f("i8", T.ByteType()),
            f("i16", T.ShortType()),
            f("i64", T.LongType()),
            f("f32", T.FloatType()),
            f("f64", T.DoubleType()),
            f("s", T.StringType()),
            f("s_dict", T.StringType()),
            f("bin", T.BinaryType()),
            f("dec", T.DecimalType(38, 10)),
            f("dec9", T.DecimalType(9, 2)),
            f("date", T.DateType()),
            f("ts", T.TimestampType()),
            f("arr", T.ArrayType(T.IntegerType())),
            f("map", T.MapType(T.StringType(), T.DoubleType())),
            f("st", T.StructType([f("a", T.IntegerType()), f("b", T.StringType())])),
            f("nested", T.ArrayType(T.StructType([f("k", T.LongType()), f("l", T.ArrayType(T.StringType()))]))),
        ]
    )


def _spark_rows(n: int, seed: int = 3) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)

    def m(make: Any) -> Any:
        return None if rng.random() < 0.1 else make()

    def word() -> str:
        return "".join(rng.choice(("", "a", "zebra", "ß", "日本", "🎉")) for _ in range(rng.randint(0, 4)))

    rows = []
    for i in range(n):
        rows.append(
            (
                i,
                m(lambda: rng.random() < 0.5),
                m(lambda: rng.randint(-128, 127)),
                m(lambda: rng.randint(-(2**15), 2**15 - 1)),
                m(lambda: rng.randint(-(2**62), 2**62)),
                m(lambda: float(np.float32(rng.gauss(0, 100)))),
                m(lambda: rng.gauss(0, 1e6)),
                m(word),
                m(lambda: rng.choice(("red", "green", "blue"))),
                m(lambda: rng.randbytes(rng.randint(0, 12))),
                m(lambda: Decimal(rng.randint(-(10**37), 10**37)).scaleb(-10)),
                m(lambda: Decimal(rng.randint(-(10**8), 10**8)).scaleb(-2)),
                m(lambda: dt.date(2000, 1, 1) + dt.timedelta(days=rng.randint(-9000, 9000))),
                m(lambda: dt.datetime(2000, 1, 1) + dt.timedelta(microseconds=rng.randint(-(10**15), 10**15))),
                m(lambda: [m(lambda: rng.randint(0, 1000)) for _ in range(rng.randint(0, 4))]),
                m(lambda: {word() + str(k): m(lambda: rng.random()) for k in range(rng.randint(0, 3))}),
                m(lambda: (m(lambda: rng.randint(-9, 9)), m(word))),
                m(
                    lambda: [
                        m(
                            lambda: (
                                m(lambda: rng.randint(-5, 5)),
                                m(lambda: [m(word) for _ in range(rng.randint(0, 2))]),
                            )
                        )
                        for _ in range(rng.randint(0, 3))
                    ]
                ),
            )
        )
    return rows


SPARK_CODECS = {"none": "NONE", "zlib": "ZLIB", "snappy": "SNAPPY", "zstd": "ZSTD", "lz4": "LZ4"}


@pytest.fixture(scope="module")
def spark_seek_files(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    df = spark.createDataFrame(_spark_rows(4500), _spark_schema()).coalesce(1).localCheckpoint()
    root = tmp_path_factory.mktemp("spark-seek")
    out = {}
    for codec in SPARK_CODECS:
        (
            df.write.option("compression", codec)
            .option("orc.row.index.stride", "1000")
            .option("orc.compress.size", "4096")
            .orc(str(root / codec))
        )
        (out[codec],) = sorted((root / codec).glob("*.orc"))
    return out


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("codec", list(SPARK_CODECS))
def test_spark_row_groups_alone(spark_seek_files: dict[str, Path], codec: str) -> None:
    path = spark_seek_files[codec]
    with ORCFile(path) as f:
        assert f.writer == "ORC_JAVA" and f.compression == SPARK_CODECS[codec] and f.row_index_stride == 1000
    check_every_row_group(path, expect_chunks=codec != "none")
    check_random_ranges(path, n=6, seed=len(codec))


# -- read_rows ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def multi_stripe_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    schema, rows = all_types_pyorc(6000, 9, "some")
    return write_pyorc(
        tmp_path_factory.mktemp("multi"), schema, rows, compression="zstd", row_index_stride=500, stripe_size=100_000
    )


def test_read_rows_random_ranges(multi_stripe_file: Path) -> None:
    with ORCFile(multi_stripe_file) as f:
        assert f.nstripes >= 3
    check_random_ranges(multi_stripe_file, n=25)


def test_read_rows_columns_and_backends(multi_stripe_file: Path) -> None:
    with ORCFile(multi_stripe_file) as f:
        start, stop = f.stripes[1].first_row + 123, f.stripes[2].first_row + 45
        for backend in (None, "numpy_nullable"):
            full = f.read(columns=["i32", "str", "list", "struct"], dtype_backend=backend)
            part = f.read_rows(start, stop, columns=["i32", "str", "list", "struct"], dtype_backend=backend)
            expected = full.iloc[start:stop]
            pd.testing.assert_frame_equal(part, expected)
        nested = f.read_rows(start, stop, columns=["struct.b", "map"], dtype_backend="pyarrow")
        assert_rows(nested, f.read(columns=["struct.b", "map"], dtype_backend="pyarrow"), start, stop)
        cats = f.read_rows(start, stop, columns=["str"], dictionary_as_category=True)
        assert cats["str"].astype(object).equals(f.read(columns=["str"])["str"].iloc[start:stop].astype(object))


def test_read_rows_without_columns_counts_rows(multi_stripe_file: Path) -> None:
    """As read(columns=[]) and pandas.read_orc(columns=[]): no columns, one row per row of the range."""
    with ORCFile(multi_stripe_file) as f:
        start, stop = f.stripes[0].first_row + 7, f.stripes[2].first_row + 45
        part = f.read_rows(start, stop, columns=[])
        assert part.shape == (stop - start, 0)
        assert list(part.index) == list(range(start, stop))
        assert f.read_rows(f.nrows - 3, f.nrows + 10, columns=[]).shape == (3, 0)


def test_read_rows_edges(multi_stripe_file: Path) -> None:
    with ORCFile(multi_stripe_file) as f:
        full = f.read(dtype_backend="pyarrow")
        n = f.nrows
        for start, stop in (
            (0, 1),
            (n - 1, n),
            (0, n),
            (n - 5, n + 100),
            (f.stripes[1].first_row - 1, f.stripes[1].first_row + 1),
        ):
            assert_rows(f.read_rows(start, stop, dtype_backend="pyarrow"), full, start, min(stop, n))
        empty = f.read_rows(10, 10)
        assert len(empty) == 0 and list(empty.columns) == list(full.columns)
        assert len(f.read_rows(n + 5, n + 10)) == 0
        for bad in ((-1, 5), (5, 4)):
            with pytest.raises(OrcError, match="start"):
                f.read_rows(*bad)
        with pytest.raises(OrcError, match="must be an int"):
            f.read_rows(1.5, 4)  # type: ignore[arg-type]
        assert_rows(f.read_rows(np.int64(7), np.int32(9), dtype_backend="pyarrow"), full, 7, 9)


@pytest.fixture
def example_dir() -> Path:
    from tests.conftest import EXAMPLES

    return EXAMPLES


def test_read_rows_without_row_index(example_dir: Path) -> None:
    """Stripes without a row index are decoded from their first row (rows before the range skipped)."""
    path = example_dir / "TestOrcFile.testWithoutIndex.orc"
    with ORCFile(path) as f:
        assert f.row_index_stride == 0 and f.nstripes > 1
        full = f.read(dtype_backend="pyarrow")
        assert positions_of(f, 1) is None
        for start, stop in ((3, 4), (4990, 5020), (12_345, 23_456), (f.nrows - 10, f.nrows)):
            assert_rows(f.read_rows(start, stop, dtype_backend="pyarrow"), full, start, stop)


def test_read_rows_examples(example_dir: Path) -> None:
    """The ORC project's files by old Hive/ORC Java writers (RLE v1 and v2, dictionaries, nested types, a
    timestamp root, zlib/snappy/lzo/lz4/zstd with 1000-byte blocks) seek right too."""
    rng = random.Random(5)
    for name in (
        "TestOrcFile.testSeek.orc",
        "TestOrcFile.columnProjection.orc",
        "TestOrcFile.testPredicatePushdown.orc",
        "TestOrcFile.testStripeLevelStats.orc",
        "TestOrcFile.testTimestamp.orc",
        "TestVectorOrcFile.testLzo.orc",
        "TestVectorOrcFile.testZstd.0.12.orc",
        "orc_index_int_string.orc",
        "over1k_bloom.orc",
        "decimal.orc",
    ):
        with ORCFile(example_dir / name) as f:
            full = f.read(dtype_backend="pyarrow")
            for _ in range(4):
                start = rng.randrange(f.nrows)
                stop = min(f.nrows, start + rng.randint(1, 2 * (f.row_index_stride or 1000)))
                assert_rows(f.read_rows(start, stop, dtype_backend="pyarrow"), full, start, stop)


@pytest.fixture(scope="module")
def long_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 000 rows sorted by ``id``, 4 KiB compression blocks, a row group every 1000 rows: streams of hundreds
    of chunks, as in real files."""
    rng = np.random.default_rng(0)
    n = 200_000
    k = rng.integers(0, 1000, n).tolist()
    words = np.array(["alpha", "beta", "gamma", "ε", "日本"], dtype=object)[rng.integers(0, 5, n)].tolist()
    x = rng.normal(size=n).tolist()
    rows = [(i, x[i], f"{words[i]}{k[i]}", [k[i]] * (k[i] % 4)) for i in range(n)]
    return write_pyorc(
        tmp_path_factory.mktemp("long"),
        "struct<id:bigint,x:double,s:string,l:array<int>>",
        rows,
        compression="zstd",
        compression_block_size=4096,
        row_index_stride=1000,
    )


def test_read_rows_fetches_a_small_fraction(long_file: Path) -> None:
    with ORCFile(long_file) as f:
        f.source.reset_counters()
        full = f.read(dtype_backend="pyarrow")
        whole = f.source.bytes_read
        f.source.reset_counters()
        part = f.read_rows(123_456, 123_500, dtype_backend="pyarrow")
        # the row index, then per stream the chunks from the row group's position to the next group's
        assert f.source.bytes_read < whole / 25, (f.source.bytes_read, whole)
        assert f.source.reads <= 12
        assert_rows(part, full, 123_456, 123_500)
        f.source.reset_counters()
        part = f.read_rows(50_000, 150_000, dtype_backend="pyarrow")
        assert 0.45 * whole < f.source.bytes_read < 0.56 * whole
        assert_rows(part, full, 50_000, 150_000)


# -- filtered reads decode only the row groups kept ------------------------------------------------------------------


@pytest.fixture(scope="module")
def sorted_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    schema, rows = all_types_pyorc(12_000, 4, "some")
    schema = schema.replace("struct<", "struct<id:bigint,", 1)
    rows = [(i, *row) for i, row in enumerate(rows)]
    return write_pyorc(
        tmp_path_factory.mktemp("sorted"),
        schema,
        rows,
        compression="zlib",
        compression_block_size=4096,
        row_index_stride=1000,
        stripe_size=400_000,
    )


FILTERS = [
    [("id", ">=", 2500), ("id", "<", 2600)],
    [[("id", "<", 1200)], [("id", ">=", 7000), ("id", "<", 7001)], [("id", ">", 11_990)]],
    [("id", "in", [5, 3333, 9999]), ("i32", "is not null")],
    [("id", ">=", 4100), ("id", "<=", 4900)],
]


@pytest.mark.parametrize("filters", FILTERS, ids=range(len(FILTERS)))
def test_filtered_read_decodes_kept_row_groups_only(sorted_file: Path, filters: Any) -> None:
    with ORCFile(sorted_file) as f:
        assert f.nstripes >= 2
        full = f.read(dtype_backend="pyarrow")
        whole_bytes = f.source.bytes_read
        f.source.reset_counters()
        got = f.read(filters=filters, dtype_backend="pyarrow")
        filtered_bytes = f.source.bytes_read
        ids = full["id"].to_numpy()
        mask = _mask(full, filters)
        expected = full[mask].reset_index(drop=True)
        assert len(got) == mask.sum() > 0
        for column in full.columns:
            assert _arrow(got[column]).equals(_arrow(expected[column])), column
        # every run of kept row groups costs about a compression chunk per stream at each end: in this small file
        # (about 10 chunks per stream) that is most of the saving when several runs are kept
        assert filtered_bytes < (whole_bytes / 3 if filters is FILTERS[0] else whole_bytes)
        # file row numbers stay right in read_stripe and iter_stripes
        parts = [f.read_stripe(i, filters=filters) for i in range(f.nstripes)]
        index = np.concatenate([p.index.to_numpy() for p in parts])
        assert list(index) == list(np.flatnonzero(mask))
        assert list(np.concatenate([p["id"].to_numpy() for p in parts])) == list(ids[mask])
        iterated = list(f.iter_stripes(columns=["id", "str"], filters=filters))
        assert list(np.concatenate([p.index.to_numpy() for p in iterated])) == list(np.flatnonzero(mask))


def _mask(frame: pd.DataFrame, filters: Any) -> np.ndarray:
    groups = filters if isinstance(filters[0], list) else [filters]
    out = np.zeros(len(frame), dtype=bool)
    for group in groups:
        conj = np.ones(len(frame), dtype=bool)
        for column, op, *rest in group:
            values = frame[column]
            value = rest[0] if rest else None
            if op == "is not null":
                conj &= values.notna().to_numpy()
            elif op == "in":
                conj &= values.isin(value).to_numpy()
            else:
                conj &= np.asarray(
                    {"<": values < value, "<=": values <= value, ">": values > value, ">=": values >= value}[op].fillna(
                        False
                    ),
                    dtype=bool,
                )
        out |= conj
    return out


def test_filtered_read_on_a_sorted_column_saves_bytes_and_time(long_file: Path) -> None:
    filters = [("id", ">=", 100_000), ("id", "<", 101_500)]  # two row groups of 200
    with ORCFile(long_file) as f:
        full = f.read()
        f.read(filters=filters)

        def best(call: Any) -> float:
            times = []
            for _ in range(3):
                t = time.perf_counter()
                call()
                times.append(time.perf_counter() - t)
            return min(times)

        f.source.reset_counters()
        got = f.read(filters=filters)
        assert f.source.bytes_read < f.file_size / 20
        assert got.equals(full.iloc[100_000:101_500].reset_index(drop=True))
        assert best(lambda: f.read(filters=filters)) < best(f.read) / 2


# -- the cursor ------------------------------------------------------------------------------------------------------


def _chunked(parts: list[bytes]) -> bytes:
    out = b""
    for part in parts:
        out += (len(part) * 2 + 1).to_bytes(3, "little") + part  # original (uncompressed) chunks
    return out


def test_stream_cursor_fetches_and_decompresses_as_needed() -> None:
    chunks = [bytes([i]) * 100 for i in range(6)]
    stream = _chunked(chunks)
    reads: list[tuple[int, int]] = []

    def fetch(offset: int, length: int) -> bytes:
        reads.append((offset, length))
        return stream[offset : offset + length]

    start = 2 * 103
    cursor = StreamCursor(fetch, len(stream), start, stream[start : start + 150], 1, 100, "s")
    assert cursor.take() == chunks[2]  # the whole chunk fetched, the partial one kept
    assert reads == []
    rest = cursor.take()  # the rest of chunk 3 fetched, with a window of more
    assert reads and reads[0][0] == start + 150
    while (more := cursor.take()) is not None:
        rest += more
    assert rest == b"".join(chunks[3:]) and cursor.exhausted

    # values straddling the first fetch: decoding repeats the call with more bytes
    literal = bytes([0x80]) + bytes(range(128))  # a literal list of 128 bytes
    stream = _chunked([literal[:50], literal[50:]])
    cursor = StreamCursor(lambda o, n: stream[o : o + n], len(stream), 0, stream[:53], 1, 100, "s")
    values = ValueStream.from_cursor(cursor, "s", 0, skip_values=10)
    assert list(values.octets(100)) == list(range(10, 110))

    cut = StreamCursor(lambda o, n: stream[o : o + n], len(stream) - 1, 0, b"", 1, 100, "s")
    assert cut.take() == literal[:50]
    with pytest.raises(OrcError, match="chunks from byte 53: chunk at byte 0 declares 79 bytes but only 78 remain"):
        cut.take()  # the last chunk lacks its last byte
    with pytest.raises(OrcError, match="outside the stream"):
        StreamCursor(lambda o, n: b"", 10, 11, b"", NONE, 100, "s")
    with pytest.raises(OrcError, match="past the stream"):
        ValueStream.from_cursor(StreamCursor(lambda o, n: b"", 3, 0, b"abc", NONE, 100, "s"), "s", 5)


@pytest.fixture(scope="module")
def random_ints_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sorted key beside random 40-bit integers: RLE v2 runs of the random column cross chunk boundaries."""
    rng = np.random.default_rng(5)
    n = 400_000
    table = pa.table({"key": np.arange(n), "r": rng.integers(0, 10**12, n), "x": rng.random(n)})
    path = tmp_path_factory.mktemp("random_ints") / "r.orc"
    po.write_table(table, path, compression="zstd", stripe_size=4 << 20, row_index_stride=10_000)
    return path


@pytest.mark.parametrize("filters", [[("key", ">=", 100_000), ("key", "<", 180_000)], [("key", "in", [5, 250_123])]])
def test_explain_counts_the_bytes_a_filtered_read_fetches(random_ints_file: Path, filters: Any) -> None:
    with ORCFile(random_ints_file) as f:
        explanation = f.explain(filters)
        kept = [d for d in explanation.stripes if d.keep]
        assert kept and any(d.row_groups is not None and not d.row_groups.keep.all() for d in kept)
        f.source.reset_counters()
        got = f.read(filters=filters)
        fetched = f.source.bytes_read
        expected = explanation.bytes_to_read + explanation.index_bytes
        # a run of row groups ending inside a compression chunk fetches at most one more chunk per stream
        runs = sum(len(kept_runs(d.row_groups.keep)) if d.row_groups is not None else 1 for d in kept)
        slack = runs * 3 * (f.compression_block_size + 3)
        assert expected <= fetched <= expected + slack, (expected, fetched)
        assert fetched < f.file_size / 3
        full = f.read()
        pd.testing.assert_frame_equal(got, full[_mask(full, filters)].reset_index(drop=True))
