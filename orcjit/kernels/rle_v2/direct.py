"""RLE v2 direct: 1 to 512 values bit-packed at one fixed width.

Header ``01 WWWWW L`` ``LLLLLLLL``: W is the width code, L + 1 the number of values. The values follow
bit-packed big-endian, zigzag-encoded when the stream is signed.

The decoder (:mod:`.decoder`) decodes these runs itself; a skip passes over them here.
"""

from __future__ import annotations

from ..._jit import jit
from ..bitpack import WIDTHS
from ..status import ERROR_POS, TRUNCATED


@jit
def skip_direct(buf, pos, end, state):  # type: ignore[no-untyped-def]
    width = WIDTHS[(buf[pos] >> 1) & 31]
    n = (((buf[pos] & 1) << 8) | buf[pos + 1]) + 1
    stop = pos + 2 + ((n * width + 7) >> 3)
    if stop > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return stop
