"""ORC types as Spark types, and orcjit's Arrow tables as the Arrow batches Spark expects.

The mapping is the one ``spark.read.orc`` uses on the same files (measured with PySpark 4.x), so that
``spark.read.format("orcjit")`` and ``spark.read.orc`` give equal schemas and equal rows:

=====================================  =========================================================================
ORC type                               Spark type
=====================================  =========================================================================
boolean, tinyint .. bigint             BooleanType, ByteType, ShortType, IntegerType, LongType
float, double                          FloatType, DoubleType
string                                 StringType
char(n), varchar(n)                    StringType with the field metadata ``{"__CHAR_VARCHAR_TYPE_STRING":
                                       "char(n)"}`` Spark itself attaches; values as stored (a ``char`` value
                                       padded with blanks to ``n``, as ORC writers store it)
binary                                 BinaryType
geometry(crs), geography(crs, alg)     BinaryType: the values' WKB. ``spark.read.orc`` cannot read such files
                                       at all (PySpark 4.3: it fails to parse ``geometry(OGC:CRS84)`` as a
                                       Spark type, whatever the columns read), and its ORC source takes none of
                                       Spark's GeometryType or GeographyType (PySpark 4.1+); in Spark,
                                       ``st_geomfromwkb`` / ``st_geogfromwkb`` make those of the WKB
decimal(p, s)                          DecimalType(p, s) (old files without precision: (38, 10), as orcjit)
date                                   DateType
timestamp                              TimestampType: Spark's ORC reader reads the wall clock the writer saw
                                       in the *JVM default time zone* (``user.timezone``) of the executors,
                                       not in the session time zone; see :func:`orc_timestamp_micros`
timestamp with local time zone         TimestampType: the instant as stored
bigint with the type attribute         TimestampNTZType: Spark writes ``timestamp_ntz`` as microseconds in a
``spark.sql.catalyst.type =            bigint and marks it so
timestamp_ntz``
bigint / int marked ``interval day     DayTimeIntervalType (microseconds, as Spark writes them); a year-month
to second`` / ``interval year to       interval stays IntegerType (months): PySpark cannot take
month``                                YearMonthIntervalType from Arrow
array<T>, map<K, V>, struct<...>       ArrayType, MapType, StructType (every field, element and value
                                       nullable, as ``spark.read.orc`` gives them)
uniontype<T0, T1, ...>                 StructType ``tag`` IntegerType (the variant's number) and ``field0``,
                                       ``field1``, ... (the value in the field of its variant, the other fields
                                       null). ``spark.read.orc`` cannot read unions at all. A null union reads
                                       as tag 0 with every field null.
=====================================  =========================================================================

Spark's Arrow layout (what a Python data source must yield) is given by :func:`arrow_schema`: microsecond
timestamps (``TimestampType`` with a time zone, UTC for a data source; ``TimestampNTZType`` without), decimals as
``decimal128(p, s)``, strings as ``string`` (not ``large_string`` nor dictionaries), lists with an ``element``
field and maps with ``key``/``value`` fields. :func:`to_spark_batches` turns what ``ORCFile.read_arrow`` gives into
record batches of exactly that schema.

``timestamp`` values are converted with orcjit's own zone rules (:mod:`orcjit.timezones`): the wall clock as the
file's writer reads it, then ORC Java's rules for the writer's and the JVM's zones, then Spark's own rebasing of
instants before 1900 (``java.time``'s rules, local mean time), so that they equal ``spark.read.orc``'s from 1677 on,
under any pandas.

Known differences from ``spark.read.orc``:

- dates before 1582-10-15 (Spark reads ORC in the hybrid Julian calendar, orcjit in the proleptic Gregorian one);
- timestamps outside the years 1677-2262, which orcjit (nanoseconds) cannot read;
- ``timestamp`` values written in the hour a daylight saving change repeats in the writer's zone: orcjit's wall
  clocks cannot tell the two instants of that hour apart; the earlier is used.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from ..errors import OrcError
from ..timezones import IANA, ORC_JAVA, TimeZoneError, ZoneRules, convention_of_writer, orc_epoch_seconds, zone_rules
from ..types.kinds import HIVE11_DECIMALS
from ..types.resolve import resolve_column, top_level_fields
from ..types.schema import TypeNode

__all__ = [
    "CATALYST_TYPE",
    "CHAR_VARCHAR_KEY",
    "UNION_TAG",
    "arrow_schema",
    "arrow_type",
    "orc_timestamp_micros",
    "spark_field",
    "spark_schema",
    "spark_type",
    "to_spark_batches",
]

# how Spark gives the decimals of Hive 0.11 files, whose type states no precision or scale
SPARK_HIVE11_DECIMALS = HIVE11_DECIMALS["orc_java"]

CATALYST_TYPE = "spark.sql.catalyst.type"  # the type attribute Spark's ORC writer stores
CHAR_VARCHAR_KEY = "__CHAR_VARCHAR_TYPE_STRING"  # the field metadata Spark attaches to char/varchar columns
UNION_TAG = "tag"
_NS_PER_US = 1000
_NS_PER_S = 1_000_000_000
_UTC_2015 = 1_420_070_400  # 2015-01-01 00:00:00 UTC, ORC's timestamp base
_JAVA_TABLE_START_NS = -2_208_988_800 * _NS_PER_S  # 1900-01-01 00:00:00 UTC: Java's legacy rules start here


# -- Spark types -----------------------------------------------------------------------------------------------------


def _union_field_name(index: int) -> str:
    return f"field{index}"


def spark_type(node: TypeNode) -> DataType:
    """The Spark type ``spark.read.orc`` gives the ORC column ``node`` (see the module docstring).

    Parameters
    ----------
    node : orcjit.TypeNode
        A node of an ORC file's schema tree.

    Returns
    -------
    pyspark.sql.types.DataType
    """
    kind = node.kind
    catalyst = node.attributes.get(CATALYST_TYPE, "").strip().lower()
    simple: dict[str, DataType] = {
        "boolean": BooleanType(),
        "tinyint": ByteType(),
        "smallint": ShortType(),
        "int": IntegerType(),
        "float": FloatType(),
        "double": DoubleType(),
        "string": StringType(),
        "varchar": StringType(),
        "char": StringType(),
        "binary": BinaryType(),
        "geometry": BinaryType(),
        "geography": BinaryType(),
        "date": DateType(),
        "timestamp": TimestampType(),
        "timestamp with local time zone": TimestampType(),
    }
    if kind in simple:
        return simple[kind]
    if kind == "bigint":
        if catalyst == "timestamp_ntz":
            return TimestampNTZType()
        words = catalyst.split()
        if len(words) > 1 and words[0] == "interval" and words[1] in _INTERVAL_UNITS:
            return _day_time_interval(words)
        return LongType()
    if kind == "decimal":
        # Hive 0.11 decimals (no precision or scale in the type) as spark.read.orc gives them: ORC Java's
        # decimal(38,10), rounded half up (what the data source reads them with)
        scale = SPARK_HIVE11_DECIMALS.scale if node.hive11_decimal else node.decimal_scale
        return DecimalType(node.decimal_precision, scale)
    if kind == "array":
        return ArrayType(spark_type(node.children[0]), containsNull=True)
    if kind == "map":
        key, value = node.children
        return MapType(spark_type(key), spark_type(value), valueContainsNull=True)
    if kind == "struct":
        return StructType([spark_field(child, child.name or "") for child in node.children])
    if kind == "uniontype":
        fields = [StructField(UNION_TAG, IntegerType(), True)]
        fields += [spark_field(child, _union_field_name(i)) for i, child in enumerate(node.children)]
        return StructType(fields)
    raise OrcError(f"column {node.path or '(root)'}: ORC type {node} has no Spark type")


_INTERVAL_UNITS = {"day": 0, "hour": 1, "minute": 2, "second": 3}


def _day_time_interval(words: list[str]) -> DataType:
    """``interval day to second`` and the like, as Spark writes day-time intervals (microseconds in a bigint)."""
    start = _INTERVAL_UNITS[words[1]]
    end = _INTERVAL_UNITS.get(words[-1], start) if len(words) > 3 else start
    return DayTimeIntervalType(start, end)


def spark_field(node: TypeNode, name: str) -> StructField:
    """The nullable Spark field ``name`` of type :func:`spark_type` (``node``), with the char/varchar metadata
    ``spark.read.orc`` attaches."""
    metadata = {}
    if node.kind in ("char", "varchar") and node.max_length is not None:
        metadata[CHAR_VARCHAR_KEY] = f"{node.kind}({node.max_length})"
    return StructField(name, spark_type(node), True, metadata or None)


def spark_schema(schema: TypeNode, columns: Sequence[str] | None = None) -> StructType:
    """The Spark schema of an ORC file: its top-level columns in file order, or in the order of ``columns``.

    Parameters
    ----------
    schema : orcjit.TypeNode
        The file's schema (``ORCFile.schema``).
    columns : sequence of str, optional
        Top-level column names to keep, in the order given.

    Returns
    -------
    pyspark.sql.types.StructType

    Raises
    ------
    ValueError
        If ``columns`` names a column the file does not have, or names one twice.

    Examples
    --------
    >>> with orcjit.ORCFile("data.orc") as f:  # doctest: +SKIP
    ...     print(spark_schema(f.schema, ["id", "name"]).simpleString())
    struct<id:bigint,name:string>
    """
    fields = top_level_fields(schema)
    if columns is None:
        return StructType([spark_field(node, name) for name, node in fields])
    top = {id(node) for _, node in fields}
    out = []
    for name in columns:
        node = resolve_column(schema, name)
        if id(node) not in top:
            names = ", ".join(n for n, _ in fields)
            raise OrcError(f"column {name!r} is not a top-level column; the file's are {names}")
        out.append(spark_field(node, name))
    if len({f.name for f in out}) != len(out):
        raise OrcError(f"columns {list(columns)!r} name a column twice")
    return StructType(out)


# -- Arrow types -----------------------------------------------------------------------------------------------------


def arrow_type(data_type: DataType, time_zone: str = "UTC") -> pa.DataType:
    """The Arrow type Spark uses for ``data_type`` (as ``pyspark.sql.pandas.types.to_arrow_type``).

    Parameters
    ----------
    data_type : pyspark.sql.types.DataType
    time_zone : str
        The time zone of ``TimestampType`` values: ``"UTC"`` for what a Python data source yields, the session
        time zone for pandas UDFs and ``mapInPandas``.
    """
    simple: list[tuple[type, pa.DataType]] = [
        (BooleanType, pa.bool_()),
        (ByteType, pa.int8()),
        (ShortType, pa.int16()),
        (IntegerType, pa.int32()),
        (LongType, pa.int64()),
        (FloatType, pa.float32()),
        (DoubleType, pa.float64()),
        (StringType, pa.string()),
        (BinaryType, pa.binary()),
        (DateType, pa.date32()),
        (TimestampNTZType, pa.timestamp("us")),
        (DayTimeIntervalType, pa.duration("us")),
        (NullType, pa.null()),
    ]
    for cls, arrow in simple:
        if isinstance(data_type, cls):
            return arrow
    if isinstance(data_type, TimestampType):
        return pa.timestamp("us", tz=time_zone)
    if isinstance(data_type, DecimalType):
        return pa.decimal128(data_type.precision, data_type.scale)
    if isinstance(data_type, ArrayType):
        element = pa.field("element", arrow_type(data_type.elementType, time_zone), data_type.containsNull)
        return pa.list_(element)
    if isinstance(data_type, MapType):
        key = pa.field("key", arrow_type(data_type.keyType, time_zone), nullable=False)
        value = pa.field("value", arrow_type(data_type.valueType, time_zone), data_type.valueContainsNull)
        return pa.map_(key, value)
    if isinstance(data_type, StructType):
        return pa.struct([pa.field(f.name, arrow_type(f.dataType, time_zone), f.nullable) for f in data_type.fields])
    raise OrcError(f"Spark type {data_type.simpleString()} has no Arrow type here")


def arrow_schema(struct_type: StructType, time_zone: str = "UTC") -> pa.Schema:
    """The Arrow schema Spark expects for rows of ``struct_type``.

    Parameters
    ----------
    struct_type : pyspark.sql.types.StructType
    time_zone : str
        The zone of ``TimestampType`` columns: a Python data source's ``read`` yields UTC (the default); pandas
        UDFs and ``mapInPandas`` use the session time zone.

    Returns
    -------
    pyarrow.Schema
    """
    return pa.schema([pa.field(f.name, arrow_type(f.dataType, time_zone), f.nullable) for f in struct_type.fields])


# -- timestamps ------------------------------------------------------------------------------------------------------


def _rules(zone: str, convention: str) -> ZoneRules:
    try:
        return zone_rules(zone, convention)
    except TimeZoneError as exc:
        raise OrcError(f"orcjit: {exc}") from None


def _spark_rebase(instants: np.ndarray, reader_zone: str, reader: ZoneRules) -> np.ndarray:
    """What Spark makes of the instants ORC Java gives (``DateTimeUtils.fromJavaTimestamp``): it takes their local
    date and time in the JVM zone by Java's legacy rules (before 1900 the zone's standard offset) and finds that
    wall clock again by ``java.time``'s (the IANA rules: local mean time; the later instant where the clocks
    repeat, as the legacy rules know no daylight saving time there, and the offset before a gap), which moves
    instants before 1900 by the difference (-7 min 2 s in America/Los_Angeles before 1883-11-18); from 1900 on
    the rules agree and Spark leaves instants alone."""
    early = instants < _JAVA_TABLE_START_NS
    if not early.any():
        return instants
    moved = instants.copy()
    legacy_walls = reader.to_wall(instants[early])
    moved[early] = _rules(reader_zone, IANA).to_instant(legacy_walls, ambiguous="later", nonexistent="keep_offset")
    return moved


def orc_timestamp_micros(
    wall_ns: np.ndarray, writer_zone: str | None, reader_zone: str, writer: int | str = "ORC_JAVA"
) -> np.ndarray:
    """Spark's microseconds for ORC ``timestamp`` values read by orcjit as wall clocks.

    ORC's Java reader (which ``spark.read.orc`` uses) rebuilds the instant ``m`` the writer stored and, when the
    reader's JVM default zone ``R`` has other rules than the writer's zone ``W``, moves it by
    ``W(m) - R(m + W(m) - R(m))`` so that the wall clock stays what the writer saw; a file that records no writer
    zone is read as if written in ``R``. orcjit gives the wall clock ``w`` the file's writer reads (see
    :mod:`orcjit.timezones`), whose instant ``m`` it finds again (the earlier one where the writer's clocks
    repeated an hour), so Spark's value is ``m`` when the zones have the same rules and ``m + W(m) - R(m + W(m) -
    R(m))`` otherwise, with ``W`` and ``R`` as Java reads them, floored to microseconds as Spark does.

    Parameters
    ----------
    wall_ns : numpy.ndarray of int64
        Wall clocks as orcjit reads them (nanoseconds since the epoch of the naive date and time).
    writer_zone : str or None
        The stripe's writer time zone (``ORCFile.stripe_footer(i).writer_timezone``).
    reader_zone : str
        The zone Spark's ORC reader uses: the executors' JVM default time zone.
    writer : int or str
        The file's writer (``ORCFile.writer``, or the footer's code): whose rules orcjit read ``wall_ns`` with.

    Returns
    -------
    numpy.ndarray of int64
        Microseconds since the epoch (UTC).
    """
    wall = np.asarray(wall_ns, dtype=np.int64)
    if not len(wall):
        return wall.copy()
    reader = _rules(reader_zone, ORC_JAVA)
    if not writer_zone:
        # no writer zone: Java takes the reader's, and its 2015-01-01 epoch, without any DST adjustment
        shift = (orc_epoch_seconds(reader) - _UTC_2015) * _NS_PER_S
        return np.floor_divide(wall + shift, _NS_PER_US)
    try:
        instants = _rules(writer_zone, convention_of_writer(writer)).to_instant(wall)
        java_writer = _rules(writer_zone, ORC_JAVA)
        if java_writer.same_rules(reader):
            java = instants
        else:
            local = java_writer.to_wall(instants)
            java = local - reader.utcoffset(local - reader.utcoffset(instants))
        return np.floor_divide(_spark_rebase(java, reader_zone, reader), _NS_PER_US)
    except OverflowError:
        raise OrcError(
            f"orcjit: a timestamp written in {writer_zone} lies too close to the years 1677-2262 that nanoseconds"
            f" reach to be read in {reader_zone}"
        ) from None


# -- arrays ----------------------------------------------------------------------------------------------------------


def _values(arr: pa.Array) -> np.ndarray:
    """The int64 values of a fixed-width 64-bit array, zero where null."""
    raw = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + len(arr)]
    if arr.null_count:
        return np.where(arr.is_valid().to_numpy(zero_copy_only=False), raw, 0)
    return raw


def _with_values(arr: pa.Array, values: np.ndarray, type_: pa.DataType) -> pa.Array:
    mask = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    return pa.array(values, type=pa.int64(), mask=mask).view(type_)


def _null_mask(arr: pa.Array) -> pa.Array | None:
    return arr.is_null() if arr.null_count else None


def convert_array(
    arr: pa.Array,
    node: TypeNode,
    target: pa.DataType,
    writer_zone: str | None,
    reader_zone: str,
    writer: int | str = "ORC_JAVA",
) -> pa.Array:
    """One column (or nested part of one) of ``ORCFile.read_arrow`` as an array of Spark's Arrow type ``target``.

    Parameters
    ----------
    arr : pyarrow.Array
        What orcjit gives for ``node`` (pyarrow's ORC types: nanosecond timestamps, sparse unions).
    node : orcjit.TypeNode
    target : pyarrow.DataType
        ``arrow_type(spark_type(node))``, or a type it casts to.
    writer_zone, reader_zone, writer : str or None, str, int or str
        For ORC ``timestamp`` values, as in :func:`orc_timestamp_micros`.
    """
    kind = node.kind
    if kind == "timestamp" and pa.types.is_timestamp(target):
        micros = orc_timestamp_micros(_values(arr), writer_zone, reader_zone, writer)
        return _with_values(arr, micros, target)
    if kind == "timestamp with local time zone" and pa.types.is_timestamp(target):
        return _with_values(arr, np.floor_divide(_values(arr), _NS_PER_US), target)
    if kind == "bigint" and (pa.types.is_timestamp(target) or pa.types.is_duration(target)):
        return arr.view(target)  # Spark's microseconds, stored as they are
    if kind == "array":
        values = convert_array(arr.values, node.children[0], target.value_type, writer_zone, reader_zone, writer)
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:2], arr.null_count, arr.offset, [values])
    if kind == "map":
        key, value = node.children
        keys = convert_array(arr.keys, key, target.key_type, writer_zone, reader_zone, writer)
        items = convert_array(arr.items, value, target.item_type, writer_zone, reader_zone, writer)
        # the map's own validity and offsets over the converted entries (MapArray.from_arrays takes a type and a
        # mask only from pyarrow 15 on); offsets index the whole children, which arr.values/keys/items are
        entries = pa.StructArray.from_arrays([keys, items], fields=[target.key_field, target.item_field])
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:2], arr.null_count, arr.offset, [entries])
    if kind == "struct":
        children = [
            convert_array(arr.field(i), child, target.field(i).type, writer_zone, reader_zone, writer)
            for i, child in enumerate(node.children)
        ]
        return pa.StructArray.from_arrays(children, fields=list(target), mask=_null_mask(arr))
    if kind == "uniontype":
        tags = arr.type_codes.cast(pa.int32())
        children = [tags] + [
            convert_array(arr.field(i), child, target.field(i + 1).type, writer_zone, reader_zone, writer)
            for i, child in enumerate(node.children)
        ]
        return pa.StructArray.from_arrays(children, fields=list(target))
    return arr if arr.type == target else arr.cast(target)


def to_spark_batches(
    table: pa.Table,
    fields: Sequence[tuple[str, TypeNode]],
    schema: pa.Schema,
    *,
    writer_zone: str | None = None,
    reader_zone: str = "UTC",
    writer: int | str = "ORC_JAVA",
) -> Iterator[pa.RecordBatch]:
    """Record batches of exactly ``schema`` from a table ``ORCFile.read_arrow`` gave.

    Parameters
    ----------
    table : pyarrow.Table
        Read from stripes that share ``writer_zone`` (one stripe, or a file whose stripes record the same zone).
    fields : sequence of (str, orcjit.TypeNode)
        The columns to output, in the order of ``schema``: each one's name in ``table`` and its ORC type.
    schema : pyarrow.Schema
        The target, e.g. ``arrow_schema(spark_schema(...))``.
    writer_zone, reader_zone, writer : str or None, str, int or str
        For ORC ``timestamp`` columns, as in :func:`orc_timestamp_micros` (``writer``: ``ORCFile.writer``).

    Yields
    ------
    pyarrow.RecordBatch
        One per chunk of ``table``; empty ones are left out.
    """
    table = table.select([name for name, _ in fields])
    for batch in table.to_batches():
        if not batch.num_rows:
            continue
        arrays = [
            convert_array(batch.column(i), node, schema.field(i).type, writer_zone, reader_zone, writer)
            for i, (_, node) in enumerate(fields)
        ]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)
