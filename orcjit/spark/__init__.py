"""orcjit for PySpark: ORC files as a Spark data source named ``orcjit``.

Needs PySpark 4.0+ (filter pushdown 4.1+) and pyarrow: ``pip install "orcjit[spark]"``. ``import orcjit`` alone
never imports PySpark.

Usage
-----
::

    import orcjit.spark

    orcjit.spark.register(spark)  # once per session
    df = spark.read.format("orcjit").load("/data/events")  # a file, a directory, or a glob
    # Hive-style year=2024/city=Paris folders are partition columns (after the files' columns), typed and
    # valued as spark.read.orc reads them; filters on them skip whole files unopened
    df = spark.read.format("orcjit").load(["/data/a.orc", "/data/b/*.orc"])  # several paths
    df = spark.read.format("orcjit").option("columns", "id,ts").load("/data/events")  # only these columns

    # filter pushdown (before or after register): Spark hands the filters to orcjit, which skips stripes and row
    # groups by statistics and bloom filters and filters rows exactly
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    spark.read.format("orcjit").load("/data/events").where("user_id = 42").show()

The Data Source API has no column pruning: ``select`` after ``load`` still decodes every column, so name the
columns you need with the ``columns`` option. Without ``spark.sql.python.filterPushdown.enabled`` the source works
without pushdown (Spark filters the rows). Spark 4.1 to 4.3 reuse a read planned with pushed filters for later
queries of the same DataFrame, so on them orcjit takes no filters (the rows are right; every stripe is read) and
:func:`register` says so on the ``orcjit.spark`` logger: see :func:`reuses_planned_reads`. The helpers'
``read_files(filters=...)`` skips stripes on any Spark.

Other options: ``partitions`` (the most partitions; default the session's default parallelism) or
``bytesPerPartition`` (stripe bytes per partition), ``pathGlobFilter`` (file names taken from directories, default
every file, as ``spark.read.orc``), ``timeZone`` (the zone ORC ``timestamp`` wall clocks are read in; default the
JVM's, as ``spark.read.orc``) and ``pushdown`` (``false`` turns pushdown off for one read). See
:mod:`orcjit.spark.datasource` for the source, :mod:`orcjit.spark.partitions` for planning its partitions,
:mod:`orcjit.spark.prefetch` for how each partition reads the next stripe while Spark takes the last, and
:mod:`orcjit.spark.types` for the type mapping, which is
``spark.read.orc``'s (unions, which Spark cannot read, become ``struct<tag:int, field0, field1, ...>``).

The helpers for ``mapInPandas`` and ``pandas_udf`` (:mod:`orcjit.spark.helpers`) are reachable from this module as
well, e.g. ``orcjit.spark.read_files``.

Layout: :mod:`.datasource` (the data source, its planning and partitions), :mod:`.filters` (Spark's pushed filters
as orcjit filters), :mod:`.types` (ORC types as Spark's, and the conversion of Arrow batches), :mod:`.helpers`,
:mod:`.paths` (which files a read takes) and :mod:`.zones`. It sits above the API: it may import
:class:`orcjit.ORCFile`, :mod:`orcjit.types`, :mod:`orcjit.pushdown` and :mod:`orcjit.timezones`, PySpark and pyarrow.
"""

from __future__ import annotations

import importlib
from typing import Any

from .._extras import MissingExtraError, require

require("spark", "orcjit.spark")
try:
    import pyspark.sql.datasource  # PySpark 4.0 added Python data sources
except ImportError:
    import pyspark

    raise MissingExtraError(
        f'orcjit.spark needs PySpark 4.0 or later, not {pyspark.__version__}: pip install "orcjit[spark]"',
        name="pyspark",
    ) from None

from .datasource import (  # noqa: E402
    NAME,
    PUSHDOWN_CONF,
    OrcjitDataSource,
    OrcjitPartition,
    OrcjitPushdownReader,
    OrcjitReader,
    pushdown_enabled,
    register,
    reuses_planned_reads,
)
from .paths import resolve_paths  # noqa: E402
from .types import arrow_schema, spark_schema, to_spark_batches  # noqa: E402

__all__ = [
    "NAME",
    "PUSHDOWN_CONF",
    "OrcjitDataSource",
    "OrcjitPartition",
    "OrcjitPushdownReader",
    "OrcjitReader",
    "arrow_schema",
    "pushdown_enabled",
    "register",
    "resolve_paths",
    "reuses_planned_reads",
    "spark_schema",
    "to_spark_batches",
]


def __getattr__(name: str) -> Any:
    # the mapInPandas / pandas_udf helpers (orcjit.spark.helpers) are reachable from here too, imported on first use
    if name.startswith("_") or name == "helpers":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        helpers = importlib.import_module(f"{__name__}.helpers")
    except ImportError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    if name in getattr(helpers, "__all__", ()):
        return getattr(helpers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
