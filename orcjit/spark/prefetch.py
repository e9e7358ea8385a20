"""Reading ahead: the next item of an iterator made on a thread while the caller works on the current one.

The Spark source reads each stripe this way while Spark's worker sends the previous stripe's batches to the JVM:
decoding and Arrow's conversions release the GIL, so the two overlap on the worker's cores.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

__all__ = ["prefetched"]

T = TypeVar("T")


def prefetched(items: Iterator[T]) -> Iterator[T]:
    """``items``, each produced on a thread of its own while the caller works on the one before.

    One item is made ahead, so memory holds at most two. Items are produced one after another, in order, never
    two at once; an error producing one is raised where the caller takes it. Closing the result early (Spark
    stops a query that has its rows) waits for the item in the making and closes ``items``.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="orcjit-prefetch") as pool:
        future = pool.submit(next, items, _DONE)
        try:
            while True:
                item = future.result()
                if item is _DONE:
                    return
                future = pool.submit(next, items, _DONE)
                yield item  # type: ignore[misc]
        finally:
            if not future.done():
                future.cancel()
                wait([future])
            close = getattr(items, "close", None)
            if close is not None:
                close()


_DONE = object()
