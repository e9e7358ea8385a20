"""ORC bloom filters: hashing values as ORC writers do, and testing hashes against BLOOM_FILTER(_UTF8) entries.

Every row group of a column with a bloom filter has one entry: ``k`` (``numHashFunctions``) and a bitset of ``m``
bits, ``m = 64 * len(longs)``. The bitset is stored as repeated ``fixed64`` longs (``bitset``, the original
BLOOM_FILTER stream) or as the same longs' little-endian bytes (``utf8bitset``, the BLOOM_FILTER_UTF8 stream that
ORC-101 introduced). Bit ``p`` is bit ``p & 63`` of long ``p >> 6``.

A value is first reduced to a 64-bit hash:

- string, varchar, char, binary, and decimal (as its canonical string, below): Murmur3 ``hash64`` with seed 104729,
  the 64-bit variant ORC Java's ``Murmur3.hash64`` and ORC C++'s ``Murmur3::hash64`` implement (8-byte
  little-endian blocks, one tail block, then ``fmix64``), over the UTF-8 bytes;
- tinyint, smallint, int, bigint, boolean (0/1), date (days since 1970-01-01) and timestamp (milliseconds, below):
  Thomas Wang's 64-bit integer hash of the value as a signed long;
- float and double: the same integer hash of the IEEE-754 bits of the value as a double (floats are widened first);
  ORC Java canonicalises NaN (``Double.doubleToLongBits``), ORC C++ hashes the raw bits.

The hash splits into ``h1`` (low 32 bits) and ``h2`` (high 32 bits) as signed 32-bit ints; probe ``i`` for
``i = 1 .. k`` is ``c = h1 + i * h2`` in 32-bit arithmetic, ``~c`` if negative, and sets bit ``c % m``.

Writer behaviour verified against real files (pyarrow 26 / ORC C++ 2.2, pyorc / ORC C++ 2.3, Spark 4 / ORC Java
2.3), beyond what the specification states:

- decimals hash as their plain string without trailing fractional zeros (``45.40`` as ``"45.4"``, ``100`` as
  ``"100"``, zero as ``"0"``);
- timestamps hash as milliseconds since 1970-01-01 of the *wall clock* read as UTC, whatever the writer's time zone;
  ORC Java and pyorc floor (``floor(ns / 1e6)``), pyarrow (which hands ORC C++ truncated seconds and signed
  nanoseconds) truncates toward zero, which differs for timestamps before 1970 with a sub-millisecond part;
  timestamp with local time zone hashes the instant's UTC milliseconds;
  the BLOOM_FILTER stream ORC Java writes beside BLOOM_FILTER_UTF8 (``orc.bloom.filter.write.version=original``)
  hashes a timestamp's instant in the writer's time zone instead, as writers before ORC-135 did everywhere;
- ORC Java never adds booleans (their filters are empty); ORC C++ adds them as 0 and 1;
- ORC C++ adds wrong hashes for many tinyint values (the writer overwrites the values it later hashes) and for
  char values shorter than the column (it hashes the unpadded buffer with the padded length);
- early Hive 1.2 development builds wrote a different message (entry count, fpp and varint longs in fields 1-3;
  the shared ``over1k_bloom.orc``): read with this module's message it has ``k = 10000`` over 64 bits, which
  :func:`parse_bloom_filter_index` rejects.

:func:`bloom_filter_reliable` says which (type, writer) pairs a reader may use to skip row groups.

Pruning tests a stream's filters where they lie (:func:`bloom_filter_index_may_contain`): a stripe of two million
rows holds 200 filters of 12 KB for one column, and a lookup probes a handful of bits of each, so parsing them into
protobuf objects or stacking their bits would cost more than the test. :func:`read_bloom_filter_index` stacks them
for people looking at a file (:class:`orcjit.indexes.BloomFilterIndex`).

Kernels follow :mod:`orcjit.kernels`: they never raise and never read outside their arrays. A filter test that
cannot be decided (no bits, ``k <= 0``, ``m`` beyond the bitset) answers True, "maybe".
"""

from __future__ import annotations

import datetime
import decimal
import math
import struct
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._jit import jit
from .._proto import orc_proto_pb2 as pb
from ..errors import OrcError
from ..stripes import BLOOM_FILTER, BLOOM_FILTER_UTF8
from ..tail import parse_message
from ..types.kinds import BYTES_KINDS, FLOAT_KINDS, INTEGER_KINDS, TIMESTAMP_KINDS
from .protobuf import BYTES, VARINT, count_messages, key, skip, span, varint
from .status import BAD_LENGTH, BAD_VALUE, ERROR_POS, new_state
from .varint import as_buffer

__all__ = [
    "BLOOM_FILTER",
    "BLOOM_FILTER_UTF8",
    "CANONICAL_NAN_BITS",
    "MAX_HASH_FUNCTIONS",
    "SEED",
    "bloom_filter_index_may_contain",
    "bloom_filter_reliable",
    "bloom_test",
    "bloom_test_filters",
    "bloom_test_many",
    "chunked_bloom_filter_index_may_contain",
    "decimal_bloom_string",
    "filters_may_contain",
    "hash_candidates",
    "hash_doubles",
    "hash_longs",
    "hash_strings",
    "hash_value",
    "murmur3_hash64",
    "parse_bloom_filter_index",
    "probe_bloom_filter_index",
    "probe_chunked_bloom_filter_index",
    "read_bloom_filter_index",
    "stack_filters",
    "wang_hash64",
]

