"""Executing a read: runs of rows (whole stripes, or the row groups pruning kept) times groups of top-level
columns, as tasks on a thread pool, each decoded into its place in result arrays allocated once for the whole read.

The kernels release the GIL (``nogil=True``) and so do the codecs, so tasks decode in parallel. Each task fetches,
decompresses and decodes its own streams and drops them when it is done: besides the result, memory holds the
streams of at most one task per worker. :func:`decode_run` is the one way anything decodes rows.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from ..decode.columns import ReadContext, read_column
from ..decode.limits import allocate
from ..decode.seek import Positions, read_stripe_rows
from ..decode.streams import read_stripe_streams
from ..decode.vector import ColumnVector, find_vector, prune_vector, slice_vector
from ..errors import OrcError
from ..filemeta import FileMeta
from ..progress import StripeProgress, stripe_progress
from ..pushdown.filters import Filters, tested_columns
from ..pushdown.plan import StripeDecision, decide
from ..pushdown.rows import filters_mask
from ..types.kinds import HIVE11_DECIMALS, KINDS, Hive11Decimals
from ..types.resolve import Selection, decode_selection
from ..types.schema import TypeNode
from .options import ReadOptions
from .plan import ReadPlan, Run, run_positions, split_runs, stripe_runs

__all__ = [
    "Scanned",
    "allocate_outputs",
    "decode_run",
    "field_groups",
    "is_lookup",
    "run_tasks",
    "scan_lookup",
    "scan_runs",
    "scan_stripes",
]

# reads of fewer values than this (rows times top-level columns) decode on the calling thread
SMALL_READ_VALUES = 1 << 16
_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _forget_pools() -> None:
    # a forked child has none of the parent's threads: a pool copied into it would never run a task
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Scanned:
    """What a read decoded: each output field's vectors (one per run of rows, or one for the whole read), where
    each run starts in the file and how many rows it holds, and the filters' exact row masks per run."""

    output: Selection
    filtered: bool
    columns: list[list[ColumnVector]] = field(default_factory=list)
    first_rows: list[int] = field(default_factory=list)
    row_counts: list[int] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)

    def mask(self) -> np.ndarray:
        """The rows that satisfy the filters, over every run."""
        return np.concatenate(self.masks) if self.masks else np.zeros(0, dtype=bool)


def scan_stripes(meta: FileMeta, plan: ReadPlan, indices: Sequence[int], options: ReadOptions) -> Scanned:
    """Decode what ``plan``'s filters keep of stripes ``indices``, with ``options``' threads and progress bar
    (over the stripes pruning kept)."""
    _, decisions = decide(meta, plan.pruning, indices)
    kept = [d for d in decisions if d.keep]
    if not options.progress:
        return _scan_kept(meta, plan, kept, options, None)
    with stripe_progress(len(kept), meta.name) as bar:
        return _scan_kept(meta, plan, kept, options, bar)


def _scan_kept(
    meta: FileMeta, plan: ReadPlan, kept: list[StripeDecision], options: ReadOptions, bar: StripeProgress | None
) -> Scanned:
    if plan.decode.fields and bar is None and is_lookup(plan.predicates) and kept and all(map(_skips_groups, kept)):
        got = scan_lookup(meta, plan, kept, options)
        if got is not None:
            return got
    if plan.decode.fields:
        runs = [run for d in kept for run in stripe_runs(meta, d, plan.decode)]
    else:  # rows only: no stripe footer is needed to count them
        runs = [Run(meta.stripes[d.index], 0, d.rows, None) for d in kept]
    return scan_runs(meta, runs, plan, options, bar)


