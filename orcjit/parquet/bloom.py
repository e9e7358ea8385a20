"""Parquet split-block bloom filters: read a column chunk's filter and ask it whether values may be present.

A filter sits at its column chunk's ``bloom_filter_offset``: a ``BloomFilterHeader`` (Thrift compact: 1
``numBytes`` i32, 2 ``algorithm`` union {1: split block}, 3 ``hash`` union {1: xxHash}, 4 ``compression`` union
{1: uncompressed}) followed by ``numBytes`` of bitset. A value is hashed with XXH64 (seed 0) over its PLAIN
encoding, so :func:`hash_value` turns a Python value into exactly the bytes a writer would have stored for the
column's physical and logical type, refusing values that do not fit rather than rounding them into a false answer.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import os
import struct
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OrcError
from ..kernels import split_block
from .errors import ParquetError
from .metadata import LeafColumn, ParquetMetadata, read_metadata
from .thrift import read_struct

__all__ = ["SplitBlockBloomFilter", "bloom_filter", "hash_value", "might_contain", "plain_bytes"]

# the header is a handful of bytes; without a recorded length, a first read this large takes it whole
HEADER_READ = 256

_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1)
_NS_PER = {"ms": 1_000_000, "us": 1_000, "ns": 1}
# nanoseconds in one unit of a numpy datetime64
_NP_UNIT_NS = {
    "W": 7 * 86_400 * 10**9,
    "D": 86_400 * 10**9,
    "h": 3_600 * 10**9,
    "m": 60 * 10**9,
    "s": 10**9,
    "ms": 10**6,
    "us": 10**3,
    "ns": 1,
}


@dataclass(frozen=True)
class SplitBlockBloomFilter:
    """One column chunk's split-block bloom filter.

    Attributes
    ----------
    row_group : int
    column : LeafColumn
    offset : int
        The file offset of its ``BloomFilterHeader``.
    num_bytes : int
        The bitset's size, a positive multiple of 32.
    words : numpy.ndarray
        The bitset as ``uint32`` words, eight per 32-byte block.
    """

    row_group: int
    column: LeafColumn
    offset: int
    num_bytes: int
    words: np.ndarray

    @property
    def fill_ratio(self) -> float:
        """The fraction of the bitset's bits that are set.

        A value absent from the chunk is a false positive when its eight bits are all set, so ``fill_ratio ** 8``
        estimates the false-positive rate (blocks fill unevenly, which makes the true rate a little higher).
        """
        ones = int(np.unpackbits(self.words.view(np.uint8)).sum())
        return ones / (8 * self.num_bytes)

    def might_contain(self, value: Any) -> bool:
        """False if ``value`` is certainly not in the column chunk, True if it may be.

        Raises
        ------
        ParquetError
            If ``value`` does not fit the column (see :func:`hash_value`).
        """
        return bool(self.might_contain_many([value])[0])

    def might_contain_many(self, values: Iterable[Any]) -> np.ndarray:
        """:meth:`might_contain` of each value, as a ``bool`` array."""
        hashes, owners = _hash_many(self.column, values)
        return _per_value(self.words, hashes, owners)


# --------------------------------------------------------------------------------------------------------------------
# reading


def bloom_filter(meta: ParquetMetadata, row_group: int, column: str | int) -> SplitBlockBloomFilter | None:
    """Read one column chunk's bloom filter, or ``None`` when the writer made none.

    Parameters
    ----------
    meta : ParquetMetadata
        The file's footer (its ``source`` is read).
    row_group : int
    column : str or int
        A dotted path or a leaf index.

    Raises
    ------
    ParquetError
        If the row group or column does not exist, or the header or bitset is corrupt, of an unknown algorithm,
        hash or compression, or outside the file. The message names the file, row group, column and offset.
    """
    leaf = meta.column(column)
    if isinstance(row_group, bool) or not isinstance(row_group, int) or not 0 <= row_group < len(meta.row_groups):
        raise ParquetError(
            f"{meta.source.name}: no row group {row_group!r}; the file has {len(meta.row_groups)} row groups"
        )
    chunk = meta.row_groups[row_group].columns[leaf.index]
    offset, length = chunk.bloom_filter_offset, chunk.bloom_filter_length
    if offset is None:
        return None
    source = meta.source
    size = source.size
    what = f"{source.name}: row group {row_group}, column {leaf.path!r}: bloom filter at offset {offset}"
    if not 0 <= offset < size:
        raise ParquetError(f"{what}: the offset lies outside the file of {size} bytes")
    if length is not None and (length <= 0 or offset + length > size):
        raise ParquetError(f"{what}: its length {length} runs past the end of the file of {size} bytes")
    first = length if length is not None else min(HEADER_READ, size - offset)
    data = _read(source, offset, first, what)
    num_bytes, used = _header(data, what, offset)
    end = used + num_bytes
    if num_bytes > size - offset - used:
        raise ParquetError(
            f"{what}: a bitset of {num_bytes} bytes after the {used}-byte header runs past the end of the file "
            f"of {size} bytes"
        )
    if length is not None:
        if end != length:
            raise ParquetError(
                f"{what}: the header ({used} bytes) and bitset ({num_bytes} bytes) take {end} bytes, but "
                f"bloom_filter_length is {length}"
            )
        bitset = data[used:end]
    elif end <= len(data):
        bitset = data[used:end]
    else:
        bitset = _read(source, offset + used, num_bytes, what)
    words = np.frombuffer(bitset, dtype="<u4").astype(np.uint32)
    return SplitBlockBloomFilter(row_group, leaf, offset, num_bytes, words)


def _read(source: Any, offset: int, length: int, what: str) -> bytes:
    try:
        return bytes(source.read(offset, length))
    except ParquetError:
        raise
    except OrcError as error:
        raise ParquetError(f"{what}: {error}") from None


def _union_member(fields: dict[int, Any], number: int, label: str, known: str, what: str) -> None:
    """Check that the union field ``number`` holds exactly its one known member, field 1 (an empty struct)."""
    union = fields.get(number)
    if union is None:
        raise ParquetError(f"{what}: the header has no {label} (field {number})")
    if not isinstance(union, dict):
        raise ParquetError(f"{what}: the header's {label} (field {number}) is a {type(union).__name__}, not a union")
    if set(union) != {1} or not isinstance(union[1], dict):
        members = ", ".join(str(k) for k in sorted(union)) or "none"
        raise ParquetError(f"{what}: unknown {label} (union member(s) {members}); orcjit knows only {known} (member 1)")


def _header(data: bytes, what: str, offset: int) -> tuple[int, int]:
    """The bitset size and the header's length in bytes, after checking every field of the header."""
    fields, used = read_struct(data, f"{what}: header", base=offset)
    num_bytes = fields.get(1)
    if isinstance(num_bytes, bool) or not isinstance(num_bytes, int):
        raise ParquetError(f"{what}: the header has no numBytes (field 1 is {num_bytes!r})")
    if num_bytes <= 0 or num_bytes % split_block.BYTES_PER_BLOCK:
        raise ParquetError(f"{what}: numBytes is {num_bytes}, not a positive multiple of 32 (whole blocks)")
    if num_bytes > split_block.MAX_BYTES:
        raise ParquetError(f"{what}: numBytes is {num_bytes}, more than the {split_block.MAX_BYTES} writers allow")
    _union_member(fields, 2, "algorithm", "SPLIT_BLOCK", what)
    _union_member(fields, 3, "hash", "XXHASH", what)
    _union_member(fields, 4, "compression", "UNCOMPRESSED", what)
    return num_bytes, used


