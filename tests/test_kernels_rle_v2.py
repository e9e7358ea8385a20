"""RLE v2: spec vectors, every sub-encoding and width against the pure-Python reference, batch boundaries, real
files, and hostile bytes."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.orc as po
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit import ORCFile
from orcjit.kernels.bitpack import unpack_bits, unpack_values
from orcjit.kernels.rle_v2 import decode_rle_v2, skip_rle_v2
from orcjit.kernels.status import BAD_LENGTH, PENDING, SCRATCH_POS, SCRATCH_SIZE, TRUNCATED, check, new_state
from tests import rle_v2_reference as ref

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def decode(data: bytes, count: int, signed: bool, batches: list[int] | None = None) -> np.ndarray:
    buf = np.frombuffer(data, dtype=np.uint8)
    out = np.zeros(count, dtype=np.int64)
    state, scratch = new_state(), np.zeros(SCRATCH_SIZE, dtype=np.int64)
    pos, start = 0, 0
    for size in batches or [count]:
        size = min(size, count - start)
        pos = check(decode_rle_v2(buf, pos, len(buf), out, start, size, signed, state, scratch), state, "test")
        start += size
        if start == count:
            break
    assert start == count
    return out


# -- the spec's examples -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([0x0A, 0x27, 0x10], [10000] * 5),
        ([0x5E, 0x03, 0x5C, 0xA1, 0xAB, 0x1E, 0xDE, 0xAD, 0xBE, 0xEF], [23713, 43806, 57005, 48879]),
        (
            [0x8E, 0x13, 0x2B, 0x21, 0x07, 0xD0, 0x1E, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3C, 0x46, 0x50, 0x5A, 0x64,
             0x6E, 0x78, 0x82, 0x8C, 0x96, 0xA0, 0xAA, 0xB4, 0xBE, 0xFC, 0xE8],
            [2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150,
             2160, 2170, 2180, 2190],
        ),
        ([0xC6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46], [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]),
    ],
    ids=["short-repeat", "direct", "patched-base", "delta"],
)  # fmt: skip
def test_spec_examples(data: list[int], expected: list[int]) -> None:
    raw = bytes(data)
    assert decode(raw, len(expected), signed=False).tolist() == expected
    assert ref.decode(raw, signed=False) == expected
    # and one value at a time, which stops mid-run at every value
    assert decode(raw, len(expected), signed=False, batches=[1] * len(expected)).tolist() == expected


def test_reference_encoder_reproduces_spec_bytes() -> None:
    assert ref.short_repeat(10000, 5, signed=False) == bytes([0x0A, 0x27, 0x10])
    assert ref.direct([23713, 43806, 57005, 48879], signed=False, width=16) == bytes(
        [0x5E, 0x03, 0x5C, 0xA1, 0xAB, 0x1E, 0xDE, 0xAD, 0xBE, 0xEF]
    )
    assert ref.delta([2, 3, 5, 7, 11, 13, 17, 19, 23, 29], signed=False, width=4) == bytes(
        [0xC6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46]
    )


# -- every sub-encoding and width against the reference -------------------------------------------------------------


@pytest.mark.parametrize("width", ref.WIDTHS)
@pytest.mark.parametrize("signed", [False, True])
def test_direct_every_width(width: int, signed: bool) -> None:
    rng = random.Random(width)
    n = rng.randint(1, 512)
    if signed:
        hi = (1 << (width - 1)) - 1
        values = [rng.randint(-hi - 1, hi) for _ in range(n)]
        # zigzag of these fits width bits
        values = [v for v in values if ref.zigzag(v) < (1 << width)] or [0]
    else:
        values = [ref.to_signed64(rng.getrandbits(width)) for _ in range(n)]
    data = ref.direct(values, signed, width=width)
    assert decode(data, len(values), signed).tolist() == values


@pytest.mark.parametrize("width", [0, *ref.WIDTHS])
def test_delta_every_width_up_and_down(width: int) -> None:
    rng = random.Random(width)
    for direction in (1, -1):
        n = rng.randint(3, 512)
        if width == 0:
            step = direction * rng.randint(1, 1000)
            values = [5 + step * i for i in range(n)]
        else:
            steps = [rng.getrandbits(min(width, 40)) for _ in range(n - 2)]
            first = direction * rng.randint(1, 1000)
            values = [rng.randint(-(10**6), 10**6), 0]
            values[1] = values[0] + first
            for s in steps:
                values.append(values[-1] + direction * s)
        data = ref.delta(values, signed=True, width=width if width else 0)
        assert decode(data, n, signed=True).tolist() == values


def test_delta_fixed_step_wraps_like_java() -> None:
    values = [I64_MAX - 2, I64_MAX - 1, I64_MAX]
    data = ref.delta(values, signed=True, width=0)
    assert decode(data, 3, signed=True).tolist() == values


PATCHED_WIDTHS = [
    (w, p)
    for w in [1, 2, 3, 7, 8, 12, 16, 24, 26, 30, 32]
    for p in [1, 8, 12, 24, 32, 40, 56]
    if w + p <= 63  # the values must stay inside int64
]


@pytest.mark.parametrize(("width", "patch_width"), PATCHED_WIDTHS)
def test_patched_base_widths(width: int, patch_width: int) -> None:
    rng = random.Random(width * 100 + patch_width)
    n = 400
    base = rng.randint(-(10**6), 10**6)
    values = [base + rng.getrandbits(width) for _ in range(n)]
    values[0] = base
    for i in rng.sample(range(1, n), 5):
        values[i] = base + ((rng.getrandbits(patch_width) | (1 << (patch_width - 1))) << width)
    data = ref.patched_base(values, width, patch_width)
    assert ref.decode(data, signed=True) == values
    assert decode(data, n, signed=True).tolist() == values


def test_patched_base_gaps_over_255() -> None:
    values = [1000 + (i % 7) for i in range(512)]
    for i in (3, 300, 511):  # gaps of 3, 297 and 211: the second needs a (255, 0) filler entry
        values[i] = 1000 + (1 << 40)
    data = ref.patched_base(values, width=3)
    assert decode(data, 512, signed=True).tolist() == values


def test_patched_base_negative_base_and_widest_patch() -> None:
    # ORC Java narrows a 64-bit patch to 56 bits over 8-bit values so that gap and patch share one long
    values = [-5, -3, -4, I64_MAX - 10, -5, -1]
    data = ref.patched_base(values, width=8, patch_width=56)
    assert decode(data, len(values), signed=True).tolist() == values


def test_patched_base_where_width_and_patch_width_exceed_64() -> None:
    # 26-bit values with 40-bit patches: 66 bits of room for values that fit 64, as writers produce them
    values = [0, 1 << 20, (1 << 62) + 5, 3]
    data = ref.patched_base(values, width=26, patch_width=40)
    assert decode(data, len(values), signed=True).tolist() == values


@pytest.mark.parametrize("nbytes", range(1, 9))
def test_short_repeat_every_width(nbytes: int) -> None:
    value = (1 << (8 * nbytes - 2)) + 12345 if nbytes > 2 else 200
    for signed, v in ((False, value), (True, -value)):
        data = ref.short_repeat(v, 10, signed)
        assert decode(data, 10, signed).tolist() == [v] * 10


# -- bit unpacking: the 8-byte-load path, the byte-by-byte tail near the buffer's end ----------------------------------

# a run of n values ends within 8 bytes of the buffer's end (tail) or has 8 or more bytes after it (fast)
TRAILING = [0, 1, 7, 8, 20]


@pytest.mark.parametrize("width", range(1, 65))
def test_unpack_bits_every_width(width: int) -> None:
    rng = random.Random(width)
    for n in (1, 2, 7, 8, 9, 63, 512):
        values = [rng.getrandbits(width) for _ in range(n)]
        values[0] = (1 << width) - 1  # all ones: no bit of a neighbour may leak in
        packed = ref.pack_bits(values, width)
        for lead in (0, 3):
            for trailing in TRAILING:
                data = bytes(rng.getrandbits(8) for _ in range(lead)) + packed + b"\xff" * trailing
                buf = np.frombuffer(data, dtype=np.uint8)
                out = np.full(n + 5, 99, dtype=np.int64)
                assert unpack_bits(buf, lead, len(buf), width, n, out, 2) == lead + len(packed)
                assert [v & ref.MASK64 for v in out[2 : 2 + n].tolist()] == values, (n, lead, trailing)
                assert out[:2].tolist() == [99, 99] and out[2 + n :].tolist() == [99] * 3
                # one byte short of the run
                assert unpack_bits(buf, lead, lead + len(packed) - 1, width, n, out, 0) == TRUNCATED


@pytest.mark.parametrize("width", [1, 3, 8, 13, 24, 31, 40, 48, 56, 57, 63, 64])
def test_unpack_values_zigzag_and_add(width: int) -> None:
    rng = random.Random(100 + width)
    n = 100
    us = [rng.getrandbits(width) for _ in range(n)]
    add = rng.randint(I64_MIN, I64_MAX)
    for trailing in (0, 8):
        buf = np.frombuffer(ref.pack_bits(us, width) + bytes(trailing), dtype=np.uint8)
        out = np.zeros(n, dtype=np.int64)
        unpack_values(buf, 0, len(buf), width, n, out, 0, 1, add)
        assert out.tolist() == [ref.to_signed64(ref.unzigzag(u) + add) for u in us]
        unpack_values(buf, 0, len(buf), width, n, out, 0, 0, add)
        assert out.tolist() == [ref.to_signed64(u + add) for u in us]


def extremes(width: int, signed: bool) -> list[int]:
    """The largest values a direct run of ``width`` bits holds, and some small ones."""
    if signed:
        hi = (1 << (width - 1)) - 1
        return [v for v in (hi, -hi - 1, 0, -1, 1, hi - 1, -hi) if ref.zigzag(v) < (1 << width)]
    return [ref.to_signed64((1 << width) - 1), 0, 1, ref.to_signed64((1 << width) - 2)]


@pytest.mark.parametrize("width", ref.WIDTHS)
@pytest.mark.parametrize("signed", [False, True])
def test_direct_every_width_mid_stream_and_last(width: int, signed: bool) -> None:
    # a direct run followed by others is decoded by the 8-byte-load loop in the decoder; the last run of a
    # stream by the byte-by-byte tail
    rng = random.Random(width * 2 + signed)
    for n in (1, 3, 8, 100, 512):
        values = [rng.choice(extremes(width, signed)) for _ in range(n)]
        run = ref.direct(values, signed, width=width)
        for after in ([], [5] * 10, list(range(-3, 200, 7))):
            tail = ref.short_repeat(5, 10, signed) if len(after) == 10 else ref.direct(after, signed) if after else b""
            got = decode(run + tail, n + len(after), signed)
            assert got.tolist() == values + after


@pytest.mark.parametrize("width", [0, *ref.WIDTHS])
def test_delta_mid_stream_and_wide_steps(width: int) -> None:
    rng = random.Random(500 + width)
    for direction in (1, -1):
        n = rng.randint(3, 512)
        if width == 0:
            values = [ref.to_signed64(rng.getrandbits(64)) + 0]
            step = direction * rng.getrandbits(62)
            for _ in range(n - 1):
                values.append(ref.to_signed64(values[-1] + step))
            data = ref.delta([values[0], values[0] + step] + [values[0] + step * k for k in range(2, n)], True, 0)
        else:
            base = rng.randint(-(10**6), 10**6)
            steps = [rng.getrandbits(min(width, 62)) for _ in range(n - 2)]
            steps[0] = (1 << min(width, 62)) - 1
            values = [base, base + direction * rng.randint(1, 1000)]
            for st_ in steps:
                values.append(values[-1] + direction * st_)
            data = ref.delta(values, True, width)
            values = [ref.to_signed64(v) for v in values]
        trailing = ref.direct(list(range(20)), True)
        assert decode(data + trailing, n + 20, True).tolist() == values + list(range(20))
        assert decode(data, n, True).tolist() == values


@pytest.mark.parametrize(("width", "patch_width"), PATCHED_WIDTHS[::3])
def test_patched_base_mid_stream(width: int, patch_width: int) -> None:
    # with bytes after the patch list, its entries are read with 8-byte loads
    rng = random.Random(width * 1000 + patch_width)
    base = rng.randint(-(10**6), 10**6)
    values = [base + rng.getrandbits(width) for _ in range(300)]
    values[0] = base
    for i in rng.sample(range(1, 300), 6):
        values[i] = base + ((rng.getrandbits(patch_width) | (1 << (patch_width - 1))) << width)
    data = ref.patched_base(values, width, patch_width) + ref.short_repeat(-7, 3, True) + bytes(8)
    assert decode(data, 303, signed=True).tolist() == values + [-7] * 3


def test_every_truncation_of_wide_and_mid_stream_runs() -> None:
    rng = random.Random(2)
    runs = [ref.direct([rng.getrandbits(w - 1) for _ in range(30)], True, width=w) for w in (24, 40, 48, 56, 64)]
    runs.append(ref.delta([1, 5] + [5 + 3 * k + (k % 4) for k in range(1, 60)], True))
    runs.append(ref.delta([9] * 40, True, 0))
    runs.append(ref.patched_base([1000 + (i % 5) for i in range(90)] + [1 << 40], 3))
    runs.append(ref.short_repeat(-9, 7, True))
    data = b"".join(runs)
    total = 5 * 30 + 61 + 40 + 91 + 7
    full = decode(data, total, True).tolist()
    assert full == ref.decode(data, True)
    for cut in range(len(data)):
        assert run_raw(data[:cut], total) == TRUNCATED, cut


def test_pending_values_outside_scratch_are_refused() -> None:
    buf = np.frombuffer(ref.direct(list(range(10)), False), dtype=np.uint8)
    out = np.zeros(10, dtype=np.int64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    for pending, at in ((5, -1), (5, SCRATCH_SIZE - 4), (600, 0), (1, 1 << 62)):
        state = new_state()
        state[PENDING], state[SCRATCH_POS] = pending, at
        assert decode_rle_v2(buf, 0, len(buf), out, 0, 10, False, state, scratch) == BAD_LENGTH
    state = new_state()
    state[PENDING], state[SCRATCH_POS] = 4, SCRATCH_SIZE - 4  # the last four values of scratch: fine
    scratch[-4:] = [7, 8, 9, 10]
    assert decode_rle_v2(buf, 0, len(buf), out, 0, 10, False, state, scratch) > 0
    assert out.tolist() == [7, 8, 9, 10, 0, 1, 2, 3, 4, 5]


# -- property tests: random mixes of runs, decoded in random batches ------------------------------------------------


@st.composite
def streams(draw) -> tuple[bytes, list[int], bool]:
    signed = draw(st.booleans())
    values: list[int] = []
    data = b""
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["short", "direct", "delta", "patched"]))
        if kind == "short":
            lim = 1 << draw(st.integers(1, 62))
            v = draw(st.integers(-lim if signed else 0, lim))
            n = draw(st.integers(3, 10))
            data += ref.short_repeat(v, n, signed)
            run = [v] * n
        elif kind == "direct":
            bits = draw(st.sampled_from(ref.WIDTHS))
            lo = -(1 << (bits - 2)) if signed and bits > 1 else 0
            hi = (1 << (bits - 2)) if signed and bits > 1 else (1 << min(bits, 63)) - 1
            run = draw(st.lists(st.integers(lo, hi), min_size=1, max_size=512))
            data += ref.direct(run, signed)
        elif kind == "delta":
            start = draw(st.integers(-(10**12), 10**12)) if signed else draw(st.integers(0, 10**12))
            steps = draw(st.lists(st.integers(0, 1 << draw(st.integers(0, 30))), min_size=2, max_size=511))
            run = [start]
            for s in steps:
                run.append(run[-1] + (s or 1))
            data += ref.delta(run, signed)
        else:
            base = draw(st.integers(-(10**12), 10**12)) if signed else draw(st.integers(0, 10**12))
            width = draw(st.sampled_from([w for w in ref.WIDTHS if w <= 20]))
            n = draw(st.integers(20, 512))
            run = [base + draw(st.integers(0, (1 << width) - 1)) for _ in range(3)] * (n // 3) + [base]
            for i in draw(st.lists(st.integers(0, len(run) - 1), max_size=8, unique=True)):
                run[i] = base + (draw(st.integers(1, (1 << 30))) << width)
            data += ref.patched_base(run, width)
        values += run
    return data, values, signed


@settings(deadline=None, max_examples=300)
@given(stream=streams(), batch_seed=st.integers(0, 2**32))
def test_random_streams_in_random_batches(stream, batch_seed: int) -> None:
    data, values, signed = stream
    assert ref.decode(data, signed) == values
    rng = random.Random(batch_seed)
    batches = [rng.randint(1, 700) for _ in range(len(values))]
    assert decode(data, len(values), signed, batches).tolist() == values


@settings(deadline=None, max_examples=200)
@given(stream=streams(), skip_seed=st.integers(0, 2**32))
def test_skip_then_decode(stream, skip_seed: int) -> None:
    data, values, signed = stream
    rng = random.Random(skip_seed)
    k = rng.randint(0, len(values))
    buf = np.frombuffer(data, dtype=np.uint8)
    state, scratch = new_state(), np.zeros(SCRATCH_SIZE, dtype=np.int64)
    pos = check(skip_rle_v2(buf, 0, len(buf), k, signed, state, scratch), state, "skip")
    out = np.zeros(len(values) - k, dtype=np.int64)
    pos = check(decode_rle_v2(buf, pos, len(buf), out, 0, len(out), signed, state, scratch), state, "decode")
    assert out.tolist() == values[k:]
    assert pos == len(data)


# -- real files ------------------------------------------------------------------------------------------------------


def integer_data_streams(path) -> list[tuple[np.ndarray, int, str]]:
    """(decompressed stream, value count, encoding) of every DATA stream of the file's bigint columns."""
    found = []
    with ORCFile(path) as f:
        for i, stripe in enumerate(f.stripes):
            footer = f.stripe_footer(i)
            for s in footer.streams:
                node = f.schema.column(s.column)
                if s.kind_name == "DATA" and node.kind == "bigint":
                    raw = f.meta.tail.decompress(f.source.read(s.offset, s.length), "DATA")
                    found.append((raw, stripe.rows, footer.encodings[s.column].kind_name, node.name))
    return found


