"""Rows of the ORC project's example files: orcjit against ORC's own ``orc-contents`` output and pandas.read_orc.

``expected/NAME.jsn.gz`` holds what ``orc-contents`` prints for ``NAME.orc``, one JSON value per row. The
normaliser below turns both sides into one canonical Python form, guided by the file's schema:

- null (None, NaN, NaT, pd.NA) -> ``None``;
- integers -> ``int``; booleans -> ``bool``; strings -> ``str``; binary -> list of byte values;
- float and double -> the ``float`` of the value printed as ``orc-contents`` prints it, with 7 and 14 significant
  digits (``%.7g``, ``%.14g``: every value of the expected files is exactly that text). Comparing
  ``np.float32(expected) == np.float32(actual)`` does not work: 7 digits do not identify a float32
  (TestOrcFile.testSeek's ``float1`` has about 18,000 values where they differ), so the actual value is printed
  with the same precision and both texts are compared as numbers. Bit-exact floats are checked against
  pandas.read_orc instead;
- decimal -> ``(Decimal, exponent)``: equal value *and* the same number of fractional digits (the JSON is parsed
  with ``parse_float=Decimal``, so every printed digit of the scale is kept);
- date -> ``YYYY-MM-DD``; timestamp -> the wall clock ``YYYY-MM-DD HH:MM:SS.f`` with trailing zeros of the
  nanoseconds removed and at least one fractional digit kept;
- struct -> dict of its (selected) fields; list -> list; map -> list of ``{"key", "value"}`` in file order;
  union -> ``{"tag", "value"}``.

Top-level primitive columns are normalised a column at a time with numpy; only nested values are walked per value.
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import gc
import gzip
import json
import math
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import orcjit
from orcjit.errors import OrcError
from orcjit.types.schema import TypeNode
from tests.conftest import EXAMPLE_FILES, EXAMPLES

try:
    import pyarrow as pa
    import pyarrow.orc as pa_orc
except ImportError:  # CI's environment without pyarrow runs the orc-contents comparisons of the NumPy backends
    pa = pa_orc = None
# pandas.read_orc and pyarrow's stripes are oracles here: without pyarrow only orc-contents' rows are
needs_pyarrow = pytest.mark.skipif(pa is None, reason="the oracle (pandas.read_orc or pyarrow) needs pyarrow")

EXPECTED_DIR = EXAMPLES / "expected"


def expected_path(path: Path) -> Path:
    return EXPECTED_DIR / (path.stem + ".jsn.gz")


EXPECTED_FILES = [p for p in EXAMPLE_FILES if expected_path(p).exists()]
# the README names the files that come without orc-contents output; they are compared with pandas only
WITHOUT_EXPECTED = {"demo-12-zlib.orc", "TestVectorOrcFile.testZstd.0.12.orc"}
# pyarrow (and so pandas.read_orc) cannot read a file whose root type is not a struct
PANDAS_CANNOT_READ = {"TestOrcFile.testTimestamp.orc": "top-level struct"}
LZO_FILE = EXAMPLES / "TestVectorOrcFile.testLzo.orc"
# the example files with nested types (lists, maps, structs)
NESTED_FILES = [EXAMPLES / "TestOrcFile.test1.orc", EXAMPLES / "TestOrcFile.testSeek.orc"]
BACKENDS = [None, "numpy_nullable"] + ([] if pa is None else ["pyarrow"])

INTEGER_KINDS = frozenset({"tinyint", "smallint", "int", "bigint"})
STRING_KINDS = frozenset({"string", "varchar", "char"})
FLOAT_FORMAT = {"float": ".7g", "double": ".14g"}  # the precision orc-contents prints each type with
NAN = "NaN"  # canonical form of a real NaN inside nested values, where it is not a null


def ids(paths: Sequence[Path]) -> list[str]:
    return [p.name for p in paths]


# -- expected rows -----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small containers: with the expected rows of the
    bigger files held in memory, its full collections would cost more than the work itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def expected_rows(path: Path) -> list[Any]:
    """The rows ``orc-contents`` printed for ``path``, decimals and floats kept as the printed digits."""
    decoder = json.JSONDecoder(parse_float=decimal.Decimal)
    with gzip.open(expected_path(path), "rt", encoding="utf-8") as fh, no_gc():
        return [decoder.decode(line) for line in fh if line.strip()]


def _decimal_key(value: decimal.Decimal) -> tuple[decimal.Decimal, int]:
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int), f"not a finite decimal: {value!r}"
    return value, exponent


def _checked(test: Callable[[Any], bool], what: str) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        assert value is None or test(value), f"expected {what}, found {value!r}"
        return value

    return convert


def _expected_float(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):  # non-finite values, if a printer quoted them
        return NAN if value.lower() == "nan" else float(value)
    assert isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool), value
    return float(value)  # from the printed digits, correctly rounded


def _expected_decimal(value: Any) -> Any:
    if value is None:
        return None
    assert isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool), value
    return _decimal_key(decimal.Decimal(value) if isinstance(value, int) else value)


def _is_byte_list(value: Any) -> bool:
    return type(value) is list and all(type(b) is int and 0 <= b < 256 for b in value)


def expected_converter(node: TypeNode) -> Callable[[Any], Any]:
    """The function that turns a JSON value of ``orc-contents`` output for ``node`` into canonical form."""
    kind = node.kind
    if kind == "boolean":
        return _checked(lambda v: type(v) is bool, "a boolean")
    if kind in INTEGER_KINDS:
        return _checked(lambda v: type(v) is int, "an integer")
    if kind in FLOAT_FORMAT:
        return _expected_float
    if kind in STRING_KINDS or kind in ("date", "timestamp", "timestamp with local time zone"):
        return _checked(lambda v: type(v) is str, "a string")
    if kind == "binary":
        return _checked(_is_byte_list, "a list of bytes")
    if kind == "decimal":
        return _expected_decimal
    if kind == "struct":
        fields = [(c.name, expected_converter(c)) for c in node.children]
        names = [c.name for c in node.children]

        def struct(value: Any) -> Any:
            if value is None:
                return None
            assert type(value) is dict and list(value) == names, f"expected fields {names}, found {value!r}"
            return {name: convert(value[name]) for name, convert in fields}

        return struct
    if kind == "array":
        element = expected_converter(node.children[0])
        return lambda value: None if value is None else [element(v) for v in value]
    if kind == "map":
        key, item = (expected_converter(c) for c in node.children)

        def map_(value: Any) -> Any:
            if value is None:
                return None
            assert all(type(e) is dict and list(e) == ["key", "value"] for e in value), value
            return [{"key": key(e["key"]), "value": item(e["value"])} for e in value]

        return map_
    if kind == "uniontype":
        variants = [expected_converter(c) for c in node.children]

        def union(value: Any) -> Any:
            if value is None:
                return None
            assert type(value) is dict and list(value) == ["tag", "value"], value
            return {"tag": value["tag"], "value": variants[value["tag"]](value["value"])}

        return union
    raise AssertionError(f"unknown kind {kind}")


@cache
def schema_of(path: Path) -> TypeNode:
    with orcjit.ORCFile(path) as f:
        return f.schema


@cache
def full_read(path: Path) -> pd.DataFrame:
    """``read_orc(path)``, read once for the tests that compare parts of it (they do not modify it)."""
    return orcjit.read_orc(path)


def frame_fields(path: Path) -> dict[str, TypeNode]:
    """The DataFrame columns a full read of ``path`` gives, with their types (``_col0`` for a non-struct root)."""
    schema = schema_of(path)
    if schema.kind != "struct":
        return {"_col0": schema}
    return {c.name or "": c for c in schema.children}


@cache
def expected_columns(path: Path) -> dict[str, list[Any]]:
    """The expected rows of ``path`` as canonical columns."""
    rows = expected_rows(path)
    schema = schema_of(path)
    if schema.kind != "struct":
        return {"_col0": [expected_converter(schema)(row) for row in rows]}
    names = [c.name for c in schema.children]
    for i, row in enumerate(rows):
        assert isinstance(row, dict) and list(row) == names, f"expected row {i} has fields {list(row)}, not {names}"
    columns = {}
    with no_gc():
        for field in schema.children:
            convert = expected_converter(field)
            columns[field.name or ""] = [convert(row[field.name]) for row in rows]
    return columns


# -- actual values -----------------------------------------------------------------------------------------------


def wall_clock(nanos: np.ndarray) -> list[str]:
    """Nanoseconds since 1970 (naive wall clock) as orc-contents prints timestamps."""
    nanos = np.asarray(nanos, dtype=np.int64)
    seconds, fraction = np.divmod(nanos, 1_000_000_000)
    whole = np.datetime_as_string(seconds.astype("M8[s]"), unit="s")
    digits = [f"{f:09d}".rstrip("0") or "0" for f in fraction.tolist()]
    return [f"{w.replace('T', ' ')}.{d}" for w, d in zip(whole.tolist(), digits, strict=True)]


def _timestamp_nanos(value: Any) -> int:
    ts = pd.Timestamp(value)
    if ts.tzinfo is not None:  # timestamp with local time zone: the UTC instant
        ts = ts.tz_convert("UTC").tz_localize(None)
    return int(ts.as_unit("ns").value)


def _float_text(kind: str, value: Any) -> Any:
    value = float(value)
    if math.isnan(value):
        return NAN
    return float(format(value, FLOAT_FORMAT[kind]))


def canon_actual(node: TypeNode, value: Any) -> Any:
    """One value of an orcjit DataFrame cell (or a part of one), in canonical form.

    Inside nested values pyarrow gives ``None`` for nulls, so a float NaN there is a real NaN."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    kind = node.kind
    if kind == "boolean":
        assert isinstance(value, (bool, np.bool_)), repr(value)
        return bool(value)
    if kind in INTEGER_KINDS:
        assert isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)), repr(value)
        return int(value)
    if kind in FLOAT_FORMAT:
        return _float_text(kind, value)
    if kind in STRING_KINDS:
        assert isinstance(value, str), repr(value)
        return value
    if kind == "binary":
        assert isinstance(value, bytes), repr(value)
        return list(value)
    if kind == "decimal":
        assert isinstance(value, decimal.Decimal), repr(value)
        return _decimal_key(value)
    if kind == "date":
        if isinstance(value, datetime.datetime | pd.Timestamp):
            value = value.date()
        assert isinstance(value, datetime.date), repr(value)
        return value.isoformat()
    if kind in ("timestamp", "timestamp with local time zone"):
        return wall_clock(np.array([_timestamp_nanos(value)]))[0]
    if kind == "struct":
        assert isinstance(value, dict), repr(value)
        by_name = {c.name: c for c in node.children}
        return {name: canon_actual(by_name[name], v) for name, v in value.items()}
    if kind == "array":
        assert isinstance(value, (list, np.ndarray)), repr(value)
        return [canon_actual(node.children[0], v) for v in value]
    if kind == "map":
        key, item = node.children
        assert isinstance(value, list), repr(value)
        return [{"key": canon_actual(key, k), "value": canon_actual(item, v)} for k, v in value]
    if kind == "uniontype":
        assert isinstance(value, dict) and set(value) == {"tag", "value"}, repr(value)
        return {"tag": int(value["tag"]), "value": canon_actual(node.children[value["tag"]], value["value"])}
    raise AssertionError(f"unknown kind {kind}")


