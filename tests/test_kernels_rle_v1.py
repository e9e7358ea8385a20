"""The RLE v1 family of kernels: varints, byte RLE, boolean RLE and integer RLE v1.

Spec byte examples, resumption at every batch boundary, skips, property tests against the pure-Python reference in
``tests/rle_reference.py``, streams written by pyarrow, pyorc and ORC Java, and corrupt or truncated input.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import orcjit
from orcjit import OrcError
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.kernels.boolean_rle import boolean_rle_values, decode_boolean_rle, skip_boolean_rle
from orcjit.kernels.byte_rle import byte_rle_values, decode_byte_rle, skip_byte_rle
from orcjit.kernels.rle_v1 import decode_rle_v1, rle_v1_values, skip_rle_v1
from orcjit.kernels.status import (
    BAD_LENGTH,
    ERROR_POS,
    SCRATCH_SIZE,
    TRUNCATED,
    VARINT_TOO_LONG,
    new_state,
)
from orcjit.kernels.varint import (
    decode_svarints,
    decode_uvarints,
    read_uvarint,
    skip_varints,
    svarint_values,
    uvarint_values,
)

from . import rle_reference as ref
from .conftest import EXAMPLES
from .factory import all_types_table, arrow_column_ids, write_pyarrow, write_pyorc

INT64_MIN, INT64_MAX = ref.INT64_MIN, ref.INT64_MAX

# -- a uniform view of the six decoders -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Codec:
    """One kernel pair under a common signature, with its reference decoder and output dtype."""

    name: str
    dtype: Any
    decode: Callable[..., int]  # (buf, pos, end, out, start, count, state, scratch)
    skip: Callable[..., int]  # (buf, pos, end, count, state, scratch)
    reference: Callable[[bytes, int], tuple[list[int], int]]


CODECS = {
    c.name: c
    for c in (
        Codec(
            "uvarint",
            np.int64,
            lambda b, p, e, o, s, c, st_, sc: decode_uvarints(b, p, e, o, s, c, st_),
            lambda b, p, e, c, st_, sc: skip_varints(b, p, e, c, st_),
            lambda d, c: ref.decode_varints(d, c, False),
        ),
        Codec(
            "svarint",
            np.int64,
            lambda b, p, e, o, s, c, st_, sc: decode_svarints(b, p, e, o, s, c, st_),
            lambda b, p, e, c, st_, sc: skip_varints(b, p, e, c, st_),
            lambda d, c: ref.decode_varints(d, c, True),
        ),
        Codec("byte", np.uint8, decode_byte_rle, skip_byte_rle, ref.decode_byte_rle),
        Codec("bool", np.bool_, decode_boolean_rle, skip_boolean_rle, ref.decode_boolean_rle),
        Codec(
            "rle1u",
            np.int64,
            lambda b, p, e, o, s, c, st_, sc: decode_rle_v1(b, p, e, o, s, c, False, st_, sc),
            lambda b, p, e, c, st_, sc: skip_rle_v1(b, p, e, c, False, st_, sc),
            lambda d, c: ref.decode_rle_v1(d, c, False),
        ),
        Codec(
            "rle1s",
            np.int64,
            lambda b, p, e, o, s, c, st_, sc: decode_rle_v1(b, p, e, o, s, c, True, st_, sc),
            lambda b, p, e, c, st_, sc: skip_rle_v1(b, p, e, c, True, st_, sc),
            lambda d, c: ref.decode_rle_v1(d, c, True),
        ),
    )
}
ALL = sorted(CODECS)

Plan = Sequence[tuple[str, int]]  # ("decode" | "skip", n) steps
Result = tuple[Any, ...]  # ("ok", values delivered by decode steps, position) or ("err", code, error position)


def buffer(data: bytes) -> np.ndarray:
    """The read-only uint8 array kernels take."""
    return np.frombuffer(bytes(data), dtype=np.uint8)


def run_kernel(codec: Codec, data: bytes, plan: Plan, pos: int = 0) -> Result:
    """Run ``plan`` through the kernels with one state, as a column reader would."""
    buf = buffer(data)
    state = new_state()
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    values: list[int] = []
    for action, n in plan:
        if action == "decode":
            # decode into the middle of a larger array, to check start/count are honoured
            out = np.zeros(n + 4, dtype=codec.dtype)
            guard = out.copy()
            r = codec.decode(buf, pos, len(buf), out, 2, n, state, scratch)
            if r >= 0:
                assert np.array_equal(out[:2], guard[:2]) and np.array_equal(out[n + 2 :], guard[n + 2 :])
                values += [int(v) for v in out[2 : n + 2]]
        else:
            r = codec.skip(buf, pos, len(buf), n, state, scratch)
        if r < 0:
            return ("err", int(r), int(state[ERROR_POS]))
        assert r <= len(buf)
        pos = int(r)
    return ("ok", values, pos)


def run_reference(codec: Codec, data: bytes, plan: Plan) -> Result:
    """What ``plan`` must give: the reference decodes everything at once, then the skipped values are dropped."""
    total = sum(n for _, n in plan)
    try:
        values, pos = codec.reference(bytes(data), total)
    except ref.RefError as e:
        return ("err", e.code, e.pos)
    kept: list[int] = []
    i = 0
    for action, n in plan:
        if action == "decode":
            kept += values[i : i + n]
        i += n
    return ("ok", kept, pos)


def decode_all(codec: Codec, data: bytes, count: int) -> tuple[list[int], int]:
    """Decode ``count`` values in one call; fail the test on an error code."""
    result = run_kernel(codec, data, [("decode", count)])
    assert result[0] == "ok", result
    return result[1], result[2]


def random_plan(
    rng: random.Random, count: int, skips: bool = True, max_step: int | None = None
) -> list[tuple[str, int]]:
    """Steps of random sizes (zero-sized ones included) adding up to ``count``."""
    plan = []
    left = count
    while left > 0:
        n = min(left, rng.randint(0, max_step or max(1, count // 3)))
        plan.append(("skip" if skips and rng.random() < 0.3 else "decode", n))
        left -= n
    return plan


def encode_values(name: str, values: Sequence[int]) -> bytes:
    """A valid stream for ``values`` with the reference's greedy encoders."""
    if name == "uvarint":
        return b"".join(ref.encode_uvarint(v) for v in values)
    if name == "svarint":
        return b"".join(ref.encode_svarint(v) for v in values)
    if name == "byte":
        return ref.encode_byte_rle(values)
    if name == "bool":
        return ref.encode_boolean_rle(values)
    return ref.encode_rle_v1(values, signed=name == "rle1s")


