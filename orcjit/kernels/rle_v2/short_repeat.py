"""RLE v2 short repeat: one value repeated 3 to 10 times.

Header byte ``00 WWW CCC``: W + 1 is the value's width in bytes, C + 3 the repeat count. The value follows
big-endian, zigzag-encoded when the stream is signed.

The decoder (:mod:`.decoder`) decodes these runs itself; a skip passes over them here.
"""

from __future__ import annotations

from ..._jit import jit
from ..status import ERROR_POS, TRUNCATED


@jit
def skip_short_repeat(buf, pos, end, state):  # type: ignore[no-untyped-def]
    width = ((buf[pos] >> 3) & 7) + 1
    if pos + 1 + width > end:
        state[ERROR_POS] = pos
        return TRUNCATED
    return pos + 1 + width
