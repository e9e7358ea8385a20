"""A pure-Python RLE v2 encoder and decoder, written straight from the spec, used as the tests' reference.

The encoder emits any sub-encoding on request (any width of the width table, deprecated ones included, patch lists
with long gaps and wide patches), so property tests can reach runs that ordinary writers rarely produce.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
WIDTHS = [*range(1, 25), 26, 28, 30, 32, 40, 48, 56, 64]


def width_code(width: int) -> int:
    return WIDTHS.index(width)


def code_width(code: int) -> int:
    return WIDTHS[code]


def closest_fixed_bits(n: int) -> int:
    return next(w for w in WIDTHS if w >= max(n, 1))


def zigzag(v: int) -> int:
    return ((v << 1) ^ (v >> 63)) & MASK64


def unzigzag(u: int) -> int:
    return (u >> 1) ^ -(u & 1)


def to_signed64(u: int) -> int:
    u &= MASK64
    return u - (1 << 64) if u >> 63 else u


def uvarint(u: int) -> bytes:
    out = bytearray()
    while True:
        b = u & 0x7F
        u >>= 7
        if u:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pack_bits(values: list[int], width: int) -> bytes:
    acc = 0
    for v in values:
        assert 0 <= v < (1 << width), (v, width)
        acc = (acc << width) | v
    nbits = len(values) * width
    pad = (-nbits) % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big") if values else b""


def unpack_bits(data: bytes, pos: int, width: int, n: int) -> tuple[list[int], int]:
    nbytes = (n * width + 7) // 8
    chunk = data[pos : pos + nbytes]
    if len(chunk) < nbytes:
        raise ValueError("truncated")
    acc = int.from_bytes(chunk, "big") >> (nbytes * 8 - n * width) if n else 0
    return [(acc >> (width * (n - 1 - i))) & ((1 << width) - 1) for i in range(n)], pos + nbytes


def min_width(u: int) -> int:
    """Smallest table width that holds the unsigned value ``u``."""
    return next(w for w in WIDTHS if u < (1 << w))


# -- encoders ------------------------------------------------------------------------------------------------------


def short_repeat(value: int, count: int, signed: bool) -> bytes:
    assert 3 <= count <= 10
    u = zigzag(value) if signed else value & MASK64
    nbytes = max(1, (u.bit_length() + 7) // 8)
    return bytes([((nbytes - 1) << 3) | (count - 3)]) + u.to_bytes(nbytes, "big")


def direct(values: list[int], signed: bool, width: int | None = None) -> bytes:
    assert 1 <= len(values) <= 512
    us = [zigzag(v) if signed else v & MASK64 for v in values]
    width = width or min_width(max(us))
    n = len(values) - 1
    return bytes([0x40 | (width_code(width) << 1) | (n >> 8), n & 0xFF]) + pack_bits(us, width)


def delta(values: list[int], signed: bool, width: int | None = None) -> bytes:
    """Delta run; ``width=0`` requires every step to equal the first one."""
    assert 1 <= len(values) <= 512
    first = values[1] - values[0] if len(values) > 1 else 0
    steps = [abs(values[i] - values[i - 1]) for i in range(2, len(values))]
    if width is None:
        width = 0 if all(values[i] - values[i - 1] == first for i in range(1, len(values))) else min_width(max(steps))
    if width == 1:
        width = 2  # code 0 means "fixed step" in delta runs, so writers store 1-bit deltas at width 2
    code = 0 if width == 0 else width_code(width)
    n = len(values) - 1
    base = zigzag(values[0]) if signed else values[0]
    out = bytes([0xC0 | (code << 1) | (n >> 8), n & 0xFF]) + uvarint(base) + uvarint(zigzag(first))
    if width:
        assert len(values) >= 2
        assert all((values[i] - values[i - 1]) * (1 if first >= 0 else -1) >= 0 for i in range(2, len(values)))
        out += pack_bits(steps, width)
    return out


def patched_base(values: list[int], width: int, patch_width: int | None = None) -> bytes:
    """Patched-base run with the given value width; outliers above it go to the patch list (at most 31 entries)."""
    assert 1 <= len(values) <= 512
    base = min(values)
    adjusted = [v - base for v in values]
    assert all(0 <= a < (1 << 64) for a in adjusted)
    lows = [a & ((1 << width) - 1) for a in adjusted]
    patches = [(i, a >> width) for i, a in enumerate(adjusted) if a >> width]
    need = max((p.bit_length() for _, p in patches), default=1)
    patch_width = patch_width or min_width((1 << need) - 1)
    entries = []
    previous = 0
    for index, patch in patches:
        gap = index - previous
        while gap > 255:
            entries.append((255, 0))
            gap -= 255
        entries.append((gap, patch))
        previous = index
    assert len(entries) <= 31, "too many patches for one run"
    gap_width = max(1, max((g.bit_length() for g, _ in entries), default=1))
    entry_width = closest_fixed_bits(gap_width + patch_width)
    assert gap_width + patch_width <= 64
    magnitude = abs(base)
    base_bytes = max(1, (magnitude.bit_length() + 1 + 7) // 8)
    base_field = magnitude | ((1 << (base_bytes * 8 - 1)) if base < 0 else 0)
    n = len(values) - 1
    header = bytes(
        [
            0x80 | (width_code(width) << 1) | (n >> 8),
            n & 0xFF,
            ((base_bytes - 1) << 5) | width_code(patch_width),
            ((gap_width - 1) << 5) | len(entries),
        ]
    )
    packed_entries = pack_bits([(g << patch_width) | p for g, p in entries], entry_width)
    return header + base_field.to_bytes(base_bytes, "big") + pack_bits(lows, width) + packed_entries


# -- decoder -------------------------------------------------------------------------------------------------------


def read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result & MASK64, pos


def decode(data: bytes, signed: bool) -> list[int]:
    """Every value of an RLE v2 stream, as signed 64-bit ints (unsigned streams keep their bits)."""
    out: list[int] = []
    pos = 0
    while pos < len(data):
        h = data[pos]
        kind = h >> 6
        if kind == 0:
            nbytes = ((h >> 3) & 7) + 1
            u = int.from_bytes(data[pos + 1 : pos + 1 + nbytes], "big")
            if pos + 1 + nbytes > len(data):
                raise ValueError("truncated")
            out += [unzigzag(u) if signed else to_signed64(u)] * ((h & 7) + 3)
            pos += 1 + nbytes
            continue
        if pos + 2 > len(data):
            raise ValueError("truncated")
        n = (((h & 1) << 8) | data[pos + 1]) + 1
        code = (h >> 1) & 31
        if kind == 1:
            us, pos = unpack_bits(data, pos + 2, code_width(code), n)
            out += [unzigzag(u) if signed else to_signed64(u) for u in us]
        elif kind == 2:
            width = code_width(code)
            if pos + 4 > len(data):
                raise ValueError("truncated")
            h2, h3 = data[pos + 2], data[pos + 3]
            base_bytes = ((h2 >> 5) & 7) + 1
            patch_width = code_width(h2 & 31)
            gap_width = ((h3 >> 5) & 7) + 1
            count = h3 & 31
            p = pos + 4
            field = int.from_bytes(data[p : p + base_bytes], "big")
            sign = 1 << (base_bytes * 8 - 1)
            base = -(field & ~sign) if field & sign else field
            p += base_bytes
            lows, p = unpack_bits(data, p, width, n)
            entries, p = unpack_bits(data, p, closest_fixed_bits(gap_width + patch_width), count)
            index = 0
            for e in entries:
                index += e >> patch_width
                patch = e & ((1 << patch_width) - 1)
                if patch:
                    lows[index] |= patch << width
            out += [to_signed64(base + v) for v in lows]
            pos = p
        else:
            width = 0 if code == 0 else code_width(code)
            base, p = read_uvarint(data, pos + 2)
            first, p = read_uvarint(data, p)
            base = unzigzag(base) if signed else to_signed64(base)
            first = unzigzag(first)
            values = [base]
            if width == 0:
                values += [to_signed64(base + first * i) for i in range(1, n)]
            else:
                values.append(to_signed64(base + first))
                steps, p = unpack_bits(data, p, width, n - 2)
                for s in steps:
                    values.append(to_signed64(values[-1] + (s if first >= 0 else -s)))
            out += values
            pos = p
    return out
