"""orcjit reads files of other writers exactly as the writers' own readers read them.

Spark (ORC Java)
----------------
A DataFrame of every Spark type ORC can hold, nulls at every level, written with each of Spark's compressions
(bloom filters on some columns for some of them) into two files of two stripes each, then read back by Spark
(``collect()``) and by orcjit. Spark 4 writes its types to ORC as follows (checked by :func:`test_spark_schema`):

- ``TimestampType`` (an instant) becomes ORC ``timestamp`` (type attribute ``spark.sql.catalyst.type=timestamp``),
  *not* ``timestamp with local time zone``. ORC Java stores the instant as seconds from 2015-01-01 00:00 in the
  writer's time zone, the JVM's default (America/Los_Angeles here, recorded in every stripe footer), so the column
  holds the instant's wall clock in that zone. orcjit presents it as that naive wall clock; Spark's reader gives
  the instant back (``collect()`` as a naive datetime in the Python process's local zone, ``toPandas()`` as a
  naive wall clock in the session zone). Both are normalised to the instant's wall clock in Los Angeles, which is
  unambiguous even in the hour the clocks fall back.
- ``TimestampNTZType`` (a wall clock) becomes ORC ``bigint`` (attribute ``timestamp_ntz``) holding microseconds
  from 1970-01-01 00:00 of that wall clock, as if it were UTC; no time zone is involved. orcjit presents the
  ``bigint`` as it is; Spark gives a naive datetime, normalised to the same microsecond count.
- decimals keep their precision and scale, dates are ORC ``date``, byte/short ORC ``tinyint``/``smallint``,
  arrays, maps and structs the ORC compound types (map keys are never null in Spark).

Rows become dicts, bytearrays bytes, floats their exact text (NaN, -0.0), decimals text at the column's scale
(Spark's Decimals may carry more digits: ``-6.00E-10`` at scale 10); orcjit is read with ``dtype_backend="pyarrow"``
(no lossy int-to-float conversion for nullable ints, nested values kept) and turned into the same plain Python
values, compared with their Python types. ``ORCFile.read()`` (NumPy dtypes) must hold what the pyarrow backend
holds, converted as pandas.read_orc converts Arrow tables.

pyorc (ORC C++) and RLE v1
--------------------------
Every ORC type, unions at every level included, in several writer time zones: orcjit equals pyorc's own read
(details above :data:`PYORC_ZONES`). pyarrow's file version 0.11 (RLE v1, DIRECT and DICTIONARY encodings) is
compared with pyorc's read the same way.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
import struct
import urllib.parse
import zoneinfo
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyorc
import pytest

import orcjit
from orcjit import ORCFile
from tests.factory import (
    ORC_COMPRESSION,
    PYORC_CONVERTERS,
    PYORC_FIELDS,
    all_types_pyorc,
    all_types_table,
    orc_cpp_wall_clock,
    write_pyarrow,
    write_pyorc,
)

LA = zoneinfo.ZoneInfo("America/Los_Angeles")
UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1)
SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"
EXACT = decimal.Context(prec=100)


# -- normalising values ------------------------------------------------------------------------------------------


def _float(value: float) -> str:
    """A float as its exact text: NaN equals NaN, -0.0 differs from 0.0."""
    return repr(value)


def same(a: Any, b: Any) -> bool:
    """Equal values of the same Python types, containers element by element (``True`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):  # Spark's maps: their order is not theirs to keep (pyorc's are lists of pairs)
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def decimal_at_scale(value: Decimal, scale: int) -> str:
    """``value`` written at exactly ``scale`` digits after the point (it must have no more)."""
    unscaled = value.scaleb(scale, context=EXACT)
    assert unscaled == unscaled.to_integral_value(), (value, scale)
    return str(Decimal(f"{int(unscaled)}E-{scale}"))


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


# -- Spark (ORC Java) --------------------------------------------------------------------------------------------

SPARK_COMPRESSIONS = {"zstd": "ZSTD", "snappy": "SNAPPY", "zlib": "ZLIB", "lz4": "LZ4", "none": "NONE"}
SPARK_ROWS = 2600  # two files of 1300 rows, two stripes each
SPARK_STRIPE_ROWS = 1024  # ORC Java checks the stripe size after each batch of 1024 rows
SPARK_BLOOM_COLUMNS = ("i64", "str", "ts", "dec18", "date")
SPARK_BLOOM_COMPRESSIONS = ("zstd", "zlib", "none")
# the ORC types Spark writes for its types
SPARK_ORC_SCHEMA = (
    "struct<id:int,bool:boolean,i8:tinyint,i16:smallint,i32:int,i64:bigint,f32:float,f64:double,str:string,"
    "bin:binary,dec5:decimal(5,2),dec10:decimal(10,0),dec18:decimal(18,6),dec38:decimal(38,10),"
    "dec38_0:decimal(38,0),date:date,ts:timestamp,ntz:bigint,arr:array<int>,arr_str:array<string>,"
    "map:map<string,int>,struct:struct<a:int,b:string,ts:timestamp,d:date>,"
    "nested:array<struct<k:bigint,m:map<string,decimal(38,18)>,l:array<timestamp>>>,"
    "map_nested:map<int,array<struct<x:double,y:binary>>>,arr2:array<array<int>>,"
    "struct_nested:struct<inner:struct<ntz:bigint,s:string>,flags:array<boolean>>>"
)


def spark_schema() -> Any:
    from pyspark.sql import types as T

    def f(name: str, typ: Any, nullable: bool = True) -> Any:
        return T.StructField(name, typ, nullable)

    return T.StructType(
        [
            f("id", T.IntegerType(), False),
            f("bool", T.BooleanType()),
            f("i8", T.ByteType()),
            f("i16", T.ShortType()),
            f("i32", T.IntegerType()),
            f("i64", T.LongType()),
            f("f32", T.FloatType()),
            f("f64", T.DoubleType()),
            f("str", T.StringType()),
            f("bin", T.BinaryType()),
            f("dec5", T.DecimalType(5, 2)),
            f("dec10", T.DecimalType(10, 0)),
            f("dec18", T.DecimalType(18, 6)),
            f("dec38", T.DecimalType(38, 10)),
            f("dec38_0", T.DecimalType(38, 0)),
            f("date", T.DateType()),
            f("ts", T.TimestampType()),
            f("ntz", T.TimestampNTZType()),
            f("arr", T.ArrayType(T.IntegerType())),
            f("arr_str", T.ArrayType(T.StringType())),
            f("map", T.MapType(T.StringType(), T.IntegerType())),
            f(
                "struct",
                T.StructType(
                    [f("a", T.IntegerType()), f("b", T.StringType()), f("ts", T.TimestampType()), f("d", T.DateType())]
                ),
            ),
            f(
                "nested",
                T.ArrayType(
                    T.StructType(
                        [
                            f("k", T.LongType()),
                            f("m", T.MapType(T.StringType(), T.DecimalType(38, 18))),
                            f("l", T.ArrayType(T.TimestampType())),
                        ]
                    )
                ),
            ),
            f(
                "map_nested",
                T.MapType(T.IntegerType(), T.ArrayType(T.StructType([f("x", T.DoubleType()), f("y", T.BinaryType())]))),
            ),
            f("arr2", T.ArrayType(T.ArrayType(T.IntegerType()))),
            f(
                "struct_nested",
                T.StructType(
                    [
                        f("inner", T.StructType([f("ntz", T.TimestampNTZType()), f("s", T.StringType())])),
                        f("flags", T.ArrayType(T.BooleanType())),
                    ]
                ),
            ),
        ]
    )


WORDS = ("", "a", "abc", "Zebra", "naïve", "straße", "日本", "🎉", "x" * 30, "~")
LAST_MICROSECOND_BEFORE_EPOCH = dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
# ORC Java writes a timestamp's seconds rounded towards zero and its readers subtract a second when the seconds are
# negative and the fraction has more than milliseconds: in the second before the epoch, where the seconds round to
# 0, such a value is read back a second later. ORC Java (Spark) and orcjit read the file alike; ORC C++ (pyarrow)
# decides by the sign of the wall clock's seconds instead and happens to read it back as written.
ORC_JAVA_READS_BACK = {LAST_MICROSECOND_BEFORE_EPOCH: dt.datetime(1970, 1, 1, 0, 0, 0, 999999, tzinfo=UTC)}
# instants around Los Angeles' clock changes (the wall clock of the fall-back hour happens twice), before the
# epoch with a fraction of a second, and the last microsecond before the epoch
SPECIAL_INSTANTS = (
    dt.datetime(2021, 11, 7, 8, 30, tzinfo=UTC),  # 01:30 PDT
    dt.datetime(2021, 11, 7, 9, 30, tzinfo=UTC),  # 01:30 PST, the same wall clock an hour later
    dt.datetime(2021, 3, 14, 9, 59, 59, 999999, tzinfo=UTC),  # 01:59:59.999999 PST, just before the gap
    dt.datetime(2021, 3, 14, 10, 0, tzinfo=UTC),  # 03:00 PDT
    LAST_MICROSECOND_BEFORE_EPOCH,  # ORC Java reads this back a second later, see ORC_JAVA_READS_BACK
    dt.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
    dt.datetime(1950, 6, 1, 12, 0, 0, 500000, tzinfo=UTC),
    dt.datetime(1970, 1, 1, tzinfo=UTC),
    dt.datetime(1901, 12, 13, 20, 45, 52, tzinfo=UTC),
    dt.datetime(2100, 1, 1, 7, 59, 59, 999999, tzinfo=UTC),
)
SPECIAL_WALL_CLOCKS = (
    dt.datetime(2021, 3, 14, 2, 30),  # in Los Angeles' spring-forward gap: a wall clock no instant has there
    dt.datetime(2021, 11, 7, 1, 30),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
    dt.datetime(1, 1, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
)


def spark_rows(n: int = SPARK_ROWS, seed: int = 7, written: bool = False) -> list[tuple[Any, ...]]:
    """Rows for :func:`spark_schema`: nulls at every level, extremes in the first rows, NaN and infinities.

    ``written=True`` gives the instants as ORC Java reads them back (:data:`ORC_JAVA_READS_BACK`).
    """
    rng = random.Random(seed)

    def maybe(make: Any, p: float = 0.12) -> Any:
        return None if rng.random() < p else make()

    def instant() -> dt.datetime:
        if rng.random() < 0.05:
            value = rng.choice(SPECIAL_INSTANTS)
            return ORC_JAVA_READS_BACK.get(value, value) if written else value
        micros = rng.randrange(-(70 * 365 * 86400 * 10**6), 130 * 365 * 86400 * 10**6)
        return dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=micros)

    def wall_clock() -> dt.datetime:
        if rng.random() < 0.05:
            return rng.choice(SPECIAL_WALL_CLOCKS)
        return EPOCH + dt.timedelta(microseconds=rng.randrange(-6 * 10**16, 2 * 10**17))

    def date() -> dt.date:
        return dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-25000, 47000))

    def dec(precision: int, scale: int) -> Decimal:
        digits = rng.randint(0, precision)
        unscaled = rng.randint(-(10**digits) + 1, 10**digits - 1)
        return Decimal(f"{unscaled}E-{scale}")  # from text: exact, at exactly this scale

    def word() -> str:
        return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3)))

    floats = (math.nan, math.inf, -math.inf, -0.0, 0.0, 1e-300, -1.5)
    f32s = (math.nan, math.inf, -math.inf, -0.0, _f32(3.4028234663852886e38), _f32(1.1754943508222875e-38))
    rows = []
    for i in range(n):
        row = [
            i,
            maybe(lambda: rng.random() < 0.5),
            maybe(lambda: rng.randint(-128, 127)),
            maybe(lambda: rng.randint(-(2**15), 2**15 - 1)),
            maybe(lambda: rng.randint(-(2**31), 2**31 - 1)),
            maybe(
                lambda: rng.choice((-(2**63), 2**63 - 1, 0)) if rng.random() < 0.05 else rng.randint(-(2**50), 2**50)
            ),
            maybe(lambda: rng.choice(f32s) if rng.random() < 0.1 else _f32(rng.gauss(0, 1e4))),
            maybe(lambda: rng.choice(floats) if rng.random() < 0.1 else rng.gauss(0, 1e9)),
            maybe(word),
            maybe(lambda: rng.randbytes(rng.randint(0, 20))),
            maybe(lambda: dec(5, 2)),
            maybe(lambda: dec(10, 0)),
            maybe(lambda: dec(18, 6)),
            maybe(lambda: dec(38, 10)),
            maybe(lambda: dec(38, 0)),
            maybe(date),
            maybe(instant),
            maybe(wall_clock),
            maybe(lambda: [maybe(lambda: rng.randint(-(2**31), 2**31 - 1)) for _ in range(rng.randint(0, 5))]),
            maybe(lambda: [maybe(word) for _ in range(rng.randint(0, 4))]),
            maybe(lambda: {w: maybe(lambda: rng.randint(-1000, 1000)) for w in rng.sample(WORDS, rng.randint(0, 4))}),
            maybe(lambda: (maybe(lambda: rng.randint(-50, 50)), maybe(word), maybe(instant), maybe(date))),
            maybe(
                lambda: [
                    maybe(
                        lambda: (
                            maybe(lambda: rng.randint(-(2**63), 2**63 - 1)),
                            maybe(
                                lambda: {word() + str(j): maybe(lambda: dec(38, 18)) for j in range(rng.randint(0, 3))}
                            ),
                            maybe(lambda: [maybe(instant) for _ in range(rng.randint(0, 3))]),
                        )
                    )
                    for _ in range(rng.randint(0, 3))
                ]
            ),
            maybe(
                lambda: {
                    rng.randint(-1000, 1000): maybe(
                        lambda: [
                            maybe(lambda: (maybe(lambda: rng.gauss(0, 1)), maybe(lambda: rng.randbytes(3))))
                            for _ in range(rng.randint(0, 3))
                        ]
                    )
                    for _ in range(rng.randint(0, 3))
                }
            ),
            maybe(
                lambda: [
                    maybe(lambda: [maybe(lambda: rng.randint(0, 9)) for _ in range(rng.randint(0, 3))])
                    for _ in range(rng.randint(0, 3))
                ]
            ),
            maybe(
                lambda: (
                    maybe(lambda: (maybe(wall_clock), maybe(word))),
                    maybe(lambda: [maybe(lambda: rng.random() < 0.5) for _ in range(rng.randint(0, 4))]),
                )
            ),
        ]
        rows.append(row)
    # extremes in the first rows, never null there
    extremes = {
        "i8": (-128, 127),
        "i16": (-(2**15), 2**15 - 1),
        "i32": (-(2**31), 2**31 - 1),
        "i64": (-(2**63), 2**63 - 1),
        "dec5": (Decimal("-999.99"), Decimal("999.99")),
        "dec10": (Decimal(-(10**10) + 1), Decimal(10**10 - 1)),
        "dec18": (Decimal("-999999999999.999999"), Decimal("999999999999.999999")),
        "dec38": (Decimal(f"-{'9' * 28}.{'9' * 10}"), Decimal(f"{'9' * 28}.{'9' * 10}")),
        "dec38_0": (Decimal(-(10**38) + 1), Decimal(10**38 - 1)),
        "str": ("", "🎉🎉 ünïcödé"),
        "bin": (b"", b"\xff" * 32),
    }
    names = spark_schema().fieldNames()
    for name, values in extremes.items():
        for i, value in enumerate(values):
            rows[i][names.index(name)] = value
    # a row with every column null but the key
    rows[4] = [4] + [None] * (len(names) - 1)
    return [tuple(r) for r in rows]


def spark_normal(typ: Any, v: Any) -> Any:
    """A value of Spark type ``typ`` from ``collect()`` as a plain Python value (see the module docstring)."""
    from pyspark.sql import types as T

    if v is None:
        return None
    if isinstance(typ, T.TimestampType):
        # a naive datetime in this process's local zone (fold set in a repeated hour), or an aware one
        return pd.Timestamp(v.astimezone(UTC).astimezone(LA).replace(tzinfo=None))
    if isinstance(typ, T.TimestampNTZType):
        return (v - EPOCH) // dt.timedelta(microseconds=1)
    if isinstance(typ, (T.FloatType, T.DoubleType)):
        return _float(v)
    if isinstance(typ, T.DecimalType):
        # Spark's Decimals can carry more digits than the scale ("-6.00E-10" at scale 10)
        return decimal_at_scale(v, typ.scale)
    if isinstance(typ, T.BinaryType):
        return bytes(v)
    if isinstance(typ, T.ArrayType):
        return [spark_normal(typ.elementType, x) for x in v]
    if isinstance(typ, T.MapType):
        return {spark_normal(typ.keyType, k): spark_normal(typ.valueType, x) for k, x in v.items()}
    if isinstance(typ, T.StructType):
        # by position: Rows and the tuples spark_rows makes alike
        return {f.name: spark_normal(f.dataType, v[i]) for i, f in enumerate(typ.fields)}
    return v


def orcjit_normal(typ: Any, v: Any) -> Any:
    """A value orcjit read (``dtype_backend="pyarrow"``, through ``to_pylist``) for a column Spark wrote with type
    ``typ``, as :func:`spark_normal` gives Spark's."""
    from pyspark.sql import types as T

    if v is None:
        return None
    if isinstance(typ, T.TimestampType):
        assert isinstance(v, pd.Timestamp) and v.tzinfo is None, v  # the writer's wall clock
        return v
    if isinstance(typ, T.TimestampNTZType):
        assert isinstance(v, int), v  # ORC bigint
        return v
    if isinstance(typ, (T.FloatType, T.DoubleType)):
        return _float(v)
    if isinstance(typ, T.DecimalType):
        assert isinstance(v, Decimal) and v.as_tuple().exponent == -typ.scale, v
        return decimal_at_scale(v, typ.scale)
    if isinstance(typ, T.BinaryType):
        assert isinstance(v, bytes), v
        return v
    if isinstance(typ, T.ArrayType):
        return [orcjit_normal(typ.elementType, x) for x in v]
    if isinstance(typ, T.MapType):
        return {orcjit_normal(typ.keyType, k): orcjit_normal(typ.valueType, x) for k, x in v}
    if isinstance(typ, T.StructType):
        assert list(v) == typ.fieldNames(), v
        return {f.name: orcjit_normal(f.dataType, v[f.name]) for f in typ.fields}
    return v


def orcjit_rows(path: Path) -> list[dict[str, Any]]:
    """The file's rows as orcjit reads them with the pyarrow backend, as Python values (``to_pylist``'s, except that
    columns holding unions are converted by :func:`arrow_value`)."""
    frame = orcjit.read_orc(path, dtype_backend="pyarrow")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    columns = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        if _holds_arrow_union(column.type):
            columns[name] = [arrow_value(chunk, i) for chunk in column.chunks for i in range(len(chunk))]
        else:
            columns[name] = column.to_pylist()
    return [{name: values[i] for name, values in columns.items()} for i in range(table.num_rows)]


def _holds_arrow_union(typ: pa.DataType) -> bool:
    return pa.types.is_union(typ) or any(_holds_arrow_union(typ.field(i).type) for i in range(typ.num_fields))


def arrow_value(arr: pa.Array, i: int) -> Any:
    """Element ``i`` of ``arr`` as ``to_pylist`` gives it (maps as ``(key, value)`` pairs), with a sparse union's
    value read from its type code and child at the element's own position. ``to_pylist`` and scalar access give None
    for the values of a sliced sparse union in older pyarrow (16 and before; apache/arrow#50105), and lists slice
    their values per row; so lists and maps are walked through their offsets into their whole, unsliced children."""
    typ = arr.type
    if pa.types.is_union(typ):
        assert typ.mode == "sparse", typ
        # a union has no validity bitmap: its nulls are its children's
        code = memoryview(arr.buffers()[1]).cast("b")[arr.offset + i]
        return arrow_value(arr.field(typ.type_codes.index(code)), i)
    if not arr[i].is_valid:
        return None
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_map(typ):
        start, stop = arr.offsets[i].as_py(), arr.offsets[i + 1].as_py()
        if pa.types.is_map(typ):
            return [(arrow_value(arr.keys, j), arrow_value(arr.items, j)) for j in range(start, stop)]
        return [arrow_value(arr.values, j) for j in range(start, stop)]
    if pa.types.is_struct(typ):
        return {typ.field(k).name: arrow_value(arr.field(k), i) for k in range(typ.num_fields)}
    return arr[i].as_py()


def check_default_backend(path: Path) -> None:
    """``ORCFile.read()`` (NumPy dtypes) holds what the pyarrow backend holds, converted as pandas.read_orc
    converts Arrow tables."""
    arrow_frame = orcjit.read_orc(path, dtype_backend="pyarrow")
    expected = pa.Table.from_pandas(arrow_frame, preserve_index=False).replace_schema_metadata().to_pandas()
    with ORCFile(path) as f:
        pd.testing.assert_frame_equal(f.read(), expected)


def compare_rows(expected: list[dict[str, Any]], actual: list[dict[str, Any]], what: str) -> None:
    """Rows equal column by column, with the first difference in the message."""
    assert len(actual) == len(expected), f"{what}: {len(actual)} rows, expected {len(expected)}"
    assert actual and list(actual[0]) == list(expected[0]), what
    for name in expected[0]:
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            assert same(a[name], e[name]), f"{what}: column {name!r}, row {i}: {a[name]!r} != {e[name]!r}"


@pytest.fixture(scope="module")
def spark_files(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[Path, list[dict[str, Any]]]]:
    """For each compression, the ORC files Spark wrote (two files of two stripes, bloom filters on some columns
    for some compressions) and Spark's own read of each, normalised and sorted by ``id``."""
    from pyspark.sql import functions as F

    schema = spark_schema()
    # checkpointed, or each write would convert the Python rows again
    df = spark.createDataFrame(spark.sparkContext.parallelize(spark_rows(), 1), schema).localCheckpoint()
    root = tmp_path_factory.mktemp("spark-writers")
    for compression in SPARK_COMPRESSIONS:
        writer = (
            df.write.option("compression", compression)
            .option("orc.stripe.size", "2048")
            # ORC 2.1 (Spark 4.0) checks the stripe size every 5000 rows unless told
            .option("orc.rows.between.memory.checks", str(SPARK_STRIPE_ROWS))
            .option("maxRecordsPerFile", str(SPARK_ROWS // 2))
        )
        if compression in SPARK_BLOOM_COMPRESSIONS:
            writer = writer.option("orc.bloom.filter.columns", ",".join(SPARK_BLOOM_COLUMNS))
        writer.orc(str(root / compression))
    # Spark reads all the files back at once, each row tagged with its file
    dirs = [str(root / compression) for compression in SPARK_COMPRESSIONS]
    by_file: dict[Path, list[dict[str, Any]]] = {}
    for row in spark.read.format("orc").load(dirs).withColumn("_file", F.input_file_name()).collect():
        path = Path(urllib.parse.urlparse(row["_file"]).path)
        by_file.setdefault(path, []).append({f.name: spark_normal(f.dataType, row[f.name]) for f in schema.fields})
    # Spark reads back what it wrote (but for ORC_JAVA_READS_BACK): the normalisation keeps values apart
    written = [spark_normal(schema, row) for row in spark_rows(written=True)]
    out: dict[str, dict[Path, list[dict[str, Any]]]] = {}
    for compression in SPARK_COMPRESSIONS:
        files = sorted((root / compression).glob("*.orc"))
        assert files and set(files) <= set(by_file), compression
        out[compression] = {p: sorted(by_file[p], key=lambda r: r["id"]) for p in files}
        read_back = sorted((r for rows in out[compression].values() for r in rows), key=lambda r: r["id"])
        compare_rows(written, read_back, f"Spark's read of its {compression} files")
    assert sum(len(rows) for rows in by_file.values()) == SPARK_ROWS * len(SPARK_COMPRESSIONS)
    return out


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
def test_spark_schema(spark_files: dict[str, dict[Path, list[dict[str, Any]]]]) -> None:
    for compression, files in spark_files.items():
        assert len(files) == 2
        for path in files:
            f = ORCFile(path)
            assert str(f.schema) == SPARK_ORC_SCHEMA
            assert f.writer == "ORC_JAVA" and f.compression == SPARK_COMPRESSIONS[compression]
            assert f.schema.find("ts").attributes == {"spark.sql.catalyst.type": "timestamp"}
            assert f.schema.find("ntz").attributes == {"spark.sql.catalyst.type": "timestamp_ntz"}
            assert f.nstripes >= 2 and all(s.rows <= SPARK_STRIPE_ROWS for s in f.stripes)
            assert {f.stripe_footer(i).writer_timezone for i in range(f.nstripes)} == {"America/Los_Angeles"}
            kinds = {(s.column, s.kind_name) for i in range(f.nstripes) for s in f.stripe_footer(i).streams}
            blooms = {c for c, k in kinds if k.startswith("BLOOM_FILTER")}
            if compression in SPARK_BLOOM_COMPRESSIONS:
                assert blooms == {f.schema.find(name).column_id for name in SPARK_BLOOM_COLUMNS}
            else:
                assert not blooms


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
@pytest.mark.parametrize("compression", SPARK_COMPRESSIONS)
def test_spark_files(spark_files: dict[str, dict[Path, list[dict[str, Any]]]], compression: str) -> None:
    schema = spark_schema()
    for path, expected in spark_files[compression].items():
        actual = [{f.name: orcjit_normal(f.dataType, row[f.name]) for f in schema.fields} for row in orcjit_rows(path)]
        actual.sort(key=lambda r: r["id"])
        compare_rows(expected, actual, path.name)
        check_default_backend(path)


# -- pyorc (ORC C++) ---------------------------------------------------------------------------------------------
#
# pyorc is read with the writer's time zone as the reader's and PYORC_CONVERTERS (nanosecond pandas.Timestamp,
# UTC-aware, converted to the reader's zone). ORC C++ then leaves ``timestamp`` values alone (it shifts them only
# to keep the wall clock when the reader's zone differs from the writer's), so pyorc gives the instant the writer
# stored: orcjit gives its wall clock as ORC C++ reads it (``factory.orc_cpp_wall_clock``: zoneinfo's, except before
# the zone's first transition). ``timestamp with local time zone`` is an instant for both (orcjit: UTC-aware). A
# reader zone other than the writer's would bring in ORC C++'s own mistakes (see tests/test_read_differential.py).
#
# pyorc gives a union's bare value; orcjit's NumPy backends give ``{"tag": variant, "value": value}`` for a
# top-level union and its pyarrow backend an Arrow union (``to_pylist`` gives the bare value). The variants of every
# union below differ in Python type, so the variant of a bare value is known from its type: every side is
# normalised to ``{"tag", "value"}``.

PYORC_ZONES = ("UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Dublin")
# (writer time zone, compression, nulls, stripe size): every zone, compression and nulls setting at least once
PYORC_CASES = [
    ("UTC", "zstd", "some", None),
    ("America/New_York", "zlib", "some", 16 * 1024),
    ("Asia/Kolkata", "snappy", "none", None),
    ("Australia/Lord_Howe", "lz4", "some", 16 * 1024),
    ("Europe/Dublin", "uncompressed", "all", None),
    ("America/New_York", "uncompressed", "some", None),
]
PYORC_ROWS = 2000
INT_KINDS = frozenset({"tinyint", "smallint", "int", "bigint"})
STRING_KINDS = frozenset({"string", "char", "varchar"})
TIMESTAMP_KINDS = frozenset({"timestamp", "timestamp with local time zone"})


def _python_type_fits(node: Any, v: Any) -> bool:
    """Whether ``v`` can be a value of ``node`` as pyorc or orcjit (pyarrow's ``to_pylist``) gives values."""
    kind = node.kind
    if kind == "boolean":
        return type(v) is bool
    if kind in INT_KINDS:
        return type(v) is int
    if kind in ("float", "double"):
        return type(v) is float
    if kind in STRING_KINDS:
        return type(v) is str
    if kind == "binary":
        return type(v) is bytes
    if kind == "decimal":
        return type(v) is Decimal
    if kind == "date":
        return type(v) is dt.date
    if kind in TIMESTAMP_KINDS:
        return isinstance(v, pd.Timestamp)
    if kind == "array":
        return type(v) is list
    if kind in ("struct", "map"):
        return type(v) is dict or (kind == "map" and type(v) is list)
    raise AssertionError(kind)


def variant_of(node: Any, v: Any) -> int:
    """The variant of union ``node`` a bare value belongs to, by its Python type."""
    fits = [i for i, child in enumerate(node.children) if _python_type_fits(child, v)]
    assert len(fits) == 1, (str(node), v, fits)
    return fits[0]


def normal(node: Any, v: Any, side: str) -> Any:
    """A value of ORC type ``node`` as plain Python, from ``side``: ``"pyorc"``, ``"orcjit"`` (pyarrow backend,
    ``to_pylist``) or ``"tagged"`` (orcjit's ``{"tag", "value"}`` union dicts at this level)."""
    if v is None:
        return None
    kind = node.kind
    if kind == "uniontype":
        if side == "tagged":
            assert set(v) == {"tag", "value"}, v
            tag, value = v["tag"], v["value"]
        else:
            tag, value = variant_of(node, v), v
        inner = "orcjit" if side == "tagged" else side
        return {"tag": tag, "value": normal(node.children[tag], value, inner)}
    assert _python_type_fits(node, v), (side, str(node), v)
    if kind == "timestamp":
        # pyorc: the instant in the writer's zone; orcjit: the wall clock
        assert (v.tzinfo is not None) == (side == "pyorc"), (side, v)
        return orc_cpp_wall_clock(v, v.tzinfo.key) if side == "pyorc" else v
    if kind == "timestamp with local time zone":
        assert v.tzinfo is not None, (side, v)
        return v.tz_convert("UTC")
    if kind in ("float", "double"):
        return _float(v)
    if kind == "decimal":
        if side != "pyorc":
            assert v.as_tuple().exponent == -node.scale, v
        return decimal_at_scale(v, node.scale)
    if kind == "array":
        return [normal(node.children[0], x, side) for x in v]
    if kind == "map":
        # entries in file order: pyorc's dicts keep it, orcjit gives (key, value) pairs
        key, value = node.children
        pairs = v.items() if isinstance(v, dict) else v
        return [(normal(key, k, side), normal(value, x, side)) for k, x in pairs]
    if kind == "struct":
        assert list(v) == node.field_names, (side, v)
        return {c.name: normal(c, v[c.name], side) for c in node.children}
    return v


def pyorc_rows(path: Path, timezone: str) -> list[dict[str, Any]]:
    """pyorc's own read of the file, in the writer's zone (see above)."""
    with open(path, "rb") as fh:
        reader = pyorc.Reader(
            fh,
            struct_repr=pyorc.StructRepr.DICT,
            converters=PYORC_CONVERTERS,
            timezone=zoneinfo.ZoneInfo(timezone),
        )
        return list(reader)


def compare_with_pyorc(path: Path, timezone: str) -> dict[str, list[Any]]:
    """orcjit's read of ``path`` (pyarrow backend, every column; NumPy backend, the unions at the top level) equals
    pyorc's. Returns the normalised columns."""
    with ORCFile(path) as f:
        schema = f.schema
        assert f.writer == "ORC_CPP"
        zones = {f.stripe_footer(i).writer_timezone for i in range(f.nstripes)}
    assert zones <= {timezone}, zones
    expected_rows = pyorc_rows(path, timezone)
    actual_rows = orcjit_rows(path)
    expected = {c.name: [normal(c, row[c.name], "pyorc") for row in expected_rows] for c in schema.children}
    actual = {c.name: [normal(c, row[c.name], "orcjit") for row in actual_rows] for c in schema.children}
    compare_columns(expected, actual, path.name)
    # the NumPy backends' union dicts, wherever the unions are, carry the variants pyorc's values belong to
    unions = [c for c in schema.children if holds_union(c)]
    if unions:
        names = [c.name for c in unions]
        expected_unions = {c.name: [union_values(c, row[c.name], "pyorc") for row in expected_rows] for c in unions}
        for backend in (None, "numpy_nullable"):
            frame = orcjit.read_orc(path, columns=names, dtype_backend=backend)
            tagged = {c.name: [union_values(c, v, "tagged") for v in frame[c.name]] for c in unions}
            compare_columns(expected_unions, tagged, f"{path.name} ({backend or 'numpy'} backend)")
    else:
        check_default_backend(path)
    return expected


def holds_union(node: Any) -> bool:
    return any(n.kind == "uniontype" for n in node.walk())


def union_values(node: Any, v: Any, side: str) -> list[Any]:
    """The union values inside ``v`` (of type ``node``) in order, as :func:`normal` gives them: ``side`` is
    ``"pyorc"``, ``"tagged"`` (orcjit's NumPy backends: lists are NumPy arrays, maps ``(key, value)`` pairs,
    structs dicts, unions ``{"tag", "value"}`` dicts) or ``"normal"`` (a value :func:`normal` gave)."""
    if v is None or not holds_union(node):
        return []
    kind = node.kind
    if kind == "uniontype":
        return [v if side == "normal" else normal(node, v, side)]
    if kind == "array":
        return [u for x in v for u in union_values(node.children[0], x, side)]
    if kind == "map":
        key, value = node.children
        pairs = v.items() if isinstance(v, dict) else v
        return [u for k, x in pairs for u in union_values(key, k, side) + union_values(value, x, side)]
    assert kind == "struct", kind
    return [u for c in node.children for u in union_values(c, v[c.name], side)]


def compare_columns(expected: dict[str, list[Any]], actual: dict[str, list[Any]], what: str) -> None:
    assert list(actual) == list(expected), what
    for name, values in expected.items():
        got = actual[name]
        assert len(got) == len(values), f"{what}: column {name!r} has {len(got)} rows, expected {len(values)}"
        for i, (e, a) in enumerate(zip(values, got, strict=True)):
            assert same(a, e), f"{what}: column {name!r}, row {i}: {a!r} != {e!r}"


def _instant(ts: Any) -> Any:
    """A naive timestamp of :func:`all_types_pyorc` as the UTC instant it would be written as in UTC, for writer
    zones whose clocks skip or repeat (a naive wall clock there may not exist, or exist twice)."""
    return None if ts is None else ts.tz_localize("UTC")


@pytest.mark.parametrize(
    ("timezone", "compression", "nulls", "stripe_size"), PYORC_CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in PYORC_CASES]
)
def test_pyorc_all_types(tmp_path: Path, timezone: str, compression: str, nulls: str, stripe_size: int | None) -> None:
    schema, rows = all_types_pyorc(PYORC_ROWS, seed=len(timezone), nulls=nulls)
    if timezone != "UTC":
        ts = PYORC_FIELDS.index("ts")
        rows = [(*row[:ts], _instant(row[ts]), *row[ts + 1 :]) for row in rows]
    path = write_pyorc(
        tmp_path, schema, rows, compression=compression, timezone=timezone, stripe_size=stripe_size, batch_size=250
    )
    with ORCFile(path) as f:
        assert f.compression == ORC_COMPRESSION[compression]
        assert (f.nstripes > 1) == (stripe_size is not None)
    expected = compare_with_pyorc(path, timezone)
    # the normalisation keeps what was written: a wall clock in the writer's zone, an instant, a tagged union
    written = dict(zip(PYORC_FIELDS, zip(*rows, strict=True), strict=True))
    wall = [v if v is None or v.tzinfo is None else orc_cpp_wall_clock(v, timezone) for v in written["ts"]]
    assert expected["ts"] == wall
    assert expected["ts_utc"] == list(written["ts_utc"])
    assert expected["union"] == [{"tag": int(isinstance(v, str)), "value": v} for v in written["union"]]


# unions in every position, every variant with a Python type of its own (see above). pyorc picks the first variant
# whose converter takes a value, and gives up on the first Python-side converter (date, decimal, timestamp) that
# refuses one: those come last. pyorc 0.12 crashes on a null union and on a null struct above one: neither occurs.
NESTED_SCHEMA = (
    "struct<id:int,u:uniontype<bigint,double,string,binary,timestamp>,"
    "u2:uniontype<varchar(4),tinyint,float,struct<a:int,b:timestamp with local time zone>>,"
    "lu:array<uniontype<int,char(4)>>,mu:map<string,uniontype<string,date>>,"
    "su:struct<x:uniontype<smallint,array<string>>,y:array<map<int,array<timestamp>>>>,"
    "deep:array<struct<k:uniontype<binary,decimal(38,38)>,l:array<uniontype<boolean,double>>>>,"
    "ts_list:array<timestamp with local time zone>,dec_map:map<decimal(10,3),array<date>>,"
    "chars:struct<c:char(3),v:varchar(3),s:smallint>>"
)
# instants where the clocks of the writer zones change (the wall clocks before and after), and before 1883, when
# New York kept local mean time
ZONE_EDGES = {
    "America/New_York": ("2021-11-07 05:30:00", "2021-11-07 06:30:00", "2021-03-14 06:59:59.999999999", "1850-06-01"),
    "Australia/Lord_Howe": ("2021-04-03 14:45:00", "2021-04-03 15:15:00", "2021-10-02 15:29:59.999999999"),
    "Europe/Dublin": ("2021-10-31 00:30:00", "2021-10-31 01:30:00", "1916-05-21 02:24:59.999999999"),
}


def nested_pyorc_rows(n: int, seed: int, timezone: str) -> list[tuple[Any, ...]]:
    """Rows for :data:`NESTED_SCHEMA`: timestamps are instants (aware), some at ``timezone``'s clock changes."""
    rng = random.Random(seed)
    edges = [pd.Timestamp(t, tz="UTC") for t in ZONE_EDGES.get(timezone, ())]

    def maybe(make: Any, p: float = 0.15) -> Any:
        return None if rng.random() < p else make()

    def instant() -> pd.Timestamp:
        if edges and rng.random() < 0.1:
            return rng.choice(edges)
        ns = rng.randrange(-(2 * 10**18), 4 * 10**18)
        return pd.Timestamp(ns - 10**9 if -(10**9) <= ns < 0 else ns, tz="UTC")  # see NanoTimestampConverter

    def date() -> dt.date:
        return dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-40000, 40000))

    def word(k: int = 3) -> str:
        return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, k)))

    def union_u() -> Any:
        return rng.choice(
            (
                lambda: rng.randint(-(2**63), 2**63 - 1),
                lambda: rng.gauss(0, 1e6),
                word,
                lambda: rng.randbytes(rng.randint(0, 5)),
                instant,
            )
        )()

    def union_u2() -> Any:
        return rng.choice(
            (
                lambda: word()[:4],
                lambda: rng.randint(-128, 127),
                lambda: _f32(rng.gauss(0, 100)),
                lambda: (maybe(lambda: rng.randint(-5, 5)), maybe(instant)),
            )
        )()

    rows = []
    for i in range(n):
        rows.append(
            (
                i,
                union_u(),
                union_u2(),
                maybe(
                    lambda: [
                        rng.choice((rng.randint(-(2**31), 2**31 - 1), word()[:4])) for _ in range(rng.randint(0, 4))
                    ]
                ),
                maybe(lambda: {word() + str(j): rng.choice((word(), date())) for j in range(rng.randint(0, 3))}),
                (
                    rng.choice((rng.randint(-(2**15), 2**15 - 1), [maybe(word) for _ in range(rng.randint(0, 3))])),
                    maybe(
                        lambda: [
                            maybe(lambda: {rng.randint(-9, 9): maybe(lambda: [maybe(instant) for _ in range(2)])})
                            for _ in range(rng.randint(0, 3))
                        ]
                    ),
                ),
                maybe(
                    lambda: [
                        (
                            rng.choice((rng.randbytes(4), Decimal(f"{rng.randint(-(10**38) + 1, 10**38 - 1)}E-38"))),
                            maybe(
                                lambda: [
                                    rng.choice((rng.random() < 0.5, rng.gauss(0, 1))) for _ in range(rng.randint(0, 3))
                                ]
                            ),
                        )
                        for _ in range(rng.randint(0, 3))
                    ]
                ),
                maybe(lambda: [maybe(instant) for _ in range(rng.randint(0, 4))]),
                maybe(
                    lambda: {
                        Decimal(f"{rng.randint(-(10**10) + 1, 10**10 - 1)}E-3"): maybe(
                            lambda: [maybe(date) for _ in range(2)]
                        )
                        for _ in range(rng.randint(0, 3))
                    }
                ),
                maybe(
                    lambda: (maybe(lambda: word(1)[:3]), maybe(lambda: word(2)[:3]), maybe(lambda: rng.randint(-9, 9)))
                ),
            )
        )
    return rows


@pytest.mark.parametrize(
    ("timezone", "compression"),
    [("America/New_York", "zstd"), ("Australia/Lord_Howe", "zlib"), ("Europe/Dublin", "uncompressed"), ("UTC", "lz4")],
)
def test_pyorc_nested_unions(tmp_path: Path, timezone: str, compression: str) -> None:
    rows = nested_pyorc_rows(800, seed=len(timezone), timezone=timezone)
    path = write_pyorc(
        tmp_path, NESTED_SCHEMA, rows, compression=compression, timezone=timezone, stripe_size=4096, batch_size=100
    )
    with ORCFile(path) as f:
        assert f.nstripes > 1
    expected = compare_with_pyorc(path, timezone)
    # every variant of every union occurs
    schema = ORCFile(path).schema
    for name in ("u", "u2", "lu", "mu", "su", "deep"):
        node = schema.find(name)
        tags = {u["tag"] for row in expected[name] for u in union_values(node, row, "normal")}
        assert tags == set(range(max(len(n.children) for n in node.walk() if n.kind == "uniontype"))), name
    # timestamps in the union read as the instants written, in the writer's wall clock
    written = [orc_cpp_wall_clock(v, timezone) for v in (row[1] for row in rows) if isinstance(v, pd.Timestamp)]
    assert [v["value"] for v in expected["u"] if v["tag"] == 4] == written


# -- RLE v1 (file version 0.11) ----------------------------------------------------------------------------------
#
# pyorc (ORC C++ 2.x) writes only file version 0.12; pyarrow's writer (ORC C++ too) writes 0.11 on request: RLE v1
# integers, DIRECT and DICTIONARY encodings. Its writer time zone is GMT.

RLE_V1_CASES = [
    # (compression, dictionary strings, nulls, stripe size)
    ("zlib", True, "some", None),
    ("uncompressed", False, "some", 64 * 1024),
    ("snappy", True, "none", None),
    ("zstd", False, "all", None),
    ("uncompressed", True, "some", 64 * 1024),
]


@pytest.mark.parametrize(
    ("compression", "dictionary", "nulls", "stripe_size"),
    RLE_V1_CASES,
    ids=[f"{c[0]}-{'dictionary' if c[1] else 'direct'}-{c[2]}" for c in RLE_V1_CASES],
)
def test_rle_v1(tmp_path: Path, compression: str, dictionary: bool, nulls: str, stripe_size: int | None) -> None:
    path = write_pyarrow(
        tmp_path,
        all_types_table(3000, seed=11, nulls=nulls),
        compression=compression,
        file_version="0.11",
        dictionary_key_size_threshold=1.0 if dictionary else None,
        stripe_size=stripe_size,
        batch_size=500,
    )
    with ORCFile(path) as f:
        assert f.file_version == "0.11" and f.compression == ORC_COMPRESSION[compression]
        assert (f.nstripes > 1) == (stripe_size is not None)
        footers = [f.stripe_footer(i) for i in range(f.nstripes)]
        encodings = {e.kind_name for footer in footers for e in footer.encodings}
        zones = {footer.writer_timezone for footer in footers}
    assert encodings == ({"DIRECT", "DICTIONARY"} if dictionary and nulls != "all" else {"DIRECT"})
    assert zones == {"GMT"}
    compare_with_pyorc(path, "GMT")