def sample_values(name: str, rng: random.Random, n: int) -> list[int]:
    """Values with runs and noise in the codec's domain."""
    out: list[int] = []
    while len(out) < n:
        kind = rng.random()
        if name == "bool":
            out += [rng.random() < 0.5 for _ in range(rng.randint(1, 40))] if kind < 0.5 else [kind < 0.75] * 30
            continue
        hi = 255 if name == "byte" else (1 << 40)
        lo = 0 if name in ("byte", "uvarint", "rle1u") else -hi
        v = rng.randint(lo, hi)
        if kind < 0.3:
            out += [v] * rng.randint(3, 200)
        elif kind < 0.5 and name.startswith("rle1"):
            step = rng.randint(-128, 127)
            out += [v + k * step for k in range(rng.randint(3, 200))]
        else:
            out += [rng.randint(lo, hi) for _ in range(rng.randint(1, 150))]
    out = out[:n]
    if name == "bool":
        return [int(v) for v in out]
    if name == "uvarint":
        out[:2] = [(1 << 64) - 1, 1 << 63][: len(out[:2])]
        return [ref.to_int64(v) for v in out]
    if name in ("svarint", "rle1s"):
        out[:2] = [INT64_MIN, INT64_MAX][: len(out[:2])]
    return out


# a fixed stream per codec with groups of many sizes, for the exhaustive batch tests
SAMPLES = {name: sample_values(name, random.Random(7), 700) for name in ALL}
STREAMS = {name: encode_values(name, SAMPLES[name]) for name in ALL}


# -- the spec's examples --------------------------------------------------------------------------------------------

VARINT_TABLE = [
    (0, [0x00]),
    (1, [0x01]),
    (127, [0x7F]),
    (128, [0x80, 0x01]),
    (129, [0x81, 0x01]),
    (16_383, [0xFF, 0x7F]),
    (16_384, [0x80, 0x80, 0x01]),
    (16_385, [0x81, 0x80, 0x01]),
]


@pytest.mark.parametrize(("value", "encoded"), VARINT_TABLE)
def test_spec_varint_table(value: int, encoded: list[int]) -> None:
    assert ref.encode_uvarint(value) == bytes(encoded)
    assert decode_all(CODECS["uvarint"], bytes(encoded), 1) == ([value], len(encoded))
    assert read_uvarint(buffer(bytes(encoded)), 0, len(encoded)) == (value, len(encoded))


def test_spec_varint_table_as_one_stream() -> None:
    data = b"".join(bytes(e) for _, e in VARINT_TABLE)
    assert uvarint_values(data, len(VARINT_TABLE)).tolist() == [v for v, _ in VARINT_TABLE]


def test_spec_zigzag_table() -> None:
    # signed original -> unsigned: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, 2 -> 4
    assert [ref.zigzag_encode(v) for v in (0, -1, 1, -2, 2)] == [0, 1, 2, 3, 4]
    assert svarint_values(bytes([0, 1, 2, 3, 4]), 5).tolist() == [0, -1, 1, -2, 2]


def test_spec_byte_rle_examples() -> None:
    assert ref.encode_byte_rle([0] * 100) == bytes([0x61, 0x00])
    assert byte_rle_values(bytes([0x61, 0x00]), 100).tolist() == [0] * 100
    assert ref.encode_byte_rle([0x44, 0x45]) == bytes([0xFE, 0x44, 0x45])
    assert byte_rle_values(bytes([0xFE, 0x44, 0x45]), 2).tolist() == [0x44, 0x45]


