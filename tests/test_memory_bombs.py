"""Memory bombs: files whose declared lengths and counts ask for terabytes fail fast with OrcError and small peak
memory.

Each hostile file starts from a small valid file, taken apart with :func:`tests.test_read_errors.split_file`; one
declared length or count is made huge and the file is put back together uncompressed
(:func:`tests.test_read_errors.join_file`) or with every stream, stripe footer, the metadata and the footer
compressed (:func:`join_compressed`). Every file is then read in one child process by every entry point (reads
with and without columns, filters, seeks and categories, and the metadata accessors), after the same calls on the
valid file have loaded the kernels; the child reports each call's outcome and its peak resident memory
(``ru_maxrss``, which only grows) after each file. A failure of memory checks would show as a MemoryError, a
crash, or a peak far above the baseline.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import functools
import json
import random
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import brotli
import pandas as pd
import pytest
import zstandard

import orcjit
import orcjit.tail
from orcjit import OrcError
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.compression import EAGER_RATIO, codecs, decompress_head, iter_chunks, stream_capacity
from orcjit.decode import streams
from orcjit.tail import decompress_message
from orcjit.types.schema import MAX_DEPTH
from tests.factory import write_pyorc
from tests.rle_v2_reference import delta
from tests.test_read_errors import (
    COLUMN,
    INDEX_KINDS,
    SCHEMA,
    OrcParts,
    StreamPart,
    join_file,
    rows,
    split_file,
)

NONE, ZLIB, ZSTD, BROTLI = 0, 1, 5, 6
CODECS = {"NONE": NONE, "ZLIB": ZLIB, "ZSTD": ZSTD, "BROTLI": BROTLI}
BLOCK_SIZE = 64 * 1024
DATA, LENGTH, DICTIONARY_DATA = 1, 2, 3
STRIDE = 100  # rows per row group of the valid file, so that seeks enter the stripe past its start
# growth of the child's peak resident memory over its baseline (the valid file read every way) that a hostile
# file may cause: these files are a few KB and declare terabytes
MAX_GROWTH_MB = 200
TERABYTE = 1 << 40

# -- writing hostile files ----------------------------------------------------------------------------------------


@dataclass
class StoredPart(StreamPart):
    """A stream whose bytes :func:`join_compressed` stores as they are (already framed, or broken on purpose)."""


def compress(data: bytes, codec: int, block_size: int = BLOCK_SIZE) -> bytes:
    """``data`` as ORC compression chunks: each block compressed, or stored as it is where that is shorter."""
    out = bytearray()
    for start in range(0, len(data), block_size):
        block = data[start : start + block_size]
        if codec == ZLIB:
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            body = packer.compress(block) + packer.flush()
        elif codec == BROTLI:
            body = brotli.compress(block, quality=5)
        else:
            body = zstandard.ZstdCompressor().compress(block)
        header = 2 * len(body) if len(body) < len(block) else 2 * len(block) + 1
        out += header.to_bytes(3, "little") + (body if len(body) < len(block) else block)
    return bytes(out)


def join_compressed(parts: OrcParts, codec: int, block_size: int = BLOCK_SIZE, metadata: bytes | None = None) -> bytes:
    """The file of ``parts`` compressed with ``codec``, as :func:`join_file` writes it uncompressed.

    Row indexes and bloom filters are left out (their positions would have to name compressed chunks), and the
    Footer says there is no row index, so seeks start from a stripe's first row. ``metadata`` replaces the
    compressed Metadata section.
    """
    if codec == NONE:
        return join_file(parts)
    out = bytearray(b"ORC")
    infos = []
    for stripe in parts.stripes:
        assert stripe.declared_data_length is None
        offset = len(out)
        stripe_footer = copy.deepcopy(stripe.footer)
        del stripe_footer.streams[:]
        data_length = 0
        for s in stripe.streams:
            assert s.declared is None
            if s.kind in INDEX_KINDS:
                continue
            stored = s.data if isinstance(s, StoredPart) else compress(s.data, codec)
            stripe_footer.streams.add(kind=s.kind, column=s.column, length=len(stored))
            out += stored
            data_length += len(stored)
        footer_bytes = compress(stripe_footer.SerializeToString(), codec)
        out += footer_bytes
        infos.append(
            pb.StripeInformation(
                offset=offset,
                indexLength=0,
                dataLength=data_length,
                footerLength=len(footer_bytes),
                numberOfRows=stripe.rows,
            )
        )
    footer = copy.deepcopy(parts.footer)
    footer.contentLength = len(out)
    footer.rowIndexStride = 0
    del footer.stripes[:]
    footer.stripes.extend(infos)
    if metadata is None:
        metadata = compress(parts.metadata, codec)
    out += metadata
    footer_bytes = compress(footer.SerializeToString(), codec)
    out += footer_bytes
    postscript = copy.deepcopy(parts.postscript)
    postscript.compression = codec
    postscript.compressionBlockSize = block_size
    postscript.footerLength = len(footer_bytes)
    postscript.metadataLength = len(metadata)
    ps_bytes = postscript.SerializeToString()
    return bytes(out + ps_bytes + bytes([len(ps_bytes)]))


def repeated(value: int, count: int) -> bytes:
    """An unsigned RLE v2 stream of ``count`` copies of ``value``: 4 or more bytes per 512 values."""
    out = b""
    while count > 0:
        n = min(count, 512)
        out += delta([value] * n, signed=False)
        count -= n
    return out


def with_stream(parts: OrcParts, column: int, kind: int, data: bytes) -> None:
    """Replace the bytes of a stream of the first stripe."""
    stripe = parts.stripes[0]
    stripe.streams[stripe.find(column, kind)].data = data


def deep_lists(depth: int) -> OrcParts:
    """``struct<l:array<array<...<int>...>>>`` with ``depth`` lists and one row ``[[...[7]...]]``: the leaf is
    ``depth + 1`` levels below the root."""
    parts = split_file(write_pyorc_bytes("struct<l:array<int>>", [([7],)]))
    stripe = parts.stripes[0]
    length = next(s.data for s in stripe.streams if s.kind == LENGTH)
    values = next(s.data for s in stripe.streams if s.kind == DATA)
    types = parts.footer.types
    del types[1:]
    for level in range(depth):
        types.add(kind=pb.Type.LIST, subtypes=[level + 2])
    types.add(kind=pb.Type.INT)
    stripe.streams = [StreamPart(LENGTH, c, length) for c in range(1, depth + 1)]
    stripe.streams.append(StreamPart(DATA, depth + 1, values))
    encodings = stripe.footer.columns
    del encodings[:]
    encodings.add(kind=pb.ColumnEncoding.DIRECT)
    for _ in range(depth + 1):
        encodings.add(kind=pb.ColumnEncoding.DIRECT_V2)
    del parts.footer.statistics[:]
    parts.metadata = b""
    return parts


def deep_structs(depth: int) -> OrcParts:
    """``struct<a:struct<a:...struct<a:int>...>>`` with ``depth`` structs below the root and one row."""
    parts = split_file(write_pyorc_bytes("struct<a:int>", [(7,)]))
    stripe = parts.stripes[0]
    values = next(s.data for s in stripe.streams if s.kind == DATA)
    types = parts.footer.types
    del types[:]
    for level in range(depth + 1):
        types.add(kind=pb.Type.STRUCT, subtypes=[level + 1], fieldNames=["a"])
    types.add(kind=pb.Type.INT)
    stripe.streams = [StreamPart(DATA, depth + 1, values)]
    encodings = stripe.footer.columns
    del encodings[:]
    for _ in range(depth + 1):
        encodings.add(kind=pb.ColumnEncoding.DIRECT)
    encodings.add(kind=pb.ColumnEncoding.DIRECT_V2)
    del parts.footer.statistics[:]
    parts.metadata = b""
    return parts


_written: dict[tuple[str, str], bytes] = {}


def write_pyorc_bytes(schema: str, data: list[Any], **options: Any) -> bytes:
    """A small uncompressed pyorc file's bytes (written once per schema and rows)."""
    key = (schema, repr(data) + repr(sorted(options.items())))
    if key not in _written:
        with tempfile.TemporaryDirectory() as tmp:
            path = write_pyorc(Path(tmp) / "f.orc", schema, data, compression="none", **options)
            _written[key] = path.read_bytes()
    return _written[key]


