"""Parquet split-block Bloom filters: xxHash64, insert/check, sizing, and filters pyarrow writes into Parquet files."""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from orcjit.errors import OrcError
from orcjit.kernels.split_block import (
    MAX_BYTES,
    SALT,
    SIZING_TABLE,
    bits_per_value,
    block_index,
    filter_from_bytes,
    hash_plain,
    new_filter,
    optimal_num_bytes,
    sbbf_check,
    sbbf_check_many,
    sbbf_insert,
    sbbf_insert_many,
    xxhash64,
    xxhash64_fixed,
    xxhash64_strings,
)
from orcjit.kernels.status import BAD_LENGTH

M64 = (1 << 64) - 1


def u8(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


def measured_fpp(words: np.ndarray, probes: int, seed: int) -> float:
    hashes = np.random.default_rng(seed).integers(0, M64, size=probes, dtype=np.uint64, endpoint=True)
    out = np.zeros(probes, dtype=np.bool_)
    return sbbf_check_many(words, hashes, out) / probes


def filled(num_bytes: int, n: int, seed: int) -> np.ndarray:
    words = new_filter(num_bytes)
    hashes = np.random.default_rng(seed).integers(0, M64, size=n, dtype=np.uint64, endpoint=True)
    sbbf_insert_many(words, hashes)
    return words


# -- xxHash64 ---------------------------------------------------------------------------------------------------------

# XXH64 with seed 0 unless noted (the first three are the published test vectors)
XXH64_VECTORS = {
    b"": 0xEF46DB3751D8E999,
    b"a": 0xD24EC4F1A98C6E5B,
    b"abc": 0x44BC2CF5AD770999,
    b"0123456789abcdefghijklmnopqrstuvwxyz": 0x69196C1B3AF0BFF9,
    b"The quick brown fox jumps over the lazy dog": 0x0B242D361FDA71BC,
}


def test_xxhash64_vectors() -> None:
    for data, expected in XXH64_VECTORS.items():
        assert int(xxhash64(u8(data), 0, len(data), 0)) == expected, data
    assert int(xxhash64(u8(b"abc"), 0, 3, 1)) == 0xBEA9CA8199328908


def test_xxhash64_matches_the_xxhash_package() -> None:
    import xxhash

    rng = random.Random(1)
    for length in [*range(0, 100), 255, 256, 1000, 4099]:
        data = rng.randbytes(length)
        for seed in (0, 1, M64, 0x9E3779B185EBCA87):
            got = int(xxhash64(u8(data), 0, length, np.uint64(seed)))
            assert got == xxhash.xxh64_intdigest(data, seed=seed), (length, seed)
    data = rng.randbytes(200)
    assert int(xxhash64(u8(data), 17, 100, 0)) == xxhash.xxh64_intdigest(data[17:117])


def test_xxhash64_range_is_clipped() -> None:
    buf = u8(b"abcdef")
    assert int(xxhash64(buf, 3, 99, 0)) == int(xxhash64(u8(b"def"), 0, 3, 0))
    assert int(xxhash64(buf, -3, 1, 0)) == XXH64_VECTORS[b"a"]
    assert int(xxhash64(buf, 10, 1, 0)) == XXH64_VECTORS[b""]


def test_fixed_width_and_strings() -> None:
    rng = random.Random(2)
    for width in (1, 2, 3, 4, 5, 8, 12, 16):
        raw = u8(rng.randbytes(width * 37))
        out = np.zeros(37, dtype=np.uint64)
        assert xxhash64_fixed(raw, width, out) == 37
        assert [int(h) for h in out] == [int(xxhash64(raw, i * width, width, 0)) for i in range(37)], width
    out = np.zeros(10, dtype=np.uint64)
    assert xxhash64_fixed(u8(b"abcdefg"), 4, out) == BAD_LENGTH  # not whole values
    assert xxhash64_fixed(u8(b"abcd"), 0, out) == BAD_LENGTH
    assert xxhash64_fixed(u8(b"a" * 44), 4, out) == BAD_LENGTH  # out too short

    words = ["", "a", "abc", "ünïcödé", "x" * 40]
    arr = pa.array(words)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[: len(words) + 1]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)
    out = np.zeros(len(words), dtype=np.uint64)
    assert xxhash64_strings(data, offsets, out) == len(words)
    assert [int(h) for h in out] == [int(xxhash64(u8(w.encode()), 0, len(w.encode()), 0)) for w in words]
    assert list(hash_plain(words)) == list(out)
    assert xxhash64_strings(data, np.array([0, 5, 3], dtype=np.int64), out) == BAD_LENGTH
    assert xxhash64_strings(data, np.array([0, 10**6], dtype=np.int64), out) == BAD_LENGTH
    assert xxhash64_strings(data, np.zeros(0, dtype=np.int64), out) == 0


