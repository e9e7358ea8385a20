"""Limits that keep a hostile file from taking memory: how many values a stream's bytes can possibly hold, checked
before an array is allocated for a count the file declares, and allocation that reports a declared size too large
to reserve as OrcError.

The bounds are the densest packing each encoding allows, so no valid file can exceed them:

- byte RLE packs a run of 130 equal bytes into 2 bytes: at most 65 bytes, or 520 booleans (8 per byte), per byte;
- integer RLE v2 packs a fixed-step run of 512 values into 4 bytes (a 2-byte header, then the base and the step as
  varints of at least a byte each): at most 128 values per byte (RLE v1, 130 values in 3 bytes, packs fewer);
- a decimal's digits are a varint of at least one byte.

A decoder resumed after an earlier call may still hold part of a run without any bytes behind it (up to 512
integers, or 130 bytes of booleans), which :data:`PENDING` allows for.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

from ..compression import NONE
from ..errors import OrcError

__all__ = [
    "BOOLEANS_PER_BYTE",
    "DECIMALS_PER_BYTE",
    "INTEGERS_PER_BYTE",
    "OCTETS_PER_BYTE",
    "PENDING",
    "allocate",
    "max_decompressed",
    "most_values",
]

BOOLEANS_PER_BYTE = 520
OCTETS_PER_BYTE = 65
INTEGERS_PER_BYTE = 128
DECIMALS_PER_BYTE = 1
# values a resumed decoder may deliver from a run it already holds: 130 bytes of 8 booleans and the current byte's
# bits, or one run of 512 integers, rounded up
PENDING = 2048
HEADER_SIZE = 3


def most_values(nbytes: int, per_byte: int) -> int:
    """The most values ``nbytes`` decoded bytes of a stream can yield, a run already held included."""
    return per_byte * max(nbytes, 0) + PENDING


def max_decompressed(stored: int, codec: int, block_size: int) -> int:
    """The most bytes ``stored`` bytes of a stream decompress to: themselves when the file is not compressed, else
    a compression block for every 3-byte chunk header they could hold (no chunk expands past a block)."""
    if codec == NONE:
        return max(stored, 0)
    return -(-max(stored, 0) // HEADER_SIZE) * block_size


def allocate(shape: int | tuple[int, ...], dtype: Any, what: str | Callable[[], str]) -> np.ndarray:
    """``np.empty(shape, dtype)``; OrcError naming ``what`` (or what the function ``what`` gives, called only then)
    and the size when it cannot be reserved at all.

    An uninitialised array is only committed as it is written, so a count the file declares but its streams do
    not back costs no memory: decoding stops where the streams end. A declared size beyond what the machine can
    even reserve is reported here instead of as a bare MemoryError.
    """
    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError, OverflowError):
        dims = (shape,) if isinstance(shape, int) else shape
        nbytes = prod(dims) * np.dtype(dtype).itemsize
        name = what if isinstance(what, str) else what()
        raise OrcError(f"{name}: {dims[0]} values ({nbytes} bytes) are more than memory can hold") from None
