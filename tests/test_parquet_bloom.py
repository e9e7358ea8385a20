"""orcjit.parquet.bloom against pyarrow- and Spark-written filters, an independent xxhash reference, and corruption."""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import xxhash

from orcjit.parquet import ParquetError, read_metadata
from orcjit.parquet.bloom import bloom_filter, hash_value, might_contain, plain_bytes

N = 3000  # rows; three row groups of 1000
FPP = 0.05
SALT = [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31]

UTC = dt.UTC
BASE_TS = dt.datetime(2021, 3, 4, 5, 6, 7)


def _columns() -> dict[str, tuple[pa.Array, list[Any], list[Any]]]:
    """name -> (array of N rows, the Python values of its rows, Python values absent from it)."""
    i = np.arange(N)
    absent = np.arange(N, N + 4000)
    dec = [decimal.Decimal(int(k) * 7 - 5000).scaleb(-2) for k in i]
    dec_absent = [decimal.Decimal(int(k) * 7 - 5000).scaleb(-2) for k in absent]
    out: dict[str, tuple[pa.Array, list[Any], list[Any]]] = {
        "i32": (pa.array(i * 3 - 4000, pa.int32()), list(i * 3 - 4000), list(absent * 3 - 4000)),
        "i64": (pa.array(i * 10**12, pa.int64()), list(i * 10**12), list(absent * 10**12)),
        "i8": (pa.array(i % 200 - 100, pa.int8()), list(i % 200 - 100), []),
        "u16": (pa.array(i * 20, pa.uint16()), list(i * 20), list(np.arange(4000) * 15 + 1)),
        "u32": (
            pa.array([int(k) + 2**31 for k in i], pa.uint32()),
            [int(k) + 2**31 for k in i],
            [int(k) + 2**31 for k in absent],
        ),
        "u64": (
            pa.array([int(k) + 2**63 for k in i], pa.uint64()),
            [int(k) + 2**63 for k in i],
            [int(k) + 2**63 for k in absent],
        ),
        "f32": (pa.array(i / 4 - 1, pa.float32()), [float(k) / 4 - 1 for k in i], [float(k) / 4 - 1 for k in absent]),
        "f64": (pa.array(i / 3, pa.float64()), [k / 3 for k in i], [k / 3 for k in absent]),
        "s": (pa.array([f"v{k}é" for k in i]), [f"v{k}é" for k in i], [f"v{k}é" for k in absent]),
        "b": (pa.array([b"\x00%d" % k for k in i]), [b"\x00%d" % k for k in i], [b"\x00%d" % k for k in absent]),
        "date": (
            pa.array([dt.date(2000, 1, 1) + dt.timedelta(days=int(k)) for k in i], pa.date32()),
            [dt.date(2000, 1, 1) + dt.timedelta(days=int(k)) for k in i],
            [np.datetime64("2000-01-01") + np.timedelta64(int(k), "D") for k in absent],
        ),
        "dec_i32": (pa.array(dec, pa.decimal128(8, 2)), dec, dec_absent),
        "dec_i64": (pa.array(dec, pa.decimal128(15, 2)), dec, dec_absent),
        "dec_flba": (pa.array(dec, pa.decimal128(30, 2)), dec, dec_absent),
        "fsb": (
            pa.array([struct.pack(">i", k) for k in i], pa.binary(4)),
            [struct.pack(">i", k) for k in i],
            [struct.pack(">i", k) for k in absent],
        ),
    }
    for unit in ("ms", "us", "ns"):
        for tz in (None, "UTC"):
            step = dt.timedelta(milliseconds=37)
            rows = [BASE_TS + step * int(k) for k in i]
            miss = [BASE_TS + step * int(k) for k in absent]
            if tz:
                # aware values in another zone: the filter holds the UTC instant
                zone = dt.timezone(dt.timedelta(hours=-5))
                present = [(t.replace(tzinfo=UTC)).astimezone(zone) for t in rows]
                miss = [(t.replace(tzinfo=UTC)).astimezone(zone) for t in miss]
            else:
                present = rows
            out[f"ts_{unit}_{tz}"] = (pa.array(rows, pa.timestamp(unit, tz=tz)), present, miss)
    return out


COLUMNS = _columns()


