"""Pure-Python reference decoders and encoders for varints, byte RLE, boolean RLE and RLE v1, for tests only.

The decoders work one byte or one value at a time, the plainest reading of ORCv1.md, independently of the Numba
kernels, and fail exactly where the kernels must: they raise :class:`RefError` with the kernel's result code and
the offset the kernel must put in ``state[ERROR_POS]``:

- a varint that runs past the end: TRUNCATED at its first byte; a tenth byte other than 0x00/0x01:
  VARINT_TOO_LONG at its first byte;
- a missing header byte or literal byte: TRUNCATED at its offset (the end of the data);
- a run whose value byte (byte RLE) or delta byte / first value (RLE v1) is cut off or too long: the code at the
  run's header.

Each decoder takes ``count`` and stops as soon as it has that many values, returning ``(values, position)``: the
position is after the last byte consumed, i.e. after the header of a run that was only partly used and after the
last literal used.

The encoders build valid streams. ``*_groups`` encoders take an explicit group list, so tests can produce runs and
literal lists of every length, in any order, and varints padded to any length up to ten bytes (non-canonical, but
valid); the plain encoders make the greedy choice an ORC writer makes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from orcjit.kernels.status import TRUNCATED, VARINT_TOO_LONG

MASK64 = (1 << 64) - 1
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


class RefError(Exception):
    """A reference decoder's failure: the kernel result ``code`` and the ``pos`` it must report."""

    def __init__(self, code: int, pos: int) -> None:
        super().__init__(code, pos)
        self.code = code
        self.pos = pos


def to_int64(u: int) -> int:
    """The int64 with the same 64 bits as ``u`` (taken modulo 2**64)."""
    u &= MASK64
    return u - (1 << 64) if u >> 63 else u


# -- varints ------------------------------------------------------------------------------------------------------


def zigzag_encode(v: int) -> int:
    """Signed int64 -> unsigned: 0, -1, 1, -2 become 0, 1, 2, 3."""
    return ((v << 1) ^ (v >> 63)) & MASK64


def zigzag_decode(u: int) -> int:
    """Unsigned (0 .. 2**64-1) -> signed int64."""
    return (u >> 1) ^ -(u & 1)


def encode_uvarint(u: int, length: int | None = None) -> bytes:
    """Varint of the uint64 ``u`` (an int64 is taken as its bits), padded with continuation bytes to ``length``."""
    u &= MASK64
    out = bytearray()
    while True:
        byte = u & 0x7F
        u >>= 7
        if u:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            break
    if length is not None:
        if not len(out) <= length <= 10:
            raise ValueError(f"cannot write a {len(out)}-byte varint in {length} bytes")
        while len(out) < length:
            out[-1] |= 0x80
            out.append(0)
    return bytes(out)


def encode_svarint(v: int, length: int | None = None) -> bytes:
    """Zigzag varint of the int64 ``v``."""
    return encode_uvarint(zigzag_encode(v), length)


def read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    """One varint at ``data[pos]`` as an unsigned int, and the position after it."""
    start = pos
    value = 0
    for i in range(10):
        if pos >= len(data):
            raise RefError(TRUNCATED, start)
        byte = data[pos]
        pos += 1
        if i == 9 and byte > 1:
            raise RefError(VARINT_TOO_LONG, start)
        value |= (byte & 0x7F) << (7 * i)
        if byte < 0x80:
            return value, pos
    raise AssertionError("unreachable: the tenth byte either ends the varint or is rejected")


def decode_varints(data: bytes, count: int, signed: bool, pos: int = 0) -> tuple[list[int], int]:
    """``count`` varints as int64 values (zigzag-decoded when ``signed``)."""
    out = []
    for _ in range(count):
        u, pos = read_uvarint(data, pos)
        out.append(zigzag_decode(u) if signed else to_int64(u))
    return out, pos


# -- byte RLE -----------------------------------------------------------------------------------------------------


def encode_byte_rle_groups(groups: Iterable[tuple[str, object]]) -> bytes:
    """Encode explicit groups: ``("run", (byte, n))`` (3 <= n <= 130) or ``("lit", bytes)`` (1..128 bytes)."""
    out = bytearray()
    for kind, payload in groups:
        if kind == "run":
            byte, n = payload  # type: ignore[misc]
            assert 3 <= n <= 130 and 0 <= byte <= 255
            out += bytes([n - 3, byte])
        else:
            lit = bytes(payload)  # type: ignore[arg-type]
            assert 1 <= len(lit) <= 128
            out.append(256 - len(lit))
            out += lit
    return bytes(out)


def byte_groups_values(groups: Iterable[tuple[str, object]]) -> list[int]:
    """The bytes the groups stand for."""
    out: list[int] = []
    for kind, payload in groups:
        if kind == "run":
            byte, n = payload  # type: ignore[misc]
            out += [byte] * n
        else:
            out += list(bytes(payload))  # type: ignore[arg-type]
    return out


def encode_byte_rle(values: Sequence[int]) -> bytes:
    """Greedy writer: runs of 3 or more equal bytes (up to 130), literal lists of the rest (up to 128)."""
    groups: list[tuple[str, object]] = []
    literal: list[int] = []
    i = 0
    n = len(values)
    while i < n:
        j = i
        while j < n and j - i < 130 and values[j] == values[i]:
            j += 1
        if j - i >= 3:
            if literal:
                groups.append(("lit", bytes(literal)))
                literal = []
            groups.append(("run", (values[i] & 0xFF, j - i)))
            i = j
        else:
            literal.append(values[i] & 0xFF)
            if len(literal) == 128:
                groups.append(("lit", bytes(literal)))
                literal = []
            i += 1
    if literal:
        groups.append(("lit", bytes(literal)))
    return encode_byte_rle_groups(groups)