SEED = 104729  # ORC's Murmur3 seed
CANONICAL_NAN_BITS = 0x7FF8000000000000  # Double.doubleToLongBits(NaN)
# k is about -log2(fpp); 1024 needs an fpp below 1e-308, so anything above is not a real filter
MAX_HASH_FUNCTIONS = 1024


_C1 = np.uint64(0x87C37B91114253D5)
_C2 = np.uint64(0x4CF5AD432745937F)
_F1 = np.uint64(0xFF51AFD7ED558CCD)
_F2 = np.uint64(0xC4CEB9FE1A85EC53)
_M5 = np.uint64(5)
_N1 = np.uint64(0x52DCE729)
_MASK32 = np.uint64(0xFFFFFFFF)
_CANONICAL_NAN = np.int64(CANONICAL_NAN_BITS)

# --------------------------------------------------------------------------------------------------------------------
# hashes


@jit
def _rotl(x, r):  # type: ignore[no-untyped-def]
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@jit
def _fmix64(h):  # type: ignore[no-untyped-def]
    h ^= h >> np.uint64(33)
    h *= _F1
    h ^= h >> np.uint64(33)
    h *= _F2
    h ^= h >> np.uint64(33)
    return h


@jit
def _mix_block(k):  # type: ignore[no-untyped-def]
    k *= _C1
    k = _rotl(k, 31)
    return k * _C2


@jit
def murmur3_hash64(buf, start, length, seed):  # type: ignore[no-untyped-def]
    """ORC's Murmur3 ``hash64`` of ``buf[start:start + length]`` (a ``uint8`` array); a ``uint64``.

    ORC hashes with ``seed = SEED``. The range is clipped to the buffer, so a bad range can give a wrong hash but
    never a bad read; callers pass ranges inside ``buf``.
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
    h = np.uint64(seed)
    nblocks = length >> 3
    for b in range(nblocks):
        p = start + (b << 3)
        k = np.uint64(0)
        for j in range(8):
            k |= np.uint64(buf[p + j]) << np.uint64(8 * j)
        h ^= _mix_block(k)
        h = _rotl(h, 27) * _M5 + _N1
    tail = length & 7
    if tail:
        p = start + (nblocks << 3)
        k = np.uint64(0)
        for j in range(tail):
            k |= np.uint64(buf[p + j]) << np.uint64(8 * j)
        h ^= _mix_block(k)
    h ^= np.uint64(length)
    return _fmix64(h)


@jit
def wang_hash64(x):  # type: ignore[no-untyped-def]
    """Thomas Wang's 64-bit integer hash of the signed long ``x`` (arithmetic shifts, wrapping); a ``uint64``."""
    key = np.int64(x)
    key = (~key) + (key << 21)
    key = key ^ (key >> 24)
    key = (key + (key << 3)) + (key << 8)
    key = key ^ (key >> 14)
    key = (key + (key << 2)) + (key << 4)
    key = key ^ (key >> 28)
    key = key + (key << 31)
    return np.uint64(key)