@pytest.fixture(scope="module")
def pyarrow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bloom") / "all.parquet"
    table = pa.table({name: arr for name, (arr, _, _) in COLUMNS.items()})
    options = {name: {"ndv": 1000, "fpp": FPP} for name in COLUMNS}
    pq.write_table(table, path, bloom_filter_options=options, row_group_size=1000, store_decimal_as_integer=True)
    return path


def test_decimal_storage(pyarrow_file: Path) -> None:
    meta = read_metadata(pyarrow_file)
    kinds = {name: meta.column(name).physical_type for name in ("dec_i32", "dec_i64", "dec_flba", "u32", "date")}
    meta.close()
    assert kinds == {
        "dec_i32": "INT32",
        "dec_i64": "INT64",
        "dec_flba": "FIXED_LEN_BYTE_ARRAY",
        "u32": "INT32",
        "date": "INT32",
    }


RATES: dict[str, float] = {}


@pytest.mark.parametrize("name", list(COLUMNS))
def test_pyarrow_present_found_absent_near_fpp(pyarrow_file: Path, name: str) -> None:
    _, present, absent = COLUMNS[name]
    result = might_contain(pyarrow_file, name, present + absent)
    assert result.shape == (3, len(present) + len(absent))
    for g in range(3):
        # every row group's own values are found
        assert result[g, g * 1000 : (g + 1) * 1000].all(), name
    if not absent:
        return
    meta = read_metadata(pyarrow_file)
    fills = [bloom_filter(meta, g, name).fill_ratio for g in range(3)]  # type: ignore[union-attr]
    meta.close()
    rate = float(result[:, len(present) :].mean())
    RATES[name] = rate
    estimate = float(np.mean([f**8 for f in fills]))
    # pyarrow rounds filters up to a power of two, so the rate lies at or below the configured fpp
    assert rate < 2 * FPP, (name, rate)
    assert estimate / 3 < rate < 3 * estimate + 0.005, (name, rate, estimate)
    # in each row group the values of the other row groups mostly miss
    assert result[0, 1000:2000].mean() < 2 * FPP