def scan_runs(
    meta: FileMeta, runs: list[Run], plan: ReadPlan, options: ReadOptions, bar: StripeProgress | None = None
) -> Scanned:
    """Decode ``runs`` of the columns ``plan`` decodes on ``options``' threads: the output columns' vectors and the
    rows its filters keep; ``bar`` advances as each stripe's last task finishes.

    Runs too few to keep the threads busy are cut into pieces (:func:`~orcjit.reading.plan.split_runs`) and their
    columns decoded apart (:func:`field_groups`): the tasks are pieces times groups of columns. The pieces are
    entered by the row index, which a whole read never needs: when a piece fails, the runs are read again whole,
    so that a read fails (and says why) exactly as it does on one thread.

    Raises
    ------
    OrcError
        If the file is corrupt where the read decodes it.
    """
    workers = options.workers
    if sum(run.count for run in runs) * len(plan.decode.fields) < SMALL_READ_VALUES:
        workers = 1  # handing tasks to threads would cost more than decoding them here
    fields = field_groups(plan.decode.fields, len(runs), workers)
    pieces = split_runs(meta, runs, plan.decode, workers)
    if pieces is runs:
        return _scan(meta, runs, fields, plan, options, workers, bar)
    try:
        return _scan(meta, pieces, fields, plan, options, workers, bar)
    except OrcError:
        pass
    # every task has ended (run_tasks waits for those started): the stripes whose pieces all finished were counted
    unfinished = bar.abandon() if bar is not None else set()
    got = _scan(meta, runs, fields, plan, options, workers, None)
    if bar is not None:
        bar.advance(len(unfinished))
    return got


def _scan(
    meta: FileMeta,
    runs: list[Run],
    fields: list[list[TypeNode]],
    plan: ReadPlan,
    options: ReadOptions,
    workers: int,
    bar: StripeProgress | None,
) -> Scanned:
    """:func:`scan_runs` of ``runs`` (as they are) times the groups of top-level ``fields``."""
    output, decode, predicates = plan.output, plan.decode, plan.predicates
    dictionary_as_category, hive11 = options.dictionary_as_category, options.hive11
    got = Scanned(output, bool(predicates))
    total = 0
    for run in runs:
        run.start = total
        total += run.count
    got.first_rows = [r.stripe.first_row + r.first for r in runs]
    got.row_counts = [r.count for r in runs]
    if not decode.fields:
        # no columns to read, only rows to count
        if bar is not None:
            bar.advance(len({r.stripe.index for r in runs}))
        return got
    outputs = allocate_outputs(output.fields, total, runs, meta.name)
    root = meta.schema.column_id
    groups = [{root} | {n.column_id for f in g for n in f.walk() if n.column_id in decode.selected} for g in fields]

    def task(job: tuple[Run, set[int]]) -> dict[int, ColumnVector]:
        run, selected = job
        if run.count == total and len(groups) == 1:  # the read is this run: its rows are the whole arrays
            slices = outputs
        else:
            slices = {i: out[run.start : run.start + run.count] for i, out in outputs.items() if i in selected}
        vectors = decode_run(meta, run, selected, dictionary_as_category, slices, hive11)
        for i, target in slices.items():
            values = vectors[i].values
            if values is not None and values is not target:  # decoded elsewhere (a root with nulls)
                np.copyto(target, values)
        if bar is not None:
            bar.task_done(run.stripe.index)
        return vectors

    jobs = [(run, selected) for run in runs for selected in groups]
    if bar is not None:
        bar.expect(run.stripe.index for run, _ in jobs)
    decoded = run_tasks(task, jobs, workers)
    per_run = [
        {k: v for part in decoded[i * len(groups) : (i + 1) * len(groups)] for k, v in part.items()}
        for i in range(len(runs))
    ]
    for node in output.fields:
        column_id = node.column_id
        if column_id in outputs:
            chunks = [vectors[column_id] for vectors in per_run]
            values = outputs[column_id]
            if len(chunks) == 1 and chunks[0].values is values and chunks[0].length == total and chunks[0].node is node:
                got.columns.append(chunks)  # one run, decoded into the result array: its vector is the column's
                continue
            valid = None
            if any(c.valid is not None for c in chunks):
                valid = np.concatenate([np.ones(c.length, bool) if c.valid is None else c.valid for c in chunks])
            scales = None  # Hive 0.11 decimals read exactly: each value's scale
            if any(c.scales is not None for c in chunks):
                scales = np.concatenate(
                    [np.zeros(c.length, np.int64) if c.scales is None else c.scales for c in chunks]
                )
            scale = next((c.scale for c in chunks if c.scale is not None), None)
            got.columns.append([ColumnVector(node, total, valid, values=values, scale=scale, scales=scales)])
        else:
            got.columns.append([prune_vector(vectors[column_id], output.selected) for vectors in per_run])
    if predicates:
        for run, vectors in zip(runs, per_run, strict=True):
            tested_vectors = {p.node.column_id: find_vector(vectors, p.node) for g in predicates for p in g}
            got.masks.append(filters_mask(predicates, tested_vectors, run.count))
    return got


