"""Parquet split-block Bloom filters (SBBF): xxHash64 and the block insert/check of the Parquet specification.

A filter is ``z`` blocks of 256 bits; a block is eight little-endian 32-bit words. Here a filter is a ``uint32``
array of ``8 * z`` words (block ``b`` is ``words[8 * b : 8 * b + 8]``), which is exactly the bitset that follows the
``BloomFilterHeader`` in a Parquet file, read with ``np.frombuffer(bitset, "<u4")``.

Values are hashed with XXH64, seed 0, over their PLAIN encoding: 4 little-endian bytes for INT32 and FLOAT (and the
logical types stored as INT32: int8/int16/uint8/uint16/uint32 widened to int32, date32, ...), 8 for INT64 and DOUBLE,
and the bytes alone (no length prefix) for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.

The upper 32 bits of a hash choose the block, ``((h >> 32) * z) >> 32``; the lower 32 bits, multiplied by each of
the eight odd ``SALT`` constants, choose one bit (``>> 27``) in each of the block's eight words.

Kernels follow the conventions of :mod:`orcjit.kernels`: they never raise and never read outside their arrays.
Hashing kernels over many values return the number of values hashed, or
:data:`orcjit.kernels.status.BAD_LENGTH` if an offsets array points outside the data.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit
from ..errors import OrcError
from .status import BAD_LENGTH

__all__ = [
    "BYTES_PER_BLOCK",
    "MAX_BYTES",
    "MIN_BYTES",
    "SALT",
    "SIZING_TABLE",
    "bits_per_value",
    "block_index",
    "filter_from_bytes",
    "hash_plain",
    "new_filter",
    "optimal_num_bytes",
    "sbbf_check",
    "sbbf_check_many",
    "sbbf_insert",
    "sbbf_insert_many",
    "xxhash64",
    "xxhash64_fixed",
    "xxhash64_strings",
]

BYTES_PER_BLOCK = 32
WORDS_PER_BLOCK = 8
MIN_BYTES = 32  # one block
MAX_BYTES = 128 * 1024 * 1024  # the cap parquet-mr and Arrow put on a filter

SALT = np.array(
    [0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31],
    dtype=np.uint32,
)
_SALT64 = SALT.astype(np.uint64)

# XXH64 primes
_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
_MASK32 = np.uint64(0xFFFFFFFF)

# --------------------------------------------------------------------------------------------------------------------
# xxHash64


@jit
def _rotl(x, r):  # type: ignore[no-untyped-def]
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@jit
def _read64(buf, p):  # type: ignore[no-untyped-def]
    v = np.uint64(0)
    for j in range(8):
        v |= np.uint64(buf[p + j]) << np.uint64(8 * j)
    return v


@jit
def _read32(buf, p):  # type: ignore[no-untyped-def]
    v = np.uint64(0)
    for j in range(4):
        v |= np.uint64(buf[p + j]) << np.uint64(8 * j)
    return v


@jit
def _round(acc, lane):  # type: ignore[no-untyped-def]
    return _rotl(acc + lane * _P2, 31) * _P1


@jit
def _merge(acc, v):  # type: ignore[no-untyped-def]
    return (acc ^ _round(np.uint64(0), v)) * _P1 + _P4


@jit
def _avalanche(acc):  # type: ignore[no-untyped-def]
    acc ^= acc >> np.uint64(33)
    acc *= _P2
    acc ^= acc >> np.uint64(29)
    acc *= _P3
    acc ^= acc >> np.uint64(32)
    return acc


@jit
def xxhash64(buf, start, length, seed):  # type: ignore[no-untyped-def]
    """XXH64 of ``buf[start:start + length]`` (a ``uint8`` array) with ``seed``; a ``uint64``.

    The range is clipped to the buffer, so a bad range can give a wrong hash but never a bad read; callers pass
    ranges inside ``buf``.
    """
    n = buf.size
    if start < 0:
        start = 0
    if start > n:
        start = n
    if length < 0:
        length = 0
    if length > n - start:
        length = n - start
    s = np.uint64(seed)
    p = start
    end = start + length
    if length >= 32:
        v1 = s + _P1 + _P2
        v2 = s + _P2
        v3 = s
        v4 = s - _P1
        limit = end - 32
        while p <= limit:
            v1 = _round(v1, _read64(buf, p))
            v2 = _round(v2, _read64(buf, p + 8))
            v3 = _round(v3, _read64(buf, p + 16))
            v4 = _round(v4, _read64(buf, p + 24))
            p += 32
        acc = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
        acc = _merge(acc, v1)
        acc = _merge(acc, v2)
        acc = _merge(acc, v3)
        acc = _merge(acc, v4)
    else:
        acc = s + _P5
    acc += np.uint64(length)
    while p + 8 <= end:
        acc ^= _round(np.uint64(0), _read64(buf, p))
        acc = _rotl(acc, 27) * _P1 + _P4
        p += 8
    if p + 4 <= end:
        acc ^= _read32(buf, p) * _P1
        acc = _rotl(acc, 23) * _P2 + _P3
        p += 4
    while p < end:
        acc ^= np.uint64(buf[p]) * _P5
        acc = _rotl(acc, 11) * _P1
        p += 1
    return _avalanche(acc)


@jit
def _xxhash64_u32(v):  # type: ignore[no-untyped-def]
    """XXH64, seed 0, of the 4 little-endian bytes of the unsigned 32-bit value ``v`` (a ``uint64`` < 2**32)."""
    acc = _P5 + np.uint64(4)
    acc ^= v * _P1
    acc = _rotl(acc, 23) * _P2 + _P3
    return _avalanche(acc)


@jit
def _xxhash64_u64(v):  # type: ignore[no-untyped-def]
    """XXH64, seed 0, of the 8 little-endian bytes of the ``uint64`` ``v``."""
    acc = _P5 + np.uint64(8)
    acc ^= _round(np.uint64(0), v)
    acc = _rotl(acc, 27) * _P1 + _P4
    return _avalanche(acc)


@jit
def xxhash64_strings(data, offsets, out):  # type: ignore[no-untyped-def]
    """XXH64 (seed 0) of each value ``data[offsets[i]:offsets[i + 1]]`` into ``out[i]``.

    ``data`` is ``uint8``, ``offsets`` int32 or int64 with one more entry than values (Arrow's layout), ``out`` is
    ``uint64``. Returns the number of values, or ``BAD_LENGTH`` if the offsets decrease, leave ``data`` or ``out``
    is too short.
    """
    n = offsets.size - 1
    if n < 0:
        return 0
    if out.size < n:
        return BAD_LENGTH
    for i in range(n):
        s = np.int64(offsets[i])
        e = np.int64(offsets[i + 1])
        if s < 0 or e < s or e > data.size:
            return BAD_LENGTH
        out[i] = xxhash64(data, s, e - s, 0)
    return n


@jit
def xxhash64_fixed(buf, width, out):  # type: ignore[no-untyped-def]
    """XXH64 (seed 0) of each consecutive ``width``-byte value of ``buf`` into ``out``.

    ``buf`` is the values' PLAIN encoding as ``uint8`` (e.g. ``int32_array.view(np.uint8)`` on a little-endian
    machine); widths 4 and 8 take a fast path. Returns the number of values, or ``BAD_LENGTH`` if ``width`` is not
    positive, ``buf`` is not a whole number of values, or ``out`` is too short.
    """
    if width <= 0 or buf.size % width != 0:
        return BAD_LENGTH
    n = buf.size // width
    if out.size < n:
        return BAD_LENGTH
    if width == 4:
        for i in range(n):
            out[i] = _xxhash64_u32(_read32(buf, 4 * i))
    elif width == 8:
        for i in range(n):
            out[i] = _xxhash64_u64(_read64(buf, 8 * i))
    else:
        for i in range(n):
            out[i] = xxhash64(buf, i * width, width, 0)
    return n


def hash_plain(values: object) -> np.ndarray:
    """XXH64 hashes (``uint64``) of values as Parquet hashes them: over their PLAIN encoding, seed 0.

    ``values`` is a numpy array (int8/int16/int32/uint8/uint16/uint32 hash as INT32, int64/uint64 as INT64, float32
    as FLOAT, float64 as DOUBLE, fixed-width ``S``/void dtypes as FIXED_LEN_BYTE_ARRAY) or a sequence of ``str``
    (UTF-8) / ``bytes`` values (BYTE_ARRAY).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufSV":
        arr = values
        if arr.dtype.kind in "iu" and arr.dtype.itemsize < 4:
            # Parquet stores 8- and 16-bit integers as INT32: sign-extend (or zero-extend) to 4 bytes
            arr = arr.astype(np.int32 if arr.dtype.kind == "i" else np.uint32)
        arr = np.ascontiguousarray(arr)
        if arr.dtype.kind in "iuf":
            arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        width = arr.dtype.itemsize
        out = np.empty(arr.size, dtype=np.uint64)
        if arr.size == 0:
            return out
        if width == 0:
            raise OrcError("cannot hash zero-width values")
        raw = arr.reshape(-1).view(np.uint8)
        if xxhash64_fixed(raw, width, out) < 0:  # pragma: no cover - the layout is built above
            raise OrcError("values do not form whole fixed-width items")
        return out
    items = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]  # type: ignore[attr-defined]
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in items], out=offsets[1:])
    data = np.frombuffer(b"".join(items), dtype=np.uint8)
    out = np.empty(len(items), dtype=np.uint64)
    xxhash64_strings(data, offsets, out)
    return out