def test_pyarrow_float_signed_zero_and_nan(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    table = pa.table({"f": pa.array([-0.0, float("nan"), 1.5], pa.float32())})
    pq.write_table(table, path, bloom_filter_options={"f": {"ndv": 10, "fpp": 0.01}})
    found = might_contain(path, "f", [-0.0, float("nan"), 1.5, np.float32(1.5)])
    assert found.all()


def test_filter_object(pyarrow_file: Path) -> None:
    meta = read_metadata(pyarrow_file)
    try:
        bloom = bloom_filter(meta, 1, "i32")
        assert bloom is not None
        chunk = pq.ParquetFile(pyarrow_file).metadata.row_group(1).column(meta.column("i32").index)
        assert bloom.offset == chunk.bloom_filter_offset
        assert bloom.num_bytes % 32 == 0 and bloom.words.size == bloom.num_bytes // 4
        assert 0 < bloom.fill_ratio < 1
        assert bloom.might_contain(int(COLUMNS["i32"][1][1500]))
        many = bloom.might_contain_many(COLUMNS["i32"][1][1000:2000])
        assert many.dtype == np.bool_ and many.all()
    finally:
        meta.close()


def test_no_filter_is_true_throughout(tmp_path: Path) -> None:
    path = tmp_path / "none.parquet"
    pq.write_table(pa.table({"a": [1, 2], "b": [3, 4]}), path, bloom_filter_options={"a": {"ndv": 2, "fpp": 0.1}})
    assert might_contain(path, "b", [99, 100]).all()
    meta = read_metadata(path)
    assert bloom_filter(meta, 0, "b") is None
    meta.close()


# --------------------------------------------------------------------------------------------------------------------
# the spec, independently: xxhash package over hand-made plain bytes, block and bit positions


def _reference_check(words: np.ndarray, data: bytes) -> bool:
    h = xxhash.xxh64_intdigest(data, seed=0)
    z = words.size // 8
    block = ((h >> 32) * z) >> 32
    x = h & 0xFFFFFFFF
    for i, salt in enumerate(SALT):
        bit = ((x * salt) & 0xFFFFFFFF) >> 27
        if not (int(words[8 * block + i]) >> bit) & 1:
            return False
    return True


@pytest.mark.parametrize(
    ("name", "row", "data"),
    [
        ("i32", 5, struct.pack("<i", 5 * 3 - 4000)),
        ("i64", 7, struct.pack("<q", 7 * 10**12)),
        ("u32", 9, struct.pack("<I", 9 + 2**31)),
        ("f64", 11, struct.pack("<d", 11 / 3)),
        ("f32", 12, struct.pack("<f", 12 / 4 - 1)),
        ("s", 13, "v13é".encode()),
        ("date", 14, struct.pack("<i", (dt.date(2000, 1, 15) - dt.date(1970, 1, 1)).days)),
        ("dec_flba", 15, (15 * 7 - 5000).to_bytes(13, "big", signed=True)),
        ("dec_i32", 16, struct.pack("<i", 16 * 7 - 5000)),
    ],
)
def test_reference_hash_positions(pyarrow_file: Path, name: str, row: int, data: bytes) -> None:
    meta = read_metadata(pyarrow_file)
    leaf = meta.column(name)
    bloom = bloom_filter(meta, 0, name)
    meta.close()
    assert bloom is not None
    value = COLUMNS[name][1][row]
    assert plain_bytes(leaf, value) == data
    assert hash_value(leaf, value) == xxhash.xxh64_intdigest(data, seed=0)
    assert _reference_check(bloom.words, data)
    # the reference and the kernel agree on absent values too
    for other in COLUMNS[name][2][:200]:
        assert _reference_check(bloom.words, plain_bytes(leaf, other)) == bloom.might_contain(other)


# --------------------------------------------------------------------------------------------------------------------
# values that do not fit


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("i32", "5"),
        ("i32", 2**31),
        ("i32", 1.0),
        ("i32", True),
        ("i8", 200),
        ("u16", -1),
        ("u64", 2**64),
        ("i64", None),
        ("dec_i32", decimal.Decimal("1.234")),
        ("dec_i32", decimal.Decimal("1234567.00")),
        ("dec_i32", 1.5),
        ("dec_flba", decimal.Decimal("NaN")),
        ("fsb", b"abc"),
        ("s", 5),
        ("date", dt.datetime(2020, 1, 1, 3)),
        ("ts_ms_None", dt.datetime(2020, 1, 1, 0, 0, 0, 1)),
        ("ts_us_None", "2020-01-01"),
        ("f64", 2**60 + 1),
        ("f32", 1e300),
    ],
)
def test_values_that_do_not_fit(pyarrow_file: Path, name: str, value: Any) -> None:
    with pytest.raises(ParquetError, match=name):
        might_contain(pyarrow_file, name, [value])


def test_boolean_has_no_filter_hash(tmp_path: Path) -> None:
    path = tmp_path / "bool.parquet"
    pq.write_table(pa.table({"b": [True, False]}), path)
    meta = read_metadata(path)
    with pytest.raises(ParquetError, match="BOOLEAN"):
        hash_value(meta.column("b"), True)
    meta.close()


def test_exact_decimal_and_timestamp_forms(pyarrow_file: Path) -> None:
    meta = read_metadata(pyarrow_file)
    dec = meta.column("dec_i64")
    # trailing zeros beyond the scale do not change the value
    assert plain_bytes(dec, decimal.Decimal("-49.9900")) == struct.pack("<q", -4999)
    ts = meta.column("ts_ns_None")
    import pandas as pd

    stamp = pd.Timestamp("2021-03-04 05:06:07.000000001")
    assert plain_bytes(ts, stamp) == struct.pack("<q", stamp.value)
    assert plain_bytes(ts, np.datetime64(stamp.value, "ns")) == struct.pack("<q", stamp.value)
    meta.close()


# --------------------------------------------------------------------------------------------------------------------
# corrupt filters


def _patched(src: Path, tmp: Path, column: str, patch: bytes, *, at: int = 0) -> Path:
    chunk = pq.ParquetFile(src).metadata.row_group(0).column(list(COLUMNS).index(column))
    data = bytearray(src.read_bytes())
    offset = chunk.bloom_filter_offset + at
    data[offset : offset + len(patch)] = patch
    out = tmp / "patched.parquet"
    out.write_bytes(bytes(data))
    return out


def _zigzag_varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    z &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


