"""How kernels report failure, and how the Python layer turns that into OrcError.

Kernels never raise: they return a byte position ``>= 0`` on success and one of the negative codes below on
failure, after storing the byte offset where the failing item started in ``state[ERROR_POS]``. The caller passes
the result through :func:`check`, which names the stream and the offset.

Run-based decoders (byte RLE, boolean RLE, RLE v1 and v2) can stop in the middle of a run when asked for fewer
values than the run holds. They then keep the rest of the run in a caller-owned ``scratch`` array and remember it
in ``state``, so the next call continues exactly where the last one stopped. A fresh decoder is
``new_state()`` with a ``scratch`` of ``SCRATCH_SIZE`` values.
"""

from __future__ import annotations

import numpy as np

from ..errors import OrcError

# result codes
TRUNCATED = -1  # the buffer ends inside a header, a value or a run
VARINT_TOO_LONG = -2  # a varint runs past the bytes its type can hold
BAD_HEADER = -3  # a run header no writer produces (reserved width code, zero-length run, ...)
BAD_PATCH = -4  # a patched-base run whose patch list points outside the run
OVERFLOW = -5  # a value does not fit its type (e.g. a decimal past 38 digits, a delta run past int64)
BAD_LENGTH = -6  # a length or count that is negative or impossible
BAD_VALUE = -7  # a value out of its domain (e.g. a dictionary index past the dictionary)

MESSAGES = {
    TRUNCATED: "data ends in the middle of a value or run",
    VARINT_TOO_LONG: "varint is longer than its type allows",
    BAD_HEADER: "invalid run header",
    BAD_PATCH: "patched-base run has a patch outside the run",
    OVERFLOW: "value overflows its type",
    BAD_LENGTH: "negative or impossible length",
    BAD_VALUE: "value outside its valid range",
}

# state slots
ERROR_POS = 0  # byte offset of the item that failed
PENDING = 1  # values of the current run not yet delivered, held in scratch
SCRATCH_POS = 2  # index in scratch of the next pending value
BITS_LEFT = 3  # boolean RLE: bits of the current byte not yet delivered
CURRENT_BYTE = 4  # boolean RLE: that byte
STATE_SIZE = 8

# the longest run any ORC integer encoding produces (RLE v2 runs hold up to 512 values)
SCRATCH_SIZE = 512


def new_state() -> np.ndarray:
    """A fresh decoder state: no pending values, no error."""
    return np.zeros(STATE_SIZE, dtype=np.int64)


def check(result: int, state: np.ndarray, what: str) -> int:
    """Return ``result`` if it is a position; raise OrcError naming ``what`` and the offset if it is an error."""
    if result >= 0:
        return result
    message = MESSAGES.get(result, f"kernel error {result}")
    raise OrcError(f"{what}: {message} at byte {int(state[ERROR_POS])}")