def test_spec_boolean_rle_example() -> None:
    assert ref.encode_boolean_rle([1, 0, 0, 0, 0, 0, 0, 0]) == bytes([0xFF, 0x80])
    assert boolean_rle_values(bytes([0xFF, 0x80]), 8).tolist() == [True] + [False] * 7


def test_spec_rle_v1_examples() -> None:
    assert ref.encode_rle_v1([7] * 100, signed=False) == bytes([0x61, 0x00, 0x07])
    assert rle_v1_values(bytes([0x61, 0x00, 0x07]), 100, signed=False).tolist() == [7] * 100
    assert ref.encode_rle_v1(list(range(100, 0, -1)), signed=False) == bytes([0x61, 0xFF, 0x64])
    assert rle_v1_values(bytes([0x61, 0xFF, 0x64]), 100, signed=False).tolist() == list(range(100, 0, -1))
    literals = bytes([0xFB, 0x02, 0x03, 0x06, 0x07, 0x0B])
    assert ref.encode_rle_v1([2, 3, 6, 7, 11], signed=False) == literals
    assert rle_v1_values(literals, 5, signed=False).tolist() == [2, 3, 6, 7, 11]


# -- varint edge cases ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", range(1, 11))
def test_varint_every_length(length: int) -> None:
    # the largest value of each length, and a small value padded to the length (non-canonical but valid)
    largest = (1 << min(7 * length, 64)) - 1
    for value in (largest, 5):
        data = ref.encode_uvarint(value, length)
        assert len(data) == length
        assert decode_all(CODECS["uvarint"], data, 1) == ([ref.to_int64(value)], length)
        assert skip_varints(buffer(data), 0, length, 1, new_state()) == length
        assert read_uvarint(buffer(data), 0, length) == (ref.to_int64(value), length)


@pytest.mark.parametrize(
    "value", [0, 1, -1, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, 1 << 62, -(1 << 62), 63, -64, 64]
)
def test_svarint_int64_extremes(value: int) -> None:
    data = ref.encode_svarint(value)
    assert decode_all(CODECS["svarint"], data, 1) == ([value], len(data))
    assert svarint_values(data, 1).tolist() == [value]


def test_uvarint_uint64_bits() -> None:
    data = ref.encode_uvarint((1 << 64) - 1)
    assert data == b"\xff" * 9 + b"\x01"
    assert uvarint_values(data, 1).tolist() == [-1]
    assert uvarint_values(ref.encode_uvarint(1 << 63), 1).tolist() == [INT64_MIN]


@pytest.mark.parametrize("tenth", [0x02, 0x7F, 0x80, 0x81, 0xFF])
def test_varint_tenth_byte_carries_one_bit(tenth: int) -> None:
    data = b"\x80" * 9 + bytes([tenth]) + b"\x00"
    for name in ("uvarint", "svarint"):
        assert run_kernel(CODECS[name], data, [("decode", 1)]) == ("err", VARINT_TOO_LONG, 0)
        assert run_kernel(CODECS[name], data, [("skip", 1)]) == ("err", VARINT_TOO_LONG, 0)
    assert read_uvarint(buffer(data), 0, len(data))[1] == VARINT_TOO_LONG
    # the same inside RLE v1: a literal, and a run's first value (reported at the run's header)
    assert run_kernel(CODECS["rle1u"], b"\xfe\x01" + data, [("decode", 2)]) == ("err", VARINT_TOO_LONG, 2)
    assert run_kernel(CODECS["rle1s"], b"\x00\x01" + data, [("decode", 3)]) == ("err", VARINT_TOO_LONG, 0)
    assert run_kernel(CODECS["rle1s"], b"\x00\x01" + data, [("skip", 3)]) == ("err", VARINT_TOO_LONG, 0)


def test_varint_errors_name_the_varint() -> None:
    data = b"\x05\x81\x80\x01\x83"  # 5, 16385, then a varint cut off
    assert run_kernel(CODECS["uvarint"], data, [("decode", 3)]) == ("err", TRUNCATED, 4)
    assert run_kernel(CODECS["uvarint"], data, [("decode", 2)]) == ("ok", [5, 16385], 4)
    assert read_uvarint(buffer(data), 4, 5)[1] == TRUNCATED
    assert read_uvarint(buffer(data), 5, 5)[1] == TRUNCATED
    with pytest.raises(OrcError, match=r"LENGTH stream: data ends in the middle of a value or run at byte 4"):
        uvarint_values(data, 3, "LENGTH stream")


