"""Predicate pushdown, differentially: a filtered read holds exactly the rows of the full read that the filters
select, whatever statistics and bloom filters let the reader skip.

For every generated file (pyarrow and pyorc, i.e. ORC C++, and Spark, i.e. ORC Java; every compression, RLE v1
and v2, dictionary and direct encodings, several row index strides, bloom filters on and off, sorted and random
data, no/some/all nulls) and for a few thousand random filters, ``read_orc(path, filters=F)`` must equal
``full[mask].reset_index(drop=True)`` where ``full`` is the unfiltered read and ``mask`` comes from
:func:`reference_mask`: an evaluator written here, one row at a time in plain Python, that shares nothing with
``orcjit.pushdown``. Its semantics are those :mod:`orcjit.pushdown.semantics` documents (pyarrow's): a null
satisfies ``is null`` and ``not in`` only, no comparison (``!=`` included); NaN compares as IEEE says (``NaN != 5``
holds, ``NaN == NaN`` does not) and is a member of a list holding NaN; a field inside a null struct is null. The
values it tests are the full read's with ``dtype_backend="pyarrow"``, which keeps int64 exact and NaN apart from
null.

``iter_stripes(filters=F)`` (indexed by file row number) and ``read_stripe(i, filters=F)`` are checked the same way,
and ``explain(F)`` must keep every row group that holds a matching row.

Default-backend dtypes: the NumPy backend turns an integer column with nulls into float64 (a boolean one into
object), deciding from the stripes it decodes. A filtered read that skips the stripes holding the nulls gives
int64 where the full read gave float64; such a column is compared by value with the exact values instead (see
:func:`assert_same_frame`), nothing else is relaxed.

The second half checks that pruning happens: stripe and row-group statistics on sorted data (fewer bytes read),
bloom filters of ORC C++ and ORC Java on high-cardinality keys, and none from the early Hive bloom filters of the
shared ``over1k_bloom.orc``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import math
import operator
import random
import struct
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import orcjit
from orcjit import ORCFile
from tests.conftest import EXAMPLES
from tests.factory import write_pyarrow, write_pyorc

SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"
pytestmark = pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)

# -- the reference: orcjit.pushdown.semantics, one value at a time -----------------------------------------------------

COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def term_values(column: Sequence[Any], op: str, operand: Any) -> list[bool]:
    """For each value of ``column`` (``None`` for null): does it satisfy ``value op operand``?

    A null satisfies ``is null`` and ``not in``, nothing else. Python's own comparisons are exact across int, float
    and Decimal and follow IEEE for NaN (and have ``-0.0 == 0.0``); ``in`` is "equal to one of, or NaN where NaN is
    listed", ``not in`` its negation.
    """
    if op == "is null":
        return [v is None for v in column]
    if op == "is not null":
        return [v is not None for v in column]
    if op == "in":
        return [v is not None and listed(v, operand) for v in column]
    if op == "not in":
        return [v is None or not listed(v, operand) for v in column]
    compare = COMPARE[op]
    return [v is not None and bool(compare(v, operand)) for v in column]


def listed(v: Any, operand: Sequence[Any]) -> bool:
    if isinstance(v, float) and math.isnan(v):
        return any(isinstance(x, float) and math.isnan(x) for x in operand)
    return any(v == x for x in operand)


def term_holds(value: Any, op: str, operand: Any) -> bool:
    return term_values([value], op, operand)[0]


Term = tuple[str, str, Any]  # (path, canonical op, canonical operand: a value, or a tuple for in / not in)


def reference_mask(values: dict[str, list[Any]], dnf: Sequence[Sequence[Term]], n: int) -> np.ndarray:
    """Rows satisfying the disjunction of conjunctions ``dnf``, ``values`` holding each path's values by row."""
    mask = np.zeros(n, dtype=bool)
    for group in dnf:
        conj = np.ones(n, dtype=bool)
        for path, op, operand in group:
            conj &= np.array(term_values(values[path], op, operand), dtype=bool)
        mask |= conj
    return mask


def test_reference_semantics() -> None:
    nan = math.nan
    assert not term_holds(None, "!=", 5) and term_holds(None, "not in", (1,)) and not term_holds(None, "<", 1)
    assert term_holds(None, "is null", None) and not term_holds(0, "is null", None)
    assert term_holds(nan, "!=", 5.0) and not term_holds(nan, "==", nan) and not term_holds(nan, "not in", (nan,))
    assert term_holds(nan, "in", (nan,)) and not term_holds(nan, "<", math.inf) and not term_holds(nan, ">", 0)
    assert term_holds(nan, "not in", (5.0,)) and not term_holds(None, "in", (5.0,))
    assert term_holds(-0.0, "==", 0.0) and not term_holds(-0.0, "<", 0.0) and term_holds(-0.0, "in", (0.0,))
    assert term_holds(2**63 - 1, ">", 9.223372036854775e18) and not term_holds(2**53 + 1, "==", float(2**53 + 1))
    assert term_holds(5, "<", 5.5) and not term_holds(5, "in", (5.5,)) and term_holds(5, "not in", ())
    assert reference_mask({"a": [1, None, 3]}, [[("a", ">", 1)], [("a", "is null", None)]], 3).tolist() == [
        False,
        True,
        True,
    ]


# -- schemas ----------------------------------------------------------------------------------------------------------

# a field's type is a type string ("bigint", "decimal(18,6)", ...) or, for a struct, a list of (name, type)
Type = Any
LEAF_TYPES = (
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "string",
    "binary",
    "decimal",
    "date",
    "timestamp",
    "timestamp with local time zone",
    "boolean",
)
DECIMAL_SHAPES = ((5, 2), (10, 0), (18, 6), (38, 10), (20, 3))
INT_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
WORDS = ("", "a", "abc", "Zebra", "zebra", "naïve", "straße", "Ωmega", "日本", "中文字", "🎉", "x" * 20, "0", "~")
EPOCH_DATE = dt.date(1970, 1, 1)
NS = 1_000_000_000
TS_RANGE = (pd.Timestamp("1900-01-01").value, pd.Timestamp("2100-01-01").value)
EXACT = decimal.Context(prec=100)


def type_string(t: Type) -> str:
    """ORC's (and Spark's DDL) spelling of a type."""
    if isinstance(t, list):
        return "struct<" + ",".join(f"{name}:{type_string(child)}" for name, child in t) + ">"
    return t


