"""The behaviours the one core pins: one rule for column names (duplicates, dots, paths) everywhere a column is
named, the same column chosen by ``columns=`` and ``filters=``, and one converter per kind for every backend."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

import orcjit
import orcjit.convert.values
from orcjit import OrcError
from orcjit.cli import main as cli_main
from orcjit.types.resolve import resolve_column, resolve_name, select_columns

ROWS = 3000


@pytest.fixture(scope="module")
def duplicated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two top-level fields named ``a`` (a bigint and a string), as ``Table.from_arrays(names=["a", "a"])``
    writes them, beside a unique ``k``; several stripes and row groups, so filters prune."""
    rng = np.random.default_rng(18)
    ints = rng.integers(0, 50, ROWS)
    table = pa.Table.from_arrays(
        [pa.array(ints), pa.array([f"s{i % 7}" for i in range(ROWS)]), pa.array(np.arange(ROWS))],
        names=["a", "a", "k"],
    )
    path = tmp_path_factory.mktemp("dup") / "dup.orc"
    pa_orc.write_table(table, str(path), stripe_size=4096, batch_size=500, row_index_stride=500)
    return path


@pytest.fixture(scope="module")
def dotted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A top-level field called ``a.b`` beside a struct ``a`` with a field ``b``, of other values."""
    n = 2000
    struct = pa.StructArray.from_arrays([pa.array(np.arange(n) + 10_000)], names=["b"])
    table = pa.table({"a": struct, "a.b": pa.array(np.arange(n)), "s": pa.array([{"x": i % 5} for i in range(n)])})
    path = tmp_path_factory.mktemp("dotted") / "dotted.orc"
    pa_orc.write_table(table, str(path), stripe_size=4096, batch_size=500, row_index_stride=500)
    return path


def _expected(path: Path) -> pd.DataFrame:
    """The file as pyarrow reads it, converted column by column: ``pandas.read_orc`` (``Table.to_pandas``) gives
    both columns called ``a`` the string dtype, the bigint's values included (pyarrow 26, pandas 3)."""
    table = pa_orc.read_table(str(path))
    frame = pd.concat([table.column(i).to_pandas() for i in range(table.num_columns)], axis=1)
    frame.columns = pd.Index(table.column_names)
    return frame


