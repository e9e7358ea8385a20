"""A fuzzer for orcjit: mutated and truncated ORC files, each read in a worker subprocess with a timeout.

Every case takes a valid file of the corpus (the ORC project's example files and files pyarrow and pyorc write),
breaks it with one mutator and reads it in one of several ways (whole file, projection, filters, stripe by stripe,
metadata and seeks). The only acceptable outcomes are a consistent read or an :class:`orcjit.OrcError`. Outcomes
are counted as::

    ok           the read returned, and its shape agrees with what the file declares
    orc_error    OrcError
    other        any other exception (a bug: the message names it)
    inconsistent a read that returned, but disagrees with the file's row count, the requested columns, or the
                 same read on one thread
    crash        the worker died (segfault, abort, os._exit)
    timeout      the worker did not answer within the time limit (a hang); it is killed and replaced
    memory       the worker's peak memory grew past the limit while reading the case

Mutators work at two levels. Byte mutators change the file as it is (bit flips, byte runs, truncation, cuts,
compression chunk headers, varint continuation bits in the tail). Structural mutators take the file apart into its
PostScript, Footer, Metadata, stripe footers and decompressed streams (:func:`decode_file`), change one thing
(a stream's bytes, a run header, a varint, a declared length, a dictionary size, an encoding, the type tree,
statistics, row index positions, bloom filters) and put it back together (:func:`encode_file`), every stream
written as uncompressed ("original") chunks, which ORC allows under any codec, so the change is not hidden behind
a decompressor's checks.

Workers are long-lived: starting one costs the Numba setup, so one worker reads many cases; a case that kills or
hangs a worker is charged to that case, and a fresh worker takes over.

Run a long fuzz with ``python -m tests.fuzz_harness --cases 100000 --jobs 2``; the quick run in CI is
``tests/test_fuzz.py``.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import pickle
import random
import resource
import select
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orcjit._proto import orc_proto_pb2 as pb
from orcjit.compression import decompress_stream

# as in conftest.py, which workers do not import (it brings pytest along)
EXAMPLES = Path(os.environ.get("ORCJIT_EXAMPLES", Path(__file__).resolve().parents[2] / "shared" / "orc-examples"))
# the example files small enough to fuzz quickly; testSeek (1.9 MB) and columnProjection (430 KB) cost too much
# per case for what they add
MAX_EXAMPLE_BYTES = 250_000
INDEX_KINDS = frozenset({6, 7, 8})  # ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8
PRESENT, DATA, LENGTH, DICTIONARY_DATA, DICTIONARY_COUNT, SECONDARY, ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8 = range(
    9
)
OUTCOMES = ("ok", "orc_error", "other", "inconsistent", "crash", "timeout", "memory")
BAD_OUTCOMES = ("other", "inconsistent", "crash", "timeout", "memory")

# numbers a hostile writer would pick for a declared length or count
HOSTILE_NUMBERS = (0, 1, 2, 7, 255, 256, 1 << 16, (1 << 23) - 1, 1 << 31, (1 << 32) - 1, 1 << 40, (1 << 63) - 1)


# -- taking a file apart and putting it back together ------------------------------------------------------------


@dataclass
class Stream:
    """A stream's decompressed bytes; ``declared`` is a length to state instead of the true one."""

    kind: int
    column: int
    data: bytes
    declared: int | None = None


@dataclass
class Stripe:
    streams: list[Stream]
    footer: pb.StripeFooter  # its stream list is rebuilt by encode_file
    info: pb.StripeInformation  # offset and lengths are recomputed unless ``lies`` names them
    lies: dict[str, int] = field(default_factory=dict)


@dataclass
class OrcModel:
    """An ORC file taken apart; :func:`encode_file` recomputes every length and offset but the ``lies``."""

    postscript: pb.PostScript
    footer: pb.Footer
    metadata: bytes  # the decompressed Metadata message
    stripes: list[Stripe]
    lies: dict[str, int] = field(default_factory=dict)  # PostScript field -> value to state instead

    @property
    def compressed(self) -> bool:
        return self.postscript.compression != 0

    @property
    def block_size(self) -> int:
        return self.postscript.compressionBlockSize if self.postscript.HasField("compressionBlockSize") else 1 << 18


def decode_file(data: bytes) -> OrcModel:
    """Take a valid ORC file apart into messages and decompressed streams."""
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    block = ps.compressionBlockSize if ps.HasField("compressionBlockSize") else 1 << 18
    footer_start = len(data) - 1 - ps_len - ps.footerLength
    metadata_start = footer_start - ps.metadataLength

    def inflate(raw: bytes) -> bytes:
        return bytes(decompress_stream(raw, ps.compression, block, "fuzz corpus"))

    footer = pb.Footer.FromString(inflate(data[footer_start : footer_start + ps.footerLength]))
    metadata = inflate(data[metadata_start:footer_start]) if ps.metadataLength else b""
    stripes = []
    for info in footer.stripes:
        start = info.offset + info.indexLength + info.dataLength
        stripe_footer = pb.StripeFooter.FromString(inflate(data[start : start + info.footerLength]))
        streams = []
        pos = info.offset
        for s in stripe_footer.streams:
            streams.append(Stream(s.kind, s.column, inflate(data[pos : pos + s.length])))
            pos += s.length
        stripes.append(Stripe(streams, stripe_footer, copy.deepcopy(info)))
    return OrcModel(ps, footer, metadata, stripes)


def original_chunks(raw: bytes, block_size: int) -> bytes:
    """``raw`` as a compressed stream of uncompressed ("original") chunks of at most ``block_size`` bytes."""
    out = bytearray()
    step = max(1, min(block_size, (1 << 23) - 1))
    for start in range(0, len(raw), step):
        piece = raw[start : start + step]
        out += struct.pack("<I", (len(piece) << 1) | 1)[:3] + piece
    return bytes(out)


def encode_file(model: OrcModel) -> bytes:
    """The bytes of ``model``: streams and messages re-emitted, lengths and offsets recomputed but for the lies."""

    def pack(raw: bytes) -> bytes:
        return original_chunks(raw, model.block_size) if model.compressed else raw

    out = bytearray(b"ORC")
    infos = []
    for stripe in model.stripes:
        offset = len(out)
        stripe_footer = copy.deepcopy(stripe.footer)
        del stripe_footer.streams[:]
        index_length = data_length = 0
        for s in stripe.streams:
            packed = pack(s.data) if s.data else b""
            length = len(packed) if s.declared is None else s.declared
            stripe_footer.streams.add(kind=s.kind, column=s.column, length=length)
            out += packed
            if s.kind in INDEX_KINDS:
                index_length += len(packed)
            else:
                data_length += len(packed)
        footer_bytes = pack(stripe_footer.SerializeToString())
        out += footer_bytes
        info = copy.deepcopy(stripe.info)
        info.offset, info.indexLength, info.dataLength, info.footerLength = (
            offset,
            index_length,
            data_length,
            len(footer_bytes),
        )
        for name, value in stripe.lies.items():
            setattr(info, name, value)
        infos.append(info)
    footer = copy.deepcopy(model.footer)
    footer.contentLength = len(out)
    del footer.stripes[:]
    footer.stripes.extend(infos)
    metadata = pack(model.metadata) if model.metadata else b""
    out += metadata
    footer_bytes = pack(footer.SerializeToString())
    out += footer_bytes
    ps = copy.deepcopy(model.postscript)
    ps.footerLength = len(footer_bytes)
    ps.metadataLength = len(metadata)
    for name, value in model.lies.items():
        if name == "version":
            del ps.version[:]
            ps.version.extend([value >> 16, value & 0xFFFF])
        else:
            setattr(ps, name, value)
    ps_bytes = ps.SerializeToString()
    if len(ps_bytes) > 255:
        raise ValueError("PostScript longer than 255 bytes")
    return bytes(out + ps_bytes + bytes([len(ps_bytes)]))


# -- where things are in a file's bytes --------------------------------------------------------------------------


@dataclass
class Layout:
    """Byte ranges of a valid file: its tail and the compression chunk headers of every stream."""

    size: int
    compressed: bool
    tail_start: int  # the metadata's first byte
    postscript_start: int
    chunk_headers: list[int]