@pytest.mark.parametrize("compression", ["uncompressed", "zstd"])
def test_streams_written_by_pyarrow(tmp_path, compression: str) -> None:
    rng = np.random.default_rng(7)
    n = 30_000
    columns = {
        "random": rng.integers(-(2**62), 2**62, n),
        "small": rng.integers(-50, 50, n),
        "sequence": np.arange(n) * 3 - 1000,
        "repeats": np.repeat(rng.integers(0, 1 << 40, n // 10), 10),
        "outliers": np.where(rng.random(n) < 0.03, rng.integers(0, 2**60, n), rng.integers(0, 100, n)),
        "extremes": rng.choice(np.array([I64_MIN, I64_MAX, 0, -1, 1]), n),
    }
    path = tmp_path / "ints.orc"
    po.write_table(pa.table(columns), path, compression=compression, stripe_size=64 * 1024)
    streams = integer_data_streams(path)
    assert {name for *_, name in streams} == set(columns)
    offsets = dict.fromkeys(columns, 0)
    for raw, rows, encoding, name in streams:
        assert encoding == "DIRECT_V2"
        expected = columns[name][offsets[name] : offsets[name] + rows]
        offsets[name] += rows
        np.testing.assert_array_equal(decode(raw, rows, signed=True), expected)
        np.testing.assert_array_equal(np.array(ref.decode(raw, True)), expected)
    assert offsets == dict.fromkeys(columns, n)


def test_stream_written_by_orc_java_example() -> None:
    # TestVectorOrcFile.testZstd.0.12.orc (ORC Java): columns x and z are bigint with random values
    from tests.conftest import EXAMPLES

    streams = integer_data_streams(EXAMPLES / "TestVectorOrcFile.testZstd.0.12.orc")
    assert streams
    for raw, rows, encoding, _ in streams:
        assert encoding == "DIRECT_V2"
        assert decode(raw, rows, signed=True).tolist() == ref.decode(raw, True)


# -- hostile bytes ---------------------------------------------------------------------------------------------------


def run_raw(data: bytes, count: int) -> int:
    buf = np.frombuffer(data, dtype=np.uint8)
    out = np.zeros(count, dtype=np.int64)
    state, scratch = new_state(), np.zeros(SCRATCH_SIZE, dtype=np.int64)
    return decode_rle_v2(buf, 0, len(buf), out, 0, count, True, state, scratch)


def test_random_bytes_never_crash() -> None:
    rng = random.Random(0)
    results = set()
    for _ in range(5000):
        data = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64)))
        r = run_raw(data, rng.randint(0, 2000))
        assert r <= len(data)
        results.add(r if r < 0 else "ok")
    assert TRUNCATED in results and "ok" in results


