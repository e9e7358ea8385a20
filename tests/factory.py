"""Test-data factory: write ORC files with pyarrow or pyorc, and generate deterministic data covering every type.

Writers
-------
:func:`write_pyarrow` wraps ``pyarrow.orc.write_table`` and :func:`write_pyorc` wraps ``pyorc.Writer``. Both take a
``path`` that is either a directory (pytest's ``tmp_path``; a fresh ``pyarrow-N.orc`` / ``pyorc-N.orc`` name is
picked inside it) or a file path, and return the path written. Both smooth over writer quirks:

- compression names are the same for both: ``"zstd"``, ``"zlib"``, ``"snappy"``, ``"lz4"``, ``"uncompressed"``
  (alias ``"none"``); the ORC name orcjit reports is ``ORC_COMPRESSION[name]``;
- the ORC C++ writer barely compresses LZ4 under the default ``speed`` strategy, so ``compression_strategy=None``
  means ``"compression"`` for LZ4 and ``"speed"`` otherwise;
- pyarrow's ``bloom_filter_columns`` takes ORC column ids: :func:`write_pyarrow` takes field names (dotted paths
  for nested struct fields) and translates them;
- pyarrow's ``dictionary_key_size_threshold`` defaults to 0, which disables dictionary encoding: pass ``1.0`` to
  force dictionaries;
- the ORC C++ writer only counts a compressed stream towards the stripe size once a whole compression block is
  full. pyorc lets us shrink the blocks, so :func:`write_pyorc` uses 4 KiB blocks when a ``stripe_size`` below
  1 MiB is asked for, and small stripes really happen under compression. pyarrow cannot (its memory block is
  64 KiB): an uncompressed pyarrow file splits at every batch once past ``stripe_size``, a compressed one only
  after about 64 KiB of compressed output per stream (a few ten thousand rows of :func:`all_types_table`).

Timestamps through pyorc
------------------------
pyorc's own converter drops nanoseconds and reads naive datetimes in the *machine's* time zone.
:func:`write_pyorc` installs :class:`NanoTimestampConverter` instead, for both ``timestamp`` and
``timestamp with local time zone``. It takes ``pandas.Timestamp``, ``datetime`` or a raw ``(seconds, nanoseconds)``
tuple (passed through untouched). A naive value is a wall clock in the writer's ``timezone`` (UTC by default):
exactly what a ``timestamp`` column stores; an aware value is an instant. Pass ``converters=PYORC_CONVERTERS`` to
``pyorc.Reader`` to read nanosecond ``pandas.Timestamp`` values back (UTC-aware, converted to the reader's zone).

The ORC C++ writer cannot store an instant in the second before the epoch with a fraction of a millisecond or
more (it stores ``seconds + 1``, which readers cannot tell from a positive time): the converter refuses those
values unless given as a raw tuple, and the generators never produce them. With a writer time zone other than UTC,
ORC C++ also reads a fractional second within the zone's UTC offset of 1970 back a second off (the writer corrects
by the sign of the UTC seconds, the reader by that of the wall clock's); statistics are not affected.

pyorc 0.12 writes a null ``uniontype`` value from uninitialised memory and crashes at random: never pass ``None``
for a union.

Data
----
:func:`all_types_table` (a pyarrow Table) and :func:`all_types_pyorc` (a pyorc schema string and rows) cover every
ORC type each writer can write, deterministically from ``seed``, with ``nulls="none" | "some" | "all"``. Rows 0 and
1 hold each column's extremes (int64 min/max, float max, the largest decimals, the earliest and latest
dates/timestamps pandas can hold, the empty string and binary, unicode); with ``nulls="some"`` rows 0-3 are never
null, row 4 always is, and about 15 % of the others are (the union column of :func:`all_types_pyorc` is never
null, see above). Floats are NaN-free; :func:`float_nan_rows` has NaNs for a separate case.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import random
import struct
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pyorc
from pyorc.converters import ORCConverter

try:
    import pyarrow as pa
    import pyarrow.orc as pa_orc
except ImportError:  # CI's environment without pyarrow: the pyorc half of the factory works alone
    pa = pa_orc = None

__all__ = [
    "COMPRESSIONS",
    "NULLS",
    "ORC_COMPRESSION",
    "PYORC_CONVERTERS",
    "PYORC_FIELDS",
    "PYORC_SCHEMA",
    "TABLE_ORC_SCHEMA",
    "TABLE_TYPES",
    "NanoTimestampConverter",
    "all_types_pyorc",
    "all_types_table",
    "arrow_column_ids",
    "float_nan_rows",
    "orc_cpp_wall_clock",
    "write_pyarrow",
    "write_pyorc",
]

COMPRESSIONS = ("uncompressed", "zlib", "snappy", "lz4", "zstd")
# factory compression name -> the name orcjit.ORCFile.compression reports
ORC_COMPRESSION = {
    "uncompressed": "NONE",
    "none": "NONE",
    "zlib": "ZLIB",
    "snappy": "SNAPPY",
    "lz4": "LZ4",
    "zstd": "ZSTD",
}
NULLS = ("none", "some", "all")

_PYARROW_COMPRESSION = {
    "uncompressed": "UNCOMPRESSED",
    "none": "UNCOMPRESSED",
    "zlib": "ZLIB",
    "snappy": "SNAPPY",
    "lz4": "LZ4",
    "zstd": "ZSTD",
}
_PYORC_COMPRESSION = {
    "uncompressed": pyorc.CompressionKind.NONE,
    "none": pyorc.CompressionKind.NONE,
    "zlib": pyorc.CompressionKind.ZLIB,
    "snappy": pyorc.CompressionKind.SNAPPY,
    "lz4": pyorc.CompressionKind.LZ4,
    "zstd": pyorc.CompressionKind.ZSTD,
}
_SMALL_STRIPE = 1 << 20
_SMALL_BLOCK = 4096
_NS = 1_000_000_000


# -- writing ------------------------------------------------------------------------------------------------------


def _target(path: str | Path, stem: str) -> Path:
    """``path`` itself, or a fresh ``stem-N.orc`` inside it when it is a directory."""
    path = Path(path)
    if not path.is_dir():
        return path
    for i in range(1_000_000):
        candidate = path / f"{stem}-{i}.orc"
        if not candidate.exists():
            return candidate
    raise RuntimeError(f"no free file name in {path}")


def _compression_name(compression: str) -> str:
    name = compression.lower()
    if name not in ORC_COMPRESSION:
        raise ValueError(f"unknown compression {compression!r}; use one of {', '.join(COMPRESSIONS)}")
    return name


def _strategy(compression: str, strategy: str | None) -> str:
    if strategy is None:
        return "compression" if compression == "lz4" else "speed"
    if strategy.lower() not in ("speed", "compression"):
        raise ValueError(f"compression_strategy must be 'speed' or 'compression', not {strategy!r}")
    return strategy.lower()


def arrow_column_ids(schema: pa.Schema) -> dict[str, int]:
    """ORC column ids of an Arrow schema's fields, by dotted path (struct fields only; the root is 0).

    Ids follow ORC's pre-order numbering: list elements, map keys and values and union variants take ids too.
    """
    ids: dict[str, int] = {}
    next_id = 1

    def visit(path: str, typ: pa.DataType) -> None:
        nonlocal next_id
        ids[path] = next_id
        next_id += 1
        if pa.types.is_struct(typ):
            for i in range(typ.num_fields):
                child = typ.field(i)
                visit(f"{path}.{child.name}", child.type)
        elif pa.types.is_map(typ):
            visit(f"{path}.<key>", typ.key_type)
            visit(f"{path}.<value>", typ.item_type)
        elif pa.types.is_list(typ) or pa.types.is_large_list(typ):
            visit(f"{path}.<element>", typ.value_type)
        elif pa.types.is_union(typ):
            for i in range(typ.num_fields):
                visit(f"{path}.<{i}>", typ.field(i).type)

    for field in schema:
        visit(field.name, field.type)
    return ids


def write_pyarrow(
    path: str | Path,
    table_or_df: pa.Table | pd.DataFrame,
    *,
    compression: str = "zstd",
    file_version: str = "0.12",
    stripe_size: int | None = None,
    batch_size: int | None = None,
    row_index_stride: int | None = None,
    bloom_filter_columns: Iterable[str] | None = None,
    bloom_filter_fpp: float | None = None,
    dictionary_key_size_threshold: float | None = None,
    compression_strategy: str | None = None,
    compression_block_size: int | None = None,
) -> Path:
    """Write a pyarrow Table (or a pandas DataFrame, without its index) as ORC with ``pyarrow.orc.write_table``.

    ``None`` leaves pyarrow's default (stripes of 64 MiB, batches of 1024 rows, a row index every 10000 rows, no
    bloom filters, fpp 0.05, no dictionaries, 64 KiB compression blocks, which must be a multiple of 64 KiB).
    ``bloom_filter_columns`` are field names, dotted for nested struct fields.
    """
    table = (
        table_or_df if isinstance(table_or_df, pa.Table) else pa.Table.from_pandas(table_or_df, preserve_index=False)
    )
    name = _compression_name(compression)
    if file_version not in ("0.11", "0.12"):
        raise ValueError(f"file_version must be '0.11' or '0.12', not {file_version!r}")
    kwargs: dict[str, Any] = {
        "compression": _PYARROW_COMPRESSION[name],
        "compression_strategy": _strategy(name, compression_strategy).upper(),
        "file_version": file_version,
    }
    optional = {
        "stripe_size": stripe_size,
        "batch_size": batch_size,
        "row_index_stride": row_index_stride,
        "bloom_filter_fpp": bloom_filter_fpp,
        "dictionary_key_size_threshold": dictionary_key_size_threshold,
        "compression_block_size": compression_block_size,
    }
    kwargs.update({key: value for key, value in optional.items() if value is not None})
    if bloom_filter_columns is not None:
        ids = arrow_column_ids(table.schema)
        try:
            kwargs["bloom_filter_columns"] = sorted(ids[column] for column in bloom_filter_columns)
        except KeyError as e:
            raise KeyError(f"no column {e.args[0]!r} in {table.schema.names}") from None
    target = _target(path, "pyarrow")
    pa_orc.write_table(table, str(target), **kwargs)
    return target


class NanoTimestampConverter(ORCConverter):
    """pyorc timestamp converter keeping nanoseconds (see the module docstring)."""

    @staticmethod
    def from_orc(seconds: int, nanoseconds: int, timezone: zoneinfo.ZoneInfo) -> pd.Timestamp:
        return pd.Timestamp(seconds * _NS + nanoseconds, unit="ns", tz="UTC").tz_convert(timezone)

    @staticmethod
    def to_orc(obj: Any, timezone: zoneinfo.ZoneInfo) -> tuple[int, int]:
        if isinstance(obj, tuple):
            return obj
        ts = pd.Timestamp(obj)
        if ts.tzinfo is None:
            ts = ts.tz_localize(timezone)
        ns = ts.as_unit("ns").value
        seconds, nanos = divmod(ns, _NS)
        if seconds == -1 and nanos > 999_999:
            raise ValueError(
                f"{obj!r}: ORC C++ writers store an instant in the second before 1970 with a fraction of a "
                "millisecond or more as a positive time; pass a raw (seconds, nanoseconds) tuple to write it anyway"
            )
        return seconds, nanos


def orc_cpp_wall_clock(instant: pd.Timestamp, timezone: str) -> pd.Timestamp:
    """The wall clock ORC C++ (pyarrow, ``orc::Timezone``) reads for ``instant`` (aware) stored in a ``timestamp``
    column of a file written in ``timezone``: zoneinfo's, except before the zone's first transition into standard
    time, where ORC C++ applies that standard offset instead of local mean time. A reference independent of
    ``orcjit.timezones``: the transition is found by probing ``zoneinfo``."""
    utc = instant.tz_convert("UTC")
    first = _first_standard_transition(timezone)
    if first is not None and utc < first[0]:
        return (utc + first[1]).tz_localize(None)
    return utc.tz_convert(zoneinfo.ZoneInfo(timezone)).tz_localize(None)


@functools.lru_cache
def _first_standard_transition(timezone: str) -> tuple[pd.Timestamp, dt.timedelta] | None:
    """The zone's first transition (from 1600 on) into standard time, and its offset. A transition changes the
    offset, the abbreviation or both (Europe/Dublin's LMT became DMT at the same offset)."""
    zone = zoneinfo.ZoneInfo(timezone)

    def local_type(t: dt.datetime) -> tuple[Any, ...]:
        local = t.astimezone(zone)
        return local.utcoffset(), local.tzname(), local.dst()

    at = dt.datetime(1600, 1, 1, tzinfo=dt.UTC)
    end = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    step = dt.timedelta(days=7)
    while at < end:
        before = local_type(at)
        while at < end and local_type(at + step) == before:
            at += step
        if at >= end:
            return None
        low, high = at, at + step  # the transition lies in (low, high]
        while high - low > dt.timedelta(seconds=1):
            mid = (low + (high - low) / 2).replace(microsecond=0)
            low, high = (mid, high) if local_type(mid) == before else (low, mid)
        offset, _name, dst = local_type(high)
        if not dst:
            return pd.Timestamp(high), offset
        at = high
    return None


PYORC_CONVERTERS: dict[pyorc.TypeKind, type[ORCConverter]] = {
    pyorc.TypeKind.TIMESTAMP: NanoTimestampConverter,
    pyorc.TypeKind.TIMESTAMP_INSTANT: NanoTimestampConverter,
}


def write_pyorc(
    path: str | Path,
    schema_str: str,
    rows: Iterable[Any],
    *,
    compression: str = "zstd",
    compression_strategy: str | None = None,
    compression_block_size: int | None = None,
    memory_block_size: int | None = None,
    stripe_size: int | None = None,
    batch_size: int | None = None,
    row_index_stride: int | None = None,
    bloom_filter_columns: Iterable[str | int] | None = None,
    bloom_filter_fpp: float | None = None,
    dict_key_size_threshold: float | None = None,
    struct_repr: str | pyorc.StructRepr = "tuple",
    timezone: str | zoneinfo.ZoneInfo = "UTC",
    metadata: Mapping[str, bytes] | None = None,
    converters: Mapping[pyorc.TypeKind, type[ORCConverter]] | None = None,
) -> Path:
    """Write ``rows`` (tuples, or dicts with ``struct_repr="dict"``) as ORC with ``pyorc.Writer``.

    ``None`` leaves pyorc's default (stripes of 64 MiB, batches of 1024 rows, a row index every 10000 rows, 64 KiB
    blocks, no bloom filters, fpp 0.05, no dictionaries), except that a ``stripe_size`` below 1 MiB brings 4 KiB
    compression blocks with it. ``memory_block_size`` defaults to the compression block size (it must divide
    it). ``bloom_filter_columns`` are field names (dotted for nested fields) or column ids. ``timezone`` is the
    writer's time zone: it is recorded in the stripe footers and naive timestamps are wall clocks in it.
    ``metadata`` is stored as user metadata. ``converters`` are added to :data:`PYORC_CONVERTERS`. LZO cannot be
    written (the ORC C++ library has no LZO compressor), nor a null union value (pyorc crashes at random).
    """
    name = _compression_name(compression)
    kwargs: dict[str, Any] = {
        "compression": _PYORC_COMPRESSION[name],
        "compression_strategy": pyorc.CompressionStrategy[_strategy(name, compression_strategy).upper()],
        "struct_repr": pyorc.StructRepr[struct_repr.upper()] if isinstance(struct_repr, str) else struct_repr,
        "timezone": zoneinfo.ZoneInfo(timezone) if isinstance(timezone, str) else timezone,
        "converters": {**PYORC_CONVERTERS, **(converters or {})},
    }
    if compression_block_size is None and stripe_size is not None and stripe_size < _SMALL_STRIPE:
        compression_block_size = _SMALL_BLOCK
    if compression_block_size is not None:
        kwargs["compression_block_size"] = compression_block_size
        kwargs["memory_block_size"] = memory_block_size or compression_block_size
    elif memory_block_size is not None:
        kwargs["memory_block_size"] = memory_block_size
    optional = {
        "stripe_size": stripe_size,
        "batch_size": batch_size,
        "row_index_stride": row_index_stride,
        "bloom_filter_fpp": bloom_filter_fpp,
        "dict_key_size_threshold": dict_key_size_threshold,
    }
    kwargs.update({key: value for key, value in optional.items() if value is not None})
    if bloom_filter_columns is not None:
        kwargs["bloom_filter_columns"] = list(bloom_filter_columns)
    target = _target(path, "pyorc")
    with open(target, "wb") as fh:
        writer = pyorc.Writer(fh, schema_str, **kwargs)
        try:
            writer.writerows(rows)
            if metadata:
                writer.set_user_metadata(**metadata)
        finally:
            writer.close()
    return target


# -- data ---------------------------------------------------------------------------------------------------------

# words for strings: the empty string, ASCII, accents, CJK, symbols beyond the BMP
WORDS = ("", "a", "abc", "Zebra", "zebra", "naïve", "straße", "Ωmega", "日本", "中文字", "🎉", "x" * 20, "0", "~")
INT_RANGES = {"i8": 8, "i16": 16, "i32": 32}
DECIMALS = {"dec5": (5, 2), "dec18": (18, 6), "dec38": (38, 10)}
F32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
F64_MAX = 1.7976931348623157e308
DATE_EXTREMES = (dt.date(1677, 9, 22), dt.date(2262, 4, 11))
TS_EXTREMES = (pd.Timestamp("1678-01-01 00:00:00.000000001"), pd.Timestamp("2261-12-31 23:59:59.999999999"))
_DATE_RANGE = ((dt.date(1900, 1, 1) - dt.date(1970, 1, 1)).days, (dt.date(2100, 1, 1) - dt.date(1970, 1, 1)).days)
_TS_RANGE = (pd.Timestamp("1900-01-01").value, pd.Timestamp("2100-01-01").value)

# the Arrow types of all_types_table's columns, and the ORC schema pyarrow writes for them
TABLE_TYPES = (
    {}
    if pa is None
    else {
        "bool": pa.bool_(),
        "i8": pa.int8(),
        "i16": pa.int16(),
        "i32": pa.int32(),
        "i64": pa.int64(),
        "f32": pa.float32(),
        "f64": pa.float64(),
        "str": pa.string(),
        "bin": pa.binary(),
        "dec5": pa.decimal128(5, 2),
        "dec18": pa.decimal128(18, 6),
        "dec38": pa.decimal128(38, 10),
        "date": pa.date32(),
        "ts": pa.timestamp("ns"),
        "ts_utc": pa.timestamp("ns", tz="UTC"),
        "list": pa.list_(pa.int32()),
        "map": pa.map_(pa.string(), pa.float64()),
        "struct": pa.struct([("a", pa.int32()), ("b", pa.string())]),
    }
)
TABLE_ORC_SCHEMA = (
    "struct<bool:boolean,i8:tinyint,i16:smallint,i32:int,i64:bigint,f32:float,f64:double,str:string,bin:binary,"
    "dec5:decimal(5,2),dec18:decimal(18,6),dec38:decimal(38,10),date:date,ts:timestamp,"
    "ts_utc:timestamp with local time zone,list:array<int>,map:map<string,double>,struct:struct<a:int,b:string>>"
)
PYORC_SCHEMA = (
    "struct<bool:boolean,i8:tinyint,i16:smallint,i32:int,i64:bigint,f32:float,f64:double,str:string,char:char(8),"
    "varchar:varchar(12),bin:binary,dec5:decimal(5,2),dec18:decimal(18,6),dec38:decimal(38,10),date:date,"
    "ts:timestamp,ts_utc:timestamp with local time zone,list:array<int>,map:map<string,double>,"
    "struct:struct<a:int,b:string>,union:uniontype<int,string>>"
)


def _valid(rng: random.Random, n: int, nulls: str) -> list[bool]:
    """Which rows hold a value: all, none, or all but ~15 % (rows 0-3 always valid, row 4 always null)."""
    if nulls not in NULLS:
        raise ValueError(f"nulls must be one of {NULLS}, not {nulls!r}")
    if nulls != "some":
        return [nulls == "none"] * n
    valid = [rng.random() >= 0.15 for _ in range(n)]
    for i in range(min(n, 4)):
        valid[i] = True
    if n > 4:
        valid[4] = False
    return valid


def _string(rng: random.Random, max_words: int = 3) -> str:
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, max_words)))


