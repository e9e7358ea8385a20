"""Write ``orcjit/data/warmup*.orc``: the ORC files ``orcjit warmup`` reads to compile every kernel a read can use.

Run it (from anywhere) after changing what the files hold, and commit what it writes::

    python scripts/make_warmup_orc.py              # writes orcjit/data/warmup*.orc
    python scripts/make_warmup_orc.py --out-dir D  # writes them into D instead

It needs pyorc and pyarrow (the ``test`` extra: ``pip install -e ".[test]"``). The rows come from seeded generators
and nothing depends on the clock, the locale or the time zone, so every run writes the same bytes with the same
pyorc and pyarrow (others may write other bytes: they record their ORC library's version). Warmup only reads these
files, so it needs neither pyorc nor pyarrow.

Which kernel specialisations a read compiles depends on types, encodings, codecs and a few value shapes (RLE v2's
sub-encodings, a range of dates too wide for a lookup table, strings and decimals numerous enough to deduplicate),
not on how many rows there are: each file holds just enough rows for those, in a few row groups and stripes.

``warmup.orc`` is written with pyorc (the ORC C++ writer), which writes the types pyarrow cannot: ``char``,
``varchar`` and ``uniontype``. It holds 600 rows, zstd, with a row index every 300 rows and bloom filters on every
primitive column but the char ones, so that reading it runs the kernels of every type: each with and without nulls,
a column entirely null, dictionary and direct strings, lists and maps of strings, unions of an integer and a string
(dictionary and direct), nested structs. It has enough strings (over 256 per column) for the string conversion's
deduplication to run, and strings that are not ASCII, for the UTF-8 check's kernels (all-ASCII strings need none).
The values span small ranges, which keeps the file small.

``warmup-v11.orc`` holds the first 300 of those rows for the types pyarrow writes, as ORC file version 0.11 (RLE
v1, which pyorc cannot write), zlib.

``warmup-none.orc`` and ``warmup-lzo.orc`` are the first 100 rows of ``warmup.orc`` rewritten uncompressed and with
LZO by ``orc_rewrite.py`` (no Python library writes LZO), without a row index and bloom filters.

``warmup-arrow*.orc`` are written by pyarrow from a table of every type it writes, each column once without nulls
and once with, whose values are wide where ``warmup.orc``'s are narrow (64-bit integers, dates over a century,
timestamps over years, decimals past 64 bits), with repeats and sequences for RLE v2's other sub-encodings.
``warmup-arrow.orc`` holds its 300 rows (zstd, a row index every 100 rows, bloom filters), and
``warmup-arrow-nulls.orc`` as many with every value null. The table's first 100 rows, with a row index every 25,
are in each of the other codecs: ``warmup-arrow-none.orc`` (uncompressed, a stripe per row group, so that seeks
cross stripes), ``warmup-arrow-zlib.orc``, ``warmup-arrow-snappy.orc``, ``warmup-arrow-lz4.orc`` and
``warmup-arrow-v11.orc`` (ORC file version 0.11: RLE v1, zlib).
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import io
import random
import zoneinfo
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import pyorc
from orc_rewrite import LZO, NONE, recompress

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "orcjit" / "data" / "warmup.orc"
OUT_V1 = ROOT / "orcjit" / "data" / "warmup-v11.orc"

NROWS = 600
# RLE v1 needs fewer: its kernels run the same on any number of values
V1_ROWS = 300
# warmup.orc's first rows, rewritten uncompressed and with LZO: their kernels are those of the zstd file's
REWRITE_ROWS = 100
SEED = 20_240_607
ROW_INDEX_STRIDE = 300
STRIPE_SIZE = 16 * 1024
# the writer checks the stripe size between batches only
BATCH_SIZE = 400
BLOOM_FPP = 0.3
# "dict" (5 distinct values) is dictionary encoded, "str" (over half distinct) is not
DICTIONARY_THRESHOLD = 0.5
BLOCK_SIZE = 4 * 1024

PRIMITIVES = [
    ("bool", "boolean"),
    ("i8", "tinyint"),
    ("i16", "smallint"),
    ("i32", "int"),
    ("i64", "bigint"),
    ("f32", "float"),
    ("f64", "double"),
    ("str", "string"),
    ("dict", "string"),
    ("char", "char(6)"),
    ("varchar", "varchar(10)"),
    ("bin", "binary"),
    ("dec", "decimal(10,2)"),
    ("dec38", "decimal(38,6)"),
    ("date", "date"),
    ("ts", "timestamp"),
    ("ts_local", "timestamp with local time zone"),
]
COMPOUND = [
    ("list", "array<string>"),
    ("map", "map<string,bigint>"),
    ("struct", "struct<a:int,b:struct<c:string,d:double>>"),
    ("union", "uniontype<int,string>"),
    ("union_direct", "uniontype<int,string>"),
]
# one of them not ASCII (and among the five of the "dict" column): checking all-ASCII strings needs no kernel, so
# without it a read of other strings would still compile the UTF-8 check's
WORDS = [f"w{i:02d}" if i != 1 else "wü01" for i in range(30)]
UTC = datetime.UTC
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


def _value(kind: str, rng: random.Random, row: int) -> object:
    if kind == "boolean":
        return rng.random() < 0.4
    if kind in ("tinyint", "smallint", "int", "bigint"):
        bits = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}[kind]
        if row % 50 == 7:
            return 2 ** (bits - 1) - 1 - row % 50  # an outlier among small values: RLE v2's patched base
        return row % 128 if row % 3 == 0 else rng.randrange(-100, 100)
    if kind in ("float", "double"):
        return rng.randrange(-1000, 1000) / 4
    if kind == "string":
        return f"s{rng.randrange(10**4)}" if row % 2 else rng.choice(WORDS)
    if kind.startswith("char") or kind.startswith("varchar"):
        return rng.choice(WORDS)
    if kind == "binary":
        return bytes(rng.randrange(4) for _ in range(row % 3))
    if kind == "decimal(10,2)":
        return decimal.Decimal(rng.randrange(-(10**5), 10**5)).scaleb(-2)
    if kind == "decimal(38,6)":
        # past 64 bits now and then, so that 128-bit arithmetic runs
        return decimal.Decimal(rng.randrange(-(10**5), 10**5) * (10**22 if row % 10 == 0 else 1)).scaleb(-6)
    if kind == "date":
        return datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(-400, 400))
    if kind.startswith("timestamp"):
        return EPOCH + datetime.timedelta(seconds=rng.randrange(10**6), microseconds=rng.randrange(4) * 250)
    raise ValueError(kind)


def _rows(rng: random.Random) -> list[tuple[object, ...]]:
    rows = []
    for row in range(NROWS):
        values: list[object] = []
        for name, kind in PRIMITIVES:
            if name == "dict":
                value: object = rng.choice(WORDS[:5])
            else:
                value = _value(kind, rng, row)
            values.append(value)
            values.append(None if rng.random() < 0.2 else value)  # the twin with nulls
        values.append(None)  # a column entirely null
        values.append([rng.choice(WORDS) for _ in range(row % 4)] if row % 9 else None)
        values.append({rng.choice(WORDS): rng.randrange(10**6) for _ in range(row % 3)} if row % 11 else None)
        values.append((row, (rng.choice(WORDS), rng.randrange(8) / 4)) if row % 13 else None)
        # pyorc cannot write a null union; the strings of the first repeat (a dictionary), of the second not
        values.append(row if row % 2 else rng.choice(WORDS))
        values.append(row if row % 2 else f"u{row}")
        rows.append(tuple(values))
    return rows


def schema() -> str:
    """The ORC type string of the file."""
    fields = []
    for name, kind in PRIMITIVES:
        fields += [f"{name}:{kind}", f"{name}_nulls:{kind}"]
    fields.append("all_null:string")
    fields += [f"{name}:{kind}" for name, kind in COMPOUND]
    return "struct<" + ",".join(fields) + ">"


def write_v2(path: Path, rows: list[tuple[object, ...]]) -> None:
    """All types with pyorc: RLE v2, zstd, row index, bloom filters."""
    with open(path, "wb") as f:
        _write_v2(f, rows)


def _write_v2(f: BinaryIO, rows: list[tuple[object, ...]]) -> None:
    # not on char columns: the ORC C++ writer hashes their padding from uninitialised memory, so the bytes would
    # change from run to run
    bloom = [n for name, kind in PRIMITIVES if not kind.startswith("char") for n in (name, f"{name}_nulls")]
    writer = pyorc.Writer(
        f,
        schema(),
        compression=pyorc.CompressionKind.ZSTD,
        stripe_size=STRIPE_SIZE,
        compression_block_size=BLOCK_SIZE,
        memory_block_size=BLOCK_SIZE,
        row_index_stride=ROW_INDEX_STRIDE,
        bloom_filter_columns=bloom,
        bloom_filter_fpp=BLOOM_FPP,
        dict_key_size_threshold=DICTIONARY_THRESHOLD,
        batch_size=BATCH_SIZE,
        timezone=zoneinfo.ZoneInfo("UTC"),
    )
    writer.writerows(rows)
    writer.close()


def _arrow_type(kind: str):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    simple = {
        "boolean": pa.bool_(),
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "binary": pa.binary(),
        "decimal(10,2)": pa.decimal128(10, 2),
        "decimal(38,6)": pa.decimal128(38, 6),
        "date": pa.date32(),
        "timestamp": pa.timestamp("ns"),
        "timestamp with local time zone": pa.timestamp("ns", tz="UTC"),
    }
    return simple.get(kind)


def write_v1(path: Path, rows: list[tuple[object, ...]]) -> None:
    """The types pyarrow writes, with pyarrow as ORC file version 0.11: RLE v1 and the DIRECT / DICTIONARY encodings.

    pyorc cannot write this version; char, varchar and the unions are left out (pyarrow cannot write them).
    """
    import pyarrow as pa
    import pyarrow.orc

    columns, fields = [], []
    names = [n for name, _ in PRIMITIVES for n in (name, f"{name}_nulls")]
    kinds = [k for _, kind in PRIMITIVES for k in (kind, kind)]
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        typ = _arrow_type(kind)
        if typ is None:
            continue
        values = [row[i] for row in rows]
        if kind == "timestamp":  # naive: the UTC wall clock
            values = [None if v is None else v.replace(tzinfo=None) for v in values]  # type: ignore[union-attr]
        columns.append(pa.array(values, typ))
        fields.append(name)
    base = len(names)
    columns.append(pa.array([row[base + 1] for row in rows], pa.list_(pa.string())))
    fields.append("list")
    maps = [None if row[base + 2] is None else list(row[base + 2].items()) for row in rows]  # type: ignore[union-attr]
    columns.append(pa.array(maps, pa.map_(pa.string(), pa.int64())))
    fields.append("map")
    pyarrow.orc.write_table(
        pa.table(columns, names=fields),
        str(path),
        file_version="0.11",
        compression="zlib",
        compression_block_size=64 * 1024,
        dictionary_key_size_threshold=DICTIONARY_THRESHOLD,
        row_index_stride=1000,
    )


# -- the pyarrow-written files --------------------------------------------------------------------------------------

# over 256 values a column, so that strings and decimals are deduplicated
ARROW_ROWS = 300
ARROW_SEED = 20_240_608
ARROW_ROW_INDEX_STRIDE = 100
ARROW_NULL_FRACTION = 0.15
# the other codecs hold the table's first rows, in smaller row groups (and stripes, uncompressed)
CODEC_ROWS = 100
CODEC_ROW_INDEX_STRIDE = 25


def arrow_table():  # type: ignore[no-untyped-def]
    """A table of every type pyarrow writes to ORC, each column once without nulls and once with (``<name>_nulls``)."""
    import pyarrow as pa
    import pyarrow.compute

    rng = random.Random(ARROW_SEED)
    n = ARROW_ROWS
    words = [f"word-{i}" for i in range(20)]
    # the value shapes pick RLE v2's sub-encodings: repeats, deltas, wide random values with outliers
    big = [0 if i % 97 == 0 else rng.randrange(-(2**62), 2**62) for i in range(n)]
    t0 = int(datetime.datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC).timestamp()) * 10**9
    ts = [t0 + rng.randrange(10**17) for _ in range(n)]
    unscaled = [rng.randrange(-(10**15), 10**15) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    columns: dict[str, Any] = {
        "bool": pa.array([rng.random() < 0.3 for _ in range(n)]),
        "i8": pa.array([rng.randrange(-128, 128) for _ in range(n)], pa.int8()),
        "i16": pa.array([rng.randrange(-(2**15), 2**15) for _ in range(n)], pa.int16()),
        "i32": pa.array([v for _ in range(n // 10) for v in [rng.randrange(-(2**31), 2**31)] * 10], pa.int32()),
        "i64": pa.array(big, pa.int64()),
        "seq": pa.array([3 * i for i in range(n)], pa.int64()),
        "f32": pa.array([rng.gauss(0, 1e3) for _ in range(n)], pa.float32()),
        "f64": pa.array([rng.gauss(0, 1e6) for _ in range(n)], pa.float64()),
        "str": pa.array([f"s{v}" for v in order]),
        "dict": pa.array([rng.choice(words) for _ in range(n)]),
        "bin": pa.array([rng.randbytes(i % 9) for i in range(n)], pa.binary()),
        "dec": pa.array([decimal.Decimal(v % 10**9).scaleb(-2) for v in unscaled], pa.decimal128(12, 2)),
        # past 64 bits: 128-bit arithmetic
        "dec38": pa.array([decimal.Decimal((v << 40) + 7).scaleb(-6) for v in unscaled], pa.decimal128(38, 6)),
        # wider than a table of days over the range: the date conversion deduplicates instead
        "date": pa.array([rng.randrange(-20000, 30000) for _ in range(n)], pa.int32()).cast(pa.date32()),
        "ts": pa.array(ts, pa.timestamp("ns")),
        "ts_utc": pa.array(ts, pa.timestamp("ns", tz="UTC")),
        "list": pa.array([list(range(i % 4)) for i in range(n)], pa.list_(pa.int32())),
        "map": pa.array(
            [[(f"k{j}", float(j)) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.float64())
        ),
        "struct": pa.array(
            [{"a": i, "b": f"b{i % 5}"} for i in range(n)], pa.struct([("a", pa.int32()), ("b", pa.string())])
        ),
    }
    null = pa.array([i != 0 and rng.random() < ARROW_NULL_FRACTION for i in range(n)])
    arrays, names = [], []
    for name, arr in columns.items():
        arrays += [arr, pyarrow.compute.if_else(null, pa.scalar(None, arr.type), arr)]
        names += [name, f"{name}_nulls"]
    return pa.table(arrays, names=names)


def all_null(table):  # type: ignore[no-untyped-def]
    """``table`` with every value null."""
    import pyarrow as pa

    return pa.table([pa.nulls(len(table), c.type) for c in table.columns], names=table.column_names)


def _bloom_columns(schema: Any) -> list[int]:
    """The ids of the ORC columns of ``schema`` (numbered in pre-order, as ORC does) but the boolean and tinyint ones.

    The ORC C++ writer behind pyarrow hashes the null slots of those from uninitialised memory, so their bloom
    filters would change from run to run.
    """
    import pyarrow as pa

    flat: list[Any] = []  # the types of columns 1, 2, ...

    def walk(typ: Any) -> None:
        flat.append(typ)
        if pa.types.is_map(typ):
            children = [typ.key_type, typ.item_type]
        elif pa.types.is_list(typ):
            children = [typ.value_type]
        elif pa.types.is_struct(typ):
            children = [typ.field(i).type for i in range(typ.num_fields)]
        else:
            children = []
        for child in children:
            walk(child)

    for field in schema:
        walk(field.type)
    return [i for i, typ in enumerate(flat, start=1) if not (pa.types.is_boolean(typ) or pa.types.is_int8(typ))]


def write_arrow(path: Path, table: Any, compression: str, **options: Any) -> None:
    """``table`` written by pyarrow: a row index, bloom filters (:func:`_bloom_columns`), the "dict" columns as
    dictionaries."""
    import pyarrow.orc

    options.setdefault("row_index_stride", ARROW_ROW_INDEX_STRIDE)
    options.setdefault("dictionary_key_size_threshold", DICTIONARY_THRESHOLD)
    options.setdefault("bloom_filter_columns", _bloom_columns(table.schema))
    pyarrow.orc.write_table(table, str(path), compression=compression, **options)


# -- all of them ----------------------------------------------------------------------------------------------------


def writers() -> dict[str, Callable[[Path], None]]:
    """Each file's name, with the function writing it to a path."""
    rows = _rows(random.Random(SEED))
    table = arrow_table()
    head = table.slice(0, CODEC_ROWS)

    def rewritten(codec: int) -> Callable[[Path], None]:
        def write(path: Path) -> None:
            written = io.BytesIO()
            _write_v2(written, rows[:REWRITE_ROWS])
            path.write_bytes(recompress(written.getvalue(), codec))

        return write

    def arrow(data: Any, compression: str, **options: Any) -> Callable[[Path], None]:
        return lambda path: write_arrow(path, data, compression, **options)

    small = {"row_index_stride": CODEC_ROW_INDEX_STRIDE}
    return {
        OUT.name: lambda path: write_v2(path, rows),
        OUT_V1.name: lambda path: write_v1(path, rows[:V1_ROWS]),
        "warmup-none.orc": rewritten(NONE),
        "warmup-lzo.orc": rewritten(LZO),
        "warmup-arrow.orc": arrow(table, "zstd"),
        "warmup-arrow-nulls.orc": arrow(all_null(table), "zstd"),
        # a stripe per row group (the writer checks the stripe size between batches): seeks cross stripes
        "warmup-arrow-none.orc": arrow(
            head, "uncompressed", stripe_size=4096, batch_size=CODEC_ROW_INDEX_STRIDE, **small
        ),
        "warmup-arrow-zlib.orc": arrow(head, "zlib", **small),
        "warmup-arrow-snappy.orc": arrow(head, "snappy", **small),
        "warmup-arrow-lz4.orc": arrow(head, "lz4", **small),
        "warmup-arrow-v11.orc": arrow(head, "zlib", file_version="0.11", **small),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=OUT.parent)
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, write in writers().items():
        path = args.out_dir / name
        write(path)
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
