"""The dictionary gather kernel against a plain Python reference: every row's entry, bytes and offsets."""

from __future__ import annotations

import numpy as np
import pytest

from orcjit.kernels.status import BAD_VALUE
from orcjit.kernels.strings import entry_words, gather_strings, gathered_size, pack_entries


def _dictionary(entries: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(entries) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in entries], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(entries) or b"\0", dtype=np.uint8)[: offsets[-1]]


def _gather(entries: list[bytes], indices: np.ndarray, valid: np.ndarray) -> tuple[int, np.ndarray, bytes]:
    dict_offsets, dict_data = _dictionary(entries)
    total = gathered_size(dict_offsets, indices, valid)
    starts = entry_words(dict_offsets)
    words = np.zeros(starts[-1], dtype=np.uint64)
    pack_entries(dict_offsets, dict_data, starts, words)
    out_offsets = np.empty(len(indices) + 1, dtype=np.int64)
    out_words = np.full((max(total, 0) + 7) // 8, 0xAB, dtype=np.uint64)  # garbage the kernel must overwrite
    written = gather_strings(dict_offsets, starts, words, indices, valid, out_offsets, out_words)
    return written, out_offsets, out_words.view(np.uint8)[: max(written, 0)].tobytes()


def _reference(entries: list[bytes], indices: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, bytes]:
    values = [entries[k] if ok else b"" for k, ok in zip(indices.tolist(), valid.tolist(), strict=True)]
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in values], out=offsets[1:])
    return offsets, b"".join(values)


@pytest.mark.parametrize("seed", range(40))
def test_gather_matches_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # lengths around the word size and far past it, empty entries, any byte values (UTF-8 is checked elsewhere)
    lengths = rng.choice([0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 200], size=int(rng.integers(1, 60)))
    entries = [rng.integers(0, 256, n).astype(np.uint8).tobytes() for n in lengths]
    rows = int(rng.integers(0, 3000))
    indices = rng.integers(0, len(entries), rows).astype(np.int64)
    valid = rng.random(rows) < rng.choice([0.0, 0.5, 0.9, 1.0])
    written, offsets, data = _gather(entries, indices, valid)
    ref_offsets, ref_data = _reference(entries, indices, valid)
    assert written == len(ref_data)
    np.testing.assert_array_equal(offsets, ref_offsets)
    assert data == ref_data


def test_categories_as_spark_writes_them() -> None:
    entries = [f"category-{i:06d}".encode() for i in range(1000)] + ["héllo wörld ✓".encode(), b""]
    indices = np.random.default_rng(7).integers(0, len(entries), 100_000).astype(np.int64)
    valid = np.ones(len(indices), dtype=np.bool_)
    written, offsets, data = _gather(entries, indices, valid)
    ref_offsets, ref_data = _reference(entries, indices, valid)
    assert written == len(ref_data) and data == ref_data
    np.testing.assert_array_equal(offsets, ref_offsets)


@pytest.mark.parametrize("bad", [-1, 3])
def test_index_outside_the_dictionary_is_bad_value(bad: int) -> None:
    entries = [b"a", b"bb", b"ccc"]
    indices = np.array([0, 1, bad, 2], dtype=np.int64)
    valid = np.ones(4, dtype=np.bool_)
    dict_offsets, _ = _dictionary(entries)
    assert gathered_size(dict_offsets, indices, valid) == BAD_VALUE
    written, _, _ = _gather(entries, np.where(indices == bad, 0, indices), valid)
    assert written == 7
    starts = entry_words(dict_offsets)
    words = np.zeros(starts[-1], dtype=np.uint64)
    pack_entries(dict_offsets, _dictionary(entries)[1], starts, words)
    out_offsets = np.empty(5, dtype=np.int64)
    out_words = np.zeros(4, dtype=np.uint64)
    assert gather_strings(dict_offsets, starts, words, indices, valid, out_offsets, out_words) == BAD_VALUE


def test_a_null_row_skips_its_index() -> None:
    # an index under a null row is never looked at, whatever it holds
    entries = [b"xyz"]
    written, offsets, data = _gather(entries, np.array([0, 99, 0], dtype=np.int64), np.array([True, False, True]))
    assert (written, offsets.tolist(), data) == (6, [0, 3, 3, 6], b"xyzxyz")
