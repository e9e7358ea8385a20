"""A small pure-Python LZO1X compressor and decompressor, for tests only.

The compressor exists so tests can round-trip arbitrary data through ``orcjit.compression.lzo``; it is a plain
greedy hash-chain matcher, slow and far from optimal, but it emits every instruction form the decoder must handle:
first-byte literal runs, short and long (zero-extended) literal runs, literal counts folded into a match's state
bits, M1 (both the 2-byte and the 3-byte form), M2, M3 and M4 with zero-run length extensions, and the end marker.
Passing a ``random.Random`` makes it take odd but valid choices (skip matches, shorten them, prefer older
candidates) so that property tests see many different encodings of the same data.

The decompressor is written independently of the Numba kernel (it parses instructions into a list first, then
executes them) so the two can be compared on arbitrary, mostly corrupt, input.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

END_MARKER = b"\x11\x00\x00"

M1_MAX_OFFSET = 0x0400
M1_LONG_MIN, M1_LONG_MAX = 0x0801, 0x0C00
M2_MAX_OFFSET = 0x0800
M3_MAX_OFFSET = 0x4000
M4_MAX_OFFSET = 0xBFFF
M2_MAX_LEN = 8
MIN_MATCH = 3


def _extension(out: bytearray, rem: int) -> None:
    # the length continues as zero bytes worth 255 each, then one non-zero byte
    assert rem >= 1
    while rem > 255:
        out.append(0)
        rem -= 255
    out.append(rem)


class _Writer:
    """Emits LZO1X instructions, remembering where the last match's state bits live."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.state_at = -1  # index in out of the byte holding the last match's 2 state bits
        self.state = 0  # the decoder's state for the next instruction: 0, 1-3 or 4

    def literals(self, lit: bytes) -> None:
        n = len(lit)
        if n == 0:
            self.state = 0
            return
        if not self.out and n <= 238:
            self.out.append(17 + n)
        elif n <= 3:
            assert self.state_at >= 0, "a short literal run needs a preceding match"
            self.out[self.state_at] |= n
        elif n <= 18:
            self.out.append(n - 3)
        else:
            self.out.append(0)
            _extension(self.out, n - 18)
        self.out += lit
        self.state = n if n <= 3 else 4

    def can_match(self, length: int, dist: int) -> bool:
        if length == 2:
            return 1 <= self.state <= 3 and dist <= M1_MAX_OFFSET
        if length == 3 and self.state == 4 and M1_LONG_MIN <= dist <= M1_LONG_MAX:
            return True
        return length >= MIN_MATCH and 1 <= dist <= M4_MAX_OFFSET

    def match(self, length: int, dist: int, prefer_m1: bool = True) -> None:
        assert self.can_match(length, dist), (length, dist, self.state)
        out = self.out
        if length == 2 or (prefer_m1 and length == 3 and self.state == 4 and M1_LONG_MIN <= dist <= M1_LONG_MAX):
            d = dist - 1 if length == 2 else dist - M1_LONG_MIN
            self.state_at = len(out)
            out.append((d & 3) << 2)
            out.append(d >> 2)
        elif length <= M2_MAX_LEN and dist <= M2_MAX_OFFSET:
            d = dist - 1
            self.state_at = len(out)
            out.append(((length - 1) << 5) | ((d & 7) << 2))
            out.append(d >> 3)
        elif dist <= M3_MAX_OFFSET:
            d = dist - 1
            if length - 2 <= 31:
                out.append(32 | (length - 2))
            else:
                out.append(32)
                _extension(out, length - 2 - 31)
            self.state_at = len(out)
            out += (d << 2).to_bytes(2, "little")
        else:
            d = dist - M3_MAX_OFFSET
            high = (d >> 14) << 3
            if length - 2 <= 7:
                out.append(16 | high | (length - 2))
            else:
                out.append(16 | high)
                _extension(out, length - 2 - 7)
            self.state_at = len(out)
            out += ((d & 0x3FFF) << 2).to_bytes(2, "little")
        self.state = 0

    def finish(self) -> bytes:
        self.out += END_MARKER
        return bytes(self.out)


def _common(data: bytes, a: int, b: int, limit: int) -> int:
    # length of the common prefix of data[a:] and data[b:], a < b, at most limit
    n = 0
    step = 32
    while n + step <= limit and data[a + n : a + n + step] == data[b + n : b + n + step]:
        n += step
    while n < limit and data[a + n] == data[b + n]:
        n += 1
    return n


