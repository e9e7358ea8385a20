"""Reading one stream of a column: :class:`ValueStream` decodes values with the kernels from where the last call
stopped; :class:`StreamCursor` feeds it the decompressed bytes of a stream from some chunk on, fetched and
decompressed only as far as decoding gets.

A whole-stripe read gives a ``ValueStream`` the stream decompressed whole, from byte 0. A row-group read gives it
a cursor started at the row group's position: the decompressed bytes from the position's chunk, decoding
starting ``decompressed_offset`` bytes in, and the values (and bits) the position says belong to earlier rows
skipped by the kernels' skip entry points before the first value is decoded. When a kernel runs out of bytes
(``TRUNCATED``) and the cursor has more, the call is repeated from the same state with more bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..compression import EAGER_RATIO, NONE, decompress_head, decompress_stream
from ..errors import OrcError
from ..kernels.boolean_rle import decode_boolean_rle, skip_boolean_rle
from ..kernels.byte_rle import decode_byte_rle, skip_byte_rle
from ..kernels.decimal import decode_decimal_varints
from ..kernels.rle_v1 import decode_rle_v1, skip_rle_v1
from ..kernels.rle_v2 import decode_rle_v2, skip_rle_v2
from ..kernels.status import ERROR_POS, SCRATCH_SIZE, TRUNCATED, check, new_state
from .limits import (
    BOOLEANS_PER_BYTE,
    DECIMALS_PER_BYTE,
    INTEGERS_PER_BYTE,
    OCTETS_PER_BYTE,
    PENDING,
    allocate,
    max_decompressed,
    most_values,
)

__all__ = ["BLOCK_VALUES", "StreamCursor", "ValueStream"]

HEADER_SIZE = 3
EMPTY = np.frombuffer(b"", dtype=np.uint8)
# first and least further read of an uncompressed stream past what was fetched
MIN_WINDOW = 16 * 1024
# what one take decompresses of the chunks fetched: all of them while that stays within EAGER_RATIO times their
# stored size (which real data only passes when it repeats itself over and over) or this much; past that, chunks
# expanding far more than real data does (a few hundred bytes to a block of 8 MiB each) are decompressed one at a
# time, as decoding reaches them
TAKE_FLOOR = 1 << 20
# values decoded at a time through a small int64 buffer on their way into a result of another type (512 KiB of
# int64: stays in a core's cache, where a buffer of the whole column would go out to memory and back)
BLOCK_VALUES = 1 << 16


def _readonly(data: bytes | memoryview | np.ndarray) -> np.ndarray:
    # kernels are compiled per array type: read-only uint8, as np.frombuffer gives, keeps one variant
    if isinstance(data, np.ndarray):
        data.flags.writeable = False
        return data
    return np.frombuffer(data, dtype=np.uint8)


class StreamCursor:
    """The decompressed bytes of one stream from a chunk on, a window at a time.

    Parameters
    ----------
    fetch : callable
        ``fetch(offset, length)``: the stream's bytes ``[offset, offset + length)`` as stored in the file.
    length : int
        The stream's length in the file.
    start : int
        Where to begin: a chunk header's offset (compressed) or any byte offset (uncompressed).
    raw : bytes
        The stream's bytes from ``start`` on that were fetched already (possibly ending inside a chunk).
    codec, block_size : int
        The file's compression and compression block size.
    what : str
        The stream, for error messages.
    window : int, optional
        How much the first further fetch takes. By default each fetch takes as much as was fetched so far, so a
        stream read from its start costs few requests; a seek whose ``raw`` already reaches about where its rows
        end gives the size of a chunk (or a run): usually only the end of a run crossing that point is missing.
        Later fetches double as usual.
    """

    def __init__(
        self,
        fetch: Callable[[int, int], bytes],
        length: int,
        start: int,
        raw: bytes | memoryview,
        codec: int,
        block_size: int,
        what: str,
        window: int | None = None,
    ) -> None:
        if not 0 <= start <= length:
            raise OrcError(f"{what}: row index position {start} lies outside the stream of {length} bytes")
        self._fetch = fetch
        self._length = length
        self._codec = codec
        self._block_size = block_size
        self._what = what
        self._pending = bytes(raw)  # fetched, not yet handed out: whole chunks first, then part of one
        self._pending_at = start  # stream offset of _pending[0]
        self._fetched = len(raw)  # bytes fetched so far (sets the size of the next fetch)
        self._window = window  # for the first further fetch only
        self._short_step = window is not None  # the first extension of the decoded bytes, likewise

    def most_left(self) -> int:
        """The most decompressed bytes the stream can still give (exact for an uncompressed stream)."""
        return max_decompressed(self._length - self._pending_at, self._codec, self._block_size)

    @property
    def exhausted(self) -> bool:
        """Whether every byte of the stream has been handed out."""
        return not self._pending and self._pending_at >= self._length

    def take(self, want: int = 0) -> bytes | memoryview | None:
        """The next decompressed bytes (at least one whole chunk), or ``None`` at the stream's end.

        The chunks fetched are decompressed together up to ``want`` bytes, or more while they expand as real data
        does (see :data:`TAKE_FLOOR`).

        Raises
        ------
        OrcError
            If a chunk is cut off by the end of the stream or fails to decompress.
        """
        while True:
            end = self._pending_at + len(self._pending)
            if self._codec == NONE:
                if self._pending:
                    stored, self._pending = self._pending, b""
                    self._pending_at = end
                    return stored
                if end >= self._length:
                    return None
                self._more(end, MIN_WINDOW)
                continue
            complete = self._complete_chunks()
            if complete:
                part = memoryview(self._pending)[:complete]
                what = f"{self._what}, chunks from byte {self._pending_at}"
                budget = max(want, TAKE_FLOOR, EAGER_RATIO * complete)
                out, used = decompress_head(part, self._codec, self._block_size, what, budget)
                if used == 0:  # the first chunk alone goes past the budget: decoding has reached it
                    used = HEADER_SIZE + ((part[0] | (part[1] << 8) | (part[2] << 16)) >> 1)
                    out = decompress_stream(part[:used], self._codec, self._block_size, what)
                self._pending = self._pending[used:]
                self._pending_at += used
                return out
            if end >= self._length:
                if self._pending:  # a chunk the stream's end cuts off: let the framing say so
                    what = f"{self._what}, chunks from byte {self._pending_at}"
                    decompress_stream(self._pending, self._codec, self._block_size, what)
                return None
            need = HEADER_SIZE + self._block_size
            if len(self._pending) >= HEADER_SIZE:
                header = self._pending[0] | (self._pending[1] << 8) | (self._pending[2] << 16)
                need = HEADER_SIZE + (header >> 1)
            self._more(end, need - len(self._pending))

    def step(self, held: int) -> int:
        """The decoded bytes a stream holding ``held`` past its position should add at least when it runs out:
        as many again (so a kernel restarted over them does at most twice the work), or just one more the first
        time after a seek's planned fetch, which runs short only by the end of a run."""
        if self._short_step:
            self._short_step = False
            return 1
        return held

    def _complete_chunks(self) -> int:
        """Bytes of ``_pending`` that hold whole chunks."""
        data = self._pending
        pos = 0
        while pos + HEADER_SIZE <= len(data):
            size = HEADER_SIZE + ((data[pos] | (data[pos + 1] << 8) | (data[pos + 2] << 16)) >> 1)
            if pos + size > len(data):
                break
            pos += size
        return pos

    def _more(self, end: int, least: int) -> None:
        # fetch at least `least` more bytes, and as many as were fetched so far (doubling) or the window, within
        # the stream
        step = self._fetched if self._window is None else self._window
        self._window = None
        size = min(max(least, step, MIN_WINDOW), self._length - end)
        self._pending += self._fetch(end, size)
        self._fetched += size


