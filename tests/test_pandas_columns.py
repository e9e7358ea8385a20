"""convert_column (one converter per kind, orcjit.convert) against the Arrow path: the vectors as Arrow arrays
(orcjit.convert.arrow.to_arrow) converted by pyarrow's Table.to_pandas with pandas.read_orc's types_mapper, and
against pandas.read_orc itself."""

from __future__ import annotations

import copy
import datetime
import decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as orc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import orcjit.convert.arrow
import orcjit.convert.decimals
from orcjit import OrcError
from orcjit.convert import convert_column
from orcjit.convert.arrow import arrow_type, to_arrow
from orcjit.convert.decimals import decimal_objects
from orcjit.decode.vector import ColumnVector
from orcjit.reading.options import ReadOptions
from orcjit.reading.plan import plan_read
from orcjit.reading.scan import scan_stripes
from orcjit.types.schema import TypeNode

BACKENDS = ["numpy", "numpy_nullable", "pyarrow"]
FIXED_DTYPES = {
    "boolean": np.bool_,
    "tinyint": np.int8,
    "smallint": np.int16,
    "int": np.int32,
    "bigint": np.int64,
    "float": np.float32,
    "double": np.float64,
    "date": np.int32,
    "timestamp": np.int64,
    "timestamp with local time zone": np.int64,
}
STRING_KINDS = ["string", "varchar", "char", "binary", "geometry", "geography"]  # the last two: WKB, as binary
KINDS = [*FIXED_DTYPES, *STRING_KINDS, "decimal"]
CASES = ["no_nulls", "some_nulls", "all_nulls", "empty", "chunks", "mask_without_nulls", "shifted_offsets"]


def read_orc_mapper(backend: str):
    """The types_mapper pandas.read_orc passes to to_pandas for each dtype_backend."""
    if backend == "pyarrow":
        return pd.ArrowDtype
    if backend == "numpy_nullable":
        return {
            pa.int8(): pd.Int8Dtype(),
            pa.int16(): pd.Int16Dtype(),
            pa.int32(): pd.Int32Dtype(),
            pa.int64(): pd.Int64Dtype(),
            pa.bool_(): pd.BooleanDtype(),
            pa.float32(): pd.Float32Dtype(),
            pa.float64(): pd.Float64Dtype(),
            pa.string(): pd.StringDtype(),
            pa.large_string(): pd.StringDtype(),
        }.get
    return None


def arrow_path(node: TypeNode, chunks: list[ColumnVector], backend: str) -> pd.Series:
    """What build_frame gives today: Arrow arrays over the vectors, then Table.to_pandas."""
    type_ = arrow_type(node)
    column = pa.chunked_array([to_arrow(vec, type_) for vec in chunks], type=type_)
    frame = pa.table({"x": column}).to_pandas(types_mapper=read_orc_mapper(backend))
    return frame["x"]


def check(node: TypeNode, chunks: list[ColumnVector], backend: str) -> pd.Series:
    # the expected column from copies: convert_column may take a lone writable chunk over and write into it
    expected = arrow_path(node, copy.deepcopy(chunks), backend)
    got = pd.Series(convert_column(node, chunks, backend), name="x", copy=False)
    pd.testing.assert_series_equal(got, expected)
    return got


# -- vectors ----------------------------------------------------------------------------------------------------------


def node_of(kind: str, precision: int | None = 38, scale: int | None = 6) -> TypeNode:
    if kind == "decimal":
        return TypeNode(1, kind, precision=precision, scale=scale)
    return TypeNode(1, kind)