def layout_of(data: bytes) -> Layout:
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    ps_start = len(data) - 1 - ps_len
    tail_start = ps_start - ps.footerLength - ps.metadataLength
    headers: list[int] = []
    if ps.compression != 0:
        # every run of chunks: each stream, stripe footer, the metadata and the footer
        model_footer = pb.Footer.FromString(
            bytes(
                decompress_stream(
                    data[ps_start - ps.footerLength : ps_start],
                    ps.compression,
                    ps.compressionBlockSize or 1 << 18,
                    "fuzz corpus",
                )
            )
        )
        ranges = [(tail_start, ps.metadataLength), (ps_start - ps.footerLength, ps.footerLength)]
        block = ps.compressionBlockSize or 1 << 18
        for info in model_footer.stripes:
            start = info.offset + info.indexLength + info.dataLength
            ranges.append((start, info.footerLength))
            sf = pb.StripeFooter.FromString(
                bytes(decompress_stream(data[start : start + info.footerLength], ps.compression, block, "fuzz"))
            )
            pos = info.offset
            for s in sf.streams:
                ranges.append((pos, s.length))
                pos += s.length
        for start, length in ranges:
            pos, end = start, start + length
            while pos + 3 <= end:
                headers.append(pos)
                pos += 3 + (int.from_bytes(data[pos : pos + 3], "little") >> 1)
    return Layout(len(data), ps.compression != 0, tail_start, ps_start, headers)


# -- run headers inside decompressed streams ---------------------------------------------------------------------

_WIDTHS = [*range(1, 25), 26, 28, 30, 32, 40, 48, 56, 64]


def _skip_varint(buf: bytes, pos: int) -> int:
    while pos < len(buf) and buf[pos] & 0x80:
        pos += 1
    return pos + 1


def _closest_fixed_bits(n: int) -> int:
    return next((w for w in _WIDTHS if w >= max(n, 1)), 64)


def run_headers(buf: bytes, family: str, limit: int = 256) -> list[int]:
    """Offsets of the run headers of an RLE stream (``family``: ``byte``, ``v1`` or ``v2``), walked from the
    start; a walk that goes astray stops early, which only means fewer candidates."""
    out: list[int] = []
    pos = 0
    while pos < len(buf) and len(out) < limit:
        out.append(pos)
        h = buf[pos]
        if family == "byte":
            pos += 2 if h < 128 else 1 + (256 - h)
        elif family == "v1":
            if h < 128:
                pos = _skip_varint(buf, pos + 2)
            else:
                pos += 1
                for _ in range(256 - h):
                    pos = _skip_varint(buf, pos)
        else:
            enc = h >> 6
            if enc == 0:
                pos += 2 + ((h >> 3) & 7)
                continue
            if pos + 1 >= len(buf):
                break
            width = _WIDTHS[(h >> 1) & 31]
            length = (((h & 1) << 8) | buf[pos + 1]) + 1
            if enc == 1:
                pos += 2 + (length * width + 7) // 8
            elif enc == 2:
                if pos + 3 >= len(buf):
                    break
                base_bytes = (buf[pos + 2] >> 5) + 1
                patch_width = _WIDTHS[buf[pos + 2] & 31]
                gap_width = (buf[pos + 3] >> 5) + 1
                patches = buf[pos + 3] & 31
                pos += 4 + base_bytes + (length * width + 7) // 8
                pos += (patches * _closest_fixed_bits(gap_width + patch_width) + 7) // 8
            else:
                delta_width = 0 if (h >> 1) & 31 == 0 else width
                pos = _skip_varint(buf, _skip_varint(buf, pos + 2))
                pos += ((length - 2) * delta_width + 7) // 8 if length > 2 else 0
    return out


_INT_KINDS = {2, 3, 4, 15}  # SHORT, INT, LONG, DATE


def rle_family(type_kind: int, stream_kind: int, encoding: int, decimal64: bool = False) -> str | None:
    """Which run-length encoding a stream holds, or None when it holds raw bytes (floats, string data, ...).
    ``decimal64``: the stream's column is a decimal of ORC Java's pre-2.0 format stored as RLE v2 integers."""
    v = "v2" if encoding in (2, 3) else "v1"
    if stream_kind == PRESENT:
        return "byte"
    if stream_kind == DATA:
        if type_kind == 14 and decimal64:
            return "v2"
        if type_kind in (0, 1):  # BOOLEAN, BYTE
            return "byte"
        if type_kind in _INT_KINDS or type_kind in (9, 18):  # timestamps: seconds
            return v
        if type_kind in (7, 16, 17) and encoding in (1, 3):  # dictionary ids of strings
            return v
        if type_kind == 13:  # UNION tags
            return "byte"
        return None
    if stream_kind in (LENGTH, SECONDARY):
        return v
    return None


# -- mutators ----------------------------------------------------------------------------------------------------


@dataclass
class CorpusFile:
    name: str
    data: bytes
    layout: Layout
    fields: list[str]  # top-level field names (empty when the root is not a struct)
    filters: list[list[tuple[str, str, Any]]]  # filters that make sense for the valid file
    nested_kinds: frozenset[int] = frozenset()  # type kinds of the columns below the root struct that hold others


Mutator = Callable[[CorpusFile, random.Random], bytes]
MUTATORS: dict[str, Mutator] = {}


def mutator(fn: Mutator) -> Mutator:
    MUTATORS[fn.__name__] = fn
    return fn


def _hostile(rng: random.Random, true: int) -> int:
    choice = rng.random()
    if choice < 0.4:
        return max(0, true + rng.choice((-3, -2, -1, 1, 2, 3, 64, -64)))
    if choice < 0.8:
        return rng.choice(HOSTILE_NUMBERS)
    return rng.randrange(0, 1 << rng.choice((8, 16, 32, 64)))


def _pos(rng: random.Random, f: CorpusFile) -> int:
    # a third of the hits in the tail, where one byte decides the most
    if rng.random() < 0.33 and f.layout.tail_start < f.layout.size:
        return rng.randrange(f.layout.tail_start, f.layout.size)
    return rng.randrange(f.layout.size)


@mutator
def bit_flip(f: CorpusFile, rng: random.Random) -> bytes:
    out = bytearray(f.data)
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        out[_pos(rng, f)] ^= 1 << rng.randrange(8)
    return bytes(out)


@mutator
def byte_run(f: CorpusFile, rng: random.Random) -> bytes:
    out = bytearray(f.data)
    start = _pos(rng, f)
    n = min(rng.choice((1, 2, 4, 8, 16, 64, 256)), len(out) - start)
    fill = rng.choice((0x00, 0xFF, 0x80, 0x7F, None))
    out[start : start + n] = bytes(rng.randrange(256) if fill is None else fill for _ in range(n))
    return bytes(out)


@mutator
def truncate(f: CorpusFile, rng: random.Random) -> bytes:
    # anywhere, or within the last few hundred bytes where the tail's lengths are
    if rng.random() < 0.5:
        return f.data[: rng.randrange(f.layout.size)]
    return f.data[: max(0, f.layout.size - rng.randrange(1, 400))]


@mutator
def cut(f: CorpusFile, rng: random.Random) -> bytes:
    """Bytes taken out of (or repeated inside) the body, with the tail intact: every offset after it is wrong."""
    start = rng.randrange(max(1, f.layout.tail_start))
    n = rng.choice((1, 3, 16, 100, 1000))
    if rng.random() < 0.5:
        return f.data[:start] + f.data[start + n :]
    return f.data[:start] + f.data[start : start + n] + f.data[start:]


@mutator
def chunk_header(f: CorpusFile, rng: random.Random) -> bytes:
    if not f.layout.chunk_headers:
        return bit_flip(f, rng)
    out = bytearray(f.data)
    at = rng.choice(f.layout.chunk_headers)
    header = int.from_bytes(out[at : at + 3], "little")
    choice = rng.random()
    if choice < 0.3:
        header ^= 1  # original <-> compressed
    elif choice < 0.8:
        header = (_hostile(rng, header >> 1) & ((1 << 23) - 1)) << 1 | (header & 1)
    else:
        header = rng.randrange(1 << 24)
    out[at : at + 3] = header.to_bytes(3, "little")
    return bytes(out)