def _float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _decimal(unscaled: int, scale: int) -> Decimal:
    # built from text, exactly: Decimal arithmetic would round to the context's 28 digits
    return Decimal(f"{unscaled}E-{scale}")


def _timestamp_ns(rng: random.Random) -> int:
    ns = rng.randrange(*_TS_RANGE)
    if -_NS <= ns < 0:  # the second before the epoch: see NanoTimestampConverter
        ns -= _NS
    return ns


def _columns(n: int, seed: int, nulls: str, extra: bool) -> dict[str, list[Any]]:
    """Python values of every column, None for nulls; ``extra`` adds the pyorc-only char, varchar and union."""
    rng = random.Random(seed)
    cols: dict[str, list[Any]] = {}

    def column(name: str, make: Any, extremes: Sequence[Any] = ()) -> None:
        valid = _valid(rng, n, nulls)
        values = [make() for _ in range(n)]
        for i, value in enumerate(extremes[:n]):
            values[i] = value
        cols[name] = [v if ok else None for v, ok in zip(values, valid, strict=True)]

    column("bool", lambda: rng.random() < 0.4, (True, False))
    for name, bits in INT_RANGES.items():
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        column(name, lambda lo=lo, hi=hi: rng.randint(lo, hi), (lo, hi))
    # int64 extremes cancel in the sum, the other values are small enough for it not to overflow
    column("i64", lambda: rng.randint(-(1 << 40), 1 << 40), (-(1 << 63), (1 << 63) - 1))
    column("f32", lambda: _float32(round(rng.gauss(0, 1000), 3)), (-F32_MAX, F32_MAX))
    column("f64", lambda: rng.gauss(0, 1e6), (-F64_MAX, F64_MAX))
    column("str", lambda: _string(rng), ("", "🎉🎉 ünïcödé"))
    if extra:
        column("char", lambda: _string(rng, 2)[:8], ("", "日本語"))
        column("varchar", lambda: _string(rng, 2)[:12], ("", "é" * 12))
    column("bin", lambda: rng.randbytes(rng.randint(0, 16)), (b"", b"\xff" * 16))
    for name, (precision, scale) in DECIMALS.items():
        top = 10**precision - 1
        column(
            name,
            lambda p=precision, s=scale: _decimal(rng.randint(-(10 ** min(p, 20)) + 1, 10 ** min(p, 20) - 1), s),
            (_decimal(-top, scale), _decimal(top, scale)),
        )
    epoch = dt.date(1970, 1, 1)
    column("date", lambda: epoch + dt.timedelta(days=rng.randint(*_DATE_RANGE)), DATE_EXTREMES)
    column("ts", lambda: pd.Timestamp(_timestamp_ns(rng)), TS_EXTREMES)
    column(
        "ts_utc", lambda: pd.Timestamp(_timestamp_ns(rng), tz="UTC"), tuple(t.tz_localize("UTC") for t in TS_EXTREMES)
    )

    def maybe(make: Any) -> Any:
        # nested values are null only with nulls="some" (with "all" there are no nested values at all)
        return None if nulls == "some" and rng.random() < 0.1 else make()

    column("list", lambda: [maybe(lambda: rng.randint(-1000, 1000)) for _ in range(rng.randint(0, 4))])
    column(
        "map",
        lambda: {k: maybe(lambda: round(rng.uniform(-100, 100), 2)) for k in rng.sample(WORDS, rng.randint(0, 3))},
    )
    column("struct", lambda: {"a": maybe(lambda: rng.randint(-50, 50)), "b": maybe(lambda: _string(rng))})
    if extra:
        # never null: pyorc 0.12 writes a null union value from uninitialised memory (crashes at random)
        cols["union"] = [
            rng.randint(-(1 << 31), (1 << 31) - 1) if rng.random() < 0.5 else _string(rng) for _ in range(n)
        ]
    return cols