def random_values(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "boolean":
        return rng.random(n) < 0.5
    if kind in ("float", "double"):
        values = rng.normal(0, 1e3, n).astype(FIXED_DTYPES[kind])
        values[rng.random(n) < 0.05] = np.nan  # NaN values, not nulls
        return values
    if kind == "date":
        return rng.integers(-1000, 30000, n).astype(np.int32)
    if kind.startswith("timestamp"):
        return rng.integers(-(2**62), 2**62, n)
    info = np.iinfo(FIXED_DTYPES[kind])
    # the extremes among the values, and repeats
    pool = np.concatenate([[info.min, info.max, 0, -1, 1], rng.integers(info.min, info.max, 60, endpoint=True)])
    return rng.choice(pool, n).astype(FIXED_DTYPES[kind])


def decimal_lanes(unscaled: list[int]) -> np.ndarray:
    """int64 [low, high] lanes of 128-bit two's complement values."""
    lanes = np.empty((len(unscaled), 2), dtype=np.int64)
    for i, v in enumerate(unscaled):
        u = v & (2**128 - 1)
        low, high = u & (2**64 - 1), u >> 64
        lanes[i, 0] = low - 2**64 if low >= 2**63 else low
        lanes[i, 1] = high - 2**64 if high >= 2**63 else high
    return lanes


def random_decimals(n: int, rng: np.random.Generator, precision: int = 38) -> np.ndarray:
    top = 10**precision - 1
    pool = [top, -top, 0, 1, -1, 2**63, -(2**63) - 1, 2**64, *(int(x) for x in rng.integers(-(10**12), 10**12, 40))]
    pool = [v for v in pool if -top <= v <= top]
    return decimal_lanes([pool[i] for i in rng.integers(0, len(pool), n)])


def random_strings(n: int, rng: np.random.Generator, shift: int, valid: np.ndarray | None):
    """Offsets (starting at ``shift``) and bytes of ``n`` strings, empty at null slots."""
    words = [b"", b"a", b"bb", "\u00e9t\u00e9".encode(), b"x" * 40, "\U0001f600".encode()]
    values = [words[i] for i in rng.integers(0, len(words), n)]
    if valid is not None:
        values = [v if ok else b"" for v, ok in zip(values, valid, strict=True)]
    lengths = np.array([len(v) for v in values], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64) + shift
    data = np.frombuffer(b"#" * shift + b"".join(values) + b"tail", dtype=np.uint8)
    return offsets, data


def make_chunk(kind: str, node: TypeNode, n: int, null_rate: float, rng: np.random.Generator, shift: int = 0):
    valid = None
    if null_rate:
        valid = rng.random(n) >= null_rate
    if kind in STRING_KINDS:
        offsets, data = random_strings(n, rng, shift, valid)
        return ColumnVector(node, n, valid, offsets=offsets, data=data)
    values = random_decimals(n, rng, node.precision or 38) if kind == "decimal" else random_values(kind, n, rng)
    if valid is not None:
        values[~valid] = 0
    return ColumnVector(node, n, valid, values=values)


def make_case(kind: str, case: str, seed: int = 0) -> tuple[TypeNode, list[ColumnVector]]:
    rng = np.random.default_rng(seed)
    node = node_of(kind)
    n = 700
    if case == "no_nulls":
        return node, [make_chunk(kind, node, n, 0, rng)]
    if case == "some_nulls":
        return node, [make_chunk(kind, node, n, 0.3, rng)]
    if case == "all_nulls":
        return node, [make_chunk(kind, node, n, 1.0, rng)]
    if case == "empty":
        return node, [make_chunk(kind, node, 0, 0, rng)]
    if case == "chunks":
        # nulls in some chunks only, and an empty chunk
        return node, [
            make_chunk(kind, node, 300, 0, rng),
            make_chunk(kind, node, 0, 0, rng),
            make_chunk(kind, node, 250, 0.5, rng),
            make_chunk(kind, node, 5, 0, rng),
        ]
    if case == "mask_without_nulls":
        vec = make_chunk(kind, node, n, 0, rng)
        vec.valid = np.ones(n, dtype=np.bool_)
        return node, [vec]
    if case == "shifted_offsets":
        # strings: offsets start inside a larger buffer; other kinds: values are views into a larger array
        if kind in STRING_KINDS:
            return node, [make_chunk(kind, node, n, 0.2, rng, shift=13), make_chunk(kind, node, 40, 0, rng, shift=3)]
        vec = make_chunk(kind, node, n + 10, 0.2, rng)
        sliced = ColumnVector(node, n, vec.valid[5 : n + 5], values=vec.values[5 : n + 5])
        return node, [sliced]
    raise AssertionError(case)


# -- every kind, backend and shape --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
def test_matches_arrow_path(kind: str, backend: str, case: str) -> None:
    node, chunks = make_case(kind, case)
    got = check(node, chunks, backend)
    assert len(got) == sum(c.length for c in chunks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", KINDS)
def test_two_chunks_with_nulls(kind: str, backend: str) -> None:
    rng = np.random.default_rng(5)
    node = node_of(kind)
    check(node, [make_chunk(kind, node, 400, 0.2, rng), make_chunk(kind, node, 333, 0.7, rng)], backend)


def test_numpy_dtypes() -> None:
    """The dtypes the brief names, beyond equality with the Arrow path."""
    rng = np.random.default_rng(1)
    expected = {
        "bigint": np.dtype(np.float64),
        "boolean": np.dtype(object),
        "date": np.dtype(object),
        "decimal": np.dtype(object),
        "timestamp": np.dtype("M8[ns]"),
        "binary": np.dtype(object),
    }
    for kind, dtype in expected.items():
        node = node_of(kind)
        got = pd.Series(convert_column(node, [make_chunk(kind, node, 50, 0.5, rng)], "numpy"))
        assert got.dtype == dtype, kind
    node = node_of("timestamp with local time zone")
    got = pd.Series(convert_column(node, [make_chunk("timestamp with local time zone", node, 5, 0, rng)], "numpy"))
    assert str(got.dtype) == "datetime64[ns, UTC]"
    node = node_of("string")
    strings = convert_column(node, [make_chunk("string", node, 5, 0, rng)], "numpy")
    assert pd.Series(strings).dtype == pd.Series(["x"]).dtype  # pandas' default: str under pandas 3


def test_nullable_floats_mask_nan_as_pandas_does() -> None:
    node = node_of("double")
    vec = ColumnVector(node, 3, np.array([True, True, False]), values=np.array([1.5, np.nan, 0.0]))
    got = check(node, [vec], "numpy_nullable")
    assert got.isna().tolist()[2]


# -- strings ----------------------------------------------------------------------------------------------------------


def test_strings_share_the_vector_bytes() -> None:
    """Arrow-backed results hold the vector's bytes and, for large_string, its offsets: no copy."""
    rng = np.random.default_rng(2)
    node = node_of("string")
    vec = make_chunk("string", node, 500, 0.1, rng, shift=7)
    with pd.option_context("mode.string_storage", "pyarrow"):  # pandas 2's default stores Python objects
        got = convert_column(node, [vec], "numpy_nullable")
    chunk = got._pa_array.chunk(0)
    _, offsets, data = chunk.buffers()
    assert data.address == vec.data.ctypes.data
    assert offsets.address == vec.offsets.ctypes.data
    arrow = convert_column(node, [vec], "pyarrow")
    assert arrow._pa_array.type == pa.string()
    assert arrow._pa_array.chunk(0).buffers()[2].address == vec.data.ctypes.data


def test_dictionary_strings_convert_as_arrow_unifies_them() -> None:
    """Strings kept as dictionaries (dictionary_as_category) become the categories Arrow's to_pandas makes of a
    dictionary column, whatever the backend; a chunk encoded directly joins with its own values."""
    node = node_of("string")
    first = ColumnVector(
        node, 3, np.array([True, False, True]), values=np.array([1, 0, 0]), dictionary=_dictionary(["a", "b"])
    )
    second = ColumnVector(node, 2, values=np.array([0, 1]), dictionary=_dictionary(["c", "a"]))
    offsets, data = random_strings(2, np.random.default_rng(4), 0, None)
    direct = ColumnVector(node, 2, offsets=offsets, data=data)
    for backend in BACKENDS:
        chunks = [first, second, direct]
        type_ = arrow_type(node, None, {node.column_id})
        column = pa.chunked_array([to_arrow(vec, type_) for vec in chunks], type=type_)
        expected = pa.table({"x": column}).to_pandas(types_mapper=read_orc_mapper(backend))["x"]
        got = pd.Series(convert_column(node, chunks, backend, dictionary_ids={node.column_id}), name="x")
        pd.testing.assert_series_equal(got, expected)


def _dictionary(entries: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [e.encode() for e in entries]
    offsets = np.concatenate([[0], np.cumsum([len(b) for b in raw])]).astype(np.int64)
    return offsets, np.frombuffer(b"".join(raw) or b"\0", dtype=np.uint8)


@pytest.mark.parametrize("kind", ["string", "binary"])
def test_pyarrow_strings_split_below_the_32_bit_offset_limit(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 2 GiB of bytes a chunk becomes several 32-bit-offset arrays (shown with a limit of 20 bytes)."""
    monkeypatch.setattr(orcjit.convert.arrow, "STRING32_LIMIT", 20)
    rng = np.random.default_rng(3)
    node = node_of(kind)
    vec = make_chunk(kind, node, 60, 0.2, rng, shift=5)
    got = convert_column(node, [vec], "pyarrow")
    assert got._pa_array.num_chunks > 1
    monkeypatch.undo()
    check(node, [vec], "pyarrow")
    pd.testing.assert_series_equal(pd.Series(got), pd.Series(convert_column(node, [vec], "pyarrow")))


# -- dates ------------------------------------------------------------------------------------------------------------

DAY_MIN, DAY_MAX = -719162, 2932896  # 0001-01-01 and 9999-12-31


@pytest.mark.parametrize("backend", BACKENDS)
def test_dates_over_a_wide_range(backend: str) -> None:
    """A range far wider than the column: distinct days found by hashing instead of a table over the range."""
    node = node_of("date")
    days = np.array([DAY_MIN, DAY_MAX, 0, DAY_MAX, -1, 0, DAY_MIN] * 50, dtype=np.int32)
    valid = np.ones(len(days), dtype=np.bool_)
    valid[3::5] = False
    days[~valid] = 0
    got = check(node, [ColumnVector(node, len(days), valid, values=days)], backend)
    if backend != "pyarrow":
        assert got[0] == datetime.date(1, 1, 1)
        assert got[1] == datetime.date(9999, 12, 31)


def test_dates_share_one_object_per_day() -> None:
    node = node_of("date")
    days = np.array([10, 11, 10, 10], dtype=np.int32)
    got = convert_column(node, [ColumnVector(node, 4, values=days)], "numpy")
    assert got[0] is got[2] is got[3]


@pytest.mark.parametrize("day", [DAY_MIN - 1, DAY_MAX + 1, -(2**31), 2**31 - 1])
def test_dates_outside_datetime_date_raise(day: int) -> None:
    node = node_of("date")
    vec = ColumnVector(node, 2, values=np.array([0, day], dtype=np.int32))
    with pytest.raises(ValueError):  # as pyarrow's conversion
        arrow_path(node, [vec], "numpy")
    with pytest.raises(OrcError, match=r"datetime\.date"):
        convert_column(node, [vec], "numpy")
    # Arrow dates hold any int32 (compared as Arrow arrays: pandas' comparison makes datetime.date objects)
    got = convert_column(node, [vec], "pyarrow")
    assert got.dtype == pd.ArrowDtype(pa.date32())
    assert got._pa_array.equals(arrow_path(node, [vec], "pyarrow").array._pa_array)


@pytest.mark.parametrize("n", [600, 1000, 3000, 40_000])
def test_dates_mostly_distinct_over_a_wide_range(n: int) -> None:
    """Days spread over the whole range, nearly all distinct: the search for repeats gives up after a quarter of
    the column (at most DEDUPE_SAMPLE values) and every row gets a date of its own, equal to Arrow's."""
    rng = np.random.default_rng(n)
    node = node_of("date")
    days = rng.integers(DAY_MIN, DAY_MAX + 1, n).astype(np.int32)
    valid = rng.random(n) > 0.1
    days[~valid] = rng.integers(-(2**31), 2**31 - 1, int((~valid).sum()))  # anything at a null slot
    got = check(node, [ColumnVector(node, n, valid, values=days)], "numpy")
    epoch = datetime.date(1970, 1, 1)
    assert got.tolist() == [
        epoch + datetime.timedelta(days=int(d)) if ok else None for d, ok in zip(days, valid, strict=True)
    ]
    check(node, [ColumnVector(node, n, None, values=np.where(valid, days, 0).astype(np.int32))], "numpy")


def test_dedupe_sample_is_a_quarter_of_the_column_within_bounds() -> None:
    from orcjit.convert.chunks import DEDUPE_MIN_VALUES, DEDUPE_SAMPLE, dedupe_sample

    assert [dedupe_sample(n) for n in (0, 256, 1000, 1024, 4000, 32_768, 10**7)] == [
        DEDUPE_MIN_VALUES,
        DEDUPE_MIN_VALUES,
        DEDUPE_MIN_VALUES,
        DEDUPE_MIN_VALUES,
        1000,
        DEDUPE_SAMPLE,
        DEDUPE_SAMPLE,
    ]
    assert orcjit.convert.decimals.DEDUPE_SAMPLE == DEDUPE_SAMPLE  # one definition, also where it was


def test_out_of_range_date_at_a_null_slot_is_fine() -> None:
    node = node_of("date")
    vec = ColumnVector(node, 2, np.array([True, False]), values=np.array([5, 2**31 - 1], dtype=np.int32))
    assert convert_column(node, [vec], "numpy").tolist() == [datetime.date(1970, 1, 6), None]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.none(), st.integers(DAY_MIN, DAY_MAX), st.sampled_from([DAY_MIN, DAY_MAX, 0])), max_size=80),
    st.sampled_from(["numpy", "pyarrow"]),
)
def test_dates_hypothesis(days: list[int | None], backend: str) -> None:
    node = node_of("date")
    valid = np.array([d is not None for d in days], dtype=np.bool_)
    values = np.array([d or 0 for d in days], dtype=np.int32)
    got = check(node, [ColumnVector(node, len(days), valid if not valid.all() else None, values=values)], backend)
    if backend == "numpy":
        epoch = datetime.date(1970, 1, 1)
        assert got.tolist() == [None if d is None else epoch + datetime.timedelta(days=d) for d in days]


# -- decimals ---------------------------------------------------------------------------------------------------------


@st.composite
def decimal_columns(draw: st.DrawFn) -> tuple[int, int, list[int | None]]:
    precision = draw(st.integers(1, 38))
    scale = draw(st.integers(0, precision))
    top = 10**precision - 1
    value = st.one_of(st.integers(-top, top), st.sampled_from([top, -top, 0, 1, -1]))
    values = draw(st.lists(st.one_of(st.none(), value), max_size=40))
    return precision, scale, values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decimal_columns(), st.sampled_from(BACKENDS))
