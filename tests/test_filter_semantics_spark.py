"""The Spark data source keeps SQL's semantics while orcjit's own filters keep pyarrow's: against Spark itself.

orcjit's ``not in`` keeps nulls (:mod:`orcjit.pushdown.semantics`); Spark's ``NOT (a IN (...))`` never does, and
Spark does not re-apply a filter it pushed. :func:`orcjit.spark.filters.translate` therefore writes the SQL answer
explicitly. Here each condition is answered by Spark (``spark.read.orc`` of a file ORC Java wrote, a row kept where
the condition is TRUE) and by ``orcjit.read_orc`` with the translation of the filters Spark pushes for it (built
here as Spark builds them: ``NOT (k IN (1, 2))`` is ``Not(In(("k",), [1, 2]))``); the rows must be the same, and
the same filters given to ``read_orc`` directly must keep the nulls that SQL drops.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

if not hasattr(pytest.importorskip("pyspark.sql.datasource"), "EqualNullSafe"):
    # before PySpark 4.1 Spark pushes no filter to a Python data source: it applies every filter itself
    pytest.skip("this PySpark has no filter pushdown for Python data sources", allow_module_level=True)

from pyspark.sql.datasource import EqualNullSafe, EqualTo, Filter, In, LessThan, Not

import orcjit
from orcjit.spark.filters import translate

SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"
pytestmark = pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)

ROWS = 3000

COLUMNS = [
    "id",
    "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 5 AS INT) END AS k",
    "CASE WHEN id % 11 = 0 THEN NULL WHEN id % 13 = 0 THEN double('NaN') WHEN id % 3 = 0 THEN -0.0D"
    " WHEN id % 3 = 1 THEN 0.0D ELSE 1.5D END AS d",
    "CASE WHEN id % 9 = 0 THEN NULL ELSE concat('s', CAST(id % 4 AS STRING)) END AS s",
    "CASE WHEN id % 10 = 0 THEN NULL ELSE named_struct('x', CASE WHEN id % 6 = 1 THEN NULL"
    " ELSE CAST(id % 3 AS INT) END) END AS st",
]

# (Spark SQL condition, the filters Spark pushes for it)
CASES: list[tuple[str, list[Filter]]] = [
    ("NOT (k IN (1, 2))", [Not(In(("k",), [1, 2]))]),
    ("NOT (k IN (1, NULL))", [Not(In(("k",), [1, None]))]),
    ("k IN (1, 2)", [In(("k",), [1, 2])]),
    ("NOT (s IN ('s1', 's2'))", [Not(In(("s",), ["s1", "s2"]))]),
    ("NOT (st.x IN (1))", [Not(In(("st", "x"), [1]))]),
    ("NOT (d IN (1.5D))", [Not(In(("d",), [1.5]))]),
    ("NOT (d IN (0.0D))", [Not(In(("d",), [0.0]))]),
    ("d IN (-0.0D)", [In(("d",), [-0.0])]),
    ("d = 0.0D", [EqualTo(("d",), 0.0)]),
    ("d <> 1.5D", [Not(EqualTo(("d",), 1.5))]),
    ("k <> 3", [Not(EqualTo(("k",), 3))]),
    ("NOT (k <=> 3)", [Not(EqualNullSafe(("k",), 3))]),
    ("NOT (k IN (0, 4)) AND d < 1.0D", [Not(In(("k",), [0, 4])), LessThan(("d",), 1.0)]),
]


@pytest.fixture(scope="module")
def orc_file(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("spark-semantics") / "data"
    spark.range(0, ROWS).selectExpr(*COLUMNS).coalesce(1).write.option("orc.row.index.stride", 1000).orc(str(target))
    (path,) = sorted(target.glob("*.orc"))
    return path


def spark_ids(spark: Any, path: Path, conditions: list[str]) -> list[list[int]]:
    """The ids ``spark.read.orc`` keeps under each condition (where it is TRUE), from one job."""
    from pyspark.sql import functions as F

    tests = [F.coalesce(F.expr(c), F.lit(False)).alias(f"c{i}") for i, c in enumerate(conditions)]
    rows = spark.read.orc(str(path)).select("id", *tests).collect()
    return [sorted(r["id"] for r in rows if r[f"c{i}"]) for i in range(len(conditions))]


def orcjit_ids(path: Path, filters: Any) -> list[int]:
    return sorted(orcjit.read_orc(path, columns=["id"], filters=filters or None)["id"].tolist())


def test_translated_filters_keep_what_spark_keeps(spark: Any, orc_file: Path) -> None:
    want = spark_ids(spark, orc_file, [c for c, _ in CASES])
    with orcjit.ORCFile(orc_file) as orc:
        schema = orc.schema
    for (condition, pushed), expected in zip(CASES, want, strict=True):
        accepted, rejected = translate(pushed, schema)
        assert rejected == [], condition
        assert 0 < len(expected) < ROWS or condition.startswith("NOT (k IN (1, NULL))"), condition
        assert orcjit_ids(orc_file, accepted) == expected, (condition, accepted)


def test_not_in_keeps_nulls_outside_spark(spark: Any, orc_file: Path) -> None:
    """The same ``not in`` given to ``read_orc`` keeps exactly the rows Spark keeps plus the null ones."""
    full = orcjit.read_orc(orc_file, dtype_backend="pyarrow")
    null_k = sorted(full.loc[full["k"].isna(), "id"].tolist())
    (sql,) = spark_ids(spark, orc_file, ["NOT (k IN (1, 2))"])
    assert null_k and set(null_k).isdisjoint(sql)
    assert orcjit_ids(orc_file, [("k", "not in", [1, 2])]) == sorted(sql + null_k)
    # a struct's field is null where the struct is: those rows too
    null_x = sorted(full.loc[[not isinstance(s, dict) or s["x"] is None for s in full["st"]], "id"].tolist())
    (sql,) = spark_ids(spark, orc_file, ["NOT (st.x IN (1))"])
    assert orcjit_ids(orc_file, [("st.x", "not in", [1])]) == sorted(sql + null_x)
