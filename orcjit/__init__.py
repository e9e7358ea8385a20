"""orcjit: a fast, correct Apache ORC reader for Python, with Numba kernels and pandas output."""

from __future__ import annotations

from .errors import OrcError
from .orcfile import ORCFile
from .read import read_orc
from .schema import TypeNode
from .sources import ByteSource
from .statistics import ColumnStatistics
from .warmup import warmup

__version__ = "0.1.0"

__all__ = ["ByteSource", "ColumnStatistics", "ORCFile", "OrcError", "TypeNode", "__version__", "read_orc", "warmup"]