def valid_file(dictionary: bool) -> bytes:
    """The valid file the bombs are made from: 1000 rows of :data:`tests.test_read_errors.SCHEMA`, a row group
    every 100 rows, bloom filters on ``i`` and ``s``."""
    return write_pyorc_bytes(
        SCHEMA,
        rows(),
        dict_key_size_threshold=1.0 if dictionary else 0.0,
        row_index_stride=STRIDE,
        bloom_filter_columns=["i", "s"],
    )


OTHER_SCHEMA = (
    "struct<b:boolean,y:tinyint,d:decimal(10,2),m:map<string,int>,u:uniontype<int,string>,bin:binary,dt:date>"
)


def other_rows() -> list[tuple[Any, ...]]:
    rng = random.Random(5)
    day = datetime.date(2020, 1, 1)
    return [
        (
            None if i % 5 == 0 else rng.random() < 0.5,
            rng.randint(-128, 127),
            decimal.Decimal(rng.randint(-(10**9), 10**9)) / 100,
            {f"k{j}": j for j in range(rng.randint(0, 3))},
            rng.choice([5, "x"]),
            b"ab" * (i % 3),
            day + datetime.timedelta(days=i),
        )
        for i in range(len(rows()))
    ]


def other_file() -> bytes:
    """1000 rows of booleans, tinyints, decimals, maps, unions, binary and dates."""
    return write_pyorc_bytes(OTHER_SCHEMA, other_rows(), row_index_stride=STRIDE)


# -- the bombs ----------------------------------------------------------------------------------------------------

