"""Stripes: where each stripe lies, and its footer's stream directory and column encodings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._proto import orc_proto_pb2 as pb
from .errors import OrcError
from .tail import FileTail, parse_message, text_field

__all__ = ["ColumnEncodingInfo", "StreamInfo", "StripeFooterInfo", "StripeInfo", "read_stripe_footer"]

STREAM_KIND_NAMES = {v.number: v.name for v in pb.Stream.Kind.DESCRIPTOR.values}
# Stream.Kind numbers: the data streams, then those of the index section
PRESENT, DATA, LENGTH, DICTIONARY_DATA, DICTIONARY_COUNT, SECONDARY = 0, 1, 2, 3, 4, 5
ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8 = 6, 7, 8
ENCRYPTED_INDEX, ENCRYPTED_DATA = 9, 10
DATA_KINDS = frozenset({PRESENT, DATA, LENGTH, DICTIONARY_DATA, SECONDARY})
INDEX_KINDS = frozenset({ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8})
ENCODING_NAMES = {v.number: v.name for v in pb.ColumnEncoding.Kind.DESCRIPTOR.values}
# ColumnEncoding.Kind numbers
DIRECT, DICTIONARY, DIRECT_V2, DICTIONARY_V2 = 0, 1, 2, 3
DICTIONARY_ENCODINGS = frozenset({DICTIONARY, DICTIONARY_V2})


def stream_kind_name(kind: int) -> str:
    """``DATA``, ``PRESENT``, ... or ``UNKNOWN(n)`` for a kind ORC v1 does not define."""
    return STREAM_KIND_NAMES.get(kind, f"UNKNOWN({kind})")


def rle_v2(encoding: int) -> bool:
    """Whether the integer streams of a column stored in ``encoding`` use RLE v2 (the ``_V2`` encodings)."""
    return encoding not in (DIRECT, DICTIONARY)


def encoding_name(kind: int) -> str:
    """``DIRECT``, ``DICTIONARY_V2``, ... or ``UNKNOWN(n)``."""
    return ENCODING_NAMES.get(kind, f"UNKNOWN({kind})")


@dataclass(frozen=True)
class StripeInfo:
    """Where a stripe lies in the file and how many rows it holds.

    Attributes
    ----------
    index : int
        The stripe's number, from 0.
    offset : int
        Byte offset of the stripe's first byte.
    index_length, data_length, footer_length : int
        Lengths of its index streams, data streams and stripe footer.
    rows : int
        Number of rows.
    first_row : int
        The file row number of its first row.
    """

    index: int
    offset: int
    index_length: int
    data_length: int
    footer_length: int
    rows: int
    first_row: int

    @property
    def length(self) -> int:
        """Total bytes of the stripe."""
        return self.index_length + self.data_length + self.footer_length

    @property
    def footer_offset(self) -> int:
        """Byte offset of the stripe footer."""
        return self.offset + self.index_length + self.data_length


class StreamInfo(NamedTuple):
    """One stream of a stripe: its kind, column, and absolute byte range in the file.

    A named tuple rather than a frozen dataclass: a stripe footer lists a few streams per column, and every read
    makes them all, at a third of the cost."""

    kind: int
    column: int
    offset: int
    length: int

    @property
    def kind_name(self) -> str:
        """The stream kind's name, e.g. ``DATA``."""
        return stream_kind_name(self.kind)


class ColumnEncodingInfo(NamedTuple):
    """How a column is encoded in a stripe (a named tuple, as :class:`StreamInfo`)."""

    kind: int
    dictionary_size: int | None = None
    bloom_encoding: int | None = None

    @property
    def kind_name(self) -> str:
        """The encoding's name, e.g. ``DIRECT_V2``."""
        return encoding_name(self.kind)


@dataclass
class StripeFooterInfo:
    """The decoded stripe footer: stream directory, column encodings and writer time zone.

    ``encrypted_streams`` holds, for each encryption variant of the file, the streams it keeps encrypted inside
    the stripe's ``ENCRYPTED_INDEX`` and ``ENCRYPTED_DATA`` areas (orcjit cannot decrypt them; the ordinary
    ``streams`` hold the masked copy of the same columns).
    """

    streams: list[StreamInfo]
    encodings: list[ColumnEncodingInfo]
    writer_timezone: str | None
    encrypted_variants: int = 0
    raw: Any = field(default=None, repr=False)
    encrypted_streams: list[list[StreamInfo]] = field(default_factory=list)