def test_hash_plain_uses_the_plain_encoding() -> None:
    def xxh(data: bytes) -> int:
        return int(xxhash64(u8(data), 0, len(data), 0))

    int8 = hash_plain(np.array([-1, 7], dtype=np.int8))  # INT32: sign-extended to 4 bytes
    assert [int(h) for h in int8] == [xxh(struct.pack("<i", v)) for v in (-1, 7)]
    assert [int(h) for h in hash_plain(np.array([65535], dtype=np.uint16))] == [xxh(struct.pack("<I", 65535))]
    assert [int(h) for h in hash_plain(np.array([-5], dtype=np.int32))] == [xxh(struct.pack("<i", -5))]
    assert [int(h) for h in hash_plain(np.array([-5], dtype=">i8"))] == [xxh(struct.pack("<q", -5))]
    assert [int(h) for h in hash_plain(np.array([1.5], dtype=np.float32))] == [xxh(struct.pack("<f", 1.5))]
    assert [int(h) for h in hash_plain(np.array([1.5]))] == [xxh(struct.pack("<d", 1.5))]
    assert [int(h) for h in hash_plain(np.array([b"ab\x00\x01c"], dtype="S5"))] == [xxh(b"ab\x00\x01c")]
    assert [int(h) for h in hash_plain([b"\xff", "é"])] == [xxh(b"\xff"), xxh("é".encode())]
    assert hash_plain(np.zeros(0, dtype=np.int64)).size == 0 and hash_plain([]).size == 0


# -- blocks and filters -----------------------------------------------------------------------------------------------


def ref_mask(x: int) -> list[int]:
    """The spec's mask: one bit per word, ``(x * salt[i] mod 2**32) >> 27``."""
    return [1 << (((x * int(s)) & 0xFFFFFFFF) >> 27) for s in SALT]


def test_salt_constants() -> None:
    assert [hex(s) for s in SALT] == [
        "0x47b6137b", "0x44974d91", "0x8824ad5b", "0xa2b7289d", "0x705495c7", "0x2df1424b", "0x9efc4947", "0x5c6bfb31",
    ]  # fmt: skip
    assert all(int(s) & 1 for s in SALT)


def test_block_index() -> None:
    rng = random.Random(4)
    for z in (1, 2, 3, 1000, 2**31 - 1):
        for h in [0, M64, 1 << 32, (1 << 32) - 1] + [rng.getrandbits(64) for _ in range(50)]:
            i = int(block_index(np.uint64(h), z))
            assert i == ((h >> 32) * z) >> 32 and 0 <= i < z


def test_insert_sets_the_spec_mask() -> None:
    rng = random.Random(5)
    for _ in range(50):
        h = rng.getrandbits(64)
        words = new_filter(32 * 7)
        sbbf_insert(words, np.uint64(h))
        b = ((h >> 32) * 7) >> 32
        expected = np.zeros(7 * 8, dtype=np.uint32)
        expected[8 * b : 8 * b + 8] = ref_mask(h & 0xFFFFFFFF)
        assert np.array_equal(words, expected)
        assert sbbf_check(words, np.uint64(h))
        # clearing any one of the eight bits makes the check fail
        for i in range(8):
            broken = words.copy()
            broken[8 * b + i] = 0
            assert not sbbf_check(broken, np.uint64(h))


def test_insert_then_check() -> None:
    rng = np.random.default_rng(6)
    hashes = rng.integers(0, M64, size=5000, dtype=np.uint64, endpoint=True)
    words = new_filter(optimal_num_bytes(5000, 0.01))
    sbbf_insert_many(words, hashes)
    out = np.zeros(hashes.size, dtype=np.bool_)
    assert sbbf_check_many(words, hashes, out) == hashes.size and out.all()
    for h in hashes[:100]:
        assert sbbf_check(words, h)