def canon_column(node: TypeNode, series: pd.Series) -> list[Any]:
    """A DataFrame column in canonical form: primitive columns a column at a time, nested ones per value.

    At the top level every null form pandas uses (NaN for numbers and strings, NaT, None, pd.NA) is a null."""
    kind = node.kind
    nulls = series.isna().to_numpy()
    if kind in ("timestamp", "timestamp with local time zone"):
        values = series
        if isinstance(series.dtype, pd.DatetimeTZDtype):
            values = series.dt.tz_convert("UTC").dt.tz_localize(None)
        if isinstance(values.dtype, pd.ArrowDtype):
            values = values.astype("datetime64[ns]")
        nanos = values.to_numpy(dtype="datetime64[ns]").view(np.int64).copy()
        nanos[nulls] = 0
        texts = wall_clock(nanos)
        return [None if null else text for text, null in zip(texts, nulls.tolist(), strict=True)]
    if kind in INTEGER_KINDS and series.dtype.kind == "f":
        # pandas' default backend turns integer columns with nulls into float64: exact up to 2**53 only
        values = series.to_numpy()
        finite = values[~nulls]
        assert np.all(np.abs(finite) <= 2**53), f"{node.name}: integers beyond float64's exact range"
        ints = np.where(nulls, 0, values).astype(np.int64).tolist()
        return [None if null else v for v, null in zip(ints, nulls.tolist(), strict=True)]
    if kind in FLOAT_FORMAT:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        fmt = FLOAT_FORMAT[kind]
        return [
            None if null else float(format(v, fmt)) for v, null in zip(values.tolist(), nulls.tolist(), strict=True)
        ]
    if not nulls.any() and (kind in INTEGER_KINDS or kind in STRING_KINDS or kind == "boolean"):
        values = series.tolist()
        for v in values[:1]:
            canon_actual(node, v)  # type check on one value; tolist gives Python ints, bools, strs
        return values
    return [None if null else canon_actual(node, v) for v, null in zip(series.tolist(), nulls.tolist(), strict=True)]


