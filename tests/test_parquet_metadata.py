"""Tests of orcjit's Parquet footer reader against pyarrow's reading of the same files (pyarrow- and Spark-written),
over every kind of source, and on corrupt footers built by re-encoding real ones with the reference encoder of
tests/test_parquet_thrift.py."""

from __future__ import annotations

import datetime as dt
import io
import json
import struct
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit.parquet import ParquetError, ParquetMetadata, read_metadata
from orcjit.parquet.metadata import TAIL_READ
from orcjit.parquet.thrift import read_struct

from .test_parquet_thrift import BINARY, BOOL, DOUBLE, I64, LIST, STRUCT, encode_struct

N = 1000


def all_types_table(n: int = N, seed: int = 0) -> pa.Table:
    rng = np.random.default_rng(seed)
    valid = rng.random(n) > 0.1  # about a tenth of each nullable column is null

    def ints(dtype: Any, lo: int, hi: int) -> pa.Array:
        return pa.array(rng.integers(lo, hi, n, endpoint=True), dtype, mask=~valid)

    words = [f"w{i:05d}" for i in rng.integers(0, 5000, n)]
    base = dt.datetime(2020, 1, 1)
    return pa.table(
        {
            "i8": ints(pa.int8(), -128, 127),
            "i16": ints(pa.int16(), -(2**15), 2**15 - 1),
            "i32": ints(pa.int32(), -(2**31), 2**31 - 1),
            "i64": ints(pa.int64(), -(2**63), 2**63 - 1),
            "u8": ints(pa.uint8(), 0, 255),
            "u16": ints(pa.uint16(), 0, 2**16 - 1),
            "u32": ints(pa.uint32(), 0, 2**32 - 1),
            "u64": pa.array(rng.integers(0, 2**63, n, dtype=np.uint64) * 2 + 1, pa.uint64()),
            "f32": pa.array(rng.normal(size=n).astype(np.float32), mask=~valid),
            "f64": pa.array(rng.normal(size=n) * 1e6, mask=~valid),
            "s": pa.array(words, mask=~valid),
            "b": pa.array([w.encode() * 2 for w in words], pa.binary()),
            "ls": pa.array(words, pa.large_string()),
            "fsb": pa.array([uuid.UUID(int=int(i)).bytes for i in rng.integers(0, 2**62, n)], pa.binary(16)),
            "dec_small": pa.array(
                [Decimal(int(i)).scaleb(-2) for i in rng.integers(-99999, 99999, n)], pa.decimal128(7, 2)
            ),
            "dec_large": pa.array(
                [Decimal(int(i)).scaleb(-5) for i in rng.integers(-(2**62), 2**62, n)], pa.decimal128(30, 5)
            ),
            "date": pa.array(rng.integers(0, 20000, n).astype(np.int32), pa.date32()),
            **{
                f"ts_{unit}{'_tz' if tz else ''}": pa.array(
                    [base + dt.timedelta(seconds=int(s)) for s in rng.integers(0, 10**8, n)], pa.timestamp(unit, tz)
                )
                for unit in ("s", "ms", "us", "ns")
                for tz in (None, "UTC")
            },
            "t32": pa.array(rng.integers(0, 86400_000, n).astype(np.int32), pa.time32("ms")),
            "t64us": pa.array(rng.integers(0, 86400_000_000, n), pa.time64("us")),
            "t64ns": pa.array(rng.integers(0, 86400_000_000_000, n), pa.time64("ns")),
            "flag": pa.array(rng.random(n) > 0.5, mask=~valid),
            "st": pa.StructArray.from_arrays(
                [pa.array(rng.integers(0, 100, n).astype(np.int32)), pa.array(words)], ["x", "y"]
            ),
            "lst": pa.array([list(range(int(i))) for i in rng.integers(0, 4, n)], pa.list_(pa.int64())),
            "mp": pa.array([{"k": int(i)} for i in rng.integers(0, 9, n)], pa.map_(pa.string(), pa.int32())),
            "dict": pa.array(words, pa.string()).dictionary_encode(),
        }
    )


def write(path: Path, table: pa.Table, **options: Any) -> Path:
    pq.write_table(table, path, **options)
    return path


LOGICAL_NAMES = {
    "String": "STRING",
    "Int": "INTEGER",
    "Decimal": "DECIMAL",
    "Date": "DATE",
    "Time": "TIME",
    "Timestamp": "TIMESTAMP",
    "JSON": "JSON",
    "UUID": "UUID",
    "Float16": "FLOAT16",
    "Enum": "ENUM",
    "BSON": "BSON",
}
UNITS = {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}
PLAIN = {"INT32": "<i", "INT64": "<q", "FLOAT": "<f", "DOUBLE": "<d"}


