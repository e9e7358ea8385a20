"""Parquet files' split-block bloom filters, probed from Python.

pyarrow writes bloom filters into Parquet files (``bloom_filter_options``), and Spark does with
``parquet.bloom.filter.enabled#column``, but neither lets Python ask them anything. :mod:`orcjit.parquet` reads a
file's footer with its own Thrift compact-protocol decoder, finds each column chunk's bloom filter, and tests values
against it with the split-block kernels of :mod:`orcjit.kernels.split_block`.

Layout: :mod:`.thrift` (the compact protocol), :mod:`.metadata` (the footer), :mod:`.bloom` (the filters and value
hashing), :mod:`.read` (``read_parquet`` and ``plan_row_groups``). It may import the kernels, :mod:`orcjit.types`
(column names), :mod:`orcjit.pushdown` (the filter semantics and three-valued verdicts ORC reads share) and pyarrow;
nothing of ORC reading.
"""

from __future__ import annotations

from .._extras import require

require("parquet", "orcjit.parquet")

from .bloom import SplitBlockBloomFilter, bloom_filter, hash_value, might_contain  # noqa: E402
from .errors import ParquetError  # noqa: E402
from .metadata import ColumnChunk, LeafColumn, LogicalType, ParquetMetadata, RowGroup, read_metadata  # noqa: E402
from .read import RowGroupPlan, plan_row_groups, read_parquet  # noqa: E402

__all__ = [
    "ColumnChunk",
    "LeafColumn",
    "LogicalType",
    "ParquetError",
    "ParquetMetadata",
    "RowGroup",
    "RowGroupPlan",
    "SplitBlockBloomFilter",
    "bloom_filter",
    "hash_value",
    "might_contain",
    "plan_row_groups",
    "read_metadata",
    "read_parquet",
]
