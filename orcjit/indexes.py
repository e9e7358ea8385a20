"""A stripe's indexes as public objects: the row index (statistics and stream positions per row group) and the
bloom filters of one column.

Reads use these indexes through array kernels (:mod:`orcjit.pushdown.rowgroups`, :mod:`orcjit.decode.seek`);
these objects are for people looking at a file: a notebook plotting row-group ranges, ``orcjit index`` and
``orcjit bloom``. They decode through the protobuf runtime, which is plenty fast for one column of one stripe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._proto import orc_proto_pb2 as pb
from .decode.positions import StreamPosition, column_positions
from .errors import OrcError
from .filemeta import FileMeta
from .kernels.bloom import bloom_filter_reliable, filters_may_contain, hash_candidates, read_bloom_filter_index
from .pushdown.prune import bloom_filters_trusted
from .pushdown.rowgroups import read_index_stream
from .statistics import ColumnStatistics, decode_statistics
from .stripes import BLOOM_FILTER, BLOOM_FILTER_UTF8, ROW_INDEX, StripeFooterInfo, StripeInfo, stream_kind_name
from .tail import parse_message
from .types.resolve import resolve_column
from .types.schema import TypeNode

__all__ = ["BloomFilterIndex", "RowIndex", "StreamPosition"]


@dataclass(frozen=True)
class RowIndex:
    """One column's row index in one stripe: statistics and stream positions for each row group.

    Attributes
    ----------
    stripe : int
        The stripe's number.
    column_id : int
    path : str
        The column's dotted path (``""`` for the root).
    stride : int
        Rows per row group (the file's row index stride); the last group of a stripe may hold fewer.
    first_rows : numpy.ndarray
        Each row group's first row, counted from the start of the file.
    rows : numpy.ndarray
        Rows in each row group.
    statistics : list of ColumnStatistics
        Each row group's statistics, as :attr:`orcjit.ORCFile.statistics` gives them for the file.
    positions : list of dict
        Each row group's stream positions: stream kind name (``"PRESENT"``, ``"DATA"``, ``"LENGTH"``,
        ``"SECONDARY"``) to a :class:`StreamPosition` saying where in that stream the group's first row starts.
        Empty for columns without positioned streams (structs).
    compressed : bool
        Whether positions name a compression chunk and an offset inside it (compressed files) or a plain byte
        offset.
    """

    stripe: int
    column_id: int
    path: str
    stride: int
    first_rows: np.ndarray
    rows: np.ndarray
    statistics: list[ColumnStatistics]
    positions: list[dict[str, StreamPosition]]
    compressed: bool

    def __len__(self) -> int:
        return len(self.statistics)

    def to_frame(self) -> pd.DataFrame:
        """One row per row group: its first row and rows, its statistics (the fields recorded for any group),
        and one text column per stream position (``DATA: chunk 0 + 120, 3 values``)."""
        records = []
        for g, stats in enumerate(self.statistics):
            record: dict[str, Any] = {"group": g, "first_row": int(self.first_rows[g]), "rows": int(self.rows[g])}
            record.update({k: v for k, v in stats.to_dict().items() if k not in ("column_id", "kind")})
            for name, position in self.positions[g].items():
                record[f"{name} position"] = describe_position(position, self.compressed)
            records.append(record)
        frame = pd.DataFrame.from_records(records)
        recorded = [c for c in frame.columns if frame[c].notna().any()]
        return frame[recorded]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly form: the column, the stride and one entry per row group."""
        groups = []
        for g, stats in enumerate(self.statistics):
            entry = {k: v for k, v in stats.to_dict().items() if v is not None and k not in ("column_id", "kind")}
            groups.append(
                {
                    "group": g,
                    "first_row": int(self.first_rows[g]),
                    "rows": int(self.rows[g]),
                    "statistics": entry,
                    "positions": {name: position_dict(p, self.compressed) for name, p in self.positions[g].items()},
                }
            )
        return {
            "stripe": self.stripe,
            "column_id": self.column_id,
            "path": self.path,
            "stride": self.stride,
            "compressed": self.compressed,
            "row_groups": groups,
        }


