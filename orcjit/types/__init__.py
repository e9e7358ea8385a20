"""Types: the schema tree, the one table of kinds, and the one resolver of column names.

- :mod:`.schema`: :class:`TypeNode` and :func:`build_schema`, the file's type tree checked as a pre-order tree;
- :mod:`.kinds`: every ORC kind with its family, the NumPy array it decodes into and the pandas and Arrow dtypes
  each ``dtype_backend`` gives it; the kind families (``INTEGER_KINDS``, ``STRING_KINDS``, ...);
- :mod:`.resolve`: names, dotted paths and positions to schema nodes, with one rule for ambiguous names, and the
  column selections of a read.

This package sits low: it may import :mod:`orcjit.errors`, :mod:`orcjit.tail` (for the footer's text fields) and
:mod:`orcjit._proto` (for the names of the footer's enums), and NumPy; nothing of reading, pushdown or the API.
"""

from __future__ import annotations

from .kinds import (
    BINARY_KINDS,
    BYTES_KINDS,
    COMPOUND_KINDS,
    FILTERABLE_KINDS,
    FLOAT_KINDS,
    GEOSPATIAL_KINDS,
    INTEGER_KINDS,
    KINDS,
    STRING_KINDS,
    TIMESTAMP_KINDS,
    Kind,
)
from .resolve import ROOT_COLUMN_NAME, Selection, decode_selection, resolve_column, select_columns, top_level_fields
from .schema import TypeNode, build_schema

__all__ = [
    "BINARY_KINDS",
    "BYTES_KINDS",
    "COMPOUND_KINDS",
    "FILTERABLE_KINDS",
    "FLOAT_KINDS",
    "GEOSPATIAL_KINDS",
    "INTEGER_KINDS",
    "KINDS",
    "ROOT_COLUMN_NAME",
    "STRING_KINDS",
    "TIMESTAMP_KINDS",
    "Kind",
    "Selection",
    "TypeNode",
    "build_schema",
    "decode_selection",
    "resolve_column",
    "select_columns",
    "top_level_fields",
]