def test_empty_filter_answers_maybe() -> None:
    for words in (np.zeros(0, dtype=np.uint32), np.zeros(7, dtype=np.uint32)):
        sbbf_insert(words, np.uint64(123))  # no blocks: nothing to set, nothing read out of bounds
        assert sbbf_check(words, np.uint64(123))
        assert not words.any()


def test_filter_bytes() -> None:
    raw = struct.pack("<8I", *range(1, 9))
    assert list(filter_from_bytes(raw)) == list(range(1, 9))
    for size in (0, 31, 33, 4):
        with pytest.raises(OrcError, match="whole 32-byte blocks"):
            filter_from_bytes(b"\x00" * size)
        with pytest.raises(OrcError, match="whole 32-byte blocks"):
            new_filter(size)


# -- sizing -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, expected",
    [(26_214, 0.0126), (52_428, 0.18), (13_107, 0.0004)],
)
def test_spec_example_false_positive_rates(n: int, expected: float) -> None:
    """1024 blocks holding 26,214 / 52,428 / 13,107 hashes: about 1.26 %, 18 % and 0.04 % false positives."""
    words = filled(1024 * 32, n, seed=n)
    rate = measured_fpp(words, 500_000, seed=1)
    assert expected / 2 <= rate <= expected * 2, rate


@pytest.mark.parametrize("bits, fpp", SIZING_TABLE)
def test_sizing_table_reproduced(bits: float, fpp: float) -> None:
    """A filter with the table's bits per value has about the table's false-positive rate."""
    num_bytes = 2048 * 32
    n = round(num_bytes * 8 / bits)
    words = filled(num_bytes, n, seed=int(bits * 10))
    probes = min(6_000_000, int(400 / fpp))
    rate = measured_fpp(words, probes, seed=2)
    assert fpp / 2 <= rate <= fpp * 2, rate
    assert bits_per_value(fpp) == pytest.approx(bits)


@pytest.mark.parametrize("fpp", [0.3, 0.1, 0.05, 0.01, 0.001])
def test_optimal_num_bytes_meets_fpp(fpp: float) -> None:
    n = 20_000
    num_bytes = optimal_num_bytes(n, fpp)
    assert num_bytes % 32 == 0
    rate = measured_fpp(filled(num_bytes, n, seed=3), min(2_000_000, int(500 / fpp)), seed=4)
    assert fpp / 2 <= rate <= fpp * 2, rate
    pow2 = optimal_num_bytes(n, fpp, power_of_two=True)
    assert pow2 >= num_bytes and pow2 & (pow2 - 1) == 0


def test_optimal_num_bytes_bounds() -> None:
    assert optimal_num_bytes(0, 0.01) == 32 and optimal_num_bytes(1, 0.5) == 32
    assert optimal_num_bytes(10**12, 0.001) == MAX_BYTES
    assert optimal_num_bytes(10**12, 0.001, power_of_two=True) == MAX_BYTES
    sizes = [optimal_num_bytes(10_000, p) for p in (0.5, 0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6)]
    assert sizes == sorted(sizes)
    assert bits_per_value(0.5) < 6.0 < bits_per_value(0.09)
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(OrcError):
            optimal_num_bytes(10, bad)
    with pytest.raises(OrcError):
        optimal_num_bytes(-1, 0.1)


# -- Parquet files written by pyarrow ---------------------------------------------------------------------------------