def stripe_infos(footer: pb.Footer) -> list[StripeInfo]:
    """The stripes listed in the footer, with their first row numbers."""
    out = []
    first_row = 0
    for i, s in enumerate(footer.stripes):
        out.append(
            StripeInfo(
                index=i,
                offset=s.offset,
                index_length=s.indexLength,
                data_length=s.dataLength,
                footer_length=s.footerLength,
                rows=s.numberOfRows,
                first_row=first_row,
            )
        )
        first_row += s.numberOfRows
    return out


def read_stripe_footer(source: Any, tail: FileTail, stripe: StripeInfo, ncolumns: int) -> StripeFooterInfo:
    """Read, decompress and check the footer of ``stripe``.

    Streams are laid out back to back from the stripe's first byte in the order the footer lists them; each must
    end inside the stripe's index and data sections.

    Raises
    ------
    OrcError
        If the footer is corrupt, a stream runs outside the stripe, or a stream names a column the schema lacks.
    """
    what = f"{source.name}: stripe {stripe.index} footer at offset {stripe.footer_offset}"
    raw = source.read(stripe.footer_offset, stripe.footer_length)
    msg = parse_message(pb.StripeFooter, tail.decompress_message(raw, what), what)
    streams = []
    pos = stripe.offset
    end = stripe.offset + stripe.index_length + stripe.data_length
    for s in msg.streams:
        kind, column, length = s.kind, s.column, s.length
        if column >= ncolumns:
            raise OrcError(f"{what}: {stream_kind_name(kind)} stream names column {column}, the schema has {ncolumns}")
        if pos + length > end:
            raise OrcError(
                f"{what}: {stream_kind_name(kind)} stream of column {column} spans bytes "
                f"[{pos}, {pos + length}), past the end of the stripe's streams at {end}"
            )
        streams.append(StreamInfo(kind, column, pos, length))
        pos += length
    encrypted = _encrypted_streams(msg, streams, ncolumns, what)
    variants = len(tail.footer.encryption.variants)
    if msg.encryption and len(msg.encryption) != variants:
        raise OrcError(f"{what}: {len(msg.encryption)} encryption variants, the file footer has {variants}")
    encodings = [
        ColumnEncodingInfo(
            kind=e.kind,
            dictionary_size=e.dictionarySize if e.HasField("dictionarySize") else None,
            bloom_encoding=e.bloomEncoding if e.HasField("bloomEncoding") else None,
        )
        for e in msg.columns
    ]
    return StripeFooterInfo(
        streams=streams,
        encodings=encodings,
        writer_timezone=text_field(msg.writerTimezone) if msg.HasField("writerTimezone") else None,
        encrypted_variants=len(msg.encryption),
        raw=msg,
        encrypted_streams=encrypted,
    )


def _encrypted_streams(msg: Any, streams: list[StreamInfo], ncolumns: int, what: str) -> list[list[StreamInfo]]:
    """Each encryption variant's streams, laid out as ORC Java lays them: the index streams of every variant in
    turn inside the ``ENCRYPTED_INDEX`` area, their data streams inside ``ENCRYPTED_DATA``.

    Raises
    ------
    OrcError
        If an area is listed twice, or a variant's streams run past the end of their area.
    """
    if not msg.encryption:
        return []
    cursor, end = {}, {}
    for kind in (ENCRYPTED_INDEX, ENCRYPTED_DATA):
        areas = [s for s in streams if s.kind == kind]
        if len(areas) > 1:
            raise OrcError(f"{what}: {len(areas)} {stream_kind_name(kind)} streams, ORC writes at most one")
        cursor[kind] = areas[0].offset if areas else 0
        end[kind] = areas[0].offset + areas[0].length if areas else 0
    out = []
    for i, variant in enumerate(msg.encryption):
        listed = []
        for s in variant.streams:
            area = ENCRYPTED_INDEX if s.kind in INDEX_KINDS else ENCRYPTED_DATA
            if s.column >= ncolumns:
                raise OrcError(
                    f"{what}: encryption variant {i}: {stream_kind_name(s.kind)} stream names column {s.column}, "
                    f"the schema has {ncolumns}"
                )
            if cursor[area] + s.length > end[area]:
                raise OrcError(
                    f"{what}: encryption variant {i}: {stream_kind_name(s.kind)} stream of column {s.column} "
                    f"spans bytes [{cursor[area]}, {cursor[area] + s.length}), past the end of the stripe's "
                    f"{stream_kind_name(area)} area at {end[area]}"
                )
            listed.append(StreamInfo(kind=s.kind, column=s.column, offset=cursor[area], length=s.length))
            cursor[area] += s.length
        out.append(listed)
    return out