class ValueStream:
    """One stream of a column being decoded: its bytes, where decoding stands, and the kernels' state.

    Parameters
    ----------
    buf : uint8 array
        Decompressed bytes; decoding starts at ``pos``.
    what : str or callable
        The stream, for error messages; or a function giving those words, called only when they are needed.
    pos : int
        Where the first value starts in ``buf``.
    skip_values, skip_bits : int
        Values (bytes, for boolean streams) and bits at ``pos`` that belong to earlier rows: passed over before
        the first value is read, with the skip kernel of whatever the stream turns out to hold.
    cursor : StreamCursor, optional
        Where more bytes come from when ``buf`` runs out.
    """

    def __init__(
        self,
        buf: np.ndarray,
        what: str | Callable[[], str],
        pos: int = 0,
        skip_values: int = 0,
        skip_bits: int = 0,
        cursor: StreamCursor | None = None,
    ) -> None:
        self.buf = buf
        self._what = what
        self.pos = pos
        self.state = new_state()
        self.scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)
        self._skip = (skip_values, skip_bits) if skip_values or skip_bits else None
        self._cursor = cursor
        while self.pos > len(self.buf):
            if not self._extend():
                raise OrcError(f"{self.what}: row index position {pos} lies past the stream's {len(self.buf)} bytes")

    @property
    def what(self) -> str:
        """The stream, in the words of error messages."""
        what = self._what
        if not isinstance(what, str):
            what = self._what = what()
        return what

    @classmethod
    def from_cursor(
        cls, cursor: StreamCursor, what: str, offset: int = 0, skip_values: int = 0, skip_bits: int = 0
    ) -> ValueStream:
        """A stream whose bytes come from ``cursor``; decoding starts ``offset`` bytes into them."""
        first = cursor.take()
        return cls(_readonly(first or b""), what, offset, skip_values, skip_bits, cursor)

    # -- running kernels ----------------------------------------------------------------------------------------

    def _extend(self, want: int = 0) -> bool:
        """Add at least ``want`` of the cursor's next bytes to ``buf``, and at least as many as ``buf`` holds past
        ``pos`` (dropping those before it); False when there are none.

        Growing by as much as is held keeps a kernel that runs out of bytes, and starts over from ``pos`` with
        more, to twice the work of decoding the stream once.
        """
        if self._cursor is None:
            return False
        want = max(want, self._cursor.step(len(self.buf) - self.pos), 1)
        parts: list[np.ndarray] = []
        got = 0
        while got < want:
            more = self._cursor.take(want - got)
            if more is None:
                self._cursor = None
                break
            parts.append(np.frombuffer(more, dtype=np.uint8))
            got += len(parts[-1])
        if not parts:
            return False
        if self.pos >= len(self.buf):
            self.pos -= len(self.buf)
        else:
            parts.insert(0, self.buf[self.pos :])
            self.pos = 0
        self.buf = _readonly(parts[0] if len(parts) == 1 else np.concatenate(parts))
        return True

    def _run(self, kernel: Any, *args: Any, scratch: bool = True) -> None:
        """Call ``kernel(buf, pos, end, *args, state[, scratch])``; with more bytes to come, a call that runs out
        of bytes is repeated from the same state after adding them."""
        if self._cursor is None:  # every byte in hand: one call
            if scratch:
                result = kernel(self.buf, self.pos, len(self.buf), *args, self.state, self.scratch)
            else:
                result = kernel(self.buf, self.pos, len(self.buf), *args, self.state)
            self.pos = result if result >= 0 else check(result, self.state, self.what)
            return
        extra = (self.state, self.scratch) if scratch else (self.state,)
        while True:
            saved = (self.state.copy(), self.scratch.copy()) if self._cursor is not None else None
            result = kernel(self.buf, self.pos, len(self.buf), *args, *extra)
            if result == TRUNCATED and saved is not None:
                error_pos = self.state[ERROR_POS]
                self.state[:] = saved[0]
                self.scratch[:] = saved[1]
                if self._extend():
                    continue
                self.state[ERROR_POS] = error_pos
            self.pos = check(result, self.state, self.what)
            return

    def _pending_skip(self, kernel: Any, *args: Any, booleans: bool = False) -> None:
        if self._skip is None:
            return
        values, bits = self._skip
        self._skip = None
        count = 8 * values + bits if booleans else values
        if not booleans and bits:
            raise OrcError(f"{self.what}: row index position has bits to skip in a stream that is not boolean")
        if count:
            self._run(kernel, count, *args)

    def bytes_left(self) -> int:
        """The most decoded bytes left to decode from: those of ``buf`` past ``pos`` and what the cursor can still
        give."""
        left = len(self.buf) - self.pos
        return left if self._cursor is None else left + self._cursor.most_left()

    def _check_count(self, count: int, per_byte: int, noun: str) -> None:
        """Raise before ``count`` values are allocated when the bytes left cannot possibly hold them (the file
        declares more rows, list elements or dictionary entries than its streams back)."""
        if count <= PENDING:
            return
        left = self.bytes_left()
        most = most_values(left, per_byte)
        if count > most:
            raise OrcError(f"{self.what}: {count} {noun} needed, but its {left} bytes hold at most {most}")

    def _no_skip(self) -> None:
        if self._skip is not None:
            raise OrcError(f"{self.what}: row index position has values to skip in a stream of raw bytes")

    # -- values -------------------------------------------------------------------------------------------------

    def integers(self, count: int, signed: bool, v2: bool, out: np.ndarray | None = None) -> np.ndarray:
        """``count`` values of an integer RLE stream (v1 or v2) as int64, into ``out`` when given."""
        decode, skip = (decode_rle_v2, skip_rle_v2) if v2 else (decode_rle_v1, skip_rle_v1)
        self._pending_skip(skip, bool(signed))
        self._check_count(count, INTEGERS_PER_BYTE, "integers")
        out = allocate(count, np.int64, self._what) if out is None else out
        self._run(decode, out, 0, count, bool(signed))
        return out

    def narrow_integers(
        self, count: int, signed: bool, v2: bool, dtype: Any, out: np.ndarray | None = None
    ) -> np.ndarray | None:
        """``count`` values of an integer RLE stream as ``dtype``, an integer type narrower than int64 (into
        ``out`` when given), decoded a block at a time through a small int64 buffer: no int64 array of them all,
        no passes over one. ``None`` when a value is outside ``dtype``'s range."""
        self.check_integers(count)
        out = allocate(count, dtype, self._what) if out is None else out
        info = np.iinfo(dtype)
        block = np.empty(min(count, BLOCK_VALUES), dtype=np.int64)
        for start in range(0, count, BLOCK_VALUES):
            n = min(BLOCK_VALUES, count - start)
            part = self.integers(n, signed, v2, out=block)[:n]
            if part.min() < info.min or part.max() > info.max:
                return None
            out[start : start + len(part)] = part
        return out

    def check_integers(self, count: int) -> None:
        """Raise OrcError when the bytes left cannot possibly hold ``count`` integers (before a caller allocates
        for a count the file declares)."""
        self._check_count(count, INTEGERS_PER_BYTE, "integers")

    def skip_integers(self, count: int, signed: bool, v2: bool) -> None:
        """Pass over ``count`` values of an integer RLE stream."""
        skip = skip_rle_v2 if v2 else skip_rle_v1
        self._pending_skip(skip, bool(signed))
        if count:
            self._run(skip, count, bool(signed))

    def octets(self, count: int) -> np.ndarray:
        """``count`` values of a byte RLE stream as uint8."""
        self._pending_skip(skip_byte_rle)
        self._check_count(count, OCTETS_PER_BYTE, "bytes")
        out = allocate(count, np.uint8, self._what)
        self._run(decode_byte_rle, out, 0, count)
        return out

    def skip_octets(self, count: int) -> None:
        """Pass over ``count`` values of a byte RLE stream."""
        self._pending_skip(skip_byte_rle)
        if count:
            self._run(skip_byte_rle, count)

    def booleans(self, count: int, out: np.ndarray | None = None) -> np.ndarray:
        """``count`` values of a boolean RLE stream, into ``out`` when given."""
        self._pending_skip(skip_boolean_rle, booleans=True)
        self._check_count(count, BOOLEANS_PER_BYTE, "booleans")
        out = allocate(count, np.bool_, self._what) if out is None else out
        self._run(decode_boolean_rle, out, 0, count)
        return out

    def skip_booleans(self, count: int) -> None:
        """Pass over ``count`` values of a boolean RLE stream."""
        self._pending_skip(skip_boolean_rle, booleans=True)
        if count:
            self._run(skip_boolean_rle, count)

    def decimals(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` decimal varints: the high (int64) and low (uint64) words of each value."""
        self._no_skip()
        self._check_count(count, DECIMALS_PER_BYTE, "decimals")
        hi = allocate(count, np.int64, self._what)
        lo = allocate(count, np.uint64, self._what)
        self._run(decode_decimal_varints, hi, lo, 0, count, scratch=False)
        return hi, lo

    def skip_decimals(self, count: int) -> None:
        """Pass over ``count`` decimal varints."""
        self.decimals(count)

    def raw(self, nbytes: int) -> np.ndarray:
        """The next ``nbytes`` bytes (fewer only when the stream ends first)."""
        self._no_skip()
        while len(self.buf) - self.pos < nbytes and self._extend(nbytes - (len(self.buf) - self.pos)):
            pass
        out = self.buf[self.pos : self.pos + nbytes]
        self.pos += len(out)
        return out

    def skip_raw(self, nbytes: int) -> int:
        """Pass over ``nbytes`` bytes; return how many there were."""
        return len(self.raw(nbytes))

    def whole(self) -> np.ndarray:
        """The rest of the stream."""
        if self._cursor is not None:
            parts = [self.buf[self.pos :]]
            while (more := self._cursor.take()) is not None:
                parts.append(np.frombuffer(more, dtype=np.uint8))
            self._cursor = None
            self.buf, self.pos = _readonly(parts[0] if len(parts) == 1 else np.concatenate(parts)), 0
        return self.buf[self.pos :]