def thrift_struct(buf: bytes, p: int = 0) -> tuple[dict[int, Any], int]:
    """Read one Thrift compact-protocol struct (the types a BloomFilterHeader uses); return it and the end offset."""

    def varint(p: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = buf[p]
            p += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, p

    fields: dict[int, Any] = {}
    last = 0
    while True:
        head = buf[p]
        p += 1
        if head == 0:
            return fields, p
        delta, kind = head >> 4, head & 0x0F
        if delta:
            field = last + delta
        else:
            raw, p = varint(p)
            field = (raw >> 1) ^ -(raw & 1)
        last = field
        value: Any
        if kind in (1, 2):
            value = kind == 1
        elif kind in (4, 5, 6):
            raw, p = varint(p)
            value = (raw >> 1) ^ -(raw & 1)
        elif kind == 8:
            size, p = varint(p)
            value, p = buf[p : p + size], p + size
        elif kind == 12:
            value, p = thrift_struct(buf, p)
        else:
            raise AssertionError(f"thrift type {kind} not expected in a BloomFilterHeader")
        fields[field] = value


def parquet_filters(path: Path) -> dict[str, list[tuple[np.ndarray, int, int]]]:
    """``{column: [(words, first row, rows) per row group]}`` for every column chunk with a Bloom filter."""
    meta = pq.ParquetFile(path).metadata
    data = path.read_bytes()
    out: dict[str, list[tuple[np.ndarray, int, int]]] = {}
    first = 0
    for r in range(meta.num_row_groups):
        group = meta.row_group(r)
        for c in range(group.num_columns):
            chunk = group.column(c)
            offset, length = chunk.bloom_filter_offset, chunk.bloom_filter_length
            if offset is None or offset <= 0:
                continue
            header, start = thrift_struct(data, offset)
            # numBytes, algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED
            assert header == {1: header[1], 2: {1: {}}, 3: {1: {}}, 4: {1: {}}}
            assert length in (None, start - offset + header[1])
            words = filter_from_bytes(data[start : start + header[1]])
            out.setdefault(chunk.path_in_schema, []).append((words, first, group.num_rows))
        first += group.num_rows
    return out


def parquet_table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ints = rng.choice(2**62, size=n, replace=False) - 2**61
    valid = rng.random(n) > 0.1
    return pa.table(
        {
            "s": pa.array([f"v{x}-ü" for x in ints], mask=~valid),
            "bin": pa.array([int(x).to_bytes(8, "little", signed=True)[: int(x) % 9] for x in ints]),
            "i8": pa.array(rng.integers(-128, 128, n), pa.int8()),
            "u16": pa.array(rng.integers(0, 2**16, n), pa.uint16()),
            "i32": pa.array(ints.astype(np.int32)),
            "u32": pa.array(ints.astype(np.uint32)),
            "i64": pa.array(ints),
            "f32": pa.array((ints / 3).astype(np.float32)),
            "f64": pa.array(ints / 7, mask=~valid),
            "date": pa.array(ints.astype(np.int32) // 100_000, pa.date32()),
            "ts": pa.array(ints // 1000, pa.timestamp("us")),
            "fsb": pa.array([int(x).to_bytes(8, "little", signed=True)[:5] for x in ints], pa.binary(5)),
        }
    )


def plain_hashes(column: pa.Array) -> np.ndarray:
    """Hashes of a column's non-null values over the PLAIN encoding pyarrow stores."""
    values = column.drop_null()
    t = values.type
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return hash_plain(values.to_pylist())
    if pa.types.is_fixed_size_binary(t):
        return hash_plain(np.array(values.to_pylist(), dtype=f"S{t.byte_width}"))
    if pa.types.is_date32(t):
        return hash_plain(values.cast(pa.int32()).to_numpy())
    if pa.types.is_timestamp(t):
        return hash_plain(values.cast(pa.int64()).to_numpy())
    return hash_plain(values.to_numpy())


FPP = 0.05


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = parquet_table(6000, 1)
    path = tmp_path_factory.mktemp("sbbf") / "bloom.parquet"
    options = {name: {"ndv": 3000, "fpp": FPP} for name in table.column_names}
    pq.write_table(table, path, row_group_size=3000, bloom_filter_options=options)
    return path


def test_pyarrow_parquet_filters_hold_every_value(parquet_file: Path) -> None:
    table = pq.read_table(parquet_file)
    filters = parquet_filters(parquet_file)
    assert set(filters) == set(table.column_names)
    for name, groups in filters.items():
        assert len(groups) == 2
        for words, first, rows in groups:
            hashes = plain_hashes(table.column(name).slice(first, rows).combine_chunks())
            out = np.zeros(hashes.size, dtype=np.bool_)
            assert sbbf_check_many(words, hashes, out) == hashes.size, name


def test_pyarrow_parquet_false_positive_rate(parquet_file: Path) -> None:
    filters = parquet_filters(parquet_file)
    rng = np.random.default_rng(99)
    absent = rng.integers(-(2**61), 2**61, 20_000)  # distinct from the file's values with near certainty
    probes = {
        "s": hash_plain([f"absent-{x}" for x in absent]),
        "i64": hash_plain(absent),
        "f64": hash_plain(absent / 3.0 + 0.5),
    }
    for name, hashes in probes.items():
        for words, _, _ in filters[name]:
            rate = sbbf_check_many(words, hashes, np.zeros(hashes.size, dtype=np.bool_)) / hashes.size
            # pyarrow rounds the filter up to a power of two, so the rate may be well below the target
            assert rate <= FPP * 2, (name, rate)