@mutator
def tail_varint(f: CorpusFile, rng: random.Random) -> bytes:
    """Continuation bits set on a run of bytes of the tail (PostScript, or Footer when uncompressed): varints that
    never end, or run into the next field."""
    out = bytearray(f.data)
    start = rng.randrange(f.layout.tail_start, f.layout.size - 1)
    for i in range(start, min(start + rng.choice((1, 2, 5, 10, 20)), f.layout.size - 1)):
        out[i] |= 0x80
    return bytes(out)


# structural mutators change an OrcModel


def _model(f: CorpusFile) -> OrcModel:
    return decode_file(f.data)


def _pick_stream(model: OrcModel, rng: random.Random, kinds: Sequence[int] | None = None) -> tuple[Stripe, Stream]:
    candidates = [(st, s) for st in model.stripes for s in st.streams if kinds is None or s.kind in kinds]
    if not candidates:
        raise LookupError("no such stream")
    return rng.choice(candidates)


def _structural(fn: Callable[[OrcModel, random.Random], None]) -> Mutator:
    def run(f: CorpusFile, rng: random.Random) -> bytes:
        model = _model(f)
        try:
            fn(model, rng)
            return encode_file(model)
        except LookupError:  # the file has nothing this mutator works on: flip a bit instead
            return bit_flip(f, rng)
        except (ValueError, TypeError):  # a number its protobuf field cannot hold: the field stays as it was
            return bit_flip(f, rng)

    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    run.change = fn  # type: ignore[attr-defined]  # the change itself, for tests of what it changes
    return mutator(run)


@_structural
def stream_bytes(model: OrcModel, rng: random.Random) -> None:
    """Bytes of a decompressed stream flipped or overwritten (beneath any codec's checks)."""
    _, s = _pick_stream(model, rng)
    if not s.data:
        raise LookupError
    buf = bytearray(s.data)
    for _ in range(rng.choice((1, 1, 2, 3, 8))):
        at = rng.randrange(len(buf))
        buf[at] = rng.randrange(256) if rng.random() < 0.5 else buf[at] ^ (1 << rng.randrange(8))
    s.data = bytes(buf)


@_structural
def stream_varint(model: OrcModel, rng: random.Random) -> None:
    """Continuation bits set on a run of a stream's bytes: varints (RLE bases, decimals, protobuf fields) that run
    on into their neighbours or past the end."""
    _, s = _pick_stream(model, rng)
    if not s.data:
        raise LookupError
    buf = bytearray(s.data)
    start = rng.randrange(len(buf))
    end = len(buf) if rng.random() < 0.2 else min(len(buf), start + rng.choice((1, 2, 9, 10, 11, 20)))
    for i in range(start, end):
        buf[i] |= 0x80
    s.data = bytes(buf)


def _type_kind(model: OrcModel, column: int) -> int:
    return model.footer.types[column].kind if column < len(model.footer.types) else -1


def stream_family(model: OrcModel, stripe: Stripe, s: Stream) -> str | None:
    """:func:`rle_family` of a stream of ``model``."""
    decimal64 = (
        list(model.postscript.version) == [1, 9999]
        and s.column < len(model.footer.types)
        and 0 < model.footer.types[s.column].precision <= 18
    )
    return rle_family(_type_kind(model, s.column), s.kind, _encoding_kind(stripe, s.column), decimal64)


@_structural
def rle_header(model: OrcModel, rng: random.Random) -> None:
    """A run header of an RLE stream changed: its sub-encoding, width, run length, or the whole byte."""
    candidates = []
    for stripe in model.stripes:
        for s in stripe.streams:
            family = stream_family(model, stripe, s)
            if family and s.data:
                candidates.append((s, family))
    if not candidates:
        raise LookupError
    s, family = rng.choice(candidates)
    at = rng.choice(run_headers(s.data, family))
    buf = bytearray(s.data)
    choice = rng.random()
    if family == "v2" and choice < 0.25:
        buf[at] = (buf[at] & 0x3F) | (rng.randrange(4) << 6)  # another sub-encoding
    elif family == "v2" and choice < 0.5:
        buf[at] = (buf[at] & 0xC1) | (rng.randrange(32) << 1)  # another width
    elif choice < 0.75 and at + 1 < len(buf):
        buf[at + 1] = rng.choice((0x00, 0xFF, rng.randrange(256)))  # another run length (or delta, value)
    else:
        buf[at] = rng.randrange(256)
    s.data = bytes(buf)


@_structural
def stream_length(model: OrcModel, rng: random.Random) -> None:
    """A stream's length in the stripe footer that does not match its bytes."""
    _, s = _pick_stream(model, rng)
    s.declared = _hostile(rng, len(s.data))


@_structural
def stream_shuffle(model: OrcModel, rng: random.Random) -> None:
    """A stream dropped, repeated, moved, or given another column or kind."""
    stripe, s = _pick_stream(model, rng)
    choice = rng.random()
    if choice < 0.3:
        stripe.streams.remove(s)
    elif choice < 0.5:
        stripe.streams.insert(rng.randrange(len(stripe.streams) + 1), copy.copy(s))
    elif choice < 0.7:
        stripe.streams.remove(s)
        stripe.streams.insert(rng.randrange(len(stripe.streams) + 1), s)
    elif choice < 0.85:
        s.column = _hostile(rng, s.column) % (len(model.footer.types) + 2)
    else:
        s.kind = rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 100))


@_structural
def dictionary_size(model: OrcModel, rng: random.Random) -> None:
    candidates = [(st, c) for st in model.stripes for c in st.footer.columns if c.kind in (1, 3)]
    if not candidates:
        raise LookupError
    _, column = rng.choice(candidates)
    column.dictionarySize = _hostile(rng, column.dictionarySize) & 0xFFFFFFFF


@_structural
def column_encoding(model: OrcModel, rng: random.Random) -> None:
    stripe = rng.choice(model.stripes) if model.stripes else None
    if stripe is None or not stripe.footer.columns:
        raise LookupError
    choice = rng.random()
    if choice < 0.2:
        del stripe.footer.columns[rng.randrange(len(stripe.footer.columns)) :]
    else:
        column = rng.choice(stripe.footer.columns)
        column.kind = rng.choice((0, 1, 2, 3, 4, 99))


@_structural
def stripe_information(model: OrcModel, rng: random.Random) -> None:
    """A StripeInformation field (offset, lengths, rows) that does not match the stripe."""
    if not model.stripes:
        raise LookupError
    stripe = rng.choice(model.stripes)
    name = rng.choice(("offset", "indexLength", "dataLength", "footerLength", "numberOfRows", "numberOfRows"))
    stripe.lies[name] = _hostile(rng, getattr(stripe.info, name))


@_structural
def row_counts(model: OrcModel, rng: random.Random) -> None:
    """Rows declared by the footer and the stripes changed together: they agree with each other, not the streams."""
    if not model.stripes:
        raise LookupError
    stripe = rng.choice(model.stripes)
    new = _hostile(rng, stripe.info.numberOfRows)
    model.footer.numberOfRows += new - stripe.info.numberOfRows
    stripe.info.numberOfRows = new


@_structural
def postscript_field(model: OrcModel, rng: random.Random) -> None:
    name = rng.choice(
        ("footerLength", "metadataLength", "compression", "compressionBlockSize", "version", "writerVersion")
    )
    if name == "version":
        model.lies[name] = rng.choice(((0 << 16) | 11, (0 << 16) | 12, (1 << 16) | 0, (19 << 16) | 99, 0))
    elif name == "compression":
        model.lies[name] = rng.choice((0, 1, 2, 3, 4, 5, 6, 255))
    else:
        model.lies[name] = _hostile(rng, getattr(model.postscript, name))