# the calls made on every file, by name: each takes the file's path
CALLS = {
    "read": "orcjit.read_orc(path)",
    "read_columns": "orcjit.read_orc(path, columns=[column])",
    "read_filters": "orcjit.read_orc(path, filters=[('i', '>', 0)])",
    "read_filters_columns": "orcjit.read_orc(path, columns=[column], filters=[('i', '==', 5)])",
    "read_arrow": "orcjit.ORCFile(path).read_arrow()",
    "read_category": "orcjit.read_orc(path, columns=[column], dictionary_as_category=True)",
    "read_rows": "orcjit.ORCFile(path).read_rows(150, 160)",
    "read_rows_first": "orcjit.ORCFile(path).read_rows(0, 3)",
    "iter_stripes": "list(orcjit.ORCFile(path).iter_stripes(columns=[column]))",
    "no_threads": "orcjit.read_orc(path, use_threads=False)",
    "statistics": "[s.to_dict() for s in orcjit.ORCFile(path).statistics]",
    "stripe_statistics": "[s.to_dict() for s in orcjit.ORCFile(path).stripe_statistics(0)]",
    "stripe_footer": "orcjit.ORCFile(path).stripe_footer(0)",
    "explain": "str(orcjit.ORCFile(path).explain([('i', '==', 5), ('s', '==', 'beta')]))",
    "describe": "repr(orcjit.ORCFile(path)) + str(orcjit.ORCFile(path).schema.to_dict())",
}
# calls that decode the whole stripe, or rows from its first on
READS = ("read", "read_columns", "read_filters", "read_arrow", "read_category", "iter_stripes", "no_threads")
# calls that decode only a few rows: of a file whose rows only are a bomb, they read what the streams hold
FEW_ROWS = ("read_rows", "read_rows_first")
METADATA = ("statistics", "stripe_statistics", "stripe_footer", "explain", "describe")


@dataclass
class Bomb:
    """A hostile file: how to make it from the valid file's parts, and what each call must say.

    ``errors`` maps call names to the parts their OrcError message must hold; calls not named must succeed
    (``ok``), or are not made.
    """

    name: str
    make: Callable[[], bytes]
    errors: dict[str, tuple[str, ...]]
    column: str = "i"
    ok: tuple[str, ...] = ()
    results: dict[str, Any] = field(default_factory=dict)


def edited(
    edit: Callable[[OrcParts], None], codec: int = NONE, dictionary: bool = False, other: bool = False
) -> Callable[[], bytes]:
    def make() -> bytes:
        parts = split_file(other_file() if other else valid_file(dictionary))
        edit(parts)
        return join_compressed(parts, codec)

    return make


def declare_rows(n: int, stride: int | None = None) -> Callable[[OrcParts], None]:
    def edit(parts: OrcParts) -> None:
        parts.stripes[0].rows = n
        parts.footer.numberOfRows = n
        if stride is not None:
            parts.footer.rowIndexStride = stride

    return edit


def every(calls: tuple[str, ...], *message: str) -> dict[str, tuple[str, ...]]:
    return {call: message for call in calls}


def tail_bomb(name: str, edit: Callable[[bytes], bytes], *message: str) -> Bomb:
    """A file whose tail (PostScript, Footer) is broken: opening it fails, whatever the call."""
    return Bomb(name, lambda: edit(join_file(split_file(valid_file(False)))), every(tuple(CALLS), *message))


def postscript_edit(**fields: int) -> Callable[[bytes], bytes]:
    """Set PostScript fields, keeping the rest of the file as it is."""

    def edit(data: bytes) -> bytes:
        ps_len = data[-1]
        ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
        for key, value in fields.items():
            setattr(ps, key, value)
        raw = ps.SerializeToString()
        return data[: -1 - ps_len] + raw + bytes([len(raw)])

    return edit


def footer_edit(edit_footer: Callable[[pb.Footer], None]) -> Callable[[bytes], bytes]:
    """Edit the (uncompressed) Footer, keeping the rest of the file as it is."""

    def edit(data: bytes) -> bytes:
        parts = split_file(data)
        edit_footer(parts.footer)
        return join_file(parts)

    return edit


def stripe_data_length(parts: OrcParts) -> None:
    parts.stripes[0].declared_data_length = TERABYTE


def stream_length(parts: OrcParts) -> None:
    stripe = parts.stripes[0]
    stripe.streams[stripe.find(COLUMN["n"], DATA)].declared = TERABYTE


def brotli_bomb(parts: OrcParts) -> None:
    """A stream whose one chunk is 1.6 KB of Brotli expanding to 1 GiB of zeros."""
    stripe = parts.stripes[0]
    at = stripe.find(COLUMN["i"], DATA)
    bomb = brotli.compress(bytes(1 << 30), quality=5)
    stripe.streams[at] = StoredPart(DATA, COLUMN["i"], (2 * len(bomb)).to_bytes(3, "little") + bomb)


def chunk_header(parts: OrcParts) -> None:
    """A stream whose one chunk header declares the most a header can (8 MiB), followed by 3 bytes."""
    stripe = parts.stripes[0]
    at = stripe.find(COLUMN["i"], DATA)
    stripe.streams[at] = StoredPart(DATA, COLUMN["i"], (2 * ((1 << 23) - 1)).to_bytes(3, "little") + b"abc")