def position_dict(p: StreamPosition, compressed: bool) -> dict[str, int]:
    """The numbers of a stream position that apply to its layout, by name."""
    out = {"chunk_offset": p.chunk_offset} if compressed else {"byte_offset": p.chunk_offset}
    if compressed:
        out["decompressed_offset"] = p.decompressed_offset
    if p.layout in ("RLE", "boolean RLE"):
        out["values_to_skip"] = p.values_to_skip
    if p.layout == "boolean RLE":
        out["bits_to_skip"] = p.bits_to_skip
    return out


def describe_position(p: StreamPosition, compressed: bool) -> str:
    """``chunk 0 + 120, 3 values`` (compressed) or ``byte 120, 3 values``: a position as a short phrase."""
    text = f"chunk {p.chunk_offset} + {p.decompressed_offset}" if compressed else f"byte {p.chunk_offset}"
    if p.layout == "boolean RLE":
        text += f", {p.values_to_skip} bytes {p.bits_to_skip} bits"
    elif p.layout == "RLE":
        text += f", {p.values_to_skip} values"
    return text


@dataclass(frozen=True)
class BloomFilterIndex:
    """One column's bloom filters in one stripe, one filter per row group.

    Attributes
    ----------
    stripe : int
    column_id : int
    path : str
    kind : str
        The column's type kind.
    stream : str
        ``"BLOOM_FILTER_UTF8"`` (every writer since ORC-101) or ``"BLOOM_FILTER"`` (older writers).
    reliable : bool
        Whether orcjit skips row groups on these filters' word. Some writers hash some types wrongly (ORC C++
        tinyint and char, ORC C++ 1.6.0 to 1.7.0 everything, old writers' strings and timestamps); their filters
        are shown but never prune.
    num_hash_functions : numpy.ndarray
        ``k`` of each row group's filter.
    num_bits : numpy.ndarray
        ``m`` of each row group's filter.
    bits : numpy.ndarray
        The bitsets, one row of ``uint64`` words per row group (narrower filters padded with zeros).
    """

    stripe: int
    column_id: int
    path: str
    kind: str
    stream: str
    reliable: bool
    num_hash_functions: np.ndarray
    num_bits: np.ndarray
    bits: np.ndarray

    def __len__(self) -> int:
        return int(self.bits.shape[0])

    @property
    def fill_ratio(self) -> np.ndarray:
        """The share of each filter's bits that are set: near 0.5 for a filter sized as the writer intended,
        near 1 for an overfull one that rules little out."""
        ones = np.unpackbits(self.bits.view(np.uint8), axis=1).sum(axis=1)
        return ones / self.num_bits

    @property
    def false_positive_rate(self) -> np.ndarray:
        """Each filter's estimated chance of answering "maybe" for an absent value: ``fill_ratio ** k``."""
        return self.fill_ratio**self.num_hash_functions

    def might_contain(self, value: Any) -> np.ndarray:
        """Per row group: may ``value`` be in it? ``False`` means certainly not, if :attr:`reliable`.

        ``value`` takes the column's Python type (``int``, ``float``, ``str``, ``bytes``, ``datetime.date``,
        ``decimal.Decimal``, ``pandas.Timestamp``); a value no filter can rule out (a timestamp beyond what the
        writer hashed, say) gives all True.

        Raises
        ------
        OrcError
            If ``value`` cannot be a value of the column's type.
        """
        stacked = (self.bits, self.num_bits, self.num_hash_functions)
        return filters_may_contain(stacked, hash_candidates(value, self.kind))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly form without the bits: ``k``, ``m`` and fill ratio per row group."""
        return {
            "stripe": self.stripe,
            "column_id": self.column_id,
            "path": self.path,
            "stream": self.stream,
            "reliable": self.reliable,
            "row_groups": [
                {"group": g, "num_hash_functions": int(k), "num_bits": int(m), "fill_ratio": float(f)}
                for g, (k, m, f) in enumerate(
                    zip(self.num_hash_functions.tolist(), self.num_bits.tolist(), self.fill_ratio.tolist(), strict=True)
                )
            ],
        }


# -- reading --------------------------------------------------------------------------------------------------------


def _column(schema: TypeNode, column: str | int) -> TypeNode:
    """The node a ``column`` argument names: a name, a dotted path or a column id."""
    if isinstance(column, bool) or not isinstance(column, str | int):
        raise OrcError(f"column must be a dotted path or a column id, got {type(column).__name__}")
    return resolve_column(schema, column, ints="column_id", spelling="orc")


def _stream(meta: FileMeta, stripe: StripeInfo, footer: StripeFooterInfo, column: int, kind: int) -> bytes | None:
    found = [s for s in footer.streams if s.column == column and s.kind == kind]
    return bytes(read_index_stream(meta.source, meta.tail, stripe, found[0])) if found else None


def _check_unencrypted(meta: FileMeta, node: TypeNode, what: str) -> None:
    encryption = meta.encryption
    hit = encryption.covering(node.column_id) if encryption is not None else None
    if hit is not None:
        raise OrcError(f"{meta.name}: column {hit.describe()} is encrypted; orcjit cannot read its {what}")


def read_row_index(meta: FileMeta, index: int, column: str | int) -> RowIndex | None:
    """The row index of ``column`` in stripe ``index`` (a valid stripe number); ``None`` if the file has none
    there."""
    stripe = meta.stripes[index]
    node = _column(meta.schema, column)
    _check_unencrypted(meta, node, "row index")
    stride = meta.stride
    footer = meta.stripe_footer(index)
    raw = _stream(meta, stripe, footer, node.column_id, ROW_INDEX)
    if raw is None or stride <= 0:
        return None
    where = f"{meta.name}: stripe {stripe.index}"
    message = parse_message(pb.RowIndex, raw, f"{where}, column {node.column_id} row index")
    groups = (stripe.rows + stride - 1) // stride
    if len(message.entry) != groups:
        raise OrcError(
            f"{where}, column {node.column_id}: the row index has {len(message.entry)} entries, but {stripe.rows} "
            f"rows at a stride of {stride} make {groups} row groups"
        )
    starts = stride * np.arange(groups, dtype=np.int64)
    entries = [list(e.positions) for e in message.entry]
    split = column_positions(entries, node, footer, meta.compressed, where, meta.tail.decimal64)
    return RowIndex(
        stripe=stripe.index,
        column_id=node.column_id,
        path=node.path,
        stride=stride,
        first_rows=stripe.first_row + starts,
        rows=np.minimum(stride, stripe.rows - starts),
        statistics=[decode_statistics(e.statistics, node) for e in message.entry],
        positions=[{stream_kind_name(k): p for k, p in split[g].items()} for g in range(groups)],
        compressed=meta.compressed,
    )


def read_bloom_filter(meta: FileMeta, index: int, column: str | int) -> BloomFilterIndex | None:
    """The bloom filters of ``column`` in stripe ``index`` (a valid stripe number); ``None`` if the writer made
    none there."""
    stripe = meta.stripes[index]
    node = _column(meta.schema, column)
    _check_unencrypted(meta, node, "bloom filters")
    footer = meta.stripe_footer(index)
    for kind in (BLOOM_FILTER_UTF8, BLOOM_FILTER):
        raw = _stream(meta, stripe, footer, node.column_id, kind)
        if raw is None:
            continue
        what = f"{meta.name}: stripe {stripe.index}, column {node.column_id} {stream_kind_name(kind)} stream"
        bits, num_bits, ks = read_bloom_filter_index(raw, what)
        return BloomFilterIndex(
            stripe=stripe.index,
            column_id=node.column_id,
            path=node.path,
            kind=node.kind,
            stream=stream_kind_name(kind),
            reliable=bloom_filters_trusted(meta.writer, meta.software_version)
            and bloom_filter_reliable(node.kind, meta.writer, meta.writer_version, kind),
            num_hash_functions=ks,
            num_bits=num_bits,
            bits=bits,
        )
    return None
