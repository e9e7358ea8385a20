"""ORC Java's own writer and reader, driven through the Spark JVM with py4j (tests only).

Spark's jars hold orc-core; its ``OrcFile`` writer and reader are used here directly, below Spark, so that a test
picks the writer's time zone (the JVM default zone while the writer runs: ORC Java records
``TimeZone.getDefault()`` in every stripe footer and converts with it) and the reader's (the JVM default zone when
the reader is created: a reader in UTC gives the wall clocks the writer saw as UTC instants, a reader in the
writer's zone gives the instants it stored). Values cross py4j in bulk, as byte arrays.

Columns are NumPy int64 arrays: ``timestamp`` columns hold instants (ns since the epoch, UTC), ``date`` columns
days since 1970-01-01, ``bigint`` columns plain integers. Geometry and geography columns (:func:`write_wkb_orc_java`)
are WKB bytes, which cross py4j as one byte array per batch; ORC Java's reading of them is compared through
:func:`rewrite_as_binary_orc_java`, and its statistics and types through :func:`orc_java_metadata`. Decimal
columns go through :func:`write_orc_java_decimals` and :func:`read_orc_java_decimals`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import numpy as np
from py4j.java_gateway import get_field, set_field

NS = 1_000_000_000
_WIDE = Context(prec=80)  # exact arithmetic on any decimal a test writes
_NS_PER_MS = 1_000_000


@contextmanager
def jvm_time_zone(spark: Any, zone: str) -> Iterator[None]:
    """The JVM's default time zone set to ``zone`` for the block, then restored."""
    tz = spark._jvm.java.util.TimeZone
    before = tz.getDefault()
    tz.setDefault(tz.getTimeZone(zone))
    try:
        yield
    finally:
        tz.setDefault(before)


def _to_java(spark: Any, values: np.ndarray, kind: str) -> Any:
    """A Java ``long[]`` or ``int[]`` holding ``values``."""
    jvm = spark._jvm
    gateway = spark.sparkContext._gateway
    big_endian = np.ascontiguousarray(values, dtype=">i8" if kind == "long" else ">i4")
    array = gateway.new_array(jvm.long if kind == "long" else jvm.int, len(values))
    buffer = jvm.java.nio.ByteBuffer.wrap(bytearray(big_endian.tobytes()))
    (buffer.asLongBuffer() if kind == "long" else buffer.asIntBuffer()).get(array)
    return array


def _from_java(spark: Any, array: Any, count: int, kind: str) -> np.ndarray:
    size = 8 if kind == "long" else 4
    buffer = spark._jvm.java.nio.ByteBuffer.allocate(size * count)
    (buffer.asLongBuffer() if kind == "long" else buffer.asIntBuffer()).put(array, 0, count)
    return np.frombuffer(bytes(buffer.array()), dtype=">i8" if kind == "long" else ">i4").astype(np.int64)


def _copy_into(spark: Any, values: np.ndarray, target: Any, kind: str) -> None:
    spark._jvm.java.lang.System.arraycopy(_to_java(spark, values, kind), 0, target, 0, len(values))


