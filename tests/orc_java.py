"""ORC Java's own writer and reader, driven through the Spark JVM with py4j (tests only).

Spark's jars hold orc-core; its ``OrcFile`` writer and reader are used here directly, below Spark, so that a test
picks the writer's time zone (the JVM default zone while the writer runs: ORC Java records
``TimeZone.getDefault()`` in every stripe footer and converts with it) and the reader's (the JVM default zone when
the reader is created: a reader in UTC gives the wall clocks the writer saw as UTC instants, a reader in the
writer's zone gives the instants it stored). Values cross py4j in bulk, as byte arrays.

Columns are NumPy int64 arrays: ``timestamp`` columns hold instants (ns since the epoch, UTC), ``date`` columns
days since 1970-01-01, ``bigint`` columns plain integers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from py4j.java_gateway import get_field, set_field

NS = 1_000_000_000
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