@jit
def hash_strings(data, offsets, out):  # type: ignore[no-untyped-def]
    """Murmur3 ``hash64`` (seed ``SEED``) of each ``data[offsets[i]:offsets[i + 1]]`` into ``out[i]`` (``uint64``).

    ``data`` is ``uint8`` and ``offsets`` int32 or int64 with one more entry than values, as in an Arrow string or
    binary array. Returns the number of values, or ``BAD_LENGTH`` if the offsets decrease or leave ``data``, or
    ``out`` is too short.
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
        out[i] = murmur3_hash64(data, s, e - s, SEED)
    return n


@jit
def hash_longs(values, out):  # type: ignore[no-untyped-def]
    """Thomas Wang's hash of each integer of ``values`` (any integer dtype, taken as a signed long) into ``out``.

    Returns the number of values hashed (``min`` of the two sizes).
    """
    n = min(values.size, out.size)
    for i in range(n):
        out[i] = wang_hash64(np.int64(values[i]))
    return n


@jit
def hash_doubles(values, out):  # type: ignore[no-untyped-def]
    """The hash ORC Java adds for each float or double of ``values``: Wang's hash of the value's bits as a double.

    float32 values are widened to double first; every NaN hashes as the canonical NaN (``doubleToLongBits``).
    Returns the number of values hashed.
    """
    n = min(values.size, out.size)
    scratch = np.empty(1, dtype=np.float64)
    bits = scratch.view(np.int64)
    for i in range(n):
        v = np.float64(values[i])
        if v != v:
            out[i] = wang_hash64(_CANONICAL_NAN)
        else:
            scratch[0] = v
            out[i] = wang_hash64(bits[0])
    return n


# --------------------------------------------------------------------------------------------------------------------
# filter tests


@jit
def _probe_all(bits, num_bits, k, h):  # type: ignore[no-untyped-def]
    """True if every one of the ``k`` probes of ``h`` finds its bit set; the caller has checked the arguments."""
    hh = np.uint64(h)
    h1 = np.int64(hh & _MASK32)
    h2 = np.int64(hh >> np.uint64(32))
    if h1 >= 0x80000000:
        h1 -= 0x100000000
    if h2 >= 0x80000000:
        h2 -= 0x100000000
    for i in range(1, k + 1):
        c = (h1 + i * h2) & 0xFFFFFFFF
        if c >= 0x80000000:
            # negative as a 32-bit int: flip every bit, which gives 0 .. 2**31 - 1
            c = 0xFFFFFFFF - c
        pos = c % num_bits
        word = np.uint64(bits[pos >> 6])
        if ((word >> np.uint64(pos & 63)) & np.uint64(1)) == 0:
            return False
    return True


@jit
def _decidable(bits, num_bits, k):  # type: ignore[no-untyped-def]
    return k > 0 and num_bits > 0 and num_bits <= 64 * bits.size


@jit
def bloom_test(bits, num_bits, k, hash64):  # type: ignore[no-untyped-def]
    """False if the value hashing to ``hash64`` is certainly not in the filter; True ("maybe") otherwise.

    ``bits`` holds the filter's longs (``uint64``), ``num_bits`` is ``m`` (``64 * bits.size`` for every ORC
    writer), ``k`` the number of hash functions. A filter that cannot be decided answers True.
    """
    if not _decidable(bits, num_bits, k):
        return True
    return _probe_all(bits, num_bits, k, hash64)


@jit
def bloom_test_many(bits, num_bits, k, hashes, out):  # type: ignore[no-untyped-def]
    """``out[j] = bloom_test(bits, num_bits, k, hashes[j])``; returns how many hashes may be present."""
    n = min(hashes.size, out.size)
    if not _decidable(bits, num_bits, k):
        for j in range(n):
            out[j] = True
        return n
    count = 0
    for j in range(n):
        r = _probe_all(bits, num_bits, k, hashes[j])
        out[j] = r
        if r:
            count += 1
    return count


@jit
def bloom_test_filters(bits2d, num_bits, ks, hashes, out):  # type: ignore[no-untyped-def]
    """Test hashes against many filters at once: ``out[f]`` is True if any of ``hashes`` may be in filter ``f``.

    ``bits2d`` is ``[n_filters, n_longs]`` (``uint64``, shorter filters padded with zeros), ``num_bits`` and ``ks``
    give each filter's ``m`` and ``k``, as :func:`stack_filters` builds them. One hash answers "may the value be in
    this row group"; several answer it for an IN list or for the candidates of :func:`hash_candidates`. Returns the
    number of filters that may hold a value.
    """
    nf = min(bits2d.shape[0], num_bits.size, ks.size, out.size)
    count = 0
    for f in range(nf):
        row = bits2d[f]
        m = np.int64(num_bits[f])
        k = np.int64(ks[f])
        hit = True
        if _decidable(row, m, k):
            hit = False
            for j in range(hashes.size):
                if _probe_all(row, m, k, hashes[j]):
                    hit = True
                    break
        out[f] = hit
        if hit:
            count += 1
    return count


# --------------------------------------------------------------------------------------------------------------------
# reading filters


def parse_bloom_filter_index(raw: bytes, what: str = "bloom filter index") -> list[tuple[int, np.ndarray]]:
    """The entries of a decompressed BLOOM_FILTER or BLOOM_FILTER_UTF8 stream: one ``(k, longs)`` per row group.

    ``longs`` is a ``uint64`` array, ``m = 64 * longs.size``; ``utf8bitset`` bytes are read as little-endian longs,
    the legacy ``bitset`` field as is (an entry with both uses ``utf8bitset``).

    Raises
    ------
    OrcError
        If the bytes are not a BloomFilterIndex message, or an entry has no bits, a ``utf8bitset`` that is not whole
        longs, or a ``k`` outside ``1 .. min(m, MAX_HASH_FUNCTIONS)`` (the early Hive layout of ``over1k_bloom.orc``
        reads as ``k = 10000`` over 64 bits). A reader treats such a stream as "maybe" for every row group.
    """
    index = parse_message(pb.BloomFilterIndex, bytes(raw), what)
    entries: list[tuple[int, np.ndarray]] = []
    for i, entry in enumerate(index.bloomFilter):
        k = int(entry.numHashFunctions)
        if entry.HasField("utf8bitset") and len(entry.utf8bitset) > 0:
            data = bytes(entry.utf8bitset)
            if len(data) % 8:
                raise OrcError(f"{what}: entry {i} has a utf8bitset of {len(data)} bytes, not whole 8-byte longs")
            bits = np.frombuffer(data, dtype="<u8").astype(np.uint64)
        else:
            bits = np.array(entry.bitset, dtype=np.uint64)
        num_bits = 64 * bits.size
        if num_bits == 0:
            raise OrcError(f"{what}: entry {i} has an empty bitset")
        if not 1 <= k <= min(num_bits, MAX_HASH_FUNCTIONS):
            raise OrcError(f"{what}: entry {i} has {k} hash functions for {num_bits} bits; not a filter ORC writes")
        entries.append((k, bits))
    return entries


def stack_filters(
    entries: Sequence[tuple[int, np.ndarray]], what: str = "bloom filter index"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(bits2d, num_bits, ks)`` for :func:`bloom_test_filters` from ``(k, longs)`` entries (e.g. every row group
    of a column across stripes). Filters of different sizes are padded with zeros; each keeps its own ``m``.

    Raises
    ------
    OrcError
        If the padding would take far more memory than the filters' own bits (see :func:`_check_padding`).
    """
    n = len(entries)
    width = max((bits.size for _, bits in entries), default=0)
    _check_padding(n, width, 8 * sum(bits.size for _, bits in entries), what)
    bits2d = np.zeros((n, width), dtype=np.uint64)
    num_bits = np.zeros(n, dtype=np.int64)
    ks = np.zeros(n, dtype=np.int64)
    for f, (k, bits) in enumerate(entries):
        bits2d[f, : bits.size] = bits
        num_bits[f] = 64 * bits.size
        ks[f] = k
    return bits2d, num_bits, ks


