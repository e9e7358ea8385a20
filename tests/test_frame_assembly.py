"""DataFrames assembled from converted columns: what pandas' public constructor makes, without its copies."""

from __future__ import annotations

import datetime
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import orcjit
from orcjit.convert.env import arrow_string_dtype, default_string_dtype
from orcjit.convert.frame import assemble, names_index


def _arrays() -> list:  # type: ignore[type-arg]
    return [
        np.arange(4, dtype=np.int64),
        np.arange(4, dtype=np.int64) * 2,  # a second int64 column: pandas would consolidate the two
        np.array([1.5, np.nan, 2.5, 3.0]),
        np.array([True, False, True, False]),
        np.array(["2020-01-01T00:00:00", "NaT", "2021-06-30T12:34:56.789", "1969-12-31"], dtype="M8[ns]"),
        np.array([Decimal("1.50"), None, Decimal("-2"), Decimal("0E-6")], dtype=object),
        np.array([datetime.date(2020, 1, 1), None, datetime.date(1, 1, 1), datetime.date(9999, 12, 31)], dtype=object),
        pd.array(["a", None, "ccc", ""], dtype=default_string_dtype() or object),
        pd.Categorical(["x", "y", None, "x"]),
        pd.array([1, None, 3, 4], dtype="Int32"),
        pd.Series([1.0, 2.0, 3.0, 4.0]),  # a column Arrow converted, handed over as a Series
    ]


def test_assemble_equals_the_public_constructor() -> None:
    arrays = _arrays()
    names = [f"c{i}" for i in range(len(arrays))]
    got = assemble(arrays, names)
    want = pd.DataFrame(dict(enumerate(arrays)), copy=False)
    want.columns = pd.Index(names)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert isinstance(got.index, pd.RangeIndex) and len(got) == 4


def test_assemble_keeps_one_block_per_column_without_copies() -> None:
    arrays = _arrays()
    got = assemble(arrays, [str(i) for i in range(len(arrays))])
    assert got._mgr.nblocks == len(arrays)
    for i in (0, 1, 2, 3):
        assert np.shares_memory(got.iloc[:, i].to_numpy(), arrays[i])


def test_assemble_of_no_rows() -> None:
    got = assemble([np.empty(0, np.int64), np.empty(0, object)], ["a", "b"])
    assert got.shape == (0, 2) and list(got.dtypes) == [np.dtype(np.int64), np.dtype(object)]


NAMES = [
    ["random_int", "seq_int", "amount"],
    ["_col0"],
    ["a.b", "é", "", "名前", "x" * 300],
    ["a", "a", "b"],  # duplicates, as files may have them
    [],
]


@pytest.mark.parametrize("names", NAMES)
def test_names_index_is_what_pandas_infers(names: list[str]) -> None:
    got, want = names_index(names), pd.Index(names)
    pd.testing.assert_index_equal(got, want, exact=True)
    assert type(got) is type(want) and got.dtype == want.dtype and got.inferred_type == want.inferred_type
    assert got.tolist() == names


def test_names_index_follows_the_string_option() -> None:
    storage = pd.get_option("mode.string_storage")
    with pd.option_context("mode.string_storage", "python" if storage != "python" else "pyarrow"):
        pd.testing.assert_index_equal(names_index(["a", "b"]), pd.Index(["a", "b"]), exact=True)


def test_names_index_of_names_that_are_not_all_str_is_inferred() -> None:
    for names in (["a", 1], [1, 2], ["a", None]):
        pd.testing.assert_index_equal(names_index(names), pd.Index(names), exact=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("nullable", [False, True])
def test_string_dtype_follows_pandas_options_when_they_change(binary: bool, nullable: bool) -> None:
    pa = pytest.importorskip("pyarrow")
    type_ = pa.large_binary() if binary else pa.large_string()
    mapper = {pa.large_string(): pd.StringDtype()}.get if nullable else None
    assert arrow_string_dtype(binary, nullable) == pa.chunked_array([], type=type_).to_pandas(types_mapper=mapper).dtype
    storage = pd.get_option("mode.string_storage")
    with pd.option_context("mode.string_storage", "python" if storage != "python" else "pyarrow"):
        # the kept answer is per value of the options: a changed option is asked again
        mapper = {pa.large_string(): pd.StringDtype()}.get if nullable else None
        want = pa.chunked_array([], type=type_).to_pandas(types_mapper=mapper).dtype
        assert arrow_string_dtype(binary, nullable) == want
        assert default_string_dtype() == (
            pd.Series(["x"]).dtype if isinstance(pd.Series(["x"]).dtype, pd.StringDtype) else None
        )


def test_a_read_is_the_same_frame_as_pandas_read_orc(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pa = pytest.importorskip("pyarrow")
    po = pytest.importorskip("pyarrow.orc")
    table = pa.table({"a": [1, 2, None], "b": ["x", None, "z"], "c": [1.5, 2.5, None], "d": [True, None, False]})
    po.write_table(table, tmp_path / "t.orc")
    got = orcjit.read_orc(tmp_path / "t.orc")
    pd.testing.assert_frame_equal(got, pd.read_orc(tmp_path / "t.orc"), check_exact=True)
    assert got._mgr.nblocks == 4