# -- comparing ---------------------------------------------------------------------------------------------------


def assert_same_rows(what: str, name: str, actual: list[Any], expected: list[Any], first_row: int = 0) -> None:
    assert len(actual) == len(expected), f"{what}: column {name!r} has {len(actual)} rows, expected {len(expected)}"
    if actual == expected:
        return
    bad = [i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if a != e]
    i = bad[0]
    raise AssertionError(
        f"{what}: column {name!r} differs in {len(bad)} of {len(expected)} rows; first at row {first_row + i}:\n"
        f"  expected {expected[i]!r}\n  got      {actual[i]!r}"
    )


def drop_field(value: Any, node: TypeNode, parts: Sequence[str]) -> Any:
    """The canonical ``value`` of ``node`` without the struct field at the dotted path ``parts`` below it; the path
    passes through list elements, map keys and values and union variants without naming them."""
    if value is None:
        return None
    kind = node.kind
    if kind == "struct":
        head, *rest = parts
        if not rest:
            assert head in value, f"no field {head!r} to drop from {value!r}"
            return {k: v for k, v in value.items() if k != head}
        return {k: drop_field(v, node[head], rest) if k == head else v for k, v in value.items()}
    if kind == "array":
        return [drop_field(v, node.children[0], parts) for v in value]
    if kind == "map":
        key, item = node.children
        return [
            {
                "key": drop_field(e["key"], key, parts) if key.is_compound else e["key"],
                "value": drop_field(e["value"], item, parts) if item.is_compound else e["value"],
            }
            for e in value
        ]
    if kind == "uniontype":
        variant = node.children[value["tag"]]
        return {**value, "value": drop_field(value["value"], variant, parts) if variant.is_compound else value["value"]}
    raise AssertionError(f"no struct field under {kind} on the way to {'.'.join(parts)}")


