"""Datasets Spark writes (``df.write.partitionBy(...).orc(dir)``: ORC Java files, dictionary strings, part files,
``_SUCCESS`` and ``.crc`` files, ``__HIVE_DEFAULT_PARTITION__`` folders) read by ``orcjit.read_orc(dir)`` as
``spark.read.orc(dir)`` reads them: the same columns in the same order, partition columns typed as Spark infers
them, the same rows, and the same rows for filters on partition and data columns."""

from __future__ import annotations

import datetime
import decimal
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import orcjit
from orcjit import ORCDataset


def _rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """Rows as plain tuples (None for nulls, dates and Decimals as such), sorted: Spark's row order is its own."""
    out = []
    for row in frame.itertuples(index=False):
        values = []
        for v in row:
            if v is None or (not isinstance(v, (str, bytes, list, dict)) and pd.isna(v)):
                values.append(None)
            elif isinstance(v, pd.Timestamp):
                values.append(v.to_pydatetime())
            elif hasattr(v, "item") and not isinstance(v, (datetime.date, decimal.Decimal)):
                values.append(v.item())
            else:
                values.append(v)
        out.append(tuple(values))
    return sorted(out, key=repr)


@pytest.fixture(scope="module")
def written(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    regions = ["north", "south east", None, "west/2"]
    rows = [
        (
            i,
            f"name{rng.randrange(40)}" if i % 11 else None,
            decimal.Decimal(rng.randrange(-(10**6), 10**6)).scaleb(-2),
            datetime.date(2020, 1, 1) + datetime.timedelta(days=rng.randrange(900)),
            2020 + i % 3,
            regions[i % 4],
        )
        for i in range(6000)
    ]
    schema = "id bigint, name string, amount decimal(10,2), day date, year int, region string"
    path = tmp_path_factory.mktemp("spark-dataset") / "sales"
    (
        spark.createDataFrame(rows, schema)
        .repartition(3)
        .write.partitionBy("year", "region")
        .option("orc.row.index.stride", 1000)
        .orc(str(path))
    )
    return path


def test_reads_what_spark_reads(spark: Any, written: Path) -> None:
    theirs = spark.read.orc(str(written))
    ours = orcjit.read_orc(written)
    assert list(ours.columns) == theirs.columns == ["id", "name", "amount", "day", "year", "region"]
    ds = ORCDataset(written)
    kinds = {c.name: c.kind for c in ds.schema.children}
    spark_types = {f.name: f.dataType.simpleString() for f in theirs.schema.fields}
    assert spark_types["year"] == "int" and kinds["year"] == "int"
    assert spark_types["region"] == "string" and kinds["region"] == "string"
    assert (written / "_SUCCESS").exists() and len(ds.files) >= 12
    assert _rows(ours) == _rows(theirs.toPandas())


@pytest.mark.parametrize(
    "filters",
    [
        [("year", "==", 2021)],
        [("region", "is null")],
        [("region", "==", "south east"), ("id", "<", 3000)],
        [("region", "in", ["west/2", "north"]), ("amount", ">", decimal.Decimal("100.00"))],
        [[("year", ">=", 2022)], [("name", "==", "name3")]],
        [("region", "not in", ["north"]), ("day", "<", datetime.date(2020, 6, 1))],
    ],
)
def test_filters_give_the_rows_spark_gives(spark: Any, written: Path, filters: list[Any]) -> None:
    from pyspark.sql import functions as F

    def condition(term: tuple[Any, ...]) -> Any:
        column = F.col(term[0])
        op = term[1]
        if op == "is null":
            return column.isNull()
        if op == "in":
            return column.isin(term[2])
        if op == "not in":  # a null satisfies "not in" in the pandas/pyarrow convention, not in SQL
            return column.isNull() | ~column.isin(term[2])
        return {"==": column == term[2], "<": column < term[2], ">": column > term[2], ">=": column >= term[2]}[op]

    groups = filters if isinstance(filters[0], list) else [filters]
    expression = None
    for group in groups:
        conj = None
        for term in group:
            conj = condition(term) if conj is None else conj & condition(term)
        expression = conj if expression is None else expression | conj
    expected = spark.read.orc(str(written)).filter(expression).toPandas()
    got = orcjit.read_orc(written, filters=filters)
    assert len(got) == len(expected) > 0
    assert _rows(got) == _rows(expected)
