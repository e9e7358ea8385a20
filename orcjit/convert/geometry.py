"""Geometry and geography columns as shapely geometries (``geometry="shapely"``).

Their values are WKB bytes whichever backend reads them; this turns the top-level ones of a DataFrame into shapely
geometries with one vectorised ``shapely.from_wkb`` per column (GEOS parses the whole array in C). Geometries inside
lists, maps and structs stay WKB. A GeoPandas ``GeoDataFrame`` is then one call away, with the CRS the column's
type states (see docs/guides/types.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import OrcError
from ..types.kinds import GEOSPATIAL_KINDS
from ..types.resolve import Selection

__all__ = ["shapely_columns"]


def shapely_columns(frame: pd.DataFrame, selection: Selection) -> pd.DataFrame:
    """``frame`` (the columns of ``selection``, in order) with each top-level geometry and geography column as
    an object column of shapely geometries, ``None`` for nulls.

    Raises
    ------
    OrcError
        If a value is not WKB that GEOS can parse, naming the column and the row (the frame's index label).
    """
    positions = [i for i, node in enumerate(selection.fields) if node.kind in GEOSPATIAL_KINDS]
    if not positions:
        return frame
    import shapely

    for position in positions:
        node = selection.fields[position]
        column = frame.iloc[:, position]
        wkb = column.to_numpy(dtype=object, na_value=None)
        # parsed leniently, so that a bad value is found and named here rather than by GEOS's bare message
        shapes = shapely.from_wkb(wkb, on_invalid="ignore")
        bad = np.flatnonzero(pd.notna(wkb) & pd.isna(shapes))
        if len(bad):
            label = frame.index[bad[0]]
            raise OrcError(f"column {node.path!r}: the value in row {label} is not valid WKB")
        frame.isetitem(position, pd.Series(shapes, index=frame.index, dtype=object, name=column.name))
    return frame
