"""Big-endian bit packing as RLE v2 writes it: values of ``width`` bits, most significant bit first, back to back,
the run padded to a whole byte.

``unpack_values`` is the hot loop of RLE v2. It checks the run's byte length against the buffer once and then
reads each value with one 8-byte big-endian load and two shifts, whatever the width: about 1 G values/s at any
width on one core, where streaming bytes through an accumulator gave 200-700 M/s and slowed as widths grew.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .status import TRUNCATED

U64 = np.uint64


# Lookup tables rather than small kernels: each kernel is one more compilation in a new environment (about 0.1 s
# however small, and again inside every kernel that calls it), where an index into a constant array costs nothing.

# bit width of RLE v2's 5-bit width code (0 means 1 bit here; delta runs treat 0 as width 0 themselves)
WIDTHS = np.array([*range(1, 25), 26, 28, 30, 32, 40, 48, 56, 64], dtype=np.int64)
# the width the patch list of a patched-base run rounds ``gap width + patch width`` (0 .. 8 + 64) up to
CLOSEST_FIXED_BITS = np.array(
    [max(n, 1) if n <= 24 else next(w for w in (26, 28, 30, 32, 40, 48, 56, 64) if n <= w or w == 64)
     for n in range(73)],
    dtype=np.int64,
)  # fmt: skip


@jit
def load_be64(buf, j):  # type: ignore[no-untyped-def]
    """The 8 bytes at unsigned index ``j`` as a big-endian uint64 (the caller checks ``j + 8 <= end``).

    Unsigned indices carry no negative-index wraparound, which is what lets LLVM merge the eight loads into one
    byte-swapping load.
    """
    return (
        (U64(buf[j]) << U64(56))
        | (U64(buf[j + U64(1)]) << U64(48))
        | (U64(buf[j + U64(2)]) << U64(40))
        | (U64(buf[j + U64(3)]) << U64(32))
        | (U64(buf[j + U64(4)]) << U64(24))
        | (U64(buf[j + U64(5)]) << U64(16))
        | (U64(buf[j + U64(6)]) << U64(8))
        | U64(buf[j + U64(7)])
    )


@jit
def unpack_values(buf, pos, end, width, n, out, offset, zigzag, add):  # type: ignore[no-untyped-def]
    """Unpack ``n`` values of ``width`` bits (1..64) from ``buf[pos:]`` into ``out[offset:offset + n]``, undoing
    zigzag encoding when ``zigzag`` is 1 (it is 0 or 1) and adding ``add`` to each (a patched-base run's base).

    Each value is one 8-byte big-endian load at its first byte, shifted into place: a value of up to 57 bits
    starting anywhere in a byte, or 64 bits starting on one (as 64-bit values always do), lies within those 8
    bytes. The last values of a buffer, where 8 bytes are not there to load, read their bytes one by one, and a
    ninth byte for widths 58-63 (which RLE v2 does not use), all of whose values go that way. Zigzag is applied
    without a branch (``zigzag`` is a shift and a mask), so one loop serves signed and unsigned runs.
    Returns the position after the run's padded bytes, or TRUNCATED when ``buf`` ends first.
    """
    nbytes = (n * width + 7) >> 3
    if pos < 0 or pos + nbytes > end:
        return TRUNCATED
    w = U64(width)
    shift = U64(64 - width)
    zz = U64(zigzag)
    base = U64(pos)
    # values whose 8-byte load stays inside buf[:end]: value i starts at byte (i * width) >> 3, so all of them
    # unless the run ends within 8 bytes of the buffer's end; none for widths 58-63, whose values can span 9 bytes
    # (RLE v2 never writes these widths: its table jumps from 56 to 64)
    room = end - pos - 8
    if 57 < width < 64 or room < 0:
        fast = 0
    elif pos + nbytes + 7 <= end:
        fast = n
    else:
        fast = (room * 8) // width + 1
        if fast > n:
            fast = n
    at = U64(offset)  # unsigned here too: a signed store index keeps LLVM from vectorizing (20% slower)
    for i in range(fast):
        k = U64(i)
        b = k * w
        u = (load_be64(buf, base + (b >> U64(3))) << (b & U64(7))) >> shift
        out[at + k] = (np.int64(u >> zz) ^ -np.int64(u & zz)) + add
    stop = U64(pos + nbytes)
    for i in range(fast, n):
        b = U64(i) * w
        j = base + (b >> U64(3))
        u = U64(0)
        for k in range(8):
            # bytes past the run are shifted out below; reading them as zero keeps inside the buffer
            jk = j + U64(k)
            u = (u << U64(8)) | (U64(buf[jk]) if jk < stop else U64(0))
        off = b & U64(7)
        if off:
            # the ninth byte's top bits: part of the value only for widths 58-63, shifted out below for the others
            jk = j + U64(8)
            u = (u << off) | ((U64(buf[jk]) if jk < stop else U64(0)) >> (U64(8) - off))
        u >>= shift
        out[offset + i] = (np.int64(u >> zz) ^ -np.int64(u & zz)) + add
    return pos + nbytes


@jit
def unpack_bits(buf, pos, end, width, n, out, offset):  # type: ignore[no-untyped-def]
    """Unpack ``n`` values of ``width`` bits (1..64) from ``buf[pos:]`` into ``out[offset:offset + n]``.

    Values are stored as the int64 with the same 64 bits. Returns the position after the run's padded bytes, or
    TRUNCATED when ``buf`` ends first.
    """
    return unpack_values(buf, pos, end, width, n, out, offset, np.int64(0), np.int64(0))
