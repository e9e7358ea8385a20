"""ORCFile.read_arrow: the pyarrow.Table pyarrow.orc.read_table gives, for whole files, projections, stripes and
filters."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as po
import pytest

import orcjit
from tests.factory import all_types_table, write_pyarrow


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    table = all_types_table(n=6000, seed=3)
    target = tmp_path_factory.mktemp("arrow") / "all.orc"
    # pyarrow cuts stripes by size only when uncompressed
    return write_pyarrow(
        target, table, compression="uncompressed", stripe_size=1, batch_size=500, row_index_stride=1000
    )


def test_whole_file_equals_pyarrow(path: Path) -> None:
    got = orcjit.ORCFile(path).read_arrow()
    want = po.read_table(path)
    assert got.schema == want.schema
    assert got.equals(want)


def test_columns_and_stripes(path: Path) -> None:
    f = orcjit.ORCFile(path)
    assert f.nstripes > 1
    reader = po.ORCFile(path)
    columns = ["i64", "str"]
    for i in range(f.nstripes):
        got = f.read_arrow(columns, stripes=[i])
        want = reader.read_stripe(i, columns=columns)
        assert got.equals(pa.Table.from_batches([want]))
    both = f.read_arrow(columns, stripes=[f.nstripes - 1, 0])
    assert both.num_rows == f.stripes[0].rows + f.stripes[-1].rows


def test_filters_equal_a_filtered_full_read(path: Path) -> None:
    f = orcjit.ORCFile(path)
    full = po.read_table(path)
    value = full.column("i64").drop_null()[123].as_py()
    for filters, expr in (
        ([("i64", ">=", value)], pc.field("i64") >= value),
        ([("i64", "==", value)], pc.field("i64") == value),
        ([("str", "is null")], pc.field("str").is_null()),
    ):
        got = f.read_arrow(filters=filters)
        assert got.equals(full.filter(expr)), filters


def test_no_columns_keeps_the_row_count(path: Path) -> None:
    f = orcjit.ORCFile(path)
    assert f.read_arrow([]).num_rows == f.nrows
    nulls = po.read_table(path).column("i64").null_count
    assert 0 < nulls < f.nrows
    assert f.read_arrow([], filters=[("i64", "is null")]).num_rows == nulls


def test_bad_stripe_number(path: Path) -> None:
    with pytest.raises(IndexError, match="stripe 99 out of range"):
        orcjit.ORCFile(path).read_arrow(stripes=[99])