def with_lengths(parts: OrcParts, column: int, value: int) -> None:
    """Make every value of the column's LENGTH stream ``value``, and point the row index at where each row group's
    lengths start in the new stream (LENGTH's position is the last two numbers of the column's lists)."""
    count = len(rows())
    with_stream(parts, column, LENGTH, repeated(value, count))
    run_bytes = len(delta([value] * 512, signed=False))
    stripe = parts.stripes[0]
    at = stripe.find(column, 6)  # ROW_INDEX
    index = pb.RowIndex.FromString(stripe.streams[at].data)
    for group, entry in enumerate(index.entry):
        row = group * STRIDE
        entry.positions[-2:] = [row // 512 * run_bytes, row % 512]
    stripe.streams[at].data = index.SerializeToString()


def list_lengths(parts: OrcParts) -> None:
    with_lengths(parts, COLUMN["l"], 10**9)  # 10**12 elements


def list_lengths_wrap(parts: OrcParts) -> None:
    with_lengths(parts, COLUMN["l"], 2**62)  # past 2**63: wraps in int64


def string_lengths(parts: OrcParts) -> None:
    with_lengths(parts, COLUMN["s"], TERABYTE)


def dictionary_size(parts: OrcParts) -> None:
    parts.stripes[0].footer.columns[COLUMN["s"]].dictionarySize = 2**32 - 1


# the child lowers orcjit.tail.MAX_MESSAGE_SIZE to this, so that a message expanding past it costs little memory
MESSAGE_LIMIT = 16 << 20
LARGEST_BLOCK = (1 << 23) - 1


@functools.cache
def zero_block(codec: int) -> bytes:
    """A block of the largest size holding zeros, compressed: 273 bytes with ZSTD, 8 KB with ZLIB, 14 with
    BROTLI."""
    if codec == ZLIB:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        return packer.compress(bytes(LARGEST_BLOCK)) + packer.flush()
    if codec == BROTLI:
        return brotli.compress(bytes(LARGEST_BLOCK), quality=11)
    return zstandard.ZstdCompressor(level=19).compress(bytes(LARGEST_BLOCK))


def expanding_chunks(total: int, codec: int = ZSTD) -> bytes:
    """Chunks of a few hundred bytes (ZSTD) or a few KB (ZLIB), each expanding to a whole block of the largest
    size, ``total`` bytes in all."""
    frame = zero_block(codec)
    chunk = (2 * len(frame)).to_bytes(3, "little") + frame
    return chunk * -(-total // LARGEST_BLOCK)


def expanding_footer() -> bytes:
    """A file whose footer is chunks expanding to twice the message limit."""
    footer = expanding_chunks(2 * MESSAGE_LIMIT)
    postscript = pb.PostScript(
        footerLength=len(footer), compression=ZSTD, compressionBlockSize=LARGEST_BLOCK, magic="ORC", version=[0, 12]
    ).SerializeToString()
    return b"ORC" + footer + postscript + bytes([len(postscript)])


def expanding_metadata() -> bytes:
    """A valid file but for its Metadata section: chunks expanding to twice the message limit."""
    parts = split_file(valid_file(False))
    return join_compressed(parts, ZSTD, LARGEST_BLOCK, metadata=expanding_chunks(2 * MESSAGE_LIMIT))


# chunks of 8 MiB each after a stream's real chunks: 3.3 GB that decoding the stripe's rows never reaches. A ZLIB
# chunk of 8 MiB takes 8 KB, and up to EAGER_RATIO times a stream's size is decompressed at once whatever it
# holds: 100 of them, 0.8 GB, keep that within MAX_GROWTH_MB
EXPANDING_CHUNKS = {ZSTD: 400, ZLIB: 100, BROTLI: 400}


def expanding_tail(column: str, kind: int, codec: int) -> Callable[[], bytes]:
    """The valid file, compressed with blocks of the largest size, with :data:`EXPANDING_CHUNKS` chunks expanding
    to a whole block each after the chunks of a stream of the first stripe."""

    def make() -> bytes:
        parts = split_file(valid_file(kind == DICTIONARY_DATA))
        stripe = parts.stripes[0]
        at = stripe.find(COLUMN[column], kind)
        stream = stripe.streams[at]
        tail = expanding_chunks(EXPANDING_CHUNKS[codec] * LARGEST_BLOCK, codec)
        stripe.streams[at] = StoredPart(kind, stream.column, compress(stream.data, codec) + tail)
        return join_compressed(parts, codec, LARGEST_BLOCK)

    return make


# (name, column, stream kind, codec) of the streams followed by expanding chunks: integers, a string's bytes and a
# list's elements (whose sizes the stripe's rows do not bound)
EXPANDING = [
    ("integers, ZSTD", "i", DATA, ZSTD),
    ("integers, ZLIB", "i", DATA, ZLIB),
    ("integers, BROTLI", "i", DATA, BROTLI),
    ("string bytes, BROTLI", "s", DATA, BROTLI),
    ("string bytes, ZSTD", "s", DATA, ZSTD),
    ("list elements, ZSTD", "l.elem", DATA, ZSTD),
    ("dictionary bytes, ZSTD", "s", DICTIONARY_DATA, ZSTD),
]


def bombs() -> list[Bomb]:
    out = [
        tail_bomb("footer length 1 TB", postscript_edit(footerLength=TERABYTE), "do not fit a file"),
        tail_bomb("metadata length 1 TB", postscript_edit(metadataLength=TERABYTE), "do not fit a file"),
        tail_bomb("block size 1 TB", postscript_edit(compression=ZSTD, compressionBlockSize=TERABYTE), "block size"),
        tail_bomb(
            "footer rows disagree",
            footer_edit(lambda f: setattr(f, "numberOfRows", 10**15)),
            "stripes hold 1000 rows but the footer says the file has 1000000000000000",
        ),
        tail_bomb(
            f"lists nested {10_000} deep",
            lambda _: join_file(deep_lists(10_000)),
            "schema is nested deeper than",
        ),
        tail_bomb(
            "lists nested one level too deep",
            lambda _: join_file(deep_lists(MAX_DEPTH)),
            f"schema is nested deeper than {MAX_DEPTH} levels",
        ),
        Bomb(
            "footer expanding past the message limit",
            expanding_footer,
            every(tuple(CALLS), "footer", "decompresses to more"),
        ),
        Bomb(
            "metadata expanding past the message limit",
            expanding_metadata,
            # stripe statistics that cannot be read do not stop a filtered read: it decides by what else it has
            every(("stripe_statistics",), "metadata", "decompresses to more"),
            ok=(*READS, "statistics", "stripe_footer", "explain", "describe", "read_rows_first"),
        ),
        Bomb(
            "stripe data length 1 TB",
            edited(stripe_data_length),
            every(tuple(CALLS), "stripe 0", "outside the body"),
        ),
        Bomb(
            "stream length 1 TB",
            edited(stream_length),
            every(
                READS + FEW_ROWS + ("read_filters_columns", "stripe_footer", "explain"),
                "stripe 0",
                "past the end of the stripe",
            ),
            ok=("statistics", "stripe_statistics", "describe"),
        ),
    ]
    # each column's readers: the first column with a stream too short for the rows fails
    for name in ("s", "n", "l", "t", "f", "b", "y", "d", "m", "u", "bin", "dt"):
        other = name not in COLUMN
        out.append(
            Bomb(
                f"1000000000 rows, column {name}",
                edited(declare_rows(10**9), other=other),
                every(("read_columns", "read_category"), "stripe 0", "1000000000"),
                column=name,
            )
        )
    out.append(
        Bomb(
            "1000000000 rows, a row group per row",
            edited(declare_rows(10**9, stride=1)),
            every(READS, "stripe 0", "1000000000"),
            ok=METADATA,
        )
    )
    for codec_name, codec in CODECS.items():
        # i == 5 holds in no row: the bloom filters of the uncompressed file rule out every row group, so that read
        # never touches the bomb; without them (join_compressed drops indexes) the stripe is read
        pruned = ("read_filters_columns",) if codec == NONE else ()
        reads = READS + ("read_filters_columns",) * (codec != NONE)
        for rows_declared in (10**9, 10**15, 2**64 - 1):
            out.append(
                Bomb(
                    f"{rows_declared} rows, {codec_name}",
                    edited(declare_rows(rows_declared), codec),
                    every((*READS, "read_filters_columns"), "stripe", str(rows_declared)),
                    ok=METADATA + FEW_ROWS,
                )
            )
        out += [
            Bomb(
                f"list lengths add up to 10**12, {codec_name}",
                edited(list_lengths, codec),
                every(reads + FEW_ROWS, "stripe 0", f"column {COLUMN['l.elem']}", "DATA stream"),
                column="l",
                ok=METADATA + pruned,
            ),
            Bomb(
                f"list lengths add up past 2**63, {codec_name}",
                edited(list_lengths_wrap, codec),
                every(reads + FEW_ROWS, "stripe 0", f"column {COLUMN['l']}", "LENGTH stream"),
                column="l",
                ok=METADATA + pruned,
            ),
            Bomb(
                f"string lengths of 1 TB, {codec_name}",
                edited(string_lengths, codec),
                every(reads + FEW_ROWS, "stripe 0", f"column {COLUMN['s']}", "DATA stream"),
                column="s",
                ok=METADATA + pruned,
            ),
            Bomb(
                f"dictionary of 2**32-1 entries, {codec_name}",
                edited(dictionary_size, codec, dictionary=True),
                every(
                    reads + FEW_ROWS, "stripe 0", f"column {COLUMN['s']}", "LENGTH stream", "dictionary of 4294967295"
                ),
                column="s",
                ok=METADATA + pruned,
            ),
        ]
        if codec != NONE:
            out.append(
                Bomb(
                    f"chunk header of 8 MiB, {codec_name}",
                    edited(chunk_header, codec),
                    every(reads + FEW_ROWS, "stripe 0", f"column {COLUMN['i']}", "declares"),
                    ok=METADATA,
                )
            )
        if codec == BROTLI:
            out.append(
                Bomb(
                    "chunk expanding to 1 GiB, BROTLI",
                    edited(brotli_bomb, codec),
                    every(
                        reads + FEW_ROWS,
                        "stripe 0",
                        f"column {COLUMN['i']}",
                        "DATA",
                        "BROTLI chunk expands past the compression block size",
                    ),
                    ok=METADATA,
                )
            )
    # every read succeeds: the rows need only the stream's real chunks
    for name, column, kind, codec in EXPANDING:
        out.append(
            Bomb(
                f"{EXPANDING_CHUNKS[codec]} chunks of 8 MiB after the {name}",
                expanding_tail(column, kind, codec),
                {},
                column=column.split(".")[0],
                ok=tuple(CALLS),
            )
        )
    return out


# -- running them -------------------------------------------------------------------------------------------------

# The child: every call on the valid files first (kernels compiled or loaded, codecs imported), then the peak
# resident memory as baseline, then every call on each hostile file with the peak after each.
CHILD = """
import json, resource, sys
import orcjit, orcjit.tail
from orcjit import OrcError

def peak_mb():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes on macOS, KiB elsewhere

def call(code, path, column):
    try:
        eval(code, {"orcjit": orcjit, "path": path, "column": column})
        return ["ok", ""]
    except Exception as exc:
        return [type(exc).__qualname__, str(exc)]

manifest = json.load(open(sys.argv[1]))
orcjit.tail.MAX_MESSAGE_SIZE = manifest["message_limit"]
for path, column in manifest["valid"]:
    for code in manifest["calls"].values():
        call(code, path, column)
baseline = peak_mb()
out = {"baseline": baseline, "bombs": {}}
for bomb in manifest["bombs"]:
    results = {name: call(manifest["calls"][name], bomb["path"], bomb["column"]) for name in bomb["calls"]}
    out["bombs"][bomb["name"]] = {"results": results, "peak": peak_mb()}
print(json.dumps(out))
"""

BOMBS = bombs()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every bomb read every way in one child process: each call's outcome, and the peak memory after each."""
    root = tmp_path_factory.mktemp("bombs")
    valid = []
    for name, data in [
        ("direct", valid_file(False)),
        ("dictionary", valid_file(True)),
        *((f"direct-{c}", join_compressed(split_file(valid_file(False)), codec)) for c, codec in CODECS.items()),
        *((f"dict-{c}", join_compressed(split_file(valid_file(True)), codec)) for c, codec in CODECS.items()),
        ("other", other_file()),
    ]:
        path = root / f"valid-{name}.orc"
        path.write_bytes(data)
        valid.append((str(path), "b" if name == "other" else "l"))
    entries = []
    for i, bomb in enumerate(BOMBS):
        path = root / f"bomb-{i}.orc"
        path.write_bytes(bomb.make())
        calls = sorted(set(bomb.errors) | set(bomb.ok))
        entries.append({"name": bomb.name, "path": str(path), "column": bomb.column, "calls": calls})
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"valid": valid, "calls": CALLS, "bombs": entries, "message_limit": MESSAGE_LIMIT}))
    # the timeout only keeps a hang from stalling the suite
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(manifest)], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("bomb", BOMBS, ids=[b.name for b in BOMBS])
def test_bomb_fails_with_orc_error_and_small_memory(bomb: Bomb, outcomes: dict[str, Any]) -> None:
    got = outcomes["bombs"][bomb.name]
    for call, parts in bomb.errors.items():
        kind, message = got["results"][call]
        assert kind == "OrcError", (call, kind, message)
        for part in parts:
            assert part in message, (call, part, message)
    for call in bomb.ok:
        kind, message = got["results"][call]
        assert kind == "ok", (call, kind, message)
    growth = got["peak"] - outcomes["baseline"]
    assert growth < MAX_GROWTH_MB, (bomb.name, got["peak"], outcomes["baseline"])


