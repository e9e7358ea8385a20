"""Conversion: decoded column vectors to pandas and Arrow, one converter per kind for every backend.

- :mod:`.values`: the converters by kind (:mod:`.numbers`, :mod:`.temporal`, :mod:`.decimals`,
  :mod:`.strings`, and the nested kinds), for the ``numpy`` and ``numpy_nullable`` backends and for values
  inside nested columns; :mod:`.chunks` what they share;
- :mod:`.arrow`: vectors as Arrow arrays over their own buffers (``read_arrow``, ``dtype_backend="pyarrow"``);
- :mod:`.frame`: a read's columns as a DataFrame;
- :mod:`.geometry`: geometry and geography columns as shapely geometries (``geometry="shapely"``);
- :mod:`.env`: what pandas' version and options and the presence of pyarrow decide.

It may import :mod:`orcjit.types`, :mod:`orcjit.kernels` and :mod:`orcjit.decode.vector` (the vectors it
converts), pandas, NumPy and (where installed) pyarrow and shapely; nothing of the scan, pushdown or the API.
"""

from __future__ import annotations

from .arrow import arrow_type, build_table, to_arrow
from .decimals import decimal_objects
from .frame import build_frame, convert_column
from .geometry import shapely_columns

__all__ = [
    "arrow_type",
    "build_frame",
    "build_table",
    "convert_column",
    "decimal_objects",
    "shapely_columns",
    "to_arrow",
]