def might_contain(
    source: str | os.PathLike[str] | Any, column: str | int, values: Iterable[Any], *, filesystem: Any = None
) -> np.ndarray:
    """Ask every row group's bloom filter of ``column`` whether each of ``values`` may be present.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like, file object or ByteSource
        A Parquet file, as :func:`~orcjit.parquet.read_metadata` takes it.
    column : str or int
        A dotted path or a leaf index.
    values : iterable
        Python values of the column's type (see :func:`hash_value`).
    filesystem : fsspec or pyarrow filesystem, optional

    Returns
    -------
    numpy.ndarray
        ``bool`` of shape ``(row groups, len(values))``: False where a value is certainly absent from a row group.
        A row group without a filter for the column is True throughout.

    Raises
    ------
    ParquetError
        For a corrupt file or filter, an unknown column, or a value that does not fit the column.
    """
    meta = read_metadata(source, filesystem=filesystem)
    try:
        leaf = meta.column(column)
        hashes, owners = _hash_many(leaf, values)
        out = np.ones((len(meta.row_groups), len(owners)), dtype=np.bool_)
        for g in range(len(meta.row_groups)):
            bloom = bloom_filter(meta, g, leaf.index)
            if bloom is not None:
                out[g] = _per_value(bloom.words, hashes, owners)
        return out
    finally:
        meta.close()