def test_the_valid_files_read(tmp_path: Path) -> None:
    """The files the bombs are made from read as pyorc wrote them, whatever the codec join_compressed uses."""
    for dictionary in (False, True):
        expected = orcjit.read_orc(valid_file(dictionary))
        assert len(expected) == len(rows())
        for codec in CODECS.values():
            data = join_compressed(split_file(valid_file(dictionary)), codec)
            with orcjit.ORCFile(data) as f:
                assert f.compression == {v: k for k, v in CODECS.items()}[codec]
                assert f.read().equals(expected)
                assert f.read_rows(150, 160).reset_index(drop=True).equals(expected[150:160].reset_index(drop=True))


# -- schemas nested to the limit ----------------------------------------------------------------------------------


def from_deep_stack(frames: int, fn: Callable[[], Any]) -> Any:
    """``fn()`` called ``frames`` Python frames further down the stack: room left for callers of orcjit."""
    if frames <= 0:
        return fn()
    return from_deep_stack(frames - 1, fn)


def unwrap(value: Any) -> tuple[int, Any]:
    """How many one-element lists (or single-field dicts) wrap ``value``, and what is inside."""
    depth = 0
    while isinstance(value, (list, dict)) or hasattr(value, "tolist"):
        value = value.tolist() if hasattr(value, "tolist") else value
        (value,) = value.values() if isinstance(value, dict) else value
        depth += 1
    return depth, value


