"""A dataset read as one DataFrame, one ``pyarrow.Table`` or DataFrames stripe by stripe: files in sorted path
order, then rows, indexed from 0.

Files are read side by side on a thread pool (each file's own stripes and columns on the threads left over), each
with orcjit's scan of one file (:mod:`orcjit.reading`), so that pruning and decoding are the same for a file of a
dataset as for a file read alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pandas as pd

from ..convert.frame import convert_column
from ..progress import StripeProgress, stripe_progress
from ..pushdown.filters import normalize_filters
from ..reading.options import ReadOptions, workers_for
from ..reading.result import read_frame, read_table
from ..types.resolve import select_columns
from .columns import null_vector
from .files import DatasetMeta
from .scan import SKIP, FilePlan, adapt_frame, plan_files, resolve_nodes

__all__ = ["iter_dataset", "read_dataset", "read_dataset_table"]

T = TypeVar("T")


def _plans(dataset: DatasetMeta, options: ReadOptions) -> tuple[list[FilePlan], Any]:
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


def read_dataset(dataset: DatasetMeta, options: ReadOptions) -> pd.DataFrame:
    """The dataset as one DataFrame, as ``options`` say (see :func:`orcjit.read_orc`)."""
    plans, output = _plans(dataset, options)
    backend = options.backend

    def read(plan: FilePlan, threads: int) -> pd.DataFrame:
        with dataset.opened(plan.index) as meta:
            frame = read_frame(meta, _file_options(options, plan, threads))
        return adapt_frame(dataset, plan.index, frame, output.fields, output.names, backend)

    frames = _each_file(dataset, plans, options, read)
    if not frames:
        frames = [_empty(output.fields, output.names, backend)]
    if len(frames) == 1:
        return frames[0].reset_index(drop=True)
    return pd.concat(frames, ignore_index=True)


def _empty(fields: Sequence[Any], names: Sequence[str], backend: str) -> pd.DataFrame:
    arrays = {i: convert_column(node, [null_vector(node, 0)], backend) for i, node in enumerate(fields)}
    frame = pd.DataFrame(arrays, index=pd.RangeIndex(0), copy=False)
    frame.columns = pd.Index(list(names))
    return frame


def read_dataset_table(dataset: DatasetMeta, options: ReadOptions) -> Any:
    """The dataset as one ``pyarrow.Table``."""
    import pyarrow as pa

    plans, output = _plans(dataset, options)
    arrow_options = dataclasses.replace(options, dtype_backend="pyarrow")

    def read(plan: FilePlan, threads: int) -> Any:
        with dataset.opened(plan.index) as meta:
            table = read_table(meta, _file_options(options, plan, threads))
        frame = pd.DataFrame({name: pd.arrays.ArrowExtensionArray(table.column(name)) for name in table.column_names})
        frame = adapt_frame(dataset, plan.index, frame, output.fields, output.names, "pyarrow")
        return (
            pa.table({name: frame[name].array.__arrow_array__() for name in output.names})
            if output.names
            else (pa.table({"_": pa.nulls(len(frame))}).drop_columns(["_"]))
        )

    tables = _each_file(dataset, plans, arrow_options, read)
    if not tables:
        frame = _empty(output.fields, output.names, "pyarrow")
        return pa.table({name: frame[name].array.__arrow_array__() for name in output.names})
    return pa.concat_tables(tables)


def iter_dataset(dataset: DatasetMeta, options: ReadOptions) -> Iterator[pd.DataFrame]:
    """One DataFrame per stripe a filter keeps, file after file, each indexed from 0; memory bounded by a stripe."""
    plans, output = _plans(dataset, options)
    bar = (
        stripe_progress(sum(len(m.stripes) for m in dataset.metas), f"{len(plans)} files") if options.progress else None
    )
    try:
        for plan in plans:
            stripes = len(dataset.metas[plan.index].stripes)
            if plan.filters == SKIP:
                if bar is not None:
                    bar.advance(stripes)
                continue
            file_options = _file_options(options, plan, workers_for(options.use_threads, options.max_workers))
            with dataset.opened(plan.index) as meta:
                for stripe in range(stripes):
                    frame = read_frame(meta, file_options, [stripe])
                    if bar is not None:
                        bar.advance()
                    if plan.filters is None or len(frame):
                        frame = adapt_frame(dataset, plan.index, frame, output.fields, output.names, options.backend)
                        yield frame.reset_index(drop=True)
    finally:
        if bar is not None:
            bar.close()