# --------------------------------------------------------------------------------------------------------------------
# hashing


def hash_value(column: LeafColumn, value: Any) -> int:
    """XXH64 (seed 0) of ``value``'s PLAIN encoding in ``column``: the hash a writer put in the bloom filter.

    See :func:`plain_bytes` for the values each type takes.

    Raises
    ------
    ParquetError
        If ``value`` does not fit the column, or the column's type has no bloom filters (BOOLEAN, INT96).
    """
    return int(split_block.hash_plain([plain_bytes(column, value)])[0])


def _hash_many(column: LeafColumn, values: Iterable[Any]) -> tuple[np.ndarray, list[int]]:
    """The hashes to test for ``values`` and, per value, how many of them are its: one each, except a float zero,
    which equals its negative (``x == 0.0`` matches ``-0.0``) though their PLAIN bits, and so their hashes, differ."""
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise ParquetError(f"column {column.path!r}: values must be a sequence of values, not one {type(values)}")
    items: list[bytes] = []
    owners: list[int] = []
    for v in values:
        encoded = plain_bytes(column, v)
        items.append(encoded)
        if column.physical_type in ("FLOAT", "DOUBLE") and not any(encoded[:-1]) and encoded[-1] in (0, 0x80):
            items.append(encoded[:-1] + bytes([encoded[-1] ^ 0x80]))  # the other zero: only the sign bit differs
            owners.append(2)
        else:
            owners.append(1)
    if not items:
        return np.empty(0, dtype=np.uint64), owners
    return split_block.hash_plain(items), owners


def _per_value(words: np.ndarray, hashes: np.ndarray, owners: list[int]) -> np.ndarray:
    """Per value: may any of its hashes (``owners`` counts them, in order) be in the filter ``words``?"""
    hits = np.empty(hashes.size, dtype=np.bool_)
    split_block.sbbf_check_many(words, hashes, hits)
    if len(owners) == hashes.size:
        return hits
    starts = np.concatenate([[0], np.cumsum(owners)[:-1]]).astype(np.intp)
    return np.logical_or.reduceat(hits, starts)


def _fail(column: LeafColumn, value: Any, why: str) -> ParquetError:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return ParquetError(f"column {column.path!r} ({_describe(column)}): {text} {why}")


