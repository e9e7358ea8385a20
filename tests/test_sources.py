"""Every kind of source gives the same metadata, through byte-range reads that are counted."""

from __future__ import annotations

import io

import fsspec
import numpy as np
import pyarrow.fs
import pytest

import orcjit.sources
from orcjit import OrcError, ORCFile
from orcjit.sources import BufferSource, LocalFileSource, open_source
from tests.conftest import EXAMPLES

PATH = EXAMPLES / "TestOrcFile.testSeek.orc"


def summary(f: ORCFile) -> tuple:
    return (f.nrows, f.nstripes, str(f.schema), f.compression, [s.offset for s in f.stripes], f.source.reads)


@pytest.fixture(scope="module")
def expected() -> tuple:
    with ORCFile(PATH) as f:
        return summary(f)


def test_path_str_pathlike_and_file_url(expected) -> None:
    for source in (PATH, str(PATH), f"file://{PATH}"):
        with ORCFile(source) as f:
            assert summary(f) == expected
            assert isinstance(f.source, LocalFileSource)


def test_bytes_and_memoryview(expected) -> None:
    data = PATH.read_bytes()
    for source in (data, bytearray(data), memoryview(data)):
        with ORCFile(source) as f:
            assert summary(f) == expected
            assert isinstance(f.source, BufferSource)


def test_file_objects_stay_open(expected) -> None:
    with open(PATH, "rb") as fh, ORCFile(fh) as f:
        assert summary(f) == expected
    buf = io.BytesIO(PATH.read_bytes())
    with ORCFile(buf) as f:
        assert summary(f) == expected
    assert not buf.closed  # the caller opened it, the caller closes it


def test_fsspec_memory_url_and_filesystem(expected) -> None:
    fs = fsspec.filesystem("memory")
    fs.pipe("/orcjit-test/seek.orc", PATH.read_bytes())
    with ORCFile("memory://orcjit-test/seek.orc") as f:
        assert summary(f) == expected
    with ORCFile("/orcjit-test/seek.orc", filesystem=fs) as f:
        assert summary(f) == expected
        f.stripe_footer(0)
        assert f.source.reads == expected[-1] + 1


def test_pyarrow_filesystem(expected) -> None:
    with ORCFile(str(PATH), filesystem=pyarrow.fs.LocalFileSystem()) as f:
        assert summary(f) == expected


def test_close_releases_the_descriptor() -> None:
    f = ORCFile(PATH)
    source = f.source
    f.close()
    assert source._fd == -1  # type: ignore[attr-defined]
    f.close()  # closing twice is harmless


def test_reads_are_counted_and_checked() -> None:
    source, owned = open_source(b"0123456789")
    assert owned
    assert source.read(2, 3) == b"234"
    assert (source.reads, source.bytes_read) == (1, 3)
    with pytest.raises(OrcError, match=r"byte range \[8, 12\) lies outside the file of 10 bytes"):
        source.read(8, 4)
    source.reset_counters()
    assert (source.reads, source.bytes_read) == (0, 0)


def test_large_reads_of_a_local_file_give_the_same_bytes(tmp_path, monkeypatch) -> None:
    """read_buffer gives what read gives, as a read-only NumPy-backed view from LARGE_READ bytes on; a file cut
    short under it, a range outside it and a closed source are OrcErrors, and reads are counted."""
    monkeypatch.setattr(orcjit.sources, "LARGE_READ", 64)
    data = np.random.default_rng(0).integers(0, 256, 100_000, dtype=np.uint8).tobytes()
    path = tmp_path / "blob"
    path.write_bytes(data)
    source = LocalFileSource(path)
    for offset, length in ((0, 10), (5, 63), (7, 64), (1, 99_999), (0, 100_000), (100_000, 0)):
        got = source.read_buffer(offset, length)
        assert bytes(got) == source.read(offset, length) == data[offset : offset + length]
        if length >= 64:
            assert isinstance(got, memoryview) and got.readonly and isinstance(got.obj, np.ndarray)
    assert (source.reads, source.bytes_read) == (12, 2 * (10 + 63 + 64 + 99_999 + 100_000))
    with pytest.raises(OrcError, match=r"byte range \[99990, 100090\) lies outside"):
        source.read_buffer(99_990, 100)
    path.write_bytes(data[:50_000])  # the file shrinks under the open source
    with pytest.raises(OrcError, match="read of 1000 bytes at offset 49500 returned 500 bytes"):
        source.read_buffer(49_500, 1000)
    source.close()
    with pytest.raises(OrcError, match="the file is closed"):
        source.read_buffer(0, 1000)


def test_large_reads_of_other_sources_are_their_reads() -> None:
    source, _ = open_source(b"0123456789" * 1_000_000)
    assert source.read_buffer(3, 5_000_000) == source.read(3, 5_000_000)


@pytest.mark.parametrize("bad", [42, 3.5, None, ["a.orc"]])
def test_wrong_source_types(bad) -> None:
    with pytest.raises(OrcError, match="source must be"):
        ORCFile(bad)


def test_filesystem_must_be_a_filesystem() -> None:
    with pytest.raises(OrcError, match="filesystem must be"):
        ORCFile(str(PATH), filesystem=object())
    with pytest.raises(OrcError, match="cannot be combined"):
        ORCFile(PATH.read_bytes(), filesystem=fsspec.filesystem("memory"))
