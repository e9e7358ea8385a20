"""A Parquet file's footer (``FileMetaData``), decoded with :mod:`orcjit.parquet.thrift` into named objects.

Only what probing and pruning need is given names: the schema's leaf columns with their physical and logical
types, and per row group each column chunk's codec, offsets, statistics and bloom filter location. Field numbers
are those of ``parquet.thrift`` in the Parquet format specification.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..sources import ByteSource, open_source
from .errors import ParquetError
from .thrift import read_struct

__all__ = ["ColumnChunk", "LeafColumn", "LogicalType", "ParquetMetadata", "RowGroup", "read_metadata"]

MAGIC = b"PAR1"
ENCRYPTED_MAGIC = b"PARE"
# the first read takes this much of the file's end: the footer of most files, so one request suffices
TAIL_READ = 64 * 1024

PHYSICAL_TYPES = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
CONVERTED_TYPES = (
    "UTF8",
    "MAP",
    "MAP_KEY_VALUE",
    "LIST",
    "ENUM",
    "DECIMAL",
    "DATE",
    "TIME_MILLIS",
    "TIME_MICROS",
    "TIMESTAMP_MILLIS",
    "TIMESTAMP_MICROS",
    "UINT_8",
    "UINT_16",
    "UINT_32",
    "UINT_64",
    "INT_8",
    "INT_16",
    "INT_32",
    "INT_64",
    "JSON",
    "BSON",
    "INTERVAL",
)
CODECS = ("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW")
REPETITIONS = ("REQUIRED", "OPTIONAL", "REPEATED")
# LogicalType is a union: the number of the field set names the type
LOGICAL_TYPES = {
    1: "STRING",
    2: "MAP",
    3: "LIST",
    4: "ENUM",
    5: "DECIMAL",
    6: "DATE",
    7: "TIME",
    8: "TIMESTAMP",
    10: "INTEGER",
    11: "UNKNOWN",
    12: "JSON",
    13: "BSON",
    14: "UUID",
    15: "FLOAT16",
    16: "VARIANT",
    17: "GEOMETRY",
    18: "GEOGRAPHY",
}
TIME_UNITS = {1: "ms", 2: "us", 3: "ns"}


def _name(table: tuple[str, ...], code: Any) -> str:
    return table[code] if isinstance(code, int) and 0 <= code < len(table) else f"UNKNOWN({code})"


@dataclass(frozen=True)
class LogicalType:
    """A column's logical type: its name (``STRING``, ``DECIMAL``, ``TIMESTAMP``, ``INTEGER``, ...) and the
    parameters that apply: ``scale``/``precision`` (decimal), ``unit`` (``ms``/``us``/``ns``) and ``utc``
    (time, timestamp), ``bit_width``/``signed`` (integer)."""

    name: str
    scale: int | None = None
    precision: int | None = None
    unit: str | None = None
    utc: bool | None = None
    bit_width: int | None = None
    signed: bool | None = None


@dataclass(frozen=True)
class LeafColumn:
    """A leaf of the schema: a column with values, as Parquet stores them.

    Attributes
    ----------
    index : int
        Its position among the leaves, which is its column chunk's position in every row group.
    path : str
        The dotted path from the root (``"a.b"``; list elements appear as Parquet names them, e.g.
        ``"tags.list.element"``).
    physical_type : str
        ``INT32``, ``INT64``, ``FLOAT``, ``DOUBLE``, ``BYTE_ARRAY``, ``FIXED_LEN_BYTE_ARRAY``, ``BOOLEAN`` or
        ``INT96``.
    type_length : int or None
        Bytes per value of a ``FIXED_LEN_BYTE_ARRAY``.
    repetition : str
        ``REQUIRED``, ``OPTIONAL`` or ``REPEATED``.
    converted_type : str or None
        The legacy annotation (``UTF8``, ``DECIMAL``, ``DATE``, ``TIMESTAMP_MILLIS``, ...).
    logical_type : LogicalType or None
    scale, precision : int or None
        A decimal's, from the logical type or the legacy fields.
    max_definition_level, max_repetition_level : int
        Greater than 0 when the column or one of its parents is optional or repeated.
    """

    index: int
    path: str
    physical_type: str
    type_length: int | None
    repetition: str
    converted_type: str | None
    logical_type: LogicalType | None
    scale: int | None
    precision: int | None
    max_definition_level: int
    max_repetition_level: int


@dataclass(frozen=True)
class ColumnChunk:
    """One leaf column's data in one row group.

    ``min_value``/``max_value`` are the statistics' bytes as written (plain encoding; the deprecated ``min``
    and ``max`` fields, ordered as signed bytes for strings, are left out). ``bloom_filter_offset`` is ``None``
    when the writer made no bloom filter, and ``bloom_filter_length`` is ``None`` when it did not record the
    length (writers before Parquet format 2.10).
    """

    column: LeafColumn
    codec: str
    num_values: int
    total_compressed_size: int
    data_page_offset: int
    dictionary_page_offset: int | None
    null_count: int | None
    min_value: bytes | None
    max_value: bytes | None
    bloom_filter_offset: int | None
    bloom_filter_length: int | None


@dataclass(frozen=True)
class RowGroup:
    """A row group: its number, first row in the file, row count and one :class:`ColumnChunk` per leaf."""

    index: int
    first_row: int
    num_rows: int
    total_byte_size: int
    columns: list[ColumnChunk]


@dataclass
class ParquetMetadata:
    """A Parquet file's footer: schema leaves, row groups, and facts about the writer.

    Attributes
    ----------
    source : ByteSource
        Where the bytes come from (with ``reads`` and ``bytes_read`` counters).
    version : int
    num_rows : int
    created_by : str or None
        The writer, e.g. ``"parquet-cpp-arrow version 26.0.1"`` or ``"parquet-mr version 1.15.2 (build ...)"``.
    key_value_metadata : dict of str to str
    leaves : list of LeafColumn
    row_groups : list of RowGroup
    footer_length : int
    """

    source: ByteSource
    version: int
    num_rows: int
    created_by: str | None
    key_value_metadata: dict[str, str | None]
    leaves: list[LeafColumn]
    row_groups: list[RowGroup]
    footer_length: int
    owns_source: bool = field(default=False, repr=False)

    def column(self, name: str | int) -> LeafColumn:
        """The leaf named by a dotted path or a leaf index.

        Raises
        ------
        ParquetError
            If there is no such leaf; the message lists the leaves.
        """
        if isinstance(name, int) and not isinstance(name, bool):
            if 0 <= name < len(self.leaves):
                return self.leaves[name]
        elif isinstance(name, str):
            for leaf in self.leaves:
                if leaf.path == name:
                    return leaf
        paths = ", ".join(repr(leaf.path) for leaf in self.leaves)
        raise ParquetError(f"{self.source.name}: no column {name!r}; the file's columns are {paths}")

    def close(self) -> None:
        """Close the file if :func:`read_metadata` opened it."""
        if self.owns_source:
            self.source.close()
            self.owns_source = False


def read_metadata(source: str | os.PathLike[str] | Any, *, filesystem: Any = None) -> ParquetMetadata:
    """Read and decode a Parquet file's footer.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like, binary file object or ByteSource
        As :class:`orcjit.ORCFile` takes it: a local path, a URL fsspec understands, the file's bytes or a file.
    filesystem : fsspec or pyarrow filesystem, optional

    Raises
    ------
    ParquetError
        If the file is not Parquet, is truncated, has an encrypted footer or a corrupt one (including a data page
        or bloom filter offset outside the bytes between the leading magic and the footer).
    """
    byte_source, owns = open_source(source, filesystem)
    try:
        return _read(byte_source, owns)
    except BaseException:
        if owns:
            byte_source.close()
        raise


def _read(source: ByteSource, owns: bool) -> ParquetMetadata:
    name, size = source.name, source.size
    if size < 12:
        raise ParquetError(f"{name}: {size} bytes is too short for a Parquet file (magic, footer length, magic)")
    tail_size = min(size, TAIL_READ)
    tail = source.read(size - tail_size, tail_size)
    magic = tail[-4:]
    if magic == ENCRYPTED_MAGIC:
        raise ParquetError(f"{name}: the footer is encrypted (PARE); orcjit reads only plaintext footers")
    if magic != MAGIC:
        raise ParquetError(f"{name}: not a Parquet file (ends with {bytes(magic)!r}, not b'PAR1')")
    length = int.from_bytes(tail[-8:-4], "little")
    if length > size - 12:
        raise ParquetError(f"{name}: the footer length {length} does not fit in the file of {size} bytes")
    start = size - 8 - length
    # the footer is usually inside the first read; a larger one costs one more
    footer = tail[tail_size - 8 - length : tail_size - 8] if length + 8 <= tail_size else source.read(start, length)
    what = f"{name}: footer"
    fields, used = read_struct(footer, what, base=start)
    if used != length:
        raise ParquetError(f"{what}: the FileMetaData takes {used} of the footer's {length} bytes")
    return _file_metadata(fields, source, length, owns)


def _get(fields: dict[int, Any], number: int, kind: type | tuple[type, ...], what: str, default: Any = None) -> Any:
    value = fields.get(number, default)
    if (value is not default and not isinstance(value, kind)) or (isinstance(value, bool) and kind is int):
        raise ParquetError(f"{what}: field {number} holds a {type(value).__name__}, not the type Parquet gives it")
    return value


def _required(fields: dict[int, Any], number: int, kind: type | tuple[type, ...], what: str, label: str) -> Any:
    if number not in fields:
        raise ParquetError(f"{what}: the required field {number} ({label}) is missing")
    return _get(fields, number, kind, what)


def _text(value: bytes | None, what: str) -> str | None:
    if value is None:
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ParquetError(f"{what}: a name that is not UTF-8: {value[:40]!r}") from None


def _file_metadata(fields: dict[int, Any], source: ByteSource, length: int, owns: bool) -> ParquetMetadata:
    what = f"{source.name}: footer"
    version = _required(fields, 1, int, what, "version")
    schema = _required(fields, 2, list, what, "schema")
    num_rows = _required(fields, 3, int, what, "num_rows")
    groups = _required(fields, 4, list, what, "row_groups")
    kv = {}
    for item in _get(fields, 5, list, what, []):
        if not isinstance(item, dict):
            raise ParquetError(f"{what}: a key_value_metadata entry that is not a struct")
        key = _text(_required(item, 1, bytes, what, "key"), what)
        kv[key or ""] = _text(_get(item, 2, bytes, what), what)
    created_by = _text(_get(fields, 6, bytes, what), what)
    leaves = _leaves(schema, what)
    row_groups = []
    first_row = 0
    for g, group in enumerate(groups):
        gwhat = f"{what}, row group {g}"
        if not isinstance(group, dict):
            raise ParquetError(f"{gwhat}: not a struct")
        chunks = _required(group, 1, list, gwhat, "columns")
        rows = _required(group, 3, int, gwhat, "num_rows")
        if rows < 0:
            raise ParquetError(f"{gwhat}: {rows} rows")
        if len(chunks) != len(leaves):
            raise ParquetError(f"{gwhat}: {len(chunks)} column chunks for a schema of {len(leaves)} columns")
        columns = [
            _chunk(chunk, leaf, f"{gwhat}, column {leaf.path!r}", source.size - 8 - length)
            for chunk, leaf in zip(chunks, leaves, strict=True)
        ]
        total = _required(group, 2, int, gwhat, "total_byte_size")
        row_groups.append(RowGroup(g, first_row, rows, total, columns))
        first_row += rows
    if num_rows != first_row:
        raise ParquetError(f"{what}: num_rows is {num_rows}, but the row groups hold {first_row} rows")
    return ParquetMetadata(source, version, num_rows, created_by, kv, leaves, row_groups, length, owns)


def _logical(fields: dict[int, Any] | None, what: str) -> LogicalType | None:
    if not fields:
        return None
    if not isinstance(fields, dict) or len(fields) != 1:
        raise ParquetError(f"{what}: a logicalType union with {len(fields)} members set")
    ((number, params),) = fields.items()
    name = LOGICAL_TYPES.get(number, f"UNKNOWN({number})")
    params = params if isinstance(params, dict) else {}
    if name == "DECIMAL":
        return LogicalType(name, scale=_get(params, 1, int, what), precision=_get(params, 2, int, what))
    if name in ("TIME", "TIMESTAMP"):
        unit = _get(params, 2, dict, what) or {}
        units = [TIME_UNITS.get(k, f"UNKNOWN({k})") for k in unit]
        return LogicalType(name, unit=units[0] if len(units) == 1 else None, utc=_get(params, 1, bool, what))
    if name == "INTEGER":
        return LogicalType(name, bit_width=_get(params, 1, int, what), signed=_get(params, 2, bool, what))
    return LogicalType(name)


def _leaves(schema: list[Any], what: str) -> list[LeafColumn]:
    """The leaves of the flattened schema tree (depth first, each group followed by its children)."""
    if not schema or not isinstance(schema[0], dict):
        raise ParquetError(f"{what}: the schema has no root element")
    leaves: list[LeafColumn] = []
    pos = 1

    def walk(count: int, prefix: str, definition: int, repetition: int, depth: int) -> None:
        nonlocal pos
        if depth > 100:
            raise ParquetError(f"{what}: the schema nests more than 100 levels")
        for _ in range(count):
            if pos >= len(schema) or not isinstance(schema[pos], dict):
                raise ParquetError(f"{what}: the schema declares more elements than the {len(schema)} it holds")
            element = schema[pos]
            ewhat = f"{what}, schema element {pos}"
            pos += 1
            name = _text(_required(element, 4, bytes, ewhat, "name"), ewhat) or ""
            path = f"{prefix}.{name}" if prefix else name
            rep = _name(REPETITIONS, _get(element, 3, int, ewhat, 0))
            d = definition + (rep != "REQUIRED")
            r = repetition + (rep == "REPEATED")
            children = _get(element, 5, int, ewhat)
            if children is not None and children > 0:
                walk(children, path, d, r, depth + 1)
                continue
            physical = _get(element, 1, int, ewhat)
            if physical is None:
                raise ParquetError(f"{ewhat}: leaf {path!r} has no type")
            converted = _get(element, 6, int, ewhat)
            logical = _logical(_get(element, 10, dict, ewhat), ewhat)
            scale = logical.scale if logical and logical.name == "DECIMAL" else _get(element, 7, int, ewhat)
            precision = logical.precision if logical and logical.name == "DECIMAL" else _get(element, 8, int, ewhat)
            leaves.append(
                LeafColumn(
                    index=len(leaves),
                    path=path,
                    physical_type=_name(PHYSICAL_TYPES, physical),
                    type_length=_get(element, 2, int, ewhat),
                    repetition=rep,
                    converted_type=None if converted is None else _name(CONVERTED_TYPES, converted),
                    logical_type=logical,
                    scale=scale,
                    precision=precision,
                    max_definition_level=d,
                    max_repetition_level=r,
                )
            )

    walk(_get(schema[0], 5, int, what, 0) or 0, "", 0, 0, 0)
    if pos != len(schema):
        raise ParquetError(f"{what}: the schema holds {len(schema)} elements, its tree {pos}")
    return leaves


def _chunk(fields: Any, leaf: LeafColumn, what: str, footer_start: int) -> ColumnChunk:
    # pages and bloom filters lie between the leading magic and the footer; offsets elsewhere are corrupt
    if not isinstance(fields, dict):
        raise ParquetError(f"{what}: not a struct")
    meta = _get(fields, 3, dict, what)
    if meta is None:
        raise ParquetError(f"{what}: no column metadata in the footer (stored elsewhere, which orcjit does not read)")
    path = _required(meta, 3, list, what, "path_in_schema")
    if not all(isinstance(p, bytes) for p in path) or ".".join(_text(p, what) or "" for p in path) != leaf.path:
        raise ParquetError(f"{what}: the chunk's path_in_schema {path!r} is not the schema's")
    stats = _get(meta, 12, dict, what) or {}
    offset = _get(meta, 14, int, what)
    length = _get(meta, 15, int, what)
    if offset is not None and not 4 <= offset < footer_start:
        raise ParquetError(
            f"{what}: bloom_filter_offset {offset} lies outside the file's data (bytes 4 to {footer_start})"
        )
    if length is not None and (length <= 0 or offset is None or offset + length > footer_start):
        raise ParquetError(
            f"{what}: bloom filter of {length} bytes at {offset} does not fit the file's data (bytes 4 to "
            f"{footer_start})"
        )
    num_values = _required(meta, 5, int, what, "num_values")
    if num_values < 0:
        raise ParquetError(f"{what}: {num_values} values")
    data_page_offset = _required(meta, 9, int, what, "data_page_offset")
    # pyarrow writes offset 0 for the chunks of an empty row group, which have no pages
    if not (4 if num_values else 0) <= data_page_offset < footer_start:
        raise ParquetError(
            f"{what}: data_page_offset {data_page_offset} lies outside the file's data (bytes 4 to {footer_start})"
        )
    return ColumnChunk(
        column=leaf,
        codec=_name(CODECS, _required(meta, 4, int, what, "codec")),
        num_values=num_values,
        total_compressed_size=_required(meta, 7, int, what, "total_compressed_size"),
        data_page_offset=data_page_offset,
        dictionary_page_offset=_get(meta, 11, int, what),
        null_count=_get(stats, 3, int, what),
        min_value=_get(stats, 6, bytes, what),
        max_value=_get(stats, 5, bytes, what),
        bloom_filter_offset=offset,
        bloom_filter_length=length,
    )