@_structural
def footer_field(model: OrcModel, rng: random.Random) -> None:
    """A Footer field: row count, row index stride, header or content length, writer, calendar, statistics count."""
    footer = model.footer
    choice = rng.randrange(6)
    if choice == 0:
        footer.numberOfRows = _hostile(rng, footer.numberOfRows)
    elif choice == 1:
        footer.rowIndexStride = _hostile(rng, footer.rowIndexStride) & 0xFFFFFFFF
    elif choice == 2:
        footer.headerLength = _hostile(rng, footer.headerLength)
    elif choice == 3:
        footer.writer = _hostile(rng, footer.writer) & 0xFFFFFFFF
    elif choice == 4 and len(footer.statistics):
        del footer.statistics[rng.randrange(len(footer.statistics)) :]
    else:
        footer.calendar = rng.randrange(4)


@_structural
def type_tree(model: OrcModel, rng: random.Random) -> None:
    """The schema changed: a kind, subtypes (out of range, cycles), field names, lengths, precision or scale."""
    types = model.footer.types
    if not len(types):
        raise LookupError
    t = rng.choice(types)
    choice = rng.randrange(8)
    if choice == 0:
        t.kind = rng.randrange(21)  # up to GEOGRAPHY
    elif choice == 1 and len(t.subtypes):
        t.subtypes[rng.randrange(len(t.subtypes))] = _hostile(rng, t.subtypes[0]) % (len(types) + 3)
    elif choice == 2:
        t.subtypes.append(rng.randrange(len(types) + 2))
    elif choice == 3 and len(t.fieldNames):
        del t.fieldNames[rng.randrange(len(t.fieldNames))]
    elif choice == 4:
        t.maximumLength = _hostile(rng, t.maximumLength) & 0xFFFFFFFF
    elif choice == 5:
        t.precision = _hostile(rng, t.precision) & 0xFFFFFFFF
    elif choice == 6:
        t.algorithm = _hostile(rng, t.algorithm) & 0xFFFFFFFF  # a geography's edge interpolation
    else:
        t.scale = _hostile(rng, t.scale) & 0xFFFFFFFF


def _mutate_statistics(stats: pb.ColumnStatistics, rng: random.Random) -> None:
    choice = rng.randrange(8)
    if choice == 0:
        stats.numberOfValues = _hostile(rng, stats.numberOfValues)
    elif choice == 1:
        stats.intStatistics.minimum = rng.randrange(-(1 << 63), 1 << 63)
    elif choice == 2:
        stats.intStatistics.maximum = rng.randrange(-(1 << 63), 1 << 63)
    elif choice == 3:
        stats.doubleStatistics.minimum = rng.choice((float("nan"), float("inf"), -1e308, 0.0))
    elif choice == 4:
        stats.stringStatistics.minimum = rng.choice(("", "zzz", "\x00", "é" * 100))
    elif choice == 5:
        stats.hasNull = not stats.hasNull
    elif choice == 6:
        stats.decimalStatistics.maximum = rng.choice(("", "abc", "1e999999", "-0.5", "9" * 100))
    else:
        stats.timestampStatistics.minimum = rng.randrange(-(1 << 63), 1 << 63)


@_structural
def statistics(model: OrcModel, rng: random.Random) -> None:
    """File or stripe statistics changed (min/max, counts, kinds that do not fit the column)."""
    if rng.random() < 0.5 and len(model.footer.statistics):
        _mutate_statistics(rng.choice(model.footer.statistics), rng)
        return
    if not model.metadata:
        raise LookupError
    metadata = pb.Metadata.FromString(model.metadata)
    if not len(metadata.stripeStats):
        raise LookupError
    stripe = rng.choice(metadata.stripeStats)
    if not len(stripe.colStats):
        raise LookupError
    _mutate_statistics(rng.choice(stripe.colStats), rng)
    model.metadata = metadata.SerializeToString()


@_structural
def row_index(model: OrcModel, rng: random.Random) -> None:
    """A row index changed: positions, entries dropped or added, statistics."""
    _, s = _pick_stream(model, rng, (ROW_INDEX,))
    index = pb.RowIndex.FromString(s.data)
    if not len(index.entry):
        raise LookupError
    entry = rng.choice(index.entry)
    choice = rng.randrange(5)
    if choice == 0 and len(entry.positions):
        i = rng.randrange(len(entry.positions))
        entry.positions[i] = _hostile(rng, entry.positions[i])
    elif choice == 1:
        del entry.positions[rng.randrange(len(entry.positions) + 1) :]
    elif choice == 2:
        del index.entry[rng.randrange(len(index.entry)) :]
    elif choice == 3:
        index.entry.add().CopyFrom(entry)
    else:
        _mutate_statistics(entry.statistics, rng)
    s.data = index.SerializeToString()


@_structural
def bloom_filter(model: OrcModel, rng: random.Random) -> None:
    """A bloom filter changed: hash function count, bitset length or bytes."""
    _, s = _pick_stream(model, rng, (BLOOM_FILTER, BLOOM_FILTER_UTF8))
    index = pb.BloomFilterIndex.FromString(s.data)
    if not len(index.bloomFilter):
        raise LookupError
    bf = rng.choice(index.bloomFilter)
    choice = rng.randrange(4)
    if choice == 0:
        bf.numHashFunctions = _hostile(rng, bf.numHashFunctions) & 0xFFFFFFFF
    elif choice == 1 and len(bf.bitset):
        del bf.bitset[rng.randrange(len(bf.bitset)) :]
    elif choice == 2 and bf.utf8bitset:
        bf.utf8bitset = bf.utf8bitset[: rng.randrange(len(bf.utf8bitset) + 1)]
    else:
        del index.bloomFilter[rng.randrange(len(index.bloomFilter)) :]
    s.data = index.SerializeToString()


# nested types: lists, maps, structs and unions (their lengths, children's PRESENT streams, value counts, tags)

LIST, MAP, STRUCT, UNION = 10, 11, 12, 13
COMPOUND = frozenset({LIST, MAP, STRUCT, UNION})
KIND_NUMBERS = {"array": LIST, "map": MAP, "struct": STRUCT, "uniontype": UNION}


def _parents(model: OrcModel) -> dict[int, int]:
    return {child: i for i, t in enumerate(model.footer.types) for child in t.subtypes}


def _nested_columns(model: OrcModel) -> list[int]:
    """Columns below a list, map, struct or union other than the root struct: their values are counted by a
    parent, not by the stripe's rows."""
    parents = _parents(model)
    return [c for c, p in sorted(parents.items()) if p != 0 and _type_kind(model, p) in COMPOUND]


def _encoding_kind(stripe: Stripe, column: int) -> int:
    return stripe.footer.columns[column].kind if column < len(stripe.footer.columns) else 0


def _decode_all(buf: bytes, family: str, signed: bool) -> list[int]:
    """Every value of a valid RLE stream (``family`` as :func:`rle_family` names it), with the reference decoders."""
    from tests import rle_reference as v1
    from tests import rle_v2_reference as v2

    if family == "v2":
        return v2.decode(buf, signed)
    out: list[int] = []
    pos = 0
    while pos < len(buf):
        h = buf[pos]
        if family == "byte":
            count = h + 3 if h < 128 else 256 - h
            got, pos = v1.decode_byte_rle(buf, count, pos)
        else:
            count = h + 3 if h < 128 else 256 - h
            got, pos = v1.decode_rle_v1(buf, count, signed, pos)
        out += got
    return out


def _encode_all(values: Sequence[int], family: str, signed: bool) -> bytes:
    from tests import rle_reference as v1
    from tests import rle_v2_reference as v2

    if family == "v2":
        return b"".join(v2.direct(list(values[i : i + 512]), signed) for i in range(0, len(values), 512))
    if family == "byte":
        return v1.encode_byte_rle([v & 0xFF for v in values])
    return v1.encode_rle_v1([v if signed else v & ((1 << 64) - 1) for v in values], signed)


def _rewrite(stream: Stream, family: str, signed: bool, change: Callable[[list[int]], list[int]]) -> None:
    """Decode ``stream``, change its values and encode them again (a stream that does not decode is left to the
    byte mutators)."""
    try:
        values = _decode_all(stream.data, family, signed)
    except Exception as e:  # the reference decoders raise their own errors, ValueError and IndexError
        raise LookupError(f"stream does not decode: {e}") from None
    stream.data = _encode_all(change(values), family, signed)


