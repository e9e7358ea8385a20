"""Write ``orcjit/data/warmup.orc`` and ``warmup-v11.orc``, the files of every ORC type ``orcjit warmup`` reads.

Run from anywhere: ``python scripts/make_warmup_orc.py`` (needs pyorc and pyarrow, in the ``test`` extra). The rows
come from a seeded generator and nothing depends on the clock, the locale or the time zone.

``warmup.orc`` is written with pyorc (the ORC C++ writer), which writes the types pyarrow cannot: ``char``,
``varchar`` and ``uniontype``. It holds 600 rows, zstd, with a row index every 300 rows and bloom filters on every
primitive column but the char ones, so that reading it runs the kernels of every type: each with and without nulls,
a column entirely null, dictionary and direct strings, lists and maps of strings, unions of an integer and a string
(dictionary and direct), nested structs. It has enough strings (over 256 per column) for the string conversion's
deduplication to run. The values span small ranges, which keeps the file small: which kernels run depends on types
and encodings, not on values.

``warmup-v11.orc`` holds the first 300 of those rows for the types pyarrow writes, as ORC file version 0.11 (RLE
v1, which pyorc cannot write), zlib.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import random
import zoneinfo
from pathlib import Path

import pyorc

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "orcjit" / "data" / "warmup.orc"
OUT_V1 = ROOT / "orcjit" / "data" / "warmup-v11.orc"

NROWS = 600
# RLE v1 needs fewer: its kernels run the same on any number of values
V1_ROWS = 300
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
WORDS = [f"w{i:02d}" for i in range(30)]
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
    # not on char columns: the ORC C++ writer hashes their padding from uninitialised memory, so the bytes would
    # change from run to run
    bloom = [n for name, kind in PRIMITIVES if not kind.startswith("char") for n in (name, f"{name}_nulls")]
    with open(path, "wb") as f:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=OUT.parent)
    args = parser.parse_args()
    rows = _rows(random.Random(SEED))
    for name, write in ((OUT.name, write_v2), (OUT_V1.name, write_v1)):
        path = args.out_dir / name
        write(path, rows if write is write_v2 else rows[:V1_ROWS])
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