def test_every_truncation_is_reported() -> None:
    rng = random.Random(1)
    values = [rng.randint(-(10**9), 10**9) for _ in range(300)]
    data = (
        ref.direct(values[:100], True)
        + ref.delta(sorted(values[100:200]), True)
        + ref.patched_base([1000 + (i % 5) for i in range(90)] + [1 << 40], 3)
        + ref.short_repeat(7, 9, True)
    )
    total = 100 + 100 + 91 + 9
    assert run_raw(data, total) == len(data)
    for cut in range(len(data)):
        assert run_raw(data[:cut], total) < 0, cut


def test_bad_arguments() -> None:
    buf = np.frombuffer(b"\x0a\x27\x10", dtype=np.uint8)
    state, scratch = new_state(), np.zeros(SCRATCH_SIZE, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    assert decode_rle_v2(buf, 0, 3, out, 0, 5, False, state, scratch) == BAD_LENGTH
    assert decode_rle_v2(buf, 0, 3, out, 0, -1, False, state, scratch) == BAD_LENGTH
    assert decode_rle_v2(buf, 0, 9, out, 0, 1, False, state, scratch) == BAD_LENGTH


def test_streams_written_by_spark(spark, tmp_path) -> None:
    """ORC Java through Spark: every integer DATA stream of several shapes decodes to what Spark wrote."""
    rng = np.random.default_rng(11)
    n = 20_000
    columns = {
        "random": rng.integers(-(2**62), 2**62, n),
        "sequence": np.arange(n) * 7 + 3,
        "small": rng.integers(-3, 3, n),
        "outliers": np.where(rng.random(n) < 0.02, rng.integers(0, 2**55, n), rng.integers(0, 50, n)),
        "runs": np.repeat(rng.integers(-(2**40), 2**40, n // 8), 8),
    }
    rows = list(zip(*(c.tolist() for c in columns.values()), strict=True))
    path = tmp_path / "spark"
    schema = ", ".join(f"{name} bigint" for name in columns)
    spark.createDataFrame(rows, schema).coalesce(1).write.orc(str(path))
    (orc,) = path.glob("*.orc")
    streams = integer_data_streams(orc)
    assert {name for *_, name in streams} == set(columns)
    offsets = dict.fromkeys(columns, 0)
    for raw, rows_in_stripe, encoding, name in streams:
        assert encoding == "DIRECT_V2"
        expected = columns[name][offsets[name] : offsets[name] + rows_in_stripe]
        offsets[name] += rows_in_stripe
        np.testing.assert_array_equal(decode(raw, rows_in_stripe, signed=True), expected)
    assert offsets == dict.fromkeys(columns, n)
