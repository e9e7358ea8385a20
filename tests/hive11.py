"""ORC files with Hive 0.11 decimals, built for tests: decimal columns whose type states no precision or scale,
each value stored with its own scale (DATA: the unscaled value as a zigzag varint; SECONDARY: the scale, RLE v1).

No writer at hand writes them any more (ORC Java and ORC C++ always state a precision), so
:func:`write_hive11_decimals` takes a file pyarrow writes as ORC file version 0.11 (RLE v1, DIRECT encodings)
with decimal placeholders, drops the decimal types' precision and scale, and writes each decimal column's DATA
and SECONDARY streams again from the values given, with their row index (positions of DATA and SECONDARY for each
row group; every row group's scales start a run of their own, so each position is a run's start) and the
statistics of the values (minimum, maximum and sum as decimal strings, as Hive wrote them).
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as po

from orcjit._proto import orc_proto_pb2 as pb

from .fuzz_harness import decode_file, encode_file
from .rle_reference import encode_rle_v1

DATA, SECONDARY, ROW_INDEX = 1, 5, 6


def stored_scale(value: Decimal) -> int:
    """The scale a Hive 0.11 writer stores for ``value``: its digits after the point as written."""
    return max(0, -int(value.as_tuple().exponent))


def unscaled(value: Decimal) -> int:
    """``value``'s digits as an integer (exactly, whatever the decimal context's precision)."""
    sign, digits, exponent = value.as_tuple()
    number = int("".join(map(str, digits)) or "0") * 10 ** max(0, int(exponent))
    return -number if sign else number


def decimal_varint(value: int) -> bytes:
    """``value`` (any size: Hive 0.11 stores up to 38 digits) as a zigzag varint, as decimal DATA streams hold it."""
    u = 2 * value if value >= 0 else -2 * value - 1
    out = bytearray()
    while True:
        byte, u = u & 0x7F, u >> 7
        out.append(byte | (0x80 if u else 0))
        if not u:
            return bytes(out)


def _statistics(stats: pb.ColumnStatistics, values: Sequence[Decimal | None]) -> None:
    present = [v for v in values if v is not None]
    stats.Clear()
    stats.numberOfValues = len(present)
    stats.hasNull = len(present) < len(values)
    if present:
        with decimal.localcontext(decimal.Context(prec=80)):
            stats.decimalStatistics.minimum = str(min(present))
            stats.decimalStatistics.maximum = str(max(present))
            stats.decimalStatistics.sum = str(sum(present, Decimal(0)))


def write_hive11_decimals(
    path: str | Path,
    columns: Mapping[str, Sequence[Decimal | None]],
    *,
    stride: int = 1000,
    stripe_rows: int | None = None,
    compression: str = "uncompressed",
) -> Path:
    """Write the decimal ``columns`` (beside an ``id`` int column, 0, 1, 2, ...) as Hive 0.11 decimals.

    ``stripe_rows`` cuts stripes of that many rows (pyarrow writes a batch at a time); ``stride`` is the row
    index stride. The file is uncompressed unless ``compression`` names pyarrow's codec (streams are then stored
    as original chunks, whatever the codec).
    """
    names = list(columns)
    n = len(columns[names[0]])
    arrays = {"id": pa.array(range(n), pa.int32())}
    for name in names:
        arrays[name] = pa.array([None if v is None else Decimal(0) for v in columns[name]], pa.decimal128(38, 0))
    options: dict[str, object] = {"file_version": "0.11", "compression": compression, "row_index_stride": stride}
    if stripe_rows is not None:
        options.update(stripe_size=1, batch_size=stripe_rows)
    sink = pa.BufferOutputStream()
    po.write_table(pa.table(arrays), sink, **options)
    model = decode_file(sink.getvalue().to_pybytes())
    column_ids = {name: 2 + i for i, name in enumerate(names)}  # struct 0, id 1, then the decimals
    for name, column in column_ids.items():
        t = model.footer.types[column]
        t.ClearField("precision")
        t.ClearField("scale")
        _statistics(model.footer.statistics[column], columns[name])
    first = 0
    for number, stripe in enumerate(model.stripes):
        rows = stripe.info.numberOfRows
        for name, column in column_ids.items():
            values = list(columns[name][first : first + rows])
            _rewrite_column(stripe, column, values, stride, model.block_size if model.compressed else None)
        if model.metadata:
            metadata = pb.Metadata.FromString(model.metadata)
            for name, column in column_ids.items():
                _statistics(metadata.stripeStats[number].colStats[column], columns[name][first : first + rows])
            model.metadata = metadata.SerializeToString()
        first += rows
    path = Path(path)
    path.write_bytes(encode_file(model))
    return path


def _position(offset: int, block: int | None) -> list[int]:
    """A byte offset into a stream as a position: itself, or (compressed: :func:`encode_file` stores original
    chunks of ``block`` bytes behind 3-byte headers) the chunk's start and the offset inside it."""
    if block is None:
        return [offset]
    chunk, inside = divmod(offset, block)
    return [chunk * (block + 3), inside]


def _rewrite_column(stripe: object, column: int, values: list[Decimal | None], stride: int, block: int | None) -> None:
    data, scales = bytearray(), bytearray()
    group_starts: list[tuple[int, int]] = []  # per row group: DATA offset, SECONDARY offset
    for start in range(0, max(len(values), 1), stride):
        group = [v for v in values[start : start + stride] if v is not None]
        group_starts.append((len(data), len(scales)))
        data += b"".join(decimal_varint(unscaled(v)) for v in group)
        scales += encode_rle_v1([stored_scale(v) for v in group], True) if group else b""
    streams = stripe.streams  # type: ignore[attr-defined]
    for s in streams:
        if s.column == column and s.kind == DATA:
            s.data = bytes(data)
        elif s.column == column and s.kind == SECONDARY:
            s.data = bytes(scales)
        elif s.column == column and s.kind == ROW_INDEX:
            index = pb.RowIndex.FromString(s.data)
            for g, entry in enumerate(index.entry):
                data_at, scale_at = group_starts[g]
                # PRESENT's positions (when the stripe has a PRESENT stream) come first and stay; DATA is a byte
                # offset, SECONDARY a run start with no values to skip (compressed files: a chunk offset before)
                head = list(entry.positions)[: len(entry.positions) - (3 if block is None else 5)]
                tail = [*_position(data_at, block), *_position(scale_at, block), 0]
                del entry.positions[:]
                entry.positions.extend(head + tail)
                group = values[g * stride : (g + 1) * stride]
                _statistics(entry.statistics, group)
            s.data = index.SerializeToString()