def write_orc_java(
    spark: Any,
    path: str | Path,
    schema: str,
    columns: Mapping[str, np.ndarray],
    writer_zone: str,
    *,
    batch_size: int = 65536,
    stripe_size: int | None = None,
    buffer_size: int | None = None,
    proleptic: bool = False,
    compression: str | None = None,
) -> Path:
    """Write ``columns`` (top-level fields of the struct ``schema``, in order) with ORC Java in ``writer_zone``;
    ``compression`` names a ``CompressionKind`` (the writer's default when ``None``)."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    description = orc.TypeDescription.fromString(schema)
    names = list(description.getFieldNames())
    kinds = [str(child.getCategory().getName()) for child in description.getChildren()]
    assert names == list(columns), (names, list(columns))
    rows = len(next(iter(columns.values())))
    options = orc.OrcFile.writerOptions(jvm.org.apache.hadoop.conf.Configuration()).setSchema(description)
    if stripe_size is not None:
        options = options.stripeSize(stripe_size)
    if buffer_size is not None:
        options = options.bufferSize(buffer_size)
    if compression is not None:
        options = options.compress(orc.CompressionKind.valueOf(compression))
    options = options.blockPadding(False).setProlepticGregorian(proleptic)
    path = Path(path)
    if path.exists():
        path.unlink()
    with jvm_time_zone(spark, writer_zone):
        writer = orc.OrcFile.createWriter(jvm.org.apache.hadoop.fs.Path(str(path)), options)
        batch = description.createRowBatch(batch_size)
        for start in range(0, rows, batch_size):
            count = min(batch_size, rows - start)
            vectors = get_field(batch, "cols")
            for i, (kind, values) in enumerate(zip(kinds, columns.values(), strict=True)):
                part = np.asarray(values[start : start + count], dtype=np.int64)
                if kind == "timestamp":
                    _copy_into(spark, np.floor_divide(part, _NS_PER_MS), get_field(vectors[i], "time"), "long")
                    _copy_into(spark, np.mod(part, NS), get_field(vectors[i], "nanos"), "int")
                else:
                    _copy_into(spark, part, get_field(vectors[i], "vector"), "long")
            set_field(batch, "size", count)
            writer.addRowBatch(batch)
        writer.close()
    return path


def read_orc_java(spark: Any, path: str | Path, reader_zone: str, *, batch_size: int = 65536) -> dict[str, np.ndarray]:
    """ORC Java's read of every top-level column, with the JVM in ``reader_zone``: ``timestamp`` columns as ns
    since the epoch (the instant Java's reader gives: the writer's wall clock as UTC when ``reader_zone`` is UTC),
    ``date`` and integer columns as they are."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    conf = jvm.org.apache.hadoop.conf.Configuration()
    with jvm_time_zone(spark, reader_zone):
        reader = orc.OrcFile.createReader(jvm.org.apache.hadoop.fs.Path(str(path)), orc.OrcFile.readerOptions(conf))
        description = reader.getSchema()
        names = list(description.getFieldNames())
        kinds = [str(child.getCategory().getName()) for child in description.getChildren()]
        rows = reader.rows()
        batch = description.createRowBatch(batch_size)
        parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
        while rows.nextBatch(batch):
            count = get_field(batch, "size")
            vectors = get_field(batch, "cols")
            for i, (name, kind) in enumerate(zip(names, kinds, strict=True)):
                if kind == "timestamp":
                    millis = _from_java(spark, get_field(vectors[i], "time"), count, "long")
                    nanos = _from_java(spark, get_field(vectors[i], "nanos"), count, "int")
                    parts[name].append(np.floor_divide(millis, 1000) * NS + nanos)
                else:
                    parts[name].append(_from_java(spark, get_field(vectors[i], "vector"), count, "long"))
        rows.close()
    return {name: np.concatenate(chunks) if chunks else np.empty(0, np.int64) for name, chunks in parts.items()}


