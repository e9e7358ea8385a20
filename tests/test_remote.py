"""Remote files through fsspec: the requests a read makes and the bytes they fetch, against fsspec's memory
filesystem and an HTTP server on 127.0.0.1."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import fsspec
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as po
import pytest
from fsspec.implementations.memory import MemoryFileSystem

import orcjit
from orcjit import ORCFile
from orcjit.tail import TAIL_READ_SIZE

ROWS = 60_000
# a, sorted, lets a filter prune whole stripes; d is the small column a projected read picks
FILTER = [("a", "<", 1000)]
PROJECTED = "d"
PROJECTED_ID = 4  # column ids: 0 is the root struct, then a, b, c, d


@pytest.fixture(scope="module")
def orc_file(tmp_path_factory) -> Path:
    rng = np.random.default_rng(9)
    table = pa.table(
        {
            "a": np.arange(ROWS, dtype=np.int64),
            "b": rng.random(ROWS),
            "c": pa.array([f"value {i % 997}" for i in range(ROWS)]),
            "d": rng.integers(0, 4, ROWS, dtype=np.int8),
        }
    )
    buf = io.BytesIO()
    po.write_table(table, buf, stripe_size=64 * 1024, compression="zstd")
    path = tmp_path_factory.mktemp("remote") / "remote.orc"
    path.write_bytes(buf.getvalue())
    with ORCFile(path) as f:
        assert len(f.stripes) >= 4  # the pruning and per-stripe checks below need several stripes
    return path


def _layout(path: Path) -> tuple[list[tuple[int, int]], int, int]:
    """Each stripe's data region, the projected column's stream bytes and the stripe footers' bytes."""
    with ORCFile(path) as f:
        data = [(s.offset + s.index_length, s.data_length) for s in f.stripes]
        footers = sum(s.footer_length for s in f.stripes)
        projected = 0
        for i in range(len(f.stripes)):
            projected += sum(s.length for s in f.stripe_footer(i).streams if s.column == PROJECTED_ID)
    return data, projected, footers


def _local(path: Path, **kwargs) -> pd.DataFrame:
    return orcjit.read_orc(path, **kwargs)


# --- fsspec's memory filesystem ---------------------------------------------------------------------------------


@pytest.fixture
def memory_log(orc_file, monkeypatch) -> Iterator[list[tuple[int, int]]]:
    log: list[tuple[int, int]] = []
    original = MemoryFileSystem.cat_file

    def cat_file(self, path, start=None, end=None, **kwargs):  # type: ignore[no-untyped-def]
        log.append((start, end))
        return original(self, path, start=start, end=end, **kwargs)

    monkeypatch.setattr(MemoryFileSystem, "cat_file", cat_file)
    fs = fsspec.filesystem("memory")
    fs.pipe("/orcjit-remote/remote.orc", orc_file.read_bytes())
    yield log
    fs.rm("/orcjit-remote/remote.orc")


def _memory_read(how: str, **kwargs) -> pd.DataFrame:
    if how == "url":
        return orcjit.read_orc("memory://orcjit-remote/remote.orc", **kwargs)
    return orcjit.read_orc("/orcjit-remote/remote.orc", filesystem=fsspec.filesystem("memory"), **kwargs)


def _fetched(log: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in log)


@pytest.mark.parametrize("how", ["url", "filesystem"])
def test_memory_full_projected_filtered(orc_file, memory_log, how) -> None:
    size = orc_file.stat().st_size
    data, projected_bytes, footer_bytes = _layout(orc_file)

    full = _memory_read(how)
    pd.testing.assert_frame_equal(full, _local(orc_file))
    assert memory_log[0] == (size - min(size, TAIL_READ_SIZE), size)  # the tail first, in one request
    # every stripe's data streams lie next to each other and come in one request, never the whole file
    for offset, length in data:
        assert (offset, offset + length) in memory_log
    assert all(end - start < size for start, end in memory_log[1:])
    # no byte is fetched twice: the tail, the stripe footers and the stripes' data
    assert _fetched(memory_log) <= min(size, TAIL_READ_SIZE) + footer_bytes + sum(n for _, n in data)
    full_bytes = _fetched(memory_log)

    memory_log.clear()
    projected = _memory_read(how, columns=[PROJECTED])
    pd.testing.assert_frame_equal(projected, _local(orc_file, columns=[PROJECTED]))
    assert memory_log[0] == (size - min(size, TAIL_READ_SIZE), size)
    assert _fetched(memory_log) < full_bytes
    assert _fetched(memory_log) <= projected_bytes + min(size, TAIL_READ_SIZE) + footer_bytes

    memory_log.clear()
    filtered = _memory_read(how, filters=FILTER)
    pd.testing.assert_frame_equal(filtered, _local(orc_file, filters=FILTER))
    assert len(filtered) == 1000
    assert memory_log[0] == (size - min(size, TAIL_READ_SIZE), size)
    assert _fetched(memory_log) < full_bytes / 2  # all but the first stripe are pruned by their statistics


