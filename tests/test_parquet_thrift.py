"""Tests of orcjit's Thrift compact-protocol decoder: spec byte vectors, a round trip against a reference encoder
written here, and hostile input (truncations, oversized sizes and varints, deep nesting, random bytes).

The reference encoder takes typed trees, so that it knows each value's wire type: ``(kind, payload)`` where the
payload of a scalar is its Python value, of a list or set ``(element kind, [payload, ...])``, of a map
``(key kind, value kind, [(key payload, value payload), ...])`` and of a struct ``[(field id, kind, payload), ...]``.
:func:`expected` gives what the decoder returns for a tree. tests/test_parquet_metadata.py builds footers with it.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit.parquet import ParquetError
from orcjit.parquet.thrift import MAX_DEPTH, ThriftReader, read_struct

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)
BOOL = TRUE  # the kind a tree uses for booleans; the wire type of a field then depends on the value


def varint(n: int) -> bytes:
    assert n >= 0
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def zigzag(n: int) -> bytes:
    return varint(2 * n if n >= 0 else -2 * n - 1)


def encode_value(kind: int, payload: Any) -> bytes:
    """A value outside a field header (booleans take a byte: 1 true, 2 false)."""
    if kind in (TRUE, FALSE):
        return b"\x01" if payload else b"\x02"
    if kind == BYTE:
        return bytes([payload & 0xFF])
    if kind in (I16, I32, I64):
        return zigzag(payload)
    if kind == DOUBLE:
        return struct.pack("<d", payload)
    if kind == BINARY:
        return varint(len(payload)) + payload
    if kind in (LIST, SET):
        element, items = payload
        n = len(items)
        head = bytes([n << 4 | element]) if n < 15 else bytes([0xF0 | element]) + varint(n)
        return head + b"".join(encode_value(element, item) for item in items)
    if kind == MAP:
        key_kind, value_kind, entries = payload
        if not entries:
            return b"\x00"
        body = b"".join(encode_value(key_kind, k) + encode_value(value_kind, v) for k, v in entries)
        return varint(len(entries)) + bytes([key_kind << 4 | value_kind]) + body
    if kind == STRUCT:
        return encode_struct(payload)
    raise AssertionError(kind)


def field_header(field: int, last: int, wire: int) -> bytes:
    delta = field - last
    if 0 < delta <= 15:
        return bytes([delta << 4 | wire])
    return bytes([wire]) + zigzag(field)


def encode_struct(fields: list[tuple[int, int, Any]]) -> bytes:
    out = bytearray()
    last = 0
    for field, kind, payload in fields:
        if kind in (TRUE, FALSE):
            out += field_header(field, last, TRUE if payload else FALSE)
        else:
            out += field_header(field, last, kind) + encode_value(kind, payload)
        last = field
    return bytes(out + b"\x00")


def expected(kind: int, payload: Any) -> Any:
    """What the decoder returns for a tree: dicts for structs and maps, lists for lists and sets."""
    if kind in (LIST, SET):
        element, items = payload
        return [expected(element, item) for item in items]
    if kind == MAP:
        key_kind, value_kind, entries = payload
        return {expected(key_kind, k): expected(value_kind, v) for k, v in entries}
    if kind == STRUCT:
        return {field: expected(k, p) for field, k, p in payload}
    if kind in (TRUE, FALSE):
        return bool(payload)
    return payload


def decode(data: bytes, base: int = 0) -> dict[int, Any]:
    fields, used = read_struct(data, "test", base)
    assert used == len(data)
    return fields


def one_field(header: int, value: bytes) -> bytes:
    return bytes([header]) + value + b"\x00"


# --- spec byte vectors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "encoded"),
    [
        (I32, 0, b"\x00"),
        (I32, -1, b"\x01"),
        (I32, 1, b"\x02"),
        (I32, -2, b"\x03"),
        (I32, 2, b"\x04"),
        (I32, 63, b"\x7e"),
        (I32, -64, b"\x7f"),
        (I32, 64, b"\x80\x01"),
        (I32, 2**31 - 1, b"\xfe\xff\xff\xff\x0f"),
        (I32, -(2**31), b"\xff\xff\xff\xff\x0f"),
        (I16, 2**15 - 1, b"\xfe\xff\x03"),
        (I16, -(2**15), b"\xff\xff\x03"),
        (I64, 2**63 - 1, b"\xfe" + b"\xff" * 8 + b"\x01"),
        (I64, -(2**63), b"\xff" * 9 + b"\x01"),
        (I64, 2**40, b"\x80\x80\x80\x80\x80\x40"),
    ],
)
def test_zigzag_varints(kind: int, value: int, encoded: bytes) -> None:
    assert zigzag(value) == encoded  # the reference agrees with the spec
    assert decode(one_field(0x10 | kind, encoded)) == {1: value}


def test_field_header_short_and_long_forms() -> None:
    # short form: deltas 1..15 from the previous id
    assert decode(b"\x15\x02\xf5\x04\x00") == {1: 1, 16: 2}
    # long form: type nibble alone, then the id as a zigzag i16 (negative, large, and back to small)
    assert decode(b"\x05\x01\x02\x05\xfe\xff\x03\x06\x05\x0a\x0a\x00") == {-1: 1, 32767: 3, 5: 5}
    assert decode(b"\x05\xff\xff\x03\x00\x00") == {-32768: 0}
    # a short-form delta after a long-form id counts from that id
    assert decode(b"\x05\xc8\x01\x00\x15\x02\x00") == {100: 0, 101: 1}
    # an id beyond i16 is refused
    with pytest.raises(ParquetError, match="i16"):
        decode(b"\x05\x80\x80\x04\x00\x00")


def test_booleans() -> None:
    # in a field header: type 1 is true, 2 false, and no value byte follows
    assert decode(b"\x11\x12\x00") == {1: True, 2: False}
    # as list elements, one byte each: 1 true, 2 false (0 is accepted as false too)
    assert decode(b"\x19\x31\x01\x02\x00\x00") == {1: [True, False, False]}
    assert decode(b"\x19\x22\x01\x02\x00") == {1: [True, False]}
    with pytest.raises(ParquetError, match="boolean byte 3 at byte 2"):
        decode(b"\x19\x11\x03\x00")


def test_i8_double_binary() -> None:
    assert decode(b"\x13\x7f\x13\x80\x13\xff\x00") == {1: 127, 2: -128, 3: -1}
    assert decode(b"\x17" + struct.pack("<d", -1.5) + b"\x00") == {1: -1.5}
    assert decode(b"\x17\x00\x00\x00\x00\x00\x00\xf0\x3f\x00") == {1: 1.0}  # little-endian
    assert math.isinf(decode(b"\x17" + struct.pack("<d", math.inf) + b"\x00")[1])
    assert decode(b"\x18\x03abc\x18\x00\x00") == {1: b"abc", 2: b""}
    assert decode(b"\x18" + varint(200) + b"x" * 200 + b"\x00") == {1: b"x" * 200}


def test_lists_and_sets() -> None:
    assert decode(b"\x19\x35\x02\x04\x06\x00") == {1: [1, 2, 3]}
    assert decode(b"\x1a\x25\x02\x04\x00") == {1: [1, 2]}  # a set decodes as a list
    assert decode(b"\x19\x05\x00") == {1: []}
    assert decode(b"\x19\x00\x00") == {1: []}  # an empty list of type 0
    # fifteen or more elements: size nibble 15 and a varint size
    assert decode(b"\x19\xf5\x0f" + b"\x02" * 15 + b"\x00") == {1: [1] * 15}
    assert decode(b"\x19\xf3\xac\x02" + b"\x07" * 300 + b"\x00") == {1: [7] * 300}
    assert decode(b"\x19\xe3" + b"\x01" * 14 + b"\x00") == {1: [1] * 14}
    # a list of structs, a list of lists
    assert decode(b"\x19\x2c\x15\x02\x00\x00\x00") == {1: [{1: 1}, {}]}
    assert decode(b"\x19\x29\x15\x02\x05\x00") == {1: [[1], []]}


def test_maps() -> None:
    assert decode(b"\x1b\x00\x00") == {1: {}}
    assert decode(b"\x1b\x02\x85\x01a\x02\x01b\x04\x00") == {1: {b"a": 1, b"b": 2}}
    assert decode(b"\x1b\x01\x5c\x02\x18\x01x\x00\x00") == {1: {1: {1: b"x"}}}
    with pytest.raises(ParquetError, match="map key that is a container"):
        decode(b"\x1b\x01\x95\x15\x02\x02\x00")


def test_nested_structs_and_stop() -> None:
    assert decode(b"\x1c\x1c\x15\x02\x00\x00\x15\x04\x00") == {1: {1: {1: 1}}, 2: 2}
    assert decode(b"\x00") == {}
    # the decoder stops at the stop byte and says how much it used
    assert read_struct(b"\x15\x02\x00\xff\xff", "test") == ({1: 1}, 3)


def test_a_field_seen_twice_keeps_the_last() -> None:
    assert decode(b"\x15\x02\x05\x02\x04\x00") == {1: 2}
    assert decode(b"\x18\x01a\x08\x02\x01b\x00") == {1: b"b"}


def test_uuid() -> None:
    value = bytes(range(16))
    assert decode(b"\x1d" + value + b"\x00") == {1: value}
    with pytest.raises(ParquetError, match="uuid"):
        decode(b"\x1d" + value[:10])


# --- round trip against the reference encoder -------------------------------------------------------------------

SCALARS = {
    BOOL: st.booleans(),
    BYTE: st.integers(-128, 127),
    I16: st.integers(-(2**15), 2**15 - 1),
    I32: st.integers(-(2**31), 2**31 - 1),
    I64: st.integers(-(2**63), 2**63 - 1),
    DOUBLE: st.floats(allow_nan=False),
    BINARY: st.binary(max_size=40),
}
FIELD_IDS = st.one_of(st.integers(1, 40), st.integers(-(2**15), 2**15 - 1))


@st.composite
def payloads(draw: st.DrawFn, kind: int, depth: int) -> Any:
    if kind in SCALARS:
        return draw(SCALARS[kind])
    if kind in (LIST, SET):
        element = draw(kinds(depth + 1))
        # sizes either side of 15, where the size moves out of the header's nibble
        return element, draw(st.lists(payloads(element, depth + 1), max_size=20))
    if kind == MAP:
        key_kind = draw(st.sampled_from([BYTE, I16, I32, I64, BINARY, BOOL]))
        value_kind = draw(kinds(depth + 1))
        entries = draw(st.lists(st.tuples(payloads(key_kind, depth + 1), payloads(value_kind, depth + 1)), max_size=5))
        return key_kind, value_kind, entries
    return draw(struct_payloads(depth + 1))


def kinds(depth: int) -> st.SearchStrategy[int]:
    return st.sampled_from(list(SCALARS) + ([LIST, SET, MAP, STRUCT] if depth < 4 else []))


@st.composite
def struct_payloads(draw: st.DrawFn, depth: int = 0) -> list[tuple[int, int, Any]]:
    fields = []
    for field in draw(st.lists(FIELD_IDS, max_size=8)):
        kind = draw(kinds(depth))
        fields.append((field, kind, draw(payloads(kind, depth))))
    return fields


@settings(max_examples=300, deadline=None)
@given(struct_payloads(), st.binary(max_size=8), st.integers(0, 2**40))
def test_round_trip(tree: list[tuple[int, int, Any]], trailing: bytes, base: int) -> None:
    data = encode_struct(tree)
    fields, used = read_struct(data + trailing, "test", base)
    assert fields == expected(STRUCT, tree)
    assert used == len(data)


# --- hostile input -----------------------------------------------------------------------------------------------

VALID = [
    b"\x15\x02\xf5\x04\x00",
    b"\x05\xfe\xff\x03\x06\x00",
    b"\x11\x12\x19\x31\x01\x02\x00\x00",
    b"\x17" + struct.pack("<d", 2.5) + b"\x18\x03abc\x00",
    b"\x19\xf3\x0f" + b"\x07" * 15 + b"\x1b\x02\x85\x01a\x02\x01b\x04\x1c\x1c\x15\x02\x00\x00\x00",
    b"\x1d" + bytes(16) + b"\x16\xfe" + b"\xff" * 8 + b"\x01\x00",
]


@pytest.mark.parametrize("data", VALID)
def test_every_truncation_raises_parquet_error(data: bytes) -> None:
    read_struct(data, "test")
    for n in range(len(data)):
        with pytest.raises(ParquetError, match=r"test: .* at byte \d+"):
            read_struct(data[:n], "test")


@settings(max_examples=100, deadline=None)
@given(struct_payloads())
def test_every_truncation_of_random_trees_raises(tree: list[tuple[int, int, Any]]) -> None:
    data = encode_struct(tree)
    # a proper prefix lacks the final stop byte, so it cannot decode
    for n in range(len(data)):
        with pytest.raises(ParquetError):
            read_struct(data[:n], "test")


def test_varints_too_long_or_too_large() -> None:
    with pytest.raises(ParquetError, match="longer than 10 bytes at byte 1"):
        read_struct(b"\x16" + b"\x80" * 10 + b"\x01\x00", "test")
    with pytest.raises(ParquetError, match="too large for an i32 at byte 1"):
        read_struct(b"\x15" + varint(2**32) + b"\x00", "test")
    with pytest.raises(ParquetError, match="too large for an i64"):
        read_struct(b"\x16" + varint(2**64) + b"\x00", "test")
    with pytest.raises(ParquetError, match="too large for an i16"):
        read_struct(b"\x14" + varint(2**16) + b"\x00", "test")
    # ten bytes are the most an i64 needs, and are accepted
    assert decode(b"\x16" + zigzag(-(2**63)) + b"\x00") == {1: -(2**63)}


def test_sizes_larger_than_the_bytes_left_fail_fast() -> None:
    # 2**31 elements announced in six bytes: refused before a list is built
    data = b"\xf5" + varint(2**31)
    assert len(data) == 6
    with pytest.raises(ParquetError, match=r"a list of 2147483648 elements with 0 bytes left at byte 500"):
        ThriftReader(data, "test", base=500).value(LIST, 0)
    with pytest.raises(ParquetError, match="a map of 1099511627776 elements"):
        read_struct(b"\x1b" + varint(2**40) + b"\x55\x00", "test")
    with pytest.raises(ParquetError, match="a binary of 4294967296 bytes with 1 left at byte 1"):
        read_struct(b"\x18" + varint(2**32) + b"\x00", "test")
    with pytest.raises(ParquetError, match="a list of 3 elements with 2 bytes left"):
        read_struct(b"\x19\x35\x02\x02", "test")


def nested(depth: int) -> bytes:
    return b"\x1c" * depth + b"\x00" * (depth + 1)


def test_nesting_limit() -> None:
    assert read_struct(nested(MAX_DEPTH), "test")[1] == 2 * MAX_DEPTH + 1
    with pytest.raises(ParquetError, match=f"nested more than {MAX_DEPTH} deep at byte {MAX_DEPTH + 1}"):
        read_struct(nested(MAX_DEPTH + 1), "test")
    lists = b"\x19" + b"\x19" * (MAX_DEPTH + 5) + b"\x00"
    with pytest.raises(ParquetError, match="nested more than"):
        read_struct(lists, "test")
    # far beyond Python's recursion limit: still a ParquetError
    with pytest.raises(ParquetError, match="nested more than"):
        read_struct(nested(100_000), "test")


@pytest.mark.parametrize("header", [0x1E, 0x1F, 0x10])
def test_unknown_field_types(header: int) -> None:
    with pytest.raises(ParquetError, match=f"field 1 has unknown compact type {header & 15} at byte 7"):
        read_struct(bytes([header, 0, 0]), "test", base=7)


def test_unknown_element_types() -> None:
    with pytest.raises(ParquetError, match="unknown compact type 14 at byte 2"):
        read_struct(b"\x19\x1e\x00\x00", "test")
    with pytest.raises(ParquetError, match="a list of type 0"):
        read_struct(b"\x19\x10\x00\x00", "test")
    with pytest.raises(ParquetError, match="unknown compact type 15"):
        read_struct(b"\x1b\x01\x5f\x02\x00\x00", "test")
    # an empty list of an unknown type holds nothing to misread
    assert decode(b"\x19\x0e\x00") == {1: []}


def test_error_messages_name_the_file_offset() -> None:
    with pytest.raises(
        ParquetError, match=r"^footer of f\.parquet: truncated: a value runs past the end at byte 1003$"
    ):
        read_struct(b"\x15\x02\x15", "footer of f.parquet", base=1000)
    with pytest.raises(ParquetError, match="a double runs past the end at byte 1001"):
        read_struct(b"\x17\x00\x00", "f", base=1000)


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 2**40))
def test_random_bytes_decode_or_raise_parquet_error(data: bytes, base: int) -> None:
    try:
        fields, used = read_struct(data, "test", base)
    except ParquetError as error:
        assert str(error).startswith("test: ")
        # the offset named lies within the bytes, or just past their end
        offset = int(str(error).rsplit("at byte ", 1)[1])
        assert base <= offset <= base + len(data)
    else:
        assert isinstance(fields, dict)
        assert 1 <= used <= len(data)


@settings(max_examples=300, deadline=None)
@given(struct_payloads(), st.data())
def test_flipped_bytes_of_valid_trees(tree: list[tuple[int, int, Any]], data: st.DataObject) -> None:
    encoded = bytearray(encode_struct(tree))
    position = data.draw(st.integers(0, len(encoded) - 1))
    encoded[position] ^= data.draw(st.integers(1, 255))
    try:
        fields, used = read_struct(bytes(encoded), "test")
    except ParquetError as error:
        assert "at byte" in str(error)
    else:
        assert isinstance(fields, dict) and 1 <= used <= len(encoded)
