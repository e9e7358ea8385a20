"""Reading the file tail: PostScript, Footer and Metadata.

The tail is read backwards from the end of the file. One read of the last 16 KiB usually holds all of it (the
final byte is the PostScript's length, the PostScript gives the Footer's and Metadata's lengths); only a tail
larger than that costs a second read, of exactly the missing bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import DecodeError

from ._proto import orc_proto_pb2 as pb
from .compression import CODEC_NAMES, NONE, What, decompress_stream, iter_chunks, stream_capacity
from .errors import OrcError
from .sources import ByteSource

__all__ = ["FileTail", "decompress_message", "parse_message", "read_tail"]

TAIL_READ_SIZE = 16 * 1024
HEADER = b"ORC"
# what ORC writers use when the PostScript does not say
DEFAULT_BLOCK_SIZE = 256 * 1024
# the 3-byte chunk header holds a 23-bit length; block sizes past this are corruption or hostility
MAX_BLOCK_SIZE = (1 << 23) - 1
# the largest protobuf message (Footer, Metadata, StripeFooter, RowIndex) ORC Java, ORC C++ and Trino parse: a
# few KB of compression chunks can expand to far more, which no writer's reader would accept
MAX_MESSAGE_SIZE = 1 << 30
HEADER_SIZE = 3
# bytes of a file's start that tell what a file that is not ORC is instead
SNIFF_SIZE = 64
# the version ORC Java and ORC C++ write when asked for the unfinished ORC 2.0 format ("UNSTABLE-PRE-2.0"):
# ORC v1 but for decimals of precision 18 or less, stored as integers (the decimal64 layout)
UNSTABLE_PRE_2_0 = (1, 9999)


# what each message is called in errors: ORC's names for the parts of a file, not the protobuf types
PART_NAMES = {
    "PostScript": "PostScript",
    "Footer": "file footer",
    "Metadata": "metadata (stripe statistics)",
    "StripeFooter": "stripe footer",
    "RowIndex": "row index",
    "BloomFilterIndex": "bloom filter index",
}


def parse_message(cls, data: bytes | memoryview, what: str):  # type: ignore[no-untyped-def]
    """Parse ``data`` as the protobuf message ``cls``, raising OrcError naming ``what`` on failure.

    Every protobuf section of a file is parsed here, so that a corrupt one is reported in ORC's words: the
    runtime's own text ("Error parsing message ...: Wire format was corrupt") says nothing to a user.
    """
    msg = cls()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        part = PART_NAMES.get(cls.__name__, cls.__name__)
        raise OrcError(f"{what} is corrupt: its {len(data)} bytes do not decode as an ORC {part}") from None
    return msg


def text_field(value: str | bytes) -> str:
    """A protobuf string field as ``str``.

    proto2 does not check UTF-8, and the Python runtime hands back ``bytes`` for a string field that is not valid
    UTF-8 (old writers and corrupt files produce them). Names and labels are shown with the bad bytes replaced.
    """
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


@dataclass
class FileTail:
    """The parsed tail of an ORC file.

    ``metadata_bytes`` stays compressed until stripe statistics are first asked for: most reads never need them.
    """

    postscript: pb.PostScript
    footer: pb.Footer
    metadata_bytes: bytes
    file_size: int
    tail_length: int
    compression: int
    block_size: int
    name: str = "<file>"

    @property
    def content_end(self) -> int:
        """Offset where the body ends and the tail begins."""
        return self.file_size - self.tail_length

    @property
    def decimal64(self) -> bool:
        """Whether the file stores decimals of precision 18 or less as integers (ORC Java's pre-2.0 format)."""
        return tuple(self.postscript.version)[:2] == UNSTABLE_PRE_2_0

    def decompress(self, data: bytes | memoryview, what: What) -> bytes | memoryview:
        """Decompress a stream of this file: read-only bytes, or a view when nothing needed decompressing (``what``:
        the stream in error messages' words, or a function giving them)."""
        return decompress_stream(data, self.compression, self.block_size, what)

    def decompress_message(self, data: bytes | memoryview, what: str) -> bytes | memoryview:
        """Decompress a protobuf section of this file (footer, metadata, stripe footer, row index), refusing to
        expand it past :data:`MAX_MESSAGE_SIZE`."""
        return decompress_message(data, self.compression, self.block_size, what)

    def metadata(self) -> pb.Metadata:
        """Parse the Metadata section (stripe statistics)."""
        what = f"{self.name}: metadata at offset {self.content_end}"
        raw = self.decompress_message(self.metadata_bytes, what)
        return parse_message(pb.Metadata, raw, what)


def decompress_message(data: bytes | memoryview, codec: int, block_size: int, what: str) -> bytes | memoryview:
    """Decompress the protobuf message ``data``, or raise OrcError once it expands past :data:`MAX_MESSAGE_SIZE`.

    A message whose chunks may expand past the limit is decompressed a chunk at a time, so that memory stays
    within the limit whatever the chunks hold.
    """
    if codec == NONE or stream_capacity(data, block_size) <= MAX_MESSAGE_SIZE:
        out = decompress_stream(data, codec, block_size, what)
    else:
        parts = bytearray()
        view = memoryview(data).cast("B")
        for pos, _, chunk in iter_chunks(view, block_size, what):
            parts += decompress_stream(view[pos : pos + HEADER_SIZE + len(chunk)], codec, block_size, what)
            if len(parts) > MAX_MESSAGE_SIZE:
                break
        out = memoryview(parts).toreadonly()
    if len(out) > MAX_MESSAGE_SIZE:
        raise OrcError(
            f"{what}: decompresses to more than {MAX_MESSAGE_SIZE} bytes, the largest message ORC readers parse"
        )
    return out


def read_tail(source: ByteSource) -> FileTail:
    """Read and validate the tail of the file behind ``source``.

    The magic is checked before anything is parsed, as ORC C++ checks it: ``"ORC"`` ends the PostScript (its
    magic field, the last one written) just before the final length byte. Only Hive 0.11 wrote PostScripts
    without it, and every ORC file starts with ``"ORC"``. A file that has neither is not ORC (the error says what
    it looks like instead); one that starts as ORC but does not end as ORC was cut short, unless it is a Hive 0.11
    file, which is then read. Only a file without the final magic costs a read of its start, when the read of
    its end did not hold it.

    Raises
    ------
    OrcError
        If the file is empty, is not ORC, is truncated, or its tail's lengths and offsets do not fit the file.
    """
    size = source.size
    name = source.name
    if size == 0:
        raise OrcError(f"{name}: not an ORC file: the file is empty (0 bytes)")
    first = min(size, TAIL_READ_SIZE)
    buf = source.read(size - first, first)
    # (in a file of a few bytes, the magic at the start is not a PostScript's)
    if size > 2 * len(HEADER) and buf[-1 - len(HEADER) : -1] == HEADER:
        return _parse_tail(source, buf, name)
    start = buf[:SNIFF_SIZE] if first == size else source.read(0, min(size, SNIFF_SIZE))
    if not start.startswith(HEADER):
        if HEADER.startswith(start):
            raise OrcError(f"{name}: truncated: the file is {size} bytes, the start of ORC's magic 'ORC'")
        raise OrcError(f"{name}: not an ORC file: {_looks_like(start, buf)}")
    try:
        return _parse_tail(source, buf, name)
    except OrcError as exc:
        detail = str(exc).removeprefix(f"{name}: ")
        raise OrcError(
            f"{name}: truncated: the file starts with ORC's magic but its end is not an ORC PostScript ({detail})"
        ) from None


def _parse_tail(source: ByteSource, buf: bytes, name: str) -> FileTail:
    """The tail whose last bytes (up to :data:`TAIL_READ_SIZE`) are ``buf``, parsed and checked."""
    size = source.size
    if size <= len(HEADER):
        raise OrcError(f"{name}: the file is {size} bytes, no more than ORC's magic")
    ps_len = buf[-1]
    ps_offset = size - 1 - ps_len
    if ps_len == 0 or ps_offset < len(HEADER):
        raise OrcError(
            f"{name}: the last byte gives a PostScript of {ps_len} bytes, which does not fit a file of {size} bytes"
        )
    ps_raw = buf[len(buf) - 1 - ps_len : len(buf) - 1]
    ps = parse_message(pb.PostScript, ps_raw, f"{name}: PostScript at offset {ps_offset}")
    version = tuple(ps.version)
    if version and version[0] != 0 and version[:2] != UNSTABLE_PRE_2_0:
        raise OrcError(
            f"{name}: file format version {'.'.join(map(str, version))} is not ORC v1 (0.11 or 0.12) nor ORC Java's "
            "pre-2.0 format (1.9999), which is what orcjit reads"
        )

    compression = ps.compression
    if compression not in CODEC_NAMES:
        raise OrcError(f"{name}: PostScript at offset {ps_offset} names unknown compression kind {compression}")
    block_size = ps.compressionBlockSize if ps.HasField("compressionBlockSize") else DEFAULT_BLOCK_SIZE
    if compression != NONE and not 0 < block_size <= MAX_BLOCK_SIZE:
        raise OrcError(f"{name}: compression block size {block_size} in the PostScript is outside 1..{MAX_BLOCK_SIZE}")

    footer_len = ps.footerLength
    metadata_len = ps.metadataLength
    tail_len = 1 + ps_len + footer_len + metadata_len
    if footer_len == 0:
        raise OrcError(f"{name}: PostScript at offset {ps_offset} gives a footer length of 0")
    if tail_len > size - len(HEADER):
        raise OrcError(
            f"{name}: footer ({footer_len} bytes) and metadata ({metadata_len} bytes) declared by the PostScript"
            f" do not fit a file of {size} bytes (truncated or corrupt)"
        )
    if tail_len > len(buf):
        # one more read, of exactly the part of the tail the first read missed
        buf = source.read(size - tail_len, tail_len - len(buf)) + buf
    tail = buf[len(buf) - tail_len :]
    metadata_bytes = tail[:metadata_len]
    footer_offset = size - 1 - ps_len - footer_len
    footer_raw = decompress_message(
        tail[metadata_len : metadata_len + footer_len],
        compression,
        block_size,
        f"{name}: footer at offset {footer_offset}",
    )
    footer = parse_message(pb.Footer, footer_raw, f"{name}: footer at offset {footer_offset}")
    result = FileTail(
        postscript=ps,
        footer=footer,
        metadata_bytes=metadata_bytes,
        file_size=size,
        tail_length=tail_len,
        compression=compression,
        block_size=block_size,
        name=name,
    )
    _check_stripes(result, name)
    return result


# formats an ORC reader gets handed by mistake, by the bytes they start with
OTHER_FORMATS = (
    (b"PAR1", "Parquet"),
    (b"Obj\x01", "Avro"),
    (b"ARROW1", "Arrow IPC (Feather)"),
    (b"SEQ", "a Hadoop SequenceFile"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"PK\x03\x04", "a zip archive"),
)


def _looks_like(start: bytes, end: bytes) -> str:
    """What a file that is not ORC looks like, from its first bytes (``start``) and its last (``end``)."""
    if end.endswith(b"PAR1"):
        return "it looks like Parquet (it ends with Parquet's magic 'PAR1')"
    shown = start[:16]
    for magic, what in OTHER_FORMATS:
        if start.startswith(magic):
            return f"it looks like {what} (it starts with {shown!r})"
    # a character cut in two at the end of the sample is not a reason to call text binary
    text = start.decode("utf-8", "replace").rstrip("\ufffd")
    if text and "\ufffd" not in text and all(c.isprintable() or c in "\t\r\n" for c in text):
        return f"it looks like text (it starts with {text[:32]!r})"
    return f"it starts with {shown!r}, where ORC files start with 'ORC'"


def _check_stripes(tail: FileTail, name: str) -> None:
    footer = tail.footer
    end = tail.content_end
    total_rows = 0
    previous_end = len(HEADER)
    for i, s in enumerate(footer.stripes):
        stripe_end = s.offset + s.indexLength + s.dataLength + s.footerLength
        if s.offset < previous_end or stripe_end > end:
            raise OrcError(
                f"{name}: stripe {i} spans bytes [{s.offset}, {stripe_end}), outside the body [{previous_end}, {end})"
            )
        if s.footerLength == 0:
            raise OrcError(f"{name}: stripe {i} at offset {s.offset} has no stripe footer")
        previous_end = stripe_end
        total_rows += s.numberOfRows
    if footer.HasField("numberOfRows") and total_rows != footer.numberOfRows:
        raise OrcError(f"{name}: stripes hold {total_rows} rows but the footer says the file has {footer.numberOfRows}")
