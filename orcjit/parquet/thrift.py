"""A decoder for the Thrift compact protocol, the encoding of Parquet's footer and page and bloom filter headers.

A struct is a sequence of fields, each a header byte (field id delta in the high nibble, type in the low nibble; a
delta of 0 means the id follows as a zigzag varint) and a value, ended by a 0 byte. Integers are zigzag varints
(i16, i32, i64), bytes are one byte, doubles eight little-endian bytes, binaries a varint length and the bytes;
booleans in a field live in the header's type (1 true, 2 false) and elsewhere take a byte. Lists and sets start
with a byte holding the size (15: the size follows as a varint) and the element type; maps with a varint size and,
unless empty, a byte of key and value types.

Values decode without a schema: a struct becomes ``{field id: value}``, a list or set a ``list``, a map a
``dict``, a binary ``bytes``. :mod:`orcjit.parquet.metadata` gives the fields their names. Every read is checked
against the end of the buffer, sizes against the bytes left (each element takes at least one), and nesting
against :data:`MAX_DEPTH`, so a hostile footer fails with :class:`~orcjit.parquet.errors.ParquetError` naming
the offset, never with an exception of another kind, a hang or memory out of proportion to its bytes.
"""

from __future__ import annotations

import struct
from typing import Any

from .errors import ParquetError

__all__ = ["MAX_DEPTH", "ThriftReader", "read_struct"]

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT, UUID = range(14)
TYPE_NAMES = {
    TRUE: "bool",
    FALSE: "bool",
    BYTE: "i8",
    I16: "i16",
    I32: "i32",
    I64: "i64",
    DOUBLE: "double",
    BINARY: "binary",
    LIST: "list",
    SET: "set",
    MAP: "map",
    STRUCT: "struct",
    UUID: "uuid",
}
# Parquet's deepest real nesting is a few levels (a logical type inside a schema element inside the footer);
# a limit keeps a hostile footer from exhausting Python's stack
MAX_DEPTH = 64
_BITS = {I16: 16, I32: 32, I64: 64}


class ThriftReader:
    """Reads compact-protocol values from ``data[pos:end]``, checking every read against ``end``.

    Parameters
    ----------
    data : bytes-like
        The buffer.
    what : str
        What the bytes are (``"footer of f.parquet"``), for error messages.
    base : int
        The file offset of ``data[0]``, so errors name file offsets.
    """

    def __init__(self, data: bytes | bytearray | memoryview, what: str, base: int = 0) -> None:
        self.data = bytes(data)
        self.pos = 0
        self.end = len(self.data)
        self.what = what
        self.base = base

    def fail(self, message: str, at: int | None = None) -> ParquetError:
        """An error naming ``what`` and the file offset of ``at`` (the current position by default)."""
        offset = self.base + (self.pos if at is None else at)
        return ParquetError(f"{self.what}: {message} at byte {offset}")

    def byte(self) -> int:
        if self.pos >= self.end:
            raise self.fail("truncated: a value runs past the end")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        start = self.pos
        value = 0
        for shift in range(0, 70, 7):
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
        raise self.fail("a varint longer than 10 bytes", start)

    def zigzag(self, bits: int) -> int:
        start = self.pos
        raw = self.varint()
        if raw >> bits:
            raise self.fail(f"a varint too large for an i{bits}", start)
        return (raw >> 1) ^ -(raw & 1)

    def binary(self) -> bytes:
        start = self.pos
        n = self.varint()
        if n > self.end - self.pos:
            raise self.fail(f"a binary of {n} bytes with {self.end - self.pos} left", start)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def double(self) -> float:
        if self.end - self.pos < 8:
            raise self.fail("truncated: a double runs past the end")
        (value,) = struct.unpack_from("<d", self.data, self.pos)
        self.pos += 8
        return float(value)

    def _size(self, n: int, start: int, kind: str) -> int:
        # every element takes at least a byte, so more elements than bytes left cannot be right
        if n > self.end - self.pos:
            raise self.fail(f"a {kind} of {n} elements with {self.end - self.pos} bytes left", start)
        return n

    def value(self, kind: int, depth: int) -> Any:
        """One value of compact type ``kind`` outside a field header (booleans take a byte)."""
        if kind in (TRUE, FALSE):
            b = self.byte()
            if b not in (0, 1, 2):
                raise self.fail(f"a boolean byte {b}", self.pos - 1)
            return b == 1
        if kind == BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if kind in _BITS:
            return self.zigzag(_BITS[kind])
        if kind == DOUBLE:
            return self.double()
        if kind == BINARY:
            return self.binary()
        if kind == UUID:
            if self.end - self.pos < 16:
                raise self.fail("truncated: a uuid runs past the end")
            self.pos += 16
            return self.data[self.pos - 16 : self.pos]
        if depth >= MAX_DEPTH:
            raise self.fail(f"values nested more than {MAX_DEPTH} deep")
        if kind in (LIST, SET):
            return self.collection(depth + 1)
        if kind == MAP:
            return self.map(depth + 1)
        if kind == STRUCT:
            return self.struct(depth + 1)
        raise self.fail(f"unknown compact type {kind}")

    def collection(self, depth: int) -> list[Any]:
        start = self.pos
        header = self.byte()
        n, kind = header >> 4, header & 0x0F
        if n == 15:
            n = self.varint()
        self._size(n, start, "list")
        if kind == STOP and n:
            raise self.fail("a list of type 0", start)
        return [self.value(kind, depth) for _ in range(n)]

    def map(self, depth: int) -> dict[Any, Any]:
        start = self.pos
        n = self._size(self.varint(), start, "map")
        if n == 0:
            return {}
        types = self.byte()
        key_kind, value_kind = types >> 4, types & 0x0F
        out: dict[Any, Any] = {}
        for _ in range(n):
            key = self.value(key_kind, depth)
            if isinstance(key, list | dict):
                raise self.fail("a map key that is a container", start)
            out[key] = self.value(value_kind, depth)
        return out

    def struct(self, depth: int = 0) -> dict[int, Any]:
        """A struct's fields up to its stop byte, as ``{field id: value}``; a field seen twice keeps the last."""
        fields: dict[int, Any] = {}
        last = 0
        while True:
            start = self.pos
            header = self.byte()
            if header == STOP:
                return fields
            delta, kind = header >> 4, header & 0x0F
            field = last + delta if delta else self.zigzag(16)
            if kind in (TRUE, FALSE):
                fields[field] = kind == TRUE
            elif kind in TYPE_NAMES:
                fields[field] = self.value(kind, depth)
            else:
                raise self.fail(f"field {field} has unknown compact type {kind}", start)
            last = field


def read_struct(data: bytes | bytearray | memoryview, what: str, base: int = 0) -> tuple[dict[int, Any], int]:
    """Decode the struct at the start of ``data``: its fields and the number of bytes it took.

    Raises
    ------
    ParquetError
        If the bytes are not a well-formed compact-protocol struct.
    """
    reader = ThriftReader(data, what, base)
    fields = reader.struct()
    return fields, reader.pos
