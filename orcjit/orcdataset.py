"""``ORCDataset``: a directory of ORC files (Spark's and Hive's output, partitioned or not), a glob, or a list of
files, read as one table with pruning across files."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from .dataset.explain import DatasetExplanation, explain_dataset
from .dataset.files import DatasetMeta, open_dataset
from .dataset.read import iter_dataset, read_dataset, read_dataset_table
from .errors import OrcError
from .reading.options import ReadOptions
from .statistics import ColumnStatistics
from .types.resolve import resolve_column
from .types.schema import TypeNode

__all__ = ["ORCDataset"]


class ORCDataset:
    """The ORC files under a directory, matching a glob, or listed, as one table.

    Parameters
    ----------
    path : str, os.PathLike, or list of them
        A directory (its files found recursively), a glob (``"out/*/part-*"``), a file, or a list of these;
        local, ``file:`` URLs, or URLs fsspec knows (``s3://bucket/table/``), all on one filesystem. Files and
        folders whose names start with ``_`` or ``.`` (``_SUCCESS``, ``.crc`` files, ``_temporary``) are skipped
        below a directory or glob, as Spark and pyarrow skip them; empty files are skipped with a note
        (:attr:`notes`); any other file must be ORC. Files are read in sorted path order.
    filesystem : fsspec filesystem, optional
        The filesystem ``path`` is on.
    partitioning : {"hive", None}, default "hive"
        ``"hive"``: ``key=value`` folders between the directory (or a glob's fixed part) and each file become
        columns after the files' columns, typed as Spark infers them (int, bigint, decimal, double, timestamp,
        date, else string; ``__HIVE_DEFAULT_PARTITION__`` is null; values URL-unescaped). A column both stored in
        the files and in the folders is taken from the folders, as Spark does. ``None``: folders are not read.
    partition_schema : dict of str to str, optional
        ORC types for partition columns (``{"year": "int", "day": "date"}``), instead of inferring them.
    schema : str or TypeNode, optional
        The dataset's columns and types (``"struct<id:bigint,name:string>"``, or another file's ``schema``),
        instead of the files' own: files' columns must read as it says without loss; columns it lacks are left
        out and columns no file has are nulls. By default columns are matched by name across files (Hive's
        ``_col0``, ``_col1``, ... by position), a column missing from a file reads as nulls there, and types may
        differ only by lossless widening (integers to wider integers, float to double, char and varchar to string):
        anything else is an :class:`OrcError` naming two files and the column.
    pattern : str, optional
        Only files whose names match this ``fnmatch`` pattern (Spark's ``pathGlobFilter``), such as ``"*.orc"``.

    Raises
    ------
    FileNotFoundError
        If a path does not exist, or no file is found.
    OrcError
        If a file is not ORC or its tail is corrupt (naming the file), the files' schemas or partition folders do
        not agree, or an argument is wrong.

    Examples
    --------
    >>> ds = orcjit.ORCDataset("warehouse/events/")            # doctest: +SKIP
    >>> ds.read(filters=[("year", "==", 2024), ("user", "==", "ada")])  # doctest: +SKIP
    """

    def __init__(
        self,
        path: Any,
        *,
        filesystem: Any = None,
        partitioning: str | None = "hive",
        partition_schema: Mapping[str, str] | None = None,
        schema: str | TypeNode | None = None,
        pattern: str | None = None,
    ) -> None:
        self.meta: DatasetMeta = open_dataset(
            path,
            filesystem,
            partitioning=partitioning,
            schema=schema,
            partition_schema=partition_schema,
            pattern=pattern,
        )

    # -- what the dataset holds ------------------------------------------------------------------------------------

    @property
    def files(self) -> list[str]:
        """The dataset's files, in the order they are read (sorted by path)."""
        return self.meta.paths

    @property
    def notes(self) -> list[str]:
        """What discovery left out and why (empty files)."""
        return list(self.meta.discovered.notes)

    @property
    def schema(self) -> TypeNode:
        """The dataset's columns: the files' columns, then the partition columns."""
        return self.meta.schema

    @property
    def columns(self) -> list[str]:
        """The names of the dataset's columns, as a read's DataFrame has them."""
        return [c.name or "" for c in self.meta.schema.children]

    @property
    def partition_columns(self) -> list[str]:
        """The names of the partition columns, in folder order."""
        return self.meta.partition_names

    @property
    def partitions(self) -> pd.DataFrame:
        """One row per file: its path and its partition values (Python objects; None for a null partition)."""
        frame = pd.DataFrame(
            [dict(self.meta.partition_values(i)) for i in range(len(self.files))],
            columns=pd.Index(self.partition_columns, dtype=object),
            dtype=object,
        )
        frame.insert(0, "path", self.files)
        return frame

    @property
    def nrows(self) -> int:
        """Rows over all files."""
        return sum(m.nrows for m in self.meta.metas)

    def __len__(self) -> int:
        return self.nrows

    def statistics(self, column: str | int) -> pd.DataFrame:
        """File-level statistics of ``column`` in each file: ``path``, ``rows``, ``count`` (values that are not
        null), ``has_null``, ``min`` and ``max`` (None where the file records none or lacks the column); a
        partition column gives its value as both bounds.

        Raises
        ------
        OrcError
            If ``column`` names no column of the dataset (or a nested field), or is ambiguous.
        """
        node = resolve_column(self.meta.schema, column)
        if node.parent is not self.meta.schema:
            raise OrcError(f"statistics are per top-level column; {node.path!r} is nested")
        name = node.name or ""
        rows = []
        for i, meta in enumerate(self.meta.metas):
            row: dict[str, Any] = {"path": self.files[i], "rows": meta.nrows}
            if name in self.partition_columns:
                value = self.meta.partition_values(i)[name]
                row |= {"count": meta.nrows if value is not None else 0, "has_null": value is None}
                row |= {"min": value, "max": value}
            else:
                own = self.meta.columns[i].fields.get(name)
                stats: ColumnStatistics | None = meta.statistics[own.column_id] if own is not None else None
                if stats is None:
                    row |= {"count": 0, "has_null": meta.nrows > 0, "min": None, "max": None}
                else:
                    row |= {"count": stats.count, "has_null": stats.has_null, "min": stats.minimum}
                    row |= {"max": stats.maximum}
            rows.append(row)
        frame = pd.DataFrame(rows, columns=pd.Index(["path", "rows", "count", "has_null", "min", "max"]))
        # the bounds as the files hold them: a column of ints and Nones must not become floats (2**53 + 1)
        for bound in ("min", "max"):
            frame[bound] = pd.Series([row[bound] for row in rows], dtype=object)
        return frame

    # -- reads -----------------------------------------------------------------------------------------------------

    def read(
        self,
        columns: Sequence[str | int] | None = None,
        *,
        filters: Any = None,
        dtype_backend: str | None = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        progress: bool = False,
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> pd.DataFrame:
        """Read the dataset into one DataFrame: files in sorted path order, then rows, indexed from 0.

        Arguments are those of :func:`orcjit.read_orc`; ``columns`` and ``filters`` may name partition columns.
        Files the partition values rule out are not opened; in the rest, stripes and row groups are skipped by
        statistics and bloom filters, and rows filtered exactly. ``progress=True`` shows one bar over the stripes
        of every file. Files are read side by side on the thread pool.
        """
        options = ReadOptions(
            columns,
            filters,
            dtype_backend,
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            progress,
            hive11_decimals=hive11_decimals,
            geometry=geometry,
        )
        return read_dataset(self.meta, options)

    def read_arrow(
        self,
        columns: Sequence[str | int] | None = None,
        *,
        filters: Any = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        hive11_decimals: str = "orc_cpp",
    ) -> Any:
        """Read the dataset into one ``pyarrow.Table`` (needs pyarrow); arguments as in :meth:`read`."""
        options = ReadOptions(
            columns,
            filters,
            "pyarrow",
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            hive11_decimals=hive11_decimals,
        )
        return read_dataset_table(self.meta, options)

    def iter_batches(
        self,
        columns: Sequence[str | int] | None = None,
        *,
        filters: Any = None,
        dtype_backend: str | None = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        progress: bool = False,
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> Iterator[pd.DataFrame]:
        """Yield one DataFrame per stripe that holds matching rows, file after file, each indexed from 0: memory is
        bounded by one stripe. Arguments as in :meth:`read`."""
        options = ReadOptions(
            columns,
            filters,
            dtype_backend,
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            progress,
            hive11_decimals=hive11_decimals,
            geometry=geometry,
        )
        return iter_dataset(self.meta, options)

    iter_stripes = iter_batches

    def explain(self, filters: Any, columns: Sequence[str | int] | None = None) -> DatasetExplanation:
        """What a read with ``filters`` would skip and why: files skipped by partition values (without opening
        them) or missing columns, then in each file opened, stripes and row groups skipped by statistics and bloom
        filters; and the bytes the read would fetch for ``columns``. ``str()`` of it is a readable report,
        ``to_dict()`` a JSON-friendly one with each file's details."""
        return explain_dataset(self.meta, filters, columns)

    def __repr__(self) -> str:
        parts = f" partitions={self.partition_columns}" if self.partition_columns else ""
        return f"<orcjit.ORCDataset files={len(self.files)} rows={self.nrows}{parts} schema={self.schema}>"