def test_decimals_hypothesis(column: tuple[int, int, list[int | None]], backend: str) -> None:
    precision, scale, values = column
    node = node_of("decimal", precision, scale)
    valid = np.array([v is not None for v in values], dtype=np.bool_)
    lanes = decimal_lanes([v or 0 for v in values])
    got = check(node, [ColumnVector(node, len(values), valid, values=lanes)], backend)
    if backend != "pyarrow":
        expected = [None if v is None else decimal.Decimal(v).scaleb(-scale, decimal.Context(prec=80)) for v in values]
        # exactly: the same digits and exponent, so the same text
        assert [None if d is None else str(d) for d in got] == [None if d is None else str(d) for d in expected]


@pytest.mark.parametrize("scale", [0, 1, 6, 18, 37, 38])
def test_decimal_extremes_and_texts(scale: int) -> None:
    top = 10**38 - 1
    values = [top, -top, 0, 1, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, -(2**64), 10**19, 123456]
    lanes = decimal_lanes(values)
    node = node_of("decimal", 38, scale)
    got = check(node, [ColumnVector(node, len(values), values=lanes)], "numpy")
    arrow = pa.Array.from_buffers(pa.decimal128(38, scale), len(values), [None, pa.py_buffer(lanes)])
    assert [str(d) for d in got] == [str(d) for d in arrow.to_pylist()]
    assert all(d.as_tuple().exponent == -scale for d in got)