@jit
def scan_bloom_filter_index(buf, ks, starts, lengths, state):  # type: ignore[no-untyped-def]
    """Per entry of the BloomFilterIndex ``buf``: ``k`` and the span of its ``utf8bitset`` (length 0 if absent).

    Returns the number of entries, or a negative code with the failing field's offset in ``state``.
    """
    pos = 0
    end = buf.size
    row = 0
    while pos < end:
        at = pos
        number, wire, pos = key(buf, pos, end)
        if pos >= 0 and number == 1 and wire == BYTES and row < ks.size:
            start, stop = span(buf, pos, end)
            if stop < 0:
                state[ERROR_POS] = at
                return stop
            p = start
            while p < stop:
                at = p
                number, wire, p = key(buf, p, stop)
                if p >= 0 and number == 1 and wire == VARINT:
                    k, p = varint(buf, p, stop)
                    ks[row] = k & 0xFFFFFFFF  # uint32, as the protobuf runtime keeps it
                elif p >= 0 and number == 3 and wire == BYTES:
                    first, p = span(buf, p, stop)
                    if p >= 0:
                        starts[row] = first
                        lengths[row] = p - first
                elif p >= 0 and number == 2 and wire == BYTES:
                    first, p = span(buf, p, stop)
                    if p >= 0 and (p - first) % 8:
                        p = BAD_LENGTH  # packed fixed64 longs come in whole eights, or the runtime rejects them
                elif p >= 0:
                    p = skip(buf, p, stop, wire)
                if p < 0:
                    state[ERROR_POS] = at
                    return p
            row += 1
            pos = stop
        elif pos >= 0:
            pos = skip(buf, pos, end, wire)
        if pos < 0:
            state[ERROR_POS] = at
            return pos
    return row


def read_bloom_filter_index(raw: bytes, what: str = "bloom filter index") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``stack_filters(parse_bloom_filter_index(raw, what))``, read without the protobuf runtime when every entry
    is a well-formed ``utf8bitset`` (what every writer since ORC-101 writes): one pass over the bytes, one copy of
    the bits. Anything else (legacy ``bitset`` longs, an entry to reject, a malformed message) goes the runtime's
    way, so results and errors are those of :func:`parse_bloom_filter_index`.
    """
    buf = as_buffer(raw)
    state = new_state()
    n = count_messages(buf, 1, state)
    if n > 0:
        ks = np.zeros(n, dtype=np.int64)
        starts = np.zeros(n, dtype=np.int64)
        lengths = np.zeros(n, dtype=np.int64)
        if scan_bloom_filter_index(buf, ks, starts, lengths, state) == n:
            num_bits = 8 * lengths
            width = int(lengths.max()) // 8
            if (
                lengths.min() > 0
                and not (lengths % 8).any()
                and ks.min() >= 1
                and (ks <= np.minimum(num_bits, MAX_HASH_FUNCTIONS)).all()
            ):
                _check_padding(n, width, int(lengths.sum()), what)
                bits2d = np.zeros((n, width), dtype=np.uint64)
                rows = bits2d.view(np.uint8)
                for i, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
                    rows[i, :length] = buf[start : start + length]
                if sys.byteorder != "little":  # pragma: no cover - the bytes are little-endian longs
                    bits2d.byteswap(inplace=True)
                return bits2d, num_bits, ks
    return stack_filters(parse_bloom_filter_index(raw, what), what)


@jit
def _probe_bytes(buf, start, num_bits, k, h):  # type: ignore[no-untyped-def]
    """:func:`_probe_all` over a bitset held as little-endian longs' bytes at ``buf[start:]`` (bit ``p`` is bit
    ``p & 7`` of byte ``p >> 3``); the caller has checked that ``num_bits // 8`` bytes are there."""
    hh = np.uint64(h)
    h1 = np.int64(hh & _MASK32)
    h2 = np.int64(hh >> np.uint64(32))
    if h1 >= 0x80000000:
        h1 -= 0x100000000
    if h2 >= 0x80000000:
        h2 -= 0x100000000
    for i in range(1, k + 1):
        c = (h1 + i * h2) & 0xFFFFFFFF
        if c >= 0x80000000:
            c = 0xFFFFFFFF - c
        pos = c % num_bits
        if ((buf[start + (pos >> 3)] >> (pos & 7)) & 1) == 0:
            return False
    return True


