"""Byte sources: where the bytes of an ORC file come from.

Every read orcjit makes is a byte range ``(offset, length)`` against one of these sources, never a whole-file
read. Each source counts its reads and the bytes they returned, so that pushdown and remote reads can be judged by
what they actually fetched.

Sources are shared by the threads of a parallel read, and by any threads a user shares an ``ORCFile`` with, so
reads may run at the same time as each other and as :meth:`ByteSource.close`. A read that starts after ``close``
raises OrcError; what the source opened (a descriptor, an Arrow file) is released only once the reads in flight
have returned, so that no read ever uses a descriptor number the system has meanwhile given to another file.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import threading
import weakref
from typing import Any

import numpy as np

from .errors import OrcError

__all__ = ["ByteSource", "open_source"]

# reads of a local file from this many bytes on land in a NumPy array (see ByteSource.read_buffer)
LARGE_READ = 1 << 22


class ByteSource:
    """Positional reads of byte ranges from one file, with counters.

    Attributes
    ----------
    name : str
        What the file is called in error messages (a path, a URL or a description).
    size : int
        The file's length in bytes.
    reads : int
        How many reads were made so far.
    bytes_read : int
        How many bytes those reads returned.
    cheap_reads : bool
        Whether a read costs no round trip (a local file, bytes in memory): a read may then fetch a stripe in
        pieces that threads decode side by side, rather than in as few requests as it can.
    """

    cheap_reads = False

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.reads = 0
        self.bytes_read = 0
        # guards the counters, the closed flag and the count of reads in flight
        self._state_lock = threading.Lock()
        self._closed = False
        self._in_flight = 0
        self._released = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called; reads then raise OrcError."""
        return self._closed

    def read(self, offset: int, length: int) -> bytes:
        """Return exactly ``length`` bytes starting at ``offset``.

        Safe to call from several threads at once, and while another thread closes the source.

        Raises
        ------
        OrcError
            If the range does not lie inside the file, the file returned fewer bytes, or the source is closed.
        """
        return self._guarded(offset, length, self._read)  # type: ignore[return-value]

    def read_buffer(self, offset: int, length: int) -> bytes | memoryview:
        """:meth:`read` for the data streams: the same bytes, possibly as a read-only view of a NumPy array.

        A large read of a local file lands in a NumPy array, for which NumPy asks Linux for huge pages (2 MiB),
        where a ``bytes`` object of the same size is paged in 4 KiB at a time: reading an 80 MB stream took about
        18,000 page faults and a third of a column's read time.
        """
        return self._guarded(offset, length, self._read_buffer)

    def _guarded(self, offset: int, length: int, reader: Any) -> bytes | memoryview:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise OrcError(
                f"{self.name}: byte range [{offset}, {offset + length}) lies outside the file of {self.size} bytes"
            )
        with self._state_lock:
            if self._closed:
                raise OrcError(f"{self.name}: the file is closed (read of bytes [{offset}, {offset + length}))")
            self._in_flight += 1
        try:
            data = reader(offset, length) if length else b""
        finally:
            with self._state_lock:
                self._in_flight -= 1
                release = self._release_due()
            if release:
                self._release()
        if len(data) != length:
            raise OrcError(f"{self.name}: read of {length} bytes at offset {offset} returned {len(data)} bytes")
        with self._state_lock:
            self.reads += 1
            self.bytes_read += length
        return data

    def reset_counters(self) -> None:
        """Set ``reads`` and ``bytes_read`` back to zero."""
        with self._state_lock:
            self.reads = 0
            self.bytes_read = 0

    def close(self) -> None:
        """Refuse further reads and release what the source opened (at once, or when the last read in flight
        returns). Closing twice is harmless."""
        with self._state_lock:
            self._closed = True
            release = self._release_due()
        if release:
            self._release()

    def _release_due(self) -> bool:
        # called with _state_lock held: true exactly once, for whoever ends the last use of a closed source
        if self._closed and not self._in_flight and not self._released:
            self._released = True
            return True
        return False

    def _read(self, offset: int, length: int) -> bytes:
        raise NotImplementedError

    def _read_buffer(self, offset: int, length: int) -> bytes | memoryview:
        return self._read(offset, length)

    def _release(self) -> None:
        """Free what the source opened; runs once, after close, when no read is in flight."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} size={self.size}>"


class LocalFileSource(ByteSource):
    """A local file read with ``os.pread``, which needs no shared file position and so no lock."""

    cheap_reads = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        name = os.fspath(path)
        self._fd = os.open(name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            info = os.fstat(self._fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "Is a directory", name)
        except BaseException:
            os.close(self._fd)
            raise
        super().__init__(name, info.st_size)

    def _read(self, offset: int, length: int) -> bytes:
        chunks = []
        got = 0
        while got < length:
            chunk = os.pread(self._fd, length - got, offset + got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _read_buffer(self, offset: int, length: int) -> bytes | memoryview:
        if length < LARGE_READ or not hasattr(os, "preadv"):
            return self._read(offset, length)
        view = np.empty(length, dtype=np.uint8).data
        got = 0
        while got < length:
            n = os.preadv(self._fd, [view[got:]], offset + got)
            if n <= 0:
                break
            got += n
        return view[:got].toreadonly()

    def _release(self) -> None:
        fd, self._fd = self._fd, -1
        os.close(fd)


class BufferSource(ByteSource):
    """Bytes already in memory (``bytes``, ``bytearray``, ``memoryview``)."""

    cheap_reads = True

    def __init__(self, data: bytes | bytearray | memoryview, name: str = "<bytes>") -> None:
        self._view = memoryview(data).cast("B")
        super().__init__(name, len(self._view))

    def _read(self, offset: int, length: int) -> bytes:
        return bytes(self._view[offset : offset + length])


# One lock per file object, shared by every source over it: a read is a seek and a read of the object's one
# position, and two ORCFiles over the same object (or one opened while another reads) must not interleave them.
_file_locks: weakref.WeakKeyDictionary[Any, threading.Lock] = weakref.WeakKeyDictionary()
_file_locks_guard = threading.Lock()


def _lock_for(fileobj: Any) -> threading.Lock:
    with _file_locks_guard:
        try:
            lock = _file_locks.get(fileobj)
            if lock is None:
                lock = _file_locks[fileobj] = threading.Lock()
        except TypeError:  # not hashable or not weakly referenceable: only this source's reads are serialized
            lock = threading.Lock()
    return lock


class FileObjectSource(ByteSource):
    """A binary file object with ``seek`` and ``read``; reads take a lock, shared by every source over the same
    object, because they move its position. Its reads are cheap when it is a local file or bytes in memory (the
    io module's own objects), not known to be otherwise."""

    def __init__(self, fileobj: Any, name: str | None = None) -> None:
        self._file = fileobj
        self.cheap_reads = isinstance(fileobj, (io.BytesIO, io.FileIO, io.BufferedReader, io.BufferedRandom))
        self._file_lock = _lock_for(fileobj)
        with self._file_lock:
            size = fileobj.seek(0, io.SEEK_END)
            if size is None:  # some file objects return None from seek
                size = fileobj.tell()
        super().__init__(name or getattr(fileobj, "name", None) or "<file object>", int(size))

    def _read(self, offset: int, length: int) -> bytes:
        chunks = []
        got = 0
        with self._file_lock:
            try:
                self._file.seek(offset)
                while got < length:
                    chunk = self._file.read(length - got)
                    if not chunk:
                        break
                    chunks.append(bytes(chunk))
                    got += len(chunk)
            except ValueError as exc:
                # the caller owns the file object and may close it while a read runs: CPython then says "I/O
                # operation on closed file", or, caught mid-close, something about a NULL buffer
                why = "the file object was closed" if getattr(self._file, "closed", False) else str(exc)
                raise OrcError(f"{self.name}: reading bytes [{offset}, {offset + length}) failed: {why}") from None
        return b"".join(chunks)


class FsspecSource(ByteSource):
    """A file on an fsspec filesystem (s3, gcs, http, memory, ...), read with one ranged ``cat_file`` request per
    read.

    No file object is opened: fsspec's buffered files read ahead by a block size, and every byte they fetch past
    the range a read asked for would be paid for on a remote store. The size comes from ``fs.size``, which
    filesystems answer from metadata (a HEAD request over HTTP) without fetching the file.
    """

    def __init__(self, fs: Any, path: str) -> None:
        self._fs = fs
        self._path = path
        protocol = fs.protocol[0] if isinstance(fs.protocol, (tuple, list)) else fs.protocol
        self.cheap_reads = protocol in ("file", "local", "memory")
        if protocol in ("file", "local"):
            name = path
        elif hasattr(fs, "unstrip_protocol"):
            # HTTP paths keep their scheme; prefixing the protocol again would name "http://http://host/f.orc"
            name = fs.unstrip_protocol(path)
        else:
            name = f"{protocol}://{path}"
        size = fs.size(path)
        if size is None:  # an HTTP server that gives no Content-Length
            raise OrcError(f"{name}: the filesystem does not report the file's size, which reading ORC needs")
        super().__init__(name, int(size))

    def _read(self, offset: int, length: int) -> bytes:
        data = bytes(self._fs.cat_file(self._path, start=offset, end=offset + length))
        if len(data) == self.size != length:
            # a server that ignores Range requests sends the whole file: correct, if costly
            data = data[offset : offset + length]
        return data


class ArrowFileSource(ByteSource):
    """A file on a ``pyarrow.fs.FileSystem``, read with ``read_at``."""

    def __init__(self, fs: Any, path: str) -> None:
        self._file = fs.open_input_file(path)
        self.cheap_reads = getattr(fs, "type_name", None) in ("local", "mock")
        super().__init__(path, int(self._file.size()))

    def _read(self, offset: int, length: int) -> bytes:
        data = self._file.read_at(length, offset)  # bytes from pyarrow 26 on, a pyarrow Buffer before
        return data if isinstance(data, bytes) else data.to_pybytes()

    def _release(self) -> None:
        self._file.close()


def _is_fsspec_filesystem(fs: Any) -> bool:
    return hasattr(fs, "cat_file") and hasattr(fs, "size")


def _is_arrow_filesystem(fs: Any) -> bool:
    return hasattr(fs, "open_input_file") and hasattr(fs, "get_file_info")


def open_source(source: Any, filesystem: Any = None) -> tuple[ByteSource, bool]:
    """Turn what a user passed into a :class:`ByteSource`.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like, binary file object or ByteSource
        A local path, a URL that fsspec understands (``s3://``, ``memory://``, ...), bytes in memory or an open
        binary file.
    filesystem : fsspec or pyarrow filesystem, optional
        As in :func:`pandas.read_orc`: ``source`` is then a path on this filesystem.

    Returns
    -------
    (ByteSource, bool)
        The source, and whether it was opened here (and so must be closed here).
    """
    if isinstance(source, ByteSource):
        if filesystem is not None:
            raise OrcError("filesystem= cannot be combined with a ByteSource")
        return source, False
    if isinstance(source, (bytes, bytearray, memoryview)):
        if filesystem is not None:
            raise OrcError("filesystem= cannot be combined with bytes in memory")
        return BufferSource(source), True
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not isinstance(path, str):
            raise OrcError(f"path must be str, got {type(path).__name__}")
        if filesystem is not None:
            if _is_fsspec_filesystem(filesystem):
                return FsspecSource(filesystem, path), True
            if _is_arrow_filesystem(filesystem):
                return ArrowFileSource(filesystem, path), True
            raise OrcError(f"filesystem must be an fsspec or pyarrow filesystem, got {type(filesystem).__name__}")
        if "://" in path and not path.startswith("file://"):
            try:
                import fsspec
            except ImportError as exc:
                raise OrcError(f"reading {path!r} needs fsspec: pip install 'orcjit[fsspec]'") from exc
            fs, fs_path = fsspec.core.url_to_fs(path)
            return FsspecSource(fs, fs_path), True
        if path.startswith("file://"):
            path = path[len("file://") :]
        return LocalFileSource(path), True
    if hasattr(source, "read") and hasattr(source, "seek"):
        if filesystem is not None:
            raise OrcError("filesystem= cannot be combined with a file object")
        return FileObjectSource(source), False
    raise OrcError(
        "source must be a path, a URL, bytes or a binary file object with read() and seek(), "
        f"got {type(source).__name__}"
    )
