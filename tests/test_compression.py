"""Compression framing and codecs: spec vectors, round trips, bombs and corrupt chunks."""

from __future__ import annotations

import zlib

import cramjam
import lz4.block
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit import OrcError
from orcjit.compression import decompress_stream, iter_chunks
from orcjit.compression.codecs import LZ4, LZO, NONE, SNAPPY, ZLIB, ZSTD, decompress_chunk


def header(length: int, original: bool) -> bytes:
    return (length * 2 + int(original)).to_bytes(3, "little")


def raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


COMPRESSORS = {
    ZLIB: raw_deflate,
    SNAPPY: lambda d: bytes(cramjam.snappy.compress_raw(d)),
    LZ4: lambda d: lz4.block.compress(d, store_size=False),
    ZSTD: lambda d: zstandard.ZstdCompressor().compress(d),
}


def frame(codec: int, blocks: list[bytes]) -> bytes:
    out = b""
    for block in blocks:
        packed = COMPRESSORS[codec](block)
        out += header(len(packed), False) + packed
    return out


def test_spec_header_examples() -> None:
    # ORCv1.md: a chunk that compressed to 100,000 bytes, and 5 bytes stored original
    assert header(100_000, False) == bytes([0x40, 0x0D, 0x03])
    assert header(5, True) == bytes([0x0B, 0x00, 0x00])
    chunks = list(iter_chunks(bytes([0x0B, 0, 0]) + b"abcde", 10, "test"))
    assert [(pos, orig, bytes(c)) for pos, orig, c in chunks] == [(0, True, b"abcde")]


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_round_trip_mixed_chunks(codec: int) -> None:
    blocks = [b"hello orc " * 100, bytes(range(256)) * 4, b"x" * 1000]
    stream = frame(codec, blocks[:2]) + header(len(blocks[2]), True) + blocks[2]
    assert decompress_stream(stream, codec, 1024, "test") == b"".join(blocks)


def test_none_passes_bytes_through() -> None:
    assert decompress_stream(b"\x01\x02\x03", NONE, 0, "test") == b"\x01\x02\x03"


def test_empty_stream() -> None:
    assert decompress_stream(b"", ZLIB, 100, "test") == b""


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_chunk_expanding_past_block_size_is_an_error(codec: int) -> None:
    bomb = frame(codec, [b"\0" * 100_000])
    with pytest.raises(OrcError, match="block size"):
        decompress_stream(bomb, codec, 65_536, "bomb stream")


def test_zstd_frame_without_content_size_is_bounded() -> None:
    packed = zstandard.ZstdCompressor(write_content_size=False).compress(b"\0" * 100_000)
    with pytest.raises(OrcError, match="block size"):
        decompress_chunk(ZSTD, memoryview(packed), 1000)


def test_zstd_reads_every_frame_of_a_chunk() -> None:
    one = zstandard.ZstdCompressor().compress(b"a" * 10)
    assert decompress_chunk(ZSTD, memoryview(one + one), 100) == b"a" * 20


def test_original_chunk_longer_than_block_size() -> None:
    with pytest.raises(OrcError, match="more than the compression block size"):
        decompress_stream(header(20, True) + b"y" * 20, ZLIB, 10, "stream")


def test_truncated_header_and_chunk() -> None:
    with pytest.raises(OrcError, match="cut off"):
        decompress_stream(b"\x0b\x00", ZLIB, 100, "stream X")
    with pytest.raises(OrcError, match="declares 5 bytes but only 2 remain"):
        decompress_stream(b"\x0b\x00\x00ab", ZLIB, 100, "stream X")


def test_error_names_the_stream_and_chunk() -> None:
    good = frame(ZLIB, [b"abc"])
    with pytest.raises(OrcError, match=rf"stream DATA of column 3: chunk at byte {len(good)}"):
        decompress_stream(good + header(4, False) + b"\xff\xff\xff\xff", ZLIB, 100, "stream DATA of column 3")


def test_unknown_codec() -> None:
    with pytest.raises(OrcError, match="unknown compression kind 9"):
        decompress_chunk(9, memoryview(b"abc"), 10)


def test_zlib_chunk_cut_short() -> None:
    packed = raw_deflate(b"some text that compresses " * 10)
    with pytest.raises(OrcError, match="ZLIB"):
        decompress_chunk(ZLIB, memoryview(packed[: len(packed) // 2]), 1000)


@settings(deadline=None, max_examples=300)
@given(codec=st.sampled_from([ZLIB, SNAPPY, LZ4, ZSTD, LZO]), data=st.binary(max_size=300))
def test_random_bytes_raise_orc_error_or_decode(codec: int, data: bytes) -> None:
    try:
        out = decompress_stream(data, codec, 4096, "random")
    except OrcError:
        return
    assert isinstance(out, bytes)


@settings(deadline=None, max_examples=200)
@given(
    codec=st.sampled_from(sorted(COMPRESSORS)),
    data=st.binary(min_size=1, max_size=2000),
    cut=st.integers(min_value=0, max_value=2000),
    flip=st.integers(min_value=0, max_value=2000 * 8),
)
def test_damaged_valid_streams(codec: int, data: bytes, cut: int, flip: int) -> None:
    stream = bytearray(frame(codec, [data]))
    stream[(flip // 8) % len(stream)] ^= 1 << (flip % 8)
    try:
        out = decompress_stream(bytes(stream[: max(cut, 3)]), codec, 4096, "damaged")
    except OrcError:
        return
    assert len(out) <= 4096
