"""The test-data factory's options really take effect, as orcjit.ORCFile sees them (which in turn shows ORCFile
reports what was written)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest

from orcjit import ORCFile
from tests.factory import (
    COMPRESSIONS,
    NULLS,
    ORC_COMPRESSION,
    PYORC_CONVERTERS,
    PYORC_FIELDS,
    PYORC_SCHEMA,
    TABLE_ORC_SCHEMA,
    all_types_pyorc,
    all_types_table,
    arrow_column_ids,
    write_pyarrow,
    write_pyorc,
)

SMALL_SCHEMA = "struct<i:bigint,s:string>"


def small_rows(n: int = 2000) -> list[tuple[int, str]]:
    return [(i * 7919 % 10007, f"value {i % 50}") for i in range(n)]


def small_table(n: int = 2000) -> pa.Table:
    rows = small_rows(n)
    return pa.table({"i": pa.array([r[0] for r in rows], pa.int64()), "s": [r[1] for r in rows]})


def index_streams(f: ORCFile, kinds: set[str]) -> set[int]:
    """Columns with streams of the given kinds in any stripe."""
    return {s.column for i in range(f.nstripes) for s in f.stripe_footer(i).streams if s.kind_name in kinds}


@pytest.mark.parametrize("compression", [*COMPRESSIONS, "none"])
@pytest.mark.parametrize("writer", ["pyarrow", "pyorc"])
def test_compression(tmp_path: Path, writer: str, compression: str) -> None:
    if writer == "pyarrow":
        path = write_pyarrow(tmp_path, small_table(), compression=compression)
    else:
        path = write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), compression=compression)
    with ORCFile(path) as f:
        assert f.compression == ORC_COMPRESSION[compression]
        assert f.compression_block_size == 65536
        assert f.nrows == 2000


@pytest.mark.parametrize("writer", ["pyarrow", "pyorc"])
def test_lz4_really_compresses(tmp_path: Path, writer: str) -> None:
    # the ORC C++ writer barely compresses LZ4 under its default "speed" strategy: the factory picks "compression"
    sizes = {}
    for compression in ("lz4", "uncompressed"):
        if writer == "pyarrow":
            path = write_pyarrow(tmp_path, small_table(20_000), compression=compression)
        else:
            path = write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(20_000), compression=compression)
        sizes[compression] = path.stat().st_size
    assert sizes["lz4"] < sizes["uncompressed"] / 2


def test_unknown_compression_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown compression"):
        write_pyarrow(tmp_path, small_table(), compression="brotli")
    with pytest.raises(ValueError, match="unknown compression"):
        write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), compression="lzo")


@pytest.mark.parametrize("version", ["0.11", "0.12"])
def test_file_version(tmp_path: Path, version: str) -> None:
    with ORCFile(write_pyarrow(tmp_path, small_table(), file_version=version)) as f:
        assert f.file_version == version
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows())) as f:
        assert f.file_version == "0.12"


def test_small_stripes(tmp_path: Path) -> None:
    # uncompressed pyarrow closes a stripe after every batch past stripe_size
    path = write_pyarrow(tmp_path, small_table(2000), compression="uncompressed", stripe_size=1, batch_size=500)
    with ORCFile(path) as f:
        assert [s.rows for s in f.stripes] == [500] * 4
        assert [s.first_row for s in f.stripes] == [0, 500, 1000, 1500]
    # pyorc: small stripes under compression too (the factory shrinks the compression blocks)
    path = write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(20_000), compression="zstd", stripe_size=16384)
    with ORCFile(path) as f:
        assert f.compression_block_size == 4096
        assert f.nstripes >= 3
        assert sum(s.rows for s in f.stripes) == f.nrows == 20_000
    # and by default one stripe
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(20_000))) as f:
        assert f.nstripes == 1


def test_row_index_stride(tmp_path: Path) -> None:
    with ORCFile(write_pyarrow(tmp_path, small_table(), row_index_stride=1000)) as f:
        assert f.row_index_stride == 1000
        assert index_streams(f, {"ROW_INDEX"}) == {0, 1, 2}
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), row_index_stride=500)) as f:
        assert f.row_index_stride == 500
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), row_index_stride=0)) as f:
        assert f.row_index_stride == 0
        assert index_streams(f, {"ROW_INDEX"}) == set()
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows())) as f:
        assert f.row_index_stride == 10000


def test_user_metadata(tmp_path: Path) -> None:
    metadata = {"plain": b"value", "with.dot": b"\x00\xff\x01", "empty": b"", "ünï": "ç".encode()}
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), metadata=metadata)) as f:
        assert f.user_metadata == metadata
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows())) as f:
        assert f.user_metadata == {}


def test_bloom_filter_columns(tmp_path: Path) -> None:
    table = all_types_table(300, seed=0)
    ids = arrow_column_ids(table.schema)
    path = write_pyarrow(tmp_path, table, bloom_filter_columns=["str", "struct.b", "i64"], bloom_filter_fpp=0.01)
    with ORCFile(path) as f:
        expected = {f.schema.find("str").column_id, f.schema.find("struct.b").column_id, f.schema.find("i64").column_id}
        assert {ids["str"], ids["struct.b"], ids["i64"]} == expected
        assert index_streams(f, {"BLOOM_FILTER", "BLOOM_FILTER_UTF8"}) == expected
    with pytest.raises(KeyError, match="nope"):
        write_pyarrow(tmp_path, table, bloom_filter_columns=["nope"])
    path = write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), bloom_filter_columns=["s"])
    with ORCFile(path) as f:
        assert index_streams(f, {"BLOOM_FILTER", "BLOOM_FILTER_UTF8"}) == {2}
    with ORCFile(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows())) as f:
        assert index_streams(f, {"BLOOM_FILTER", "BLOOM_FILTER_UTF8"}) == set()


def test_arrow_column_ids_follow_orc_preorder(tmp_path: Path) -> None:
    table = all_types_table(10, seed=0)
    ids = arrow_column_ids(table.schema)
    with ORCFile(write_pyarrow(tmp_path, table)) as f:
        for node in f.schema.walk():
            if node.column_id == 0:
                continue
            if node.name is not None:
                assert ids[node.path] == node.column_id
        assert sorted(ids.values()) == list(range(1, f.ncolumns))


def test_dictionary_threshold(tmp_path: Path) -> None:
    def string_encoding(path: Path) -> str:
        with ORCFile(path) as f:
            return f.stripe_footer(0).encodings[2].kind_name

    assert string_encoding(write_pyarrow(tmp_path, small_table())) == "DIRECT_V2"
    assert string_encoding(write_pyarrow(tmp_path, small_table(), dictionary_key_size_threshold=1.0)) == "DICTIONARY_V2"
    assert string_encoding(write_pyorc(tmp_path, SMALL_SCHEMA, small_rows(), dict_key_size_threshold=1.0)) == (
        "DICTIONARY_V2"
    )


def test_paths(tmp_path: Path) -> None:
    first = write_pyarrow(tmp_path, small_table())
    second = write_pyarrow(tmp_path, small_table())
    third = write_pyorc(tmp_path, SMALL_SCHEMA, small_rows())
    assert len({first, second, third}) == 3 and all(p.parent == tmp_path for p in (first, second, third))
    named = write_pyorc(tmp_path / "named.orc", SMALL_SCHEMA, small_rows())
    assert named == tmp_path / "named.orc"
    # a DataFrame goes in without its index
    df = pd.DataFrame({"x": [1, 2, 3]}, index=[10, 20, 30])
    with ORCFile(write_pyarrow(tmp_path / "df.orc", df)) as f:
        assert str(f.schema) == "struct<x:bigint>" and f.nrows == 3


def test_struct_repr_and_timezone(tmp_path: Path) -> None:
    rows = [{"a": 1, "t": pd.Timestamp("2020-03-08 01:30:00.123456789")}]
    path = write_pyorc(tmp_path, "struct<a:int,t:timestamp>", rows, struct_repr="dict", timezone="America/New_York")
    with ORCFile(path) as f:
        assert f.stripe_footer(0).writer_timezone == "America/New_York"
        assert f.statistics[2].minimum == rows[0]["t"]  # the wall clock, to the nanosecond
    assert pa_orc.read_table(path).to_pylist() == rows


def test_timestamp_converter(tmp_path: Path) -> None:
    values = [
        pd.Timestamp("2001-09-09 01:46:40.123456789"),
        pd.Timestamp("1900-01-01 00:00:00.000000001"),
        pd.Timestamp("1969-12-31 23:59:58.999999999"),
    ]
    rows = [(v, v.tz_localize("UTC")) for v in values]
    path = write_pyorc(tmp_path, "struct<t:timestamp,l:timestamp with local time zone>", rows)
    table = pa_orc.read_table(path)
    assert table.column("t").to_pylist() == values
    assert table.column("l").to_pylist() == [v.tz_localize("UTC") for v in values]
    with open(path, "rb") as fh:
        assert [r[1] for r in pyorc.Reader(fh, converters=PYORC_CONVERTERS)] == [v.tz_localize("UTC") for v in values]
    # the second before 1970 cannot be written faithfully by ORC C++; a raw tuple goes through as it is
    with pytest.raises(ValueError, match="second before 1970"):
        write_pyorc(tmp_path, "struct<t:timestamp>", [(pd.Timestamp("1969-12-31 23:59:59.5"),)])
    path = write_pyorc(tmp_path, "struct<t:timestamp>", [((12, 345),)])
    assert pa_orc.read_table(path).column("t").to_pylist() == [pd.Timestamp(12_000_000_345)]


@pytest.mark.parametrize("nulls", NULLS)
def test_all_types_table(tmp_path: Path, nulls: str) -> None:
    table = all_types_table(500, seed=5, nulls=nulls)
    assert table.equals(all_types_table(500, seed=5, nulls=nulls))
    assert table.equals(all_types_table(500, seed=6, nulls=nulls)) == (nulls == "all")
    null_counts = {name: table.column(name).null_count for name in table.column_names}
    if nulls == "none":
        assert set(null_counts.values()) == {0}
    elif nulls == "all":
        assert set(null_counts.values()) == {500}
    else:
        assert all(0 < n < 100 for n in null_counts.values())
        row0, row1 = table.slice(0, 2).to_pylist()
        assert (row0["i64"], row1["i64"]) == (-(1 << 63), (1 << 63) - 1)
        assert row0["str"] == "" and row0["bin"] == b""
        assert str(row1["dec38"]) == "9" * 28 + "." + "9" * 10
        strings = [v for v in table.column("str").to_pylist() if v is not None]
        assert "" in strings and any(ord(ch) > 0xFFFF for v in strings for ch in v)  # beyond the BMP
        floats = [v for name in ("f32", "f64") for v in table.column(name).to_pylist() if v is not None]
        assert not any(math.isnan(v) for v in floats)
    with ORCFile(write_pyarrow(tmp_path, table)) as f:
        assert str(f.schema) == TABLE_ORC_SCHEMA
        assert f.nrows == 500


@pytest.mark.parametrize("nulls", NULLS)
def test_all_types_pyorc(tmp_path: Path, nulls: str) -> None:
    schema, rows = all_types_pyorc(500, seed=5, nulls=nulls)
    assert (schema, rows) == all_types_pyorc(500, seed=5, nulls=nulls)
    assert rows != all_types_pyorc(500, seed=6, nulls=nulls)[1]  # the unions differ even with nulls="all"
    union = [r[-1] for r in rows]
    assert all(v is not None for v in union)  # never null: pyorc cannot write null unions safely
    assert {type(v) for v in union} == {int, str}
    others = [v for r in rows for v in r[:-1]]
    if nulls == "all":
        assert set(others) == {None}
    elif nulls == "none":
        assert None not in others
    path = write_pyorc(tmp_path, schema, rows)
    with ORCFile(path) as f:
        assert str(f.schema) == schema == PYORC_SCHEMA
        assert f.schema.field_names == PYORC_FIELDS
        assert f.nrows == 500
    # nanosecond timestamps go through the factory's converter intact
    read = pa_orc.read_table(path)
    for name in ("ts", "ts_utc"):
        assert read.column(name).to_pylist() == [r[PYORC_FIELDS.index(name)] for r in rows]