def write_orc_java_decimals(
    spark: Any,
    path: str | Path,
    schema: str,
    columns: Mapping[str, Sequence[Decimal | None]],
    *,
    version: str = "UNSTABLE_PRE_2_0",
    stripe_size: int | None = None,
    row_index_stride: int = 10_000,
    batch_size: int = 1024,
) -> Path:
    """Write decimal ``columns`` (top-level fields of the struct ``schema``, in order) with ORC Java, as file
    format ``version`` (an ``OrcFile.Version`` name: ``UNSTABLE_PRE_2_0`` stores decimals of precision 18 or less
    as integers). Values go through ORC Java's decimal row batches (``Decimal64ColumnVector`` for precision 18 or
    less, unscaled at the type's scale; ``DecimalColumnVector`` beyond), nulls as ``isNull``."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    description = orc.TypeDescription.fromString(schema)
    children = list(description.getChildren())
    assert list(description.getFieldNames()) == list(columns)
    options = (
        orc.OrcFile.writerOptions(jvm.org.apache.hadoop.conf.Configuration())
        .setSchema(description)
        .version(getattr(orc.OrcFile.Version, version))
        .rowIndexStride(row_index_stride)
        .blockPadding(False)
    )
    if stripe_size is not None:
        options = options.stripeSize(stripe_size)
    path = Path(path)
    if path.exists():
        path.unlink()
    hive_decimal = jvm.org.apache.hadoop.hive.common.type.HiveDecimal
    writer = orc.OrcFile.createWriter(jvm.org.apache.hadoop.fs.Path(str(path)), options)
    batch = description.createRowBatch(orc.TypeDescription.RowBatchVersion.USE_DECIMAL64, batch_size)
    rows = len(next(iter(columns.values())))
    for start in range(0, rows, batch_size):
        count = min(batch_size, rows - start)
        vectors = get_field(batch, "cols")
        for i, (child, values) in enumerate(zip(children, columns.values(), strict=True)):
            part = list(values[start : start + count])
            vector = vectors[i]
            set_field(vector, "noNulls", all(v is not None for v in part))
            nulls = get_field(vector, "isNull")
            for j, v in enumerate(part):
                nulls[j] = v is None
            if child.getPrecision() <= 18:
                scale = child.getScale()
                unscaled = [0 if v is None else int(v.scaleb(scale, context=_WIDE)) for v in part]
                _copy_into(spark, np.array(unscaled, dtype=np.int64), get_field(vector, "vector"), "long")
            else:
                for j, v in enumerate(part):
                    vector.set(j, hive_decimal.create(str(v if v is not None else 0)))
        set_field(batch, "size", count)
        writer.addRowBatch(batch)
    writer.close()
    return path


def read_orc_java_decimals(spark: Any, path: str | Path, batch_size: int = 1024) -> dict[str, list[Decimal | None]]:
    """ORC Java's own read of every top-level decimal column: each value as its reader hands it over
    (``HiveDecimalWritable``; a Hive 0.11 decimal at the scale it was stored with)."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    conf = jvm.org.apache.hadoop.conf.Configuration()
    reader = orc.OrcFile.createReader(jvm.org.apache.hadoop.fs.Path(str(path)), orc.OrcFile.readerOptions(conf))
    description = reader.getSchema()
    names = list(description.getFieldNames())
    kinds = [str(child.getCategory().getName()) for child in description.getChildren()]
    out: dict[str, list[Decimal | None]] = {n: [] for n, k in zip(names, kinds, strict=True) if k == "decimal"}
    rows = reader.rows()
    batch = description.createRowBatch(batch_size)  # DecimalColumnVector for every precision
    while rows.nextBatch(batch):
        count = get_field(batch, "size")
        vectors = get_field(batch, "cols")
        for i, name in enumerate(names):
            if name not in out:
                continue
            vector = vectors[i]
            no_nulls = get_field(vector, "noNulls")
            repeating = get_field(vector, "isRepeating")
            nulls, values = get_field(vector, "isNull"), get_field(vector, "vector")
            for j in range(count):
                k = 0 if repeating else j
                out[name].append(None if not no_nulls and nulls[k] else Decimal(str(values[k].toString())))
    rows.close()
    return out


# -- geometry and geography (ORC Java 2.2+, Spark 4.1+) ---------------------------------------------------------------


def has_geospatial_types(spark: Any) -> bool:
    """Whether the JVM's ORC Java knows GEOMETRY and GEOGRAPHY (Spark 4.0's orc-core 2.1 does not)."""
    from py4j.protocol import Py4JError

    try:
        spark._jvm.org.apache.orc.TypeDescription.createGeometry()
    except Py4JError:
        return False
    return True


def geospatial_type(spark: Any, kind: str, crs: str | None = None, algorithm: str | None = None) -> Any:
    """ORC Java's ``TypeDescription`` of a ``geometry`` or ``geography`` column; ``crs`` and ``algorithm`` left at
    ORC Java's defaults where ``None``."""
    description_class = spark._jvm.org.apache.orc.TypeDescription
    description = description_class.createGeometry() if kind == "geometry" else description_class.createGeography()
    if crs is not None:
        description = description.withCRS(crs)
    if algorithm is not None:
        algorithms = getattr(spark._jvm.org.apache.orc, "TypeDescription$EdgeInterpolationAlgorithm")
        description = description.withEdgeInterpolationAlgorithm(algorithms.valueOf(algorithm))
    return description


