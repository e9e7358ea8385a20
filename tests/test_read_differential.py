"""orcjit.read_orc against pandas.read_orc (ORC C++ through pyarrow) on generated files.

Each file is read with orcjit and with pandas for every ``dtype_backend`` and the DataFrames must be equal:
``pandas.testing.assert_frame_equal(check_exact=True)`` on the flat columns, and a stricter element-wise comparison
on every column (pandas' asserters cannot compare nested object columns at all, and take ``-0.0 == 0.0`` and
``Decimal("1.0") == Decimal("1.00")``): Python types, float bits (NaN, signed zero), decimal digits and exponent,
nested lists, dicts and arrays.

Writer options are crossed with a pairwise covering set (every pair of option values occurs in some file) rather
than the full product: compression x RLE v1/v2 (file version 0.11/0.12) x direct/dictionary strings x nulls x one
or many stripes x row index stride for pyarrow; compression x writer time zone x dictionary x nulls x stripes x
stride for pyorc, which adds char(n), varchar(n), timestamp with local time zone and unions.

Where pandas.read_orc itself is wrong or cannot read, the test says so and checks orcjit against the values
written (or pyorc's own read) instead:

- unions: pandas' NumPy backends raise ``ArrowNotImplementedError``; orcjit's ``{"tag", "value"}`` dicts are
  checked against pyorc's read;
- ``timestamp`` in a writer time zone other than UTC with a fraction of a second, when the wall clock and the UTC
  instant lie on different sides of 1970-01-01: ORC C++ reads it a second off; orcjit gives the wall clock
  written. (Before the zone's first transition ORC C++ applies the zone's first standard offset, not local mean
  time as pyorc's Python side does when it writes a wall clock: orcjit reads ORC C++ files with ORC C++'s rules,
  as pandas does; see ``orcjit.timezones``.)
- ``columns=["m.a"]`` naming a field of a struct inside a map aborts the process in pyarrow (a failed check in
  its MapBuilder), so orcjit's answer is checked against its own full read.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
import re
import zoneinfo
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyorc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import orcjit
from orcjit import OrcError, ORCFile
from orcjit._proto import orc_proto_pb2 as pb
from tests.factory import COMPRESSIONS, PYORC_CONVERTERS, write_pyarrow, write_pyorc

BACKENDS: tuple[dict[str, str], ...] = ({}, {"dtype_backend": "numpy_nullable"}, {"dtype_backend": "pyarrow"})
BACKEND_IDS = ["numpy", "numpy_nullable", "pyarrow"]
NESTED_KINDS = frozenset({"array", "map", "struct", "uniontype"})
NS = 1_000_000_000

# -- comparing DataFrames ------------------------------------------------------------------------------------------


def difference(x: Any, y: Any, where: str = "") -> str | None:
    """Where ``x`` and ``y`` differ (None when equal): same Python types, NaN equal to NaN, -0.0 not equal to 0.0,
    decimals equal in digits and exponent, containers element by element."""
    if type(x) is not type(y):
        return f"{where}: {x!r} ({type(x).__name__}) != {y!r} ({type(y).__name__})"
    if isinstance(x, float):
        same = (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))
        return None if same else f"{where}: {x!r} != {y!r}"
    if isinstance(x, Decimal):
        return None if x.as_tuple() == y.as_tuple() else f"{where}: {x!r} != {y!r}"
    if isinstance(x, np.ndarray):
        if x.dtype != y.dtype or x.shape != y.shape:
            return f"{where}: array {x.dtype}{x.shape} != {y.dtype}{y.shape}"
        return difference(x.tolist(), y.tolist(), where)
    if isinstance(x, (list, tuple)):
        if len(x) != len(y):
            return f"{where}: {len(x)} items != {len(y)}: {x!r} != {y!r}"
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            found = difference(u, v, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(x, dict):
        if list(x) != list(y):
            return f"{where}: keys {list(x)} != {list(y)}"
        for key in x:
            found = difference(x[key], y[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if x is None or x is pd.NA or x is pd.NaT:
        return None
    if isinstance(x, pd.Timestamp):
        same = x.value == y.value and x.tz == y.tz and x.unit == y.unit
        return None if same else f"{where}: {x!r} != {y!r}"
    return None if x == y else f"{where}: {x!r} != {y!r}"


def column_values(series: pd.Series) -> list[Any]:
    """The column's values as Python objects: ``to_pylist`` for Arrow-backed columns (keeps decimal scale, nested
    values, union values), ``tolist`` otherwise."""
    if isinstance(series.dtype, pd.ArrowDtype):
        return series.array.__arrow_array__().to_pylist()
    return series.tolist()


def is_nested(series: pd.Series) -> bool:
    """Whether pandas' asserters cannot compare the column: lists, maps, structs or unions."""
    if isinstance(series.dtype, pd.ArrowDtype):
        return pa.types.is_nested(series.dtype.pyarrow_dtype)
    return series.dtype == object and any(isinstance(v, (dict, list, tuple, np.ndarray)) for v in series)


def assert_same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """``got`` equals ``expected``: columns, dtypes, index, and every value (see :func:`difference`)."""
    assert list(got.columns) == list(expected.columns)
    assert list(got.dtypes) == list(expected.dtypes), (list(got.dtypes), list(expected.dtypes))
    pd.testing.assert_index_equal(got.index, expected.index, exact=True)
    flat = [c for c in expected.columns if not (is_nested(expected[c]) or is_nested(got[c]))]
    pd.testing.assert_frame_equal(got[flat], expected[flat], check_exact=True)
    for c in expected.columns:
        if isinstance(got[c].dtype, pd.ArrowDtype) and pa.types.is_union(got[c].dtype.pyarrow_dtype):
            # to_pylist drops union tags: compare the Arrow arrays (type ids and children) as well
            assert got[c].array.__arrow_array__().equals(expected[c].array.__arrow_array__()), c
        found = difference(column_values(got[c]), column_values(expected[c]), repr(c))
        assert found is None, found


