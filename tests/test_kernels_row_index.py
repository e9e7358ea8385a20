"""The row index kernel (``orcjit.kernels.row_index``) against the protobuf runtime.

The runtime (``orc_proto_pb2.RowIndex().ParseFromString``) is the reference for every input: a literal byte vector
checks the table layout, hypothesis builds RowIndex messages field by field (packed and unpacked repeated fields,
fields in any order, non-minimal varints, out-of-range ``int32``/``sint32``/``bool`` varints, invalid UTF-8,
unknown fields and known fields with the wrong wire type, sub-messages seen twice) and compares the table slot by
slot with what the runtime parsed from the same bytes. Random bytes, mutated messages and every truncation must
either raise OrcError or give exactly the runtime's fields. Real files (the ORC project's examples and a pyarrow
file) close the loop.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf.descriptor import FieldDescriptor as FD
from google.protobuf.message import DecodeError
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from orcjit._proto import orc_proto_pb2 as pb
from orcjit.errors import OrcError
from orcjit.kernels import row_index as ri
from orcjit.kernels.row_index import RowIndexTable, parse_row_index, parse_row_positions
from orcjit.orcfile import ORCFile
from orcjit.pushdown.rowgroups import read_index_stream

from .conftest import EXAMPLES
from .factory import all_types_table, write_pyarrow

M64 = (1 << 64) - 1
VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
ROW_INDEX = 6

# -- wire format, written by hand ------------------------------------------------------------------------------------


def varint(n: int, pad: int = 0) -> bytes:
    """``n`` (taken as a uint64) as a varint, with ``pad`` extra continuation bytes (never past ten bytes)."""
    n &= M64
    out = bytearray()
    while True:
        out.append(n & 0x7F)
        n >>= 7
        if not n:
            break
    pad = max(0, min(pad, 10 - len(out)))
    for _ in range(pad):
        out[-1] |= 0x80
        out.append(0)
    for i in range(len(out) - 1):
        out[i] |= 0x80
    return bytes(out)


def key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def ld(field: int, data: bytes) -> bytes:
    """A length-delimited field."""
    return key(field, BYTES) + varint(len(data)) + data


def zigzag(v: int) -> int:
    return ((v << 1) ^ (v >> 63)) & M64


def double_bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def bits_double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits & M64))[0])


def runtime(raw: bytes) -> pb.RowIndex:
    msg = pb.RowIndex()
    msg.ParseFromString(raw)
    return msg


# -- the table against the runtime's message --------------------------------------------------------------------------

SPANS = {
    ri.STRING_MIN,
    ri.STRING_MAX,
    ri.STRING_LOWER,
    ri.STRING_UPPER,
    ri.DECIMAL_MIN,
    ri.DECIMAL_MAX,
}
MARKERS = {
    ri.STATISTICS,
    ri.INT,
    ri.DOUBLE,
    ri.STRING,
    ri.BUCKET,
    ri.DECIMAL,
    ri.DATE,
    ri.TIMESTAMP,
    ri.BINARY,
    ri.COLLECTION,
}


def expected_slots(entry: pb.RowIndexEntry) -> dict[int, Any]:
    """What the table must hold for ``entry``: slot -> value (None for a sub-message marker, the runtime's str or
    bytes for a span, the bits for a double, the int otherwise)."""
    out: dict[int, Any] = {}
    if not entry.HasField("statistics"):
        return out
    s = entry.statistics
    out[ri.STATISTICS] = None
    for name, slot in (("numberOfValues", ri.COUNT), ("hasNull", ri.HAS_NULL), ("bytesOnDisk", ri.BYTES_ON_DISK)):
        if s.HasField(name):
            out[slot] = int(getattr(s, name))
    subs: list[tuple[str, int, list[tuple[str, int]]]] = [
        ("intStatistics", ri.INT, [("minimum", ri.INT_MIN), ("maximum", ri.INT_MAX)]),
        ("doubleStatistics", ri.DOUBLE, [("minimum", ri.DOUBLE_MIN), ("maximum", ri.DOUBLE_MAX)]),
        (
            "stringStatistics",
            ri.STRING,
            [
                ("minimum", ri.STRING_MIN),
                ("maximum", ri.STRING_MAX),
                ("lowerBound", ri.STRING_LOWER),
                ("upperBound", ri.STRING_UPPER),
            ],
        ),
        ("decimalStatistics", ri.DECIMAL, [("minimum", ri.DECIMAL_MIN), ("maximum", ri.DECIMAL_MAX)]),
        ("dateStatistics", ri.DATE, [("minimum", ri.DATE_MIN), ("maximum", ri.DATE_MAX)]),
        (
            "timestampStatistics",
            ri.TIMESTAMP,
            [
                ("minimumUtc", ri.TIMESTAMP_MIN_UTC),
                ("maximumUtc", ri.TIMESTAMP_MAX_UTC),
                ("minimumNanos", ri.TIMESTAMP_MIN_NANOS),
                ("maximumNanos", ri.TIMESTAMP_MAX_NANOS),
            ],
        ),
    ]
    for message, marker, fields in subs:
        if not s.HasField(message):
            continue
        sub = getattr(s, message)
        out[marker] = None
        for name, slot in fields:
            if sub.HasField(name):
                value = getattr(sub, name)
                out[slot] = double_bits(value) if marker == ri.DOUBLE else value
    for message, marker in (("binaryStatistics", ri.BINARY), ("collectionStatistics", ri.COLLECTION)):
        if s.HasField(message):
            out[marker] = None  # read only to check it is well formed
    if s.HasField("bucketStatistics"):
        out[ri.BUCKET] = None
        if len(s.bucketStatistics.count):
            out[ri.TRUE_COUNT] = int(s.bucketStatistics.count[0])
    return out


def assert_same(table: RowIndexTable | None, msg: pb.RowIndex) -> None:
    """The table holds exactly what the runtime parsed: entries, positions and every slot."""
    assert table is not None
    assert len(table) == len(msg.entry)
    assert table.value.shape == table.extra.shape == table.present.shape == (len(msg.entry), ri.SLOTS)
    flat: list[int] = []
    for g, entry in enumerate(msg.entry):
        positions = [int(x) & M64 for x in table.positions(g)]
        assert positions == list(entry.positions), f"entry {g}: positions"
        assert table.present[g, ri.POSITIONS] == 1
        assert int(table.value[g, ri.POSITIONS]) == len(flat)  # positions are laid out entry after entry
        flat.extend(positions)
        want = expected_slots(entry)
        got = {slot for slot in range(ri.SLOTS) if slot != ri.POSITIONS and table.present[g, slot]}
        assert got == set(want), f"entry {g}: slots present {sorted(got)}, runtime has {sorted(want)}"
        for slot, value in want.items():
            if slot in MARKERS:
                continue
            if slot in SPANS:
                raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
                start, length = int(table.value[g, slot]), int(table.extra[g, slot])
                assert table.data[start : start + length] == raw, f"entry {g}: slot {slot}"
                assert table.text(g, slot) == value, f"entry {g}: slot {slot}"
                assert type(table.text(g, slot)) is type(value)
            else:
                assert int(table.value[g, slot]) & M64 == value & M64, f"entry {g}: slot {slot}"
    assert [int(x) & M64 for x in table.flat_positions] == flat
    # the per-slot views agree with the scalar accessors
    for slot in SPANS:
        assert table.texts(slot) == [table.text(g, slot) for g in range(len(table))]
        assert table.has(slot).tolist() == [bool(table.present[g, slot]) for g in range(len(table))]


def check_bytes(raw: bytes) -> str:
    """Random input: the kernel raises OrcError, or the runtime parses the bytes too and the table is its message.

    Returns which of the two happened.
    """
    try:
        table = parse_row_index(raw, "fuzz")
    except OrcError as exc:
        assert "fuzz: row index" in str(exc)
        return "error"
    try:
        msg = runtime(raw)
    except DecodeError:
        pytest.fail(f"the kernel accepted bytes the protobuf runtime rejects: {raw.hex()}")
    assert_same(table, msg)
    return "parsed"


# -- a literal vector -------------------------------------------------------------------------------------------------

# entry 0: positions [0, 5, 300] (packed), statistics {numberOfValues: 1000, intStatistics {minimum: -3,
# maximum: 150}, hasNull: true}; entry 1: positions [1, 2, 3], statistics {numberOfValues: 7, intStatistics
# {minimum: -1, maximum: 0}, hasNull: false}
LITERAL = bytes.fromhex(
    "0a14"  # entry, 20 bytes
    "0a04"
    "0005ac02"  # positions, packed: 0, 5, 300
    "120c"  # statistics, 12 bytes
    "08e807"  # numberOfValues 1000
    "1205"
    "0805"
    "10ac02"  # intStatistics: minimum zigzag(-3) = 5, maximum zigzag(150) = 300
    "5001"  # hasNull true
    "0a11"  # entry, 17 bytes
    "0a03"
    "010203"  # positions, packed: 1, 2, 3
    "120a"  # statistics, 10 bytes
    "0807"  # numberOfValues 7
    "1204"
    "0801"
    "1000"  # intStatistics: minimum zigzag(-1) = 1, maximum 0
    "5000"  # hasNull false
)


def literal_message() -> pb.RowIndex:
    return pb.RowIndex(
        entry=[
            pb.RowIndexEntry(
                positions=[0, 5, 300],
                statistics=pb.ColumnStatistics(
                    numberOfValues=1000, intStatistics=pb.IntegerStatistics(minimum=-3, maximum=150), hasNull=True
                ),
            ),
            pb.RowIndexEntry(
                positions=[1, 2, 3],
                statistics=pb.ColumnStatistics(
                    numberOfValues=7, intStatistics=pb.IntegerStatistics(minimum=-1, maximum=0), hasNull=False
                ),
            ),
        ]
    )


def test_literal_vector() -> None:
    assert literal_message().SerializeToString() == LITERAL  # the hand-written bytes are what protobuf writes
    t = parse_row_index(LITERAL, "column 1")
    assert t is not None and len(t) == 2
    assert t.positions(0).tolist() == [0, 5, 300]
    assert t.positions(1).tolist() == [1, 2, 3]
    assert t.flat_positions.tolist() == [0, 5, 300, 1, 2, 3]
    assert t.value[:, ri.POSITIONS].tolist() == [0, 3]
    assert t.extra[:, ri.POSITIONS].tolist() == [3, 3]
    rows = t.position_rows()
    assert isinstance(rows, np.ndarray) and rows.tolist() == [[0, 5, 300], [1, 2, 3]]
    assert t.value[:, ri.COUNT].tolist() == [1000, 7]
    assert t.value[:, ri.HAS_NULL].tolist() == [1, 0]
    assert t.present[:, ri.HAS_NULL].tolist() == [1, 1]
    assert t.value[:, ri.INT_MIN].tolist() == [-3, -1]
    assert t.value[:, ri.INT_MAX].tolist() == [150, 0]
    assert t.has(ri.INT).tolist() == [True, True]
    assert t.has(ri.INT_MAX).tolist() == [True, True]
    for slot in (ri.BYTES_ON_DISK, ri.DOUBLE, ri.STRING, ri.STRING_MIN, ri.BUCKET, ri.TRUE_COUNT, ri.DECIMAL):
        assert t.has(slot).tolist() == [False, False]
    for slot in (ri.DATE, ri.DATE_MIN, ri.TIMESTAMP, ri.TIMESTAMP_MIN_UTC, ri.TIMESTAMP_MIN_NANOS):
        assert t.has(slot).tolist() == [False, False]
    assert t.text(0, ri.STRING_MIN) is None
    assert t.texts(ri.DECIMAL_MAX) == [None, None]
    assert_same(t, runtime(LITERAL))


def test_literal_spans_doubles_and_unpacked_positions() -> None:
    stats = (
        key(1, VARINT)
        + varint(2)
        + ld(3, key(1, FIXED64) + struct.pack("<d", -1.5) + key(2, FIXED64) + struct.pack("<d", math.inf))
        + ld(4, ld(1, b"ab") + ld(2, "é".encode()) + ld(4, b"\xff\xfe"))
        + ld(5, ld(1, varint(9) + varint(4)))  # bucket counts, packed: the true count is the first
        + ld(6, ld(2, b"12.50"))
        + ld(7, key(1, VARINT) + varint(zigzag(-719_162)))
        + ld(9, key(3, VARINT) + varint(zigzag(-5)) + key(5, VARINT) + varint(-7 & M64))  # int32 -7: ten bytes
    )
    entry = key(1, VARINT) + varint(7) + key(1, VARINT) + varint(2**64 - 1) + ld(2, stats)
    raw = ld(1, entry)
    t = parse_row_index(raw, "column 2")
    assert t is not None and len(t) == 1
    assert [int(x) & M64 for x in t.positions(0)] == [7, 2**64 - 1]
    assert t.value[0, ri.COUNT] == 2
    assert t.value[:, ri.DOUBLE_MIN].view(np.float64).tolist() == [-1.5]
    assert t.value[:, ri.DOUBLE_MAX].view(np.float64).tolist() == [math.inf]
    assert t.text(0, ri.STRING_MIN) == "ab"
    assert t.text(0, ri.STRING_MAX) == "é"
    assert t.extra[0, ri.STRING_MAX] == 2
    assert raw[int(t.value[0, ri.STRING_MIN]) :].startswith(b"ab")
    assert t.text(0, ri.STRING_LOWER) == b"\xff\xfe"  # not UTF-8: bytes, as the runtime gives them
    assert not t.present[0, ri.STRING_UPPER]
    assert t.value[0, ri.TRUE_COUNT] == 9 and t.present[0, ri.BUCKET]
    assert t.text(0, ri.DECIMAL_MAX) == "12.50" and t.text(0, ri.DECIMAL_MIN) is None
    assert t.value[0, ri.DATE_MIN] == -719_162 and not t.present[0, ri.DATE_MAX]
    assert t.value[0, ri.TIMESTAMP_MIN_UTC] == -5 and t.value[0, ri.TIMESTAMP_MIN_NANOS] == -7
    assert not t.present[0, ri.TIMESTAMP_MAX_UTC]
    assert_same(t, runtime(raw))


def test_empty_index_and_entries_mismatch() -> None:
    t = parse_row_index(b"", "column 1")
    assert t is not None and len(t) == 0 and t.flat_positions.size == 0
    assert parse_row_index(b"", "column 1", entries=0) is not None
    assert parse_row_index(b"", "column 1", entries=1) is None
    assert parse_row_index(LITERAL, "column 1", entries=1) is None
    assert parse_row_index(LITERAL, "column 1", entries=3) is None
    assert parse_row_index(LITERAL, "column 1", entries=0) is None
    same = parse_row_index(LITERAL, "column 1", entries=2)
    assert same is not None
    assert_same(same, runtime(LITERAL))
    # an entry field with another wire type is no entry, for the count either
    assert parse_row_index(LITERAL + key(1, VARINT) + varint(5), "column 1", entries=2) is not None


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"\x0a", id="key without a length"),
        pytest.param(b"\x0a\x05\x08", id="entry past the end"),
        pytest.param(b"\x0a\x02\x0a\x05", id="packed positions past the entry"),
        pytest.param(b"\x0a\x02\x0a\x01\x80", id="packed position truncated"),
        pytest.param(b"\x00\x01", id="field number 0"),
        pytest.param(b"\x0b", id="start group"),
        pytest.param(b"\x0f", id="wire type 7"),
        pytest.param(b"\x08" + b"\xff" * 10 + b"\x01", id="varint of eleven bytes"),
        pytest.param(ld(1, ld(2, ld(2, b"\x08"))), id="int minimum truncated"),
        pytest.param(ld(1, ld(2, ld(3, b"\x09\x00\x00"))), id="double truncated"),
        pytest.param(ld(1, ld(2, ld(4, b"\x0a\x09ab"))), id="string past its message"),
    ],
)
def test_malformed_raises(raw: bytes) -> None:
    with pytest.raises(OrcError, match=r"^column 9: row index: .* at byte \d+$"):
        parse_row_index(raw, "column 9")
    with pytest.raises(OrcError):
        parse_row_index(raw, "column 9", entries=1)


SAMPLE_STATISTICS = pb.ColumnStatistics(
    numberOfValues=3,
    hasNull=True,
    bytesOnDisk=99,
    stringStatistics=pb.StringStatistics(minimum="a", maximum="日本", lowerBound="", upperBound="z", sum=4),
    timestampStatistics=pb.TimestampStatistics(minimumUtc=-1, maximumUtc=2, minimumNanos=5, maximumNanos=999_999),
    bucketStatistics=pb.BucketStatistics(count=[1, 2]),
    binaryStatistics=pb.BinaryStatistics(sum=3),
    collectionStatistics=pb.CollectionStatistics(minChildren=1),
).SerializeToString()


def test_every_truncation() -> None:
    raw = ld(1, b"\x08\x01" + b"\x0a\x02\x07\x08" + ld(2, b"\x50\x01")) + LITERAL
    raw += ld(1, b"".join(ld(f, SAMPLE_STATISTICS) for f in (2, 2)))
    outcomes = {check_bytes(raw[:cut]) for cut in range(len(raw) + 1)}
    assert outcomes == {"error", "parsed"}


# -- disagreements with the runtime -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        # the kernel skips binaryStatistics (8) and collectionStatistics (12); the runtime parses them
        pytest.param(ld(1, ld(2, ld(8, b"\xff"))), id="malformed binaryStatistics"),
        pytest.param(ld(1, ld(2, ld(12, b"\x08"))), id="malformed collectionStatistics"),
        # the runtime reads keys and lengths as 32-bit varints of at most five bytes
        pytest.param(b"\x8a\x80\x80\x80\x80\x00\x00", id="key of six bytes"),
        pytest.param(b"\x0a\x80\x80\x80\x80\x80\x00", id="length of six bytes"),
    ],
)
def test_kernel_rejects_what_the_runtime_rejects(raw: bytes) -> None:
    with pytest.raises(DecodeError):
        runtime(raw)
    try:
        table = parse_row_index(raw, "column 1")
    except OrcError:
        return
    pytest.fail(f"parse_row_index accepted {raw.hex()} (a table of {len(table)} entries); protobuf rejects it")


# -- hypothesis: messages built field by field ------------------------------------------------------------------------

U64 = st.one_of(st.integers(0, 300), st.integers(0, M64), st.sampled_from([2**63 - 1, 2**63, M64]))
I64 = st.one_of(st.integers(-300, 300), st.integers(-(2**63), 2**63 - 1), st.sampled_from([-(2**63), 2**63 - 1]))
I32 = st.one_of(st.integers(-300, 300), st.integers(-(2**31), 2**31 - 1), st.sampled_from([-(2**31), 2**31 - 1]))
DOUBLES = st.one_of(
    st.floats(),
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, -0.0, 0.0]),
    st.integers(0, M64).map(bits_double),  # NaN payloads included
)
TEXTS = st.one_of(st.text(max_size=6), st.sampled_from(["", "a", "é", "日本語", "🎉", "z" * 40]))
DECIMALS = st.one_of(st.sampled_from(["0", "-1.5", "12345678901234567890.0123456789", "1E+2", "NaN"]), TEXTS)
INVALID_UTF8 = st.sampled_from([b"\xff", b"\xc3", b"a\x80b", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"])

SUB_MESSAGES: dict[str, dict[str, Any]] = {
    "intStatistics": {"minimum": I64, "maximum": I64, "sum": I64},
    "doubleStatistics": {"minimum": DOUBLES, "maximum": DOUBLES, "sum": DOUBLES},
    "stringStatistics": {"minimum": TEXTS, "maximum": TEXTS, "sum": I64, "lowerBound": TEXTS, "upperBound": TEXTS},
    "decimalStatistics": {"minimum": DECIMALS, "maximum": DECIMALS, "sum": DECIMALS},
    "dateStatistics": {"minimum": I32, "maximum": I32},
    "timestampStatistics": {
        "minimum": I64,
        "maximum": I64,
        "minimumUtc": I64,
        "maximumUtc": I64,
        "minimumNanos": st.one_of(st.integers(1, 1_000_000), I32),
        "maximumNanos": st.one_of(st.integers(1, 1_000_000), I32),
    },
    "binaryStatistics": {"sum": I64},
    "collectionStatistics": {"minChildren": U64, "maxChildren": U64, "totalChildren": U64},
}


@st.composite
def column_statistics(draw: Any) -> pb.ColumnStatistics:
    s = pb.ColumnStatistics()
    for name, values in (("numberOfValues", U64), ("hasNull", st.booleans()), ("bytesOnDisk", U64)):
        if draw(st.booleans()):
            setattr(s, name, draw(values))
    for message, fields in SUB_MESSAGES.items():
        if draw(st.integers(0, 2)) == 0:
            continue
        sub = getattr(s, message)
        sub.SetInParent()  # present even with no field set
        for name, values in fields.items():
            if draw(st.booleans()):
                setattr(sub, name, draw(values))
    if draw(st.integers(0, 2)):
        s.bucketStatistics.SetInParent()
        s.bucketStatistics.count.extend(draw(st.lists(U64, max_size=4)))
    return s


@st.composite
def row_index_entry(draw: Any) -> pb.RowIndexEntry:
    entry = pb.RowIndexEntry(positions=draw(st.lists(U64, max_size=8)))
    if draw(st.integers(0, 4)):
        entry.statistics.CopyFrom(draw(column_statistics()))
    return entry


WIRE = {FD.TYPE_DOUBLE: FIXED64, FD.TYPE_FIXED64: FIXED64, FD.TYPE_STRING: BYTES, FD.TYPE_BYTES: BYTES}
WIRE[FD.TYPE_MESSAGE] = BYTES


def wire_of(fd: Any) -> int:
    return WIRE.get(fd.type, VARINT)


def scalar_payload(draw: Any, fd: Any, value: Any) -> bytes:
    """One value of field ``fd``, encoded (without its key); varints sometimes padded or widened to 64 bits."""
    if fd.type == FD.TYPE_DOUBLE:
        return struct.pack("<d", value)
    if fd.type == FD.TYPE_FIXED64:
        return struct.pack("<Q", value)
    if fd.type in (FD.TYPE_STRING, FD.TYPE_BYTES):
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        if fd.type == FD.TYPE_STRING and draw(st.integers(0, 5)) == 0:
            data = draw(INVALID_UTF8)  # proto2 keeps it: the runtime hands back bytes
        return varint(len(data)) + data
    # sint: zigzag; uint64, uint32, int32 (a negative one takes ten bytes), bool: the value's 64 bits
    n = zigzag(value) if fd.type in (FD.TYPE_SINT64, FD.TYPE_SINT32) else int(value) & M64
    if not fd.is_repeated and draw(st.integers(0, 7)) == 0:
        n = draw(U64)  # int32 / sint32 / bool / uint32 fields keep what the runtime keeps of 64 bits
    return varint(n, pad=draw(st.sampled_from([0, 0, 0, 1, 9])))


@st.composite
def noise_field(draw: Any, descriptor: Any) -> bytes:
    """A field the message's parser must skip: an unknown number, or a known number with another wire type."""
    known = {fd.number: fd for fd in descriptor.fields}
    number = draw(st.sampled_from([*range(1, 16), 100, 536_870_911]))
    allowed = set()
    if number in known:
        fd = known[number]
        allowed.add(wire_of(fd))
        if fd.is_repeated and fd.type != FD.TYPE_MESSAGE:
            allowed.add(BYTES)  # packed
    wire = draw(st.sampled_from([w for w in (VARINT, FIXED64, BYTES, FIXED32) if w not in allowed]))
    if wire == VARINT:
        payload = varint(draw(U64))
    elif wire == FIXED64:
        payload = draw(st.binary(min_size=8, max_size=8))
    elif wire == FIXED32:
        payload = draw(st.binary(min_size=4, max_size=4))
    else:
        data = draw(st.binary(max_size=8))
        payload = varint(len(data)) + data
    return key(number, wire) + payload