def _bits(buf: bytes) -> list[int]:
    return [(byte >> (7 - k)) & 1 for byte in _decode_all(buf, "byte", False) for k in range(8)]


def _value_count(model: OrcModel, stripe: Stripe, column: int) -> int:
    """How many values ``column`` can have in ``stripe`` at most: the rows, or the lengths of the lists and maps
    above it (nulls above only make it fewer)."""
    parents = _parents(model)
    parent = parents.get(column)
    if parent is None:
        return stripe.info.numberOfRows
    if _type_kind(model, parent) in (LIST, MAP):
        lengths = next((s for s in stripe.streams if s.column == parent and s.kind == LENGTH), None)
        if lengths is None:
            return 0
        family = "v2" if _encoding_kind(stripe, parent) in (2, 3) else "v1"
        try:
            return sum(_decode_all(lengths.data, family, False))
        except Exception:
            return 0
    return _value_count(model, stripe, parent)


@_structural
def nested_lengths(model: OrcModel, rng: random.Random) -> None:
    """The LENGTH stream of a list or map re-encoded with other lengths: one longer or shorter, a hostile one, all
    zero, one dropped or added, or two moved against each other (the same total: a valid file that groups the
    elements otherwise)."""
    candidates = [
        (st, s)
        for st in model.stripes
        for s in st.streams
        if s.kind == LENGTH and _type_kind(model, s.column) in (LIST, MAP) and s.data
    ]
    if not candidates:
        raise LookupError
    stripe, s = rng.choice(candidates)
    family = "v2" if _encoding_kind(stripe, s.column) in (2, 3) else "v1"
    choice = rng.randrange(6)

    def change(values: list[int]) -> list[int]:
        if not values:
            raise LookupError
        i = rng.randrange(len(values))
        if choice == 0:
            values[i] += rng.choice((1, 2, 64))
        elif choice == 1:
            values[i] = max(0, values[i] - rng.choice((1, 2, 64)))
        elif choice == 2:
            values[i] = _hostile(rng, values[i])
        elif choice == 3:
            values = [0] * len(values)
        elif choice == 4:
            j = rng.randrange(len(values))
            moved = min(values[i], rng.randint(1, 3))
            values[i] -= moved
            values[j] += moved
        elif rng.random() < 0.5:
            del values[i]
        else:
            values.insert(i, rng.choice((0, 1, values[i])))
        return values

    _rewrite(s, family, False, change)


@_structural
def child_present(model: OrcModel, rng: random.Random) -> None:
    """The PRESENT stream of a column below a list, map, struct or union: nulls added or removed, its bits cut
    short or run on, the stream dropped, or a new one for a child that had none (map keys among them)."""
    columns = _nested_columns(model)
    if not columns or not model.stripes:
        raise LookupError
    from tests.rle_reference import encode_boolean_rle

    stripe = rng.choice(model.stripes)
    column = rng.choice(columns)
    existing = next((s for s in stripe.streams if s.column == column and s.kind == PRESENT), None)
    choice = rng.randrange(5)
    if existing is not None and existing.data and choice < 3:
        try:
            bits = _bits(existing.data)
        except Exception:
            raise LookupError from None
        if choice == 0 and bits:
            for _ in range(rng.choice((1, 2, 4))):
                bits[rng.randrange(len(bits))] ^= 1
        elif choice == 1:
            bits = bits[: rng.randrange(len(bits) + 1)]
        else:
            bits += [int(rng.random() < 0.5) for _ in range(rng.choice((8, 64, 1024)))]
        existing.data = encode_boolean_rle(bits)
    elif existing is not None and choice == 3:
        stripe.streams.remove(existing)
    else:
        count = _value_count(model, stripe, column)
        density = rng.choice((0.0, 0.5, 0.9, 1.0, 1.0))
        bits = [int(rng.random() < density) for _ in range(count)]
        if existing is not None:
            existing.data = encode_boolean_rle(bits)
            return
        # the new stream goes before the column's other data streams, where writers put PRESENT
        at = next((k for k, s in enumerate(stripe.streams) if s.column == column and s.kind not in INDEX_KINDS), None)
        if at is None:
            at = len(stripe.streams)
        stripe.streams.insert(at, Stream(PRESENT, column, encode_boolean_rle(bits)))


@_structural
def union_tags(model: OrcModel, rng: random.Random) -> None:
    """A union's tags re-encoded: one out of range, one moved to another variant (whose streams then hold a value
    too few or too many), all the same variant, one dropped or added."""
    candidates = [
        (st, s) for st in model.stripes for s in st.streams if s.kind == DATA and _type_kind(model, s.column) == UNION
    ]
    if not candidates:
        raise LookupError
    _, s = rng.choice(candidates)
    variants = len(model.footer.types[s.column].subtypes)
    choice = rng.randrange(5)

    def change(tags: list[int]) -> list[int]:
        if not tags:
            raise LookupError
        i = rng.randrange(len(tags))
        if choice == 0:
            tags[i] = rng.choice((variants, variants + 1, 127, 128, 255))
        elif choice == 1:
            tags[i] = rng.randrange(max(variants, 1))
        elif choice == 2:
            tags = [rng.randrange(max(variants, 1))] * len(tags)
        elif choice == 3:
            del tags[i]
        else:
            tags.insert(i, rng.randrange(max(variants, 1)))
        return tags

    _rewrite(s, "byte", False, change)


@_structural
def nested_kind(model: OrcModel, rng: random.Random) -> None:
    """A list, map, struct or union read as another of them with the same number of children (a struct of two
    fields as a map or a union, a list as a struct of one field, ...), so that the streams below are read as
    something they are not."""
    compound = [t for t in list(model.footer.types)[1:] if t.kind in COMPOUND]
    if not compound:
        raise LookupError
    t = rng.choice(compound)
    n = len(t.subtypes)
    options = [k for k in ((LIST, STRUCT, UNION) if n == 1 else (MAP, STRUCT, UNION) if n == 2 else (STRUCT, UNION))]
    t.kind = rng.choice([k for k in options if k != t.kind] or options)
    del t.fieldNames[:]
    if t.kind == STRUCT:
        t.fieldNames.extend(f"f{i}" for i in range(n))


@_structural
def child_values(model: OrcModel, rng: random.Random) -> None:
    """A column below a list, map, struct or union given fewer or more values than its parent says it has: its
    integer stream (values, lengths, tags, nanoseconds, scales) re-encoded with values dropped from its end or
    added to it."""
    nested = set(_nested_columns(model))
    candidates = []
    for stripe in model.stripes:
        for s in stripe.streams:
            if s.column in nested and s.kind in (DATA, LENGTH, SECONDARY) and s.data:
                family = stream_family(model, stripe, s)
                if family is not None:
                    candidates.append((s, family))
    if not candidates:
        raise LookupError
    s, family = rng.choice(candidates)
    k = rng.choice((1, 1, 2, 3, 100))

    def change(values: list[int]) -> list[int]:
        if rng.random() < 0.6:
            return values[: max(0, len(values) - k)]
        return values + [values[-1] if values else 0] * k

    _rewrite(s, family, s.kind == DATA and family != "byte", change)


# the type kinds each nested mutator needs in a file (below its root) to do what it is for
AIMS = {
    "nested_lengths": frozenset({LIST, MAP}),
    "child_present": COMPOUND,
    "union_tags": frozenset({UNION}),
    "nested_kind": COMPOUND,
    "child_values": COMPOUND,
}


# -- the corpus ---------------------------------------------------------------------------------------------------