def test_memory_source_counts_what_it_fetched(orc_file, memory_log) -> None:
    with ORCFile("memory://orcjit-remote/remote.orc") as f:
        assert f.source.name == "memory:///orcjit-remote/remote.orc"
        f.read(columns=[PROJECTED])
        assert f.source.reads == len(memory_log)
        assert f.source.bytes_read == _fetched(memory_log)


# --- HTTP on 127.0.0.1 ------------------------------------------------------------------------------------------


class _Server:
    """Serves one file's bytes with HEAD and ranged GET, logging each GET's range and the body bytes sent."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.requests: list[tuple[str, int, int]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # type: ignore[no-untyped-def]
                pass  # keep test output quiet

            def do_HEAD(self) -> None:
                with server.lock:
                    server.requests.append(("HEAD", 0, 0))
                self.send_response(200)
                self.send_header("Content-Length", str(len(server.payload)))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()

            def do_GET(self) -> None:
                size = len(server.payload)
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
                if match:
                    start = int(match.group(1))
                    end = min(int(match.group(2)) + 1 if match.group(2) else size, size)
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
                else:
                    start, end = 0, size
                    self.send_response(200)
                body = server.payload[start:end]
                with server.lock:
                    server.requests.append(("GET", start, end))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/remote.orc"

    def gets(self) -> list[tuple[int, int]]:
        with self.lock:
            return [(start, end) for kind, start, end in self.requests if kind == "GET"]

    def bytes_sent(self) -> int:
        return sum(end - start for start, end in self.gets())

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()


@pytest.fixture
def http_server(orc_file) -> Iterator[_Server]:
    import aiohttp  # noqa: F401 - fsspec's HTTP filesystem needs it; a test dependency, so its absence is a failure

    server = _Server(orc_file.read_bytes())
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def test_http_full_projected_filtered(orc_file, http_server) -> None:
    size = orc_file.stat().st_size
    data, projected_bytes, footer_bytes = _layout(orc_file)
    tail = (size - min(size, TAIL_READ_SIZE), size)

    full = orcjit.read_orc(http_server.url)
    pd.testing.assert_frame_equal(full, _local(orc_file))
    gets = http_server.gets()
    assert gets[0] == tail
    for offset, length in data:
        assert (offset, offset + length) in gets
    full_bytes = http_server.bytes_sent()
    assert full_bytes <= min(size, TAIL_READ_SIZE) + footer_bytes + sum(n for _, n in data)

    http_server.clear()
    projected = orcjit.read_orc(http_server.url, columns=[PROJECTED])
    pd.testing.assert_frame_equal(projected, _local(orc_file, columns=[PROJECTED]))
    assert http_server.gets()[0] == tail
    assert http_server.bytes_sent() < size
    assert http_server.bytes_sent() <= projected_bytes + min(size, TAIL_READ_SIZE) + footer_bytes

    http_server.clear()
    filtered = orcjit.read_orc(http_server.url, filters=FILTER)
    pd.testing.assert_frame_equal(filtered, _local(orc_file, filters=FILTER))
    assert http_server.gets()[0] == tail
    assert http_server.bytes_sent() < full_bytes / 2

    http_server.clear()
    with ORCFile(http_server.url) as f:
        assert f.source.name == http_server.url
        assert f.nrows == ROWS
        assert f.source.reads == len(http_server.gets())
        assert f.source.bytes_read == http_server.bytes_sent()


def test_http_server_without_ranges(orc_file, http_server) -> None:
    # a server that ignores Range and sends the whole file every time: slower, still correct
    original = http_server.httpd.RequestHandlerClass.do_GET

    def whole_file(handler) -> None:  # type: ignore[no-untyped-def]
        del handler.headers["Range"]
        original(handler)

    http_server.httpd.RequestHandlerClass.do_GET = whole_file  # type: ignore[method-assign]
    projected = orcjit.read_orc(http_server.url, columns=[PROJECTED])
    pd.testing.assert_frame_equal(projected, _local(orc_file, columns=[PROJECTED]))
    assert all(get == (0, orc_file.stat().st_size) for get in http_server.gets())