def assert_frame_matches_expected(
    what: str, frame: pd.DataFrame, path: Path, rows: slice = slice(None), dropped: Sequence[str] = ()
) -> None:
    """``frame`` holds, cell for cell, the expected rows ``rows`` of ``path`` for the columns it has.

    ``dropped`` names the nested struct fields (dotted paths) that a projection such as ``columns=["a.b"]``
    leaves out of the expected rows."""
    fields = frame_fields(path)
    expected = expected_columns(path)
    assert set(frame.columns) <= set(fields), f"{what}: columns {list(frame.columns)} not all in {list(fields)}"
    assert list(frame.columns) == [n for n in fields if n in frame.columns], f"{what}: columns out of file order"
    first = rows.start or 0
    for name in frame.columns:
        field = fields[name]
        want = expected[name][rows]
        for dotted in dropped:
            top, *rest = dotted.split(".")
            if top == name:
                want = [drop_field(v, field, rest) for v in want]
        with no_gc():
            got = canon_column(field, frame[name])
        assert_same_rows(what, name, got, want, first)


def same_value(a: Any, b: Any) -> bool:
    """Exact equality of two cells of object columns: same types all the way down, floats bit for bit (NaN equal
    to NaN), arrays with the same dtype."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(map(same_value, a.tolist(), b.tolist()))
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same_value, a, b))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, decimal.Decimal):
        return a.as_tuple() == b.as_tuple()
    return bool(a == b)


def assert_frames_identical(left: pd.DataFrame, right: pd.DataFrame) -> None:
    """Same columns, dtypes, index and values: floats bit for bit, decimals digit for digit, nested values with the
    same types all the way down.

    ``assert_frame_equal`` alone is not enough: it compares floats to a relative 1e-5 by default and, with
    ``check_exact=True``, fails on object columns holding nested arrays; it is slow on those too. So columns are
    compared here (``Series.equals`` is exact, object columns cell by cell) and ``assert_frame_equal`` is called
    only to describe a difference."""
    if not (
        list(left.columns) == list(right.columns)
        and left.dtypes.equals(right.dtypes)
        and type(left.index) is type(right.index)
        and left.index.equals(right.index)
    ):
        pd.testing.assert_frame_equal(left, right, check_index_type=True)
        raise AssertionError(f"frames differ in columns, dtypes or index:\n{left.dtypes}\n{right.dtypes}")
    for name in left.columns:
        a, b = left[name], right[name]
        if a.dtype == object:
            same = [same_value(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
            if all(same):
                continue
        elif a.equals(b):
            continue
        else:
            same = [bool(x) for x in ((a == b) | (a.isna() & b.isna())).fillna(False).tolist()]
        row = same.index(False)
        pd.testing.assert_series_equal(a, b)
        raise AssertionError(f"column {name!r} differs at index {a.index[row]}: {a.iloc[row]!r} != {b.iloc[row]!r}")


def backend_kw(dtype_backend: str | None) -> dict[str, str]:
    return {"dtype_backend": dtype_backend} if dtype_backend else {}


# -- whole files against orc-contents ------------------------------------------------------------------------------


def test_example_files_found() -> None:
    names = {p.name for p in EXAMPLE_FILES}
    assert {p.name for p in EXPECTED_FILES} == names - WITHOUT_EXPECTED
    assert LZO_FILE in EXPECTED_FILES
    assert all(p in EXPECTED_FILES for p in NESTED_FILES)


@pytest.mark.parametrize("path", EXPECTED_FILES, ids=ids(EXPECTED_FILES))
def test_read_orc_matches_orc_contents(path: Path) -> None:
    """Every row, every column, every value of the default read equals orc-contents' output."""
    frame = orcjit.read_orc(path)
    assert list(frame.columns) == list(frame_fields(path))
    assert len(frame) == len(next(iter(expected_columns(path).values())))
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0
    assert_frame_matches_expected(path.name, frame, path)