def _generated(directory: Path) -> Iterator[Path]:
    """Files pyarrow and pyorc write: every type, every codec, small row groups, dictionaries, bloom filters."""
    from tests.factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc

    table = all_types_table(n=300, seed=11)
    for codec in ("none", "zlib", "zstd", "snappy", "lz4"):
        yield write_pyarrow(
            directory / f"pyarrow-{codec}.orc",
            table,
            compression=codec,
            row_index_stride=100,
            dictionary_key_size_threshold=1.0 if codec in ("zlib", "none") else 0.0,
            bloom_filter_columns=["i32", "str"],
        )
    schema, rows = all_types_pyorc(n=300, seed=12)
    for codec in ("none", "zlib"):
        yield write_pyorc(
            directory / f"pyorc-{codec}.orc",
            schema,
            rows,
            compression=codec,
            row_index_stride=100,
            stripe_size=4096,
            bloom_filter_columns=["i64", "str"],
            dict_key_size_threshold=1.0,
        )
    for codec in ("none", "zlib"):
        yield write_pyorc(
            directory / f"pyorc-nested-{codec}.orc",
            NESTED_PYORC_SCHEMA,
            nested_rows(300, seed=13),
            compression=codec,
            row_index_stride=100,
            stripe_size=4096,
        )
    yield write_pyarrow(directory / "pyarrow-nested-zstd.orc", nested_table(300, seed=14), row_index_stride=100)
    # GEOMETRY and GEOGRAPHY: binary columns of WKB retyped in the footer (what ORC Java 2.3 writes, stream for stream)
    from tests.geodata import GEOGRAPHY, GEOMETRY, geospatial_file, random_geometries

    yield geospatial_file(
        directory / "geospatial-none.orc",
        {
            "g": (GEOMETRY, random_geometries(300, 15, ("XY", "XYZ", "XYZM"))),
            "geog": (GEOGRAPHY, random_geometries(300, 16)),
        },
        crs={"geog": "EPSG:4326"},
        algorithm={"geog": 4},
        row_index_stride=100,
        stripe_size=8192,
        batch_size=100,
    )
    # decimals as older writers stored them: ORC Java's pre-2.0 format (short decimals as RLE v2 integers) and
    # Hive 0.11 (no precision or scale, a scale per value)
    from tests.hive11 import write_hive11_decimals
    from tests.pre20 import write_pre20_decimals

    yield write_pre20_decimals(
        directory / "pre20-zlib.orc",
        {
            "p5": (5, 2, _decimals(300, 5, 2, seed=15)),
            "p18": (18, 4, _decimals(300, 18, 4, seed=16)),
            "p30": (30, 6, _decimals(300, 30, 6, seed=17)),
        },
        stride=100,
        stripe_rows=150,
        compression="zlib",
    )
    yield write_hive11_decimals(
        directory / "hive11-none.orc",
        {"d": [d if d is None else d.scaleb(-(i % 9)) for i, d in enumerate(_decimals(300, 20, 0, seed=18))]},
        stride=100,
        stripe_rows=150,
    )
    # BROTLI: the zstd file rewritten into Brotli chunks of 4 KiB (every third stored original), row indexes kept
    from tests.orc_brotli import to_brotli

    brotli_file = directory / "pyarrow-brotli.orc"
    brotli_file.write_bytes(to_brotli((directory / "pyarrow-zstd.orc").read_bytes(), 4096, 3)[0])
    yield brotli_file


def _decimals(n: int, precision: int, scale: int, seed: int) -> list[Any]:
    """``n`` values of ``decimal(precision, scale)``, the largest included, about one null in ten."""
    from decimal import Context, Decimal

    r, wide = random.Random(seed), Context(prec=80)  # the default 28 digits would round wider values
    top = 10**precision - 1
    return [
        None
        if r.random() < 0.1
        else Decimal(r.choice([top, -top, r.randint(-top, top), r.randint(-99, 99)])).scaleb(-scale, wide)
        for _ in range(n)
    ]


# lists, maps, structs and unions inside each other, with nulls at every level (pyorc cannot write a null union)
NESTED_PYORC_SCHEMA = (
    "struct<id:int,l:array<map<string,struct<a:int,u:uniontype<int,string>>>>,m:map<int,array<string>>,"
    "s:struct<x:struct<y:array<int>>,z:uniontype<bigint,array<int>>>,u:uniontype<int,struct<p:int,q:string>>,"
    "ll:array<array<bigint>>>"
)


class _Maker:
    """Random values with nulls at every level (``maybe``) and short lists (``some``)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def maybe(self, make: Callable[[], Any]) -> Any:
        return None if self.rng.random() < 0.15 else make()

    def some(self, make: Callable[[], Any], most: int = 4) -> list[Any]:
        return [make() for _ in range(self.rng.randrange(most + 1))]

    def int_(self, bits: int) -> int:
        return self.rng.randrange(-(1 << (bits - 1)), 1 << (bits - 1))

    def word(self) -> str:
        return self.rng.choice(("", "a", "bb", "ccc", "δέλτα", "zebra")) + str(self.rng.randrange(50))


def nested_rows(n: int, seed: int) -> list[tuple[Any, ...]]:
    """Rows of :data:`NESTED_PYORC_SCHEMA` for pyorc."""
    m = _Maker(seed)
    rng = m.rng

    def entry() -> tuple[Any, Any]:  # struct<a:int,u:uniontype<int,string>>
        return (m.maybe(lambda: m.int_(8)), m.int_(8) if rng.random() < 0.5 else m.word())

    def entries() -> dict[str, Any]:  # map<string,struct<...>>
        return {m.word(): m.maybe(entry) for _ in range(rng.randrange(3))}

    def words() -> dict[int, Any]:  # map<int,array<string>>
        return {rng.randrange(-500, 500): m.maybe(lambda: m.some(lambda: m.maybe(m.word))) for _ in range(3)}

    def struct_() -> tuple[Any, Any]:  # struct<x:struct<y:array<int>>,z:uniontype<bigint,array<int>>>
        inner = m.maybe(lambda: (m.maybe(lambda: m.some(lambda: m.maybe(lambda: m.int_(16)))),))
        return (inner, m.int_(40) if rng.random() < 0.5 else m.some(lambda: m.int_(4)))

    def union() -> Any:  # uniontype<int,struct<p:int,q:string>>
        return m.int_(4) if rng.random() < 0.5 else (m.maybe(lambda: m.int_(8)), m.maybe(m.word))

    def deep() -> list[Any]:  # array<array<bigint>>
        return m.some(lambda: m.maybe(lambda: m.some(lambda: m.maybe(lambda: m.int_(63)))))

    return [
        (i, m.maybe(lambda: m.some(lambda: m.maybe(entries))), m.maybe(words), m.maybe(struct_), union(), m.maybe(deep))
        for i in range(n)
    ]


def nested_table(n: int, seed: int) -> Any:
    """Lists, maps and structs inside each other with nulls at every level, for pyarrow's writer (no unions)."""
    import pyarrow as pa

    m = _Maker(seed)
    rng = m.rng

    def item() -> dict[str, Any]:  # struct<a:int32,m:map<string,list<int64>>>
        pairs = [
            (f"k{j}", m.maybe(lambda: m.some(lambda: m.maybe(lambda: m.int_(50))))) for j in range(rng.randrange(3))
        ]
        return {"a": m.maybe(lambda: m.int_(8)), "m": m.maybe(lambda: pairs)}

    def lookup() -> list[tuple[int, Any]]:  # map<int16,struct<x:double,y:list<string>>>
        value = {"x": m.maybe(rng.random), "y": m.some(lambda: m.maybe(m.word))}
        return [(m.int_(16), m.maybe(lambda: value)) for _ in range(rng.randrange(3))]

    def deep() -> dict[str, Any]:  # struct<s:struct<t:list<int8>>>
        return {"s": m.maybe(lambda: {"t": m.maybe(lambda: m.some(lambda: m.maybe(lambda: m.int_(8))))})}

    item_type = pa.struct([("a", pa.int32()), ("m", pa.map_(pa.string(), pa.list_(pa.int64())))])
    lookup_type = pa.map_(pa.int16(), pa.struct([("x", pa.float64()), ("y", pa.list_(pa.string()))]))
    deep_type = pa.struct([("s", pa.struct([("t", pa.list_(pa.int8()))]))])
    return pa.table(
        {
            "id": pa.array(range(n), pa.int32()),
            "items": pa.array([m.maybe(lambda: m.some(lambda: m.maybe(item))) for _ in range(n)], pa.list_(item_type)),
            "lookup": pa.array([m.maybe(lookup) for _ in range(n)], lookup_type),
            "deep": pa.array([m.maybe(deep) for _ in range(n)], deep_type),
        }
    )