@pytest.mark.parametrize("make", [deep_lists, deep_structs], ids=["lists", "structs"])
def test_schemas_nested_to_the_limit_read(make: Callable[[int], OrcParts]) -> None:
    """A leaf ``MAX_DEPTH`` levels below the root reads every way, with 300 frames of the stack already used."""
    data = join_file(make(MAX_DEPTH - 1))
    with orcjit.ORCFile(data) as f:
        assert f.schema.column(MAX_DEPTH).kind == "int"
        assert str(f.schema).count("<") == MAX_DEPTH
        for backend in (None, "numpy_nullable", "pyarrow"):
            frame = from_deep_stack(300, lambda: f.read(dtype_backend=backend))  # noqa: B023
            assert unwrap(frame.iloc[0, 0]) == (MAX_DEPTH - 1, 7)
        table = from_deep_stack(300, f.read_arrow)
        assert unwrap(table.column(0).to_pylist()[0]) == (MAX_DEPTH - 1, 7)
        rows_read = from_deep_stack(300, lambda: f.read_rows(0, 1))
        assert unwrap(rows_read.iloc[0, 0]) == (MAX_DEPTH - 1, 7)
        assert from_deep_stack(300, lambda: f.schema.to_dict())["id"] == 0
        assert len(from_deep_stack(300, lambda: f.statistics)) == MAX_DEPTH + 1
        assert "struct<" in from_deep_stack(300, lambda: repr(f))