def _describe(column: LeafColumn) -> str:
    logical = column.logical_type
    name = logical.name if logical is not None else column.converted_type
    return f"{column.physical_type}" + (f" {name}" if name else "")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def plain_bytes(column: LeafColumn, value: Any) -> bytes:
    """``value`` in ``column``'s PLAIN encoding (without a BYTE_ARRAY's length prefix), as a bloom filter hashes it.

    By physical type:

    - INT32: ``int`` (range-checked for the column's integer width and sign; unsigned 32-bit values keep their
      bits), a date (``datetime.date``, midnight ``datetime``/``pandas.Timestamp``, ``numpy.datetime64``) as days
      since 1970-01-01, ``datetime.time`` for TIME(ms), ``decimal.Decimal`` (or ``int``) as the unscaled value.
    - INT64: ``int``; for TIMESTAMP a ``datetime``, ``pandas.Timestamp`` or ``numpy.datetime64`` in the column's
      unit (a time-zone-aware value is converted to its UTC instant, a naive one taken as it is: pyarrow's rule);
      ``datetime.time`` for TIME(us/ns); ``decimal.Decimal`` for DECIMAL.
    - FLOAT: a number, rounded to the nearest float32 (as storing it would); its bits as they are, so ``-0.0``
      and ``0.0`` hash differently, as writers hash them.
    - DOUBLE: a ``float`` or an ``int`` that a double holds exactly.
    - BYTE_ARRAY: ``str`` (UTF-8) or bytes-like; for DECIMAL the minimal big-endian two's complement.
    - FIXED_LEN_BYTE_ARRAY: bytes of the type's length; DECIMAL big-endian two's complement sign-extended to it;
      ``uuid.UUID`` or its text for UUID; a number for FLOAT16.

    Conversions are exact: a value the column cannot hold without changing it (out of range, too many decimal
    digits, a timestamp finer than the column's unit) is refused.

    Raises
    ------
    ParquetError
        If ``value`` does not fit, is None, or the column is BOOLEAN or INT96 (which the specification gives no
        bloom filters).
    """
    physical = column.physical_type
    if value is None:
        raise _fail(column, value, "(null) is never in a bloom filter: filters hold only non-null values")
    if physical in ("BOOLEAN", "INT96"):
        raise ParquetError(f"column {column.path!r}: {physical} columns have no bloom filters in Parquet")
    kind = _kind(column)
    if kind == "DECIMAL":
        return _decimal_bytes(column, value)
    if physical == "INT32":
        return struct.pack("<I", _int32(column, kind, value) & 0xFFFFFFFF)
    if physical == "INT64":
        return struct.pack("<Q", _int64(column, kind, value) & 0xFFFFFFFFFFFFFFFF)
    if physical == "FLOAT":
        return _float(column, value, np.float32).tobytes()
    if physical == "DOUBLE":
        return _float(column, value, np.float64).tobytes()
    if physical == "BYTE_ARRAY":
        if isinstance(value, str):
            return value.encode("utf-8", errors="strict")
        if isinstance(value, (bytes, bytearray, memoryview, np.bytes_)):
            return bytes(value)
        raise _fail(column, value, "is neither str nor bytes")
    if physical == "FIXED_LEN_BYTE_ARRAY":
        return _fixed(column, kind, value)
    raise ParquetError(f"column {column.path!r}: unknown physical type {physical}")


def _kind(column: LeafColumn) -> str | None:
    """The column's logical type name, from the logical type or, for older writers, the converted type."""
    if column.logical_type is not None:
        return column.logical_type.name
    converted = column.converted_type
    legacy = {
        "DECIMAL": "DECIMAL",
        "DATE": "DATE",
        "TIME_MILLIS": "TIME",
        "TIME_MICROS": "TIME",
        "TIMESTAMP_MILLIS": "TIMESTAMP",
        "TIMESTAMP_MICROS": "TIMESTAMP",
        "UTF8": "STRING",
    }
    if converted in legacy:
        return legacy[converted]
    if converted and converted.startswith(("INT_", "UINT_")):
        return "INTEGER"
    return None