def _cli(*args: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# -- duplicate names ------------------------------------------------------------------------------------------------


def test_full_read_keeps_both_columns(duplicated: Path) -> None:
    got = orcjit.read_orc(duplicated)
    pd.testing.assert_frame_equal(got, _expected(duplicated))
    assert list(got.columns) == ["a", "a", "k"]
    assert [str(t) for t in got.dtypes] == ["int64", str(pd.Series(["x"]).dtype), "int64"]


@pytest.mark.parametrize("reader", ["read_orc", "read", "read_arrow", "read_rows", "iter_stripes"])
def test_an_ambiguous_name_in_columns_lists_the_candidates(duplicated: Path, reader: str) -> None:
    with orcjit.ORCFile(duplicated) as f:
        calls = {
            "read_orc": lambda: orcjit.read_orc(duplicated, columns=["a"]),
            "read": lambda: f.read(columns=["a"]),
            "read_arrow": lambda: f.read_arrow(columns=["a"]),
            "read_rows": lambda: f.read_rows(0, 10, columns=["a"]),
            "iter_stripes": lambda: list(f.iter_stripes(columns=["a"])),
        }
        with pytest.raises(OrcError, match=r"column name 'a' is ambiguous: it names 2 columns") as info:
            calls[reader]()
    message = str(info.value)
    assert "position 0, column id 1 (bigint)" in message and "position 1, column id 2 (string)" in message
    assert "columns=[0]" in message


def test_positions_choose_among_duplicates(duplicated: Path) -> None:
    full = _expected(duplicated)
    for position in (0, 1):
        got = orcjit.read_orc(duplicated, columns=[position])
        pd.testing.assert_frame_equal(got, full.iloc[:, [position]])
    both = orcjit.read_orc(duplicated, columns=[1, 0, "k"])  # as in pandas, the file's order
    pd.testing.assert_frame_equal(both, full)


@pytest.mark.parametrize("value", [2, "s3"])
def test_an_ambiguous_name_in_filters_is_an_error_not_a_crash(duplicated: Path, value: Any) -> None:
    """The name resolved two ways before: the bigint for columns=, the string for filters=, and a string value
    ended in AttributeError."""
    with orcjit.ORCFile(duplicated) as f:
        for call in (
            lambda: orcjit.read_orc(duplicated, filters=[("a", "==", value)]),
            lambda: f.explain([("a", "==", value)]),
            lambda: list(f.iter_stripes(filters=[("a", "==", value)])),
            lambda: f.read_arrow(filters=[("a", "==", value)]),
        ):
            with pytest.raises(OrcError, match=r"filter \('a', '==', .*\): column name 'a' is ambiguous"):
                call()


def test_filtering_a_file_with_duplicate_names(duplicated: Path) -> None:
    """Filters on another column of a file with duplicate names read and type its columns by position."""
    full = _expected(duplicated)
    got = orcjit.read_orc(duplicated, filters=[("k", ">=", 1000), ("k", "<", 1400)])
    want = full[(full.iloc[:, 2] >= 1000) & (full.iloc[:, 2] < 1400)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    with orcjit.ORCFile(duplicated) as f:
        assert f.explain([("k", "<", 100)]).to_dict()["stripes_read"] < f.nstripes


def test_indexes_and_the_cli_use_the_same_rule(duplicated: Path) -> None:
    with orcjit.ORCFile(duplicated) as f:
        with pytest.raises(OrcError, match="ambiguous"):
            f.row_index(0, "a")
        assert f.row_index(0, 2).column_id == 2  # column ids name either one
    for args in (["schema", duplicated, "--columns", "a"], ["explain", duplicated, "--filter", "a == 2"]):
        code, out, err = _cli(*args)
        assert code == 1 and "column name 'a' is ambiguous" in err, (args, out, err)
    code, out, _ = _cli("explain", duplicated, "--filter", "k < 100")
    assert code == 0 and "stripes read" in out


def test_the_spark_filters_refuse_ambiguous_names(duplicated: Path) -> None:
    datasource = pytest.importorskip("pyspark.sql.datasource")
    if not hasattr(datasource, "EqualTo"):
        pytest.skip("PySpark before 4.1 pushes no filters to Python data sources: there is nothing to translate")
    from orcjit.spark.filters import translate

    with orcjit.ORCFile(duplicated) as f:
        accepted, rejected = translate([datasource.EqualTo(("a",), 2), datasource.EqualTo(("k",), 5)], f.schema)
    assert accepted == [[("k", "==", 5)]] and [r.attribute for r in rejected] == [("a",)]


def test_the_parquet_reader_refuses_ambiguous_names(tmp_path: Path) -> None:
    from orcjit.parquet import ParquetError, read_parquet

    path = tmp_path / "dup.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1, 2]), pa.array([3, 4])], names=["a", "a"]), path)
    for call in (lambda: read_parquet(path, columns=["a"]), lambda: read_parquet(path, filters=[("a", "==", 1)])):
        with pytest.raises(ParquetError, match="column name 'a' is ambiguous"):
            call()
    with pytest.raises(OrcError, match="positions 0, 1"):
        resolve_name("a", ["a", "a"])


# -- one name, one column ---------------------------------------------------------------------------------------------


def test_columns_and_filters_choose_the_same_column(dotted: Path) -> None:
    """A top-level ``a.b`` and the struct path ``a.b``: the whole name wins for columns=, filters=, explain and the
    CLI alike (it used to win for columns= and lose for filters= in one of the resolvers)."""
    full = pd.read_orc(dotted)
    got = orcjit.read_orc(dotted, columns=["a.b"], filters=[("a.b", "<", 100)])
    pd.testing.assert_frame_equal(got, full[["a.b"]][full["a.b"] < 100].reset_index(drop=True))
    with orcjit.ORCFile(dotted) as f:
        node = resolve_column(f.schema, "a.b")
        assert node.name == "a.b" and node.parent is f.schema
        assert f.explain([("a.b", "<", 100)]).to_dict()["stripes_read"] < f.nstripes
        assert f.row_index(0, "a.b").column_id == node.column_id
    code, out, _ = _cli("cat", dotted, "--columns", "a.b", "--filter", "a.b < 3")
    assert code == 0 and [line for line in out.splitlines() if line] == ['{"a.b": 0}', '{"a.b": 1}', '{"a.b": 2}']


def test_a_nested_path_selects_and_filters_the_same_field(dotted: Path) -> None:
    full = pd.read_orc(dotted)
    got = orcjit.read_orc(dotted, columns=["s.x"], filters=[("s.x", "==", 3)])
    want = full[["s"]][[v["x"] == 3 for v in full["s"]]].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    with orcjit.ORCFile(dotted) as f:
        assert select_columns(f.schema, ["s.x"]).selected == {0, resolve_column(f.schema, "s").column_id} | {
            resolve_column(f.schema, "s.x").column_id
        }


# -- one converter per kind -------------------------------------------------------------------------------------------


@pytest.fixture()
def converters_called(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every call of a kind's converter, as ``(kind, target)``."""
    calls: list[tuple[str, str]] = []
    for family, converter in list(orcjit.convert.values.CONVERTERS.items()):

        def spy(node: Any, chunks: Any, target: str, converter: Any = converter) -> Any:
            calls.append((node.kind, target))
            return converter(node, chunks, target)

        monkeypatch.setitem(orcjit.convert.values.CONVERTERS, family, spy)
    yield calls


@pytest.mark.parametrize("arrow", [True, False], ids=["with-pyarrow", "without-pyarrow"])
def test_both_numpy_backends_go_through_one_converter_per_kind(
    tmp_path: Path, arrow: bool, converters_called: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not arrow:
        monkeypatch.setenv("ORCJIT_NO_PYARROW", "1")
    table = pa.table(
        {
            "i": pa.array([1, None, 3], pa.int32()),
            "d": pa.array([1.5, None, 2.5]),
            "b": pa.array([True, None, False]),
            "l": pa.array([[1, None], [], None], pa.list_(pa.int64())),
        }
    )
    path = tmp_path / "kinds.orc"
    pa_orc.write_table(table, str(path))
    frames = {backend: orcjit.read_orc(path, dtype_backend=backend) for backend in (None, "numpy_nullable")}
    assert ("int", "numpy") in converters_called and ("int", "numpy_nullable") in converters_called
    assert ("double", "numpy") in converters_called and ("boolean", "numpy_nullable") in converters_called
    if not arrow:  # Arrow converts lists itself where it can; without it the elements take the same converter
        assert ("array", "numpy") in converters_called and ("bigint", "element") in converters_called
    for backend, frame in frames.items():
        expected = pd.read_orc(path, dtype_backend=backend) if backend else pd.read_orc(path)
        pd.testing.assert_frame_equal(frame, expected)