@pytest.mark.parametrize(
    ("num_bytes", "message"),
    [(100, "not a positive multiple of 32"), (-32, "not a positive multiple"), (2**30, "more than")],
)
def test_bad_num_bytes(pyarrow_file: Path, tmp_path: Path, num_bytes: int, message: str) -> None:
    meta = read_metadata(pyarrow_file)
    offset = meta.row_groups[0].columns[0].bloom_filter_offset
    meta.close()
    # a whole header: field 1 (i32) numBytes, then the three unions each holding member 1, an empty struct
    header = b"\x15" + _zigzag_varint(num_bytes) + b"\x1c\x1c\x00\x00" * 3 + b"\x00"
    path = _patched(pyarrow_file, tmp_path, "i32", header)
    with pytest.raises(ParquetError, match=message) as info:
        might_contain(path, "i32", [1])
    text = str(info.value)
    assert "row group 0" in text and "'i32'" in text and f"offset {offset}" in text


def test_num_bytes_past_file(pyarrow_file: Path, tmp_path: Path) -> None:
    # write a file whose filter is the last thing before the footer, then claim a larger filter without a length
    meta = read_metadata(pyarrow_file)
    chunk = meta.row_groups[0].columns[0]
    assert chunk.bloom_filter_length is not None
    meta.close()
    original = pyarrow_file.read_bytes()
    offset = chunk.bloom_filter_offset
    assert offset is not None
    varint = original[offset + 1 : offset + 3]
    # 0x15, two-byte varint of 512 -> a larger multiple of 32 with the same width
    assert len(_zigzag_varint(8000)) == 2 and varint[1] < 0x80
    path = _patched(pyarrow_file, tmp_path, "i32", _zigzag_varint(8000), at=1)
    with pytest.raises(ParquetError, match="bloom_filter_length"):
        might_contain(path, "i32", [1])


def test_unknown_algorithm(pyarrow_file: Path, tmp_path: Path) -> None:
    original = pyarrow_file.read_bytes()
    meta = read_metadata(pyarrow_file)
    offset = meta.row_groups[0].columns[0].bloom_filter_offset
    meta.close()
    assert offset is not None
    # after numBytes: field 2 struct (0x1c) holding field 1 struct (0x1c) ... ; make the member field 2 (0x2c)
    at = original.index(b"\x1c\x1c", offset, offset + 16) - offset
    path = _patched(pyarrow_file, tmp_path, "i32", b"\x1c\x2c", at=at)
    with pytest.raises(ParquetError, match="unknown algorithm"):
        might_contain(path, "i32", [1])


def test_header_garbage(pyarrow_file: Path, tmp_path: Path) -> None:
    path = _patched(pyarrow_file, tmp_path, "i32", b"\xff" * 12)
    with pytest.raises(ParquetError, match="row group 0, column 'i32'"):
        might_contain(path, "i32", [1])


def test_offset_into_data_pages(pyarrow_file: Path, tmp_path: Path) -> None:
    # a copy whose footer says the filter starts at the column's first data page
    from orcjit.parquet import metadata as md

    meta = read_metadata(pyarrow_file)
    chunk = meta.row_groups[0].columns[0]
    meta.close()
    fake = md.ColumnChunk(
        **{**chunk.__dict__, "bloom_filter_offset": chunk.data_page_offset, "bloom_filter_length": None}
    )
    meta = read_metadata(pyarrow_file)
    meta.row_groups[0].columns[0] = fake
    try:
        with pytest.raises(ParquetError, match=f"offset {chunk.data_page_offset}"):
            bloom_filter(meta, 0, "i32")
    finally:
        meta.close()


def test_length_unknown_reads_header_then_bitset(pyarrow_file: Path) -> None:
    from orcjit.parquet import metadata as md

    meta = read_metadata(pyarrow_file)
    try:
        known = bloom_filter(meta, 2, "s")
        chunk = meta.row_groups[2].columns[meta.column("s").index]
        meta.row_groups[2].columns[chunk.column.index] = md.ColumnChunk(
            **{**chunk.__dict__, "bloom_filter_length": None}
        )
        unknown = bloom_filter(meta, 2, "s")
        assert known is not None and unknown is not None
        assert np.array_equal(known.words, unknown.words)
    finally:
        meta.close()


