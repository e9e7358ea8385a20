"""The Spark source's read-ahead: each stripe's batches made on a thread while Spark takes the previous ones."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from orcjit.spark.prefetch import prefetched


def test_items_come_in_order_one_made_ahead() -> None:
    made: list[int] = []
    threads: set[int] = set()

    def items() -> Iterator[int]:
        for i in range(6):
            made.append(i)
            threads.add(threading.get_ident())
            yield i

    taken = []
    for item in prefetched(items()):
        time.sleep(0.01)  # the consumer's work: the next item is made meanwhile, and no further
        assert len(made) <= item + 2
        taken.append(item)
    assert taken == list(range(6)) and made == taken
    assert threading.get_ident() not in threads  # made off the consumer's thread


def test_an_error_is_raised_where_the_item_is_taken() -> None:
    def items() -> Iterator[int]:
        yield 1
        raise ValueError("stripe 1 is corrupt")

    got = prefetched(items())
    assert next(got) == 1
    with pytest.raises(ValueError, match="stripe 1 is corrupt"):
        next(got)


def test_closing_early_waits_for_the_item_in_the_making_and_closes_the_source() -> None:
    state = {"closed": False, "making": False}
    release = threading.Event()

    def items() -> Iterator[int]:
        try:
            yield 0
            state["making"] = True
            release.wait(5)
            state["making"] = False
            yield 1
            yield 2
        finally:
            state["closed"] = True

    got = prefetched(items())
    assert next(got) == 0
    threading.Timer(0.05, release.set).start()
    got.close()  # returns only once item 1 is made and the source is closed
    assert state == {"closed": True, "making": False}


def test_nothing_to_read() -> None:
    assert list(prefetched(iter([]))) == []
