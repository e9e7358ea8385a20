"""Progress bars over the stripes of a read, drawn with tqdm (an optional dependency: ``orcjit[progress]``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from .errors import OrcError

__all__ = ["StripeProgress", "check_progress", "stripe_progress"]


def check_progress(progress: object) -> bool:
    """Validate a ``progress`` argument; when it is ``True``, make sure tqdm can be imported.

    Raises
    ------
    OrcError
        If ``progress`` is not a bool, or is ``True`` and tqdm is not installed.
    """
    if not isinstance(progress, bool):
        raise OrcError(f"progress must be True or False, got {progress!r}")
    if progress:
        _bar_class()
    return progress


def _bar_class() -> Any:
    """tqdm's bar class (the plain one: the notebook widget needs ipywidgets, which may be missing)."""
    try:
        from tqdm import tqdm
    except ImportError:
        raise OrcError("progress=True needs tqdm: pip install tqdm (or orcjit[progress])") from None
    return tqdm


class StripeProgress:
    """A bar counting stripes, advanced from the tasks that decode them, on any thread.

    Each stripe is expected to finish as some number of tasks (runs of rows times groups of columns); the bar
    moves by one when the last of them is done.
    """

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        # tqdm locks its own drawing, but not the counter update() adds to; one lock keeps both consistent
        self._lock = threading.Lock()
        self._pending: dict[int, int] = {}

    def expect(self, stripes: Iterable[int]) -> None:
        """Count one more task to finish for each stripe index in ``stripes`` (repeats add up)."""
        with self._lock:
            for index in stripes:
                self._pending[index] = self._pending.get(index, 0) + 1

    def task_done(self, stripe: int) -> None:
        """One task of stripe ``stripe`` finished; the bar advances when it was the stripe's last."""
        with self._lock:
            left = self._pending.get(stripe, 0) - 1
            if left > 0:
                self._pending[stripe] = left
                return
            self._pending.pop(stripe, None)
            self._bar.update(1)

    def abandon(self) -> set[int]:
        """Give up the tasks still expected (once none of them can still finish): the stripes they left unfinished,
        which the bar has not counted."""
        with self._lock:
            unfinished = set(self._pending)
            self._pending.clear()
            return unfinished

    def advance(self, stripes: int = 1) -> None:
        """Count ``stripes`` as done without tasks (stripes with nothing to decode, or passed over)."""
        if stripes:
            with self._lock:
                self._bar.update(stripes)

    def close(self) -> None:
        with self._lock:
            self._bar.close()

    def __enter__(self) -> StripeProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stripe_progress(total: int, name: str) -> StripeProgress:
    """A bar on stderr for ``total`` stripes, labelled with the file's name (without its directory)."""
    label = os.path.basename(name.rstrip("/")) or name
    return StripeProgress(_bar_class()(total=total, unit="stripe", desc=label))