# -- argument checks --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_bad_lengths(name: str) -> None:
    codec = CODECS[name]
    buf = buffer(STREAMS[name])
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    out = np.zeros(10, dtype=codec.dtype)
    cases = [
        (0, len(buf), 0, -1),  # negative count
        (0, len(buf), 5, 6),  # start + count past the output
        (0, len(buf), -1, 2),  # negative start
        (0, len(buf), 0, 11),
        (0, len(buf), 3, (1 << 63) - 2),  # start + count overflows
        (-1, len(buf), 0, 1),  # pos before the buffer
        (5, 4, 0, 1),  # pos past end
        (0, len(buf) + 1, 0, 1),  # end past the buffer
    ]
    for pos, end, start, count in cases:
        state = new_state()
        assert codec.decode(buf, pos, end, out, start, count, state, scratch) == BAD_LENGTH, (pos, end, start, count)
        assert not out.any()
    for pos, end, count in [(0, len(buf), -1), (-1, len(buf), 1), (5, 4, 1), (0, len(buf) + 1, 1)]:
        assert codec.skip(buf, pos, end, count, new_state(), scratch) == BAD_LENGTH


@pytest.mark.parametrize("name", ALL)
def test_zero_count_reads_nothing(name: str) -> None:
    codec = CODECS[name]
    assert run_kernel(codec, b"", [("decode", 0), ("skip", 0)]) == ("ok", [], 0)
    assert run_kernel(codec, b"\x80\x80", [("decode", 0)], pos=1) == ("ok", [], 1)


# -- batches and skips ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_sample_streams_round_trip(name: str) -> None:
    values, pos = decode_all(CODECS[name], STREAMS[name], len(SAMPLES[name]))
    assert values == SAMPLES[name]
    assert pos == len(STREAMS[name])


@pytest.mark.parametrize("name", ALL)
def test_every_batch_size(name: str) -> None:
    """Batches of every size 1..N (so splits fall mid-run, mid-literal-list and mid-byte) give one call's result."""
    codec = CODECS[name]
    data, values = STREAMS[name], SAMPLES[name]
    count = len(values)
    for size in [*range(1, 41), 63, 64, 65, 127, 128, 129, 130, 131, 257, count]:
        plan = [("decode", min(size, count - i)) for i in range(0, count, size)]
        assert run_kernel(codec, data, plan) == ("ok", values, len(data)), size


@pytest.mark.parametrize("name", ALL)
def test_random_batches_and_skips(name: str) -> None:
    codec = CODECS[name]
    data, values = STREAMS[name], SAMPLES[name]
    rng = random.Random(name)
    for _ in range(150):
        plan = random_plan(rng, len(values), max_step=rng.choice([3, 10, 40, 300]))
        assert run_kernel(codec, data, plan) == run_reference(codec, data, plan)


@pytest.mark.parametrize("name", ALL)
def test_skip_then_decode(name: str) -> None:
    codec = CODECS[name]
    data, values = STREAMS[name], SAMPLES[name]
    for k in range(len(values) + 1):
        result = run_kernel(codec, data, [("skip", k), ("decode", len(values) - k)])
        assert result == ("ok", values[k:], len(data)), k


@pytest.mark.parametrize("name", ALL)
def test_decode_from_an_offset(name: str) -> None:
    # streams start anywhere in a buffer: pos and end bound what is read
    data = STREAMS[name]
    padded = b"\xff" * 13 + data + b"\x80" * 7
    buf = buffer(padded)
    codec = CODECS[name]
    out = np.zeros(len(SAMPLES[name]), dtype=codec.dtype)
    state = new_state()
    r = codec.decode(buf, 13, 13 + len(data), out, 0, len(out), state, np.zeros(0, np.int64))
    assert r == 13 + len(data)
    assert [int(v) for v in out] == SAMPLES[name]


def test_boolean_row_group_entry() -> None:
    """A row index entry (byte-RLE position, bytes to skip, bits to skip) is a skip of 8 * bytes + bits."""
    bits = sample_values("bool", random.Random(3), 3000)
    data = ref.encode_boolean_rle(bits)
    packed = ref.pack_bits(bits)
    rng = random.Random(4)
    # group starts in the stream, and how many bytes each group holds
    starts = []
    pos = 0
    while pos < len(data):
        header = data[pos]
        n = header + 3 if header < 0x80 else 256 - header
        starts.append((pos, n))
        pos += 2 if header < 0x80 else 1 + n
    byte_index = 0
    for group_pos, n in starts:
        for _ in range(3):
            byte_skip, bit_skip = rng.randrange(n), rng.randrange(8)
            row = 8 * (byte_index + byte_skip) + bit_skip
            if row >= len(bits):
                continue
            want = bits[row:]
            result = run_kernel(
                CODECS["bool"], data, [("skip", 8 * byte_skip + bit_skip), ("decode", len(want))], pos=group_pos
            )
            assert result == ("ok", want, len(data))
        byte_index += n
    assert byte_index == len(packed)


def test_byte_rle_into_int8() -> None:
    data = ref.encode_byte_rle([0x80, 0xFF, 0x7F, 0, 0, 0, 0xFE])
    out = np.zeros(7, dtype=np.int8)
    assert decode_byte_rle(buffer(data), 0, len(data), out, 0, 7, new_state(), np.zeros(0, np.int64)) == len(data)
    assert out.tolist() == [-128, -1, 127, 0, 0, 0, -2]