def test_decimals_repeated_values_share_objects() -> None:
    """Past DEDUPE_MIN_VALUES values with few distinct ones, each distinct value is made once."""
    rng = np.random.default_rng(4)
    node = node_of("decimal", 20, 4)
    pool = [0, 5, -5, 10**19 + 7, -(10**19) - 7]
    values = [pool[i] for i in rng.integers(0, len(pool), 2000)]
    valid = rng.random(2000) > 0.1
    lanes = decimal_lanes([v if ok else 0 for v, ok in zip(values, valid, strict=True)])
    got = check(node, [ColumnVector(node, 2000, valid, values=lanes)], "numpy")
    assert len({id(d) for d in got if d is not None}) <= len(pool)


@pytest.mark.parametrize("n", [300, 1000, 5000, orcjit.convert.decimals.DEDUPE_SAMPLE * 2 + 17])
def test_decimals_mostly_distinct(n: int) -> None:
    """Nearly all distinct, in a column smaller or larger than DEDUPE_SAMPLE: the search for repeats gives up once
    a quarter of the column (at most the sample) shows it, and every value is converted, the same as Arrow's; a
    column of few distinct values still shares them."""
    rng = np.random.default_rng(n)
    node = node_of("decimal", 38, 9)
    unscaled = rng.integers(-(2**62), 2**62, n)
    lanes = np.stack([unscaled, unscaled >> 63], axis=1)
    valid = rng.random(n) > 0.1
    lanes[~valid] = 0
    check(node, [ColumnVector(node, n, valid, values=lanes)], "numpy")
    check(node, [ColumnVector(node, n, None, values=lanes)], "numpy")
    check(node, [ColumnVector(node, n, None, values=lanes)], "numpy_nullable")
    few = np.stack([unscaled % 7, (unscaled % 7) >> 63], axis=1)
    got = check(node, [ColumnVector(node, n, None, values=few)], "numpy")
    assert len({id(d) for d in got}) <= 7


