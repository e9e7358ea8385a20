"""``OrcjitDataSource``: ORC files read by orcjit as a PySpark data source named ``orcjit``.

Spark runs a Python data source in Python worker processes, never in the driver's Python process: ``schema()``
and planning (``reader()``, ``pushFilters()``, ``partitions()``) in a worker beside the driver JVM, ``read()`` in
workers beside the executors. No ``SparkSession`` exists in them, so what the reader needs from the session (the
JVM's default time zone, the default parallelism, whether the JVM reuses planned reads) is captured by
:func:`register` in the driver and travels with the registered class; options override the first two.

Options
-------
``path`` / ``paths``
    Given by ``load(path)`` or ``load([p1, p2])``: files, directories (every file below them whose name matches
    ``pathGlobFilter``, skipping files and directories whose names start with ``_`` or ``.``, as Spark does), or
    glob patterns. Local paths (``file:`` URLs too) and URLs fsspec knows.
``columns``
    ``"a,b"``: read only these top-level columns, in this order (the Data Source API has no column pruning).
``partitions``
    The most partitions to plan. Default: the default parallelism captured by :func:`register` (else the number
    of CPUs).
``bytesPerPartition``
    Instead of ``partitions``: about this many bytes of stripe data per partition.
``pathGlobFilter``
    File names to take from directories; default ``*.orc`` (``*`` for Hive's files without an extension).
``timeZone``
    The zone whose wall clock an ORC ``timestamp`` (without time zone) is read in, as Spark's ORC reader reads it
    in the executors' JVM default time zone. Default: the driver JVM's default zone captured by :func:`register`,
    else the ``TZ`` of the Python process, else UTC.
``pushdown``
    ``false`` turns filter pushdown off for this read (default ``true``: take filters when Spark offers them and
    may do so safely).

Planning
--------
``partitions()`` opens each file's tail, checks that every file has the first file's schema, drops the stripes
that orcjit's statistics, row indexes and bloom filters rule out for the pushed filters
(:func:`orcjit.pushdown.plan.decide`, what a filtered read decides), and cuts the remaining stripes, in file
order, into contiguous runs of about equal bytes (stripe data length): each partition is a list of
``(path, [stripe, ...])`` pieces.

Filter pushdown
---------------
Needs PySpark 4.1+ and ``spark.sql.python.filterPushdown.enabled=true`` when Spark plans the read (the order of
:func:`register` and ``spark.conf.set`` does not matter). Spark refuses a reader that implements ``pushFilters``
while the setting is off, and tells only the planning worker it runs, so ``reader()`` returns
:class:`OrcjitPushdownReader` when Spark calls it to push filters and :class:`OrcjitReader` otherwise. Spark does
not re-apply the filters a reader accepts: orcjit filters rows exactly.

Spark 4.1 to 4.3 keep the read planned with pushed filters (its partitions and its pickled ``read``) on the data
source of the DataFrame, and a later query of the same DataFrame that pushes no filter Spark can serialise (none at
all, or only ``OR`` and expressions) runs that read again, without any Python call that could notice: it would
return the earlier query's rows. Nothing the executors see tells the two queries apart, so on those versions orcjit
takes no filters at all (Spark filters the rows, every stripe is read) and :func:`register` says so; see
:func:`reuses_planned_reads`. ``orcjit.spark.helpers.read_files(filters=...)`` still skips stripes on them.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from ..errors import OrcError
from ..orcfile import ORCFile
from ..pushdown.filters import normalize_filters
from ..pushdown.plan import decide
from ..types.resolve import name_list, resolve_column
from .paths import DEFAULT_GLOB, resolve_paths
from .types import SPARK_HIVE11_DECIMALS, arrow_schema, spark_schema, to_spark_batches
from .zones import check_zone, jvm_time_zone, local_zone, zone_name

if TYPE_CHECKING:
    from pyspark.sql.datasource import Filter  # PySpark 4.1+

__all__ = [
    "NAME",
    "PUSHDOWN_CONF",
    "OrcjitDataSource",
    "OrcjitPartition",
    "OrcjitPushdownReader",
    "OrcjitReader",
    "plan_partitions",
    "pushdown_enabled",
    "register",
    "reuses_planned_reads",
]

NAME = "orcjit"
PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"
LOG = logging.getLogger("orcjit.spark")
PUSHDOWN_OFF_MESSAGE = (
    "orcjit: filter pushdown is off (%s is not true): Spark filters the rows itself and every stripe is read. "
    'Turn it on with spark.conf.set("%s", "true").'
)
REUSED_READ_MESSAGE = (
    "orcjit: Spark %s reuses the read it planned with pushed filters for later queries of the same DataFrame, which "
    "would then get the earlier query's rows; so orcjit takes no filters from it: Spark filters the rows and every "
    "stripe is read. orcjit.spark.helpers.read_files(filters=...) in mapInPandas skips stripes."
)

_logged_pushdown_off = False  # in this process: the planning workers say it once each


def _option(options: Mapping[str, str], name: str, defaults: Mapping[str, str] | None = None) -> str | None:
    """An option by case-insensitive name (Spark's options are; a plain dict in tests may not be)."""
    wanted = name.lower()
    for key, value in options.items():
        if key.lower() == wanted:
            return value
    return (defaults or {}).get(name)


def _positive_int(options: Mapping[str, str], name: str, defaults: Mapping[str, str] | None = None) -> int | None:
    text = _option(options, name, defaults)
    if text is None or str(text).strip() == "":
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise OrcError(f"orcjit: option {name}={text!r} is not an integer") from None
    if value < 1:
        raise OrcError(f"orcjit: option {name}={text!r} must be 1 or more")
    return value


def _paths(options: Mapping[str, str]) -> list[str]:
    paths: list[str] = []
    many = _option(options, "paths")
    if many:
        parsed = json.loads(many) if many.lstrip().startswith("[") else [many]
        paths += [str(p) for p in parsed]
    one = _option(options, "path")
    if one and one not in paths:
        paths.insert(0, one)
    if not paths:
        raise OrcError('orcjit: no path given: spark.read.format("orcjit").load(path)')
    return paths


def _columns(options: Mapping[str, str]) -> list[str] | None:
    return name_list(_option(options, "columns"), "orcjit: option columns=")


# -- pushdown --------------------------------------------------------------------------------------------------------


def pushdown_enabled(spark: Any) -> bool:
    """Whether ``spark.sql.python.filterPushdown.enabled`` is true in the session ``spark``."""
    try:
        value = spark.conf.get(PUSHDOWN_CONF, "false")
    except Exception:  # a session that does not know the setting (PySpark before 4.1)
        return False
    return str(value).strip().lower() == "true"


def reuses_planned_reads(version: str) -> bool:
    """Whether Spark ``version`` runs a read planned with pushed filters again for a later query of the same
    DataFrame that pushes none, returning the earlier query's rows.

    PySpark 4.1 added filter pushdown with the planned read (partitions and pickled ``read``) kept on the
    DataFrame's data source, not on the scan: ``PythonScanBuilder.pushFilters`` stores it with
    ``PythonDataSourceV2.setReadInfo`` when some filter can be sent to Python, and ``PythonBatch`` takes
    ``PythonDataSourceV2.getOrCreateReadInfo``, which plans only when nothing is stored. 4.3.0 still does. Unknown
    versions count as affected; before 4.1 there is no pushdown to leak. ``tests/test_spark_pushdown.py`` checks
    this against the Spark it runs, so that a release with the read kept in the scan gets an upper bound here.
    """
    match = re.match(r"\s*(\d+)\.(\d+)", version)
    if match is None:
        return True
    return (int(match.group(1)), int(match.group(2))) >= (4, 1)


def _pushdown_possible(defaults: Mapping[str, str]) -> bool:
    """Whether orcjit may take filters from this Spark at all: PySpark 4.1+, and no planned read reused."""
    if not hasattr(DataSourceReader, "pushFilters"):
        return False  # PySpark 4.0
    reused = defaults.get("reusesPlannedReads")
    if reused is None:  # registered without register(): judge by the planning worker's PySpark
        import pyspark

        return not reuses_planned_reads(pyspark.__version__)
    return reused != "true"


def _planning_pushdown() -> bool | None:
    """Whether the Spark worker planning this read has filter pushdown on; None outside Spark's workers.

    Spark hands the setting to its planning worker but not to the data source, and runs a separate worker to push
    filters: the workers' own frames tell. This reads PySpark internals; when they change, the answer is None and
    orcjit takes no filters (the rows stay right; stripes are not skipped).
    """
    frame = sys._getframe(1)
    for _ in range(12):
        frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return None
        module = frame.f_globals.get("__name__", "")
        if module == "pyspark.sql.worker.data_source_pushdown_filters":
            return True  # Spark only runs this worker with pushdown on
        if module == "pyspark.sql.worker.plan_data_source_read" and "enable_pushdown" in frame.f_locals:
            return bool(frame.f_locals["enable_pushdown"])
    return None


def _pushdown_option(options: Mapping[str, str]) -> bool:
    text = _option(options, "pushdown")
    if text is None:
        return True
    value = str(text).strip().lower()
    if value not in ("true", "false"):
        raise OrcError(f"orcjit: option pushdown={text!r} must be true or false")
    return value == "true"


def _log_pushdown_off() -> None:
    global _logged_pushdown_off
    if not _logged_pushdown_off:
        _logged_pushdown_off = True
        LOG.warning(PUSHDOWN_OFF_MESSAGE, PUSHDOWN_CONF, PUSHDOWN_CONF)


# -- partitions ------------------------------------------------------------------------------------------------------


class OrcjitPartition(InputPartition):
    """Stripes to read: ``pieces`` lists ``(path, [stripe index, ...])``; ``nbytes`` is their stripe data."""

    def __init__(self, pieces: list[tuple[str, list[int]]], nbytes: int) -> None:
        self.pieces = pieces
        self.nbytes = nbytes


def plan_partitions(units: Sequence[tuple[str, int, int]], count: int) -> list[OrcjitPartition]:
    """Cut ``(path, stripe, bytes)`` units, in order, into ``min(count, len(units))`` contiguous runs of about
    equal bytes.

    Runs are cut greedily: a run ends before the unit whose middle would take it past its share (the bytes left
    over the runs left), and wherever the units left are only enough for one run each. Runs stay in file and
    stripe order, so each reads ranges of stripes.
    """
    if not units:
        return []
    count = max(1, min(count, len(units)))
    groups: list[list[tuple[str, int, int]]] = [[]]
    left = sum(u[2] for u in units)
    done = 0  # bytes of the current run
    for i, unit in enumerate(units):
        runs_left = count - len(groups) + 1  # the current run included
        if groups[-1] and runs_left > 1:
            share = left / runs_left
            if len(units) - i < runs_left or done + unit[2] / 2 > share:
                left -= done
                groups.append([])
                done = 0
        groups[-1].append(unit)
        done += unit[2]
    out = []
    for group in groups:
        pieces: list[tuple[str, list[int]]] = []
        for path, stripe, _ in group:
            if pieces and pieces[-1][0] == path:
                pieces[-1][1].append(stripe)
            else:
                pieces.append((path, [stripe]))
        out.append(OrcjitPartition(pieces, sum(u[2] for u in group)))
    return out


# -- readers ---------------------------------------------------------------------------------------------------------


class OrcjitReader(DataSourceReader):
    """Reads the files of one ``spark.read.format("orcjit")`` query; pickled from the planner to the executors.

    Parameters
    ----------
    files : list of str
        The files, as :func:`resolve_paths` gives them.
    schema : pyspark.sql.types.StructType
        The schema Spark asks for: top-level columns of the files, by name.
    time_zone : str
        The zone ORC ``timestamp`` wall clocks are read in (see :func:`orcjit.spark.types.orc_timestamp_micros`).
    partitions : int
        The most partitions to plan.
    bytes_per_partition : int, optional
        If given, plan about this many bytes of stripe data per partition instead.
    """

    def __init__(
        self,
        files: list[str],
        schema: StructType,
        *,
        time_zone: str = "UTC",
        partitions: int = 1,
        bytes_per_partition: int | None = None,
    ) -> None:
        if not files:
            raise OrcError("orcjit: no files to read")
        self.files = list(files)
        self.schema = schema
        self.columns = schema.fieldNames()
        self.time_zone = check_zone(time_zone)
        self.max_partitions = partitions
        self.bytes_per_partition = bytes_per_partition
        self.filters: list[list[tuple[str, str, Any]]] | None = None
        with ORCFile(self.files[0]) as f:
            self._expected = self._signature(f)
            try:
                spark_schema(f.schema, self.columns)  # every column named, once, by the rule reads use
            except OrcError as exc:
                raise OrcError(f"orcjit: {self.files[0]}: {exc}") from None

    def _signature(self, f: ORCFile) -> tuple[str, str]:
        return str(f.schema), spark_schema(f.schema).json()

    def _check_schema(self, path: str, f: ORCFile) -> None:
        if self._signature(f) != self._expected:
            raise OrcError(
                f"orcjit: {path} has schema {f.schema}, other than {self._expected[0]} of {self.files[0]}: "
                "all files of one read must have the same schema"
            )

    def partitions(self) -> list[InputPartition]:
        """Plan the read: the stripes that may hold matching rows, in runs balanced by bytes."""
        units: list[tuple[str, int, int]] = []
        for path in self.files:
            with ORCFile(path) as f:
                self._check_schema(path, f)
                indices = list(range(f.nstripes))
                if self.filters and indices:
                    _, decisions = decide(f.meta, normalize_filters(self.filters, f.schema), indices)
                    indices = [d.index for d in decisions if d.keep]
                stripes = f.stripes
                units += [(path, i, stripes[i].data_length) for i in indices]
        if self.bytes_per_partition:
            count = math.ceil(sum(b for _, _, b in units) / self.bytes_per_partition)
        else:
            count = self.max_partitions
        return list(plan_partitions(units, count))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Yield the partition's rows as Arrow record batches of exactly Spark's Arrow schema."""
        if not isinstance(partition, OrcjitPartition):
            return  # Spark's one empty partition when planning found nothing to read
        target = arrow_schema(self.schema)
        for path, stripes in partition.pieces:
            with ORCFile(path) as f:
                fields = [(name, resolve_column(f.schema, name)) for name in self.columns]
                wall_clocks = any(n.kind == "timestamp" for _, node in fields for n in node.walk())
                for i in stripes:
                    table = f.read_arrow(
                        self.columns, filters=self.filters, stripes=[i], hive11_decimals=SPARK_HIVE11_DECIMALS.name
                    )
                    zone = f.stripe_footer(i).writer_timezone if wall_clocks else None
                    yield from to_spark_batches(
                        table, fields, target, writer_zone=zone, reader_zone=self.time_zone, writer=f.writer
                    )


class OrcjitPushdownReader(OrcjitReader):
    """:class:`OrcjitReader` with filter pushdown (Spark calls ``pushFilters`` before ``partitions``)."""

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:
        """Take the filters orcjit applies exactly; give back the others, for Spark to apply."""
        from .filters import translate

        with ORCFile(self.files[0]) as f:
            accepted, rejected = translate(filters, f.schema, timezone=self.time_zone)
        self.filters = accepted or None
        left = {id(r) for r in rejected}
        return iter([f for f in filters if id(f) in left])


# -- the data source -------------------------------------------------------------------------------------------------


class OrcjitDataSource(DataSource):
    """ORC files read with orcjit: ``spark.read.format("orcjit").load(path)`` (see the module docstring).

    Register it with :func:`register`, which also records the driver's JVM time zone and default parallelism.
    """

    # filled by register() on the class it registers: options every read of that session starts from
    defaults: ClassVar[dict[str, str]] = {}

    @classmethod
    def name(cls) -> str:
        """``"orcjit"``."""
        return NAME

    def _files(self) -> list[str]:
        files = getattr(self, "_resolved", None)
        if files is None:
            pattern = _option(self.options, "pathGlobFilter") or DEFAULT_GLOB
            files = resolve_paths(_paths(self.options), pattern)
            self._resolved = files
        return files

    def schema(self) -> StructType:
        """The Spark schema of the first file (and of every other one), limited to the ``columns`` option."""
        files = self._files()
        with ORCFile(files[0]) as f:
            try:
                return spark_schema(f.schema, _columns(self.options))
            except ValueError as exc:
                raise OrcError(f"orcjit: {files[0]}: {exc}") from None

    def reader(self, schema: StructType) -> OrcjitReader:
        """A reader for ``schema``: :class:`OrcjitPushdownReader` when Spark plans to push filters and may do so
        safely (see the module docstring), else :class:`OrcjitReader`."""
        defaults = type(self).defaults
        zone = _option(self.options, "timeZone", defaults) or local_zone()
        partitions = _positive_int(self.options, "partitions", defaults) or os.cpu_count() or 1
        per_partition = None
        if _option(self.options, "partitions") is None:
            per_partition = _positive_int(self.options, "bytesPerPartition", defaults)
        cls: type[OrcjitReader] = OrcjitReader
        # the setting as Spark plans this read (not as it was at register()); never on a Spark that would reuse
        # the filtered read for another query
        if _pushdown_option(self.options) and _pushdown_possible(defaults):
            state = _planning_pushdown()
            if state is False:
                _log_pushdown_off()
            elif state:
                cls = OrcjitPushdownReader
        return cls(self._files(), schema, time_zone=zone, partitions=partitions, bytes_per_partition=per_partition)


def _default_parallelism(spark: Any) -> int | None:
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:
        pass  # Spark Connect has no SparkContext
    try:
        value = spark.conf.get("spark.default.parallelism", None)
        return int(value) if value else None
    except Exception:
        return None


def register(spark: Any, *, time_zone: str | None = None) -> type[OrcjitDataSource]:
    """Register the ``orcjit`` data source with the session ``spark``.

    Records the driver JVM's default time zone (in which Spark's own ORC reader reads ``timestamp`` wall clocks;
    else the session time zone), the default parallelism and whether this Spark reuses planned reads (see
    :func:`reuses_planned_reads`) for every read, and logs a warning on the ``orcjit.spark`` logger when it does,
    because orcjit then takes no filters from Spark. Filter pushdown itself is decided when Spark plans each read,
    so ``spark.sql.python.filterPushdown.enabled`` may be set before or after this call.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
    time_zone : str, optional
        Instead of the JVM's default zone: the ``timeZone`` every read defaults to.

    Returns
    -------
    type
        The registered subclass of :class:`OrcjitDataSource`.

    Examples
    --------
    >>> orcjit.spark.register(spark)  # doctest: +SKIP
    >>> spark.read.format("orcjit").option("columns", "id,name").load("/data/events/").show()  # doctest: +SKIP
    """
    if time_zone is not None:
        zone = check_zone(time_zone)
    else:
        candidates = [jvm_time_zone(spark), str(spark.conf.get("spark.sql.session.timeZone", "UTC"))]
        zone = next((z for z in map(zone_name, candidates) if z), "UTC")
    reused = reuses_planned_reads(str(spark.version))  # the JVM's version: the planned read is kept there
    defaults = {"timeZone": zone, "reusesPlannedReads": "true" if reused else "false"}
    parallelism = _default_parallelism(spark)
    if parallelism:
        defaults["partitions"] = str(parallelism)
    # a class made here travels by value (cloudpickle), with its defaults, to Spark's Python workers
    registered = type(
        "OrcjitDataSource",
        (OrcjitDataSource,),
        {"defaults": defaults, "__module__": __name__, "__qualname__": "register.<locals>.OrcjitDataSource"},
    )
    spark.dataSource.register(registered)
    if reused:
        LOG.warning(REUSED_READ_MESSAGE, spark.version)
    return registered