def test_boolean_rle_into_uint8() -> None:
    data = bytes([0xFF, 0xA5, 0x00, 0xF0])  # a literal 0xa5, then a run of three 0xf0
    out = np.zeros(32, dtype=np.uint8)
    r = decode_boolean_rle(buffer(data), 0, len(data), out, 0, 32, new_state(), np.zeros(0, np.int64))
    assert r == len(data)
    assert out.tolist() == [1, 0, 1, 0, 0, 1, 0, 1] + [1, 1, 1, 1, 0, 0, 0, 0] * 3


def test_rle_v1_wraps_like_java_longs() -> None:
    groups: list[tuple[str, object]] = [
        ("run", (INT64_MAX - 2, 1, 10)),  # crosses INT64_MAX -> INT64_MIN
        ("run", (INT64_MIN + 5, -128, 130)),
        ("lit", [INT64_MIN, INT64_MAX, -1, 0]),
        ("run", (-1, 127, 3)),
    ]
    values = ref.rle_v1_groups_values(groups)
    assert values[2:4] == [INT64_MAX, INT64_MIN]
    for signed in (False, True):
        codec = CODECS["rle1s" if signed else "rle1u"]
        data = ref.encode_rle_v1_groups(groups, signed)
        assert decode_all(codec, data, len(values)) == (values, len(data))
        for k in (1, 3, 9, 10, 77, 140):
            assert run_kernel(codec, data, [("skip", k), ("decode", len(values) - k)]) == (
                "ok",
                values[k:],
                len(data),
            )


def test_rle_v1_run_delta_is_a_plain_signed_byte() -> None:
    # the delta byte is two's complement even in signed streams; only the first value is zigzagged
    data = bytes([0x00, 0xFE]) + ref.encode_svarint(-3)
    assert rle_v1_values(data, 3, signed=True).tolist() == [-3, -5, -7]
    data = bytes([0x00, 0x02]) + ref.encode_uvarint(5)
    assert rle_v1_values(data, 3, signed=False).tolist() == [5, 7, 9]


# -- property tests against the reference --------------------------------------------------------------------------

INT64 = st.integers(INT64_MIN, INT64_MAX)
BYTE_GROUP = st.one_of(
    st.tuples(st.just("run"), st.tuples(st.integers(0, 255), st.integers(3, 130))),
    st.tuples(st.just("lit"), st.binary(min_size=1, max_size=128)),
)
RLE_V1_GROUP = st.one_of(
    st.tuples(
        st.just("run"),
        st.tuples(st.one_of(INT64, st.integers(-300, 300)), st.integers(-128, 127), st.integers(3, 130)),
    ),
    st.tuples(st.just("lit"), st.lists(st.one_of(INT64, st.integers(-300, 300)), min_size=1, max_size=128)),
)


def draw_plan(data: st.DataObject, count: int) -> list[tuple[str, int]]:
    seed = data.draw(st.integers(0, 2**32 - 1), label="plan seed")
    return random_plan(random.Random(seed), count, max_step=data.draw(st.sampled_from([1, 7, 50, 200, 1000])))


@settings(deadline=None, max_examples=150)
@given(st.lists(st.tuples(INT64, st.integers(1, 10)), max_size=60), st.booleans(), st.data())
def test_varints_property(items: list[tuple[int, int]], signed: bool, data: st.DataObject) -> None:
    encode = ref.encode_svarint if signed else ref.encode_uvarint
    parts = []
    values = []
    for v, length in items:
        plain = encode(v)
        parts.append(encode(v, max(length, len(plain))))
        values.append(v if signed else ref.to_int64(v))
    stream = b"".join(parts)
    codec = CODECS["svarint" if signed else "uvarint"]
    assert run_kernel(codec, stream, [("decode", len(values))]) == ("ok", values, len(stream))
    plan = draw_plan(data, len(values))
    assert run_kernel(codec, stream, plan) == run_reference(codec, stream, plan)


@settings(deadline=None, max_examples=150)
@given(st.lists(BYTE_GROUP, max_size=20), st.data())
def test_byte_rle_property(groups: list[tuple[str, object]], data: st.DataObject) -> None:
    stream = ref.encode_byte_rle_groups(groups)
    values = ref.byte_groups_values(groups)
    codec = CODECS["byte"]
    assert run_kernel(codec, stream, [("decode", len(values))]) == ("ok", values, len(stream))
    assert ref.decode_byte_rle(stream, len(values)) == (values, len(stream))
    plan = draw_plan(data, len(values))
    assert run_kernel(codec, stream, plan) == run_reference(codec, stream, plan)


