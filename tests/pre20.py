"""ORC files in ORC Java's pre-2.0 format (file version 1.9999) built without a JVM, for the fuzz corpus and tests
that must run where Spark does not: decimals of precision 18 or less stored as their unscaled values in one signed
RLE v2 DATA stream, with no SECONDARY stream of scales, the column's encoding stated DIRECT.

:func:`write_pre20_decimals` takes the file pyarrow writes (ORC 0.12, RLE v2) for the same values, states version
1.9999 in the postscript and writes each short decimal column's DATA stream again, dropping its SECONDARY stream;
its row index positions (DATA: a byte offset, then the values to skip in the run, always 0 as every row group
starts runs of its own) are rewritten to match. Statistics stay as pyarrow computed them: they describe the same
values. ``tests/test_decimal_layouts.py`` checks the result against the files ORC Java writes and ORC Java's reader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as po

from orcjit._proto import orc_proto_pb2 as pb

from . import rle_v2_reference as v2
from .fuzz_harness import Stripe, decode_file, encode_file
from .hive11 import DATA, ROW_INDEX, SECONDARY, _position, unscaled

MAX_DECIMAL64_PRECISION = 18


def write_pre20_decimals(
    path: str | Path,
    columns: Mapping[str, tuple[int, int, Sequence[Decimal | None]]],
    *,
    stride: int = 1000,
    stripe_rows: int | None = None,
    compression: str = "uncompressed",
) -> Path:
    """Write the decimal ``columns`` (name -> precision, scale, values; beside an ``id`` int column 0, 1, 2, ...)
    as ORC Java's pre-2.0 format writes them.

    ``stripe_rows`` cuts stripes of that many rows; ``stride`` is the row index stride. Streams of a compressed
    file are stored as original chunks, whatever ``compression`` names.
    """
    names = list(columns)
    n = len(columns[names[0]][2])
    arrays = {"id": pa.array(range(n), pa.int32())}
    for name, (precision, scale, values) in columns.items():
        arrays[name] = pa.array(values, pa.decimal128(precision, scale))
    options: dict[str, object] = {"file_version": "0.12", "compression": compression, "row_index_stride": stride}
    if stripe_rows is not None:
        options.update(stripe_size=1, batch_size=stripe_rows)
    sink = pa.BufferOutputStream()
    po.write_table(pa.table(arrays), sink, **options)
    model = decode_file(sink.getvalue().to_pybytes())
    del model.postscript.version[:]
    model.postscript.version.extend([1, 9999])
    short = {2 + i: name for i, name in enumerate(names) if columns[name][0] <= MAX_DECIMAL64_PRECISION}
    first = 0
    for stripe in model.stripes:
        rows = stripe.info.numberOfRows
        for column, name in short.items():
            values = list(columns[name][2][first : first + rows])
            _rewrite_column(stripe, column, values, stride, model.block_size if model.compressed else None)
        first += rows
    path = Path(path)
    path.write_bytes(encode_file(model))
    return path


def _runs(values: list[int]) -> bytes:
    return b"".join(v2.direct(values[i : i + 512], True) for i in range(0, len(values), 512))


def _rewrite_column(stripe: Stripe, column: int, values: list[Decimal | None], stride: int, block: int | None) -> None:
    data = bytearray()
    group_starts: list[int] = []
    for start in range(0, max(len(values), 1), stride):
        group_starts.append(len(data))
        data += _runs([unscaled(v) for v in values[start : start + stride] if v is not None])
    # a pyarrow 0.12 decimal's positions end with DATA's (1 or 2: chunk, offset) and SECONDARY's (2 or 3: chunk,
    # offset, run); what comes before them (PRESENT's) stays
    ours = 3 if block is None else 5
    kept = []
    for s in stripe.streams:
        if s.column == column and s.kind == SECONDARY:
            continue
        if s.column == column and s.kind == DATA:
            s.data = bytes(data)
        elif s.column == column and s.kind == ROW_INDEX:
            index = pb.RowIndex.FromString(s.data)
            for g, entry in enumerate(index.entry):
                head = list(entry.positions)[: len(entry.positions) - ours]
                del entry.positions[:]
                entry.positions.extend([*head, *_position(group_starts[g], block), 0])
            s.data = index.SerializeToString()
        kept.append(s)
    stripe.streams[:] = kept
    stripe.footer.columns[column].kind = pb.ColumnEncoding.DIRECT  # what ORC Java states, though the data is RLE v2