def is_lookup(filters: Filters | None) -> bool:
    """Whether ``filters`` look up values: every conjunction tests a column for equality (``==``, ``in``), so few
    of the rows pruning keeps are likely to match."""
    return bool(filters) and all(any(p.op in ("==", "in") for p in conj) for conj in filters or ())


# a lookup decodes the other columns over the stretch of each run between its first and last match when those
# stretches hold at most this share of the runs' rows; else over the runs as pruning left them
NARROW_SHARE = 0.75


def _skips_groups(d: StripeDecision) -> bool:
    """Whether pruning skips row groups of kept stripe ``d`` (its runs are entered by row group)."""
    groups = d.row_groups
    return groups is not None and groups.stride > 0 and not groups.keep.all()


def scan_lookup(meta: FileMeta, plan: ReadPlan, kept: list[StripeDecision], options: ReadOptions) -> Scanned | None:
    """A lookup (:func:`is_lookup`) decoded in two steps: the columns the filters test first, over the row groups
    pruning kept (bloom filters' false positives among them), then the other output columns only where rows
    matched, from each run's first match to its last. The tested columns' vectors are sliced to those stretches,
    not decoded again; the result is what :func:`scan_runs` gives for the same rows.

    Only for stripes pruning entered by row group (:func:`_skips_groups`): a stripe read whole is read whole, every
    column (a corrupt column fails the read whether or not a row matches). ``None`` when a stripe cannot be entered
    by row group after all (a tested column's positions are unusable)."""
    probe = _tested_selection(meta, plan)
    runs = [run for d in kept for run in stripe_runs(meta, d, probe)]
    if any(run.positions is None for run in runs):
        return None
    got = scan_runs(meta, runs, ReadPlan(probe, probe, plan.predicates, None), options)
    hits = [np.flatnonzero(mask) for mask in got.masks]
    spans = [(i, int(h[0]), int(h[-1]) + 1) for i, h in enumerate(hits) if h.size]
    if not spans:
        return scan_runs(meta, [], plan, options)  # nothing matches: the empty result, shaped as any read's
    total = sum(run.count for run in runs)
    narrow = sum(hi - lo for _, lo, hi in spans) <= NARROW_SHARE * total
    if not narrow:
        spans = [(i, 0, run.count) for i, run in enumerate(runs)]
    output = plan.output
    tested = {f.column_id: j for j, f in enumerate(probe.fields)}
    later = [f for f in output.fields if not _covered(f, tested, probe.selected, output.selected)]
    decisions = {d.index: d for d in kept}
    positions: dict[int, Positions | None] = {}
    narrowed = []
    for i, lo, hi in spans:
        run = runs[i]
        first, count = run.first + lo, hi - lo
        at = None
        if later and not (first == 0 and count == run.stripe.rows):
            index = run.stripe.index
            if index not in positions:
                groups = decisions[index].row_groups
                decode = Selection(later, [], plan.decode.selected)
                footer = run.footer or meta.stripe_footer(index)
                positions[index] = run_positions(meta, run.stripe, footer, decode, groups.indexes if groups else None)
            at = positions[index]
        narrowed.append(Run(run.stripe, first, count, run.footer, at))
    rest = None
    if later:
        names = [output.names[output.fields.index(f)] for f in later]
        rest = scan_runs(
            meta,
            narrowed,
            ReadPlan(
                Selection(later, names, output.selected), Selection(later, names, plan.decode.selected), None, None
            ),
            options,
        )
    ranges = [(runs[i].start + lo, runs[i].start + hi) for i, lo, hi in spans]
    result = Scanned(output, True)
    for node in output.fields:
        if rest is not None and node in later:
            result.columns.append(rest.columns[later.index(node)])
            continue
        chunks = got.columns[tested[node.column_id]]
        if narrow:
            chunks = _take(chunks, ranges)
        result.columns.append([prune_vector(vec, output.selected) for vec in chunks])
    result.first_rows = [r.stripe.first_row + r.first for r in narrowed]
    result.row_counts = [r.count for r in narrowed]
    result.masks = [got.masks[i][lo:hi] for i, lo, hi in spans]
    return result


