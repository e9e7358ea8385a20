"""LZO1X decompression as a Numba kernel.

ORC files may be compressed with LZO (CompressionKind 3), and no maintained Python LZO wheel exists, so orcjit
decodes it itself. ORC Java writes each chunk as one raw LZO1X block (aircompressor's ``LzoCompressor``, the same
bitstream as liblzo's ``lzo1x_1_compress``/``lzo1x_999_compress``): no header, no length, no checksum, just
instructions up to an end-of-stream marker.

The format in brief. A block is a sequence of literal runs and back-references ("matches"). Each instruction's
first byte selects its kind, and how a byte below 16 reads depends on what came before, which the decoder tracks
as a small *state*:

* state 0 (start, or after a match followed by no literals): a byte ``t < 16`` is a literal run of ``t + 3``
  bytes; ``t == 0`` means a long run whose length continues in the following bytes (each zero byte adds 255, then
  one non-zero byte adds itself plus 15).
* state 1-3 (after 1-3 literals): ``t < 16`` is M1, a 2-byte match within 1024 bytes.
* state 4 (after a literal run of 4 or more): ``t < 16`` is a 3-byte match at distance 2049-3072.
* ``t >= 64`` is M2 (3-8 bytes within 2048), ``32 <= t < 64`` is M3 (any length, within 16384), ``16 <= t < 32``
  is M4 (any length, distance 16385-49151). M3 and M4 extend their length with the same zero-run scheme.
* The low two bits of a match's distance bytes say how many literals (0-3) follow it, so short runs cost no
  instruction byte; that count becomes the next state.
* A first byte above 17 is a literal run of ``byte - 17`` that needs no preceding match.
* M4 with distance 0 (bytes ``0x11 0x00 0x00``) ends the block.

Everything here is bounds-checked: a corrupt or hostile chunk yields a negative status, never an out-of-bounds
access, and every loop iteration consumes input, so decoding always terminates.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..errors import OrcError

__all__ = [
    "ERR_INPUT_OVERRUN",
    "ERR_LOOKBEHIND_OVERRUN",
    "ERR_NO_END_MARKER",
    "ERR_OUTPUT_OVERRUN",
    "ERR_TRAILING_DATA",
    "OK",
    "decompress_lzo",
    "lzo1x_decompress",
]

OK = 0
#: The input ends inside an instruction, a length extension or a literal run.
ERR_INPUT_OVERRUN = -1
#: The output would be longer than the destination (the compression block size).
ERR_OUTPUT_OVERRUN = -2
#: A match reaches back before the first byte of output.
ERR_LOOKBEHIND_OVERRUN = -3
#: Bytes follow the end-of-stream marker.
ERR_TRAILING_DATA = -4
#: The input ends between two instructions without the end-of-stream marker.
ERR_NO_END_MARKER = -5

# distance bias of M4 matches, and the extra bias of the 3-byte M1 match that follows a long literal run
_M4_BASE = 0x4000
_M1_LONG_BASE = 0x0800


@jit
def lzo1x_decompress(src, src_pos, src_end, dst):  # type: ignore[no-untyped-def]
    """Decode one raw LZO1X block from ``src[src_pos:src_end]`` into ``dst``.

    Parameters
    ----------
    src : numpy.ndarray
        1-D ``uint8`` input; only read, so a read-only array works.
    src_pos, src_end : int
        The block is ``src[src_pos:src_end]`` (``src_end`` is capped at ``len(src)``).
    dst : numpy.ndarray
        1-D ``uint8`` output; its length is the most the block may decode to.

    Returns
    -------
    status : int
        ``OK`` (0) or one of the negative ``ERR_*`` codes.
    out_len : int
        Bytes written to ``dst`` (on error: bytes written before the failing step).
    in_pos : int
        On success, where decoding stopped (``src_end``). On error, the offset in ``src`` of the failing step: the
        instruction's first byte, or for a truncated literal run the first literal byte; for ``ERR_TRAILING_DATA``
        the first byte after the end marker; for ``ERR_NO_END_MARKER`` ``src_end``.
    detail : int
        ``ERR_INPUT_OVERRUN``: the literal run's length, or 0 when the instruction itself is cut off.
        ``ERR_OUTPUT_OVERRUN``: the length of the copy that does not fit. ``ERR_LOOKBEHIND_OVERRUN``: the match
        distance. ``ERR_TRAILING_DATA``: how many bytes follow the marker. Otherwise 0.
    """
    # clamped, so that even a caller's bad bounds cannot make the kernel read outside src
    end = min(np.int64(src_end), np.int64(src.shape[0]))
    ip = max(np.int64(src_pos), np.int64(0))
    cap = np.int64(dst.shape[0])
    op = np.int64(0)
    zero = np.int64(0)
    # how a byte below 16 reads: 0 literal run, 1-3 short M1 (after that many literals), 4 long M1
    state = np.int64(0)

    if ip < end and src[ip] > 17:
        n = np.int64(src[ip]) - 17
        ip += 1
        if n > end - ip:
            return ERR_INPUT_OVERRUN, op, ip, n
        if n > cap - op:
            return ERR_OUTPUT_OVERRUN, op, ip - 1, n
        for k in range(n):
            dst[op + k] = src[ip + k]
        op += n
        ip += n
        state = n if n < 4 else np.int64(4)

    while True:
        if ip >= end:
            return ERR_NO_END_MARKER, op, ip, zero
        start = ip
        t = np.int64(src[ip])
        ip += 1

        if t < 16 and state == 0:
            # literal run of t + 3 bytes, or a long one when t == 0
            if t == 0:
                t = 15
                while True:
                    if ip >= end:
                        return ERR_INPUT_OVERRUN, op, start, zero
                    b = np.int64(src[ip])
                    ip += 1
                    if b != 0:
                        t += b
                        break
                    t += 255
            t += 3
            if t > end - ip:
                return ERR_INPUT_OVERRUN, op, ip, t
            if t > cap - op:
                return ERR_OUTPUT_OVERRUN, op, start, t
            for k in range(t):
                dst[op + k] = src[ip + k]
            op += t
            ip += t
            state = 4
            continue

        if t < 16:
            # M1: 2 bits of distance in t, 8 more in the next byte
            if ip >= end:
                return ERR_INPUT_OVERRUN, op, start, zero
            b = np.int64(src[ip])
            ip += 1
            dist = 1 + (t >> 2) + (b << 2)
            if state == 4:
                dist += _M1_LONG_BASE
                length = np.int64(3)
            else:
                length = np.int64(2)
            trail = t & 3
        elif t >= 64:
            # M2: length and 3 distance bits in t, 8 more in the next byte
            if ip >= end:
                return ERR_INPUT_OVERRUN, op, start, zero
            b = np.int64(src[ip])
            ip += 1
            length = (t >> 5) + 1
            dist = 1 + ((t >> 2) & 7) + (b << 3)
            trail = t & 3
        else:
            # M3 (32-63) or M4 (16-31): length in t (0 = extended), then 14 distance bits and the trail count
            # in a little-endian 16-bit word
            is_m4 = t < 32
            length = t & 7 if is_m4 else t & 31
            if length == 0:
                length = 7 if is_m4 else 31
                while True:
                    if ip >= end:
                        return ERR_INPUT_OVERRUN, op, start, zero
                    b = np.int64(src[ip])
                    ip += 1
                    if b != 0:
                        length += b
                        break
                    length += 255
            length += 2
            if end - ip < 2:
                return ERR_INPUT_OVERRUN, op, start, zero
            word = np.int64(src[ip]) | (np.int64(src[ip + 1]) << 8)
            ip += 2
            trail = word & 3
            if is_m4:
                dist = ((t & 8) << 11) + (word >> 2)
                if dist == 0:
                    # end-of-stream marker
                    if ip != end:
                        return ERR_TRAILING_DATA, op, ip, end - ip
                    return OK, op, ip, zero
                dist += _M4_BASE
            else:
                dist = 1 + (word >> 2)

        if dist > op:
            return ERR_LOOKBEHIND_OVERRUN, op, start, dist
        if length > cap - op:
            return ERR_OUTPUT_OVERRUN, op, start, length
        # byte by byte: a match may overlap its own output (distance 1 repeats one byte)
        m = op - dist
        for k in range(length):
            dst[op + k] = dst[m + k]
        op += length

        if trail != 0:
            if trail > end - ip:
                return ERR_INPUT_OVERRUN, op, ip, trail
            if trail > cap - op:
                return ERR_OUTPUT_OVERRUN, op, ip, trail
            for k in range(trail):
                dst[op + k] = src[ip + k]
            op += trail
            ip += trail
        state = trail


def decompress_lzo(data: bytes | bytearray | memoryview, limit: int) -> bytes:
    """Decompress one raw LZO1X block (one ORC compression chunk).

    Parameters
    ----------
    data : bytes-like
        The compressed chunk, without ORC's 3-byte chunk header.
    limit : int
        The most bytes the chunk may decompress to: the file's compression block size.

    Returns
    -------
    bytes
        The decompressed chunk.

    Raises
    ------
    OrcError
        If the chunk is truncated, decompresses to more than ``limit`` bytes, refers back before the start of its
        output, lacks the end-of-stream marker, or has bytes after it.
    """
    src = np.frombuffer(data, dtype=np.uint8)
    if src.flags.writeable:
        # always hand the kernel a read-only array, so one compiled variant serves every caller
        src = src.view()
        src.flags.writeable = False
    dst = np.empty(max(int(limit), 0), dtype=np.uint8)
    status, out_len, in_pos, detail = lzo1x_decompress(src, 0, src.shape[0], dst)
    if status == OK:
        return dst[:out_len].tobytes()
    raise OrcError(_describe(int(status), int(out_len), int(in_pos), int(detail), src.shape[0], int(limit)))


def _describe(status: int, out_len: int, in_pos: int, detail: int, size: int, limit: int) -> str:
    if status == ERR_INPUT_OVERRUN:
        if detail > 0:
            return (
                f"LZO: input ends inside a literal run at byte {in_pos}: the run needs {detail} bytes "
                f"but only {size - in_pos} remain"
            )
        return f"LZO: input ends inside the instruction at byte {in_pos} (the chunk is {size} bytes)"
    if status == ERR_OUTPUT_OVERRUN:
        return (
            f"LZO: output exceeds the compression block size of {limit} bytes: the instruction at byte {in_pos} "
            f"copies {detail} bytes after {out_len} bytes of output"
        )
    if status == ERR_LOOKBEHIND_OVERRUN:
        return (
            f"LZO: match distance {detail} reaches before the start of the output at byte {in_pos} "
            f"(only {out_len} bytes of output so far)"
        )
    if status == ERR_TRAILING_DATA:
        return f"LZO: {detail} bytes of trailing data after the end-of-stream marker that ends at byte {in_pos}"
    if status == ERR_NO_END_MARKER:
        return f"LZO: input ends at byte {in_pos} without the end-of-stream marker (0x11 0x00 0x00)"
    return f"LZO: unknown decoder status {status}"  # pragma: no cover
