"""RLE v2 patched base: values near a base, with a few outliers patched in.

Four header bytes: ``10 WWWWW L`` ``LLLLLLLL`` ``BBB PPPPP`` ``GGG CCCCC``: value width code W, L + 1 values,
B + 1 bytes of base, patch width code P, G + 1 bits of patch gap, C patches. Then the base (big-endian,
sign-magnitude: the top bit is the sign), the values bit-packed at width W, and the patch list: C entries of
``closest_fixed_bits(gap width + patch width)`` bits, each a gap (from the previous patch) over a patch. A patch's
bits go above the value's W bits. An entry with gap 255 and patch 0 only extends the gap, for outliers more than
255 values apart. Each value is ``base + (value | patch << W)``.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit
from ..bitpack import CLOSEST_FIXED_BITS, WIDTHS, load_be64, unpack_values
from ..status import BAD_PATCH, ERROR_POS, TRUNCATED

U64 = np.uint64


@jit
def skip_patched_base(buf, pos, end, state):  # type: ignore[no-untyped-def]
    if pos + 4 > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    width = WIDTHS[(buf[pos] >> 1) & 31]
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    base_bytes = ((buf[pos + 2] >> 5) & 7) + 1
    patches = buf[pos + 3] & 31
    entry_width = CLOSEST_FIXED_BITS[((buf[pos + 3] >> 5) & 7) + 1 + WIDTHS[buf[pos + 2] & 31]]
    stop = pos + 4 + base_bytes + ((n * width + 7) >> 3) + ((patches * entry_width + 7) >> 3)
    if stop > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return stop


@jit
def decode_patched_base(buf, pos, end, out, offset, signed, state):  # type: ignore[no-untyped-def]
    """Write the run's values to ``out[offset:]``; return the position after the run.

    ``signed`` does not matter: the base carries the sign and the values are offsets from it. The base is added
    while the values are unpacked and each patch added after, ``base + value + (patch << W)``: the same bits as
    ``base + (value | patch << W)`` because a value has no bits at or above W.
    """
    if pos + 4 > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    h0 = buf[pos]
    h2 = buf[pos + 2]
    h3 = buf[pos + 3]
    width = WIDTHS[(h0 >> 1) & 31]
    n = (((h0 & 1) << 8) | buf[pos + 1]) + 1
    base_bytes = ((h2 >> 5) & 7) + 1
    patch_width = WIDTHS[h2 & 31]
    gap_width = ((h3 >> 5) & 7) + 1
    patches = h3 & 31
    entry_width = CLOSEST_FIXED_BITS[gap_width + patch_width]
    p = pos + 4
    if p + base_bytes > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    u = U64(0)
    for k in range(base_bytes):
        u = (u << U64(8)) | U64(buf[p + k])
    sign_bit = U64(1) << U64(base_bytes * 8 - 1)
    base = -np.int64(u & ~sign_bit) if u & sign_bit else np.int64(u)
    p += base_bytes

    p = unpack_values(buf, p, end, width, n, out, offset, np.int64(0), base)
    if p < 0:
        state[ERROR_POS] = pos
        return p
    patch_end = p + ((patches * entry_width + 7) >> 3)
    if patch_end > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    if gap_width + patch_width > 64:
        state[ERROR_POS] = pos
        return BAD_PATCH

    patch_mask = (U64(1) << U64(patch_width)) - U64(1) if patch_width < 64 else ~U64(0)
    # every entry is one 8-byte load when the buffer has 8 bytes past the list (as unpack_values reads values)
    room = patch_end + 7 <= end
    shift = U64(64 - entry_width)
    index = 0
    for e in range(patches):
        bitpos = p * 8 + e * entry_width
        j = U64(bitpos >> 3)
        if room:
            u = load_be64(buf, j)
        else:
            # the list ends within 8 bytes of the buffer's end: its bytes one by one, zero past the end (an entry
            # lies within 8 bytes: entry widths are at most 56 bits, or 64 starting on a byte)
            u = U64(0)
            for k in range(8):
                jk = j + U64(k)
                u = (u << U64(8)) | (U64(buf[jk]) if jk < U64(end) else U64(0))
        entry = (u << U64(bitpos & 7)) >> shift
        gap = np.int64(entry >> U64(patch_width)) if patch_width < 64 else np.int64(0)
        patch = entry & patch_mask
        index += gap
        if patch == 0:
            # no outlier here (a gap of 255 extended), or a zero patch that changes nothing
            continue
        if index >= n:
            state[ERROR_POS] = pos
            return BAD_PATCH
        if width < 64:
            # bits shifted past 64 are zero in any value that fits 64 bits
            out[offset + index] += np.int64(patch << U64(width))
    return patch_end