@jit
def probe_bloom_filter_index(buf, hashes, out, lengths, state):  # type: ignore[no-untyped-def]
    """Test ``hashes`` against every entry of the BloomFilterIndex ``buf`` in place: ``out[row]`` is True if any
    hash may be in entry ``row``'s filter, ``lengths[row]`` the bytes of its ``utf8bitset``.

    Only entries as every writer since ORC-101 makes them are tested here: a ``utf8bitset`` of whole longs and
    ``1 <= k <= min(m, MAX_HASH_FUNCTIONS)``, the protobuf rules of :func:`scan_bloom_filter_index` (the last
    ``k`` and the last ``utf8bitset`` count). Returns the number of entries, or a negative code (with the failing
    field's offset in ``state``) for a malformed message or any other entry: the caller then takes the runtime's
    way, which reads legacy ``bitset`` longs and raises the runtime's errors.
    """
    pos = 0
    end = buf.size
    row = 0
    while pos < end:
        at = pos
        number, wire, pos = key(buf, pos, end)
        if pos < 0:
            state[ERROR_POS] = at
            return pos
        if number == 1 and wire == BYTES:
            start, stop = span(buf, pos, end)
            if stop < 0 or row >= out.size:
                state[ERROR_POS] = at
                return stop if stop < 0 else BAD_LENGTH
            k = np.int64(0)
            first = np.int64(0)
            length = np.int64(0)
            p = start
            while p < stop:
                at = p
                number, wire, p = key(buf, p, stop)
                if p >= 0 and number == 1 and wire == VARINT:
                    v, p = varint(buf, p, stop)
                    k = v & 0xFFFFFFFF  # uint32, as the protobuf runtime keeps it
                elif p >= 0 and number == 3 and wire == BYTES:
                    first, p = span(buf, p, stop)
                    if p >= 0:
                        length = p - first
                elif p >= 0 and number == 2 and wire == BYTES:
                    inner, p = span(buf, p, stop)
                    if p >= 0 and (p - inner) % 8:
                        p = BAD_LENGTH  # packed fixed64 longs come in whole eights, or the runtime rejects them
                elif p >= 0:
                    p = skip(buf, p, stop, wire)
                if p < 0:
                    state[ERROR_POS] = at
                    return p
            num_bits = 8 * length
            if length <= 0 or length % 8 or k < 1 or k > min(num_bits, MAX_HASH_FUNCTIONS):
                state[ERROR_POS] = start
                return BAD_VALUE
            hit = False
            for j in range(hashes.size):
                if _probe_bytes(buf, first, num_bits, k, hashes[j]):
                    hit = True
                    break
            out[row] = hit
            lengths[row] = length
            row += 1
            pos = stop
        else:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                state[ERROR_POS] = at
                return pos
    return row


@jit
def _chunk_of(starts, at, c):  # type: ignore[no-untyped-def]
    """The chunk holding stream byte ``at``: ``c`` (the last one used) when it does, else found by bisection."""
    if starts[c] <= at and (c + 1 >= starts.size or at < starts[c + 1]):
        return c
    return np.searchsorted(starts, at, side="right") - 1


@jit
def _chunked_length(buf, at, end, starts, offsets, c):  # type: ignore[no-untyped-def]
    """``(length, new_at, chunk)`` of a varint length of at most four bytes at ``at``; ``new_at < 0`` when it is
    longer or cut off (left to the contiguous parser)."""
    value = np.int64(0)
    for i in range(4):
        if at >= end:
            return 0, -1, c
        c = _chunk_of(starts, at, c)
        b = np.int64(buf[offsets[c] + at - starts[c]])
        at += 1
        value |= (b & 0x7F) << (7 * i)
        if b < 0x80:
            return value, at, c
    return 0, -1, c


@jit
def probe_chunked_bloom_filter_index(buf, starts, offsets, size, hashes, out, lengths):  # type: ignore[no-untyped-def]
    """:func:`probe_bloom_filter_index` on a stream stored in original (uncompressed) chunks, where it lies: chunk
    ``c`` holds stream bytes from ``starts[c]`` at ``buf[offsets[c]:]``, ``size`` bytes in all, so nothing is
    copied to join them. Bloom filter bits do not compress: every writer stores them so.

    Only the messages every writer makes are read here: entries of field 1 whose fields are one ``k`` (field 1, a
    varint of at most two bytes) and one ``utf8bitset`` (field 3), single-byte keys and lengths of at most four
    bytes, and filters :func:`probe_bloom_filter_index` tests. Returns the number of entries, -2 when there are more
    than ``out`` has room for, or -1 for anything else: the caller then joins the chunks and takes the contiguous
    way, with its rules and errors.
    """
    at = np.int64(0)
    c = 0
    row = 0
    while at < size:
        c = _chunk_of(starts, at, c)
        if row >= out.size:
            return -2  # more entries than room: the caller makes more
        if buf[offsets[c] + at - starts[c]] != 0x0A:
            return -1
        length, at, c = _chunked_length(buf, at + 1, size, starts, offsets, c)
        if at < 0 or length > size - at:
            return -1
        stop = at + length
        k = np.int64(-1)
        first = np.int64(-1)
        bits = np.int64(0)
        while at < stop:
            c = _chunk_of(starts, at, c)
            tag = buf[offsets[c] + at - starts[c]]
            at += 1
            if tag == 0x08 and k < 0:
                k, at, c = _chunked_length(buf, at, stop, starts, offsets, c)
                if at < 0 or k >= 1 << 14:
                    return -1  # k of at most two bytes: 1024 at most is a filter ORC writes
            elif tag == 0x1A and first < 0:
                bits, at, c = _chunked_length(buf, at, stop, starts, offsets, c)
                if at < 0 or bits > stop - at:
                    return -1
                first = at
                at += bits
            else:
                return -1
        if k < 1 or first < 0 or bits <= 0 or bits % 8 or k > min(8 * bits, MAX_HASH_FUNCTIONS):
            return -1
        num_bits = 8 * bits
        hit = False
        for j in range(hashes.size):
            hh = np.uint64(hashes[j])
            h1 = np.int64(hh & _MASK32)
            h2 = np.int64(hh >> np.uint64(32))
            if h1 >= 0x80000000:
                h1 -= 0x100000000
            if h2 >= 0x80000000:
                h2 -= 0x100000000
            found = True
            for i in range(1, k + 1):
                x = (h1 + i * h2) & 0xFFFFFFFF
                if x >= 0x80000000:
                    x = 0xFFFFFFFF - x
                pos = x % num_bits
                at_bit = first + (pos >> 3)
                c = _chunk_of(starts, at_bit, c)
                if ((buf[offsets[c] + at_bit - starts[c]] >> (pos & 7)) & 1) == 0:
                    found = False
                    break
            if found:
                hit = True
                break
        out[row] = hit
        lengths[row] = bits
        row += 1
    return row