def arrow_type(t: Type) -> pa.DataType:
    if isinstance(t, list):
        return pa.struct([(name, arrow_type(child)) for name, child in t])
    if t.startswith("decimal("):
        p, s = (int(x) for x in t[8:-1].split(","))
        return pa.decimal128(p, s)
    return {
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "binary": pa.binary(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("ns"),
        "timestamp with local time zone": pa.timestamp("ns", tz="UTC"),
        "boolean": pa.bool_(),
    }[t]


def base_kind(t: str) -> str:
    return "decimal" if t.startswith("decimal(") else t


def leaves(schema: list[tuple[str, Type]], prefix: str = "") -> list[tuple[str, str]]:
    """(dotted path, type string) of every primitive field."""
    out = []
    for name, t in schema:
        path = prefix + name
        if isinstance(t, list):
            out += leaves(t, path + ".")
        else:
            out.append((path, t))
    return out


# -- data --------------------------------------------------------------------------------------------------------------


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decimal_of(unscaled: int, scale: int) -> Decimal:
    return Decimal(unscaled).scaleb(-scale, context=EXACT)


def draw(rng: random.Random, t: str, spark: bool) -> Any:
    """One random value of a primitive type (timestamps as nanoseconds: wall clock, or UTC for local time zone)."""
    kind = base_kind(t)
    if kind in INT_BITS:
        bits = INT_BITS[kind]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        r = rng.random()
        if r < 0.03:
            return rng.choice((lo, hi))
        if r < 0.2 or bits <= 16:
            return rng.randint(lo, hi)
        return rng.randint(-(10**6), 10**6)
    if kind in ("float", "double"):
        r = rng.random()
        if r < 0.06:
            return rng.choice((math.nan, math.inf, -math.inf, -0.0, 0.0))
        x = rng.gauss(0, 1000) if r < 0.6 else float(rng.randint(-50, 50)) / 4
        return f32(x) if kind == "float" else x
    if kind == "string":
        if rng.random() < 0.004:
            return rng.choice(WORDS) * 3 + "ü" * rng.randint(1100, 1300)  # longer than the statistics keep
        return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3)))
    if kind == "binary":
        return rng.randbytes(rng.randint(0, 8))
    if kind == "decimal":
        p, s = (int(x) for x in t[8:-1].split(","))
        top = 10 ** min(p, 20) - 1
        if rng.random() < 0.03:
            return decimal_of(rng.choice((-(10**p) + 1, 10**p - 1)), s)
        return decimal_of(rng.randint(-top, top) if rng.random() < 0.5 else rng.randint(-(10**4), 10**4), s)
    if kind == "date":
        return EPOCH_DATE + dt.timedelta(days=rng.randint(-40000, 50000))
    if kind.startswith("timestamp"):
        ns = rng.randrange(*TS_RANGE)
        r = rng.random()
        if r < 0.2:
            ns -= ns % 1_000_000  # on a millisecond, where statistics are exact
        elif r < 0.3:
            ns = rng.randint(-5 * NS, 5 * NS)  # around the epoch
        if spark:
            ns -= ns % 1000  # Spark holds microseconds
        if -NS <= ns < 0:
            ns -= NS  # ORC C++ cannot write the second before the epoch with a fraction (see tests.factory)
        return ns
    if kind == "boolean":
        return rng.random() < 0.4
    raise AssertionError(t)


def sort_key(v: Any) -> Any:
    # NaN sorts last, as a value larger than any
    return (1, 0) if isinstance(v, float) and math.isnan(v) else (0, v)


def column_values(rng: random.Random, t: str, n: int, nulls: str, ordered: bool, spark: bool) -> list[Any]:
    """``n`` values: low, medium or high cardinality; sorted or not; nulls none, some (in runs or scattered), all."""
    if nulls == "all":
        return [None] * n
    cardinality = rng.choice(("low", "mid", "high", "high"))
    if cardinality == "high":
        values = [draw(rng, t, spark) for _ in range(n)]
    else:
        pool = [draw(rng, t, spark) for _ in range(rng.randint(1, 6) if cardinality == "low" else rng.randint(30, 200))]
        values = [rng.choice(pool) for _ in range(n)]
    if ordered:
        values.sort(key=sort_key)
    if nulls == "some":
        if rng.random() < 0.3:  # runs of nulls, some covering whole row groups
            for _ in range(rng.randint(1, 4)):
                start = rng.randrange(n)
                for i in range(start, min(n, start + rng.randint(1, 1500))):
                    values[i] = None
        else:
            rate = rng.choice((0.02, 0.15, 0.5))
            values = [None if rng.random() < rate else v for v in values]
    return values


def struct_values(
    rng: random.Random, fields: list[tuple[str, Type]], n: int, nulls: str, ordered: bool, writer: str
) -> list[Any]:
    """Dicts (None for a null struct); a struct's own nulls are independent of its fields'.

    pyarrow writes a struct nested in a struct wrongly when the inner one has nulls and the outer one none (the
    inner struct's fields shift; pyarrow reads back other values than it wrote, and the row index describes the
    intended ones), so for pyarrow a nested struct is null only where its parent is.
    """
    spark = writer == "spark"
    children = {}
    for name, t in fields:
        if isinstance(t, list):
            inner_nulls = "none" if writer == "pyarrow" else rng.choice(("none", "some"))
            children[name] = struct_values(rng, t, n, inner_nulls, ordered, writer)
        else:
            children[name] = column_values(rng, t, n, rng.choice(("none", "some", "some", "all")), ordered, spark)
    rate = {"none": 0.0, "some": rng.choice((0.05, 0.3)), "all": 1.0}[nulls]
    return [None if rng.random() < rate else {name: children[name][i] for name, _ in fields} for i in range(n)]


@dataclasses.dataclass
class FileConfig:
    """One generated file: its writer, its writer options, and the seed of its schema and data."""

    writer: str  # "pyarrow", "pyorc" or "spark"
    seed: int
    rows: int
    compression: str
    stride: int
    bloom: bool
    dictionary: bool
    ordered: bool
    nulls: str  # the file's leaning: "none", "some" or "mixed" (each column some, none or all)
    file_version: str = "0.12"
    small_stripes: bool = False
    timezone: str = "UTC"
    partitions: int = 1

    @property
    def id(self) -> str:
        parts = [
            self.writer,
            self.compression,
            f"v{self.file_version}",
            f"stride{self.stride}",
            "bloom" if self.bloom else "nobloom",
            "dict" if self.dictionary else "direct",
            "sorted" if self.ordered else "random",
            f"nulls-{self.nulls}",
        ]
        if self.small_stripes:
            parts.append("stripes")
        if self.timezone != "UTC":
            parts.append(self.timezone.replace("/", "-"))
        return "-".join(parts) + f"-s{self.seed}"