def test_lzo_file_reads() -> None:
    """LZO, which not every pyarrow build reads, decodes to orc-contents' rows."""
    with orcjit.ORCFile(LZO_FILE) as f:
        assert f.compression == "LZO"
        assert f.nstripes > 1
        frame = f.read()
    assert len(frame) == 10_000
    assert_frame_matches_expected(LZO_FILE.name, frame, LZO_FILE)


def test_timestamp_file_is_writer_wall_clock() -> None:
    """TestOrcFile.testTimestamp (format 0.11, non-struct root, written in US/Pacific) reads as the wall clock the
    writer stored, not as UTC instants shifted to another zone."""
    path = EXAMPLES / "TestOrcFile.testTimestamp.orc"
    with orcjit.ORCFile(path) as f:
        assert f.file_version == "0.11"
        assert f.schema.kind == "timestamp"
        assert f.stripe_footer(0).writer_timezone == "US/Pacific"
    frame = orcjit.read_orc(path)
    assert list(frame.columns) == ["_col0"]
    assert frame["_col0"].dtype == "datetime64[ns]"
    assert frame["_col0"].iloc[0] == pd.Timestamp("2037-01-01 00:00:00.000999")
    assert frame["_col0"].iloc[-1] == pd.Timestamp("2008-10-02 00:00:00")


def test_timestamps_without_writer_zone() -> None:
    """over1k_bloom records no writer time zone: its timestamps are the stored seconds read as UTC, which is the
    wall clock orc-contents prints."""
    path = EXAMPLES / "over1k_bloom.orc"
    with orcjit.ORCFile(path) as f:
        assert all(not f.stripe_footer(i).writer_timezone for i in range(f.nstripes))
    frame = orcjit.read_orc(path, columns=["_col8"])
    assert frame["_col8"].iloc[0] == pd.Timestamp("2013-03-01 09:11:58.703302")


def test_normaliser_sees_differences() -> None:
    """The comparison with orc-contents' rows fails on any change a reader bug could make: a nanosecond, a decimal's
    digits, a float beyond the printed precision, a byte, a null, a nested value, the order of map entries."""
    path = EXAMPLES / "over1k_bloom.orc"
    frame = orcjit.read_orc(path)
    assert_frame_matches_expected(path.name, frame, path)
    changes: list[tuple[str, Any]] = [
        ("_col8", frame["_col8"].iloc[0] + pd.Timedelta(1, "ns")),
        ("_col8", frame["_col8"].iloc[0] + pd.Timedelta(1, "h")),
        ("_col9", decimal.Decimal(str(frame["_col9"].iloc[0]).rstrip("0"))),  # the same number, fewer digits
        ("_col10", frame["_col10"].iloc[0] + b"\x00"),
        ("_col7", np.nan),
        ("_col2", frame["_col2"].iloc[0] + 1),
        ("_col4", np.nextafter(frame["_col4"].iloc[0], np.float32(1000))),
        ("_col5", frame["_col5"].iloc[0] * (1 + 1e-12)),
        ("_col6", not frame["_col6"].iloc[0]),
    ]
    assert str(frame["_col9"].iloc[0]).endswith("0")
    for column, value in changes:
        changed = frame.copy()
        changed[column] = changed[column].astype(object) if isinstance(value, decimal.Decimal) else changed[column]
        changed.loc[0, column] = value
        with pytest.raises(AssertionError, match=f"column {column!r} differs in 1 of 2098 rows; first at row 0"):
            assert_frame_matches_expected(path.name, changed, path)

    path = EXAMPLES / "TestOrcFile.test1.orc"
    frame = orcjit.read_orc(path)
    assert_frame_matches_expected(path.name, frame, path)
    changed = frame.copy()
    changed.at[1, "map"] = changed.at[1, "map"][::-1]
    with pytest.raises(AssertionError, match="column 'map' differs"):
        assert_frame_matches_expected(path.name, changed, path)
    changed = frame.copy()
    middle = changed.at[0, "middle"]["list"].copy()
    middle[1] = {"int1": 2, "string1": "sigh!"}
    changed.at[0, "middle"] = {"list": middle}
    with pytest.raises(AssertionError, match="column 'middle' differs"):
        assert_frame_matches_expected(path.name, changed, path)