def plain_value(physical: str, raw: bytes) -> Any:
    """A statistics value's plain bytes as pyarrow's ``min_raw`` gives them."""
    if physical in PLAIN:
        (value,) = struct.unpack(PLAIN[physical], raw)
        return value
    if physical == "BOOLEAN":
        return bool(raw[0])
    return raw


def assert_matches_pyarrow(meta: ParquetMetadata, path: Path) -> None:
    theirs = pq.ParquetFile(path).metadata
    assert meta.num_rows == theirs.num_rows
    assert meta.created_by == theirs.created_by
    assert meta.version == {"1.0": 1, "2.6": 2}.get(theirs.format_version, meta.version)
    assert {k.encode(): (v or "").encode() for k, v in meta.key_value_metadata.items()} == (theirs.metadata or {})
    assert len(meta.leaves) == theirs.num_columns
    for leaf, column in zip(meta.leaves, (theirs.schema.column(i) for i in range(theirs.num_columns)), strict=True):
        assert leaf.path == column.path
        assert leaf.physical_type == column.physical_type
        assert leaf.type_length == (column.length if column.physical_type == "FIXED_LEN_BYTE_ARRAY" else None)
        assert leaf.max_definition_level == column.max_definition_level
        assert leaf.max_repetition_level == column.max_repetition_level
        if column.converted_type != "NONE":
            assert leaf.converted_type == column.converted_type
        elif leaf.converted_type is not None:
            # pyarrow derives the converted type from the logical type, which for local (not UTC-adjusted) times
            # gives none; the file holds what writers set for older readers
            assert leaf.logical_type is not None and leaf.logical_type.utc is False
            assert leaf.converted_type.startswith(leaf.logical_type.name)
        if column.converted_type == "DECIMAL" or (leaf.logical_type and leaf.logical_type.name == "DECIMAL"):
            assert (leaf.precision, leaf.scale) == (column.precision, column.scale)
        logical = json.loads(column.logical_type.to_json())
        if logical["Type"] == "None":
            assert leaf.logical_type is None
            continue
        assert leaf.logical_type is not None
        assert leaf.logical_type.name == LOGICAL_NAMES[logical["Type"]]
        if "bitWidth" in logical:
            assert (leaf.logical_type.bit_width, leaf.logical_type.signed) == (logical["bitWidth"], logical["isSigned"])
        if "timeUnit" in logical:
            assert leaf.logical_type.unit == UNITS[logical["timeUnit"]]
            assert leaf.logical_type.utc == logical["isAdjustedToUTC"]
        if "precision" in logical:
            assert (leaf.logical_type.precision, leaf.logical_type.scale) == (logical["precision"], logical["scale"])
    assert len(meta.row_groups) == theirs.num_row_groups
    first = 0
    for g, group in enumerate(meta.row_groups):
        their_group = theirs.row_group(g)
        assert (group.index, group.first_row, group.num_rows) == (g, first, their_group.num_rows)
        assert group.total_byte_size == their_group.total_byte_size
        first += group.num_rows
        for chunk, leaf in zip(group.columns, meta.leaves, strict=True):
            their = their_group.column(leaf.index)
            assert chunk.column is leaf
            assert leaf.path == their.path_in_schema
            assert leaf.physical_type == their.physical_type
            assert chunk.codec == their.compression
            assert chunk.num_values == their.num_values
            assert chunk.data_page_offset == their.data_page_offset
            assert chunk.dictionary_page_offset == their.dictionary_page_offset
            assert chunk.total_compressed_size == their.total_compressed_size
            assert chunk.bloom_filter_offset == their.bloom_filter_offset
            assert chunk.bloom_filter_length == their.bloom_filter_length
            stats = their.statistics
            assert chunk.null_count == (stats.null_count if stats is not None and stats.has_null_count else None)
            if stats is not None and stats.has_min_max:
                assert chunk.min_value is not None and chunk.max_value is not None
                assert plain_value(leaf.physical_type, chunk.min_value) == stats.min_raw
                assert plain_value(leaf.physical_type, chunk.max_value) == stats.max_raw
            else:
                assert chunk.min_value is None and chunk.max_value is None


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return all_types_table()


