"""Booleans, integers and floats: the NumPy array, or pandas' masked array, of a column.

Values are handed over as they are: a lone writable array becomes the result itself (nulls written into it in
place), several are concatenated once. Nulls become what Arrow's ``to_pandas`` makes of them: NaN in a float64
copy of an integer column, ``None`` in an object copy of a boolean one, NaN in a float column; with
``numpy_nullable`` a mask beside the values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..decode.vector import ColumnVector
from ..kernels.convert import fill_nulls, set_nulls, table_indices
from ..types.kinds import KINDS
from ..types.schema import TypeNode
from .chunks import check, nulls_mask, read_only, table_take, valid_of, values_of
from .env import nan_is_na

__all__ = ["boolean", "floating", "integer"]


def boolean(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    values = values_of(chunks, np.bool_)
    valid = valid_of(chunks)
    if target == "numpy_nullable":
        return pd.arrays.BooleanArray(values, nulls_mask(valid, len(values)))
    if valid is None:
        return values
    # object True / False / None, as Arrow converts booleans with nulls
    indices = np.empty(len(values), dtype=np.intp)
    check(table_indices(read_only(values.view(np.uint8)), read_only(valid), 0, indices))
    return table_take([False, True], indices)


def integer(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    values = values_of(chunks, KINDS[node.kind].dtype)
    valid = valid_of(chunks)
    if target == "numpy_nullable":
        return pd.arrays.IntegerArray(values, nulls_mask(valid, len(values)))
    if valid is None:
        return values
    out = np.empty(len(values), dtype=np.float64)
    check(fill_nulls(read_only(values), read_only(valid), np.nan, out))
    return out


def floating(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    values = values_of(chunks, KINDS[node.kind].dtype)
    valid = valid_of(chunks)
    if target == "numpy_nullable":
        mask = nulls_mask(valid, len(values))
        if nan_is_na():
            mask |= np.isnan(values)
        return pd.arrays.FloatingArray(values, mask)
    if valid is not None:
        check(set_nulls(values, read_only(valid), values.dtype.type(np.nan)))
    return values