def test_identity_check_is_exact() -> None:
    """assert_frames_identical sees what assert_frame_equal lets through: a float's last bit, a decimal's digits."""
    frame = orcjit.read_orc(EXAMPLES / "over1k_bloom.orc")
    assert_frames_identical(frame, frame.copy())
    changed = frame.copy()
    changed.loc[3, "_col5"] = np.nextafter(changed.loc[3, "_col5"], 1000.0)
    pd.testing.assert_frame_equal(changed, frame)
    with pytest.raises(AssertionError, match="_col5"):
        assert_frames_identical(changed, frame)
    changed = frame.copy()
    changed.loc[3, "_col9"] = decimal.Decimal(str(changed.loc[3, "_col9"]) + "0")
    with pytest.raises(AssertionError, match="_col9"):
        assert_frames_identical(changed, frame)
    nested = orcjit.read_orc(EXAMPLES / "TestOrcFile.test1.orc")
    changed = nested.copy()
    changed.at[1, "list"] = changed.at[1, "list"].tolist()  # a list where pyarrow gives an array
    with pytest.raises(AssertionError, match="list"):
        assert_frames_identical(changed, nested)


# -- stripes -----------------------------------------------------------------------------------------------------


def _null_promoted(stripe_col: pd.Series, full_col: pd.Series) -> bool:
    """pandas' default backend gives integers (booleans) with nulls as float64 (object): a stripe without nulls of a
    column that has some in other stripes keeps the plain dtype."""
    return (
        not stripe_col.isna().any()
        and bool(full_col.isna().any())
        and (
            (stripe_col.dtype.kind in "iu" and full_col.dtype == np.float64)
            or (stripe_col.dtype.kind == "b" and full_col.dtype == object)
        )
    )


def assert_stripe_equals_slice(stripe: pd.DataFrame, full: pd.DataFrame, start: int, stop: int) -> None:
    """``stripe`` holds rows ``start:stop`` of ``full``, indexed by their row numbers in the file."""
    part = full.iloc[start:stop]
    assert stripe.index.equals(pd.RangeIndex(start, stop)), (stripe.index, start, stop)
    assert stripe.index.dtype == np.int64
    assert list(stripe.columns) == list(full.columns)
    for name in full.columns:
        got, want = stripe[name], part[name]
        if got.dtype != want.dtype:
            assert _null_promoted(got, full[name]), f"column {name!r}: stripe dtype {got.dtype}, file {want.dtype}"
            got = got.astype(want.dtype)
        assert_frames_identical(got.to_frame().set_axis(want.index), want.to_frame())


@pytest.mark.parametrize("dtype_backend", BACKENDS)
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=ids(EXAMPLE_FILES))
def test_stripes_make_up_the_file(path: Path, dtype_backend: str | None) -> None:
    """iter_stripes() and read_stripe(i) give the file's rows stripe by stripe, indexed by file row number, and
    concatenated they are the full read.

    numpy_nullable differs from the default backend in the dtypes of primitive columns only: its run reads those
    (nested columns are the slow part of the default backend's comparisons)."""
    kw: dict[str, Any] = backend_kw(dtype_backend)
    if dtype_backend == "numpy_nullable" and schema_of(path).kind == "struct":
        kw["columns"] = [name for name, node in frame_fields(path).items() if not node.is_compound]
    with orcjit.ORCFile(path) as f:
        full = f.read(**kw)
        infos = f.stripes
        stripes = list(f.iter_stripes(**kw))
        assert len(stripes) == f.nstripes == len(infos)
        assert sum(len(s) for s in stripes) == f.nrows == len(full)
        for i, (info, stripe) in enumerate(zip(infos, stripes, strict=True)):
            assert info.index == i and len(stripe) == info.rows
            assert_stripe_equals_slice(stripe, full, info.first_row, info.first_row + info.rows)
            assert_frames_identical(f.read_stripe(i, **kw), stripe)
    if stripes:
        whole = pd.concat(stripes)
        assert whole.index.equals(pd.RangeIndex(len(full)))
        assert_frames_identical(whole.set_axis(full.index), full)
    if dtype_backend is None and path in EXPECTED_FILES:
        for info, stripe in zip(infos, stripes, strict=True):
            rows = slice(info.first_row, info.first_row + info.rows)
            assert_frame_matches_expected(f"{path.name} stripe {info.index}", stripe, path, rows)


PYARROW_FILES = [p for p in EXAMPLE_FILES if p.name not in PANDAS_CANNOT_READ]