def test_decimals_mostly_distinct_are_told_without_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The low lanes of the first DEDUPE_SAMPLE values, sorted, tell a column mostly distinct without the hash table
    (whose kernel is then not even compiled): whenever they do, the table gives up too. Columns they cannot tell
    (repeats, or values alike in the low lane) go to the table."""
    from orcjit.convert import decimals as dec
    from orcjit.kernels.convert import distinct_rows

    rng = np.random.default_rng(8)
    n = dec.DEDUPE_SAMPLE * 3
    half = dec.DEDUPE_SAMPLE // 2
    columns = {
        "distinct": rng.integers(-(2**62), 2**62, n),
        "repeats": rng.integers(0, 100, n),
        "just above half": rng.permutation(np.arange(n) % (half + 64)),
        "just below half": rng.permutation(np.arange(n) % (half - 64)),
    }
    told = {}
    for name, unscaled in columns.items():
        lanes = np.stack([unscaled, unscaled >> 63], axis=1)
        for valid in (None, rng.random(n) > 0.3):
            mostly = dec._mostly_distinct(lanes, valid)
            kernel_valid = np.zeros(0, np.bool_) if valid is None else valid
            gave_up = distinct_rows(lanes, kernel_valid, np.empty(n, np.intp), np.empty(n, np.intp), dec.DEDUPE_SAMPLE)
            assert gave_up == -1 or not mostly, name
            told[name, valid is None] = mostly
    assert told["distinct", True] and told["distinct", False]
    assert not told["repeats", True] and not told["repeats", False]
    # distinct values with one low lane: the table's to find out
    alike = np.stack([np.zeros(n, np.int64), np.arange(n)], axis=1)
    assert not dec._mostly_distinct(alike, None)

    calls: list[int] = []

    def spy(*args: object) -> int:
        calls.append(1)
        return int(distinct_rows(*args))

    monkeypatch.setattr(dec, "distinct_rows", spy)
    node = node_of("decimal", 38, 9)
    for name, table_calls in (("distinct", 0), ("repeats", 1)):
        unscaled = columns[name]
        check(node, [ColumnVector(node, n, None, values=np.stack([unscaled, unscaled >> 63], axis=1))], "numpy")
        assert len(calls) == table_calls, name


def test_decimal_defaults_of_old_files() -> None:
    """No precision and scale in the file (Hive 0.11): ORC C++'s and pandas.read_orc's decimal(38, 6), unless the
    vectors say a read brought them to another scale."""
    node = node_of("decimal", None, None)
    lanes = decimal_lanes([1, -25, 10**30])
    got = check(node, [ColumnVector(node, 3, values=lanes)], "numpy")
    assert str(got[0]) == "0.000001"
    assert str(convert_column(node, [ColumnVector(node, 3, values=lanes, scale=10)], "numpy")[0]) == "1E-10"
    check(node, [ColumnVector(node, 3, values=lanes)], "pyarrow")


def test_decimal_objects_leave_the_thread_context_alone() -> None:
    before = decimal.getcontext().prec
    decimal_objects(decimal_lanes([10**37]), 2)
    assert decimal.getcontext().prec == before


# -- ownership --------------------------------------------------------------------------------------------------------


def storage(result) -> np.ndarray:
    """The NumPy array a result keeps its values in."""
    if isinstance(result, np.ndarray):
        return result
    return result._ndarray if hasattr(result, "_ndarray") else result._data


@pytest.mark.parametrize("backend", ["numpy", "numpy_nullable"])
@pytest.mark.parametrize("kind", ["bigint", "double", "boolean", "timestamp", "timestamp with local time zone"])
def test_read_only_values_are_copied(kind: str, backend: str) -> None:
    rng = np.random.default_rng(7)
    node = node_of(kind)
    vec = make_chunk(kind, node, 100, 0.2 if kind in ("double", "timestamp") else 0, rng)
    before = vec.values.copy()
    vec.values.flags.writeable = False
    check(node, [vec], backend)
    values = storage(convert_column(node, [vec], backend))
    assert values.flags.writeable
    assert not np.shares_memory(values, vec.values)
    np.testing.assert_array_equal(vec.values, before)


def test_a_lone_writable_chunk_is_taken_over() -> None:
    """The documented contract: the result owns a lone writable values array (no copy), nulls written into it."""
    node = node_of("double")
    values = np.array([1.0, 0.0, 3.0])
    got = convert_column(node, [ColumnVector(node, 3, np.array([True, False, True]), values=values)], "numpy")
    assert got is values
    assert np.isnan(values[1])


def test_result_owns_concatenated_chunks() -> None:
    node = node_of("int")
    a = np.arange(3, dtype=np.int32)
    b = np.arange(4, dtype=np.int32)
    got = convert_column(node, [ColumnVector(node, 3, values=a), ColumnVector(node, 4, values=b)], "numpy")
    assert got.flags.writeable and not np.shares_memory(got, a) and not np.shares_memory(got, b)


def test_bad_backend() -> None:
    with pytest.raises(OrcError, match="dtype_backend"):
        convert_column(node_of("int"), [], "arrow")


# -- against pandas.read_orc on a file --------------------------------------------------------------------------------


def vectors_from_arrow(node: TypeNode, column) -> list[ColumnVector]:
    """ColumnVectors (zeros at nulls, int64 string offsets, decimal lanes) of each chunk of an Arrow column."""
    out = []
    for arr in column.chunks:
        n = len(arr)
        valid = arr.is_valid().to_numpy(zero_copy_only=False) if arr.null_count else None
        if node.kind in STRING_KINDS:
            offsets = np.frombuffer(arr.buffers()[1], np.int32)[arr.offset : arr.offset + n + 1].astype(np.int64)
            data = np.frombuffer(arr.buffers()[2], np.uint8) if arr.buffers()[2] is not None else np.zeros(0, np.uint8)
            out.append(ColumnVector(node, n, valid, offsets=offsets, data=data))
            continue
        if node.kind == "boolean":
            out.append(ColumnVector(node, n, valid, values=arr.fill_null(False).to_numpy(zero_copy_only=False)))
            continue
        width = 2 if node.kind == "decimal" else 1
        dtype = np.int64 if node.kind == "decimal" else FIXED_DTYPES[node.kind]
        values = np.frombuffer(arr.buffers()[1], dtype)[arr.offset * width : (arr.offset + n) * width].copy()
        values = values.reshape(-1, width) if width == 2 else values
        if valid is not None:
            values[~valid] = 0
        out.append(ColumnVector(node, n, valid, values=values))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_matches_pandas_read_orc(tmp_path, backend: str) -> None:
    rng = np.random.default_rng(8)
    n = 3000
    nulls = rng.random(n) < 0.2

    def masked(values, type_):
        return pa.array(values, type=type_, mask=nulls)

    table = pa.table(
        {
            "b": masked(rng.random(n) < 0.5, pa.bool_()),
            "i8": masked(rng.integers(-100, 100, n), pa.int8()),
            "i16": masked(rng.integers(-1000, 1000, n), pa.int16()),
            "i32": masked(rng.integers(-(2**31), 2**31 - 1, n), pa.int32()),
            "i64": pa.array(rng.integers(-(2**63), 2**63 - 1, n), pa.int64()),
            "f32": masked(rng.normal(size=n), pa.float32()),
            "f64": masked(rng.normal(size=n), pa.float64()),
            "s": masked([f"v{i % 97}" for i in range(n)], pa.string()),
            "u": masked([f"unique-{i}-\u00e9" for i in range(n)], pa.string()),
            "bin": masked([bytes([i % 256]) * (i % 5) for i in range(n)], pa.binary()),
            "d": masked(rng.integers(-5000, 30000, n).astype(np.int32), pa.date32()),
            "ts": masked(rng.integers(-(2**60), 2**60, n), pa.timestamp("ns")),
            "dec": masked(
                [decimal.Decimal(int(v)).scaleb(-4) for v in rng.integers(-(10**15), 10**15, n)], pa.decimal128(20, 4)
            ),
        }
    )
    path = tmp_path / "all.orc"
    orc.write_table(table, str(path), stripe_size=64 * 1024, dictionary_key_size_threshold=0.0)
    expected = pd.read_orc(path) if backend == "numpy" else pd.read_orc(path, dtype_backend=backend)
    read = orc.read_table(str(path))
    kinds = {
        "b": "boolean", "i8": "tinyint", "i16": "smallint", "i32": "int", "i64": "bigint", "f32": "float",
        "f64": "double", "s": "string", "u": "string", "bin": "binary", "d": "date", "ts": "timestamp",
        "dec": "decimal",
    }  # fmt: skip
    for name, kind in kinds.items():
        node = node_of(kind, 20, 4)
        got = pd.Series(convert_column(node, vectors_from_arrow(node, read.column(name)), backend), name=name)
        pd.testing.assert_series_equal(got, expected[name])


@pytest.mark.parametrize("backend", BACKENDS)
def test_orcjit_vectors_match_pandas_read_orc(tmp_path, backend: str) -> None:
    """Vectors as orcjit's reader decodes them (several stripes, nulls, direct and dictionary strings)."""
    import orcjit

    rng = np.random.default_rng(10)
    n = 20_000
    nulls = rng.random(n) < 0.15
    table = pa.table(
        {
            "i": pa.array(rng.integers(-(2**40), 2**40, n), mask=nulls),
            "f": pa.array(rng.normal(size=n), pa.float32(), mask=nulls),
            "b": pa.array(rng.random(n) < 0.5, mask=nulls),
            "dict": pa.array([f"w{i % 13}" for i in range(n)], mask=nulls),
            "uniq": pa.array([f"u{i}" for i in range(n)]),
            "day": pa.array(rng.integers(0, 20000, n).astype(np.int32), pa.date32(), mask=nulls),
            "ts": pa.array(rng.integers(0, 2**60, n), pa.timestamp("ns"), mask=nulls),
            "dec": pa.array([decimal.Decimal(int(v)).scaleb(-3) for v in rng.integers(-(10**9), 10**9, n)],
                            pa.decimal128(12, 3), mask=nulls),
        }
    )  # fmt: skip
    path = tmp_path / "stripes.orc"
    orc.write_table(table, str(path), stripe_size=32 * 1024, dictionary_key_size_threshold=0.5)
    expected = pd.read_orc(path) if backend == "numpy" else pd.read_orc(path, dtype_backend=backend)
    file = orcjit.ORCFile(str(path))
    assert file.nstripes > 1
    got = scan_stripes(file.meta, plan_read(file.meta, None, None, "raise"), range(file.nstripes), ReadOptions())
    for name, node, chunks in zip(got.output.names, got.output.fields, got.columns, strict=True):
        result = pd.Series(convert_column(node, chunks, backend), name=name, copy=False)
        pd.testing.assert_series_equal(result, expected[name])