def _examples() -> list[Path]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(p for p in EXAMPLES.glob("*.orc") if p.stat().st_size <= MAX_EXAMPLE_BYTES)


def _filters_for(df: Any, fields: list[str], rng: random.Random) -> list[list[tuple[str, str, Any]]]:
    """A few filters on the valid file's primitive columns, with values taken from its rows."""
    import numpy as np
    import pandas as pd

    out: list[list[tuple[str, str, Any]]] = []
    for name in fields:
        column = df[name].dropna()
        if column.empty or (column.dtype == object and not isinstance(column.iloc[0], str)):
            continue
        value = column.iloc[rng.randrange(len(column))]
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, (bool, int, float, str, pd.Timestamp)) or hasattr(value, "isoformat"):
            out.append([(name, rng.choice(("==", "<", ">=", "!=")), value)])
            out.append([(name, "in", [value])])
    return out


def load_corpus(directory: Path, examples: bool = True, generated: bool = True) -> list[CorpusFile]:
    """The valid files to mutate, with their layouts, top-level fields and filters that make sense for them."""
    import orcjit

    paths = (_examples() if examples else []) + (list(_generated(directory)) if generated else [])
    rng = random.Random(0)
    corpus = []
    for path in paths:
        data = path.read_bytes()
        with orcjit.ORCFile(data) as f:
            fields = f.schema.field_names if f.schema.kind == "struct" else []
            df = f.read()
            # (a file without stripes has no streams for the nested mutators to change)
            nested = frozenset(
                KIND_NUMBERS[n.kind] for n in f.schema.walk() if n.parent and n.kind in KIND_NUMBERS and f.nstripes
            )
        corpus.append(CorpusFile(path.name, data, layout_of(data), fields, _filters_for(df, fields, rng), nested))
    return corpus


# -- cases --------------------------------------------------------------------------------------------------------

MODES = ("full", "project", "filter", "stripes", "metadata", "rows", "arrow")


@dataclass
class Case:
    number: int
    file: str
    mutator: str
    mode: dict[str, Any]
    data: bytes = dataclasses.field(repr=False)


def make_case(number: int, corpus: Sequence[CorpusFile], seed: int, mutators: Sequence[str] | None = None) -> Case:
    """Case ``number`` of a run with ``seed`` (drawing its mutator from ``mutators``, all of them by default): the
    same numbers give the same bytes and read."""
    rng = random.Random(f"{seed}:{number}")
    f = corpus[rng.randrange(len(corpus))]
    name = rng.choice(sorted(mutators or MUTATORS))
    aims = AIMS.get(name)
    if aims is not None and not aims & f.nested_kinds:
        # a mutator aimed at nested types works on a file that has them (any other would only get bits flipped)
        fitting = [c for c in corpus if aims & c.nested_kinds]
        if fitting:
            f = fitting[rng.randrange(len(fitting))]
    data = MUTATORS[name](f, rng)
    kind = rng.choice(MODES)
    mode: dict[str, Any] = {"kind": kind, "threads": rng.random() < 0.5}
    if kind == "project" and f.fields:
        mode["columns"] = sorted(rng.sample(f.fields, rng.randint(1, len(f.fields))), key=f.fields.index)
    if kind in ("filter", "metadata", "stripes") and f.filters:
        mode["filters"] = rng.choice(f.filters)
        if f.fields and rng.random() < 0.5:
            mode["columns"] = [f.fields[0]]
    if kind == "rows":
        mode["start"], mode["stop"] = sorted((rng.randrange(2000), rng.randrange(2000)))
    # drawn apart, so that the cases of a seed stay the cases earlier runs of it read
    if kind in ("full", "project", "filter", "rows") and random.Random(f"{seed}:{number}:geometry").random() < 0.3:
        mode["geometry"] = "shapely"  # geometry and geography columns through shapely.from_wkb
    return Case(number, f.name, name, mode, data)


# -- the worker: reads cases and says how each went ----------------------------------------------------------------


class Inconsistent(Exception):
    """A read that returned but disagrees with what the file declares."""


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise Inconsistent(what)


def _same(a: Any, b: Any) -> None:
    import pandas as pd

    try:
        pd.testing.assert_frame_equal(a, b)
    except AssertionError as e:
        raise Inconsistent(f"a read on one thread differs: {str(e)[:200]}") from None
    except (TypeError, ValueError):
        pass  # cells pandas cannot compare (arrays in object columns): not a verdict either way


def read_case(data: bytes, mode: dict[str, Any]) -> None:
    """Read ``data`` as ``mode`` says; raises what the read raises, or Inconsistent."""
    import orcjit

    kind = mode["kind"]
    if kind.startswith("probe-"):
        _probe(kind)
    threads = mode.get("threads", True)
    columns = mode.get("columns")
    filters = mode.get("filters")
    geometry = mode.get("geometry", "wkb")
    with orcjit.ORCFile(data) as f:
        rows = f.nrows
        top = f.schema.field_names if f.schema.kind == "struct" else None
        if kind == "full":
            df = f.read(use_threads=threads, geometry=geometry)
            _check(len(df) == rows, f"read gave {len(df)} rows of {rows}")
            _check(top is None or list(df.columns) == top, "read gave other columns than the schema's")
            _same(df, orcjit.read_orc(data, use_threads=not threads, geometry=geometry))
        elif kind == "project":
            df = orcjit.read_orc(data, columns=columns, use_threads=threads, geometry=geometry)
            _check(len(df) == rows, f"projection gave {len(df)} rows of {rows}")
            _check(columns is None or list(df.columns) == columns, "projection gave other columns")
        elif kind == "filter":
            df = orcjit.read_orc(data, columns=columns, filters=filters, use_threads=threads, geometry=geometry)
            _check(len(df) <= rows, f"filtered read gave {len(df)} rows of {rows}")
        elif kind == "stripes":
            total = 0
            for part in f.iter_stripes(columns=columns, use_threads=threads):
                total += len(part)
            _check(total == rows, f"stripes gave {total} rows of {rows}")
            if f.nstripes:
                f.read_stripe(f.nstripes - 1, filters=filters)
        elif kind == "metadata":
            str(f.schema)
            _ = f.statistics
            for i in range(min(f.nstripes, 8)):
                f.stripe_statistics(i)
                f.stripe_footer(i)
            if filters:
                str(f.explain(filters))
        elif kind == "rows":
            start, stop = min(mode["start"], rows), min(mode["stop"], rows)
            df = f.read_rows(start, stop, geometry=geometry)
            _check(len(df) == stop - start, f"read_rows gave {len(df)} rows of {stop - start}")
        elif kind == "arrow":
            table = f.read_arrow(use_threads=threads)
            _check(table.num_rows == rows, f"read_arrow gave {table.num_rows} rows of {rows}")
            _valid_arrow(table)
            df = f.read(dtype_backend="pyarrow", use_threads=threads)
            _check(len(df) == rows, f"pyarrow backend gave {len(df)} rows of {rows}")


def _valid_arrow(table: Any) -> None:
    """Arrow's full validation of a table built from file data: offsets in range and monotonic, children of the
    right length, map keys without nulls, union type codes of the union, UTF-8 strings, dictionary indices in
    range. An array that breaks these can crash a later Arrow call (``to_pandas``, ``take``, a cast)."""
    import pyarrow as pa

    try:
        table.validate(full=True)
    except pa.ArrowInvalid as e:
        raise Inconsistent(f"read_arrow built an invalid Arrow table: {e}") from None


def _probe(kind: str) -> None:
    """Misbehaviours on demand, so that tests can show the harness tells each outcome apart."""
    if kind == "probe-crash":
        os._exit(70)
    if kind == "probe-hang":
        time.sleep(3600)
    if kind == "probe-memory":
        block = b"\x01" * (400 << 20)  # written, so every page is really taken
        del block
        return
    if kind == "probe-other":
        raise KeyError("probe")
    raise Inconsistent("probe")


def _send(stream: Any, obj: Any) -> None:
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(payload)) + payload)
    stream.flush()


