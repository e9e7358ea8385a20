"""A dataset read as one DataFrame, one ``pyarrow.Table`` or DataFrames stripe by stripe: files in sorted path
order, then rows, indexed from 0.

Each file is scanned as a file read alone is (:func:`orcjit.reading.scan.scan_stripes`: the same pruning and
decoding), files side by side on a thread pool with each file's stripes and columns on the threads left over. The
decoded vectors of every file then go through the one converter of each kind together
(:func:`orcjit.convert.build_frame`), so the result is allocated once, as for one file, with no DataFrame per file
to concatenate; the filters' row masks are applied once at the end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..convert import build_frame, build_table, shapely_columns
from ..decode.vector import ColumnVector
from ..progress import StripeProgress, stripe_progress
from ..pushdown.filters import normalize_filters
from ..reading.options import ReadOptions, workers_for
from ..reading.plan import plan_read
from ..reading.scan import Scanned, scan_stripes
from ..types.kinds import KINDS
from ..types.resolve import Selection, select_columns
from .columns import null_vector
from .files import DatasetMeta
from .scan import SKIP, FilePlan, file_vectors, plan_files, resolve_nodes, top_name

__all__ = ["iter_dataset", "read_dataset", "read_dataset_table"]

T = TypeVar("T")


def _plans(dataset: DatasetMeta, options: ReadOptions) -> tuple[list[FilePlan], Selection]:
    nodes = resolve_nodes(dataset.schema, options.columns)
    output = select_columns(dataset.schema, options.columns)
    predicates = normalize_filters(options.filters, dataset.schema)
    return plan_files(dataset, nodes, predicates), output


def _file_options(options: ReadOptions, plan: FilePlan, threads: int) -> ReadOptions:
    assert plan.filters != SKIP
    return dataclasses.replace(
        options,
        columns=plan.columns,
        filters=plan.filters,
        use_threads=threads > 1,
        max_workers=threads if threads > 1 else None,
        progress=False,
    )


def _scan(dataset: DatasetMeta, plan: FilePlan, options: ReadOptions) -> Scanned:
    with dataset.opened(plan.index) as meta:
        file_plan = plan_read(meta, options.columns, options.filters, options.encrypted)
        return scan_stripes(meta, file_plan, range(len(meta.stripes)), options)


def _each_file(
    dataset: DatasetMeta, plans: list[FilePlan], options: ReadOptions, read: Callable[[FilePlan, int], T]
) -> list[T]:
    """``read(plan, threads)`` for each file not skipped, in file order, files side by side on the pool and a bar
    over the dataset's stripes where ``options.progress`` asks for one."""
    todo = [p for p in plans if p.filters != SKIP]
    workers = workers_for(options.use_threads, options.max_workers)
    outer = max(1, min(workers, len(todo)))
    inner = max(1, workers // outer)
    bar: StripeProgress | None = None
    if options.progress:
        bar = stripe_progress(sum(len(m.stripes) for m in dataset.metas), f"{len(plans)} files")
        bar.advance(sum(len(dataset.metas[p.index].stripes) for p in plans if p.filters == SKIP))

    def one(plan: FilePlan) -> T:
        result = read(plan, inner)
        if bar is not None:
            bar.advance(len(dataset.metas[plan.index].stripes))
        return result

    try:
        if outer == 1:
            return [one(p) for p in todo]
        with ThreadPoolExecutor(outer) as pool:
            return list(pool.map(one, todo))
    finally:
        if bar is not None:
            bar.close()


def _gather(
    dataset: DatasetMeta, output: Selection, parts: Sequence[tuple[int, Scanned]]
) -> tuple[list[list[ColumnVector]], np.ndarray | None]:
    """Every file's vectors per output column, in file order, and the rows the filters keep (None: all)."""
    columns: list[list[ColumnVector]] = [[] for _ in output.fields]
    masks = []
    for index, scanned in parts:
        vectors_of = file_vectors(dataset, index, scanned, output.fields, output.names)
        for column, vectors in zip(columns, vectors_of, strict=True):
            column.extend(vectors)
        rows = sum(scanned.row_counts)
        masks.append(scanned.mask() if scanned.filtered else np.ones(rows, dtype=np.bool_))
    for column, node in zip(columns, output.fields, strict=True):
        if not column:
            column.append(null_vector(node, 0))
    filtered = any(scanned.filtered for _, scanned in parts)
    return columns, (np.concatenate(masks) if masks else np.zeros(0, np.bool_)) if filtered else None


def _frame(
    dataset: DatasetMeta, output: Selection, parts: Sequence[tuple[int, Scanned]], options: ReadOptions
) -> pd.DataFrame:
    columns, mask = _gather(dataset, output, parts)
    if output.fields:
        frame = build_frame(output, columns, options.backend, dictionary_as_category=options.dictionary_as_category)
    else:
        rows = sum(sum(s.row_counts) for _, s in parts)
        frame = pd.DataFrame(index=pd.RangeIndex(rows), columns=pd.Index([], dtype=object))
    if mask is not None:
        frame = _as_in_full_read(dataset, frame[mask].reset_index(drop=True), output, options.backend)
    if options.geometry == "shapely" and output.fields:
        frame = shapely_columns(frame, output)
    return frame


def _as_in_full_read(dataset: DatasetMeta, frame: pd.DataFrame, output: Selection, backend: str) -> pd.DataFrame:
    """With NumPy dtypes, an integer or boolean column that holds nulls anywhere in the dataset (by the files'
    statistics, files that lack it, null partitions) is float or object, as in a full read, even when the rows
    kept have none."""
    if backend != "numpy":
        return frame
    for position, node in enumerate(output.fields):
        with_nulls = KINDS[node.kind].with_nulls
        if with_nulls is None or frame.iloc[:, position].dtype == np.dtype(with_nulls):
            continue
        if _may_hold_nulls(dataset, node):
            frame.isetitem(position, frame.iloc[:, position].astype(with_nulls))
    return frame


def _may_hold_nulls(dataset: DatasetMeta, node: Any) -> bool:
    name = top_name(node)
    for index, meta in enumerate(dataset.metas):
        if name in dataset.partition_names:
            if dataset.partition_values(index)[name] is None and meta.nrows:
                return True
            continue
        own = dataset.columns[index].fields.get(name)
        if own is None:
            if meta.nrows:
                return True
            continue
        stats = meta.statistics[own.column_id]
        if stats.has_null is True or (stats.count is not None and stats.count < meta.nrows):
            return True
    return False


def read_dataset(dataset: DatasetMeta, options: ReadOptions) -> pd.DataFrame:
    """The dataset as one DataFrame, as ``options`` say (see :func:`orcjit.read_orc`)."""
    plans, output = _plans(dataset, options)
    parts = _each_file(
        dataset, plans, options, lambda p, threads: (p.index, _scan(dataset, p, _file_options(options, p, threads)))
    )
    return _frame(dataset, output, parts, options)


def read_dataset_table(dataset: DatasetMeta, options: ReadOptions) -> Any:
    """The dataset as one ``pyarrow.Table``."""
    import pyarrow as pa

    plans, output = _plans(dataset, options)
    parts = _each_file(
        dataset, plans, options, lambda p, threads: (p.index, _scan(dataset, p, _file_options(options, p, threads)))
    )
    columns, mask = _gather(dataset, output, parts)
    if output.fields:
        table = build_table(output, columns, dictionary_as_category=options.dictionary_as_category)
    else:
        table = pa.table({"_": pa.nulls(sum(sum(s.row_counts) for _, s in parts))}).drop_columns(["_"])
    return table.filter(pa.array(mask)) if mask is not None else table


def iter_dataset(dataset: DatasetMeta, options: ReadOptions) -> Iterator[pd.DataFrame]:
    """One DataFrame per stripe a filter keeps, file after file, each indexed from 0; memory bounded by a stripe."""
    plans, output = _plans(dataset, options)
    total = sum(len(m.stripes) for m in dataset.metas)
    bar = stripe_progress(total, f"{len(plans)} files") if options.progress else None
    workers = workers_for(options.use_threads, options.max_workers)
    try:
        for plan in plans:
            stripes = len(dataset.metas[plan.index].stripes)
            if plan.filters == SKIP:
                if bar is not None:
                    bar.advance(stripes)
                continue
            file_options = _file_options(options, plan, workers)
            with dataset.opened(plan.index) as meta:  # open once, however many stripes
                file_plan = plan_read(meta, file_options.columns, file_options.filters, file_options.encrypted)
                for stripe in range(stripes):
                    scanned = scan_stripes(meta, file_plan, [stripe], file_options)
                    if bar is not None:
                        bar.advance()
                    frame = _frame(dataset, output, [(plan.index, scanned)], options)
                    if plan.filters is None or len(frame):
                        yield frame
    finally:
        if bar is not None:
            bar.close()