# --------------------------------------------------------------------------------------------------------------------
# split-block Bloom filter


@jit
def block_index(h, num_blocks):  # type: ignore[no-untyped-def]
    """The block a hash falls in: ``((h >> 32) * z) >> 32`` for ``z = num_blocks``."""
    return np.int64(((np.uint64(h) >> np.uint64(32)) * np.uint64(num_blocks)) >> np.uint64(32))


@jit
def sbbf_insert(words, h):  # type: ignore[no-untyped-def]
    """Insert the hash ``h`` into the filter ``words`` (``uint32``, 8 per block); an empty filter is left alone."""
    z = words.size // 8
    if z <= 0:
        return
    hh = np.uint64(h)
    base = 8 * block_index(hh, z)
    x = hh & _MASK32
    for i in range(8):
        y = (x * _SALT64[i]) & _MASK32
        words[base + i] |= np.uint32(np.uint64(1) << (y >> np.uint64(27)))


@jit
def sbbf_check(words, h):  # type: ignore[no-untyped-def]
    """False if ``h`` was certainly never inserted into ``words``; True ("maybe") otherwise, and for an empty
    filter (which cannot rule anything out)."""
    z = words.size // 8
    if z <= 0:
        return True
    hh = np.uint64(h)
    base = 8 * block_index(hh, z)
    x = hh & _MASK32
    for i in range(8):
        y = (x * _SALT64[i]) & _MASK32
        if ((np.uint64(words[base + i]) >> (y >> np.uint64(27))) & np.uint64(1)) == 0:
            return False
    return True


