"""Compression framing and codecs: spec vectors, round trips, bombs and corrupt chunks."""

from __future__ import annotations

import threading
import tracemalloc
import zlib

import brotli
import cramjam
import lz4.block
import numpy as np
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit import OrcError, compression
from orcjit.compression import decompress_stream, iter_chunks
from orcjit.compression.codecs import (
    BROTLI,
    LZ4,
    LZO,
    NONE,
    SNAPPY,
    ZLIB,
    ZSTD,
    decompress_chunk,
    decompress_chunk_into,
    decompress_whole,
)
from tests import lzo_reference


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
    BROTLI: lambda d: brotli.compress(d, quality=5),
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
    with pytest.raises(OrcError, match="unknown compression kind 7"):
        decompress_chunk(7, memoryview(b"abc"), 10)


def test_brotli_chunk_cut_short_or_followed_by_bytes() -> None:
    """A chunk is one whole Brotli stream: cut anywhere, or with bytes after its end, it is corrupt."""
    packed = brotli.compress(bytes(range(256)) * 40, quality=5)
    assert decompress_chunk(BROTLI, memoryview(packed), 1 << 16) == bytes(range(256)) * 40
    for cut in (0, 1, len(packed) // 2, len(packed) - 1):
        with pytest.raises(OrcError, match="BROTLI chunk"):
            decompress_chunk(BROTLI, memoryview(packed[:cut]), 1 << 16)
    for extra in (b"\0", b"junk", packed):  # a second stream after the first is not one stream either
        with pytest.raises(OrcError, match="BROTLI chunk is corrupt: it is not one whole Brotli stream"):
            decompress_chunk(BROTLI, memoryview(packed + extra), 1 << 16)


def test_brotli_bomb_is_refused_in_bounded_memory() -> None:
    """1 GiB of zeros in 1.6 KB of Brotli, as a stream's chunk: refused at the block size, having grown its output
    to a few blocks at most (the decoder's own window is allocated outside Python and bounded by 16 MiB)."""
    bomb = brotli.compress(bytes(1 << 30), quality=5)
    assert len(bomb) < 4096
    tracemalloc.start()
    try:
        with pytest.raises(OrcError, match=r"stream DATA of column 2: chunk at byte 0: BROTLI chunk expands past"):
            decompress_stream(header(len(bomb), False) + bomb, BROTLI, 256 * 1024, "stream DATA of column 2")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 256 * 1024


def test_zlib_chunk_cut_short() -> None:
    packed = raw_deflate(b"some text that compresses " * 10)
    with pytest.raises(OrcError, match="ZLIB"):
        decompress_chunk(ZLIB, memoryview(packed[: len(packed) // 2]), 1000)


@settings(deadline=None, max_examples=300)
@given(codec=st.sampled_from([ZLIB, SNAPPY, LZ4, ZSTD, LZO, BROTLI]), data=st.binary(max_size=300))
def test_random_bytes_raise_orc_error_or_decode(codec: int, data: bytes) -> None:
    try:
        out = decompress_stream(data, codec, 4096, "random")
    except OrcError:
        return
    assert isinstance(out, memoryview)
    assert out.readonly


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


# -- decompressing into one buffer per stream ------------------------------------------------------------------------


def test_none_returns_the_data_itself() -> None:
    data = memoryview(b"abc")
    assert decompress_stream(data, NONE, 0, "test") is data


def test_single_original_chunk_is_a_view_not_a_copy() -> None:
    stream = bytearray(header(5, True) + b"abcde")
    out = decompress_stream(stream, ZSTD, 100, "test")
    assert out == b"abcde"
    assert out.readonly  # read-only even over a writable buffer: one compiled kernel variant
    assert np.shares_memory(np.frombuffer(out, dtype=np.uint8), np.frombuffer(stream, dtype=np.uint8))


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_result_is_read_only_for_numpy(codec: int) -> None:
    out = decompress_stream(frame(codec, [b"abc" * 50, b"xyz" * 50]), codec, 1024, "test")
    arr = np.frombuffer(out, dtype=np.uint8)
    assert not arr.flags.writeable
    assert arr.tobytes() == b"abc" * 50 + b"xyz" * 50


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_chunk_filling_the_block_exactly(codec: int) -> None:
    block = bytes(range(256)) * 16  # 4096 bytes
    stream = frame(codec, [block, block[:100], block])
    assert decompress_stream(stream, codec, 4096, "test") == block + block[:100] + block
    with pytest.raises(OrcError, match="block size"):
        decompress_stream(frame(codec, [block + b"!"]), codec, 4096, "test")


def test_lzo_chunks_into_one_buffer() -> None:
    blocks = [b"lzo " * 300, bytes(range(256)) * 3]
    stream = b"".join(header(len(c), False) + c for c in map(lzo_reference.compress, blocks))
    assert decompress_stream(stream, LZO, 2048, "test") == b"".join(blocks)


@settings(deadline=None, max_examples=100)
@given(
    codec=st.sampled_from(sorted(COMPRESSORS)),
    blocks=st.lists(st.tuples(st.binary(max_size=600), st.booleans(), st.integers(1, 4)), max_size=12),
)
def test_round_trip_random_chunks(codec: int, blocks: list[tuple[bytes, bool, int]]) -> None:
    # random mixes of compressed and original chunks, some repeated so that they compress well
    stream = b""
    expected = b""
    for data, original, repeat in blocks:
        data = (data * repeat)[:1024]
        expected += data
        if original:
            stream += header(len(data), True) + data
        else:
            stream += frame(codec, [data])
    assert decompress_stream(stream, codec, 1024, "test") == expected


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_buffer_grows_for_streams_that_compress_very_well(codec: int, monkeypatch) -> None:
    # allocate small at first, as for a stream whose headers promise far more than its size suggests
    monkeypatch.setattr(compression, "EAGER_BYTES", 0)
    monkeypatch.setattr(compression, "EAGER_RATIO", 1)
    blocks = [bytes([i]) * 4096 for i in range(40)] + [b"tail"]
    stream = frame(codec, blocks) + header(3, True) + b"end"
    assert decompress_stream(stream, codec, 4096, "test") == b"".join(blocks) + b"end"


def test_hostile_headers_do_not_allocate_what_they_promise() -> None:
    # 300,000 empty compressed chunks promise 300,000 blocks of 256 KiB (73 GiB); the first one is corrupt
    stream = header(0, False) * 300_000
    tracemalloc.start()
    try:
        with pytest.raises(OrcError, match="chunk at byte 0"):
            decompress_stream(stream, ZSTD, 256 * 1024, "hostile")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200 * 1024 * 1024


def test_zstd_frame_cut_short_inside_a_chunk() -> None:
    packed = zstandard.ZstdCompressor().compress(bytes(range(256)) * 8)
    cut = packed[: len(packed) - 6]
    with pytest.raises(OrcError, match="ZSTD chunk"):
        decompress_stream(header(len(cut), False) + cut, ZSTD, 4096, "test")


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_decompress_chunk_into_a_slice(codec: int) -> None:
    data = b"into a buffer " * 20
    out = np.full(1000, 7, dtype=np.uint8)
    n = decompress_chunk_into(codec, memoryview(COMPRESSORS[codec](data)), memoryview(out)[10:], 512)
    assert out[10 : 10 + n].tobytes() == data
    assert (out[:10] == 7).all()


@pytest.mark.parametrize("codec", sorted(COMPRESSORS))
def test_streams_decompressed_in_parallel_threads(codec: int) -> None:
    rng = np.random.default_rng(codec)
    streams = []
    for _ in range(8):
        blocks = [rng.integers(0, 20, 4096, dtype=np.uint8).tobytes() for _ in range(6)]
        streams.append((frame(codec, blocks), b"".join(blocks)))
    results: dict[int, bool] = {}

    def work(i: int) -> None:
        for _ in range(5):
            stream, expected = streams[i]
            results[i] = results.get(i, True) and decompress_stream(stream, codec, 4096, "t") == expected

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(streams))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == dict.fromkeys(range(len(streams)), True)


def test_stream_capacity_counts_blocks_and_original_bytes() -> None:
    stream = frame(ZSTD, [b"a" * 10, b"b" * 20]) + header(7, True) + b"1234567"
    assert compression.stream_capacity(stream, 100) == 100 + 100 + 7 + 1
    assert compression.stream_capacity(stream + b"\x01", 100) == 208  # a header cut off ends the count
    assert compression.stream_capacity(b"", 100) == 1


def test_decompress_into_a_reused_buffer() -> None:
    blocks = [b"first " * 30, b"second " * 30]
    stream = frame(ZSTD, blocks)
    buffer = np.empty(compression.stream_capacity(stream, 1024), dtype=np.uint8)
    out = decompress_stream(stream, ZSTD, 1024, "test", buffer=buffer)
    assert out == b"".join(blocks)
    assert np.shares_memory(np.frombuffer(out, dtype=np.uint8), buffer)
    # too small: a buffer of its own
    small = np.empty(10, dtype=np.uint8)
    out = decompress_stream(stream, ZSTD, 1024, "test", buffer=small)
    assert out == b"".join(blocks)
    assert not np.shares_memory(np.frombuffer(out, dtype=np.uint8), small)


def test_small_stream_does_not_keep_a_whole_block() -> None:
    stream = frame(ZSTD, [b"tiny"])
    out = decompress_stream(stream, ZSTD, 256 * 1024, "test")
    assert out == b"tiny"
    assert memoryview(out.obj).nbytes == 4  # not the 256 KiB reserved for the chunk


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 8, 64, 1000])
def test_lz4_blocks_have_no_size_prefix(size: int) -> None:
    """ORC's LZ4 chunks are raw blocks. A block of four literal zero bytes (token 0x40) also reads as a size prefix
    of 64 followed by an empty block; read that way it came out empty."""
    data = bytes(size)
    block = lz4.block.compress(data, store_size=False)
    assert decompress_stream(header(len(block), False) + block, LZ4, 1 << 16, "s") == data
    assert bytes(decompress_stream(header(5, False) + b"\x40\x00\x00\x00\x00", LZ4, 1 << 16, "s")) == bytes(4)


# -- a stream of one zstd chunk, decompressed by one call into bytes of its size -----------------------------------


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    """``fn(*args)`` as bytes, or the OrcError it raised (other exceptions propagate)."""
    try:
        return bytes(fn(*args))
    except OrcError as exc:
        return exc


def _general_zstd(chunk: bytes, limit: int):  # type: ignore[no-untyped-def]
    """The chunk through the stream reader path (``decompress_chunk``), which reads any number of frames."""
    return _outcome(decompress_chunk, ZSTD, memoryview(chunk), limit)


def _lone_stream(chunk: bytes, limit: int):  # type: ignore[no-untyped-def]
    """The chunk as a stream of its own, through ``decompress_stream`` (errors as the general path words them)."""
    got = _outcome(decompress_stream, header(len(chunk), False) + chunk, ZSTD, limit, "lone")
    if isinstance(got, OrcError):
        prefix = "lone: chunk at byte 0: "
        assert str(got).startswith(prefix), got
        return OrcError(str(got).removeprefix(prefix))
    return got


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    """Both the same bytes, or both OrcErrors saying the same."""
    if isinstance(a, OrcError) or isinstance(b, OrcError):
        return type(a) is type(b) and a.args == b.args
    return bool(a == b)


def test_zstd_lone_chunk_of_every_size_matches_the_general_path() -> None:
    rng = np.random.default_rng(21)
    limit = 1500
    compressors = [zstandard.ZstdCompressor(level=level) for level in (1, 3, 19)]
    for size in range(0, limit + 2):
        data = rng.integers(0, 4 if size % 2 else 256, size, dtype=np.uint8).tobytes()
        packed = compressors[size % 3].compress(data)
        expected = data if size <= limit else None
        whole = decompress_whole(ZSTD, memoryview(packed), limit)
        # the one-call path takes every frame declaring 1..limit bytes, and gives what it holds
        assert whole == (data if 0 < size <= limit else None), size
        assert isinstance(whole, (bytes, type(None)))
        general = _general_zstd(packed, limit)
        assert _same(_lone_stream(packed, limit), general), size
        assert general == expected if expected is not None else isinstance(general, OrcError)


def test_zstd_lone_chunk_result_is_exactly_its_size_and_read_only() -> None:
    data = bytes(range(256)) * 3
    out = decompress_stream(frame(ZSTD, [data]), ZSTD, 256 * 1024, "test")
    assert isinstance(out, memoryview) and out.readonly
    assert memoryview(out.obj).nbytes == len(data)
    assert not np.frombuffer(out, dtype=np.uint8).flags.writeable


def test_zstd_lone_chunk_the_one_call_path_declines() -> None:
    """Chunks the one-call path leaves to the stream reader: it reads them as before, or says why it cannot."""
    data = b"declines " * 40
    plain = zstandard.ZstdCompressor().compress(data)
    cases = {
        "no declared size": zstandard.ZstdCompressor(write_content_size=False).compress(data),
        "two frames": plain + plain,
        "bytes after the frame": plain + b"\x00\x01",
        "declares zero bytes": zstandard.ZstdCompressor().compress(b""),
        "declares more than the block": zstandard.ZstdCompressor().compress(b"x" * 5000),
        "with a checksum": zstandard.ZstdCompressor(write_checksum=True).compress(data),
    }
    for name, chunk in cases.items():
        whole = decompress_whole(ZSTD, memoryview(chunk), 4096)
        assert whole is None or name == "with a checksum", name
        assert _same(_lone_stream(chunk, 4096), _general_zstd(chunk, 4096)), name
    assert _lone_stream(cases["two frames"], 4096) == data + data
    assert isinstance(_lone_stream(cases["bytes after the frame"], 4096), OrcError)
    assert isinstance(_lone_stream(cases["declares more than the block"], 4096), OrcError)
    assert decompress_whole(ZSTD, memoryview(cases["with a checksum"]), 4096) == data


def test_zstd_lone_chunk_truncated_or_corrupt_raises_orc_error() -> None:
    rng = np.random.default_rng(7)
    data = rng.integers(0, 16, 3000, dtype=np.uint8).tobytes()
    packed = zstandard.ZstdCompressor(write_checksum=True).compress(data)
    for cut in range(1, len(packed)):
        chunk = packed[:cut]
        assert decompress_whole(ZSTD, memoryview(chunk), 4096) is None, cut
        got = _lone_stream(chunk, 4096)
        assert _same(got, _general_zstd(chunk, 4096)), cut
        # cut inside its 4-byte checksum, the frame's values are all there: the stream reader gives them, as it did
        assert isinstance(got, OrcError) if cut < len(packed) - 4 else got == data, cut
    failed = 0
    for at in range(len(packed)):
        for bit in (0, 3, 7):
            damaged = bytearray(packed)
            damaged[at] ^= 1 << bit
            got = _lone_stream(bytes(damaged), 4096)
            assert _same(got, _general_zstd(bytes(damaged), 4096)), (at, bit)
            # the checksum catches a flip that would decode to other bytes (some flip bits no decoder reads)
            assert isinstance(got, OrcError) or got == data, (at, bit)
            failed += isinstance(got, OrcError)
    assert failed > 2 * len(packed)  # most flips break the frame


def test_lone_chunk_with_and_without_a_budget() -> None:
    """A stream of one chunk, stored as it is or compressed: whole when it fits the budget (or there is none),
    left as stored when it may not fit, an error when a stored chunk is larger than a block."""
    from orcjit.compression import decompress_head

    data = bytes(range(200)) * 5  # 1000 bytes
    stored = header(len(data), True) + data
    packed = frame(ZSTD, [data])
    for block_size in (1000, 4096):
        assert bytes(decompress_stream(stored, ZSTD, block_size, "s")) == data
        assert bytes(decompress_stream(packed, ZSTD, block_size, "s")) == data
        for budget in (0, 1, 999, 1000, 1001, block_size, 10**9):
            out, left = decompress_head(stored, ZSTD, block_size, "s", budget)
            assert (bytes(out), left) == ((data, len(stored)) if budget >= len(data) else (b"", 0)), budget
            out, left = decompress_head(packed, ZSTD, block_size, "s", budget)
            assert (bytes(out), left) == ((data, len(packed)) if budget >= len(data) else (b"", 0)), budget
    with pytest.raises(OrcError, match="more than the compression block size of 999"):
        decompress_stream(stored, ZSTD, 999, "s")
    with pytest.raises(OrcError, match="more than the compression block size of 999"):
        decompress_head(stored, ZSTD, 999, "s", 10**9)