# -- kernels ----------------------------------------------------------------------------------------------------------


def test_distinct_rows_numbers_values_in_order_of_appearance() -> None:
    from orcjit.kernels.convert import distinct_rows

    rng = np.random.default_rng(9)
    keys = rng.integers(-3, 3, (5000, 2))  # 36 distinct rows: the table grows past its first size when wider
    valid = rng.random(5000) > 0.1
    ids = np.empty(5000, dtype=np.intp)
    firsts = np.empty(5000, dtype=np.intp)
    count = distinct_rows(keys, valid, ids, firsts, 10**9)
    rows = [tuple(r) for r in keys[valid].tolist()]
    assert count == len(set(rows))
    assert (ids[~valid] == -1).all()
    np.testing.assert_array_equal(keys[firsts[ids[valid]]], keys[valid])
    assert list(firsts[:count]) == sorted(firsts[:count])  # numbered as first seen
    wide = np.arange(20_000).reshape(-1, 1)  # more distinct values than the first table holds
    ids = np.empty(20_000, dtype=np.intp)
    firsts = np.empty(20_000, dtype=np.intp)
    assert distinct_rows(wide, np.zeros(0, dtype=np.bool_), ids, firsts, 10**9) == 20_000
    np.testing.assert_array_equal(ids, np.arange(20_000))
    # mostly distinct over the sample: gives up
    assert distinct_rows(wide, np.zeros(0, dtype=np.bool_), ids, firsts, 64) == -1