def test_schema_nested_past_the_limit_fails_before_reading() -> None:
    """One level more, and opening the file fails: nothing recurses over the tree."""
    for make in (deep_lists, deep_structs):
        with pytest.raises(
            OrcError, match=f"schema is nested deeper than {MAX_DEPTH} levels at column {MAX_DEPTH + 1}"
        ):
            orcjit.ORCFile(join_file(make(MAX_DEPTH)))


# -- protobuf sections: decompressed a chunk at a time past the limit ----------------------------------------------


def test_messages_decompress_chunk_by_chunk_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks that could expand past the message limit (each may fill a block) are decompressed one at a time: the
    same bytes as at once while they stay under it, OrcError once past it."""
    monkeypatch.setattr(orcjit.tail, "MAX_MESSAGE_SIZE", 100_000)
    data = bytes(random.Random(1).getrandbits(8) % 16 for _ in range(150_000))
    for codec in (ZLIB, ZSTD, BROTLI):
        small = compress(data[:50_000], codec, block_size=5_000)  # 10 chunks: room for 640 KB of 64 KiB blocks
        assert stream_capacity(small, BLOCK_SIZE) > orcjit.tail.MAX_MESSAGE_SIZE
        out = decompress_message(small, codec, BLOCK_SIZE, "footer")
        assert bytes(out) == data[:50_000]
        large = compress(data, codec, block_size=5_000)
        with pytest.raises(OrcError, match="footer: decompresses to more than 100000 bytes"):
            decompress_message(large, codec, BLOCK_SIZE, "footer")
    assert decompress_message(data[:50_000], NONE, BLOCK_SIZE, "footer") == data[:50_000]
    with pytest.raises(OrcError, match="decompresses to more than"):
        decompress_message(data, NONE, BLOCK_SIZE, "footer")


# -- streams whose chunks expand far past what their values need --------------------------------------------------


class Decompressed:
    """Counts what the codecs decompress, and the streams a whole-stripe read leaves to decompress lazily."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bytes = 0
        self.lazy = 0
        self.partly = 0
        for codec, decode in list(codecs._DECODERS.items()):
            monkeypatch.setitem(codecs._DECODERS, codec, self._counting(decode))
        monkeypatch.setattr(streams, "LazyStream", self._lazy(streams.LazyStream))
        monkeypatch.setattr(streams, "decompress_head", self._head(streams.decompress_head))

    def _counting(self, decode: Callable[..., int]) -> Callable[..., int]:
        def counted(chunk: memoryview, out: memoryview, limit: int) -> int:
            n = decode(chunk, out, limit)
            self.bytes += n
            return n

        return counted

    def _lazy(self, cls: type) -> Callable[..., Any]:
        def make(*args: Any) -> Any:
            self.lazy += 1
            return cls(*args)

        return make

    def _head(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def head(*args: Any) -> Any:
            self.partly += 1
            return fn(*args)

        return head


@pytest.mark.parametrize(("name", "column", "kind", "codec"), EXPANDING, ids=[e[0] for e in EXPANDING])
def test_chunks_past_the_values_are_never_decompressed(
    name: str, column: str, kind: int, codec: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream whose real chunks are followed by chunks expanding to 8 MiB each (3.3 GB with ZSTD) reads as the
    valid file does, every way: what may be decompressed at once is, and the rest only as decoding reaches it,
    which is never past the rows."""
    valid = join_compressed(split_file(valid_file(kind == DICTIONARY_DATA)), codec, LARGEST_BLOCK)
    bomb = expanding_tail(column, kind, codec)()
    assert len(bomb) > len(valid) + EXPANDING_CHUNKS[codec] * len(zero_block(codec))
    with orcjit.ORCFile(valid) as f:
        expected = f.read()
        expected_rows = f.read_rows(150, 160)
        expected_arrow = f.read_arrow()
    field = column.split(".")[0]
    seen = Decompressed(monkeypatch)
    with orcjit.ORCFile(bomb) as f:
        reads = [
            lambda: f.read().equals(expected),
            lambda: f.read(columns=[field], use_threads=False).equals(expected[[field]]),
            lambda: f.read_rows(150, 160).equals(expected_rows),
            lambda: f.read_rows(0, 1000).equals(expected),
            lambda: f.read_arrow().equals(expected_arrow),
            lambda: pd.concat(f.iter_stripes()).equals(expected),
        ]
        for read in reads:
            assert read()
    assert seen.lazy >= 4  # the whole-stripe reads left the stream to decompress lazily (seeks always do)
    # each read decompresses up to EAGER_RATIO times the stream at once and a chunk past it, not 3.3 GB
    most = EAGER_RATIO * len(bomb) + LARGEST_BLOCK
    assert seen.bytes < len(reads) * most < len(reads) * EXPANDING_CHUNKS[codec] * LARGEST_BLOCK / 5


def valid_compressed_files(root: Path) -> list[Path]:
    """Files as ORC C++ writes them (pyarrow and pyorc) with each codec, of every type, values of every kind
    (random, sequential, constant, few distinct strings), in one stripe of 20,000 rows or many small ones, and the
    ORC project's examples (ORC Java)."""
    import numpy as np
    import pyarrow as pa

    from tests.conftest import EXAMPLE_FILES
    from tests.factory import all_types_pyorc, all_types_table, write_pyarrow

    n = 20_000
    table = all_types_table(n)
    words = np.array([f"word-{i}" for i in range(20)])
    table = table.append_column("constant", pa.array(np.full(n, 42, dtype=np.int64)))
    table = table.append_column("sequence", pa.array(np.arange(n)))
    table = table.append_column("flag", pa.array(np.ones(n, dtype=bool)))
    table = table.append_column("zeros", pa.array(np.zeros(n)))
    table = table.append_column("few", pa.array(words[np.random.default_rng(1).integers(0, 20, n)]))
    schema, rows = all_types_pyorc(2000)
    out = list(EXAMPLE_FILES)
    for codec in ("zstd", "zlib", "snappy", "lz4"):
        for threshold in (0.0, 1.0):
            out.append(
                write_pyarrow(
                    root / f"{codec}-{threshold}.orc", table, compression=codec, dictionary_key_size_threshold=threshold
                )
            )
        out.append(write_pyarrow(root / f"{codec}-small.orc", table, compression=codec, stripe_size=64 * 1024))
        out.append(write_pyorc(root / f"pyorc-{codec}.orc", schema, rows, compression=codec))
    return out


def test_valid_files_decompress_every_stream_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No stream of a valid file comes near the bound past which a stream is decompressed lazily: every one is
    decompressed whole, in one pass, into one buffer."""
    files = valid_compressed_files(tmp_path)
    seen = Decompressed(monkeypatch)
    for path in files:
        with orcjit.ORCFile(path) as f:
            f.read()
            f.read(dictionary_as_category=True)
            assert (seen.lazy, seen.partly) == (0, 0), path
    assert seen.bytes > 0


def test_valid_strings_compressing_past_the_ratio_read_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings repeating one value (direct encoded, so nothing bounds their bytes by the rows) compress thousands
    of times over: past EAGER_RATIO their streams are read as decoding reaches them, with the same result."""
    import pyarrow as pa
    import pyarrow.orc as po

    from tests.factory import write_pyarrow

    n = 300_000
    table = pa.table(
        {
            "same": pa.array(["the same string every row"] * n),
            "lists": pa.array([["a" * 20, "b" * 20]] * n, type=pa.list_(pa.string())),
            "i": pa.array(range(n)),
        }
    )
    for codec in ("zstd", "zlib"):
        path = write_pyarrow(tmp_path / f"{codec}.orc", table, compression=codec, dictionary_key_size_threshold=0.0)
        seen = Decompressed(monkeypatch)
        with orcjit.ORCFile(path) as f:
            assert f.read_arrow().equals(po.read_table(path))
            assert seen.lazy >= 2
            assert f.read(columns=["same"])["same"].eq("the same string every row").all()
            assert f.read_rows(n - 5, n)["lists"].map(list).tolist() == [["a" * 20, "b" * 20]] * 5


@pytest.mark.parametrize("codec", [ZLIB, ZSTD, BROTLI])
def test_decompress_head_stops_before_the_chunk_past_the_budget(codec: int) -> None:
    """Chunks are decompressed while they fit the budget; the first that does not, and the chunks after it, are
    left as stored, whatever they hold (corrupt or not: whoever reads on finds out)."""
    blocks = [bytes([i]) * 1000 for i in range(5)]
    stream = compress(b"".join(blocks), codec, block_size=1000)
    starts = [pos for pos, _, _ in iter_chunks(stream, BLOCK_SIZE, "s")]
    for budget, fit in [(0, 0), (999, 0), (1000, 1), (2999, 2), (5000, 5), (10**9, 5)]:
        out, left = decompress_head(stream, codec, BLOCK_SIZE, "s", budget)
        assert bytes(out) == b"".join(blocks[:fit])
        assert left == [*starts, len(stream)][fit]
    corrupt = stream[: starts[2]] + (4).to_bytes(3, "little") + b"\xff\xff"  # a compressed chunk of 2 bytes
    out, left = decompress_head(corrupt, codec, BLOCK_SIZE, "s", 2000)
    assert (bytes(out), left) == (b"".join(blocks[:2]), starts[2])
    # with room for a whole block, a chunk that fails to decompress is corrupt
    with pytest.raises(OrcError, match=f"s: chunk at byte {starts[2]}"):
        decompress_head(corrupt, codec, BLOCK_SIZE, "s", 2000 + BLOCK_SIZE)