def decode_byte_rle(data: bytes, count: int, pos: int = 0) -> tuple[list[int], int]:
    """``count`` byte values."""
    out: list[int] = []
    while len(out) < count:
        if pos >= len(data):
            raise RefError(TRUNCATED, pos)
        header = data[pos]
        if header < 0x80:
            if pos + 1 >= len(data):
                raise RefError(TRUNCATED, pos)
            out += [data[pos + 1]] * min(header + 3, count - len(out))
            pos += 2
        else:
            pos += 1
            for _ in range(256 - header):
                if len(out) == count:
                    break
                if pos >= len(data):
                    raise RefError(TRUNCATED, pos)
                out.append(data[pos])
                pos += 1
    return out, pos


# -- boolean RLE --------------------------------------------------------------------------------------------------


def pack_bits(bits: Sequence[int | bool]) -> bytes:
    """Bits to bytes, most significant bit first, the last byte padded with zeros."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i >> 3] |= 0x80 >> (i & 7)
    return bytes(out)


def encode_boolean_rle(bits: Sequence[int | bool]) -> bytes:
    """Pack the bits and byte-RLE the bytes greedily."""
    return encode_byte_rle(pack_bits(bits))


def decode_boolean_rle(data: bytes, count: int, pos: int = 0) -> tuple[list[int], int]:
    """``count`` bits (0/1); consumes the ``ceil(count / 8)`` bytes holding them."""
    packed, pos = decode_byte_rle(data, (count + 7) // 8, pos)
    bits = [(byte >> (7 - k)) & 1 for byte in packed for k in range(8)]
    return bits[:count], pos


# -- RLE v1 -------------------------------------------------------------------------------------------------------


def encode_rle_v1_groups(groups: Iterable[tuple[str, object]], signed: bool, varint_length: int | None = None) -> bytes:
    """Encode explicit groups: ``("run", (first, delta, n))`` (-128 <= delta <= 127, 3 <= n <= 130) or
    ``("lit", values)`` (1..128 values); values are int64 (unsigned streams store their bits).
    ``varint_length`` pads every varint that fits to that many bytes."""
    enc = encode_svarint if signed else encode_uvarint

    def varint(v: int) -> bytes:
        plain = enc(v)
        return enc(v, varint_length) if varint_length and len(plain) <= varint_length else plain

    out = bytearray()
    for kind, payload in groups:
        if kind == "run":
            first, delta, n = payload  # type: ignore[misc]
            assert 3 <= n <= 130 and -128 <= delta <= 127
            out += bytes([n - 3, delta & 0xFF])
            out += varint(first)
        else:
            values = list(payload)  # type: ignore[call-overload]
            assert 1 <= len(values) <= 128
            out.append(256 - len(values))
            for v in values:
                out += varint(v)
    return bytes(out)


def rle_v1_groups_values(groups: Iterable[tuple[str, object]]) -> list[int]:
    """The int64 values the groups stand for (run arithmetic wraps at 64 bits)."""
    out: list[int] = []
    for kind, payload in groups:
        if kind == "run":
            first, delta, n = payload  # type: ignore[misc]
            out += [to_int64(first + k * delta) for k in range(n)]
        else:
            out += [to_int64(v) for v in payload]  # type: ignore[attr-defined]
    return out


def encode_rle_v1(values: Sequence[int], signed: bool) -> bytes:
    """Greedy writer: runs of 3 or more values with one delta in -128..127 (up to 130), literals otherwise."""
    groups: list[tuple[str, object]] = []
    literal: list[int] = []
    i = 0
    n = len(values)
    while i < n:
        j = i + 1
        if i + 2 < n:
            delta = values[i + 1] - values[i]
            if -128 <= delta <= 127:
                while j < n and j - i < 130 and values[j] - values[j - 1] == delta:
                    j += 1
        if j - i >= 3:
            if literal:
                groups.append(("lit", literal))
                literal = []
            groups.append(("run", (values[i], values[i + 1] - values[i], j - i)))
            i = j
        else:
            literal.append(values[i])
            if len(literal) == 128:
                groups.append(("lit", literal))
                literal = []
            i += 1
    if literal:
        groups.append(("lit", literal))
    return encode_rle_v1_groups(groups, signed)


def decode_rle_v1(data: bytes, count: int, signed: bool, pos: int = 0) -> tuple[list[int], int]:
    """``count`` int64 values."""
    out: list[int] = []
    while len(out) < count:
        if pos >= len(data):
            raise RefError(TRUNCATED, pos)
        header = data[pos]
        if header < 0x80:
            if pos + 1 >= len(data):
                raise RefError(TRUNCATED, pos)
            delta = data[pos + 1] - 256 if data[pos + 1] >= 0x80 else data[pos + 1]
            try:
                u, after = read_uvarint(data, pos + 2)
            except RefError as e:
                raise RefError(e.code, pos) from None
            first = zigzag_decode(u) if signed else u
            for k in range(min(header + 3, count - len(out))):
                out.append(to_int64(first + k * delta))
            pos = after
        else:
            pos += 1
            for _ in range(256 - header):
                if len(out) == count:
                    break
                u, pos = read_uvarint(data, pos)
                out.append(zigzag_decode(u) if signed else to_int64(u))
    return out, pos