def encode(draw: Any, msg: Any) -> bytes:
    """``msg`` in protobuf wire format, one of the many encodings the runtime reads back as ``msg``: fields in any
    order, repeated values split into packed and unpacked runs, skippable fields between them."""
    chunks: list[tuple[int, bytes]] = []
    for fd, value in msg.ListFields():
        n = fd.number
        if fd.type == FD.TYPE_MESSAGE:
            for item in value if fd.is_repeated else [value]:
                chunks.append((n, ld(n, encode(draw, item))))
        elif fd.is_repeated:
            values = list(value)
            while values:
                run = draw(st.integers(1, len(values)))
                part, values = values[:run], values[run:]
                if draw(st.booleans()):
                    chunks.append((n, ld(n, b"".join(scalar_payload(draw, fd, v) for v in part))))
                else:
                    chunks.extend((n, key(n, wire_of(fd)) + scalar_payload(draw, fd, v)) for v in part)
            if draw(st.integers(0, 5)) == 0:
                chunks.append((n, ld(n, b"")))  # an empty packed run adds nothing
        else:
            chunks.append((n, key(n, wire_of(fd)) + scalar_payload(draw, fd, value)))
    # fields interleaved in any order; the runs of one repeated field (and the entries of a RowIndex) keep theirs
    by_field: dict[int, list[bytes]] = {}
    for n, chunk in chunks:
        by_field.setdefault(n, []).append(chunk)
    order = draw(st.permutations([n for n, _ in chunks]))
    out = [by_field[n].pop(0) for n in order]
    for _ in range(draw(st.integers(0, 2))):
        out.insert(draw(st.integers(0, len(out))), draw(noise_field(msg.DESCRIPTOR)))
    return b"".join(out)