@settings(deadline=None, max_examples=150)
@given(st.lists(BYTE_GROUP, min_size=1, max_size=12), st.integers(0, 7), st.data())
def test_boolean_rle_property(groups: list[tuple[str, object]], padding: int, data: st.DataObject) -> None:
    stream = ref.encode_byte_rle_groups(groups)
    packed = ref.byte_groups_values(groups)
    bits = [(b >> (7 - k)) & 1 for b in packed for k in range(8)]
    bits = bits[: len(bits) - padding]  # the last byte's padding
    codec = CODECS["bool"]
    assert run_kernel(codec, stream, [("decode", len(bits))]) == ("ok", bits, len(stream))
    plan = draw_plan(data, len(bits))
    assert run_kernel(codec, stream, plan) == run_reference(codec, stream, plan)


@settings(deadline=None, max_examples=150)
@given(st.lists(RLE_V1_GROUP, max_size=12), st.booleans(), st.sampled_from([None, 3, 10]), st.data())
def test_rle_v1_property(
    groups: list[tuple[str, object]], signed: bool, varint_length: int | None, data: st.DataObject
) -> None:
    stream = ref.encode_rle_v1_groups(groups, signed, varint_length)
    values = ref.rle_v1_groups_values(groups)
    codec = CODECS["rle1s" if signed else "rle1u"]
    assert run_kernel(codec, stream, [("decode", len(values))]) == ("ok", values, len(stream))
    assert codec.reference(stream, len(values)) == (values, len(stream))
    plan = draw_plan(data, len(values))
    assert run_kernel(codec, stream, plan) == run_reference(codec, stream, plan)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.one_of(INT64, st.integers(-5, 5)), max_size=400), st.booleans())
def test_rle_v1_greedy_encoder_round_trip(values: list[int], signed: bool) -> None:
    stream = ref.encode_rle_v1(values, signed)
    assert rle_v1_values(stream, len(values), signed).tolist() == values


# -- corrupt and truncated input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_random_bytes_match_the_reference(name: str) -> None:
    """Arbitrary bytes: the kernels give exactly the reference's values, position or error, and never raise."""
    codec = CODECS[name]
    rng = random.Random(f"random bytes {name}")
    for i in range(3000):
        size = rng.choice([0, 1, 2, 3, 5, 8, 16, 40, 200])
        if i % 3 == 0:
            # mostly small bytes: plausible headers, short varints and runs
            data = bytes(rng.choice([0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF, rng.randrange(256)]) for _ in range(size))
        else:
            data = rng.randbytes(size)
        count = rng.choice([0, 1, 2, 7, 8, 9, rng.randrange(300), rng.randrange(3000)])
        plan = [("decode", count)] if i % 2 else random_plan(rng, count)
        assert run_kernel(codec, data, plan) == run_reference(codec, data, plan), (data.hex(), plan)


@pytest.mark.parametrize("name", ALL)
def test_every_truncation_is_truncated(name: str) -> None:
    """Each proper prefix of a valid stream fails with TRUNCATED where the reference says, never decodes short."""
    codec = CODECS[name]
    values = SAMPLES[name][:300]
    data = encode_values(name, values)
    rng = random.Random(name)
    for cut in range(len(data)):
        prefix = data[:cut]
        whole = run_kernel(codec, prefix, [("decode", len(values))])
        assert whole[:2] == ("err", TRUNCATED), cut
        assert whole == run_reference(codec, prefix, [("decode", len(values))])
        plan = random_plan(rng, len(values))
        assert run_kernel(codec, prefix, plan) == ("err", TRUNCATED, whole[2])
    assert run_kernel(codec, data, [("decode", len(values))]) == ("ok", values, len(data))


def test_truncated_run_headers_point_at_the_run() -> None:
    assert run_kernel(CODECS["byte"], b"\xfd\x01\x02\x03\x05", [("decode", 4)]) == ("err", TRUNCATED, 4)
    assert run_kernel(CODECS["byte"], b"\xfd\x01\x02\x03\x05", [("skip", 4)]) == ("err", TRUNCATED, 4)
    assert run_kernel(CODECS["byte"], b"\xfc\x01\x02", [("decode", 3)]) == ("err", TRUNCATED, 3)
    assert run_kernel(CODECS["bool"], b"\x00\xff\x05", [("decode", 25)]) == ("err", TRUNCATED, 2)
    for name in ("rle1u", "rle1s"):
        for data in (b"\x00", b"\x00\x01", b"\x00\x01\x80", b"\x00\x01\xff\xff"):
            assert run_kernel(CODECS[name], b"\xff\x01" + data, [("decode", 4)]) == ("err", TRUNCATED, 2)
            assert run_kernel(CODECS[name], b"\xff\x01" + data, [("skip", 4)]) == ("err", TRUNCATED, 2)
    with pytest.raises(OrcError, match="DATA stream"):
        rle_v1_values(b"\x00\x01", 3, signed=True, what="DATA stream")
    with pytest.raises(OrcError, match="PRESENT"):
        boolean_rle_values(b"\xff", 8, what="PRESENT")
    with pytest.raises(OrcError, match="at byte 3"):
        byte_rle_values(b"\xfc\x01\x02", 3)