def all_types_table(n: int = 2000, seed: int = 0, nulls: str = "some") -> pa.Table:
    """A pyarrow Table of ``n`` rows with a column of every type pyarrow writes to ORC.

    Columns (ORC type pyarrow writes, see :data:`TABLE_ORC_SCHEMA`): ``bool``, ``i8``, ``i16``, ``i32``, ``i64``,
    ``f32``, ``f64``, ``str``, ``bin``, ``dec5`` (decimal(5,2)), ``dec18`` (decimal(18,6)), ``dec38``
    (decimal(38,10)), ``date``, ``ts`` (naive ns timestamp: ORC ``timestamp``), ``ts_utc`` (UTC ns timestamp: ORC
    ``timestamp with local time zone``), ``list`` (list<int32>), ``map`` (map<string,double>) and ``struct``
    (struct<a:int32,b:string>). ``nulls`` is ``"none"``, ``"some"`` or ``"all"``.
    """
    cols = _columns(n, seed, nulls, extra=False)
    arrays = {}
    for name, typ in TABLE_TYPES.items():
        values = cols[name]
        if name in ("ts", "ts_utc"):
            values = [None if v is None else v.value for v in values]
        elif name == "map":
            values = [None if v is None else list(v.items()) for v in values]
        arrays[name] = pa.array(values, typ)
    return pa.table(arrays)


