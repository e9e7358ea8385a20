"""A read as tasks on a thread pool: runs of rows (whole stripes, or the row groups pruning kept) times groups of
top-level columns, each decoded into its place in result arrays allocated once for the whole read.

The kernels release the GIL (``nogil=True``) and so do the codecs, so tasks decode in parallel. Each task fetches,
decompresses and decodes its own streams and drops them when it is done: besides the result, memory holds the
streams of at most one task per worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..errors import OrcError
from ..schema import TypeNode
from ..stripes import StripeFooterInfo, StripeInfo
from .columns import ReadContext, read_column
from .limits import allocate
from .seek import Positions, read_stripe_rows
from .streams import read_stripe_streams
from .vector import ColumnVector

T = TypeVar("T")
R = TypeVar("R")

# the values array each fixed-width kind decodes into: dtype, and values per slot (decimals: two int64 lanes)
FIXED_WIDTH: dict[str, tuple[Any, int]] = {
    "boolean": (np.bool_, 1),
    "tinyint": (np.int8, 1),
    "smallint": (np.int16, 1),
    "int": (np.int32, 1),
    "bigint": (np.int64, 1),
    "float": (np.float32, 1),
    "double": (np.float64, 1),
    "date": (np.int32, 1),
    "timestamp": (np.int64, 1),
    "timestamp with local time zone": (np.int64, 1),
    "decimal": (np.int64, 2),
}


@dataclass
class Run:
    """Rows ``[first, first + count)`` of one stripe, decoded as one piece; ``start`` is where they go in the
    read's result. ``positions`` is set when the run is entered by row group through the row index."""

    stripe: StripeInfo
    first: int
    count: int
    footer: StripeFooterInfo
    positions: Positions | None = None
    start: int = 0

    @property
    def whole_stripe(self) -> bool:
        return self.positions is None and self.first == 0 and self.count == self.stripe.rows


def workers_for(use_threads: bool, max_workers: int | None) -> int:
    """How many threads a read uses: ``max_workers``, else one per CPU this process may run on."""
    positive = isinstance(max_workers, int) and not isinstance(max_workers, bool) and max_workers >= 1
    if max_workers is not None and not positive:
        raise OrcError(f"max_workers must be a positive int, got {max_workers!r}")
    if not isinstance(use_threads, bool):
        raise OrcError(f"use_threads must be True or False, got {use_threads!r}")
    if not use_threads:
        return 1
    if max_workers is not None:
        return max_workers
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def allocate_outputs(
    fields: Sequence[TypeNode], total: int, runs: Sequence[Run] = (), name: str = ""
) -> dict[int, np.ndarray]:
    """One uninitialised result array per fixed-width field, by column id, for ``total`` rows.

    Rows the stripes declare but their streams do not hold cost no memory (the pages are never written: decoding
    stops where a stream ends). ``runs`` and ``name`` (the file) only serve the error message.

    Raises
    ------
    OrcError
        If the declared rows are more than memory can even reserve.
    """
    outputs = {}
    for node in fields:
        spec = FIXED_WIDTH.get(node.kind)
        if spec is not None:
            dtype, lanes = spec
            what = f"{name + ': ' if name else ''}{_declared(total, runs)}; column {node.column_id} ({node.kind})"
            outputs[node.column_id] = allocate((total, lanes) if lanes > 1 else total, dtype, what)
    return outputs


def _declared(total: int, runs: Sequence[Run]) -> str:
    """Words for where the rows of a read come from: the stripe that declares the most of them."""
    if not runs:
        return f"the stripes read declare {total} rows"
    largest = max(runs, key=lambda run: run.count)
    return f"the stripes read declare {total} rows (stripe {largest.stripe.index}: {largest.stripe.rows})"


def field_groups(fields: Sequence[TypeNode], runs: int, workers: int) -> list[list[TypeNode]]:
    """The top-level fields split into the groups one task decodes: all together when the runs alone keep every
    worker busy (fewer, larger reads), else one field per task."""
    if workers <= 1 or runs >= 2 * workers or len(fields) <= 1:
        return [list(fields)]
    return [[f] for f in fields]


def decode_run(
    source: Any,
    tail: Any,
    schema: TypeNode,
    run: Run,
    selected: set[int],
    stride: int,
    dictionary_as_category: bool,
    outputs: dict[int, np.ndarray],
) -> ColumnVector:
    """Decode the ``selected`` columns of ``run``: the root's vector. Fixed-width top-level columns whose id is in
    ``outputs`` are decoded into those arrays (the run's slices of the result)."""
    if run.whole_stripe:
        streams = read_stripe_streams(source, tail, run.stripe, run.footer, selected)
        ctx = ReadContext(streams, selected, dictionary_as_category, outputs)
        return read_column(ctx, schema, run.stripe.rows)
    return read_stripe_rows(
        source,
        tail,
        run.stripe,
        run.footer,
        schema,
        selected,
        run.first,
        run.count,
        run.positions,
        stride,
        dictionary_as_category,
        outputs,
    )


def run_tasks(fn: Callable[[T], R], tasks: Sequence[T], workers: int) -> list[R]:
    """``[fn(t) for t in tasks]``, on ``workers`` threads when there is more than one task; the first error
    cancels the tasks not started yet and is raised."""
    if workers <= 1 or len(tasks) <= 1:
        return [fn(t) for t in tasks]
    pool = ThreadPoolExecutor(max_workers=min(workers, len(tasks)), thread_name_prefix="orcjit")
    try:
        futures = [pool.submit(fn, t) for t in tasks]
        return [f.result() for f in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