def _tested_selection(meta: FileMeta, plan: ReadPlan) -> Selection:
    """What a read decodes to test its filters: the fields holding the tested columns, with only what they need."""
    needed = decode_selection(meta.schema, Selection([], [], set()), tested_columns(plan.predicates))
    selected = needed.selected & plan.decode.selected
    pairs = [(n, f) for n, f in zip(plan.decode.names, plan.decode.fields, strict=True) if f.column_id in selected]
    return Selection([f for _, f in pairs], [n for n, _ in pairs], selected)


def _covered(node: TypeNode, tested: dict[int, int], decoded: set[int], wanted: set[int]) -> bool:
    """Whether the first step decoded all of output field ``node`` that the read returns."""
    return node.column_id in tested and all(n.column_id in decoded for n in node.walk() if n.column_id in wanted)


def _take(chunks: list[ColumnVector], ranges: list[tuple[int, int]]) -> list[ColumnVector]:
    """The slots ``[a, b)`` of each range of the rows ``chunks`` hold end to end, a vector per range; no range
    crosses from one chunk into the next (ranges lie within runs, chunks are the runs or all of them)."""
    starts = np.cumsum([0] + [c.length for c in chunks])
    out = []
    for a, b in ranges:
        c = int(np.searchsorted(starts, a, side="right")) - 1
        out.append(slice_vector(chunks[c], a - int(starts[c]), b - int(starts[c])))
    return out


def decode_run(
    meta: FileMeta,
    run: Run,
    selected: set[int],
    dictionary_as_category: bool,
    outputs: dict[int, np.ndarray],
    hive11: Hive11Decimals = HIVE11_DECIMALS["orc_cpp"],
) -> dict[int, ColumnVector]:
    """Decode the ``selected`` columns of ``run``: the vectors of the root's fields by column id (the root itself
    when it is not a struct). Fixed-width top-level columns whose id is in ``outputs`` are decoded into those
    arrays (the run's slices of the result); ``hive11`` says how decimals of Hive 0.11 files are given."""
    footer = run.footer if run.footer is not None else meta.stripe_footer(run.stripe.index)
    if run.whole_stripe:
        streams = read_stripe_streams(meta.source, meta.tail, run.stripe, footer, selected)
        ctx = ReadContext(streams, selected, dictionary_as_category, outputs, hive11)
        root = read_column(ctx, meta.schema, run.stripe.rows)
    else:
        root = read_stripe_rows(
            meta.source,
            meta.tail,
            run.stripe,
            footer,
            meta.schema,
            selected,
            run.first,
            run.count,
            run.positions,
            meta.stride,
            dictionary_as_category,
            outputs,
            hive11,
            run.dictionaries,
        )
    if meta.schema.kind != "struct":
        return {meta.schema.column_id: root}
    return {vec.node.column_id: vec for vec in root.children}


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
        kind = KINDS[node.kind]
        if kind.fixed_width:
            shape = (total, kind.lanes) if kind.lanes > 1 else total
            outputs[node.column_id] = allocate(shape, kind.dtype, functools.partial(_what, name, total, runs, node))
    return outputs


def _what(name: str, total: int, runs: Sequence[Run], node: TypeNode) -> str:
    """Words for an output array that cannot be allocated: the file, where its rows come from, the column."""
    return f"{name + ': ' if name else ''}{_declared(total, runs)}; column {node.column_id} ({node.kind})"


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


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` decoding threads, started once: starting threads for every read cost
    more than a small read itself. Its tasks never wait on other tasks, so reads may share it."""
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="orcjit")
        return pool


def run_tasks(fn: Callable[[T], R], tasks: Sequence[T], workers: int) -> list[R]:
    """``[fn(t) for t in tasks]``, on ``workers`` threads when there is more than one task; the first error
    cancels the tasks not started yet and is raised once those started have finished."""
    if workers <= 1 or len(tasks) <= 1:
        return [fn(t) for t in tasks]
    futures = [_pool(workers).submit(fn, t) for t in tasks]
    try:
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        wait(futures)  # no task of this read may still be writing into its buffers once it has failed
        raise