def _receive_exactly(stream: Any, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        got = stream.read(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf


def _receive(stream: Any) -> Any:
    (n,) = struct.unpack("<Q", _receive_exactly(stream, 8))
    return pickle.loads(_receive_exactly(stream, n))


def _status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Start a new peak-RSS measurement (Linux: writing 5 to clear_refs resets VmHWM)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _growth_mb(before: float, resettable: bool) -> float:
    """How far this case pushed memory above what the worker held before it."""
    if resettable:
        peak = _status_mb("VmHWM")
        if peak is not None:
            return peak - before
    # without a resettable peak, the process's high-water mark: a case is charged only for exceeding it
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before


def worker_main() -> None:
    """Answer cases from stdin on stdout: (outcome, detail, peak memory growth in MB) for each (data, mode)."""
    import orcjit

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # nothing else may write to the protocol stream
    sys.stdout = sys.stderr
    while True:
        try:
            data, mode = _receive(stdin)
        except EOFError:
            return
        detail = ""
        resettable = _reset_peak()
        before = (_status_mb("VmRSS") if resettable else None) or (
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        )
        try:
            read_case(data, mode)
            outcome = "ok"
        except orcjit.OrcError as e:
            outcome, detail = "orc_error", str(e)[:300]
        except Inconsistent as e:
            outcome, detail = "inconsistent", str(e)
        except Exception as e:  # every other exception is what the fuzzer is looking for
            outcome = "other"
            detail = f"{type(e).__name__}: {str(e)[:300]}\n{''.join(traceback.format_tb(e.__traceback__)[-4:])}"
        _send(stdout, (outcome, detail, _growth_mb(before, resettable)))


class Worker:
    """A worker subprocess; :meth:`run` reads one case in it, replacing it after a crash, hang or memory blow-up."""

    def __init__(self, timeout: float, memory_mb: float, warm: Sequence[tuple[bytes, dict[str, Any]]]) -> None:
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.warm = warm
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        root = str(Path(__file__).resolve().parent.parent)
        env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz_harness", "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
            env=env,
        )
        self.proc = proc
        # compile and load every kernel before any case is timed: the first read in a process is slow
        for data, mode in self.warm:
            _send(proc.stdin, (data, mode))
            _receive(proc.stdout)
        return proc

    def _stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def run(self, case: Case) -> tuple[str, str]:
        proc = self.proc or self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, (case.data, case.mode))
        except BrokenPipeError:
            self._stop()
            return "crash", "worker gone before the case was sent"
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        if not ready:
            self._stop()
            return "timeout", f"no answer in {self.timeout} s"
        try:
            outcome, detail, growth = _receive(proc.stdout)
        except EOFError:
            code = proc.wait()
            self.proc = None
            return "crash", f"worker exited with {code}"
        if growth > self.memory_mb:
            self._stop()
            return "memory", f"peak RSS grew {growth:.0f} MB (limit {self.memory_mb:.0f} MB)"
        return outcome, detail

    def close(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._stop()
        self.proc = None


@dataclass
class Report:
    cases: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    by_mutator: dict[str, Counter[str]] = field(default_factory=dict)
    failures: list[tuple[Case, str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, case: Case, outcome: str, detail: str) -> None:
        self.cases += 1
        self.counts[outcome] += 1
        self.by_mutator.setdefault(case.mutator, Counter())[outcome] += 1
        if outcome in BAD_OUTCOMES:
            self.failures.append((case, outcome, detail))

    @property
    def bad(self) -> int:
        return sum(self.counts[o] for o in BAD_OUTCOMES)

    def table(self) -> str:
        head = "| mutator | cases | " + " | ".join(OUTCOMES) + " |"
        rule = "|---" * (len(OUTCOMES) + 2) + "|"
        lines = [head, rule]
        for name in sorted(self.by_mutator):
            c = self.by_mutator[name]
            lines.append(f"| {name} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
        lines.append(f"| **all** | {self.cases} | " + " | ".join(str(self.counts[o]) for o in OUTCOMES) + " |")
        return "\n".join(lines)


def _warm_cases(corpus: Sequence[CorpusFile]) -> list[tuple[bytes, dict[str, Any]]]:
    out = []
    for f in corpus:
        for kind in MODES:
            mode: dict[str, Any] = {"kind": kind, "threads": True, "start": 0, "stop": 100}
            if f.filters:
                mode["filters"] = f.filters[0]
            out.append((f.data, mode))
    return out


def run_fuzz(
    corpus: Sequence[CorpusFile],
    cases: int,
    *,
    seed: int = 0,
    jobs: int = 2,
    timeout: float = 20.0,
    memory_mb: float = 1024.0,
    first: int = 0,
    progress: Callable[[Report], None] | None = None,
    mutators: Sequence[str] | None = None,
) -> Report:
    """Run cases ``first .. first + cases`` of the run with ``seed`` on ``jobs`` workers (with ``mutators`` only,
    when given); count the outcomes."""
    import concurrent.futures

    report = Report()
    warm = _warm_cases(corpus)
    workers = [Worker(timeout, memory_mb, warm) for _ in range(jobs)]
    started = time.perf_counter()
    numbers = iter(range(first, first + cases))

    def serve(worker: Worker) -> list[tuple[Case, str, str]]:
        done = []
        for number in numbers:  # the shared iterator hands each number to one thread
            case = make_case(number, corpus, seed, mutators)
            outcome, detail = worker.run(case)
            done.append((case, outcome, detail))
            with lock:
                report.add(case, outcome, detail)
                if progress is not None and report.cases % 1000 == 0:
                    progress(report)
        return done

    import threading

    lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            list(pool.map(serve, workers))
    finally:
        for w in workers:
            w.close()
    report.seconds = time.perf_counter() - started
    return report


def reproduce(case: Case, directory: Path) -> Path:
    """Write a failing case's bytes to ``directory`` for a bug report."""
    path = directory / f"case-{case.number}-{case.mutator}-{case.file}"
    path.write_bytes(case.data)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_harness", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000, help="how many cases (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed: the same seed gives the same cases")
    parser.add_argument("--first", type=int, default=0, help="number of the first case (to resume or re-run one)")
    parser.add_argument("--jobs", type=int, default=2, help="worker subprocesses (default 2)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case may take (default 20)")
    parser.add_argument("--memory-mb", type=float, default=1024.0, help="peak RSS growth allowed (default 1024)")
    parser.add_argument("--failures", type=Path, help="write the bytes of failing cases to this directory")
    parser.add_argument(
        "--mutators",
        type=lambda text: text.split(","),
        help=f"comma-separated mutators to draw from (default: all of {', '.join(sorted(MUTATORS))})",
    )
    parser.add_argument(
        "--files",
        type=lambda text: text.split(","),
        help="comma-separated corpus files to mutate (default: all; the run prints their names)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    unknown = sorted(set(args.mutators or ()) - set(MUTATORS))
    if unknown:
        parser.error(f"unknown mutators: {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = load_corpus(Path(tmp))
        if args.files:
            missing = sorted(set(args.files) - {f.name for f in corpus})
            if missing:
                parser.error(f"not in the corpus: {', '.join(missing)}")
            corpus = [f for f in corpus if f.name in args.files]

        def progress(r: Report) -> None:
            rate = r.cases / max(time.perf_counter() - t0, 1e-9)
            print(f"{r.cases} cases, {r.bad} bad, {rate:.0f}/s: {dict(r.counts)}", file=sys.stderr, flush=True)

        t0 = time.perf_counter()
        report = run_fuzz(
            corpus,
            args.cases,
            seed=args.seed,
            jobs=args.jobs,
            timeout=args.timeout,
            memory_mb=args.memory_mb,
            first=args.first,
            progress=progress,
            mutators=args.mutators,
        )
    print(f"corpus: {len(corpus)} files ({', '.join(f.name for f in corpus)})")
    print(f"{report.cases} cases in {report.seconds:.0f} s, seed {args.seed}, first case {args.first}\n")
    print(report.table())
    for case, outcome, detail in report.failures[:50]:
        print(f"\n{outcome}: case {case.number} ({case.mutator} on {case.file}, mode {case.mode}):\n{detail}")
    if args.failures is not None and report.failures:
        args.failures.mkdir(parents=True, exist_ok=True)
        for case, _, _ in report.failures:
            reproduce(case, args.failures)
    return 1 if report.bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