def assert_like_pandas(path: Path, backends: Sequence[dict[str, str]] = BACKENDS, **kw: Any) -> None:
    """orcjit.read_orc(path, **kw) equals pandas.read_orc(path, **kw) for each dtype_backend."""
    for backend in backends:
        assert_same(orcjit.read_orc(path, **kw, **backend), pd.read_orc(path, **kw, **backend))


def test_comparison_is_strict() -> None:
    assert difference(-0.0, 0.0) and difference(0.0, -0.0)
    assert difference(math.nan, math.nan) is None and difference(math.nan, 1.0)
    assert difference(Decimal("1.0"), Decimal("1.00"))
    assert difference(1, 1.0) and difference(True, 1) and difference(None, pd.NA)
    assert difference([{"a": np.array([1, 2])}], [{"a": np.array([1, 3])}])
    assert difference([{"a": np.array([1, 2])}], [{"a": np.array([1, 2], dtype=np.int32)}])
    assert difference({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert difference([("k", -0.0)], [("k", 0.0)])
    assert difference(pd.Timestamp(1), pd.Timestamp(1, tz="UTC"))
    assert difference([[1, None]], [[1, None]]) is None
    left = pd.DataFrame({"f": [0.0, -0.0], "d": [Decimal("1.0"), Decimal("2")]})
    with pytest.raises(AssertionError):
        assert_same(left, pd.DataFrame({"f": [0.0, 0.0], "d": [Decimal("1.0"), Decimal("2")]}))
    with pytest.raises(AssertionError):
        assert_same(left, pd.DataFrame({"f": [0.0, -0.0], "d": [Decimal("1.00"), Decimal("2")]}))
    assert_same(left, left.copy())


# -- pairwise covering sets ------------------------------------------------------------------------------------------


def pairwise(factors: dict[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """A small set of cases in which every pair of values of two different factors occurs together (greedy,
    deterministic): the first uncovered pair seeds a case, every other factor takes the value that covers most
    pairs still uncovered."""
    names = list(factors)
    sizes = [len(factors[name]) for name in names]
    uncovered = {
        (i, a, j, b)
        for i, j in itertools.combinations(range(len(names)), 2)
        for a in range(sizes[i])
        for b in range(sizes[j])
    }
    cases = []
    while uncovered:
        i, a, j, b = min(uncovered)
        chosen = {i: a, j: b}
        for k in range(len(names)):
            if k in chosen:
                continue
            gains = [
                sum(((m, chosen[m], k, v) if m < k else (k, v, m, chosen[m])) in uncovered for m in chosen)
                for v in range(sizes[k])
            ]
            chosen[k] = gains.index(max(gains))
        for m, n in itertools.combinations(sorted(chosen), 2):
            uncovered.discard((m, chosen[m], n, chosen[n]))
        cases.append({names[k]: factors[names[k]][v] for k, v in sorted(chosen.items())})
    return cases


def case_id(case: dict[str, Any]) -> str:
    return "-".join(str(v) for v in case.values())


def test_pairwise_covers_every_pair() -> None:
    factors = {"a": [1, 2, 3, 4, 5], "b": "xyz", "c": [True, False], "d": [0, 1, 2]}
    cases = pairwise(factors)
    for (f, vs), (g, ws) in itertools.combinations(factors.items(), 2):
        for v, w in itertools.product(vs, ws):
            assert any(c[f] == v and c[g] == w for c in cases), (f, v, g, w)
    assert len(cases) < 5 * 3 * 2 * 3 / 2


# -- data -------------------------------------------------------------------------------------------------------

WORDS = ("", "a", "abc", "Zebra", "naïve", "straße", "Ωmega", "日本", "中文字", "🎉", "x" * 20, "0", "~", " ")
# decimal(precision, scale) at precisions 1, 9, 18, 19 and 38: scale 0, half the precision, and scale = precision
DECIMALS = {f"d{p}_{s}": (p, s) for p in (1, 9, 18, 19, 38) for s in sorted({0, p // 2, p})}
F64_SPECIALS = (math.nan, math.inf, -math.inf, -0.0, 0.0, 5e-324, -5e-324, 1.7976931348623157e308, 1.5)
F32_SPECIALS = (math.nan, math.inf, -math.inf, -0.0, 0.0, 1.401298464324817e-45, 3.4028234663852886e38, -0.5)
DATE_SPECIALS = (dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1969, 12, 31), dt.date(1970, 1, 1))
DATE_SPECIALS += (dt.date(1582, 10, 4), dt.date(1900, 2, 28))
# nanoseconds: the extremes pandas holds, around the epoch, pre-1970 with and without fractions
TS_SPECIALS = (-(2**63) + 1, 2**63 - 1, -NS, -NS - 1, -1_500_000_000, 0, 1, NS - 1, -86_400 * NS + 123)
TS_SPECIALS += (-5_000_000 * NS - 999_999_999, -5_000_000 * NS + 1)
POINT = pa.struct([("x", pa.int64()), ("y", pa.string())])
INNER = pa.struct([("b", pa.float64()), ("c", pa.list_(pa.int32()))])
RICH_TYPES: dict[str, pa.DataType] = {
    "bool": pa.bool_(),
    "i8": pa.int8(),
    "i16": pa.int16(),
    "i32": pa.int32(),
    "i64": pa.int64(),
    "f32": pa.float32(),
    "f64": pa.float64(),
    "str": pa.string(),
    "cat": pa.string(),
    "bin": pa.binary(),
    **{name: pa.decimal128(p, s) for name, (p, s) in DECIMALS.items()},
    "date": pa.date32(),
    "ts": pa.timestamp("ns"),
    "ts_utc": pa.timestamp("ns", tz="UTC"),
    "l_int": pa.list_(pa.int32()),
    "l_str": pa.list_(pa.string()),
    "l_struct": pa.list_(POINT),
    "l_l": pa.list_(pa.list_(pa.int16())),
    "m": pa.map_(pa.string(), pa.float64()),
    "m_list": pa.map_(pa.int32(), pa.list_(pa.string())),
    "s": pa.struct([("a", pa.int32()), ("b", pa.string()), ("t", INNER)]),
}
PYORC_TYPES = {
    "bool": "boolean",
    "i8": "tinyint",
    "i16": "smallint",
    "i32": "int",
    "i64": "bigint",
    "f32": "float",
    "f64": "double",
    "str": "string",
    "cat": "string",
    "chr": "char(6)",
    "vchr": "varchar(9)",
    "bin": "binary",
    **{name: f"decimal({p},{s})" for name, (p, s) in DECIMALS.items()},
    "date": "date",
    "ts": "timestamp",
    "ts_local": "timestamp with local time zone",
    "l_int": "array<int>",
    "l_str": "array<string>",
    "l_struct": "array<struct<x:bigint,y:string>>",
    "l_l": "array<array<smallint>>",
    "m": "map<string,double>",
    "m_list": "map<int,array<string>>",
    "s": "struct<a:int,b:string,t:struct<b:double,c:array<int>>>",
    "u": "uniontype<int,string>",
}
PYORC_SCHEMA = "struct<" + ",".join(f"{name}:{typ}" for name, typ in PYORC_TYPES.items()) + ">"


def rich_columns(n: int, seed: int, nulls: str) -> dict[str, list[Any]]:
    """Python values (None for null) of every column of :data:`RICH_TYPES`, deterministic from ``seed``.

    Each column's special values sit at both ends. ``nulls="some"`` nulls ~15 % of the rows (row 3 always) and
    puts nulls at nested levels: list elements, map values, struct fields, whole inner structs (``s.t``) under
    non-null parents, null lists beside empty ones.
    """
    rng = random.Random(seed)

    def null(p: float = 0.15) -> bool:
        return nulls == "some" and rng.random() < p

    def column(make: Any, specials: Sequence[Any] = ()) -> list[Any]:
        values = [make() for _ in range(n)]
        for k, v in enumerate(specials):
            for pos in (k, n - 1 - k):
                if 0 <= pos < n:
                    values[pos] = v
        if nulls == "all":
            return [None] * n
        if nulls == "some":
            return [None if (i == 3 or rng.random() < 0.15) else v for i, v in enumerate(values)]
        return values

    def word() -> str:
        return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3)))

    def ints(k: int) -> list[int | None]:
        return [None if null(0.1) else rng.randint(-1000, 1000) for _ in range(rng.randint(0, k))]

    def ts_ns() -> int:
        ns = rng.randrange(-(2**62), 2**62) if rng.random() < 0.3 else rng.randrange(-(3 * 10**18), 3 * 10**18)
        if rng.random() < 0.3:
            ns -= ns % NS
        return ns

    cols: dict[str, list[Any]] = {"bool": column(lambda: rng.random() < 0.5, (True, False))}
    for name, bits in (("i8", 8), ("i16", 16), ("i32", 32), ("i64", 64)):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        cols[name] = column(
            lambda lo=lo, hi=hi: rng.randint(lo, hi) if rng.random() < 0.5 else rng.randint(-100, 100),
            (lo, hi, 0, -1, 1),
        )
    cols["f32"] = column(lambda: round(rng.gauss(0, 100), 2), F32_SPECIALS)
    cols["f64"] = column(lambda: rng.gauss(0, 1e6), F64_SPECIALS)
    # mostly distinct (a dictionary only when forced), while "cat" repeats a handful of words
    cols["str"] = column(
        lambda: word() + (str(rng.randint(0, 10**6)) if rng.random() < 0.8 else ""),
        ("", "🎉🎉 ünïcödé", "tab\tnewline\n", "nul\x00byte"),
    )
    cols["cat"] = column(lambda: rng.choice(WORDS[:6]), ("",))
    cols["bin"] = column(lambda: rng.randbytes(rng.randint(0, 12)), (b"", b"\x00", b"\xff" * 9))
    for name, (p, s) in DECIMALS.items():
        top = 10**p - 1
        cols[name] = column(
            lambda p=p, s=s: Decimal(
                f"{rng.randint(-(10 ** rng.randint(0, p)) + 1, 10 ** rng.randint(0, p) - 1)}E-{s}"
            ),
            tuple(Decimal(f"{v}E-{s}") for v in (-top, top, 0, -1, 1)),
        )
    epoch = dt.date(1970, 1, 1)
    cols["date"] = column(lambda: epoch + dt.timedelta(days=rng.randint(-30_000, 30_000)), DATE_SPECIALS)
    cols["ts"] = column(ts_ns, TS_SPECIALS)
    cols["ts_utc"] = column(ts_ns, TS_SPECIALS)
    cols["l_int"] = column(lambda: ints(4), ([], [None], [0], [-(2**31), 2**31 - 1]))
    cols["l_str"] = column(lambda: [None if null(0.1) else word() for _ in range(rng.randint(0, 3))], ([], [""]))
    cols["l_struct"] = column(
        lambda: [
            None if null(0.2) else {"x": None if null() else rng.randint(-9, 9), "y": None if null() else word()}
            for _ in range(rng.randint(0, 3))
        ],
        ([], [None], [{"x": None, "y": None}]),
    )
    cols["l_l"] = column(
        lambda: [None if null(0.2) else ints(3) for _ in range(rng.randint(0, 3))], ([], [[]], [None], [[], None])
    )
    cols["m"] = column(
        lambda: [(k, None if null(0.3) else rng.uniform(-10, 10)) for k in rng.sample(WORDS, rng.randint(0, 4))],
        ([], [("k", None)], [("", -0.0)], [("n", math.nan)]),
    )
    cols["m_list"] = column(
        lambda: [
            (k, None if null(0.2) else [word() for _ in range(rng.randint(0, 2))])
            for k in rng.sample(range(-50, 50), rng.randint(0, 3))
        ],
        ([], [(0, [])], [(1, None)]),
    )

    def inner() -> dict[str, Any]:
        return {"b": None if null() else rng.uniform(-1, 1), "c": None if null() else ints(3)}

    cols["s"] = column(
        lambda: {
            "a": None if null() else rng.randint(-50, 50),
            "b": None if null() else word(),
            "t": None if null(0.25) else inner(),
        },
        ({"a": None, "b": None, "t": None}, {"a": 1, "b": "", "t": {"b": None, "c": []}}),
    )
    return cols


def rich_table(n: int, seed: int = 0, nulls: str = "some", pad: int = 0) -> pa.Table:
    """An Arrow table of every type pyarrow writes to ORC (:data:`RICH_TYPES`); ``pad`` adds a binary column of
    that many random bytes per row, to make compressed stripes fill up."""
    cols = rich_columns(n, seed, nulls)
    table = pa.table({name: pa.array(cols[name], typ) for name, typ in RICH_TYPES.items()})
    if pad:
        rng = random.Random(seed + 1)
        table = table.append_column("pad", pa.array([rng.randbytes(pad) for _ in range(n)], pa.binary()))
    return table


def _safe_instant(rng: random.Random) -> pd.Timestamp:
    """A UTC instant in 1900-2100, away from 1970-01-01 by more than a day, with a fraction of a second."""
    while True:
        ns = rng.randrange(pd.Timestamp("1900-01-01").value, pd.Timestamp("2100-01-01").value)
        if abs(ns) > 2 * 86_400 * NS:
            return pd.Timestamp(ns, tz="UTC")


def rich_pyorc_rows(n: int, seed: int, nulls: str) -> list[dict[str, Any]]:
    """Rows (dicts, for ``struct_repr="dict"``) for :data:`PYORC_SCHEMA`.

    ``ts`` values are UTC instants in 1900-2100 away from the epoch (stored as the writer's wall clock: see the
    module docstring for where pandas gets other ones wrong); ``ts_local`` covers the range pandas holds. The union
    is never null (pyorc 0.12 writes a null union from uninitialised memory).
    """
    cols = rich_columns(n, seed, nulls)
    rng = random.Random(seed + 2)
    cols["chr"] = [None if v is None else v[:6] for v in rich_columns(n, seed + 3, nulls)["str"]]
    cols["vchr"] = [None if v is None else v[:9] for v in rich_columns(n, seed + 4, nulls)["str"]]
    cols["ts"] = [None if v is None else _safe_instant(rng) for v in cols["ts"]]
    # pandas.read_orc cannot read the earliest second a nanosecond timestamp holds from pyorc's files (see
    # test_timestamps_pandas_gets_wrong): one second later instead
    edge = {-(2**63) + 1: -(2**63) + NS}
    cols["ts_local"] = [None if v is None else pd.Timestamp(edge.get(v, v), tz="UTC") for v in cols.pop("ts_utc")]
    for name in ("m", "m_list"):
        cols[name] = [None if v is None else dict(v) for v in cols[name]]
    cols["u"] = [rng.randint(-(2**31), 2**31 - 1) if rng.random() < 0.5 else rng.choice(WORDS) for _ in range(n)]
    return [{name: cols[name][i] for name in PYORC_TYPES} for i in range(n)]


def pyorc_read(path: Path, column: str, timezone: str = "UTC") -> list[Any]:
    """pyorc's own read of one column (ORC C++ without pyarrow's conversion)."""
    with open(path, "rb") as fh:
        reader = pyorc.Reader(
            fh,
            column_names=[column],
            struct_repr=pyorc.StructRepr.DICT,
            converters=PYORC_CONVERTERS,
            timezone=zoneinfo.ZoneInfo(timezone),
        )
        return [row[column] for row in reader]


def field_names(path: Path) -> list[str]:
    with ORCFile(path) as f:
        return f.schema.field_names


def assert_union_like_pyorc(path: Path, column: str = "u") -> None:
    """orcjit's union dicts hold pyorc's values with the tag of their variant (int: 0, string: 1)."""
    expected = [
        None if v is None else {"tag": 0 if isinstance(v, int) else 1, "value": v} for v in pyorc_read(path, column)
    ]
    for backend in BACKENDS[:2]:
        got = orcjit.read_orc(path, columns=[column], **backend)[column].tolist()
        found = difference(got, expected, column)
        assert found is None, found


# -- the writer matrices ---------------------------------------------------------------------------------------------

PYARROW_CASES = pairwise(
    {
        "compression": COMPRESSIONS,
        "file_version": ("0.11", "0.12"),
        "strings": ("direct", "mixed", "dictionary"),
        "nulls": ("some", "none", "all"),
        "stripes": ("many", "one"),
        "row_index_stride": (10_000, 1000, 64),
    }
)
# dictionary_key_size_threshold: 0 disables dictionaries, 1.0 forces them, 0.5 picks per column ("cat" repeats
# a handful of words: dictionary; "str" and the nested strings: mostly direct)
THRESHOLDS = {"direct": 0.0, "mixed": 0.5, "dictionary": 1.0}


def write_case(tmp_path: Path, case: dict[str, Any], n: int = 1000, seed: int = 0) -> Path:
    many = case["stripes"] == "many"
    table = rich_table(n, seed=seed, nulls=case["nulls"], pad=200 if many else 0)
    return write_pyarrow(
        tmp_path,
        table,
        compression=case["compression"],
        file_version=case["file_version"],
        dictionary_key_size_threshold=THRESHOLDS[case["strings"]],
        row_index_stride=case["row_index_stride"],
        stripe_size=4096 if many else None,
        batch_size=128 if many else None,
    )


@pytest.mark.parametrize("case", PYARROW_CASES, ids=case_id)
def test_pyarrow_files_read_as_pandas_reads_them(tmp_path: Path, case: dict[str, Any]) -> None:
    path = write_case(tmp_path, case, seed=len(case_id(case)))
    with ORCFile(path) as f:
        # the option really took effect
        assert f.file_version == case["file_version"]
        kinds = {e.kind for i in range(f.nstripes) for e in f.stripe_footer(i).encodings}
        # RLE v1 (DIRECT, DICTIONARY) in 0.11 files, v2 (DIRECT_V2, DICTIONARY_V2) in 0.12 ones
        assert bool(kinds & {2, 3}) == (case["file_version"] == "0.12")
        assert (f.nstripes > 1) == (case["stripes"] == "many")
        assert bool(kinds & {1, 3}) == (case["strings"] != "direct") or case["nulls"] == "all"
        if case["strings"] == "mixed" and case["nulls"] != "all":
            by_column = {
                name: {f.stripe_footer(i).encodings[f.schema[name].column_id].kind for i in range(f.nstripes)}
                for name in ("str", "cat")
            }
            assert by_column["str"] <= {0, 2} and by_column["cat"] <= {1, 3}, by_column
    assert_like_pandas(path)


PYORC_CASES = pairwise(
    {
        "compression": COMPRESSIONS,
        "timezone": ("America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"),
        "strings": ("dictionary", "direct"),
        "nulls": ("some", "none", "all"),
        "stripes": ("many", "one"),
        "row_index_stride": (10_000, 500),
    }
)


def write_pyorc_case(tmp_path: Path, case: dict[str, Any], n: int = 600, seed: int = 0) -> Path:
    """A pyorc file of :data:`PYORC_SCHEMA`; many stripes come with a ``pad`` column of random bytes, never null,
    that fills them (all-null columns take next to no room)."""
    many = case["stripes"] == "many"
    rows = rich_pyorc_rows(n, seed, case["nulls"])
    schema = PYORC_SCHEMA
    if many:
        rng = random.Random(seed)
        schema = schema[:-1] + ",pad:binary>"
        rows = [{**row, "pad": rng.randbytes(60)} for row in rows]
    return write_pyorc(
        tmp_path,
        schema,
        rows,
        struct_repr="dict",
        compression=case["compression"],
        timezone=case["timezone"],
        dict_key_size_threshold=THRESHOLDS[case["strings"]],
        row_index_stride=case["row_index_stride"],
        stripe_size=8192 if many else None,
        batch_size=100 if many else None,
    )


@pytest.mark.parametrize("case", PYORC_CASES, ids=case_id)
def test_pyorc_files_read_as_pandas_reads_them(tmp_path: Path, case: dict[str, Any]) -> None:
    path = write_pyorc_case(tmp_path, case, seed=len(case_id(case)))
    with ORCFile(path) as f:
        assert (f.nstripes > 1) == (case["stripes"] == "many")
        assert {f.stripe_footer(i).writer_timezone for i in range(f.nstripes)} == {case["timezone"]}
    columns = [name for name in field_names(path) if name != "u"]
    assert_like_pandas(path, columns=columns)
    # pandas converts unions only to Arrow; its NumPy backends cannot
    assert_like_pandas(path, backends=BACKENDS[2:])
    for backend in BACKENDS[:2]:
        with pytest.raises(pa.ArrowNotImplementedError):
            pd.read_orc(path, **backend)
    assert_union_like_pyorc(path)


def test_timestamps_pandas_gets_wrong(tmp_path: Path) -> None:
    # wall clocks written in the writer's zone with fractions of a second where the wall clock and the instant lie
    # on either side of 1970: ORC C++ reads them a second off
    cases = {
        "America/New_York": ["1969-12-31 20:00:00.5", "1969-12-31 19:00:00.25"],
        "Asia/Kolkata": ["1970-01-01 00:00:00.5", "1970-01-01 04:59:59.5"],
        "Australia/Lord_Howe": ["1970-01-01 05:00:00.5"],
    }
    good = ["2000-06-01 12:00:00.123456789", "1950-03-04 05:06:07.5", "1969-06-30 23:59:59.999999999"]
    for timezone, wrong in cases.items():
        walls = [pd.Timestamp(v) for v in [*good, *wrong]]
        path = write_pyorc(tmp_path, "struct<ts:timestamp>", [(w,) for w in walls], timezone=timezone)
        got = orcjit.read_orc(path)["ts"]
        assert got.tolist() == walls
        assert [t.tz_localize(None) for t in pyorc_read(path, "ts", timezone)] == walls
        theirs = pd.read_orc(path)["ts"].tolist()
        assert theirs[: len(good)] == walls[: len(good)]
        # pinned: if pyarrow starts getting these right, this module's docstring needs updating
        assert all(t != w for t, w in zip(theirs[len(good) :], walls[len(good) :], strict=True)), timezone
    # the earliest nanosecond timestamp: pyorc stores -9223372037 s + 145224193 ns, which pyarrow refuses to convert
    # (pyarrow 14 still converted it)
    earliest = pd.Timestamp(-(2**63) + 1)
    path = write_pyorc(
        tmp_path, "struct<t:timestamp,l:timestamp with local time zone>", [(earliest, earliest.tz_localize("UTC"))]
    )
    assert orcjit.read_orc(path).iloc[0].tolist() == [earliest, earliest.tz_localize("UTC")]
    try:
        theirs = pd.read_orc(path).iloc[0, 0]
    except pa.ArrowInvalid as exc:
        assert "out of range" in str(exc)
    else:
        assert theirs == earliest


def test_timestamps_before_the_first_transition_as_orc_cpp_reads_them(tmp_path: Path) -> None:
    # pyorc turns a wall clock into an instant in Python (zoneinfo: local mean time before the zone's first
    # transition); ORC C++ reads the instant back with the zone's first standard-time offset, and so does orcjit
    cases = {
        "America/New_York": (["1883-11-18 11:00:00", "1800-01-01 00:00:00.7"], dt.timedelta(hours=-5)),
        "Asia/Kolkata": (["1800-01-01 00:00:00.7", "1850-06-01 12:00:00"], dt.timedelta(hours=5, seconds=3200)),
        "Australia/Lord_Howe": (["1883-11-18 11:00:00", "1678-01-01 00:00:00.000000001"], dt.timedelta(hours=10)),
    }
    for timezone, (written, offset) in cases.items():
        walls = [pd.Timestamp(v) for v in written]
        path = write_pyorc(tmp_path, "struct<ts:timestamp>", [(w,) for w in walls], timezone=timezone)
        instants = [w.tz_localize(zoneinfo.ZoneInfo(timezone)).tz_convert("UTC") for w in walls]
        got = orcjit.read_orc(path)["ts"].tolist()
        assert got == [i.tz_convert(dt.timezone(offset)).tz_localize(None) for i in instants], timezone
        assert got == pd.read_orc(path)["ts"].tolist()
        assert got != walls
        assert [t.tz_convert("UTC") for t in pyorc_read(path, "ts", timezone)] == instants


# -- projection ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rich_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_pyarrow(tmp_path_factory.mktemp("rich"), rich_table(300, seed=7), dictionary_key_size_threshold=1.0)


PROJECTIONS = [
    ["i8"],
    ["s", "i8", "bool"],  # reordered: the result keeps the file's order
    ["s.a"],
    ["s.t.b"],
    ["s.t", "f64"],
    ["s.b", "s.t.c", "s.a"],
    ["s.a", "s"],
    ["l_struct.y"],  # through a list, as ORC C++ names fields
    ["l_struct.x", "s.t.c", "m"],
    [30, 0, 5],  # positions
    ["i8", "i8"],
    list(RICH_TYPES)[::-1],
]


@pytest.mark.parametrize("columns", PROJECTIONS, ids=lambda c: ",".join(map(str, c)))
def test_projection_as_pandas(rich_file: Path, columns: list[Any]) -> None:
    assert_like_pandas(rich_file, columns=columns)


@pytest.mark.parametrize("backend", BACKENDS, ids=BACKEND_IDS)
def test_no_columns_keeps_the_rows(rich_file: Path, backend: dict[str, str]) -> None:
    expected = pd.read_orc(rich_file, columns=[], **backend)
    assert expected.shape == (300, 0)
    with ORCFile(rich_file) as f:
        assert f.read_stripe(0, columns=[], **backend).shape == (300, 0)
    assert_same(orcjit.read_orc(rich_file, columns=[], **backend), expected)


NAMES = [*RICH_TYPES, "s.a", "s.b", "s.t", "s.t.b", "s.t.c", "l_struct.x", "l_struct.y"]


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.sampled_from(NAMES) | st.integers(0, len(RICH_TYPES) - 1), min_size=1, max_size=6, unique=True).filter(
        lambda cs: len({type(c) for c in cs}) < 2  # pyarrow takes names or positions, not both in one list
    )
)
def test_random_projections_as_pandas(rich_file: Path, columns: list[Any]) -> None:
    assert_like_pandas(rich_file, columns=columns, backends=BACKENDS[::2])


def test_field_inside_a_map(tmp_path: Path) -> None:
    # pyarrow aborts the process on columns=["m.a"]: orcjit against its own full read
    point = pa.struct([("a", pa.int32()), ("b", pa.string())])
    values = [[("k", {"a": 1, "b": "x"}), ("j", None)], None, [], [("z", {"a": None, "b": "y"})]]
    path = write_pyarrow(tmp_path, pa.table({"m": pa.array(values, pa.map_(pa.string(), point)), "i": [1, 2, 3, 4]}))
    got = orcjit.read_orc(path, columns=["m.a"], dtype_backend="pyarrow")
    assert list(got.columns) == ["m"]
    assert got["m"].dtype == pd.ArrowDtype(pa.map_(pa.string(), pa.struct([("a", pa.int32())])))
    expected = [None if m is None else [(k, None if v is None else {"a": v["a"]}) for k, v in m] for m in values]
    assert column_values(got["m"]) == expected


@pytest.mark.parametrize("column", ["nope", "s.nope", "s.t.b.x", "l_struct._elem", "m.key", "S", "s."])
def test_unknown_column_names_it(rich_file: Path, column: str) -> None:
    with pytest.raises(OrcError, match=re.escape(f"no column '{column}' in the file")):
        orcjit.read_orc(rich_file, columns=["i8", column])
    with pytest.raises((OSError, ValueError)):
        pd.read_orc(rich_file, columns=["i8", column])


@pytest.mark.parametrize("index", [-1, len(RICH_TYPES), 10**9])
def test_column_index_out_of_range(rich_file: Path, index: int) -> None:
    with pytest.raises(OrcError, match=f"column index {index} out of range"):
        orcjit.read_orc(rich_file, columns=[index])
    with pytest.raises(ValueError, match="Column indices must be"):
        pd.read_orc(rich_file, columns=[index])


@pytest.mark.parametrize("columns", ["i8", b"i8", 3, 1.5, [1.5], [None], [True], [b"i8"], [["i8"]], [{"i8"}]])
def test_wrong_column_types(rich_file: Path, columns: Any) -> None:
    # pandas passes these to pyarrow, which splits a string into letters and takes True for 1 and bytes for
    # names; orcjit refuses anything but a list of names and indices
    with pytest.raises(OrcError, match="columns must"):
        orcjit.read_orc(rich_file, columns=columns)


# -- empty files and all-null stripes --------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", ["pyarrow", "pyorc"])
def test_empty_file(tmp_path: Path, writer: str) -> None:
    if writer == "pyarrow":
        path = write_pyarrow(tmp_path, rich_table(0))
        columns = None
    else:
        path = write_pyorc(tmp_path, PYORC_SCHEMA, [], struct_repr="dict")
        columns = [name for name in PYORC_TYPES if name != "u"]
        assert_like_pandas(path, backends=BACKENDS[2:])  # the union too
    with ORCFile(path) as f:
        assert f.nrows == 0 and f.nstripes == 0
    assert_like_pandas(path, columns=columns)
    assert_like_pandas(path, columns=["s.t.b", "i8"])
    # no stripe keeps a dictionary: strings stay strings
    for backend in BACKENDS:
        assert_same(
            orcjit.read_orc(path, columns=columns, dictionary_as_category=True, **backend),
            pd.read_orc(path, columns=columns, **backend),
        )
    with ORCFile(path) as f:
        assert list(f.iter_stripes()) == []


def test_one_stripe_of_nulls(tmp_path: Path) -> None:
    path = write_pyarrow(tmp_path, rich_table(500, nulls="all"), dictionary_key_size_threshold=1.0)
    with ORCFile(path) as f:
        assert f.nstripes == 1
    assert_like_pandas(path)
    frame = orcjit.read_orc(path, dtype_backend="numpy_nullable")
    assert frame.isna().all().all()


# -- stripes ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def striped_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("striped")
    by_pyarrow = write_pyarrow(
        tmp, rich_table(700, seed=3), compression="uncompressed", stripe_size=4096, batch_size=100
    )
    case = {"compression": "zlib", "timezone": "Asia/Kolkata", "strings": "dictionary", "nulls": "some"}
    by_pyorc = write_pyorc_case(tmp, {**case, "stripes": "many", "row_index_stride": 10_000}, n=800, seed=4)
    return [by_pyarrow, by_pyorc]


@pytest.mark.parametrize("backend", BACKENDS, ids=BACKEND_IDS)
@pytest.mark.parametrize("which", [0, 1], ids=["pyarrow", "pyorc"])
def test_stripes_add_up_to_the_file(striped_files: list[Path], which: int, backend: dict[str, str]) -> None:
    path = striped_files[which]
    columns = None if which == 0 else [name for name in field_names(path) if name != "u"]
    full = orcjit.read_orc(path, columns=columns, **backend)
    with ORCFile(path) as f:
        assert f.nstripes >= 4
        parts = list(f.iter_stripes(columns=columns, **backend))
        assert len(parts) == f.nstripes
        for stripe, part in zip(f.stripes, parts, strict=True):
            rows = pd.RangeIndex(stripe.first_row, stripe.first_row + stripe.rows)
            pd.testing.assert_index_equal(part.index, rows, exact="equiv")
            assert_same(f.read_stripe(stripe.index, columns=columns, **backend), part)
        assert_same(f.read_stripe(-1, columns=columns, **backend), parts[-1])
        with pytest.raises(IndexError):
            f.read_stripe(f.nstripes)
    joined = pd.concat(parts)
    pd.testing.assert_index_equal(joined.index, pd.RangeIndex(len(full)), exact="equiv")
    if backend:
        # nullable and Arrow dtypes do not depend on a stripe's nulls: the pieces are the whole exactly
        assert_same(joined.reset_index(drop=True), full)
    else:
        # NumPy dtypes do (an int column with a null is float): equal values
        flat = [c for c in full.columns if not is_nested(full[c])]
        pd.testing.assert_frame_equal(joined[flat].reset_index(drop=True), full[flat], check_dtype=False)
        for c in full.columns:
            if c not in flat:
                assert difference(column_values(joined[c]), column_values(full[c]), c) is None
    assert_same(full, pd.read_orc(path, columns=columns, **backend))


# -- dictionary_as_category ------------------------------------------------------------------------------------------


def as_objects(series: pd.Series) -> list[Any]:
    """Values as Python objects, every missing value as None: a Categorical, a string column and a dictionary
    column of the same strings give the same list."""
    return [
        None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
        for v in column_values(series)
    ]


def concatenate(paths: Sequence[Path], target: Path) -> Path:
    """One ORC file of the stripes of uncompressed ORC files with one schema, as Hive's ``CONCATENATE`` merges
    them: each stripe keeps its own encodings (so a string column can be dictionary-encoded in some stripes and
    direct in others, as Trino's writer also produces)."""
    body, stripes, stripe_stats, footer0 = bytearray(b"ORC"), [], [], None
    for path in paths:
        data = path.read_bytes()
        postscript = pb.PostScript()
        postscript.ParseFromString(data[-1 - data[-1] : -1])
        assert postscript.compression == pb.NONE
        footer_end = len(data) - 1 - data[-1]
        footer = pb.Footer()
        footer.ParseFromString(data[footer_end - postscript.footerLength : footer_end])
        metadata = pb.Metadata()
        metadata_start = footer_end - postscript.footerLength - postscript.metadataLength
        metadata.ParseFromString(data[metadata_start : footer_end - postscript.footerLength])
        footer0 = footer0 or footer
        assert footer.types == footer0.types
        for info in footer.stripes:
            length = info.indexLength + info.dataLength + info.footerLength
            moved = pb.StripeInformation()
            moved.CopyFrom(info)
            moved.offset = len(body)
            body += data[info.offset : info.offset + length]
            stripes.append(moved)
        stripe_stats.extend(metadata.stripeStats)
    assert footer0 is not None
    metadata = pb.Metadata(stripeStats=stripe_stats).SerializeToString()
    footer = pb.Footer(
        headerLength=3,
        contentLength=len(body),
        stripes=stripes,
        types=footer0.types,
        numberOfRows=sum(s.numberOfRows for s in stripes),
        rowIndexStride=footer0.rowIndexStride,
        writer=footer0.writer,
    ).SerializeToString()
    postscript = pb.PostScript(
        footerLength=len(footer),
        compression=pb.NONE,
        version=[0, 12],
        metadataLength=len(metadata),
        writerVersion=9,
        magic="ORC",
    ).SerializeToString()
    target.write_bytes(bytes(body) + metadata + footer + postscript + bytes([len(postscript)]))
    return target


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two dictionary-encoded stripes (the first ORC C++ decides dictionaries once per file) then two direct
    ones, and a column ``low`` that is a dictionary throughout."""
    tmp = tmp_path_factory.mktemp("mixed")
    rng = random.Random(5)

    def table(words: Sequence[str]) -> pa.Table:
        rows = [None if rng.random() < 0.1 else rng.choice(words) for _ in range(2000)]
        low = [rng.choice(["x", "y", None]) for _ in range(2000)]
        nested = [[rng.choice(words)] for _ in range(2000)]
        return pa.table({"s": rows, "low": low, "l": nested, "i": range(2000)})

    kw = {"compression": "uncompressed", "stripe_size": 4096, "batch_size": 1000}
    first = write_pyarrow(tmp, table(["a", "b", "ü", ""]), dictionary_key_size_threshold=1.0, **kw)
    second = write_pyarrow(tmp, table([f"w{i}" for i in range(5000)] + ["a"]), dictionary_key_size_threshold=0.5, **kw)
    path = concatenate([first, second], tmp / "mixed.orc")
    with ORCFile(path) as f:
        kinds = [f.stripe_footer(i).encodings[1].kind for i in range(f.nstripes)]
        assert kinds == [3, 3, 2, 2]  # DICTIONARY_V2 twice, then DIRECT_V2
        assert {f.stripe_footer(i).encodings[2].kind for i in range(f.nstripes)} == {3}
    return path


@pytest.mark.parametrize("backend", BACKENDS, ids=BACKEND_IDS)
def test_mixed_encodings_read_as_pandas(mixed_file: Path, backend: dict[str, str]) -> None:
    assert_like_pandas(mixed_file, backends=[backend])


@pytest.mark.parametrize("backend", BACKENDS, ids=BACKEND_IDS)
def test_dictionary_as_category(mixed_file: Path, rich_file: Path, backend: dict[str, str]) -> None:
    arrow = bool(backend) and backend["dtype_backend"] == "pyarrow"
    for path in (mixed_file, rich_file):
        plain = orcjit.read_orc(path, **backend)
        assert_same(plain, pd.read_orc(path, **backend))
        got = orcjit.read_orc(path, dictionary_as_category=True, **backend)
        with ORCFile(path) as f:
            string_columns = [c.name for c in f.schema.children if c.kind == "string"]
        for name in got.columns:
            if name in string_columns:
                if arrow:
                    assert got[name].dtype == pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string())), name
                else:
                    assert isinstance(got[name].dtype, pd.CategoricalDtype), name
                    categories = list(got[name].cat.categories)
                    assert len(set(categories)) == len(categories)
                    assert set(categories) == set(plain[name].dropna()), name
                assert as_objects(got[name]) == as_objects(plain[name]), name
            else:
                # nested strings come back as strings (NumPy backends) or Arrow dictionaries inside the nesting
                if not arrow:
                    assert got[name].dtype == plain[name].dtype, name
                found = difference(column_values(got[name]), column_values(plain[name]), name)
                assert found is None, found


def test_dictionary_as_category_by_stripe(mixed_file: Path) -> None:
    with ORCFile(mixed_file) as f:
        parts = list(f.iter_stripes(dictionary_as_category=True))
        plain = f.read()
    # a stripe that encodes "s" directly gives strings, one with a dictionary a Categorical
    assert [isinstance(p["s"].dtype, pd.CategoricalDtype) for p in parts] == [True, True, False, False]
    assert all(isinstance(p["low"].dtype, pd.CategoricalDtype) for p in parts)
    assert list(itertools.chain.from_iterable(as_objects(p["s"]) for p in parts)) == as_objects(plain["s"])


def test_direct_strings_stay_strings(tmp_path: Path) -> None:
    table = rich_table(400, seed=9)
    path = write_pyarrow(tmp_path, table, dictionary_key_size_threshold=0.0)
    for backend in BACKENDS:
        assert_same(orcjit.read_orc(path, dictionary_as_category=True, **backend), pd.read_orc(path, **backend))
    rows = rich_pyorc_rows(300, 1, "some")
    path = write_pyorc(tmp_path, PYORC_SCHEMA, rows, struct_repr="dict", dict_key_size_threshold=1.0)
    got = orcjit.read_orc(path, columns=["chr", "vchr", "cat"], dictionary_as_category=True)
    plain = pd.read_orc(path, columns=["chr", "vchr", "cat"])
    for name in ("chr", "vchr", "cat"):
        assert isinstance(got[name].dtype, pd.CategoricalDtype)
        assert as_objects(got[name]) == as_objects(plain[name])


# -- arguments -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"engine": "pyarrow"}, {"threads": True}, {"columns_": ["i8"]}])
def test_unsupported_keywords(rich_file: Path, kwargs: dict[str, Any]) -> None:
    with pytest.raises(OrcError, match=next(iter(kwargs))):
        orcjit.read_orc(rich_file, **kwargs)
    with pytest.raises(TypeError):
        pd.read_orc(rich_file, **kwargs)


@pytest.mark.parametrize("dtype_backend", ["numpy", "arrow", "", "PYARROW", 1])
def test_invalid_dtype_backend(rich_file: Path, dtype_backend: Any) -> None:
    with pytest.raises(OrcError, match=r"dtype_backend .* is invalid") as caught:
        orcjit.read_orc(rich_file, dtype_backend=dtype_backend)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(ValueError, match="is invalid"):
        pd.read_orc(rich_file, dtype_backend=dtype_backend)


def test_default_backend_is_none(rich_file: Path) -> None:
    # pandas refuses dtype_backend=None; orcjit takes it as the default
    assert_same(orcjit.read_orc(rich_file, dtype_backend=None), pd.read_orc(rich_file))