def all_types_pyorc(n: int = 2000, seed: int = 0, nulls: str = "some") -> tuple[str, list[tuple[Any, ...]]]:
    """A pyorc schema string with a column of every ORC type, and ``n`` rows for it (tuples, for
    ``struct_repr="tuple"``), to be written with :func:`write_pyorc`.

    Columns are those of :func:`all_types_table` plus ``char`` (char(8)), ``varchar`` (varchar(12)) and ``union``
    (uniontype<int,string>); ``ts`` values are naive wall clocks, ``ts_utc`` values UTC instants, both
    ``pandas.Timestamp`` with nanoseconds; maps are dicts, structs tuples.
    """
    cols = _columns(n, seed, nulls, extra=True)
    struct_values = [None if v is None else (v["a"], v["b"]) for v in cols["struct"]]
    cols["struct"] = struct_values
    rows = list(zip(*(cols[name] for name in PYORC_FIELDS), strict=True))
    return PYORC_SCHEMA, rows


def _top_level_fields(schema: str) -> list[str]:
    """``"name:type"`` parts of a ``struct<...>`` schema string."""
    body, depth, parts, start = schema[len("struct<") : -1], 0, [], 0
    for i, ch in enumerate(body):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


# the field names of PYORC_SCHEMA, in order (the positions in all_types_pyorc's row tuples)
PYORC_FIELDS = [part.split(":", 1)[0] for part in _top_level_fields(PYORC_SCHEMA)]


def float_nan_rows(n: int = 100) -> list[tuple[float | None, float | None]]:
    """Rows for ``struct<f:float,d:double>`` with NaN among ordinary values (NaN statistics are writer-specific)."""
    return [(math.nan if i % 7 == 3 else float(i), math.nan if i % 5 == 1 else -float(i)) for i in range(n)]