def bloom_filter_index_may_contain(
    raw: bytes | bytearray | memoryview, hashes: Sequence[int] | None, what: str = "bloom filter index"
) -> np.ndarray:
    """Per entry (row group) of a decompressed BLOOM_FILTER(_UTF8) stream: may any of ``hashes`` be there?

    ``filters_may_contain(read_bloom_filter_index(raw, what), hashes)``, tested straight from the bytes when every
    entry is a well-formed ``utf8bitset``: one pass, no copy of the bits, no protobuf objects (a lookup tests a few
    bits of each of hundreds of filters of kilobytes each). Anything else goes the runtime's way, so the answers
    and errors are those of :func:`read_bloom_filter_index`.

    Raises
    ------
    OrcError
        As :func:`read_bloom_filter_index`.
    """
    buf = as_buffer(raw)
    state = new_state()
    n = count_messages(buf, 1, state)
    if n >= 0:
        out = np.ones(n, dtype=np.bool_)
        lengths = np.zeros(n, dtype=np.int64)
        h = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in hashes or ()], dtype=np.uint64)
        if probe_bloom_filter_index(buf, h, out, lengths, state) == n:
            width = int(lengths.max()) // 8 if n else 0
            _check_padding(n, width, int(lengths.sum()), what)  # as stacking them would: same errors
            if hashes is None:
                out[:] = True
            return out
    return filters_may_contain(read_bloom_filter_index(raw, what), hashes)


def chunked_bloom_filter_index_may_contain(
    stored: bytes | bytearray | memoryview,
    starts: np.ndarray,
    offsets: np.ndarray,
    size: int,
    hashes: Sequence[int] | None,
    what: str = "bloom filter index",
) -> np.ndarray | None:
    """:func:`bloom_filter_index_may_contain` of a stream stored in original chunks, tested where the chunks lie
    (:func:`probe_chunked_bloom_filter_index`: chunk ``c`` holds the stream's bytes from ``starts[c]`` at
    ``stored[offsets[c]:]``, ``size`` in all); ``None`` when the message is not one that kernel reads, for the
    caller to join the chunks and call :func:`bloom_filter_index_may_contain`.

    Raises
    ------
    OrcError
        As :func:`read_bloom_filter_index` for filters too unequal in size to stack.
    """
    buf = as_buffer(stored)
    h = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in hashes or ()], dtype=np.uint64)
    # room for a stripe's row groups, more if there are more, up to as many entries as the bytes could hold (14
    # bytes each at least: keys, lengths, k and one long)
    room = 1024
    while True:
        out = np.zeros(room, dtype=np.bool_)
        lengths = np.zeros(room, dtype=np.int64)
        n = probe_chunked_bloom_filter_index(buf, starts, offsets, size, h, out, lengths)
        if n != -2 or room > size // 14:
            break
        room *= 16
    if n < 0:
        return None
    lengths = lengths[:n]
    _check_padding(n, int(lengths.max()) // 8 if n else 0, int(lengths.sum()), what)
    return np.ones(n, dtype=np.bool_) if hashes is None else out[:n].copy()


def _check_padding(n: int, width: int, nbytes: int, what: str) -> None:
    """Refuse to pad ``n`` filters to ``width`` longs each when that takes far more memory than their ``nbytes``.

    A writer gives every row group of a stripe's column a filter of the same size, so stacking them costs no more
    than their bytes; a wide filter among many tiny ones would make the padding a memory bomb (a 1 MB stream asking
    for gigabytes). Twice the bytes plus a mebibyte leaves room for any mix a writer could have a reason for.
    """
    if n * width * 8 > 2 * nbytes + (1 << 20):
        raise OrcError(
            f"{what}: padding {n} bloom filters of {nbytes} bytes to the widest ({64 * width} bits) would take "
            f"{n * width * 8} bytes; writers give a stripe's filters one size"
        )


def filters_may_contain(stacked: tuple[np.ndarray, np.ndarray, np.ndarray], hashes: Sequence[int] | None) -> np.ndarray:
    """Per filter of ``stacked`` (from :func:`stack_filters`): may any of ``hashes`` be present?

    ``hashes=None`` (what :func:`hash_candidates` answers for a value no filter can rule out) gives all True.
    """
    bits2d, num_bits, ks = stacked
    out = np.ones(bits2d.shape[0], dtype=np.bool_)
    if hashes is None:
        return out
    h = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in hashes], dtype=np.uint64)
    bloom_test_filters(bits2d, num_bits, ks, h, out)
    return out


# --------------------------------------------------------------------------------------------------------------------
# hashing one value by ORC type