@needs_pyarrow
@pytest.mark.parametrize("path", PYARROW_FILES, ids=ids(PYARROW_FILES))
def test_read_stripe_matches_pyarrow_stripe(path: Path) -> None:
    """Each stripe has the dtypes and values of pyarrow's own stripe read, converted as pandas converts tables."""
    try:
        reference = pa_orc.ORCFile(str(path))
    except pa.ArrowNotImplementedError:
        # only a pyarrow build without LZO refuses an example; test_lzo_file_reads covers that file
        assert path.name == "TestVectorOrcFile.testLzo.orc"
        return
    with orcjit.ORCFile(path) as f:
        assert reference.nstripes == f.nstripes
        for i, info in enumerate(f.stripes):
            want = pa.Table.from_batches([reference.read_stripe(i)]).to_pandas()
            got = f.read_stripe(i)
            assert got.index.equals(pd.RangeIndex(info.first_row, info.first_row + info.rows))
            assert_frames_identical(got.reset_index(drop=True), want)


def test_read_stripe_negative_and_out_of_range() -> None:
    with orcjit.ORCFile(EXAMPLES / "TestOrcFile.testSeek.orc") as f:
        assert f.nstripes == 7
        assert_frames_identical(f.read_stripe(-1), f.read_stripe(6))
        assert_frames_identical(f.read_stripe(-7), f.read_stripe(0))
        with pytest.raises(IndexError):
            f.read_stripe(7)
        with pytest.raises(IndexError):
            f.read_stripe(-8)


@needs_pyarrow
def test_empty_file_has_no_stripes() -> None:
    path = EXAMPLES / "TestOrcFile.emptyFile.orc"
    with orcjit.ORCFile(path) as f:
        assert f.nstripes == 0
        assert list(f.iter_stripes()) == []
        frame = f.read()
    assert frame.shape == (0, 12)
    assert_frames_identical(frame, pd.read_orc(path))


# -- column projections ------------------------------------------------------------------------------------------

# (columns, the DataFrame's columns, the nested fields the projection leaves out, whether pandas.read_orc can read it)
PROJECTIONS: list[tuple[list[str | int], list[str], list[str], bool]] = [
    (["middle"], ["middle"], [], True),
    # middle is struct<list:array<struct<int1,string1>>>: its one field selected by path gives the whole column
    (["middle.list"], ["middle"], [], True),
    (["map", "bytes1", "int1"], ["int1", "bytes1", "map"], [], True),  # file order, not the list's
    (["string1", "list", "boolean1", "double1"], ["boolean1", "double1", "string1", "list"], [], True),
    ([11, 0, 9], ["boolean1", "middle", "map"], [], True),
    (["float1", "middle.list", "long1", "list"], ["long1", "float1", "middle", "list"], [], True),
    (["middle", "middle.list"], ["middle"], [], True),
    (["middle.list.int1", "middle.list.string1"], ["middle"], [], True),
    (["map.string1", "map"], ["map"], [], True),
    # dotted names pass through list elements and map values, as in pandas.read_orc (ORC C++)
    (["middle.list.int1"], ["middle"], ["middle.list.string1"], True),
    (["list.string1", "byte1"], ["byte1", "list"], ["list.int1"], True),
    (["map.int1"], ["map"], ["map.string1"], False),  # pyarrow 26 aborts the process on this one
]
PROJECTION_IDS = [repr(c) for c, *_ in PROJECTIONS]


@pytest.mark.parametrize("path", NESTED_FILES, ids=ids(NESTED_FILES))
@pytest.mark.parametrize(("columns", "names", "dropped", "pandas_ok"), PROJECTIONS, ids=PROJECTION_IDS)
def test_projection_is_part_of_full_read(
    path: Path, columns: list[str | int], names: list[str], dropped: list[str], pandas_ok: bool
) -> None:
    """A projection gives exactly the selected part of the full read, in file order; where it selects fields
    inside structs, exactly those fields of orc-contents' rows."""
    with orcjit.ORCFile(path) as f:
        assert str(f.schema.find("middle")) == "struct<list:array<struct<int1:int,string1:string>>>"
        part = f.read(columns=columns)
    if path == NESTED_FILES[0]:  # read_orc is ORCFile.read: once is enough
        assert_frames_identical(orcjit.read_orc(path, columns=columns), part)
    assert list(part.columns) == names
    if dropped:
        assert_frame_matches_expected(f"{path.name} {columns}", part, path, dropped=dropped)
        full = full_read(path)
        assert part.dtypes.equals(full[names].dtypes)
        untouched = [n for n in names if not any(d.split(".")[0] == n for d in dropped)]
        assert_frames_identical(part[untouched], full[untouched])
    else:
        assert_frames_identical(part, full_read(path)[names])


# every projection pandas can read, on test1 with each backend and on testSeek with the pyarrow backend (its other
# backends convert the same Arrow data with pyarrow's code, slowly for 32768 rows of nested values)
PANDAS_PROJECTIONS = [
    pytest.param(path, backend, columns, names, id=f"{columns!r}-{backend}-{path.name}")
    for columns, names, _, pandas_ok in PROJECTIONS
    if pandas_ok
    for path, backends in ((NESTED_FILES[0], BACKENDS), (NESTED_FILES[1], ["pyarrow"]))
    for backend in backends
]