@jit
def sbbf_insert_many(words, hashes):  # type: ignore[no-untyped-def]
    """Insert every hash of ``hashes`` into ``words``."""
    for j in range(hashes.size):
        sbbf_insert(words, hashes[j])


@jit
def sbbf_check_many(words, hashes, out):  # type: ignore[no-untyped-def]
    """``out[j] = sbbf_check(words, hashes[j])``; returns the number of hashes that may be present."""
    count = 0
    n = min(hashes.size, out.size)
    for j in range(n):
        r = sbbf_check(words, hashes[j])
        out[j] = r
        if r:
            count += 1
    return count


def new_filter(num_bytes: int) -> np.ndarray:
    """An empty filter of ``num_bytes`` bytes (a positive multiple of 32) as ``uint32`` words."""
    if num_bytes < BYTES_PER_BLOCK or num_bytes % BYTES_PER_BLOCK:
        raise OrcError(f"a split-block Bloom filter holds whole 32-byte blocks, not {num_bytes} bytes")
    return np.zeros(num_bytes // 4, dtype=np.uint32)


def filter_from_bytes(bitset: bytes | bytearray | memoryview) -> np.ndarray:
    """The ``uint32`` words of a filter's bitset as stored in a Parquet file (after its BloomFilterHeader)."""
    size = len(bitset)
    if size < BYTES_PER_BLOCK or size % BYTES_PER_BLOCK:
        raise OrcError(f"a split-block Bloom filter bitset holds whole 32-byte blocks, not {size} bytes")
    return np.frombuffer(bitset, dtype="<u4").astype(np.uint32)


# --------------------------------------------------------------------------------------------------------------------
# sizing

# The specification's table: bits of filter per inserted value for a false-positive probability.
SIZING_TABLE: tuple[tuple[float, float], ...] = (
    (6.0, 0.10),
    (10.5, 0.01),
    (16.9, 0.001),
    (26.4, 0.0001),
    (41.0, 0.00001),
)


def bits_per_value(fpp: float) -> float:
    """Bits of filter per distinct value for a false-positive probability ``fpp`` (0 < fpp < 1).

    Interpolates the specification's table linearly in ``log(fpp)``, extending its end segments beyond it; below
    6 bits per value (fpp above 10 %) it uses the standard split-block estimate ``-8 / ln(1 - fpp ** (1/8))``,
    which meets the table's first row.
    """
    if not 0.0 < fpp < 1.0 or math.isnan(fpp):
        raise OrcError(f"false-positive probability must lie strictly between 0 and 1, got {fpp}")
    logs = [math.log(p) for _, p in SIZING_TABLE]
    bits = [b for b, _ in SIZING_TABLE]
    x = math.log(fpp)
    if x >= logs[0]:
        # fpp of 10 % or more: the block estimate, scaled to agree with the table at 10 %
        def estimate(p: float) -> float:
            return -8.0 / math.log(1.0 - p ** (1.0 / 8.0))

        return estimate(fpp) * bits[0] / estimate(SIZING_TABLE[0][1])
    for i in range(1, len(logs)):
        if x >= logs[i] or i == len(logs) - 1:
            x0, x1, y0, y1 = logs[i - 1], logs[i], bits[i - 1], bits[i]
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise AssertionError("unreachable")  # pragma: no cover


def optimal_num_bytes(ndv: int, fpp: float, *, power_of_two: bool = False) -> int:
    """Bytes of filter for ``ndv`` distinct values at false-positive probability ``fpp``.

    Whole 32-byte blocks, at least one block and at most ``MAX_BYTES``; with ``power_of_two`` rounded up to a power
    of two, as parquet-mr and Arrow size their filters.
    """
    if ndv < 0:
        raise OrcError(f"number of distinct values must not be negative, got {ndv}")
    bits = max(ndv, 1) * bits_per_value(fpp)
    num_bytes = math.ceil(bits / 8.0)
    num_bytes = max(MIN_BYTES, min(MAX_BYTES, num_bytes))
    if power_of_two:
        num_bytes = 1 << (num_bytes - 1).bit_length()
    else:
        num_bytes = -(-num_bytes // BYTES_PER_BLOCK) * BYTES_PER_BLOCK
    return min(num_bytes, MAX_BYTES)
