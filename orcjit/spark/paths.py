"""Which files a Spark read takes, and the partition columns their folders give: paths, directories and globs,
local or through fsspec, found by the dataset layer's discovery (:func:`orcjit.dataset.discovery.discover`) as
``spark.read.orc`` finds them.

Below a directory or glob, files and folders whose names start with ``_`` or ``.`` are hidden (``_SUCCESS``,
``.part-0.crc``, ``_temporary/``) and empty files are left out; every other file is taken, whatever its name
(Hive names its files ``000000_0``), unless a ``pathGlobFilter``-like pattern is given. Hive-style ``key=value``
folders become partition columns typed as Spark infers them (:mod:`orcjit.dataset.partitioning`).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import pyarrow as pa
from pyspark.sql.types import StructField, StructType

from ..dataset.discovery import discover
from ..dataset.partitioning import PartitionColumn, infer_partitioning, partition_segments
from ..types.parse import parse_type
from ..types.resolve import top_level_fields
from ..types.schema import TypeNode, struct_of
from .types import arrow_type, spark_field

__all__ = [
    "DEFAULT_GLOB",
    "FoundFiles",
    "carried_array",
    "find_files",
    "partition_array",
    "partition_fields",
    "resolve_paths",
    "with_partitions",
]

# No name pattern by default: spark.read.orc takes every file that is not hidden (Hive's 000000_0 included).
# Kept for code that imported it; orcjit 0.x took "*.orc" here.
DEFAULT_GLOB: str | None = None


@dataclass(frozen=True)
class FoundFiles:
    """The files of a read and their partitions.

    Attributes
    ----------
    paths : list of str
        The files, sorted by path (URLs for remote files).
    partitions : list of PartitionColumn
        The partition columns, in folder order (empty when no file sits under ``key=value`` folders).
    values : list of tuple
        Each file's partition values (``None`` for ``__HIVE_DEFAULT_PARTITION__``), in the order of ``partitions``.
    notes : list of str
        What discovery left out and why (empty files).
    """

    paths: list[str]
    partitions: list[PartitionColumn]
    values: list[tuple[Any, ...]]
    notes: list[str]

    def values_by_path(self) -> dict[str, tuple[Any, ...]]:
        """Each file's partition values, by its path."""
        return dict(zip(self.paths, self.values, strict=True))


def _items(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def find_files(paths: Any, pattern: str | None = None, *, partitioning: bool = True) -> FoundFiles:
    """The files under ``paths`` and the partition columns of their ``key=value`` folders.

    Parameters
    ----------
    paths : str, path-like, or sequence of them
        Files, directories (listed recursively) or glob patterns; local paths, ``file:`` URLs or URLs fsspec knows.
    pattern : str, optional
        Take only files whose names match (``fnmatch``, as Spark's ``pathGlobFilter``) from directories and globs.
    partitioning : bool
        Whether ``key=value`` folders become partition columns (as Spark reads them).

    Raises
    ------
    FileNotFoundError
        If a path does not exist, a glob matches nothing, or no file is found at all.
    orcjit.OrcError
        If the files sit under different partition keys (Spark refuses them too).
    """
    found = discover(_items(paths), pattern=pattern)
    urls = [found.url(f.path) for f in found.files]
    if partitioning:
        columns, values = infer_partitioning([partition_segments(f.folders) for f in found.files], urls)
    else:
        columns, values = [], [() for _ in urls]
    return FoundFiles(urls, list(columns), list(values), list(found.notes))


def resolve_paths(paths: Sequence[str] | str, pattern: str | None = DEFAULT_GLOB) -> list[str]:
    """The files to read for ``paths``: files as given, directories listed recursively, globs expanded.

    Parameters
    ----------
    paths : str or sequence of str
        Files, directories or glob patterns; local paths, ``file:`` URLs or URLs fsspec knows.
    pattern : str, optional
        Names of the files taken from directories and globs (``fnmatch``, Spark's ``pathGlobFilter``); by default
        every file, as ``spark.read.orc`` takes them. Names starting with ``_`` or ``.`` are skipped, and so are
        such directories, and empty files.

    Returns
    -------
    list of str
        Each file once, sorted by path.

    Raises
    ------
    FileNotFoundError
        If a path does not exist, a glob matches nothing, or no file is found at all.
    """
    return find_files(paths, pattern, partitioning=False).paths


def with_partitions(schema: TypeNode, partitions: Sequence[PartitionColumn]) -> TypeNode:
    """A file's schema as the read's: its top-level columns, less those the folders give (the folders' value wins,
    as in Spark), then the partition columns in their ORC types."""
    taken = {p.name for p in partitions}
    data = [(name, node) for name, node in top_level_fields(schema) if name not in taken]
    return struct_of(data + [(p.name, parse_type(p.type_string())) for p in partitions])


def partition_fields(partitions: Sequence[PartitionColumn]) -> StructType:
    """The partition columns as ``spark.read.orc`` types them: their ORC types through the ORC-to-Spark mapping."""
    return StructType([spark_field(parse_type(p.type_string()), p.name) for p in partitions])


def partition_array(field: StructField, value: Any, rows: int, time_zone: str) -> pa.Array:
    """``rows`` copies of one partition value as Spark's Arrow type of ``field``.

    A partition timestamp names a wall clock (``2024-01-02 03:04:05``), which Spark reads in the session time
    zone: it is read here in ``time_zone`` (the reader's zone, which is the session's unless set apart).
    """
    target = arrow_type(field.dataType)
    if value is None:
        return pa.nulls(rows, target)
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(time_zone))
    return pa.repeat(pa.scalar(value, target), rows)


def _plain(value: Any) -> Any:
    """A value from a pandas row as a plain Python value (``None`` for nulls, NaN included)."""
    if value is None or (not isinstance(value, (list, dict, tuple)) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value.item() if hasattr(value, "item") else value


def carried_array(field: StructField | None, value: Any, rows: int, zone: str) -> pa.Array:
    """``rows`` copies of a partition value a ``mapInPandas`` input row carried (see
    :func:`orcjit.spark.helpers.read_files`): of the declared field's Arrow type (Spark hands a partition ``int``
    that held nulls back as a float, and a timestamp as the session's wall clock), else of the value's own type."""
    value = _plain(value)
    if field is None:
        return pa.nulls(rows) if value is None else pa.repeat(pa.scalar(value), rows)
    if isinstance(value, float) and value.is_integer() and pa.types.is_integer(arrow_type(field.dataType)):
        value = int(value)
    return partition_array(field, value, rows, zone)