@pytest.mark.parametrize("compression", ["none", "snappy", "zstd", "gzip"])
@pytest.mark.parametrize("row_group_size", [N, 300, 64])
def test_pyarrow_files_match_pyarrow(tmp_path: Path, table: pa.Table, compression: str, row_group_size: int) -> None:
    path = write(
        tmp_path / "t.parquet",
        table.replace_schema_metadata({"owner": "orcjit", "empty": ""}),
        compression=compression,
        row_group_size=row_group_size,
        bloom_filter_options={"i64": {"ndv": N, "fpp": 0.01}, "s": True, "fsb": {"ndv": 100, "fpp": 0.1}},
    )
    meta = read_metadata(path)
    try:
        assert_matches_pyarrow(meta, path)
        assert meta.key_value_metadata["owner"] == "orcjit"
        for group in meta.row_groups:
            blooms = {c.column.path for c in group.columns if c.bloom_filter_offset is not None}
            assert blooms == {"i64", "s", "fsb"}
            assert all(c.bloom_filter_length for c in group.columns if c.bloom_filter_offset is not None)
        paths = [leaf.path for leaf in meta.leaves]
        assert {"st.x", "st.y", "lst.list.element", "mp.key_value.key", "mp.key_value.value"} <= set(paths)
        assert meta.column("st.y") is meta.leaves[paths.index("st.y")]
        assert meta.column(3).path == "i64"
        decimal = meta.column("dec_large")
        assert (decimal.physical_type, decimal.type_length, decimal.precision, decimal.scale) == (
            "FIXED_LEN_BYTE_ARRAY",
            13,
            30,
            5,
        )
        assert (meta.column("dec_small").precision, meta.column("dec_small").scale) == (7, 2)
    finally:
        meta.close()


@pytest.mark.parametrize(
    "options",
    [
        {"version": "1.0", "use_dictionary": False, "write_statistics": False},
        {"version": "2.4", "data_page_version": "2.0", "store_schema": False},
        {"use_dictionary": ["s"], "write_statistics": ["i32", "s"], "compression": {"s": "zstd", "i32": "gzip"}},
        {"store_decimal_as_integer": True, "use_deprecated_int96_timestamps": True},
    ],
)
def test_writer_options_match_pyarrow(tmp_path: Path, table: pa.Table, options: dict[str, Any]) -> None:
    path = write(tmp_path / "t.parquet", table, row_group_size=400, **options)
    with_meta = read_metadata(path)
    assert_matches_pyarrow(with_meta, path)
    with_meta.close()


def test_nulls_only_and_empty(tmp_path: Path) -> None:
    nulls = pa.table({"a": pa.nulls(10, pa.int64()), "s": pa.nulls(10, pa.string())})
    path = write(tmp_path / "nulls.parquet", nulls)
    meta = read_metadata(path)
    assert_matches_pyarrow(meta, path)
    assert [c.null_count for c in meta.row_groups[0].columns] == [10, 10]
    empty = write(tmp_path / "empty.parquet", nulls.slice(0, 0))
    meta = read_metadata(empty)
    assert_matches_pyarrow(meta, empty)
    assert meta.num_rows == 0


@given(st.integers(1, 200), st.integers(1, 80), st.integers(0, 2**31))
@settings(max_examples=15, deadline=None)
def test_random_tables_match_pyarrow(rows: int, group: int, seed: int) -> None:
    table = all_types_table(rows, seed)
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=group, bloom_filter_options={"i32": True})
    data = sink.getvalue()
    meta = read_metadata(data)
    theirs = pq.ParquetFile(io.BytesIO(data)).metadata
    assert meta.num_rows == theirs.num_rows == rows
    assert [g.num_rows for g in meta.row_groups] == [theirs.row_group(i).num_rows for i in range(theirs.num_row_groups)]
    i32 = meta.column("i32").index
    for g, grp in enumerate(meta.row_groups):
        chunk, their = grp.columns[i32], theirs.row_group(g).column(i32)
        assert (chunk.bloom_filter_offset, chunk.bloom_filter_length) == (
            their.bloom_filter_offset,
            their.bloom_filter_length,
        )
        if their.statistics.has_min_max:
            assert plain_value("INT32", chunk.min_value or b"") == their.statistics.min_raw


# --- Spark -------------------------------------------------------------------------------------------------------