def compress(data: bytes, rng: random.Random | None = None, max_chain: int = 16, max_len: int = 1 << 20) -> bytes:
    """Compress ``data`` into one raw LZO1X block (no header, ends with the end marker).

    Parameters
    ----------
    data : bytes
        What to compress.
    rng : random.Random, optional
        If given, randomises choices among valid encodings.
    max_chain : int
        How many earlier positions with the same 3-byte prefix to try.
    max_len : int
        The longest match to emit.
    """
    data = bytes(data)
    n = len(data)
    w = _Writer()
    chains: dict[bytes, list[int]] = {}
    last2: dict[bytes, int] = {}
    lit_start = 0
    i = 0

    def insert(pos: int) -> None:
        if pos + 3 <= n:
            chains.setdefault(data[pos : pos + 3], []).append(pos)
        if pos + 2 <= n:
            last2[data[pos : pos + 2]] = pos

    while i < n:
        # the decoder's state if the pending literals were written now: 0 after a match, else the run length
        state = min(i - lit_start, 4)
        best_len, best_dist = 0, 0
        if i > 0 and i + 3 <= n:
            for tried, p in enumerate(reversed(chains.get(data[i : i + 3], ()))):
                dist = i - p
                if dist > M4_MAX_OFFSET or tried >= max_chain:
                    break
                length = _common(data, p, i, min(n - i, max_len))
                if length > best_len or (rng is not None and rng.random() < 0.2):
                    best_len, best_dist = length, dist
        if rng is not None and best_len >= 3:
            r = rng.random()
            if r < 0.1:
                best_len = 0
            elif r < 0.3:
                best_len = rng.randint(3, best_len)
        if best_len < 3 and 1 <= state <= 3 and i + 2 <= n:
            p2 = last2.get(data[i : i + 2])
            if p2 is not None and i - p2 <= M1_MAX_OFFSET and (rng is None or rng.random() < 0.8):
                best_len, best_dist = 2, i - p2
        if best_len >= 2:
            w.literals(data[lit_start:i])
            assert w.state == state
            w.match(best_len, best_dist, prefer_m1=rng is None or rng.random() < 0.7)
            for k in range(i, i + best_len):
                insert(k)
            i += best_len
            lit_start = i
        else:
            insert(i)
            i += 1
    w.literals(data[lit_start:n])
    return w.finish()


class LzoError(ValueError):
    """Raised by :func:`decompress` with the same categories as the kernel's status codes."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def _steps(src: bytes, trace: list[str] | None = None) -> Iterator[tuple]:
    """Yield ('lit', bytes) and ('match', length, dist) steps up to the end marker, in decoding order.

    Being a generator, it raises an input fault only after the caller has executed every earlier step, the order
    in which the kernel meets faults. ``trace``, if given, collects the name of each instruction form met.
    """
    note = trace.append if trace is not None else (lambda kind: None)
    end = len(src)
    pos = 0

    def byte() -> int:
        nonlocal pos
        if pos >= end:
            raise LzoError("input")
        pos += 1
        return src[pos - 1]

    def take(k: int) -> bytes:
        nonlocal pos
        if end - pos < k:
            raise LzoError("input")
        pos += k
        return src[pos - k : pos]

    def extended(base: int) -> int:
        total = base
        while (b := byte()) == 0:
            total += 255
            note("zero-run")
        note("extension")
        return total + b

    state = 0
    if end and src[0] > 17:
        k = byte() - 17
        note("first-literals")
        yield ("lit", take(k))
        state = min(k, 4)
    while True:
        if pos >= end:
            raise LzoError("no_end")
        t = byte()
        if t < 16 and state == 0:
            k = (extended(15) if t == 0 else t) + 3
            note("literals")
            yield ("lit", take(k))
            state = 4
            continue
        if t < 16:
            b = byte()
            note("M1-long" if state == 4 else "M1")
            if state == 4:
                yield ("match", 3, 0x801 + (t >> 2) + (b << 2))
            else:
                yield ("match", 2, 1 + (t >> 2) + (b << 2))
            trail = t & 3
        elif t >= 64:
            b = byte()
            note("M2")
            yield ("match", (t >> 5) + 1, 1 + ((t >> 2) & 7) + (b << 3))
            trail = t & 3
        elif t >= 32:
            length = (t & 31) or extended(31)
            lo, hi = take(2)
            word = lo | hi << 8
            note("M3")
            yield ("match", length + 2, 1 + (word >> 2))
            trail = word & 3
        else:
            length = (t & 7) or extended(7)
            lo, hi = take(2)
            word = lo | hi << 8
            dist = ((t & 8) << 11) + (word >> 2)
            if dist == 0:
                note("end")
                if pos != end:
                    raise LzoError("trailing")
                return
            note("M4")
            yield ("match", length + 2, dist + 0x4000)
            trail = word & 3
        if trail:
            note("state-literals")
            yield ("lit", take(trail))
        state = trail


def decompress(src: bytes, limit: int) -> bytes:
    """Decompress one raw LZO1X block of at most ``limit`` output bytes.

    Raises
    ------
    LzoError
        With ``kind`` one of ``"input"``, ``"output"``, ``"lookbehind"``, ``"trailing"``, ``"no_end"``: the first
        fault met while decoding, as the kernel reports it.
    """
    out = bytearray()
    for step in _steps(bytes(src)):
        if step[0] == "lit":
            if len(out) + len(step[1]) > limit:
                raise LzoError("output")
            out += step[1]
        else:
            _, length, dist = step
            if dist > len(out):
                raise LzoError("lookbehind")
            if len(out) + length > limit:
                raise LzoError("output")
            for _ in range(length):
                out.append(out[-dist])
    return bytes(out)


def instruction_kinds(src: bytes) -> Counter[str]:
    """Count the instruction forms in a valid block (for tests that check what an encoding exercises)."""
    trace: list[str] = []
    for _ in _steps(bytes(src), trace):
        pass
    return Counter(trace)