def test_truncated_file(pyarrow_file: Path) -> None:
    meta = read_metadata(pyarrow_file)
    offset = meta.row_groups[2].columns[0].bloom_filter_offset
    meta.close()
    assert offset is not None
    data = pyarrow_file.read_bytes()
    # keep the footer but cut the file short so the filter's recorded range passes its end
    footer_len = int.from_bytes(data[-8:-4], "little")
    footer = data[-8 - footer_len :]
    with pytest.raises(ParquetError):
        might_contain(data[: offset + 10] + footer, "i32", [1])


def test_bad_arguments(pyarrow_file: Path) -> None:
    meta = read_metadata(pyarrow_file)
    try:
        with pytest.raises(ParquetError, match="no row group"):
            bloom_filter(meta, 7, "i32")
        with pytest.raises(ParquetError, match="no column"):
            bloom_filter(meta, 0, "nope")
    finally:
        meta.close()
    with pytest.raises(ParquetError, match="sequence"):
        might_contain(pyarrow_file, "s", "abc")


# --------------------------------------------------------------------------------------------------------------------
# Spark (parquet-mr)


def test_spark_filters(spark: Any, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    n = 30000
    df = spark.range(n).select(
        (F.col("id") * 7).alias("k"),
        F.concat(F.lit("s"), F.col("id").cast("string")).alias("s"),
    )
    out = str(tmp_path / "spark")
    (
        df.coalesce(1)
        .write.option("parquet.bloom.filter.enabled#k", "true")
        .option("parquet.bloom.filter.enabled#s", "true")
        .option("parquet.bloom.filter.expected.ndv#k", "8192")
        .option("parquet.bloom.filter.fpp#k", str(FPP))
        .option("parquet.block.size", str(64 * 1024))
        .parquet(out)
    )
    (path,) = sorted(Path(out).glob("*.parquet"))
    groups = pq.ParquetFile(path).metadata.num_row_groups
    assert groups > 1
    table = pq.read_table(path)
    rows = np.cumsum([0] + [pq.ParquetFile(path).metadata.row_group(g).num_rows for g in range(groups)])
    keys = table["k"].to_pylist()
    strings = table["s"].to_pylist()
    absent_k = [7 * i + 3 for i in range(5000)]
    found = might_contain(path, "k", keys + absent_k)
    found_s = might_contain(path, "s", strings + [f"x{i}" for i in range(5000)])
    for g in range(groups):
        assert found[g, rows[g] : rows[g + 1]].all()
        assert found_s[g, rows[g] : rows[g + 1]].all()
    rate = float(found[:, len(keys) :].mean())
    rate_s = float(found_s[:, len(strings) :].mean())
    RATES["spark k"] = rate
    RATES["spark s"] = rate_s
    # 64 KiB row groups hold 8191 longs, the ndv k's filters are sized for: the rate is near the fpp and the
    # fill-ratio estimate; s's filters keep parquet-mr's default size (far more than a row group needs)
    meta = read_metadata(path)
    estimate = float(np.mean([bloom_filter(meta, g, "k").fill_ratio ** 8 for g in range(groups)]))  # type: ignore[union-attr]
    meta.close()
    assert rate < 2 * FPP
    assert estimate / 3 < rate < 3 * estimate + 0.005, (rate, estimate)
    assert rate_s < 0.1


def test_a_float_zero_may_be_either_zero(tmp_path: Path) -> None:
    path = tmp_path / "zeros.parquet"
    table = pa.table({"f": pa.array([-0.0, 1.0], pa.float32()), "d": pa.array([0.0, 1.0], pa.float64())})
    pq.write_table(table, path, bloom_filter_options={"f": True, "d": True})
    for column in ("f", "d"):
        # both zeros compare equal, whichever sign the writer stored and hashed
        assert might_contain(path, column, [0.0, -0.0]).tolist() == [[True, True]]
        meta = read_metadata(path)
        bloom = bloom_filter(meta, 0, column)
        assert bloom is not None and bloom.might_contain(0.0) and bloom.might_contain(-0.0)
        meta.close()
    # the two zeros do hash differently: only one of them is in each filter
    meta = read_metadata(path)
    leaf = meta.column("f")
    assert hash_value(leaf, 0.0) != hash_value(leaf, -0.0)
    meta.close()