def test_spark_file(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "spark"
    df = spark.range(0, 5000).selectExpr("id AS k", "cast(id % 7 AS string) AS s", "id * 0.5 AS d")
    df.coalesce(1).write.option("parquet.bloom.filter.enabled#k", "true").parquet(str(out))
    (path,) = out.glob("part-*.parquet")
    meta = read_metadata(path)
    try:
        assert meta.created_by is not None and meta.created_by.startswith("parquet-mr")
        assert_matches_pyarrow(meta, path)
        assert [leaf.path for leaf in meta.leaves] == ["k", "s", "d"]
        assert meta.num_rows == 5000
        for group in meta.row_groups:
            k, s, d = group.columns
            assert k.bloom_filter_offset is not None and k.bloom_filter_length
            assert s.bloom_filter_offset is None and d.bloom_filter_offset is None
    finally:
        meta.close()


# --- sources and reads -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_file(tmp_path_factory: pytest.TempPathFactory, table: pa.Table) -> Path:
    return write(tmp_path_factory.mktemp("small") / "small.parquet", table.slice(0, 50).select(["i32", "s"]))


def test_sources(small_file: Path) -> None:
    expected = read_metadata(small_file)
    assert expected.source.reads == 1
    expected.close()
    data = small_file.read_bytes()
    with small_file.open("rb") as handle:
        from_file = read_metadata(handle)
        assert not handle.closed
    with fsspec.open("memory://orcjit/small.parquet", "wb") as f:
        f.write(data)
    for meta in (
        read_metadata(str(small_file)),
        read_metadata(data),
        read_metadata(bytearray(data)),
        from_file,
        read_metadata(io.BytesIO(data)),
        read_metadata("memory://orcjit/small.parquet"),
    ):
        assert meta.num_rows == 50
        assert [leaf.path for leaf in meta.leaves] == ["i32", "s"]
        assert meta.row_groups == expected.row_groups
        assert meta.source.reads == 1
        meta.close()


def test_a_large_footer_costs_two_reads(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    wide = pa.table({f"column_{i:03d}": rng.integers(0, 100, 200) for i in range(150)})
    path = write(tmp_path / "wide.parquet", wide, row_group_size=20)
    meta = read_metadata(path)
    try:
        assert meta.footer_length > TAIL_READ
        assert meta.source.reads == 2
        assert len(meta.row_groups) == 10
        assert_matches_pyarrow(meta, path)
    finally:
        meta.close()


# --- corrupt files -----------------------------------------------------------------------------------------------


def typed(value: Any) -> tuple[int, Any]:
    """A decoded footer value as a tree for the reference encoder: a footer holds no maps, so dicts are structs."""
    if isinstance(value, bool):
        return BOOL, value
    if isinstance(value, int):
        return I64, value
    if isinstance(value, float):
        return DOUBLE, value
    if isinstance(value, bytes):
        return BINARY, value
    if isinstance(value, list):
        items = [typed(v) for v in value]
        return LIST, (items[0][0] if items else I64, [payload for _, payload in items])
    assert isinstance(value, dict)
    return STRUCT, [(number, *typed(v)) for number, v in sorted(value.items())]


def split(data: bytes) -> tuple[bytes, dict[int, Any]]:
    """A file's bytes before the footer, and its footer decoded."""
    length = int.from_bytes(data[-8:-4], "little")
    body = data[: len(data) - 8 - length]
    fields, used = read_struct(data[len(body) : -8], "footer")
    assert used == length
    return body, fields


def join(body: bytes, footer: dict[int, Any]) -> bytes:
    encoded = encode_struct(typed(footer)[1])
    return body + encoded + len(encoded).to_bytes(4, "little") + b"PAR1"


@pytest.fixture(scope="module")
def bloom_file(tmp_path_factory: pytest.TempPathFactory, table: pa.Table) -> bytes:
    path = tmp_path_factory.mktemp("bloom") / "bloom.parquet"
    write(
        path,
        table.slice(0, 300).select(["i32", "s", "st", "lst"]),
        row_group_size=100,
        bloom_filter_options={"i32": True},
    )
    return path.read_bytes()


def test_reencoded_footer_reads_the_same(bloom_file: bytes) -> None:
    body, footer = split(bloom_file)
    meta, again = read_metadata(bloom_file), read_metadata(join(body, footer))
    assert again.row_groups == meta.row_groups
    assert again.leaves == meta.leaves
    assert again.key_value_metadata == meta.key_value_metadata


def raises(data: bytes, pattern: str) -> None:
    with pytest.raises(ParquetError, match=pattern):
        read_metadata(data)


def test_too_short_and_bad_magic(bloom_file: bytes) -> None:
    raises(b"", "0 bytes is too short")
    raises(b"PAR1\x00\x00\x00\x00PAR", "11 bytes is too short")
    raises(bloom_file[:-1] + b"2", r"not a Parquet file \(ends with b'PAR2'")
    raises(bloom_file[:-4], "not a Parquet file")
    raises(bloom_file[:-4] + b"PARE", "encrypted")


def test_footer_length_beyond_the_file(bloom_file: bytes) -> None:
    for length in (len(bloom_file) - 11, len(bloom_file), 2**32 - 1):
        raises(bloom_file[:-8] + length.to_bytes(4, "little") + b"PAR1", f"footer length {length} does not fit")


def test_truncated_footer(bloom_file: bytes) -> None:
    body, footer = split(bloom_file)
    encoded = encode_struct(typed(footer)[1])
    for cut in (1, 2, 10, len(encoded) // 2, len(encoded) - 1):
        short = encoded[:-cut]
        with pytest.raises(ParquetError, match=r"footer: .* at byte \d+"):
            read_metadata(body + short + len(short).to_bytes(4, "little") + b"PAR1")
    # a footer length that leaves bytes out, or takes in bytes before the footer
    length = int.from_bytes(bloom_file[-8:-4], "little")
    for wrong in (length - 1, length + 1, length + 7):
        data = bloom_file[:-8] + wrong.to_bytes(4, "little") + b"PAR1"
        with pytest.raises(ParquetError, match="footer"):
            read_metadata(data)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_garbled_footer_raises_parquet_error_or_decodes(bloom_file: bytes, data: st.DataObject) -> None:
    length = int.from_bytes(bloom_file[-8:-4], "little")
    garbled = bytearray(bloom_file)
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(len(bloom_file) - 8 - length, len(bloom_file) - 9))
        garbled[position] = data.draw(st.integers(0, 255))
    try:
        meta = read_metadata(bytes(garbled))
    except ParquetError as error:
        assert "footer" in str(error)
    else:
        assert meta.num_rows == sum(g.num_rows for g in meta.row_groups)


def mutated(bloom_file: bytes, change: Any) -> bytes:
    body, footer = split(bloom_file)
    change(footer)
    return join(body, footer)


def test_chunk_count_not_matching_the_schema(bloom_file: bytes) -> None:
    raises(mutated(bloom_file, lambda f: f[4][1][1].pop()), r"row group 1: 4 column chunks for a schema of 5 columns")


def test_num_rows_mismatch(bloom_file: bytes) -> None:
    raises(mutated(bloom_file, lambda f: f.update({3: 301})), "num_rows is 301, but the row groups hold 300 rows")
    raises(mutated(bloom_file, lambda f: f[4][2].update({3: -5})), "row group 2: -5 rows")


def test_bloom_filter_offsets_outside_the_file(bloom_file: bytes) -> None:
    def move(offset: int, length: int | None = None) -> Any:
        def change(footer: dict[int, Any]) -> None:
            footer[4][0][1][0][3][14] = offset
            if length is not None:
                footer[4][0][1][0][3][15] = length

        return change

    size = len(bloom_file)
    raises(mutated(bloom_file, move(size + 10)), rf"row group 0, column 'i32': bloom_filter_offset {size + 10}")
    raises(mutated(bloom_file, move(-1)), "bloom_filter_offset -1")
    raises(mutated(bloom_file, move(0)), "bloom_filter_offset 0")
    raises(mutated(bloom_file, move(4, size)), f"bloom filter of {size} bytes at 4 does not fit the file.s data")
    raises(mutated(bloom_file, move(4, 0)), "bloom filter of 0 bytes")
    # the bloom filter cannot overlap the footer
    footer_start = size - 8 - int.from_bytes(bloom_file[-8:-4], "little")
    raises(mutated(bloom_file, move(footer_start - 8, 16)), "bloom filter of 16 bytes")
    raises(mutated(bloom_file, move(footer_start + 1)), "bloom_filter_offset")


def test_schema_with_more_children_than_elements(bloom_file: bytes) -> None:
    raises(mutated(bloom_file, lambda f: f[2][0].update({5: 5})), "declares more elements than the")
    raises(mutated(bloom_file, lambda f: f[2][0].update({5: 3})), "the schema holds")
    raises(mutated(bloom_file, lambda f: f[2].clear()), "no root element")


def test_wrong_field_types(bloom_file: bytes) -> None:
    raises(mutated(bloom_file, lambda f: f.update({3: b"300"})), "field 3 holds a bytes")
    raises(mutated(bloom_file, lambda f: f.pop(4)), r"required field 4 \(row_groups\) is missing")
    raises(mutated(bloom_file, lambda f: f[2][1].update({4: b"\xff"})), "not UTF-8")
    raises(mutated(bloom_file, lambda f: f[4][0][1][0][3].update({3: [1, 2]})), "path_in_schema")
    raises(mutated(bloom_file, lambda f: f[4][0][1][0][3].update({9: -3})), "data_page_offset -3")
    raises(mutated(bloom_file, lambda f: f[4][0][1][0].pop(3)), "no column metadata")