@st.composite
def row_index_bytes(draw: Any) -> bytes:
    """A RowIndex: entries each encoded once or as two entries' bytes concatenated (the runtime merges them:
    statistics and sub-messages field by field, scalars last one wins, positions and bucket counts appended)."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        data = encode(draw, draw(row_index_entry()))
        if draw(st.integers(0, 2)) == 0:
            data += encode(draw, draw(row_index_entry()))
        parts.append(ld(1, data))
    for _ in range(draw(st.integers(0, 1))):
        parts.insert(draw(st.integers(0, len(parts))), draw(noise_field(pb.RowIndex.DESCRIPTOR)))
    return b"".join(parts)


@settings(max_examples=300, deadline=None)
@given(row_index_bytes())
def test_built_messages_parse_as_the_runtime_does(raw: bytes) -> None:
    msg = runtime(raw)  # the builder writes valid protobuf
    assert_same(parse_row_index(raw, "column 1"), msg)
    assert_same(parse_row_index(raw, "column 1", entries=len(msg.entry)), msg)
    assert parse_row_index(raw, "column 1", entries=len(msg.entry) + 1) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(row_index_entry(), max_size=4), st.lists(row_index_entry(), max_size=4))
def test_serialized_messages_and_their_concatenation(first: list[Any], second: list[Any]) -> None:
    a = pb.RowIndex(entry=first).SerializeToString()
    b = pb.RowIndex(entry=second).SerializeToString()
    for raw in (a, b, a + b):
        assert_same(parse_row_index(raw, "column 1"), runtime(raw))
    # every entry of b merged into the matching entry of a: both written as one length-delimited entry each
    merged = b"".join(ld(1, x.SerializeToString() + y.SerializeToString()) for x, y in zip(first, second, strict=False))
    msg = runtime(merged)
    assert len(msg.entry) == min(len(first), len(second))
    assert_same(parse_row_index(merged, "column 1"), msg)


# random bytes as the whole index, as an entry, as statistics, and as each statistics sub-message
WRAPPERS = [
    lambda raw: raw,
    lambda raw: ld(1, raw),
    lambda raw: ld(1, ld(2, raw)),
    *(lambda raw, f=f: ld(1, ld(2, ld(f, raw))) for f in (2, 3, 4, 5, 6, 7, 8, 9, 12)),
]


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(WRAPPERS))
def test_random_bytes(raw: bytes, wrap: Any) -> None:
    check_bytes(wrap(raw))


# no shrinking: shrinking a mutated message takes minutes, and the failure shows the bytes (hex) either way
@settings(max_examples=300, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(row_index_bytes(), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=3))
def test_mutated_messages(raw: bytes, edits: list[tuple[int, int]]) -> None:
    data = bytearray(raw)
    for at, byte in edits:
        if data:
            data[at % len(data)] = byte
    check_bytes(bytes(data))


@settings(max_examples=60, deadline=None)
@given(row_index_bytes())
def test_truncations_of_built_messages(raw: bytes) -> None:
    for cut in range(len(raw)):
        check_bytes(raw[:cut])


# -- real files -------------------------------------------------------------------------------------------------------


def row_index_streams(path: Path) -> list[tuple[str, int, bytes]]:
    """``(what, row groups of the stripe, decompressed bytes)`` of every ROW_INDEX stream of the file."""
    f = ORCFile(path)
    out = []
    stride = f.row_index_stride
    for i, stripe in enumerate(f.stripes):
        footer = f.stripe_footer(i)
        for s in footer.streams:
            if s.kind == ROW_INDEX:
                groups = -(-stripe.rows // stride) if stride else -1
                out.append(
                    (
                        f"{path.name}: stripe {i}, column {s.column}",
                        groups,
                        read_index_stream(f.source, f.meta.tail, stripe, s),
                    )
                )
    return out


def check_file(path: Path) -> int:
    streams = row_index_streams(path)
    assert streams, f"{path.name} has no row index"
    entries = 0
    for what, groups, raw in streams:
        msg = runtime(raw)
        table = parse_row_index(raw, what)
        assert_same(table, msg)
        assert len(msg.entry) == groups  # as the writer promised: one entry per row group
        assert_same(parse_row_index(raw, what, entries=groups), msg)
        assert parse_row_index(raw, what, entries=groups + 1) is None
        entries += len(msg.entry)
    return entries


@pytest.mark.parametrize(
    "name",
    [
        "TestOrcFile.test1.orc",  # zlib, every primitive type
        "TestOrcFile.testSeek.orc",  # zlib, 7 stripes of many row groups
        "TestOrcFile.columnProjection.orc",
        "TestOrcFile.testPredicatePushdown.orc",
        "TestOrcFile.testTimestamp.orc",
        "TestVectorOrcFile.testLz4.orc",
        "TestVectorOrcFile.testZstd.0.12.orc",
        "decimal.orc",
        "demo-12-zlib.orc",
        "orc_index_int_string.orc",
        "over1k_bloom.orc",
    ],
)
def test_example_files(name: str) -> None:
    assert check_file(EXAMPLES / name) > 0


def test_pyarrow_file(tmp_path: Path) -> None:
    path = write_pyarrow(
        tmp_path, all_types_table(6000, seed=3), compression="zlib", row_index_stride=700, stripe_size=200_000
    )
    assert check_file(path) > 100


# -- positions alone, for seeking --------------------------------------------------------------------------------


def assert_positions_alone_match(raw: bytes) -> None:
    """Wherever the full parser reads ``raw``, ``parse_row_positions`` reads the same lists; where it fails, the
    full parser fails too (it may read the positions of an index whose statistics the full parser rejects)."""
    try:
        alone = parse_row_positions(raw, "column 1")
    except OrcError as exc:
        assert "column 1: row index" in str(exc)
        with pytest.raises(OrcError):
            parse_row_index(raw, "column 1")
        return
    try:
        table = parse_row_index(raw, "column 1")
    except OrcError:
        return
    want = table.position_rows()
    if isinstance(want, np.ndarray):
        assert isinstance(alone, np.ndarray) and alone.shape == want.shape and np.array_equal(alone, want), raw.hex()
    else:
        assert [a.tolist() for a in alone] == [w.tolist() for w in want], raw.hex()
    n = len(table)
    assert parse_row_positions(raw, "column 1", entries=n + 1) is None


@settings(max_examples=300, deadline=None)
@given(row_index_bytes())
def test_positions_alone_of_built_messages(raw: bytes) -> None:
    assert_positions_alone_match(raw)


@settings(max_examples=60, deadline=None)
@given(row_index_bytes())
def test_positions_alone_of_truncated_messages(raw: bytes) -> None:
    for cut in range(len(raw)):
        assert_positions_alone_match(raw[:cut])


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(WRAPPERS))
def test_positions_alone_of_random_bytes(raw: bytes, wrap: Any) -> None:
    assert_positions_alone_match(wrap(raw))