def _unit(column: LeafColumn) -> str:
    if column.logical_type is not None and column.logical_type.unit in _NS_PER:
        return column.logical_type.unit  # type: ignore[return-value]
    converted = column.converted_type or ""
    if converted.endswith("MILLIS"):
        return "ms"
    if converted.endswith("MICROS"):
        return "us"
    raise ParquetError(f"column {column.path!r}: a time or timestamp without a known unit")


def _int_range(column: LeafColumn, default_bits: int) -> tuple[int, int]:
    bits, signed = default_bits, True
    logical = column.logical_type
    if logical is not None and logical.name == "INTEGER":
        bits = logical.bit_width or default_bits
        signed = logical.signed if logical.signed is not None else True
    elif column.converted_type and column.converted_type.startswith(("INT_", "UINT_")):
        signed = column.converted_type.startswith("INT_")
        bits = int(column.converted_type.split("_")[1])
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _checked_int(column: LeafColumn, value: Any, low: int, high: int) -> int:
    if not _is_int(value):
        raise _fail(column, value, f"is a {type(value).__name__}, not an integer")
    number = int(value)
    if not low <= number <= high:
        raise _fail(column, value, f"is outside the column's range [{low}, {high}]")
    return number


def _int32(column: LeafColumn, kind: str | None, value: Any) -> int:
    if kind == "DATE":
        if _is_int(value):
            return _checked_int(column, value, -(1 << 31), (1 << 31) - 1)
        ns = _nanoseconds(column, value, date_only=True)
        days, rest = divmod(ns, _NP_UNIT_NS["D"])
        if rest:
            raise _fail(column, value, "is not a whole day")
        return _checked_int(column, days, -(1 << 31), (1 << 31) - 1)
    if kind == "TIME":
        return _time(column, value, (1 << 31) - 1)
    low, high = _int_range(column, 32)
    return _checked_int(column, value, low, high)


def _int64(column: LeafColumn, kind: str | None, value: Any) -> int:
    if kind == "TIMESTAMP":
        if _is_int(value):
            return _checked_int(column, value, -(1 << 63), (1 << 63) - 1)
        ns = _nanoseconds(column, value, date_only=False)
        unit = _NS_PER[_unit(column)]
        count, rest = divmod(ns, unit)
        if rest:
            raise _fail(column, value, f"is finer than the column's unit ({_unit(column)})")
        return _checked_int(column, count, -(1 << 63), (1 << 63) - 1)
    if kind == "TIME":
        return _time(column, value, (1 << 63) - 1)
    low, high = _int_range(column, 64)
    return _checked_int(column, value, low, high)


def _time(column: LeafColumn, value: Any, high: int) -> int:
    if _is_int(value):
        return _checked_int(column, value, 0, high)
    if not isinstance(value, _dt.time):
        raise _fail(column, value, "is neither a datetime.time nor an integer")
    if value.tzinfo is not None:
        raise _fail(column, value, "has a time zone; a TIME column holds wall-clock times")
    micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    ns = micros * 1000 + int(getattr(value, "nanosecond", 0))
    count, rest = divmod(ns, _NS_PER[_unit(column)])
    if rest:
        raise _fail(column, value, f"is finer than the column's unit ({_unit(column)})")
    return count