def make_schema(rng: random.Random, writer: str) -> list[tuple[str, Type]]:
    kinds = [t for t in LEAF_TYPES if not (writer == "spark" and t == "timestamp with local time zone")]
    chosen = rng.sample(kinds, rng.randint(5, 9))
    for must in ("bigint", "string", "double"):  # the types pruning tests most
        if must not in chosen:
            chosen.append(must)
    schema: list[tuple[str, Type]] = []
    for i, kind in enumerate(chosen):
        if kind == "decimal":
            p, s = rng.choice(DECIMAL_SHAPES)
            kind = f"decimal({p},{s})"
        schema.append((f"c{i}", kind))
    inner: list[tuple[str, Type]] = [("x", rng.choice(("date", "timestamp", "bigint"))), ("y", "string")]
    schema.append(("st", [("a", rng.choice(("int", "bigint", "decimal(10,2)"))), ("b", "string"), ("inner", inner)]))
    return schema


def make_data(cfg: FileConfig) -> tuple[list[tuple[str, Type]], dict[str, list[Any]]]:
    rng = random.Random(cfg.seed)
    spark = cfg.writer == "spark"
    schema = make_schema(rng, cfg.writer)
    data = {}
    for name, t in schema:
        nulls = cfg.nulls if cfg.nulls != "mixed" else rng.choice(("none", "some", "some", "all"))
        if isinstance(t, list):
            data[name] = struct_values(rng, t, cfg.rows, "some" if nulls == "all" else nulls, cfg.ordered, cfg.writer)
        else:
            data[name] = column_values(rng, t, cfg.rows, nulls, cfg.ordered and rng.random() < 0.8, spark)
    return schema, data


# -- writing ----------------------------------------------------------------------------------------------------------


