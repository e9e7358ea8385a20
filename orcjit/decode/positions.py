"""Row index positions: each RowIndexEntry's flat ``positions`` list, split once into one record per stream.

A column's positions list concatenates, stream after stream, where each of its streams stands at the row group's
first row. The streams come in a fixed order per type and encoding (the spec's Column Encodings tables, which is
not the order the streams lie in the stripe), and each takes a number of values set by how it is stored:

==================  ======================================  ===================  ==========================
stored as           streams                                 uncompressed file    compressed file
==================  ======================================  ===================  ==========================
boolean RLE         PRESENT, boolean DATA                   offset, bytes, bits  chunk, offset, bytes, bits
byte/integer RLE    tinyint and union DATA, integer DATA,   offset, values       chunk, offset, values
                    LENGTH, SECONDARY, dictionary ids
raw bytes           float/double DATA, string/binary DATA   offset               chunk, offset
varints             decimal DATA                            offset               chunk, offset
==================  ======================================  ===================  ==========================

"chunk" is the byte offset of a compression chunk's header in the stream, "offset" the bytes to pass over in
the decompressed chunk (or in the stream, uncompressed), "values" the values of the run starting there that
belong to earlier rows, "bits" the bits of the current byte already used. Decimal digits are varints outside any
run, so their position is exact and has no value count. Dictionaries have no position: they are read whole.

PRESENT comes first, and only when the stripe has a PRESENT stream for the column: the Java and C++ writers
drop a column's PRESENT positions when they drop its PRESENT stream (no nulls in the stripe). Checked on files
of ORC Java (Spark, Hive's test files), ORC C++ (pyarrow, pyorc), RLE v1 and v2, every codec.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from ..errors import OrcError
from ..stripes import (
    DATA,
    DICTIONARY_ENCODINGS,
    LENGTH,
    PRESENT,
    SECONDARY,
    StripeFooterInfo,
    encoding_name,
    stream_kind_name,
)
from ..types.kinds import BYTES_KINDS, INTEGER_KINDS, TIMESTAMP_KINDS
from ..types.schema import TypeNode
from .streams import stored_as_integers

# how a stream's values are stored: decides how many numbers its position takes and how a reader skips
BOOLEAN = "boolean RLE"
RLE = "RLE"
RAW = "raw bytes"
VARINTS = "varints"

# numbers per stream position in an uncompressed file (a compressed one adds the chunk offset)
_NUMBERS = {BOOLEAN: 3, RLE: 2, RAW: 1, VARINTS: 1}

# the kinds whose DATA is integer RLE (tinyint is byte RLE)
_RLE_INTEGER_KINDS = (INTEGER_KINDS - {"tinyint"}) | {"date"}


@dataclass(frozen=True)
class StreamPosition:
    """Where one stream of a column stands at a row group's first row.

    Attributes
    ----------
    kind : int
        The stream kind (``PRESENT``, ``DATA``, ``LENGTH`` or ``SECONDARY``).
    layout : str
        How the stream is stored: ``BOOLEAN``, ``RLE``, ``RAW`` or ``VARINTS``.
    chunk_offset : int
        Compressed files: the byte offset in the stream of the compression chunk to start decompressing at.
        Uncompressed files: the byte offset in the stream to start reading at.
    decompressed_offset : int
        Compressed files: the bytes of the decompressed chunk to pass over. Uncompressed files: 0.
    values_to_skip : int
        RLE and boolean streams: values of the run starting there that belong to earlier rows (bytes, for
        boolean streams). 0 for raw bytes and varints.
    bits_to_skip : int
        Boolean streams: bits of the next byte that belong to earlier rows. 0 otherwise.
    """

    kind: int
    layout: str
    chunk_offset: int
    decompressed_offset: int = 0
    values_to_skip: int = 0
    bits_to_skip: int = 0

    @property
    def booleans_to_skip(self) -> int:
        """Boolean streams: the booleans to pass over from the run's start."""
        return 8 * self.values_to_skip + self.bits_to_skip


def stream_layouts(node: TypeNode, encoding: int, decimal64: bool = False) -> tuple[tuple[int, str], ...]:
    """The streams with a position for a column of ``node``'s type in ``encoding``, PRESENT aside, in the
    fixed order of the positions list (``decimal64``: the file is ORC Java's pre-2.0 format, see
    :func:`~orcjit.decode.streams.stored_as_integers`).

    Raises
    ------
    OrcError
        For a type this reader does not know.
    """
    kind = node.kind
    if kind == "boolean":
        return ((DATA, BOOLEAN),)
    if kind in ("tinyint", "uniontype"):
        return ((DATA, RLE),)
    if kind in _RLE_INTEGER_KINDS:
        return ((DATA, RLE),)
    if kind in ("float", "double"):
        return ((DATA, RAW),)
    if kind in BYTES_KINDS:
        if encoding in DICTIONARY_ENCODINGS:
            return ((DATA, RLE),)
        return ((DATA, RAW), (LENGTH, RLE))
    if kind in TIMESTAMP_KINDS:
        return ((DATA, RLE), (SECONDARY, RLE))
    if kind == "decimal":
        return ((DATA, RLE),) if stored_as_integers(node, decimal64) else ((DATA, VARINTS), (SECONDARY, RLE))
    if kind in ("array", "map"):
        return ((LENGTH, RLE),)
    if kind == "struct":
        return ()
    raise OrcError(f"column {node.column_id}: no row index positions known for type {kind}")


