"""What the Spark test modules share: registering ``orcjit`` as on a Spark that keeps each planned read in its scan."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

PUSHDOWN = "spark.sql.python.filterPushdown.enabled"


def can_push() -> bool:
    """Whether this PySpark has filter pushdown for Python data sources (4.1+)."""
    from pyspark.sql.datasource import DataSourceReader

    return hasattr(DataSourceReader, "pushFilters")


needs_pushdown = pytest.mark.skipif(
    not can_push(), reason="this PySpark has no filter pushdown for Python data sources (PySpark 4.1 added it)"
)


def register_trusting(spark: Any) -> type:
    """Register ``orcjit`` as :func:`orcjit.spark.register` does, but as on a Spark that keeps each planned read in
    its own scan (no release yet), so that orcjit takes the filters Spark pushes even on Spark 4.1-4.3.

    Only for tests that load a fresh DataFrame for every query: on those versions a later query of the same
    DataFrame that pushes no filter would get the earlier query's rows (what
    ``test_spark_pushdown.test_spark_reuses_planned_reads_as_orcjit_assumes`` shows).
    """
    import orcjit.spark

    registered = orcjit.spark.register(spark)
    trusting = type(
        registered.__name__,
        (registered,),
        {
            "defaults": {**registered.defaults, "reusesPlannedReads": "false"},
            # not importable by name: cloudpickle sends the class, with these defaults, to the workers
            "__module__": registered.__module__,
            "__qualname__": registered.__qualname__,
        },
    )
    spark.dataSource.register(trusting)
    return trusting


@contextmanager
def pushdown_taken(spark: Any) -> Iterator[Any]:
    """``spark`` with Python filter pushdown on and ``orcjit`` registered to take filters (see
    :func:`register_trusting`: a fresh DataFrame per query); the setting restored on leaving."""
    before = spark.conf.get(PUSHDOWN, None)
    spark.conf.set(PUSHDOWN, "true")
    register_trusting(spark)
    try:
        yield spark
    finally:
        if before is None:
            spark.conf.unset(PUSHDOWN)
        else:
            spark.conf.set(PUSHDOWN, before)