def to_arrow_value(t: Type, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(t, list):
        return {name: to_arrow_value(child, v[name]) for name, child in t}
    return v  # timestamps are nanosecond integers, which pyarrow takes for timestamp types


def to_pyorc_value(t: Type, v: Any, timezone: str) -> Any:
    if v is None:
        return None
    if isinstance(t, list):
        return tuple(to_pyorc_value(child, v[name], timezone) for name, child in t)
    if t == "timestamp":
        # a wall clock in the writer's time zone: one the clocks skip or repeat there moves on a few hours
        # (decided with zoneinfo, PEP 495: pandas 2.2 resolves zone names with pytz, whose rules end in 2037)
        ts = pd.Timestamp(v)
        zone = ZoneInfo(timezone)
        while True:
            wall = ts.to_pydatetime(warn=False)  # transitions fall on whole seconds: the nanoseconds do not matter
            if wall.replace(tzinfo=zone, fold=0).utcoffset() == wall.replace(tzinfo=zone, fold=1).utcoffset():
                return ts
            ts += pd.Timedelta(hours=3)
    if t == "timestamp with local time zone":
        return pd.Timestamp(v, tz="UTC")
    return v


def to_spark_value(t: Type, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(t, list):
        return tuple(to_spark_value(child, v[name]) for name, child in t)
    if t == "timestamp":
        # Spark timestamps are instants; ORC Java stores their wall clock in the writer's (JVM's) time zone
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=v // 1000)
    return v


def bloom_columns(rng: random.Random, schema: list[tuple[str, Type]], nested: bool) -> list[str]:
    paths = [p for p, _ in leaves(schema) if nested or "." not in p]
    return rng.sample(paths, max(1, len(paths) // 2))


def write_local(cfg: FileConfig, directory: Path) -> Path:
    schema, data = make_data(cfg)
    rng = random.Random(cfg.seed + 1)
    blooms = bloom_columns(rng, schema, nested=True) if cfg.bloom else None
    if cfg.writer == "pyarrow":
        table = pa.table(
            {name: pa.array([to_arrow_value(t, v) for v in data[name]], arrow_type(t)) for name, t in schema}
        )
        return write_pyarrow(
            directory,
            table,
            compression=cfg.compression,
            file_version=cfg.file_version,
            stripe_size=4096 if cfg.small_stripes else None,
            batch_size=rng.choice((700, 1024, 1500)) if cfg.small_stripes else None,
            row_index_stride=cfg.stride,
            bloom_filter_columns=blooms,
            bloom_filter_fpp=rng.choice((0.01, 0.05)) if blooms else None,
            dictionary_key_size_threshold=1.0 if cfg.dictionary else 0.0,
        )
    schema_str = type_string(schema)
    rows = [tuple(to_pyorc_value(t, data[name][i], cfg.timezone) for name, t in schema) for i in range(cfg.rows)]
    return write_pyorc(
        directory,
        schema_str,
        rows,
        compression=cfg.compression,
        stripe_size=16384 if cfg.small_stripes else None,
        row_index_stride=cfg.stride,
        bloom_filter_columns=blooms,
        dict_key_size_threshold=1.0 if cfg.dictionary else 0.0,
        timezone=cfg.timezone,
    )


def write_spark(spark: Any, cfg: FileConfig, directory: Path) -> list[Path]:
    schema, data = make_data(cfg)
    rng = random.Random(cfg.seed + 1)
    rows = [tuple(to_spark_value(t, data[name][i]) for name, t in schema) for i in range(cfg.rows)]
    ddl = ",".join(f"{name} {type_string(t)}" for name, t in schema)
    df = spark.createDataFrame(rows, ddl)
    df = df.repartition(cfg.partitions) if cfg.partitions > 1 and not cfg.ordered else df.coalesce(cfg.partitions)
    writer = (
        df.write.option("compression", cfg.compression)
        .option("orc.row.index.stride", str(cfg.stride))
        .option("orc.write.format", cfg.file_version)
        .option("orc.dictionary.key.threshold", "1.0" if cfg.dictionary else "0.0")
    )
    if cfg.small_stripes:
        # ORC Java checks the size every 1024 rows when told (ORC 2.1, in Spark 4.0, every 5000 unless told)
        writer = writer.option("orc.stripe.size", "2048").option("orc.rows.between.memory.checks", "1024")
    if cfg.bloom:
        writer = writer.option("orc.bloom.filter.columns", ",".join(bloom_columns(rng, schema, nested=False)))
    target = directory / cfg.id
    writer.orc(str(target))
    return sorted(target.glob("*.orc"))


def file_configs() -> list[FileConfig]:
    rng = random.Random(20240611)
    compressions = ("uncompressed", "zlib", "snappy", "lz4", "zstd")
    strides = (1000, 10000, 777, 333, 2500, 1000)
    out = []
    for i in range(12):
        out.append(
            FileConfig(
                "pyarrow",
                seed=100 + i,
                rows=rng.randint(1000, 2600),
                compression=compressions[i % 5],
                stride=strides[i % 6],
                bloom=i % 2 == 0,
                dictionary=i % 4 < 2,
                ordered=i % 3 == 1,
                nulls=("mixed", "some", "none", "mixed")[i % 4],
                file_version="0.11" if i % 3 == 0 else "0.12",
                small_stripes=compressions[i % 5] == "uncompressed" or i % 4 == 3,
            )
        )
    zones = ("UTC", "America/New_York", "Asia/Kolkata")
    for i in range(10):
        out.append(
            FileConfig(
                "pyorc",
                seed=200 + i,
                rows=rng.randint(1000, 2600),
                compression=compressions[(i + 2) % 5],
                stride=strides[(i + 3) % 6],
                bloom=i % 2 == 1,
                dictionary=i % 3 == 0,
                ordered=i % 3 == 2,
                nulls=("some", "mixed", "none", "mixed", "all")[i % 5],
                small_stripes=i % 2 == 0,
                timezone=zones[i % 3],
            )
        )
    return out


SPARK_CONFIGS = [
    FileConfig("spark", 300, 6000, "zlib", 1000, True, True, False, "mixed", partitions=2),
    # ORC Java writes no bloom filters in the 0.11 format
    FileConfig("spark", 301, 5000, "snappy", 1777, False, False, True, "some", file_version="0.11", small_stripes=True),
    FileConfig("spark", 302, 4000, "none", 1000, True, True, False, "none", small_stripes=True),
]
FILTERS_PER_FILE = int(__import__("os").environ.get("DIFF_FILTERS", 120))


# -- random filters ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Column:
    """What the filter generator knows of one primitive column: its values by row and the distinct ones, sorted."""

    path: str
    type: str
    values: list[Any]
    distinct: list[Any]

    @property
    def kind(self) -> str:
        return base_kind(self.type)


def float_nudge(x: float, up: bool) -> float:
    return math.nextafter(x, math.inf if up else -math.inf)


def step(rng: random.Random, col: Column, v: Any, up: bool) -> Any:
    """A value just above (or below) ``v`` in the column's domain; None where there is none."""
    kind, sign = col.kind, 1 if up else -1
    if kind in INT_BITS:
        return v + sign
    if kind in ("float", "double"):
        return float_nudge(v, up) if math.isfinite(v) else None
    if kind == "string":
        return v + "\x00" if up else (v[:-1] if v else None)
    if kind == "binary":
        return v + b"\x00" if up else (v[:-1] if v else None)
    if kind == "decimal":
        return v + sign * Decimal(1).scaleb(-int(col.type[8:-1].split(",")[1]))
    if kind == "date":
        try:
            return v + sign * dt.timedelta(days=1)
        except OverflowError:
            return None
    if kind.startswith("timestamp"):
        return v + sign * pd.Timedelta(rng.choice((1, 1000, 1_000_000)), "ns")
    return None


def between(rng: random.Random, col: Column, a: Any, b: Any) -> Any:
    """A value strictly between neighbours ``a < b`` (or None)."""
    kind = col.kind
    if kind in INT_BITS:
        return (a + b) // 2 if b - a > 1 else a + 0.5  # a fraction: never equal, and between
    if kind in ("float", "double"):
        m = a / 2 + b / 2
        return m if a < m < b else None
    if kind in ("string", "binary"):
        return step(rng, col, a, True)
    if kind == "decimal":
        return EXACT.divide(EXACT.add(a, b), 2)
    if kind == "date":
        return a + dt.timedelta(days=(b - a).days // 2) if (b - a).days > 1 else None
    if kind.startswith("timestamp"):
        return a + (b - a) / 2 if (b - a).value > 1 else None
    return None


def fresh(rng: random.Random, col: Column) -> Any:
    """A random value of the column's type, as the full read would show it."""
    v = draw(rng, col.type, spark=False)
    if col.kind == "timestamp":
        return pd.Timestamp(v)
    if col.kind == "timestamp with local time zone":
        return pd.Timestamp(v, tz="UTC")
    return v


def operand(rng: random.Random, col: Column) -> Any:
    """A canonical operand: existing, extreme, just outside, in a gap, random or special."""
    d = col.distinct
    if not d:
        return fresh(rng, col)
    how = rng.choices(
        ("existing", "min", "max", "below", "above", "between", "fresh", "special"), (30, 8, 8, 8, 8, 14, 10, 6)
    )[0]
    v: Any = None
    if how == "existing":
        v = rng.choice(d)
    elif how == "min":
        v = d[0]
    elif how == "max":
        v = d[-1]
    elif how in ("below", "above"):
        v = step(rng, col, rng.choice(d) if rng.random() < 0.5 else d[0 if how == "below" else -1], how == "above")
    elif how == "between" and len(d) > 1:
        i = rng.randrange(len(d) - 1)
        v = between(rng, col, d[i], d[i + 1])
    elif how == "fresh":
        v = fresh(rng, col)
    elif how == "special":
        v = special(rng, col)
    return v if v is not None else rng.choice(d)


def special(rng: random.Random, col: Column) -> Any:
    kind = col.kind
    if kind in ("float", "double"):
        return rng.choice((math.nan, math.inf, -math.inf, 0.0, -0.0, 0.1, f32(0.1), 1e300))
    if kind in INT_BITS:
        bits = INT_BITS[kind]
        return rng.choice((-(1 << (bits - 1)), (1 << (bits - 1)) - 1, 1 << (bits - 1), -(1 << 70), 0, -0.5))
    if kind == "string":
        return rng.choice(("", "🎉", "ü" * 1200, "\x00", "zz"))
    if kind == "binary":
        return rng.choice((b"", b"\x00", b"\xff" * 9))
    if kind == "boolean":
        return rng.random() < 0.5
    return fresh(rng, col)


def spell(rng: random.Random, col: Column, v: Any) -> Any:
    """The canonical operand ``v`` in one of the spellings filters accept for the column's type."""
    kind, r = col.kind, rng.random()
    if kind in INT_BITS and isinstance(v, int):
        if r < 0.15 and -(2**63) <= v < 2**63:
            return np.int64(v)
        if r < 0.25 and abs(v) < 2**53:
            return float(v)
        if r < 0.3:
            return Decimal(v)
    elif kind in ("float", "double"):
        if r < 0.15:
            return np.float64(v)
        if r < 0.25 and math.isfinite(v) and v == int(v) and abs(v) < 2**53:
            return int(v)
    elif kind == "binary" and r < 0.3:
        return bytearray(v)
    elif kind == "decimal" and r < 0.2 and v == v.to_integral_value():
        return int(v)
    elif kind == "date":
        if r < 0.3:
            return v.isoformat()
        if r < 0.4:
            return np.datetime64(v, "D")
    elif kind == "timestamp":
        if r < 0.2:
            return v.isoformat()
        if r < 0.3 and v.nanosecond == 0:
            return v.to_pydatetime()
        if r < 0.4:
            return np.datetime64(v.value, "ns")
    elif kind == "timestamp with local time zone":
        if r < 0.2:
            return v.tz_convert("Asia/Tokyo")
        if r < 0.35:
            return v.tz_localize(None)  # a naive value is taken as UTC
        if r < 0.45:
            return v.isoformat()
    elif kind == "boolean" and r < 0.3:
        return np.bool_(v)
    return v


OP_SPELLINGS = {"==": ("==", "=", "=="), "in": ("in", "IN", "in"), "not in": ("not in", "not_in", " NOT IN ")}
NULL_SPELLINGS = {"is null": ("is null", "is_null", "IS NULL"), "is not null": ("is not null", "is_not_null")}


def random_term(rng: random.Random, columns: list[Column]) -> tuple[tuple[Any, ...], Term]:
    """(the filter tuple as passed, the canonical term for the reference)."""
    col = rng.choice(columns)
    op = rng.choices(
        ("==", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null"), (20, 8, 8, 8, 8, 8, 12, 6, 4, 4)
    )[0]
    if op in NULL_SPELLINGS:
        spelled = rng.choice(NULL_SPELLINGS[op])
        return ((col.path, spelled) if rng.random() < 0.7 else (col.path, spelled, None)), (col.path, op, None)
    if op in ("in", "not in"):
        canonical = tuple(operand(rng, col) for _ in range(rng.choice((0, 1, 2, 3, 4, 4))))
        container: Callable[[Any], Any] = rng.choice((list, tuple, set)) if col.kind != "binary" else list
        if container is set and any(isinstance(x, float) and math.isnan(x) for x in canonical):
            container = list
        passed = container(spell(rng, col, x) for x in canonical)
        return (col.path, rng.choice(OP_SPELLINGS[op]), passed), (col.path, op, canonical)
    v = operand(rng, col)
    return (col.path, rng.choice(OP_SPELLINGS.get(op, (op,))), spell(rng, col, v)), (col.path, op, v)


def random_filter(rng: random.Random, columns: list[Column]) -> tuple[Any, list[list[Term]]]:
    groups = rng.choices((1, 2, 3), (60, 28, 12))[0]
    passed, canonical = [], []
    for _ in range(groups):
        terms = [random_term(rng, columns) for _ in range(rng.choices((1, 2, 3), (50, 35, 15))[0])]
        passed.append([t for t, _ in terms])
        canonical.append([c for _, c in terms])
    if groups == 1 and rng.random() < 0.6:
        return passed[0], canonical  # a plain conjunction: a list of tuples
    return passed, canonical


# -- reading and comparing ------------------------------------------------------------------------------------------


def exact_values(frame: pd.DataFrame, schema: list[tuple[str, Type]]) -> dict[str, list[Any]]:
    """Each primitive column's values by row from a pyarrow-backend frame, a field of a null struct as None."""
    out: dict[str, list[Any]] = {}
    for name, _ in schema:
        values = pa.array(frame[name]).to_pylist()
        out[name] = values
    for path, _ in leaves(schema):
        if "." in path:
            top, *rest = path.split(".")
            column = []
            for v in out[top]:
                for part in rest:
                    v = None if v is None else v[part]
                column.append(v)
            out[path] = column
    return out


def describe_columns(values: dict[str, list[Any]], schema: list[tuple[str, Type]]) -> list[Column]:
    columns = []
    for path, t in leaves(schema):
        present = [v for v in values[path] if v is not None and not (isinstance(v, float) and math.isnan(v))]
        columns.append(Column(path, t, values[path], sorted(set(present), key=sort_key)))
    return columns


WIDENED: Counter[str] = Counter()


def assert_same_frame(
    result: pd.DataFrame, expected: pd.DataFrame, exact: Callable[[], pd.DataFrame], what: str
) -> None:
    """``assert_frame_equal``, but an integer (boolean) column the full read widened to float64 (object) for nulls
    the filtered read never decoded is compared, in the filtered read's dtype, with the exact values (``exact()``:
    the same rows read with the pyarrow backend)."""
    for name in expected.columns:
        if name not in result.columns or result[name].dtype == expected[name].dtype:
            continue
        narrower = (expected[name].dtype == np.float64 and result[name].dtype.kind in "iu") or (
            expected[name].dtype == object and result[name].dtype == np.bool_
        )
        assert narrower, f"{what}: column {name!r} is {result[name].dtype}, the full read's {expected[name].dtype}"
        # the exact values hold no nulls where the filtered read has none to show; to_numpy raises otherwise
        expected = expected.copy()
        expected[name] = exact()[name].to_numpy(dtype=result[name].dtype)
        WIDENED[name] += 1
    pd.testing.assert_frame_equal(result, expected, obj=what)


def kept_rows(orc: ORCFile, explanation: Any) -> np.ndarray:
    """Rows of the file the explained read would decode."""
    kept = np.zeros(orc.nrows, dtype=bool)
    for d, stripe in zip(explanation.stripes, orc.stripes, strict=True):
        if not d.keep:
            continue
        if d.row_groups is None:
            kept[stripe.first_row : stripe.first_row + stripe.rows] = True
            continue
        rg = d.row_groups
        for g, keep in enumerate(rg.keep):
            if keep:
                start = stripe.first_row + g * rg.stride
                kept[start : min(start + rg.stride, stripe.first_row + stripe.rows)] = True
    return kept


PRUNING: dict[str, Counter[str]] = defaultdict(Counter)


def record_pruning(writer: str, explanation: Any) -> None:
    c = PRUNING[writer]
    c["explained"] += 1
    for item in explanation.to_dict()["stripes"]:
        c["stripes"] += 1
        if item.get("skipped_by") in ("file statistics", "stripe statistics"):
            c[f"stripes skipped by {item['skipped_by']}"] += 1
        c["row groups skipped by statistics"] += item.get("row_groups_skipped_by_statistics", 0)
        c["row groups skipped by bloom filter"] += item.get("row_groups_skipped_by_bloom_filter", 0)
        c["row groups"] += item.get("row_groups", 0)


def check_file(path: Path, schema: list[tuple[str, Type]], writer: str, seed: int, n_filters: int) -> None:
    """Run ``n_filters`` random filters against one file through every filtered entry point."""
    full = {backend: orcjit.read_orc(path, dtype_backend=backend) for backend in (None, "pyarrow", "numpy_nullable")}
    exact = full["pyarrow"]
    values = exact_values(exact, schema)
    columns = describe_columns(values, schema)
    rng = random.Random(seed)
    orc = ORCFile(path)
    n = orc.nrows
    names = [name for name, _ in schema]
    # every column's null tests, fields of structs included (null where the struct is, whatever hasNull says)
    for column in columns:
        for op in ("is null", "is not null"):
            mask = reference_mask(values, [[(column.path, op, None)]], n)
            result = orcjit.read_orc(path, dtype_backend="pyarrow", filters=[(column.path, op)])
            pd.testing.assert_frame_equal(
                result, exact[mask].reset_index(drop=True), obj=f"{path.name}: {column.path} {op}"
            )
    with orc:
        for k in range(n_filters):
            passed, canonical = random_filter(rng, columns)
            mask = reference_mask(values, canonical, n)
            what = f"{path.name}: filters={passed!r} (#{k})"
            backend = rng.choices((None, "pyarrow", "numpy_nullable"), (50, 40, 10))[0]
            subset = None
            if rng.random() < 0.15:
                subset = sorted(rng.sample(names, rng.randint(1, 3)), key=names.index)
            result = orcjit.read_orc(path, columns=subset, dtype_backend=backend, filters=passed)
            expected = full[backend][mask].reset_index(drop=True)
            if subset is not None:
                expected = expected[subset]
            assert_same_frame(result, expected, lambda m=mask: exact[m].reset_index(drop=True), what)
            PRUNING[writer]["filters"] += 1
            PRUNING[writer]["matching rows"] += int(mask.sum())

            if k % 3 == 0:
                explanation = orc.explain(passed)
                lost = mask & ~kept_rows(orc, explanation)
                assert not lost.any(), f"{what}: rows {np.flatnonzero(lost)[:10]} pruned\n{explanation}"
                record_pruning(writer, explanation)
            if k % 8 == 0:
                frames = list(orc.iter_stripes(dtype_backend="pyarrow", filters=passed))
                assert all(len(f) for f in frames), what
                got = pd.concat(frames) if frames else exact.iloc[:0]
                pd.testing.assert_frame_equal(got, exact[mask], obj=f"{what} iter_stripes", check_index_type=False)
            if k % 8 == 4:
                i = rng.randrange(orc.nstripes)
                s = orc.stripes[i]
                got = orc.read_stripe(i, dtype_backend="pyarrow", filters=passed)
                in_stripe = mask.copy()
                in_stripe[: s.first_row] = False
                in_stripe[s.first_row + s.rows :] = False
                pd.testing.assert_frame_equal(
                    got, exact[in_stripe], obj=f"{what} read_stripe({i})", check_index_type=False
                )


def check_layout(orc: ORCFile, cfg: FileConfig, writer: str) -> None:
    """The file is what its configuration asks for: writer, stride, format version (RLE v1 for 0.11, v2 for
    0.12), dictionaries or not, bloom filters or not."""
    assert orc.writer == writer and orc.row_index_stride == cfg.stride and orc.file_version == cfg.file_version
    encodings = {e.kind_name for i in range(orc.nstripes) for e in orc.stripe_footer(i).encodings}
    kinds = {s.kind_name for i in range(orc.nstripes) for s in orc.stripe_footer(i).streams}
    assert any(e.endswith("_V2") for e in encodings) == (cfg.file_version == "0.12"), encodings
    strings = any(c.kind == "string" for c in orc.schema.walk()) and cfg.nulls != "all"
    if strings:
        assert any(e.startswith("DICTIONARY") for e in encodings) == cfg.dictionary, encodings
    assert any(k.startswith("BLOOM_FILTER") for k in kinds) == cfg.bloom, kinds
    assert "ROW_INDEX" in kinds


def schema_of(cfg: FileConfig) -> list[tuple[str, Type]]:
    return make_schema(random.Random(cfg.seed), cfg.writer)


LOCAL_CONFIGS = file_configs()


@pytest.mark.parametrize("cfg", LOCAL_CONFIGS, ids=[c.id for c in LOCAL_CONFIGS])
def test_differential_orc_cpp(cfg: FileConfig, tmp_path: Path) -> None:
    path = write_local(cfg, tmp_path)
    with ORCFile(path) as orc:
        check_layout(orc, cfg, "ORC_CPP")
    check_file(path, schema_of(cfg), cfg.writer, cfg.seed, FILTERS_PER_FILE)


@pytest.fixture(scope="module")
def spark_random_files(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[FileConfig, Path]]:
    directory = tmp_path_factory.mktemp("spark-differential")
    return [(cfg, path) for cfg in SPARK_CONFIGS for path in write_spark(spark, cfg, directory)]


@pytest.mark.parametrize("index", range(len(SPARK_CONFIGS)), ids=[c.id for c in SPARK_CONFIGS])
def test_differential_orc_java(index: int, spark_random_files: list[tuple[FileConfig, Path]]) -> None:
    cfg = SPARK_CONFIGS[index]
    paths = [p for c, p in spark_random_files if c is cfg]
    assert len(paths) == cfg.partitions
    for j, path in enumerate(paths):
        with ORCFile(path) as orc:
            check_layout(orc, cfg, "ORC_JAVA")
            assert (orc.nstripes > 1) == cfg.small_stripes
        check_file(path, schema_of(cfg), "spark", cfg.seed + 17 * j, FILTERS_PER_FILE)


# -- pruning happens ------------------------------------------------------------------------------------------------

PRUNE_ROWS = 12_000
PRUNE_SCHEMA = "struct<k:bigint,r:bigint,s:string,v:double,st:struct<a:int>>"


def pruning_rows() -> list[tuple[Any, ...]]:
    """``k`` sorted; ``r`` distinct random keys spread uniformly over 0 .. 10**12, so that every row group's
    minimum and maximum span nearly the whole range and only a bloom filter can rule a key out; ``s`` the same
    keys as strings; ``st`` null in every third row, its field ``a`` never null on its own."""
    rng = random.Random(11)
    keys = rng.sample(range(10**12), PRUNE_ROWS)
    return [(k, r, key_string(r), rng.gauss(0, 1), None if k % 3 == 0 else (k,)) for k, r in enumerate(keys)]


def key_string(r: int) -> str:
    return f"key-{r:013d}"


@pytest.fixture(scope="module")
def local_pruning_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("pruning")
    rows = pruning_rows()
    columns = list(zip(*rows, strict=True))
    table = pa.table({name: columns[i] for i, name in enumerate("krsv")})
    table = table.append_column("st", pa.array([None if v is None else {"a": v[0]} for v in columns[4]]))
    return {
        # an uncompressed pyarrow file ends a stripe after every batch once past the stripe size: 4 x 3000 rows
        "pyarrow": write_pyarrow(
            directory,
            table,
            compression="uncompressed",
            stripe_size=1024,
            batch_size=3000,
            row_index_stride=1000,
            bloom_filter_columns=["r", "s"],
            bloom_filter_fpp=0.01,
        ),
        "pyorc": write_pyorc(
            directory,
            PRUNE_SCHEMA,
            rows,
            compression="zstd",
            stripe_size=16 * 1024,
            row_index_stride=1000,
            bloom_filter_columns=["r", "s"],
            bloom_filter_fpp=0.01,
        ),
    }


@pytest.fixture(scope="module")
def spark_pruning_file(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pruning-spark") / "spark"
    (
        spark.createDataFrame(pruning_rows(), "k bigint, r bigint, s string, v double, st struct<a:int>")
        .coalesce(1)
        .write.option("compression", "zlib")
        .option("orc.stripe.size", "2048")  # checked every 1024 rows (Spark 4.0's ORC 2.1 needs telling)
        .option("orc.rows.between.memory.checks", "1024")
        .option("orc.row.index.stride", "1000")
        .option("orc.bloom.filter.columns", "r,s")
        .option("orc.bloom.filter.fpp", "0.01")
        .orc(str(target))
    )
    (path,) = target.glob("*.orc")
    return path


WRITERS = ("pyarrow", "pyorc", "spark")


def pruning_file(request: pytest.FixtureRequest, writer: str) -> Path:
    if writer == "spark":
        return request.getfixturevalue("spark_pruning_file")
    return request.getfixturevalue("local_pruning_files")[writer]


def totals(report: dict[str, Any]) -> Counter[str]:
    out: Counter[str] = Counter()
    for item in report["stripes"]:
        out["stripes"] += 1
        out[f"stripes skipped by {item.get('skipped_by', 'nothing')}"] += 1
        out["row groups"] += item.get("row_groups", 0)
        out["row groups kept"] += item.get("row_groups_kept", 0)
        out["statistics"] += item.get("row_groups_skipped_by_statistics", 0)
        out["bloom filter"] += item.get("row_groups_skipped_by_bloom_filter", 0)
    return out


@pytest.mark.parametrize("writer", WRITERS)
def test_statistics_prune_a_range_of_sorted_data(writer: str, request: pytest.FixtureRequest) -> None:
    path = pruning_file(request, writer)
    flt = [("k", ">=", 4200), ("k", "<", 4300)]
    with ORCFile(path) as orc:
        assert orc.nstripes >= 4 and orc.row_index_stride == 1000
        full = orc.read()
        assert full["k"].tolist() == list(range(PRUNE_ROWS))
        report = orc.explain(flt).to_dict()
    t = totals(report)
    assert report["file"] == "maybe"
    # one stripe holds the range (two where it crosses a boundary), the others fall to stripe statistics
    assert report["stripes_read"] <= 2
    assert t["stripes skipped by stripe statistics"] == t["stripes"] - report["stripes_read"]
    assert t["statistics"] >= 1  # and inside the stripe read, row groups outside the range by their statistics
    assert t["bloom filter"] == 0

    with ORCFile(path) as orc:
        orc.source.reset_counters()
        orc.read()
        full_bytes = orc.source.bytes_read
    with ORCFile(path) as orc:
        orc.source.reset_counters()
        got = orc.read(filters=flt)
        filtered_bytes = orc.source.bytes_read
    assert filtered_bytes < full_bytes / 3, (filtered_bytes, full_bytes)
    pd.testing.assert_frame_equal(got, full[(full["k"] >= 4200) & (full["k"] < 4300)].reset_index(drop=True))
    PRUNING[f"{writer} (sorted range)"].update(t)


@pytest.mark.parametrize("writer", WRITERS)
def test_bloom_filters_prune_point_lookups(writer: str, request: pytest.FixtureRequest) -> None:
    path = pruning_file(request, writer)
    rng = random.Random(3)
    with ORCFile(path) as orc:
        assert orc.writer == ("ORC_JAVA" if writer == "spark" else "ORC_CPP")
        full = orc.read()
        keys = set(full["r"].tolist())
        # keys from the middle of the range, inside the minimum and maximum of even the small last row groups
        middle = sorted(x for x in keys if 10**11 < x < 9 * 10**11)
        present = rng.sample(middle, 12)
        absent = [x for x in (rng.randrange(10**11, 9 * 10**11) for _ in range(20)) if x not in keys][:4]
        lookups = [([("r", "==", x)], 1) for x in present] + [([("r", "==", x)], 0) for x in absent]
        lookups += [([("s", "==", key_string(x))], 1) for x in present]
        lookups += [([("s", "==", key_string(x))], 0) for x in absent]
        lookups += [
            ([("r", "in", present[:3])], 3),
            # members no bigint can equal are left out of the bloom test, not an error
            ([("r", "in", [2**63, 2.5, -(2**70), present[5]])], 1),
            ([("s", "in", [key_string(x) for x in [*absent[:2], present[3]]])], 1),
        ]
        seen: Counter[str] = Counter()
        for flt, matches in lookups:
            t = totals(orc.explain(flt).to_dict())
            seen.update(t)
            # min/max keep nearly every row group; the bloom filters rule out nearly all that hold no match
            assert t["statistics"] <= t["row groups"] // 4, (flt, t)
            assert t["bloom filter"] >= (t["row groups"] - t["statistics"]) * 3 // 4, (flt, t)
            got = orcjit.read_orc(path, filters=flt)
            column, op, value = flt[0]
            wanted = full[column].isin(value if op == "in" else [value])
            pd.testing.assert_frame_equal(got, full[wanted].reset_index(drop=True), obj=repr(flt))
            assert len(got) == matches
    PRUNING[f"{writer} (point lookups)"].update(seen)


@pytest.mark.parametrize("writer", WRITERS)
def test_struct_field_is_null_where_the_struct_is(writer: str, request: pytest.FixtureRequest) -> None:
    """``st.a`` is null in the rows where ``st`` is, though it has no null of its own: ORC Java then records
    ``hasNull: false`` for it, which must not rule ``st.a is null`` out."""
    path = pruning_file(request, writer)
    with ORCFile(path) as orc:
        field = orc.statistics[orc.schema.find("st.a").column_id]
        assert field.count == PRUNE_ROWS * 2 // 3 and field.has_null is (writer != "spark")
        full = orc.read(dtype_backend="pyarrow")
        k = full["k"].to_numpy(dtype=np.int64)
        null = k % 3 == 0
        for flt, mask in (
            ([("st.a", "is null")], null),
            ([("st.a", "is not null")], ~null),
            ([("st.a", "is null"), ("k", "<", 2000)], null & (k < 2000)),
            ([[("st.a", "is null")], [("st.a", ">", 11990)]], null | (k > 11990)),
        ):
            assert not (mask & ~kept_rows(orc, orc.explain(flt))).any(), flt
            got = orc.read(dtype_backend="pyarrow", filters=flt)
            pd.testing.assert_frame_equal(got, full[mask].reset_index(drop=True), obj=repr(flt))


def test_float32_compares_exactly_on_every_path(tmp_path: Path) -> None:
    """A float column holds float32 values, compared with the filter's double exactly, as statistics compare them:
    0.1 is not the float32 nearest to it, whether statistics decide (one value) or the rows do (a range)."""
    tenth = f32(0.1)
    assert tenth != 0.1
    single = write_pyarrow(tmp_path, pa.table({"f": pa.array([0.1] * 30, pa.float32())}))
    spread = write_pyarrow(tmp_path, pa.table({"f": pa.array([0.1, 0.5, 0.05] * 10, pa.float32())}))
    for path, rows in ((single, 30), (spread, 10)):
        for flt, expected in (
            ([("f", "==", 0.1)], 0),
            ([("f", "in", [0.1])], 0),
            ([("f", "==", tenth)], rows),
            ([("f", "in", [0.1, tenth])], rows),
            ([("f", ">", 0.1)], rows + (10 if path == spread else 0)),
            ([("f", "<=", 0.1)], 10 if path == spread else 0),
            ([("f", "!=", 0.1)], 30),
            ([("f", "not in", [tenth])], 30 - rows),
        ):
            got = orcjit.read_orc(path, filters=flt)
            assert len(got) == expected, (path.name, flt)
            full = orcjit.read_orc(path, dtype_backend="pyarrow")
            values = exact_values(full, [("f", "float")])
            canonical = [[(flt[0][0], flt[0][1], tuple(flt[0][2]) if isinstance(flt[0][2], list) else flt[0][2])]]
            assert int(reference_mask(values, canonical, 30).sum()) == expected


OVER1K = EXAMPLES / "over1k_bloom.orc"


def test_early_hive_bloom_filters_never_prune() -> None:
    """``over1k_bloom.orc`` (an early Hive 1.2 build) holds bloom filters in a layout of its own that reads as
    nonsense in ORC's: no row group may be skipped by them, and equality filters stay exact."""
    with ORCFile(OVER1K) as orc:
        kinds = {s.kind_name for i in range(orc.nstripes) for s in orc.stripe_footer(i).streams}
        assert "BLOOM_FILTER" in kinds and orc.nstripes == 2
        schema = [(c.name, c.kind) for c in orc.schema.children]
        full = orc.read()
        exact = orc.read(dtype_backend="pyarrow")
        values = exact_values(exact, schema)
        rng = random.Random(8)
        first = orc.stripes[1].first_row
        checked = 0
        for column in describe_columns(values, schema):
            in_first = {v for v in column.values[:first] if v is not None}
            in_second = {v for v in column.values[first:] if v is not None}
            only = sorted(in_first - in_second, key=sort_key)[:3] + sorted(in_second - in_first, key=sort_key)[:3]
            gaps = [between(rng, column, a, b) for a, b in zip(column.distinct, column.distinct[1:], strict=False)]
            candidates = only + rng.sample(column.distinct, min(3, len(column.distinct))) + [g for g in gaps if g][:3]
            filters = [([(column.path, "==", v)], [[(column.path, "==", v)]]) for v in candidates]
            filters.append(([(column.path, "in", candidates[:4])], [[(column.path, "in", tuple(candidates[:4]))]]))
            for passed, canonical in filters:
                report = orc.explain(passed).to_dict()
                assert totals(report)["bloom filter"] == 0, (passed, report)
                mask = reference_mask(values, canonical, orc.nrows)
                got = orcjit.read_orc(OVER1K, filters=passed)
                expected = full[mask].reset_index(drop=True)
                assert_same_frame(got, expected, lambda m=mask: exact[m].reset_index(drop=True), repr(passed))
                checked += 1
        assert checked > 80


def test_pruning_summary() -> None:
    """Prints (with ``-s``) what pruning the filters above met, per writer: how many filters, and the stripes and
    row groups explain() reported skipped for a third of them."""
    for writer, c in sorted(PRUNING.items()):
        shown = ", ".join(f"{key} {value}" for key, value in sorted(c.items()))
        print(f"\n{writer}: {shown}")
    assert all(count >= 0 for c in PRUNING.values() for count in c.values())
