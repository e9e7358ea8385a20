"""orcjit: a fast, correct Apache ORC reader for Python, with Numba kernels and pandas output."""

from __future__ import annotations

from .errors import OrcError
from .indexes import BloomFilterIndex, RowIndex, StreamPosition
from .orcdataset import ORCDataset
from .orcfile import ORCFile
from .read import read_orc
from .sources import ByteSource
from .statistics import ColumnStatistics
from .types.schema import TypeNode
from .warmup import warmup

__version__ = "0.1.0"

__all__ = [
    "BloomFilterIndex",
    "ByteSource",
    "ColumnStatistics",
    "ORCDataset",
    "ORCFile",
    "OrcError",
    "RowIndex",
    "StreamPosition",
    "TypeNode",
    "__version__",
    "read_orc",
    "warmup",
]
