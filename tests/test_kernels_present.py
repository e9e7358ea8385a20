"""Null handling kernels: spreading dense values over PRESENT bits, counting them, LIST/MAP offsets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import orcjit
from orcjit.kernels.present import count_present, lengths_to_offsets, spread_present
from orcjit.kernels.status import BAD_LENGTH, OVERFLOW, SCRATCH_SIZE, check, new_state

from .factory import write_pyarrow

INT64_MAX = 2**63 - 1


def test_spread_present_basic() -> None:
    present = np.array([1, 0, 1, 1, 0], dtype=np.uint8)
    out = np.zeros(5)
    assert spread_present(np.array([1.5, 2.5, 3.5]), present, out, np.nan) == 3
    assert np.array_equal(out, [1.5, np.nan, 2.5, 3.5, np.nan], equal_nan=True)
    # bool PRESENT, integer values, a wider output
    ints = np.full(7, 99, dtype=np.int64)
    assert spread_present(np.array([7, 8, 9]), present.astype(bool), ints, -1) == 3
    assert ints.tolist() == [7, -1, 8, 9, -1, 99, 99]
    # all null, none null, empty
    assert spread_present(np.zeros(0), np.zeros(3, dtype=bool), out, 0.0) == 0
    assert spread_present(np.arange(3.0), np.ones(3, dtype=bool), out, 0.0) == 3
    assert spread_present(np.zeros(0), np.zeros(0, dtype=bool), out, 0.0) == 0


def test_spread_present_wrong_lengths() -> None:
    present = np.array([1, 0, 1], dtype=np.uint8)
    out = np.zeros(3)
    assert spread_present(np.arange(1.0), present, out, 0.0) == BAD_LENGTH
    assert spread_present(np.arange(3.0), present, out, 0.0) == BAD_LENGTH
    assert spread_present(np.arange(2.0), present, np.zeros(2), 0.0) == BAD_LENGTH


def test_count_present() -> None:
    present = np.array([1, 0, 1, 1, 0, 1], dtype=np.uint8)
    assert count_present(present, 0, 6) == 4
    assert count_present(present, 1, 4) == 2
    assert count_present(present, 3, 3) == 0
    for start, stop in ((-1, 3), (4, 3), (0, 7)):
        assert count_present(present, start, stop) == BAD_LENGTH


def test_lengths_to_offsets() -> None:
    present = np.array([1, 0, 1, 1, 0], dtype=np.uint8)
    offsets = np.full(6, -9, dtype=np.int64)
    assert lengths_to_offsets(np.array([2, 0, 3], dtype=np.uint64), present, offsets) == 3
    assert offsets.tolist() == [0, 2, 2, 2, 5, 5]
    assert lengths_to_offsets(np.array([2, 0, 3], dtype=np.int64), None, offsets) == 3
    assert offsets[:4].tolist() == [0, 2, 2, 5]
    assert lengths_to_offsets(np.zeros(0, dtype=np.int64), None, offsets) == 0
    assert offsets[0] == 0


def test_lengths_to_offsets_errors() -> None:
    present = np.array([1, 1, 0], dtype=bool)
    offsets = np.zeros(4, dtype=np.int64)
    assert lengths_to_offsets(np.array([1, -1], dtype=np.int64), present, offsets) == BAD_LENGTH
    assert lengths_to_offsets(np.array([1, 2**63], dtype=np.uint64), present, offsets) == BAD_LENGTH
    assert lengths_to_offsets(np.array([INT64_MAX, 1], dtype=np.int64), present, offsets) == OVERFLOW
    assert lengths_to_offsets(np.array([INT64_MAX, 0], dtype=np.int64), present, offsets) == 2
    assert lengths_to_offsets(np.array([1], dtype=np.int64), present, offsets) == BAD_LENGTH
    assert lengths_to_offsets(np.array([1, 2, 3], dtype=np.int64), present, offsets) == BAD_LENGTH
    assert lengths_to_offsets(np.array([1, 2], dtype=np.int64), present, offsets[:3]) == BAD_LENGTH
    assert lengths_to_offsets(np.array([1, 2], dtype=np.int64), None, offsets[:2]) == BAD_LENGTH


@settings(deadline=None, max_examples=300)
@given(st.lists(st.booleans(), max_size=200), st.integers(-3, 3), st.integers(0, 3))
def test_spread_matches_reference(bits: list[bool], extra: int, pad: int) -> None:
    present = np.array(bits, dtype=bool)
    n = int(present.sum())
    dense = np.arange(max(n + extra, 0), dtype=np.int64) + 100
    out = np.full(len(bits) + pad, 7, dtype=np.int64)
    result = spread_present(dense, present, out, -1)
    if len(dense) != n:
        assert result == BAD_LENGTH
        return
    assert result == n
    it = iter(dense.tolist())
    assert out[: len(bits)].tolist() == [next(it) if b else -1 for b in bits]
    assert out[len(bits) :].tolist() == [7] * pad
    start = len(bits) // 3
    assert count_present(present, start, len(bits)) == sum(bits[start:])


@settings(deadline=None, max_examples=300)
@given(st.lists(st.one_of(st.none(), st.integers(0, 2**62)), max_size=100))
def test_offsets_match_reference(rows: list[int | None]) -> None:
    present = np.array([r is not None for r in rows], dtype=np.uint8)
    lengths = np.array([r for r in rows if r is not None], dtype=np.int64)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    result = lengths_to_offsets(lengths, present, offsets)
    sums = [0] + [sum(r or 0 for r in rows[: i + 1]) for i in range(len(rows))]
    if sums[-1] > INT64_MAX:
        assert result == OVERFLOW
    else:
        assert result == len(lengths)
        assert offsets.tolist() == sums


def test_random_inputs_only_return_codes() -> None:
    rng = np.random.default_rng(3)
    for _ in range(3000):
        rows = int(rng.integers(0, 30))
        present = rng.integers(0, 2, rows).astype(np.uint8)
        dense = rng.integers(-(2**63), 2**63 - 1, int(rng.integers(0, 30)), dtype=np.int64, endpoint=True)
        out = np.zeros(int(rng.integers(0, 32)), dtype=np.int64)
        assert spread_present(dense, present, out, 0) in (int(present.sum()), BAD_LENGTH)
        offsets = np.zeros(int(rng.integers(0, 32)), dtype=np.int64)
        assert lengths_to_offsets(dense, present, offsets) in (len(dense), BAD_LENGTH, OVERFLOW)
        assert lengths_to_offsets(dense.view(np.uint64), None, offsets) in (len(dense), BAD_LENGTH, OVERFLOW)
        start, stop = (int(x) for x in rng.integers(-2, rows + 3, 2))
        assert count_present(present, start, stop) >= 0 or count_present(present, start, stop) == BAD_LENGTH


# -- a real file -----------------------------------------------------------------------------------------------------


def streams_of(path: Path, column: int) -> dict[str, bytes]:
    with orcjit.ORCFile(path) as f:
        footer = f.stripe_footer(0)
        assert footer.encodings[column].kind_name == "DIRECT_V2"
        return {
            s.kind_name: f.meta.tail.decompress(f.source.read(s.offset, s.length), s.kind_name)
            for s in footer.streams
            if s.column == column
        }


def rle_v2(raw: bytes, count: int, signed: bool) -> np.ndarray:
    from orcjit.kernels.rle_v2 import decode_rle_v2

    buf = np.frombuffer(raw, dtype=np.uint8)
    out = np.zeros(count, dtype=np.int64)
    state = new_state()
    check(decode_rle_v2(buf, 0, len(buf), out, 0, count, signed, state, np.zeros(SCRATCH_SIZE, np.int64)), state, "")
    return out


@pytest.mark.parametrize("null_share", [0.0, 0.3, 1.0])
def test_pyarrow_nullable_int_and_list(tmp_path: Path, null_share: float) -> None:
    from orcjit.kernels.boolean_rle import boolean_rle_values

    rng = np.random.default_rng(int(null_share * 10))
    rows = 5000
    nulls = rng.random(rows) < null_share
    ints = [None if nulls[i] else int(v) for i, v in enumerate(rng.integers(-(10**12), 10**12, rows))]
    lists = [None if nulls[i] else list(range(int(rng.integers(0, 5)))) for i in range(rows)]
    table = pa.table({"i": pa.array(ints, pa.int64()), "l": pa.array(lists, pa.list_(pa.int32()))})
    path = write_pyarrow(tmp_path, table, compression="zlib")
    read = pa_orc.read_table(path)

    streams = streams_of(path, 1)
    present = boolean_rle_values(streams["PRESENT"], rows) if "PRESENT" in streams else np.ones(rows, dtype=bool)
    dense = rle_v2(streams["DATA"], int(present.sum()), True) if "DATA" in streams else np.zeros(0, np.int64)
    values = np.zeros(rows, dtype=np.int64)
    assert spread_present(dense, present, values, 0) == len(dense)
    assert [v if p else None for v, p in zip(values.tolist(), present, strict=True)] == read.column("i").to_pylist()

    streams = streams_of(path, 2)
    present = boolean_rle_values(streams["PRESENT"], rows) if "PRESENT" in streams else np.ones(rows, dtype=bool)
    lengths = rle_v2(streams["LENGTH"], int(present.sum()), False) if "LENGTH" in streams else np.zeros(0, np.int64)
    offsets = np.zeros(rows + 1, dtype=np.int64)
    assert lengths_to_offsets(lengths, present, offsets) == len(lengths)
    arrow_lists = read.column("l").combine_chunks()
    assert offsets.tolist() == arrow_lists.offsets.to_pylist()
    assert (~present).tolist() == arrow_lists.is_null().to_pylist()