@functools.lru_cache(maxsize=256)
def positions_length(layouts: tuple[tuple[int, str], ...], has_present: bool, compressed: bool) -> int:
    """How many numbers a positions list of these streams holds."""
    per = [_NUMBERS[layout] + compressed for _, layout in layouts]
    return sum(per) + (has_present and _NUMBERS[BOOLEAN] + compressed)


def split_positions(
    positions: Sequence[int], layouts: Sequence[tuple[int, str]], has_present: bool, compressed: bool
) -> dict[int, StreamPosition] | None:
    """One :class:`StreamPosition` per stream kind, or ``None`` if ``positions`` has the wrong length."""
    if len(positions) != positions_length(layouts, has_present, compressed):
        return None
    streams = (((PRESENT, BOOLEAN),) if has_present else ()) + tuple(layouts)
    out: dict[int, StreamPosition] = {}
    i = 0
    for kind, layout in streams:
        chunk = int(positions[i])
        offset = int(positions[i + 1]) if compressed else 0
        i += 1 + compressed
        values = bits = 0
        if layout in (RLE, BOOLEAN):
            values = int(positions[i])
            i += 1
        if layout == BOOLEAN:
            bits = int(positions[i])
            i += 1
        out[kind] = StreamPosition(kind, layout, chunk, offset, values, bits)
    return out


class ColumnPositions(Sequence[dict[int, StreamPosition]]):
    """One column's stream positions per row group of a stripe, split when first asked for.

    A read enters a stripe at a few row groups; splitting the lists of all of them (hundreds per column in a large
    stripe) would cost more than the read itself.
    """

    def __init__(
        self,
        entries: Sequence[Sequence[int]],
        node: TypeNode,
        footer: StripeFooterInfo,
        compressed: bool,
        where: str,
        decimal64: bool = False,
    ) -> None:
        self._entries = entries
        self._node = node
        self._compressed = compressed
        self._where = where
        column = node.column_id
        self._encoding = footer.encodings[column].kind if column < len(footer.encodings) else 0
        self._layouts = stream_layouts(node, self._encoding, decimal64)
        self._has_present = any(s.column == column and s.kind == PRESENT for s in footer.streams)
        self._split: dict[int, dict[int, StreamPosition]] = {}
        # lengths are checked for every group up front (cheap), so a corrupt index fails before any read
        expected = positions_length(self._layouts, self._has_present, compressed)
        if isinstance(entries, np.ndarray) and entries.ndim == 2:
            if len(entries) and entries.shape[1] != expected:
                self._raise(0, entries[0])
            return
        for group, positions in enumerate(entries):
            if len(positions) != expected:
                self._raise(group, positions)

    def __len__(self) -> int:
        return len(self._entries)

    def chunk_offsets(self, kind: int) -> np.ndarray:
        """Where stream ``kind``'s chunk (or byte offset) stands at each row group, without splitting the lists:
        an ``int64`` array, zeros for a kind without positions."""
        index = 0
        streams = (((PRESENT, BOOLEAN),) if self._has_present else ()) + tuple(self._layouts)
        for k, layout in streams:
            if k == kind:
                if isinstance(self._entries, np.ndarray):
                    return self._entries[:, index].astype(np.int64)
                return np.array([int(e[index]) for e in self._entries], dtype=np.int64)
            index += _NUMBERS[layout] + self._compressed
        return np.zeros(len(self._entries), dtype=np.int64)

    def __getitem__(self, group):  # type: ignore[no-untyped-def,override]
        """The records of row ``group``; a slice gives an iterator over the groups' records, split as it goes."""
        if isinstance(group, slice):
            return (self[g] for g in range(*group.indices(len(self))))
        if group in self._split:
            return self._split[group]
        positions = self._entries[group]
        split = split_positions(positions, self._layouts, self._has_present, self._compressed)
        if split is None:
            self._raise(group, positions)
        self._split[group] = split
        return split

    def _raise(self, group: int, positions: Sequence[int]) -> NoReturn:
        expected = positions_length(self._layouts, self._has_present, self._compressed)
        streams = ", ".join(
            f"{name} ({layout})"
            for name, layout in ((("PRESENT", BOOLEAN),) if self._has_present else ())
            + tuple((stream_kind_name(k), layout) for k, layout in self._layouts)
        )
        raise OrcError(
            f"{self._where}, column {self._node.column_id}, row group {group}: the row index holds "
            f"{len(positions)} positions, a {self._node.kind} column in {encoding_name(self._encoding)} "
            f"encoding needs {expected} ({streams or 'no streams'}; "
            f"{'compressed' if self._compressed else 'uncompressed'})"
        )


def column_positions(
    entries: Sequence[Sequence[int]],
    node: TypeNode,
    footer: StripeFooterInfo,
    compressed: bool,
    where: str,
    decimal64: bool = False,
) -> ColumnPositions:
    """The positions lists of one column's row index (one list per row group) in one stripe, split into
    :class:`StreamPosition` records per row group as they are used.

    ``where`` names the file and stripe for errors; indexing a row group whose list has the wrong length for the
    column's type, encoding and streams raises :class:`~orcjit.OrcError`. ``decimal64``: the file is ORC Java's
    pre-2.0 format.
    """
    return ColumnPositions(entries, node, footer, compressed, where, decimal64)
