"""``orcjit parquet-bloom``: a value against each row group's split-block bloom filter of a Parquet column."""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.test_cli import run, run_json

ROWS = 3_000
GROUP = 500
COLUMNS = ["key", "name", "day", "ts", "price", "score", "small"]


@pytest.fixture(scope="module")
def table() -> pa.Table:
    rng = np.random.default_rng(3)
    key = rng.permutation(ROWS).astype(np.int64) * 101 + 1
    return pa.table(
        {
            "key": key,
            "name": pa.array([f"name {int(k)}" for k in key]),
            "day": pa.array([datetime.date(2021, 1, 1) + datetime.timedelta(days=int(k) // 101) for k in key]),
            "ts": pa.array(
                np.datetime64("2024-01-01", "us") + (key * 1_000_003).astype("timedelta64[us]"), pa.timestamp("us")
            ),
            "price": pa.array([decimal.Decimal(int(k)).scaleb(-2) for k in key], pa.decimal128(12, 2)),
            "score": key.astype(np.float64) / 8,
            "small": pa.array((key % 30_000).astype(np.int32)),
            "plain": key,
        }
    )


@pytest.fixture(scope="module")
def path(table: pa.Table, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli-parquet") / "data.parquet"
    options = {c: {"ndv": GROUP, "fpp": 0.01} for c in COLUMNS}
    pq.write_table(table, out, row_group_size=GROUP, bloom_filter_options=options)
    return out


def _text(value: Any) -> str:
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return str(value)


@pytest.mark.parametrize("column", COLUMNS)
def test_present_values_may_be_contained_where_they_are(
    path: Path, table: pa.Table, capsys: pytest.CaptureFixture[str], column: str
) -> None:
    values = table.column(column).to_pylist()
    for row in (0, 1_234, ROWS - 1):
        data = run_json(capsys, "parquet-bloom", path, "--column", column, "--value", _text(values[row]))
        assert data["row_groups"] == ROWS // GROUP == data["with_filter"]
        holding = [g for g in data["groups"] if g["first_row"] <= row < g["first_row"] + g["rows"]]
        assert holding[0]["may_contain"], (column, row)
        for group in data["groups"]:
            assert group["bloom_filter"] and group["bytes"] > 0 and 0 < group["fill_ratio"] < 1
        # each value occurs once; with fpp 0.01 the other groups nearly all say no
        assert data["may_contain"] <= 3


def test_absent_value_text_agrees_with_json(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "parquet-bloom", path, "--column", "key", "--value", "-5")
    code, out, err = run(capsys, "parquet-bloom", path, "--column", "key", "--value", "-5")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert sum(line.rstrip().endswith("  no") for line in lines) == data["row_groups"] - data["may_contain"]
    assert sum(line.rstrip().endswith("may contain") for line in lines) == data["may_contain"]
    assert f"Summary: {data['may_contain']} of 6 row groups may contain the value" in out
    assert data["may_contain"] <= 2


def test_column_without_filters(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "parquet-bloom", path, "--column", "plain", "--value", "1")
    assert data["with_filter"] == 0 and data["may_contain"] == data["row_groups"]
    code, out, _ = run(capsys, "parquet-bloom", path, "--column", "plain", "--value", "1")
    assert code == 0 and out.count("no filter") == data["row_groups"]
    assert "without a bloom filter" in out


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("key", "twelve"),
        ("key", "1.5"),
        ("small", "9999999999"),
        ("day", "2024-13-01"),
        ("ts", "yesterday"),
        ("price", "1.234"),
        ("price", "abc"),
        ("score", "x"),
        ("missing", "1"),
    ],
)
def test_bad_values_and_columns_exit_1(path: Path, capsys: pytest.CaptureFixture[str], column: str, value: str) -> None:
    code, out, err = run(capsys, "parquet-bloom", path, "--column", column, "--value", value)
    assert code == 1 and out == ""
    assert err.startswith("orcjit: error:") and column in err


def test_not_parquet_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"nothing here")
    code, _, err = run(capsys, "parquet-bloom", bad, "--column", "a", "--value", "1")
    assert code == 1 and "orcjit: error:" in err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "parquet-bloom", "--help")
    assert code == 0 and "examples:" in out and "orcjit parquet-bloom data.parquet --column key" in out
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "parquet-bloom" in out