_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_NS_PER_UNIT = {"W": 604_800 * 10**9, "D": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9}
_NS_PER_UNIT.update({"ms": 10**6, "us": 10**3, "ns": 1})
_DECIMAL_CONTEXT = decimal.Context(prec=100)


def _signed64(x: int) -> int:
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x >> 63 else x


def _murmur(data: bytes) -> int:
    buf = np.frombuffer(data, dtype=np.uint8)
    return int(murmur3_hash64(buf, 0, buf.size, SEED))


def _wang(x: int) -> int:
    return int(wang_hash64(np.int64(_signed64(x))))


def _as_int(value: Any, kind: str) -> int:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, decimal.Decimal):
        integral = value.is_finite() and value == value.to_integral_value()
    elif isinstance(value, float | np.floating):
        integral = math.isfinite(value) and float(value).is_integer()
    else:
        integral = isinstance(value, int | np.integer)
    if not integral:
        raise OrcError(f"cannot hash {value!r} as a {kind} bloom filter value")
    v = int(value)
    if not -(1 << 63) <= v < (1 << 63):
        raise OrcError(f"{kind} value {v} does not fit in a long")
    return v


def _double_bits(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def _as_double(value: Any, kind: str) -> float:
    numeric = isinstance(value, int | float | np.integer | np.floating | decimal.Decimal)
    if not numeric or isinstance(value, bool | np.bool_):
        raise OrcError(f"cannot hash {value!r} as a {kind} bloom filter value")
    try:
        v = float(value)
    except (OverflowError, ValueError):  # an int beyond double range, a signalling NaN decimal
        raise OrcError(f"cannot hash {value!r} as a {kind} bloom filter value") from None
    if kind == "float":
        with np.errstate(over="ignore"):
            v = float(np.float32(v))  # the stored value is a float32, widened to double when hashed
    return v


def decimal_bloom_string(value: Any) -> str:
    """The string ORC writers hash for a decimal: plain digits without trailing fractional zeros.

    ``Decimal("45.40")`` gives ``"45.4"``, ``Decimal("1E+2")`` gives ``"100"``, any zero gives ``"0"``.
    """
    if isinstance(value, float | np.floating):
        value = repr(float(value))
    try:
        d = decimal.Decimal(value) if not isinstance(value, decimal.Decimal) else value
    except (decimal.InvalidOperation, TypeError, ValueError):
        raise OrcError(f"cannot hash {value!r} as a decimal bloom filter value") from None
    if not d.is_finite():
        raise OrcError(f"cannot hash {value!r} as a decimal bloom filter value")
    if d.is_zero():
        return "0"
    return format(d.normalize(_DECIMAL_CONTEXT), "f")


def _days(value: Any) -> int:
    if isinstance(value, datetime.datetime):
        if value.time() != datetime.time(0) or value.tzinfo is not None:
            raise OrcError(f"date value {value!r} has a time of day or a time zone")
        value = value.date()
    if isinstance(value, datetime.date):
        return (value - _EPOCH_DATE).days
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise OrcError("cannot hash NaT as a date bloom filter value")
        return int(value.astype("datetime64[D]").astype(np.int64))
    return _as_int(value, "date")


def _timestamp_ns(value: Any, kind: str) -> int:
    """Nanoseconds since 1970-01-01 of the wall clock (``timestamp``) or the UTC instant (with local time zone)."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise OrcError(f"cannot hash NaT as a {kind} bloom filter value")
        unit, count = np.datetime_data(value.dtype)
        if unit not in _NS_PER_UNIT:
            value = value.astype("datetime64[D]")
            unit, count = "D", 1
        return int(value.astype(np.int64)) * count * _NS_PER_UNIT[unit]
    if isinstance(value, datetime.datetime):
        nanos = int(getattr(value, "nanosecond", 0) or 0)  # pandas.Timestamp
        if value.tzinfo is not None:
            offset = value.utcoffset()
            value = value.replace(tzinfo=None) - (offset or datetime.timedelta(0))
        micros = (value - _EPOCH) // datetime.timedelta(microseconds=1)
        return micros * 1000 + nanos
    if isinstance(value, datetime.date):
        return (value - _EPOCH_DATE).days * 86_400 * 10**9
    return _as_int(value, kind)


def _timestamp_millis(value: Any, kind: str) -> tuple[int, int]:
    """(floor, truncated) milliseconds of a timestamp value."""
    ns = _timestamp_ns(value, kind)
    floor = ns // 10**6
    trunc = floor + 1 if ns < 0 and ns % 10**6 else floor
    return floor, trunc


def hash_value(value: Any, kind: str) -> int:
    """The 64-bit hash (as an unsigned int) ORC Java adds to a bloom filter for ``value`` in a column of ``kind``.

    ``kind`` is an ORC type name as :class:`orcjit.schema.TypeNode` gives it. Values:

    - string, varchar, char: ``str`` (hashed as UTF-8) or bytes; char values are hashed exactly as given;
    - binary: bytes-like (a ``str`` is taken as UTF-8);
    - tinyint .. bigint, boolean: integers; date: ``datetime.date``, ``numpy.datetime64`` or days since 1970;
    - float, double: numbers; a float column's value is rounded to float32 first; NaN hashes as the canonical NaN;
    - decimal: ``decimal.Decimal``, int, str (or float, through its repr), hashed by :func:`decimal_bloom_string`;
    - timestamp: the wall clock, as a naive ``datetime``/``pandas.Timestamp``, ``numpy.datetime64`` or int
      nanoseconds since 1970 (an aware datetime is taken at its UTC wall clock), hashed as floor milliseconds;
      timestamp with local time zone: the instant (naive values are taken as UTC).

    :func:`hash_candidates` gives every hash some writer may have added; pushdown should test those.

    Raises
    ------
    OrcError
        If ``kind`` has no bloom filter (compound types) or ``value`` cannot be a value of ``kind``.
    """
    if kind in BYTES_KINDS:
        if isinstance(value, str):
            return _murmur(value.encode("utf-8"))
        if isinstance(value, bytes | bytearray | memoryview | np.bytes_):
            return _murmur(bytes(value))
        raise OrcError(f"cannot hash {value!r} as a {kind} bloom filter value")
    if kind in INTEGER_KINDS:
        return _wang(_as_int(value, kind))
    if kind == "boolean":
        if isinstance(value, bool | np.bool_) or (isinstance(value, int | np.integer) and int(value) in (0, 1)):
            return _wang(int(value))
        raise OrcError(f"cannot hash {value!r} as a boolean bloom filter value")
    if kind == "date":
        return _wang(_days(value))
    if kind in FLOAT_KINDS:
        v = _as_double(value, kind)
        return _wang(CANONICAL_NAN_BITS if math.isnan(v) else _double_bits(v))
    if kind == "decimal":
        return _murmur(decimal_bloom_string(value).encode("ascii"))
    if kind in TIMESTAMP_KINDS:
        return _wang(_timestamp_millis(value, kind)[0])
    raise OrcError(f"columns of type {kind} have no bloom filter")


def hash_candidates(value: Any, kind: str) -> tuple[int, ...] | None:
    """Every hash a writer may have added for a value equal to ``value``, or None if no filter can rule it out.

    - float/double zero gives the hashes of both ``0.0`` and ``-0.0`` (equal values with different bits);
    - NaN gives None: ORC C++ hashes a NaN's raw bits, and a NaN can carry any payload;
    - a timestamp before 1970 with a sub-millisecond part gives both its floor (ORC Java, pyorc) and truncated
      (pyarrow) milliseconds;
    - anything else gives ``(hash_value(value, kind),)``.

    A row group may hold the value if any candidate tests positive; see :func:`filters_may_contain`.
    """
    if kind in FLOAT_KINDS:
        v = _as_double(value, kind)
        if math.isnan(v):
            return None
        if v == 0.0:
            return (_wang(_double_bits(0.0)), _wang(_double_bits(-0.0)))
        return (_wang(_double_bits(v)),)
    if kind in TIMESTAMP_KINDS:
        floor, trunc = _timestamp_millis(value, kind)
        return (_wang(floor),) if floor == trunc else (_wang(floor), _wang(trunc))
    return (hash_value(value, kind),)


# --------------------------------------------------------------------------------------------------------------------
# which filters to trust

_SPEC_KINDS = INTEGER_KINDS | FLOAT_KINDS | frozenset({"string", "varchar", "binary"})
_VERIFIED_KINDS = _SPEC_KINDS | frozenset({"date", "decimal", "timestamp", "timestamp with local time zone"})
_ORC_101 = 5  # PostScript.writerVersion from which strings are hashed as UTF-8
_ORC_135 = 6  # ... from which timestamps are hashed as UTC wall-clock milliseconds


def bloom_filter_reliable(kind: str, writer: str, writer_version: int, stream_kind: int = BLOOM_FILTER_UTF8) -> bool:
    """May a reader skip a row group whose bloom filter rules a value out, for this column type and writer?

    ``writer`` is :attr:`orcjit.ORCFile.writer` (``ORC_JAVA``, ``ORC_CPP``, ...), ``writer_version`` the
    PostScript's ``writerVersion`` number, ``stream_kind`` 7 (BLOOM_FILTER) or 8 (BLOOM_FILTER_UTF8). False for:

    - booleans, except from ORC C++ (ORC Java never adds them, so its filters are empty);
    - tinyint from ORC C++ (the writer hashes wrong values for many of them);
    - char from any writer (ORC C++ hashes wrong bytes for values shorter than the column; no ORC Java char
      filter has been checked);
    - strings, char, varchar and binary in BLOOM_FILTER streams of writers before ORC-101 (platform charset);
    - timestamps in BLOOM_FILTER streams and from writers before ORC-135 (writer-local milliseconds), decimals
      from writers before ORC-101;
    - from writers other than ORC Java and ORC C++, anything beyond the types the specification describes
      (integers, float, double, string, varchar, binary);
    - compound types, which have no filters.
    """
    if writer not in ("ORC_JAVA", "ORC_CPP"):
        if kind in ("string", "varchar", "binary") and stream_kind == BLOOM_FILTER and writer_version < _ORC_101:
            return False
        return kind in _SPEC_KINDS
    if kind == "boolean":
        return writer == "ORC_CPP"
    if kind == "char" or (writer == "ORC_CPP" and kind == "tinyint"):
        return False
    if kind in ("string", "varchar", "binary"):
        return stream_kind == BLOOM_FILTER_UTF8 or writer_version >= _ORC_101
    if kind in TIMESTAMP_KINDS:
        return stream_kind == BLOOM_FILTER_UTF8 and writer_version >= _ORC_135
    if kind == "decimal":
        return writer_version >= _ORC_101
    return kind in _VERIFIED_KINDS