@needs_pyarrow
@pytest.mark.parametrize(("path", "dtype_backend", "columns", "names"), PANDAS_PROJECTIONS)
def test_projection_matches_pandas(
    path: Path, dtype_backend: str | None, columns: list[str | int], names: list[str]
) -> None:
    kw = backend_kw(dtype_backend)
    top = list(frame_fields(path))
    by_name = [top[c] if isinstance(c, int) else c for c in columns]  # pandas.read_orc selects by name only
    theirs = pd.read_orc(path, columns=by_name, **kw)
    assert list(theirs.columns) == names
    assert_frames_identical(orcjit.read_orc(path, columns=columns, **kw), theirs)


@pytest.mark.parametrize("path", NESTED_FILES, ids=ids(NESTED_FILES))
def test_projection_of_stripes(path: Path) -> None:
    columns = ["map", "middle.list", "short1"]
    with orcjit.ORCFile(path) as f:
        full = f.read(columns=columns)
        assert list(full.columns) == ["short1", "middle", "map"]
        for i, stripe in enumerate(f.iter_stripes(columns=columns)):
            info = f.stripes[i]
            assert_stripe_equals_slice(stripe, full, info.first_row, info.first_row + info.rows)
            assert_frames_identical(f.read_stripe(i, columns=columns), stripe)


@pytest.mark.parametrize(
    "columns", [["nope"], ["middle.nope"], ["list.nope"], ["middle.list.int1.x"], ["Middle"], [12], [-1], ["_col0"]]
)
def test_projection_of_unknown_column_fails(columns: list[str | int]) -> None:
    """A missing field is not a column; neither is an index past the last field."""
    with pytest.raises(OrcError):
        orcjit.read_orc(EXAMPLES / "TestOrcFile.test1.orc", columns=columns)


def test_projection_of_non_struct_root() -> None:
    path = EXAMPLES / "TestOrcFile.testTimestamp.orc"
    full = orcjit.read_orc(path)
    assert_frames_identical(orcjit.read_orc(path, columns=["_col0"]), full)
    assert_frames_identical(orcjit.read_orc(path, columns=[0]), full)
    with pytest.raises(OrcError):
        orcjit.read_orc(path, columns=["nope"])


@needs_pyarrow
@pytest.mark.parametrize("dtype_backend", BACKENDS)
@pytest.mark.parametrize("path", NESTED_FILES, ids=ids(NESTED_FILES))
def test_projection_of_no_columns(path: Path, dtype_backend: str | None) -> None:
    """``columns=[]`` gives a DataFrame with the file's rows and no columns, as pandas.read_orc does."""
    kw = backend_kw(dtype_backend)
    ours = orcjit.read_orc(path, columns=[], **kw)
    pd.testing.assert_frame_equal(ours, pd.read_orc(path, columns=[], **kw))
    with orcjit.ORCFile(path) as f:
        assert ours.shape == (f.nrows, 0)
        for i, info in enumerate(f.stripes):
            stripe = f.read_stripe(i, columns=[])
            assert stripe.shape == (info.rows, 0)
            assert stripe.index.equals(pd.RangeIndex(info.first_row, info.first_row + info.rows))


def test_projection_of_no_columns_non_struct_root() -> None:
    path = EXAMPLES / "TestOrcFile.testTimestamp.orc"
    frame = orcjit.read_orc(path, columns=[])
    assert frame.shape == (12, 0)
    assert frame.index.equals(pd.RangeIndex(12))


# -- against pandas.read_orc -------------------------------------------------------------------------------------


@needs_pyarrow
@pytest.mark.parametrize("dtype_backend", BACKENDS)
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=ids(EXAMPLE_FILES))
def test_matches_pandas_read_orc(path: Path, dtype_backend: str | None) -> None:
    kw = backend_kw(dtype_backend)
    ours = orcjit.read_orc(path, **kw)
    if path.name in PANDAS_CANNOT_READ:
        with pytest.raises(pa.ArrowNotImplementedError, match=PANDAS_CANNOT_READ[path.name]):
            pd.read_orc(path, **kw)
        assert_frame_matches_expected(path.name, ours, path)
        return
    try:
        theirs = pd.read_orc(path, **kw)
    except pa.ArrowNotImplementedError:
        # a pyarrow build without LZO cannot read the LZO file: orc-contents' rows stand in for it
        assert path == LZO_FILE
        if dtype_backend is None:
            assert_frame_matches_expected(path.name, ours, path)
        return
    assert_frames_identical(ours, theirs)