def _classes(spark: Any, *names: str) -> Any:
    """A Java ``Class[]`` of the classes ``names``."""
    jvm = spark._jvm
    classes = spark.sparkContext._gateway.new_array(jvm.java.lang.Class, len(names))
    for i, name in enumerate(names):
        classes[i] = jvm.java.lang.Class.forName(name)
    return classes


def _set_bytes(spark: Any, vector: Any, values: Sequence[bytes | None]) -> None:
    """Fill a ``BytesColumnVector`` with ``values`` (``None``: null) in three calls and one per null: every slot
    refers into one byte array holding all the values end to end."""
    jvm = spark._jvm
    lengths = np.array([0 if v is None else len(v) for v in values], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(values) else lengths
    data = bytearray(b"".join(v for v in values if v is not None) or b"\0")
    # Arrays.fill(Object[], Object) through reflection: py4j does not match a byte[][] to Object[] by itself
    fill = jvm.java.lang.Class.forName("java.util.Arrays").getMethod(
        "fill", _classes(spark, "[Ljava.lang.Object;", "java.lang.Object")
    )
    arguments = spark.sparkContext._gateway.new_array(jvm.java.lang.Object, 2)
    arguments[0] = get_field(vector, "vector")
    arguments[1] = data
    fill.invoke(None, arguments)
    _copy_into(spark, starts, get_field(vector, "start"), "int")
    _copy_into(spark, lengths, get_field(vector, "length"), "int")
    nulls = [i for i, v in enumerate(values) if v is None]
    set_field(vector, "noNulls", not nulls)
    is_null = get_field(vector, "isNull")
    jvm.java.util.Arrays.fill(is_null, False)
    for i in nulls:
        is_null[i] = True


def write_wkb_orc_java(
    spark: Any,
    path: str | Path,
    fields: Sequence[tuple[str, Any]],
    columns: Mapping[str, Any],
    *,
    batch_size: int = 1024,
    stripe_size: int | None = None,
    row_index_stride: int | None = None,
    rows_between_memory_checks: int | None = None,
    bloom_filter_columns: str | None = None,
) -> Path:
    """Write ``columns`` with ORC Java: ``fields`` are (name, ``TypeDescription``) pairs, ``bigint`` columns NumPy
    arrays, ``binary``, ``geometry`` and ``geography`` columns sequences of ``bytes`` or ``None``."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    schema = orc.TypeDescription.createStruct()
    for name, description in fields:
        schema = schema.addField(name, description)
    conf = jvm.org.apache.hadoop.conf.Configuration()
    if rows_between_memory_checks is not None:
        conf.set("orc.rows.between.memory.checks", str(rows_between_memory_checks))
    options = orc.OrcFile.writerOptions(conf).setSchema(schema).blockPadding(False)
    if stripe_size is not None:
        options = options.stripeSize(stripe_size)
    if row_index_stride is not None:
        options = options.rowIndexStride(row_index_stride)
    if bloom_filter_columns is not None:
        options = options.bloomFilterColumns(bloom_filter_columns)
    path = Path(path)
    if path.exists():
        path.unlink()
    kinds = [str(description.getCategory().getName()) for _, description in fields]
    rows = len(next(iter(columns.values())))
    writer = orc.OrcFile.createWriter(jvm.org.apache.hadoop.fs.Path(str(path)), options)
    batch = schema.createRowBatch(batch_size)
    for start in range(0, rows, batch_size):
        count = min(batch_size, rows - start)
        vectors = get_field(batch, "cols")
        for i, (kind, (name, _)) in enumerate(zip(kinds, fields, strict=True)):
            part = columns[name][start : start + count]
            if kind == "bigint":
                _copy_into(spark, np.asarray(part, dtype=np.int64), get_field(vectors[i], "vector"), "long")
            else:
                _set_bytes(spark, vectors[i], part)
        set_field(batch, "size", count)
        writer.addRowBatch(batch)
    writer.close()
    return path


def rewrite_as_binary_orc_java(spark: Any, path: str | Path, target: str | Path, *, batch_size: int = 1024) -> Path:
    """What ORC Java's reader gives for a file of top-level columns, written again by ORC Java with ``geometry``
    and ``geography`` as ``binary``: the reader's own vectors go to the writer, so a reader of binary columns
    (pyarrow's) shows ORC Java's values without a value crossing py4j."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    conf = jvm.org.apache.hadoop.conf.Configuration()
    reader = orc.OrcFile.createReader(jvm.org.apache.hadoop.fs.Path(str(path)), orc.OrcFile.readerOptions(conf))
    source = reader.getSchema()
    schema = orc.TypeDescription.createStruct()
    for name, child in zip(source.getFieldNames(), source.getChildren(), strict=True):
        geospatial = str(child.getCategory().getName()) in ("geometry", "geography")
        schema = schema.addField(name, orc.TypeDescription.createBinary() if geospatial else child.clone())
    target = Path(target)
    if target.exists():
        target.unlink()
    writer = orc.OrcFile.createWriter(
        jvm.org.apache.hadoop.fs.Path(str(target)), orc.OrcFile.writerOptions(conf).setSchema(schema)
    )
    rows = reader.rows()
    batch = source.createRowBatch(batch_size)
    while rows.nextBatch(batch):
        writer.addRowBatch(batch)
    rows.close()
    writer.close()
    return target


def _geospatial_statistics(stats: Any) -> dict[str, Any]:
    """One column's statistics as ORC Java's reader gives them: count, has null, and for geometry and geography
    the bounding box (bounds that are NaN or infinite left out, ``None`` for none) and the type codes."""
    out: dict[str, Any] = {"count": stats.getNumberOfValues(), "has_null": stats.hasNull()}
    if not stats.getClass().getSimpleName().startswith("Geospatial"):
        return out
    box = stats.getBoundingBox()
    bbox = None
    if box is not None:
        bounds = {
            key: getattr(box, f"get{key[0].upper()}{key[1:].capitalize()}")()
            for key in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")
        }
        bbox = {key: value for key, value in bounds.items() if math.isfinite(value)} or None
    types = stats.getGeospatialTypes()
    codes = sorted(int(t) for t in types.getTypes()) if types is not None else []
    out.update(bbox=bbox, geometry_types=codes or None)
    return out


def orc_java_metadata(spark: Any, path: str | Path) -> dict[str, Any]:
    """ORC Java's reader on ``path``: its schema string, each top-level column's ``crs`` and edge interpolation
    algorithm (``None`` where the type has none), and statistics of the file and of each stripe per column id."""
    jvm = spark._jvm
    orc = jvm.org.apache.orc
    conf = jvm.org.apache.hadoop.conf.Configuration()
    reader = orc.OrcFile.createReader(jvm.org.apache.hadoop.fs.Path(str(path)), orc.OrcFile.readerOptions(conf))
    schema = reader.getSchema()
    types = {}
    for name, child in zip(schema.getFieldNames(), schema.getChildren(), strict=True):
        kind = str(child.getCategory().getName())
        geospatial = kind in ("geometry", "geography")
        algorithm = child.getEdgeInterpolationAlgorithm() if kind == "geography" else None
        types[str(name)] = {
            "crs": str(child.getCrs()) if geospatial else None,
            "algorithm": str(algorithm.name()) if algorithm is not None else None,
        }
    return {
        "schema": str(schema.toString()),
        "types": types,
        "statistics": [_geospatial_statistics(s) for s in reader.getStatistics()],
        "stripes": [
            [_geospatial_statistics(s) for s in stripe.getColumnStatistics()] for stripe in reader.getStripeStatistics()
        ],
    }
