"""What the environment decides about conversions: whether pyarrow is there to use, and the pandas dtypes that
follow pandas' version and options. Each is asked here, once, by every converter."""

from __future__ import annotations

import functools
import os
import zoneinfo
from typing import Any

import pandas as pd

__all__ = ["arrow_available", "default_string_dtype", "nan_is_na", "utc_dtype"]


def arrow_available() -> bool:
    """Whether the converters may use pyarrow: it is installed, and ``ORCJIT_NO_PYARROW=1`` does not ask them to
    convert as they do without it (which the tests use to run that code with pyarrow at hand)."""
    return os.environ.get("ORCJIT_NO_PYARROW") != "1" and _pyarrow_installed()


@functools.cache
def _pyarrow_installed() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def nan_is_na() -> bool:
    """Whether pandas takes NaN for NA in nullable floats (pandas 3's default): its conversion from Arrow then
    masks NaN values too."""
    try:
        return not pd.get_option("future.distinguish_nan_and_na")
    except (pd.errors.OptionError, KeyError):  # pandas 2 keeps NaN a value
        return False


def default_string_dtype() -> Any:
    """pandas' default dtype for strings (``str``, on Arrow or Python storage), or ``None`` where that is object
    (pandas 2 without ``future.infer_string``)."""
    dtype = pd.Series(["x"]).dtype
    return dtype if isinstance(dtype, pd.StringDtype) else None


def utc_dtype() -> pd.DatetimeTZDtype:
    """The dtype of UTC instants: the one pyarrow's ``to_pandas`` gives ``timestamp[ns, tz=UTC]`` (its time zone
    object differs between versions), or a ``zoneinfo`` UTC without pyarrow."""
    return _arrow_utc_dtype() if arrow_available() else pd.DatetimeTZDtype("ns", zoneinfo.ZoneInfo("UTC"))


@functools.cache
def _arrow_utc_dtype() -> pd.DatetimeTZDtype:
    import pyarrow as pa

    dtype = pa.array([], pa.timestamp("ns", tz="UTC")).to_pandas().dtype
    return dtype if isinstance(dtype, pd.DatetimeTZDtype) else pd.DatetimeTZDtype("ns", "UTC")