def _nanoseconds(column: LeafColumn, value: Any, *, date_only: bool) -> int:
    """Nanoseconds since 1970-01-01T00:00 (UTC for aware values) of a date or timestamp, exactly."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise _fail(column, value, "(NaT) is never in a bloom filter")
        unit, step = np.datetime_data(value.dtype)
        if unit not in _NP_UNIT_NS:
            raise _fail(column, value, f"has a datetime64 unit ({unit}) orcjit does not convert")
        return int(value.astype(np.int64)) * step * _NP_UNIT_NS[unit]
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            offset = value.utcoffset()
            assert offset is not None
            naive = value.replace(tzinfo=None) - offset
        else:
            naive = value.replace(tzinfo=None)
        delta = naive - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        # pandas.Timestamp carries nanoseconds beyond datetime's microseconds
        return micros * 1000 + int(getattr(value, "nanosecond", 0))
    if isinstance(value, _dt.date):
        return (value - _EPOCH_DATE).days * _NP_UNIT_NS["D"]
    expected = "a date" if date_only else "a datetime, pandas.Timestamp or numpy.datetime64"
    raise _fail(column, value, f"is a {type(value).__name__}, not {expected}")


def _float(column: LeafColumn, value: Any, dtype: type[np.floating[Any]]) -> np.ndarray:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _fail(column, value, f"is a {type(value).__name__}, not a number")
    if _is_int(value):
        with np.errstate(over="ignore"):
            as_float = dtype(int(value)) if abs(int(value)) < 2**1000 else dtype(math.inf)
        if not np.isfinite(as_float) or int(as_float) != int(value):
            raise _fail(column, value, f"is not exactly representable as {np.dtype(dtype).name}")
        return np.array(as_float, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<"))
    with np.errstate(over="ignore"):
        rounded = np.array(value, dtype=dtype)
    if np.isinf(rounded) and math.isfinite(float(value)):
        raise _fail(column, value, f"overflows {np.dtype(dtype).name}")
    return rounded.astype(np.dtype(dtype).newbyteorder("<"))


def _decimal_bytes(column: LeafColumn, value: Any) -> bytes:
    scale = column.scale or 0
    precision = column.precision
    if _is_int(value):
        value = decimal.Decimal(int(value))
    if not isinstance(value, decimal.Decimal):
        raise _fail(column, value, f"is a {type(value).__name__}, not a decimal.Decimal or int")
    if not value.is_finite():
        raise _fail(column, value, "is not a finite decimal")
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    unscaled_digits = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    if shift >= 0:
        unscaled = unscaled_digits * 10**shift
    else:
        unscaled, rest = divmod(unscaled_digits, 10**-shift)
        if rest:
            raise _fail(column, value, f"has more fraction digits than the column's scale {scale}")
    if sign:
        unscaled = -unscaled
    if precision is not None and abs(unscaled) >= 10**precision:
        raise _fail(column, value, f"has more digits than the column's precision {precision}")
    physical = column.physical_type
    if physical == "INT32":
        return struct.pack("<i", _checked_int(column, unscaled, -(1 << 31), (1 << 31) - 1))
    if physical == "INT64":
        return struct.pack("<q", _checked_int(column, unscaled, -(1 << 63), (1 << 63) - 1))
    if physical == "BYTE_ARRAY":
        width = max(1, (unscaled.bit_length() + 8) // 8)  # + 8: room for the sign bit
        return unscaled.to_bytes(width, "big", signed=True)
    if physical == "FIXED_LEN_BYTE_ARRAY":
        width = column.type_length or 0
        try:
            return unscaled.to_bytes(width, "big", signed=True)
        except OverflowError:
            raise _fail(column, value, f"does not fit in {width} bytes") from None
    raise ParquetError(f"column {column.path!r}: a DECIMAL stored as {physical}, which Parquet does not allow")


def _fixed(column: LeafColumn, kind: str | None, value: Any) -> bytes:
    width = column.type_length or 0
    if kind == "UUID":
        if isinstance(value, str):
            try:
                value = uuid.UUID(value)
            except ValueError:
                raise _fail(column, value, "is not a UUID") from None
        if isinstance(value, uuid.UUID):
            value = value.bytes
    elif kind == "FLOAT16" and not isinstance(value, (bytes, bytearray, memoryview, np.bytes_)):
        value = _float(column, value, np.float16).tobytes()
    if not isinstance(value, (bytes, bytearray, memoryview, np.bytes_)):
        raise _fail(column, value, f"is a {type(value).__name__}, not bytes")
    data = bytes(value)
    if len(data) != width:
        raise _fail(column, value, f"is {len(data)} bytes; the column's values are {width} bytes")
    return data
