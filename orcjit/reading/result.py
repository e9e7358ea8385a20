"""A scanned read as the user asked for it: a DataFrame (indexed by row number in the file, or from 0 after
filtering) or a ``pyarrow.Table``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..convert import build_frame, build_table, shapely_columns
from ..filemeta import FileMeta
from ..types.kinds import KINDS
from ..types.resolve import Selection
from .options import ReadOptions
from .plan import plan_read
from .scan import Scanned, scan_stripes

__all__ = ["file_rows", "read_frame", "read_table", "to_frame", "to_table"]


def to_frame(
    meta: FileMeta,
    got: Scanned,
    backend: str,
    dictionary_as_category: bool,
    *,
    file_row_index: bool = False,
    geometry: str = "wkb",
) -> pd.DataFrame:
    """The DataFrame of a scanned read: rows the filters keep, indexed from 0 as ``df[mask].reset_index(drop=True)``
    would, or by row number in the file (``file_row_index``); geometry and geography columns as WKB or, with
    ``geometry="shapely"``, shapely geometries (made from the rows kept only)."""
    output = got.output
    if output.fields:
        frame = build_frame(output, got.columns, backend, dictionary_as_category=dictionary_as_category)
    else:
        # no columns, but one row per row read, as pandas.read_orc gives
        frame = pd.DataFrame(index=pd.RangeIndex(sum(got.row_counts)), columns=pd.Index([], dtype=object))
    if file_row_index and got.row_counts:
        frame.index = file_rows(got.first_rows, got.row_counts)
    if got.filtered:
        frame = frame[got.mask()]
        if not file_row_index:
            frame = _as_in_full_read(meta, frame.reset_index(drop=True), output, backend)
    if geometry == "shapely" and output.fields:
        frame = shapely_columns(frame, output)
    return frame


def to_table(got: Scanned, dictionary_as_category: bool) -> Any:
    """The ``pyarrow.Table`` of a scanned read, filtered."""
    import pyarrow as pa

    if got.output.fields:
        table = build_table(got.output, got.columns, dictionary_as_category=dictionary_as_category)
    else:
        table = pa.table({"_": pa.nulls(sum(got.row_counts))}).drop_columns(["_"])  # rows, no columns
    return table.filter(pa.array(got.mask())) if got.filtered else table


def _as_in_full_read(meta: FileMeta, frame: pd.DataFrame, output: Selection, backend: str) -> pd.DataFrame:
    """Give pruned results the dtypes a full read has: with NumPy dtypes an integer or boolean column that holds
    nulls anywhere in the file is float or object, even when the stripes read have none."""
    if backend != "numpy":
        return frame
    typed = [(position, node) for position, node in enumerate(output.fields) if KINDS[node.kind].with_nulls]
    statistics = meta.column_statistics(node.column_id for _, node in typed)
    dtypes = frame.dtypes.tolist() if typed else []
    for position, node in typed:
        with_nulls = KINDS[node.kind].with_nulls
        stats = statistics[node.column_id]
        nullable = stats.has_null is True or (stats.count is not None and stats.count < meta.nrows)
        if nullable and dtypes[position] != np.dtype(with_nulls):
            frame.isetitem(position, frame.iloc[:, position].astype(with_nulls))
    return frame


def file_rows(first_rows: Sequence[int], counts: Sequence[int]) -> pd.Index:
    """The file row numbers of runs of rows: a RangeIndex when the runs follow each other (no array of the rows,
    whose count a hostile file declares), else the runs' numbers."""
    if all(first_rows[i] + counts[i] == first_rows[i + 1] for i in range(len(first_rows) - 1)):
        return pd.RangeIndex(first_rows[0], first_rows[-1] + counts[-1])
    return pd.Index(np.concatenate([np.arange(r, r + n) for r, n in zip(first_rows, counts, strict=True)]))


def read_frame(
    meta: FileMeta, options: ReadOptions, stripes: Sequence[int] | None = None, *, file_row_index: bool = False
) -> pd.DataFrame:
    """Read the file (or the stripes listed in ``stripes``) as ``options`` say, into a DataFrame."""
    plan = plan_read(meta, options.columns, options.filters, options.encrypted)
    indices = range(len(meta.stripes)) if stripes is None else stripes
    got = scan_stripes(meta, plan, indices, options)
    return to_frame(
        meta,
        got,
        options.backend,
        options.dictionary_as_category,
        file_row_index=file_row_index,
        geometry=options.geometry,
    )


def read_table(meta: FileMeta, options: ReadOptions, stripes: Sequence[int] | None = None) -> Any:
    """Read the file (or the stripes listed in ``stripes``) as ``options`` say, into a ``pyarrow.Table``."""
    plan = plan_read(meta, options.columns, options.filters, options.encrypted)
    indices = range(len(meta.stripes)) if stripes is None else stripes
    return to_table(scan_stripes(meta, plan, indices, options), options.dictionary_as_category)