@pytest.mark.parametrize("name", ALL)
def test_garbage_state_cannot_crash(name: str) -> None:
    """A state array the caller scribbled on may give wrong values, but stays in bounds and terminates."""
    codec = CODECS[name]
    rng = np.random.default_rng(5)
    buf = buffer(STREAMS[name][:50])
    for _ in range(300):
        state = rng.integers(-(1 << 62), 1 << 62, size=8) if rng.random() < 0.5 else rng.integers(-9, 300, size=8)
        out = np.zeros(100, dtype=codec.dtype)
        r = codec.decode(buf, 0, len(buf), out, 0, 100, state, np.zeros(0, np.int64))
        assert r < 0 or r <= len(buf)
        r = codec.skip(buf, 0, len(buf), 100, state, np.zeros(0, np.int64))
        assert r < 0 or r <= len(buf)


# -- streams written by real writers ---------------------------------------------------------------------------------


def stripe_streams(f: orcjit.ORCFile, i: int) -> dict[tuple[int, str], bytes]:
    """Each stream of stripe ``i``, decompressed, by (column, kind name)."""
    out = {}
    for s in f.stripe_footer(i).streams:
        raw = f.source.read(s.offset, s.length)
        out[(s.column, s.kind_name)] = f.meta.tail.decompress(raw, f"stripe {i} {s.kind_name} of column {s.column}")
    return out


def check_stream(name: str, data: bytes, expected: Sequence[int]) -> None:
    """The stream decodes to ``expected`` and ends exactly there; so does a run in uneven batches."""
    values, pos = decode_all(CODECS[name], data, len(expected))
    assert values == list(expected)
    assert pos == len(data)
    plan = random_plan(random.Random(len(data)), len(expected))
    assert run_kernel(CODECS[name], data, plan) == run_reference(CODECS[name], data, plan)


PYARROW_CHECKS = {
    # column: (stream kind, codec, values of a non-null cell)
    "bool": ("DATA", "bool", int),
    "i8": ("DATA", "byte", lambda v: v & 0xFF),
    "i16": ("DATA", "rle1s", int),
    "i32": ("DATA", "rle1s", int),
    "i64": ("DATA", "rle1s", int),
    "date": ("DATA", "rle1s", lambda d: (d - dt.date(1970, 1, 1)).days),
    "str": ("LENGTH", "rle1u", lambda s: len(s.encode())),
    "bin": ("LENGTH", "rle1u", len),
    "list": ("LENGTH", "rle1u", len),
}


@pytest.mark.parametrize(
    ("compression", "stripe_size"), [("uncompressed", None), ("uncompressed", 30_000), ("zlib", None)]
)
def test_pyarrow_rle_v1_streams(tmp_path: Path, compression: str, stripe_size: int | None) -> None:
    table = all_types_table(4000, seed=11, nulls="some")
    path = write_pyarrow(
        tmp_path, table, compression=compression, file_version="0.11", stripe_size=stripe_size, batch_size=500
    )
    ids = arrow_column_ids(table.schema)
    columns = {name: table.column(name).to_pylist() for name in PYARROW_CHECKS}
    with orcjit.ORCFile(path) as f:
        assert f.file_version == "0.11"
        if stripe_size:
            assert f.nstripes > 1
        checked = 0
        for stripe in f.stripes:
            streams = stripe_streams(f, stripe.index)
            encodings = f.stripe_footer(stripe.index).encodings
            for name, (kind, codec, convert) in PYARROW_CHECKS.items():
                column = ids[name]
                assert encodings[column].kind_name == "DIRECT"
                cells = columns[name][stripe.first_row : stripe.first_row + stripe.rows]
                valid = [c is not None for c in cells]
                if (column, "PRESENT") in streams:
                    check_stream("bool", streams[(column, "PRESENT")], [int(v) for v in valid])
                else:
                    assert all(valid)
                check_stream(codec, streams[(column, kind)], [convert(c) for c in cells if c is not None])
                checked += 1
        assert checked == len(PYARROW_CHECKS) * f.nstripes


