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
    File names to take from directories; default every file, as ``spark.read.orc`` (Hive names its files
    ``000000_0``); ``*.orc`` for only those.
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

from ..dataset.discovery import Discovered, FoundFile
from ..dataset.files import DatasetMeta
from ..dataset.partitioning import PartitionColumn
from ..dataset.scan import SKIP, file_filters
from ..dataset.schema import FileColumns
from ..errors import OrcError
from ..orcfile import ORCFile
from ..pushdown.filters import normalize_filters
from ..pushdown.plan import decide
from ..types.resolve import name_list, resolve_column, top_level_fields
from ..types.schema import TypeNode
from .partitions import OrcjitPartition, plan_partitions
from .paths import FoundFiles, find_files, partition_array, with_partitions
from .prefetch import prefetched
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


# -- readers ---------------------------------------------------------------------------------------------------------


class OrcjitReader(DataSourceReader):
    """Reads the files of one ``spark.read.format("orcjit")`` query; pickled from the planner to the executors.

    Parameters
    ----------
    files : list of str
        The files, as :func:`orcjit.spark.paths.find_files` gives them (sorted by path).
    schema : pyspark.sql.types.StructType
        The schema Spark asks for: top-level columns of the files and partition columns, by name.
    time_zone : str
        The zone ORC ``timestamp`` wall clocks (and partition timestamps) are read in (see
        :func:`orcjit.spark.types.orc_timestamp_micros`).
    partitions : int
        The most partitions to plan.
    bytes_per_partition : int, optional
        If given, plan about this many bytes of stripe data per partition instead.
    partition_columns : sequence of PartitionColumn
        The partition columns of the files' ``key=value`` folders.
    partition_values : sequence of tuple, optional
        Each file's partition values, in the order of ``files``.
    """

    def __init__(
        self,
        files: list[str],
        schema: StructType,
        *,
        time_zone: str = "UTC",
        partitions: int = 1,
        bytes_per_partition: int | None = None,
        partition_columns: Sequence[PartitionColumn] = (),
        partition_values: Sequence[tuple[Any, ...]] | None = None,
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
        self.partition_columns = list(partition_columns)
        values = list(partition_values) if partition_values is not None else [() for _ in self.files]
        self.partition_values = dict(zip(self.files, values, strict=True))
        taken = {p.name for p in self.partition_columns}
        # the columns the files store; partition columns come from the folders (even where a file stores one too)
        self.data_columns = [name for name in self.columns if name not in taken]
        with ORCFile(self.files[0]) as f:
            self._expected = self._signature(f.schema)
            try:
                spark_schema(f.schema, self.data_columns)  # every column named, once, by the rule reads use
            except OrcError as exc:
                raise OrcError(f"orcjit: {self.files[0]}: {exc}") from None
            self.file_schema = f.schema
            self.tree = with_partitions(f.schema, self.partition_columns)

    def _signature(self, schema: TypeNode) -> tuple[str, str]:
        return str(schema), spark_schema(schema).json()

    def _check_schema(self, path: str, schema: TypeNode) -> None:
        if self._signature(schema) != self._expected:
            raise OrcError(
                f"orcjit: {path} has schema {schema}, other than {self._expected[0]} of {self.files[0]}: "
                "all files of one read must have the same schema"
            )

    def _dataset(self) -> DatasetMeta:
        """The files as the dataset layer sees them, without their tails: enough to decide the filters on
        partition columns per file (every file has the first file's columns, which :meth:`partitions` checks on
        the files it opens)."""
        taken = {p.name for p in self.partition_columns}
        stored = {name: node for name, node in top_level_fields(self.file_schema) if name not in taken}
        found = Discovered([FoundFile(path, 0) for path in self.files])
        values = [self.partition_values[path] for path in self.files]
        columns = [FileColumns(stored) for _ in self.files]
        return DatasetMeta(found, [], self.tree, columns, self.partition_columns, values)

    def partitions(self) -> list[InputPartition]:
        """Plan the read: the files whose partition values may match the pushed filters (the others are not
        opened), and of those the stripes that may hold matching rows, in runs balanced by bytes."""
        dataset = self._dataset()
        predicates = normalize_filters(self.filters, self.tree) if self.filters else None
        units: list[tuple[str, int, int]] = []
        per_file: dict[str, list[list[tuple[Any, ...]]] | None] = {}
        for index, path in enumerate(self.files):
            left = file_filters(dataset, index, predicates)
            if left == SKIP:
                continue  # its partition values rule out every row: not opened
            assert not isinstance(left, str)
            per_file[path] = left
            with ORCFile(path) as f:
                self._check_schema(path, f.schema)
                indices = list(range(f.nstripes))
                if left and indices:
                    _, decisions = decide(f.meta, normalize_filters(left, f.schema), indices)
                    indices = [d.index for d in decisions if d.keep]
                stripes = f.stripes
                units += [(path, i, stripes[i].data_length) for i in indices]
        if self.bytes_per_partition:
            count = math.ceil(sum(b for _, _, b in units) / self.bytes_per_partition)
        else:
            count = self.max_partitions
        planned = plan_partitions(units, count)
        for part in planned:
            part.file_filters = {path: per_file[path] for path, _ in part.pieces}
        return list(planned)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Yield the partition's rows as Arrow record batches of exactly Spark's Arrow schema.

        Each stripe's batches are made while Spark takes the previous stripe's (:func:`prefetched`): decoding
        and converting release the GIL, so they overlap with the worker sending batches to the JVM.
        """
        if not isinstance(partition, OrcjitPartition):
            return  # Spark's one empty partition when planning found nothing to read
        for batches in prefetched(self._stripe_batches(partition)):
            yield from batches

    def _stripe_batches(self, partition: OrcjitPartition) -> Iterator[list[pa.RecordBatch]]:
        """The batches of each stripe of ``partition`` in turn, each stripe's all at once."""
        target = arrow_schema(self.schema)
        stored = arrow_schema(StructType([self.schema[name] for name in self.data_columns]))
        for path, stripes in partition.pieces:
            filters = partition.file_filters.get(path, self.filters)
            with ORCFile(path) as f:
                fields = [(name, resolve_column(f.schema, name)) for name in self.data_columns]
                wall_clocks = any(n.kind == "timestamp" for _, node in fields for n in node.walk())
                for i in stripes:
                    table = f.read_arrow(
                        self.data_columns, filters=filters, stripes=[i], hive11_decimals=SPARK_HIVE11_DECIMALS.name
                    )
                    zone = f.stripe_footer(i).writer_timezone if wall_clocks else None
                    if not self.partition_columns:
                        yield list(
                            to_spark_batches(
                                table, fields, target, writer_zone=zone, reader_zone=self.time_zone, writer=f.writer
                            )
                        )
                    elif not fields:  # only partition columns asked for: the rows' count is all the file gives
                        empty = pa.RecordBatch.from_pydict({})
                        yield [self._with_partitions(empty, table.num_rows, path, target)] if table.num_rows else []
                    else:
                        yield [
                            self._with_partitions(batch, batch.num_rows, path, target)
                            for batch in to_spark_batches(
                                table, fields, stored, writer_zone=zone, reader_zone=self.time_zone, writer=f.writer
                            )
                        ]

    def _with_partitions(self, batch: pa.RecordBatch, rows: int, path: str, target: pa.Schema) -> pa.RecordBatch:
        """``batch`` of the stored columns with the file's partition values added, in the order Spark asked."""
        values = dict(zip((p.name for p in self.partition_columns), self.partition_values[path], strict=True))
        arrays = [
            partition_array(self.schema[name], values[name], rows, self.time_zone)
            if name in values
            else batch.column(self.data_columns.index(name))
            for name in self.columns
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=target)


class OrcjitPushdownReader(OrcjitReader):
    """:class:`OrcjitReader` with filter pushdown (Spark calls ``pushFilters`` before ``partitions``)."""

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:
        """Take the filters orcjit applies exactly; give back the others, for Spark to apply.

        Filters on partition columns are taken (planning decides them per file, from its folder values), except
        on timestamp partition columns, whose wall clocks orcjit does not compare with Spark's instants.
        """
        from .filters import translate

        stamps = {(p.name,) for p in self.partition_columns if p.kind == "timestamp"}
        offered = [f for f in filters if not stamps & _references(f)]
        accepted, rejected = translate(offered, self.tree, timezone=self.time_zone)
        self.filters = accepted or None
        left = {id(r) for r in rejected} | {id(f) for f in filters if stamps & _references(f)}
        return iter([f for f in filters if id(f) in left])


def _references(spark_filter: Any) -> set[tuple[str, ...]]:
    """The column paths a Spark filter names (its ``attribute``, or its children's)."""
    found: set[tuple[str, ...]] = set()
    attribute = getattr(spark_filter, "attribute", None)
    if attribute is not None:
        found.add(tuple(attribute))
    for name in ("child", "left", "right"):
        child = getattr(spark_filter, name, None)
        if child is not None:
            found |= _references(child)
    return found


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

    def _found(self) -> FoundFiles:
        found = getattr(self, "_resolved", None)
        if found is None:
            found = find_files(_paths(self.options), _option(self.options, "pathGlobFilter"))
            self._resolved = found
        return found

    def schema(self) -> StructType:
        """The Spark schema of the first file (and of every other one), then the partition columns of the files'
        ``key=value`` folders as ``spark.read.orc`` types them; limited to the ``columns`` option."""
        found = self._found()
        with ORCFile(found.paths[0]) as f:
            try:
                return spark_schema(with_partitions(f.schema, found.partitions), _columns(self.options))
            except ValueError as exc:
                raise OrcError(f"orcjit: {found.paths[0]}: {exc}") from None

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
        found = self._found()
        return cls(
            found.paths,
            schema,
            time_zone=zone,
            partitions=partitions,
            bytes_per_partition=per_partition,
            partition_columns=found.partitions,
            partition_values=found.values,
        )


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
