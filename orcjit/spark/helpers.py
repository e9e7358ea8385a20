"""Spark helpers that work without the data source: decode ORC files inside ``mapInPandas`` (or ``mapInArrow``),
and ask which files may hold a key without reading their data.

Reading a DataFrame of files
----------------------------
Any DataFrame with a ``path`` column (and optionally a ``stripe`` column: then each row is one stripe of that
file) can be turned into the files' rows. Each task decodes one stripe at a time, so its memory is bounded by
one stripe; ``filters`` (orcjit's DNF filters) skip stripes and row groups by statistics and bloom filters and
keep exactly the matching rows::

    import orcjit.spark.helpers as oh

    files = ["/data/events/part-0.orc", "/data/events/part-1.orc"]  # or a directory, or a glob
    units = spark.createDataFrame(oh.stripe_units(files))  # path, stripe, rows, bytes: one row per stripe
    units = units.repartition(spark.sparkContext.defaultParallelism)  # spread the stripes over tasks
    rows = units.mapInPandas(
        oh.read_files(columns=["id", "ts"], filters=[("id", "<", 1000)]),
        schema=oh.files_schema(files, columns=["id", "ts"]),
    )

The pandas DataFrames :func:`read_files` yields are built for Spark's pandas-to-Arrow conversion of the declared
schema (which :func:`files_schema` gives, as ``spark.read.orc`` types the files): integers, booleans, floats,
decimals and dates as ``pandas.ArrowDtype`` columns of exactly Spark's Arrow types (nulls stay nulls, NaN stays
NaN), strings as pandas' default string column, binary as ``bytes`` objects, ``TimestampType`` as
``datetime64[us, UTC]``, ``TimestampNTZType`` as ``datetime64[us]``, day-time intervals as ``timedelta64[us]``,
arrays, maps and structs as Python lists, dicts and dicts (``None`` for null). ORC ``timestamp`` wall clocks are
read in the driver JVM's default time zone, as ``spark.read.orc`` reads them (see
:func:`orcjit.spark.types.orc_timestamp_micros`).

Two things pandas cannot carry into Spark: a NaN inside an array, map or struct becomes null (Spark converts
nested values with pandas' null semantics), and a map with repeated keys keeps the last (maps travel as dicts).
:func:`read_files_arrow` for ``mapInArrow`` has neither problem and skips pandas altogether::

    rows = units.mapInArrow(oh.read_files_arrow(), schema=oh.files_schema(files))

Which files may contain a key
-----------------------------
:func:`might_contain` answers, per file, whether it may hold ``column == value`` by file and stripe statistics,
row-group statistics and bloom filters -- orcjit's pruning, reading only metadata and indexes. Inside a
``pandas_udf`` it probes the files of each batch in parallel threads::

    import pandas as pd
    from pyspark.sql.functions import pandas_udf
    from orcjit.spark import resolve_paths

    @pandas_udf("boolean")
    def may_hold_user_42(paths: pd.Series) -> pd.Series:
        return oh.might_contain(paths, "user_id", 42)

    files = resolve_paths(["/data/events"])  # the ORC files below the folder
    paths = spark.createDataFrame(pd.DataFrame({"path": files}))
    candidates = paths.where(may_hold_user_42("path"))  # files that may hold user 42; the others surely do not
    rows = candidates.mapInPandas(oh.read_files(filters=[("user_id", "==", 42)]), oh.files_schema("/data/events"))

A file answers False only when orcjit can prove no row has the value; a bloom filter's false positive, or a file
without bloom filters on the column, answers True.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd
import pyarrow as pa
from pyspark.sql.types import StructType

from ..errors import OrcError
from ..orcfile import ORCFile
from ..pushdown.filters import normalize_filters
from ..pushdown.plan import decide
from ..types.resolve import resolve_column, top_level_fields
from ..types.schema import TypeNode
from .paths import carried_array, find_files, with_partitions
from .types import SPARK_HIVE11_DECIMALS, arrow_schema, spark_schema, to_spark_batches
from .zones import check_zone, jvm_time_zone, local_zone

__all__ = [
    "files_schema",
    "might_contain",
    "read_files",
    "read_files_arrow",
    "stripe_units",
    "to_spark_pandas",
]

DEFAULT_BATCH_ROWS = 10_000  # Spark's own default for Arrow batches (spark.sql.execution.arrow.maxRecordsPerBatch)
DEFAULT_WORKERS = 8

PathsArg = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


# -- paths -----------------------------------------------------------------------------------------------------------


def _open_path(path: str) -> str:
    """What ``ORCFile`` opens for a path as Spark shows paths: ``file:`` URLs (percent-encoded, as Spark's
    ``input_file_name()`` and ``_metadata.file_path`` give them) become local paths; other URLs stay for fsspec."""
    if path.startswith("file:"):
        parsed = urllib.parse.urlparse(path)
        return urllib.parse.unquote(parsed.path)
    return path


def _path_list(paths: PathsArg) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _map_threads(func: Callable[[str], Any], items: Sequence[str], max_workers: int) -> list[Any]:
    if max_workers < 1:
        raise OrcError(f"max_workers must be 1 or more, got {max_workers}")
    if len(items) <= 1 or max_workers == 1:
        return [func(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(max_workers, len(items))) as pool:
        return list(pool.map(func, items))


UNIT_COLUMNS = ("path", "stripe", "rows", "bytes")


def stripe_units(paths: PathsArg, *, pattern: str | None = None, max_workers: int = DEFAULT_WORKERS) -> pd.DataFrame:
    """One row per stripe of the ORC files under ``paths``: the units :func:`read_files` reads.

    Parameters
    ----------
    paths : str, path-like, or iterable of them
        Files, directories (listed recursively, skipping names that start with ``_`` or ``.`` and empty files,
        as ``spark.read.orc`` does) or glob patterns; local paths, ``file:`` URLs or URLs fsspec knows (see
        :func:`orcjit.spark.resolve_paths`). Hive-style ``key=value`` folders give partition columns.
    pattern : str, optional
        Names of the files taken from directories and globs (``fnmatch``, Spark's ``pathGlobFilter``); by default
        every file.
    max_workers : int
        Files whose tails are read at once.

    Returns
    -------
    pandas.DataFrame
        Columns ``path`` (as found), ``stripe`` (its number in the file), ``rows`` and ``bytes`` (the stripe's
        length in the file: indexes, data and footer), all but ``path`` int64, then the file's partition values,
        one column per partition column (Python objects, ``None`` for a null partition), which
        :func:`read_files` carries into its rows. ``spark.createDataFrame`` of an unpartitioned directory's
        units is a DataFrame of ``path: string, stripe: bigint, rows: bigint, bytes: bigint``.

    Raises
    ------
    FileNotFoundError
        If a path does not exist or no file is found.
    orcjit.OrcError
        If a file is not ORC or its tail is corrupt, or the files sit under different partition keys.
    """
    found = find_files(_path_list(paths), pattern)
    values = found.values_by_path()

    def units(path: str) -> list[tuple[str, int, int, int]]:
        with ORCFile(_open_path(path)) as f:
            return [(path, s.index, s.rows, s.length) for s in f.stripes]

    rows = [unit for per_file in _map_threads(units, found.paths, max_workers) for unit in per_file]
    frame = pd.DataFrame(
        {
            "path": pd.Series([u[0] for u in rows], dtype=str),  # object in pandas 2, str in pandas 3
            "stripe": pd.Series([u[1] for u in rows], dtype="int64"),
            "rows": pd.Series([u[2] for u in rows], dtype="int64"),
            "bytes": pd.Series([u[3] for u in rows], dtype="int64"),
        }
    )
    for i, column in enumerate(found.partitions):
        # Python objects, so that a null stays None (not NaN) and Spark infers each value's own type
        frame[column.name] = pd.Series([values[u[0]][i] for u in rows], dtype=object)
    return frame


def files_schema(paths: PathsArg, columns: Sequence[str] | None = None, *, pattern: str | None = None) -> StructType:
    """The Spark schema of the rows :func:`read_files` gives for ``paths``: the first file's columns, then the
    partition columns of the files' ``key=value`` folders, as ``spark.read.orc`` types them.

    Parameters
    ----------
    paths : str, path-like, or iterable of them
        As in :func:`stripe_units`; only the first file is opened.
    columns : sequence of str, optional
        Top-level columns (partition columns too), in the order wanted (as ``read_files(columns=...)``).
    pattern : str, optional
        As in :func:`stripe_units`.

    Returns
    -------
    pyspark.sql.types.StructType
        The types ``spark.read.orc`` gives (:func:`orcjit.spark.types.spark_schema`).
    """
    found = find_files(_path_list(paths), pattern)
    first = found.paths[0]
    with ORCFile(_open_path(first)) as f:
        try:
            return spark_schema(with_partitions(f.schema, found.partitions), columns)
        except ValueError as exc:
            raise OrcError(f"{first}: {exc}") from None


# -- reading ---------------------------------------------------------------------------------------------------------


def _reader_zone(time_zone: str | None) -> str:
    """The zone ORC ``timestamp`` wall clocks are read in: given, else the driver JVM's default zone (what
    ``spark.read.orc`` uses), else the session's, else this process's."""
    if time_zone:
        return check_zone(time_zone)
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    zone = jvm_time_zone(spark) if spark is not None else None
    if not zone and spark is not None:
        zone = str(spark.conf.get("spark.sql.session.timeZone"))
    return check_zone(zone or local_zone())


Layout = tuple[list[str], list[tuple[str, TypeNode]], pa.Schema, bool]


class _StripeReader:
    """Reads stripes as Spark-layout Arrow batches, keeping the last file open for the next unit of the same
    file (path/stripe rows of one file usually arrive together).

    Columns the input rows carry besides ``path``, ``stripe``, ``rows`` and ``bytes`` (the partition values
    :func:`stripe_units` gives) are the file's values of those columns, as folders are in Spark: they win over a
    column the file stores under the same name.
    """

    def __init__(
        self,
        columns: list[str] | None,
        filters: Any,
        schema: StructType | None,
        zone: str,
    ) -> None:
        self.columns = columns
        self.filters = filters
        self.schema = schema
        self.zone = zone
        self._key: tuple[str, tuple[str, ...]] | None = None
        self._file: ORCFile | None = None
        self._layout: Layout = ([], [], pa.schema([]), False)

    def _open(self, path: str, given: tuple[str, ...]) -> ORCFile:
        if self._file is None or self._key != (path, given):
            self.close()
            f = ORCFile(_open_path(path))
            try:
                self._layout = self._plan(path, f, given)
            except BaseException:
                f.close()
                raise
            self._file, self._key = f, (path, given)
        return self._file

    def _plan(self, path: str, f: ORCFile, given: tuple[str, ...]) -> Layout:
        """The columns to output, the stored ones with their ORC types, their Arrow target, and whether any is
        an ORC ``timestamp`` (which needs the stripe's writer time zone)."""
        if self.columns is not None:
            names = list(self.columns)
        elif self.schema is not None:
            names = self.schema.fieldNames()
        else:
            names = [n for n, _ in top_level_fields(f.schema) if n not in given] + list(given)
        stored = [n for n in names if n not in given]
        try:
            declared = spark_schema(f.schema, stored)
        except ValueError as exc:
            raise OrcError(f"{path}: {exc}") from None
        if self.schema is not None:
            wanted = {field.name: field for field in self.schema.fields}
            if names != self.schema.fieldNames() or _types(declared) != _types(StructType([wanted[n] for n in stored])):
                raise OrcError(
                    f"{path}: its columns {declared.simpleString()} (with {', '.join(given) or 'no'} partition "
                    f"columns) are not the declared {self.schema.simpleString()}: all files must have the schema "
                    "given to read_files"
                )
        fields = [(name, resolve_column(f.schema, name)) for name in stored]
        wall_clocks = any(n.kind == "timestamp" for _, node in fields for n in node.walk())
        return names, fields, arrow_schema(declared), wall_clocks

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = None
        self._key = None

    def batches(self, path: str, stripe: int | None, given: dict[str, Any]) -> Iterator[pa.RecordBatch]:
        f = self._open(path, tuple(given))
        names, fields, target, wall_clocks = self._layout
        stored = [name for name, _ in fields]
        for i in range(f.nstripes) if stripe is None else [stripe]:
            table = f.read_arrow(stored, filters=self.filters, stripes=[i], hive11_decimals=SPARK_HIVE11_DECIMALS.name)
            if not given:
                zone = f.stripe_footer(i).writer_timezone if wall_clocks else None
                yield from to_spark_batches(
                    table, fields, target, writer_zone=zone, reader_zone=self.zone, writer=f.writer
                )
                continue
            if not fields:  # only partition columns: the stripe gives the count of its (filtered) rows
                if table.num_rows:
                    yield self._joined(names, pa.RecordBatch.from_pydict({}), table.num_rows, stored, given)
                continue
            zone = f.stripe_footer(i).writer_timezone if wall_clocks else None
            for batch in to_spark_batches(
                table, fields, target, writer_zone=zone, reader_zone=self.zone, writer=f.writer
            ):
                yield self._joined(names, batch, batch.num_rows, stored, given)

    def _joined(
        self, names: list[str], batch: pa.RecordBatch, rows: int, stored: list[str], given: dict[str, Any]
    ) -> pa.RecordBatch:
        """The stored columns of ``batch`` and the input's values, in the order of ``names``."""
        arrays = []
        fields = []
        for name in names:
            if name in given:
                field = self.schema[name] if self.schema is not None else None
                array = carried_array(field, given[name], rows, self.zone)
                fields.append(pa.field(name, array.type))
            else:
                array = batch.column(stored.index(name))
                fields.append(batch.schema.field(stored.index(name)))
            arrays.append(array)
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def _types(schema: StructType) -> list[tuple[str, str]]:
    """Names and types, without nullability or metadata (a declared schema may say ``not null``)."""
    return [(f.name, f.dataType.simpleString()) for f in schema.fields]


def _units(frames: Iterator[Any], to_frame: Callable[[Any], pd.DataFrame]) -> Iterator[tuple[str, int | None, dict]]:
    """``(path, stripe or None, the row's other values)`` for each row of the input batches."""
    for batch in frames:
        frame = to_frame(batch)
        if "path" not in frame.columns:
            raise OrcError(f"the input DataFrame needs a 'path' column; it has {', '.join(map(str, frame.columns))}")
        paths = frame["path"].tolist()
        stripes = frame["stripe"].tolist() if "stripe" in frame.columns else [None] * len(paths)
        others = [str(c) for c in frame.columns if c not in UNIT_COLUMNS]
        rows = frame[others].to_dict("records") if others else [{} for _ in paths]
        for path, stripe, row in zip(paths, stripes, rows, strict=True):
            if path is None or pd.isna(path):
                raise OrcError("the 'path' column holds a null")
            yield str(path), None if stripe is None or pd.isna(stripe) else int(stripe), row


def _check_batch_rows(batch_rows: int) -> None:
    if not isinstance(batch_rows, int) or isinstance(batch_rows, bool) or batch_rows < 1:
        raise OrcError(f"batch_rows must be an int of 1 or more, got {batch_rows!r}")


def read_files(
    columns: Sequence[str] | None = None,
    *,
    filters: Any = None,
    schema: StructType | None = None,
    time_zone: str | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """The function to pass to ``DataFrame.mapInPandas`` that turns rows of file paths into the files' rows.

    Call it in the driver (it captures the driver JVM's time zone there); pass ``schema=files_schema(...)`` to
    ``mapInPandas`` with the same ``columns``.

    Parameters
    ----------
    columns : sequence of str, optional
        Top-level columns to read, in this order; all by default.
    filters : list, optional
        orcjit filters (``[(column, op, value), ...]`` or a list of such lists), applied exactly: stripes and row
        groups that cannot match are skipped, the other rows filtered.
    schema : pyspark.sql.types.StructType, optional
        The schema given to ``mapInPandas``; if given, each file's columns are checked against it (names and
        types) and a file that differs fails with its path, instead of Spark's conversion error. Partition values
        the input rows carry are given the declared types; without ``schema`` they keep their Python types
        (integers as bigint; a null partition has none), which PySpark 4.0 refuses for an ``int`` partition column
        or a partition column with nulls (later versions cast).
    time_zone : str, optional
        The zone ORC ``timestamp`` wall clocks are read in; default the driver JVM's default time zone, as
        ``spark.read.orc`` (the executors' JVMs are assumed to share it).
    batch_rows : int
        The most rows per yielded DataFrame (a stripe is decoded whole, then converted in pieces this big).

    Returns
    -------
    callable
        ``f(batches: Iterator[pandas.DataFrame]) -> Iterator[pandas.DataFrame]``. Each input row names a file in
        ``path`` (a local path, a ``file:`` URL or a URL fsspec knows) and, if the input has a ``stripe``
        column, one stripe of it (null: the whole file). Output: the rows of each stripe in file order, in
        pandas DataFrames Spark converts to the declared schema (see the module docstring for the dtypes).

    Examples
    --------
    >>> units = spark.createDataFrame(stripe_units("/data/events"))  # doctest: +SKIP
    >>> units.mapInPandas(read_files(["id"]), files_schema("/data/events", ["id"])).count()  # doctest: +SKIP
    """
    _check_batch_rows(batch_rows)
    wanted = list(columns) if columns is not None else None
    zone = _reader_zone(time_zone)

    def read_orc_files(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        reader = _StripeReader(wanted, filters, schema, zone)
        try:
            for path, stripe, given in _units(frames, lambda frame: frame):
                for batch in reader.batches(path, stripe, given):
                    for start in range(0, batch.num_rows, batch_rows):
                        yield to_spark_pandas(batch.slice(start, batch_rows))
        finally:
            reader.close()

    return read_orc_files


def read_files_arrow(
    columns: Sequence[str] | None = None,
    *,
    filters: Any = None,
    schema: StructType | None = None,
    time_zone: str | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """As :func:`read_files`, for ``DataFrame.mapInArrow``: yields Arrow record batches of exactly Spark's Arrow
    schema (:func:`orcjit.spark.types.to_spark_batches`), so what pandas cannot carry (NaN inside nested values,
    repeated map keys) reaches Spark as decoded, and no pandas conversion is paid for.

    Parameters and returns are those of :func:`read_files`, with ``pyarrow.RecordBatch`` for
    ``pandas.DataFrame``.
    """
    _check_batch_rows(batch_rows)
    wanted = list(columns) if columns is not None else None
    zone = _reader_zone(time_zone)

    def read_orc_files(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        reader = _StripeReader(wanted, filters, schema, zone)
        try:
            for path, stripe, given in _units(batches, lambda batch: batch.to_pandas()):
                for batch in reader.batches(path, stripe, given):
                    for start in range(0, batch.num_rows, batch_rows):
                        yield batch.slice(start, batch_rows)
        finally:
            reader.close()

    return read_orc_files


# -- Arrow to the pandas Spark accepts -------------------------------------------------------------------------------


def _nested(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t) or pa.types.is_struct(t)


def _has_map(t: pa.DataType) -> bool:
    if pa.types.is_map(t):
        return True
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_map(t.value_type)
    if pa.types.is_struct(t):
        return any(_has_map(f.type) for f in t)
    return False


def _python(value: Any, t: pa.DataType, key: bool = False) -> Any:
    """A value of ``to_pylist`` in the form Spark's converters take: maps as dicts (``to_pylist`` gives lists of
    pairs); inside a map key, lists and structs as tuples so that the key can be hashed."""
    if value is None:
        return None
    if pa.types.is_map(t):
        pairs = {_python(k, t.key_type, True): _python(v, t.item_type) for k, v in value}
        return tuple(pairs.items()) if key else pairs
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        items = [_python(v, t.value_type, key) for v in value]
        return tuple(items) if key else items
    if pa.types.is_struct(t):
        if key:
            return tuple(_python(value[f.name], f.type, True) for f in t)
        return {f.name: _python(value[f.name], f.type) for f in t}
    return value


def _series(arr: pa.Array) -> pd.Series:
    t = arr.type
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        # microseconds stay microseconds: Spark's safe cast refuses to drop nanoseconds, and datetime64[ns] would
        # not hold years outside 1677..2262
        return arr.to_pandas(coerce_temporal_nanoseconds=False)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.to_pandas()  # object (pandas 2) or str (pandas 3): Spark takes both, large strings or not
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pd.Series(arr.to_pylist(), dtype=object)
    if _nested(t):
        values = arr.to_pylist()
        if _has_map(t):
            values = [_python(v, t) for v in values]
        return pd.Series(values, dtype=object)
    # numbers, booleans, decimals, dates: Arrow-backed, so Spark takes the array as it is (NaN apart from null,
    # 64-bit integers exact, any date)
    return arr.to_pandas(types_mapper=pd.ArrowDtype)


def to_spark_pandas(data: pa.RecordBatch | pa.Table) -> pd.DataFrame:
    """A pandas DataFrame that Spark's pandas-to-Arrow conversion (``mapInPandas``, pandas UDFs) turns back into
    exactly ``data``'s values.

    Parameters
    ----------
    data : pyarrow.RecordBatch or pyarrow.Table
        In Spark's Arrow layout for the declared schema (:func:`orcjit.spark.types.arrow_schema`, as
        :func:`orcjit.spark.types.to_spark_batches` gives): microsecond timestamps, ``decimal128``, lists, maps
        and structs of those.

    Returns
    -------
    pandas.DataFrame
        With the dtypes the module docstring lists; NaN inside nested values and repeated map keys are what
        pandas cannot carry (use :func:`read_files_arrow`).
    """
    columns = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in data.columns]
    frame = pd.DataFrame({name: _series(arr) for name, arr in zip(data.schema.names, columns, strict=True)})
    if not columns:
        frame = pd.DataFrame(index=pd.RangeIndex(data.num_rows))
    return frame


# -- pruning without reading -----------------------------------------------------------------------------------------


def _may_hold(path: str, column: str, value: Any) -> bool:
    with ORCFile(_open_path(path)) as f:
        try:
            predicates = normalize_filters([(column, "==", value)], f.schema)
        except ValueError as exc:
            raise OrcError(f"{path}: {exc}") from None
        _, decisions = decide(f.meta, predicates, range(f.nstripes))
        return any(d.keep for d in decisions)


def might_contain(paths: pd.Series, column: str, value: Any, *, max_workers: int = DEFAULT_WORKERS) -> pd.Series:
    """Whether each file may hold a row with ``column == value``, by orcjit's pruning without reading data.

    A file answers False when its file statistics, stripe statistics, or every row group's statistics and bloom
    filter rule the value out (``ORCFile.explain([(column, "==", value)])`` then reads no stripe); True when any
    stripe may match. Meant for a ``pandas_udf`` (see the module docstring): the distinct files of each batch are
    probed in parallel threads, each reading only the file's tail, the stripe footers and the index streams of
    ``column`` (statistics and bloom filters).

    Parameters
    ----------
    paths : pandas.Series of str
        Local paths, ``file:`` URLs or URLs fsspec knows.
    column : str
        A primitive column: a top-level name or a dotted path into structs.
    value : object
        Compared as orcjit's ``==`` filter compares (a value of the column's Python type).
    max_workers : int
        Files probed at once.

    Returns
    -------
    pandas.Series of boolean
        Aligned with ``paths`` (same index; null where the path is null).

    Raises
    ------
    ValueError
        If a file has no such column or ``value`` is not of its type (``orcjit.OrcError``, naming the file).
    """
    keys = paths.tolist()
    bad = [p for p in keys if not isinstance(p, str) and not pd.isna(p)]
    if bad:
        raise OrcError(f"paths must be strings, got {bad[0]!r}")
    distinct = list(dict.fromkeys(p for p in keys if isinstance(p, str)))
    found = _map_threads(lambda p: _may_hold(p, column, value), distinct, max_workers)
    answers = dict(zip(distinct, found, strict=True))
    return pd.Series([answers[p] if isinstance(p, str) else pd.NA for p in keys], index=paths.index, dtype="boolean")
