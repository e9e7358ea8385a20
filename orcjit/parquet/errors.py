"""The error of :mod:`orcjit.parquet`."""

from __future__ import annotations

from ..errors import OrcError

__all__ = ["ParquetError"]


class ParquetError(OrcError):
    """A Parquet file (or an argument about one) that orcjit cannot use: a corrupt footer, bloom filter header or
    offset, an unknown column, a value that does not fit a column's type.

    A subclass of :class:`orcjit.OrcError` (and so of ``ValueError``): code catching orcjit's errors catches it too.
    """