@pytest.mark.parametrize("compression", ["uncompressed", "zstd"])
def test_pyorc_byte_and_boolean_streams(tmp_path: Path, compression: str) -> None:
    rng = random.Random(12)
    rows = []
    for i in range(20_000):
        b = None if rng.random() < 0.1 else (i // 700) % 3 == 0 or rng.random() < 0.05
        t = None if i % 1000 < 300 else (rng.randint(-128, 127) if i % 3 else i % 256 - 128)
        rows.append((b, t, i))
    path = write_pyorc(
        tmp_path, "struct<b:boolean,t:tinyint,x:bigint>", rows, compression=compression, row_index_stride=1000
    )
    with orcjit.ORCFile(path) as f:
        streams = stripe_streams(f, 0)
        assert f.nstripes == 1
        for column in (1, 2):
            cells = [row[column - 1] for row in rows]
            check_stream("bool", streams[(column, "PRESENT")], [int(c is not None) for c in cells])
            present = [c for c in cells if c is not None]
            if column == 1:
                check_stream("bool", streams[(column, "DATA")], [int(c) for c in present])
            else:
                check_stream("byte", streams[(column, "DATA")], [c & 0xFF for c in present])
        assert (3, "PRESENT") not in streams
        if compression == "uncompressed":
            check_row_index_seeks(streams, rows)


def check_row_index_seeks(streams: dict[tuple[int, str], bytes], rows: list[tuple[Any, ...]]) -> None:
    """Enter PRESENT and DATA at each row group's recorded position, as a reader seeking there would."""
    for column in (1, 2):
        index = pb.RowIndex()
        index.ParseFromString(streams[(column, "ROW_INDEX")])
        cells = [row[column - 1] for row in rows]
        present = streams[(column, "PRESENT")]
        data = streams[(column, "DATA")]
        data_codec = "bool" if column == 1 else "byte"
        for group, entry in enumerate(index.entry):
            positions = list(entry.positions)
            first = group * 1000
            valid = [int(c is not None) for c in cells[first:]]
            # PRESENT: (byte position, bytes to skip in the run, bits to skip)
            pos, byte_skip, bit_skip = positions[:3]
            plan = [("skip", 8 * byte_skip + bit_skip), ("decode", len(valid))]
            assert run_kernel(CODECS["bool"], present, plan, pos=pos) == ("ok", valid, len(present))
            rest = [c for c in cells[first:] if c is not None]
            want = [int(c) for c in rest] if column == 1 else [c & 0xFF for c in rest]
            if column == 1:
                pos, byte_skip, bit_skip = positions[3:6]
                skip = 8 * byte_skip + bit_skip
            else:
                pos, skip = positions[3:5]
            plan = [("skip", skip), ("decode", len(want))]
            assert run_kernel(CODECS[data_codec], data, plan, pos=pos) == ("ok", want, len(data))


def expected_rows(name: str) -> list[Any]:
    with gzip.open(EXAMPLES / "expected" / f"{name}.jsn.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def test_java_0_11_memory_management_file() -> None:
    """ORC Java 0.11 streams: int DATA (signed RLE v1) and a DICTIONARY string column's ids and lengths."""
    rows = expected_rows("TestOrcFile.testMemoryManagementV11")
    with orcjit.ORCFile(EXAMPLES / "TestOrcFile.testMemoryManagementV11.orc") as f:
        assert f.file_version == "0.11"
        assert f.nstripes > 1
        for stripe in f.stripes:
            streams = stripe_streams(f, stripe.index)
            encodings = f.stripe_footer(stripe.index).encodings
            part = rows[stripe.first_row : stripe.first_row + stripe.rows]
            check_stream("rle1s", streams[(1, "DATA")], [r["int1"] for r in part])
            assert encodings[2].kind_name == "DICTIONARY"
            size = encodings[2].dictionary_size
            lengths, pos = decode_all(CODECS["rle1u"], streams[(2, "LENGTH")], size)
            assert pos == len(streams[(2, "LENGTH")])
            blob = streams[(2, "DICTIONARY_DATA")]
            assert sum(lengths) == len(blob)
            offsets = np.concatenate([[0], np.cumsum(lengths)])
            words = [blob[offsets[k] : offsets[k + 1]].decode() for k in range(size)]
            ids, pos = decode_all(CODECS["rle1u"], streams[(2, "DATA")], stripe.rows)
            assert pos == len(streams[(2, "DATA")])
            assert [words[k] for k in ids] == [r["string1"] for r in part]
            assert words == sorted(words)


def test_java_0_11_timestamp_file() -> None:
    """A zlib-compressed 0.11 file: the timestamp's seconds (signed) and nanoseconds (unsigned) streams."""
    with orcjit.ORCFile(EXAMPLES / "TestOrcFile.testTimestamp.orc") as f:
        assert (f.file_version, f.compression) == ("0.11", "ZLIB")
        streams = stripe_streams(f, 0)
        n = f.stripes[0].rows
        seconds, pos = decode_all(CODECS["rle1s"], streams[(0, "DATA")], n)
        assert pos == len(streams[(0, "DATA")])
        nanos, pos = decode_all(CODECS["rle1u"], streams[(0, "SECONDARY")], n)
        assert pos == len(streams[(0, "SECONDARY")])
    # seconds count from 2015-01-01 00:00 on the writer's wall clock (US/Pacific: daylight saving moves them by an
    # hour); the nanoseconds' low three bits say how many trailing decimal zeros were dropped
    expected = expected_rows("TestOrcFile.testTimestamp")
    base = dt.datetime(2015, 1, 1)
    for s, encoded, text in zip(seconds, nanos, expected, strict=True):
        zeros = encoded & 7
        nano = (encoded >> 3) * (10 ** (zeros + 1) if zeros else 1)
        clock, fraction = text.split(".")
        assert nano == int(fraction.ljust(9, "0"))
        wall = base + dt.timedelta(seconds=s)
        assert abs(wall - dt.datetime.fromisoformat(clock)) <= dt.timedelta(hours=1)