def test_kernels_reject_mismatched_arrays() -> None:
    from orcjit.kernels.convert import distinct_rows, fill_nulls, set_nulls, table_indices
    from orcjit.kernels.status import BAD_LENGTH

    values = np.arange(4, dtype=np.int64)
    short = np.ones(3, dtype=np.bool_)
    assert distinct_rows(values.reshape(-1, 1), short, np.empty(4, np.intp), np.empty(4, np.intp), 8) == BAD_LENGTH
    assert distinct_rows(values.reshape(-1, 1), np.zeros(0, np.bool_), np.empty(3, np.intp), values, 8) == BAD_LENGTH
    assert table_indices(values, short, 0, np.empty(4, np.intp)) == BAD_LENGTH
    assert table_indices(values, np.zeros(0, np.bool_), 0, np.empty(3, np.intp)) == BAD_LENGTH
    assert fill_nulls(values, short, 0.0, np.empty(4)) == BAD_LENGTH
    assert set_nulls(values, short, 0) == BAD_LENGTH


def test_table_indices() -> None:
    from orcjit.kernels.convert import table_indices

    values = np.array([5, -2, 9, 100], dtype=np.int32)
    valid = np.array([True, True, True, False])
    out = np.empty(4, dtype=np.intp)
    assert table_indices(values, valid, -2, out) == 4
    assert out.tolist() == [7, 0, 11, -1]
