"""What the environment decides about conversions: whether pyarrow is there to use, and the pandas dtypes that
follow pandas' version and options. Each is asked here, once, by every converter."""

from __future__ import annotations

import functools
import os
import zoneinfo
from typing import Any

import pandas as pd

__all__ = ["arrow_available", "arrow_strings_dtype", "default_string_dtype", "nan_is_na", "utc_dtype"]


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


def arrow_strings_dtype(binary: bool, nullable: bool) -> Any:
    """The dtype pyarrow's ``to_pandas`` gives an Arrow ``large_binary`` (``binary``) or ``large_string`` column,
    with pandas' ``StringDtype`` for strings when ``nullable``. It follows pandas' version and string options: asked
    of pyarrow once for each state of those options (an empty conversion costs more than a lookup's frame)."""
    options = []
    # pandas 3 infers str whatever future.infer_string says (and warns when it is read): only pandas 2 asks it
    for name in ("mode.string_storage",) + (("future.infer_string",) if _PANDAS_MAJOR < 3 else ()):
        try:
            options.append(str(pd.get_option(name)))
        except (pd.errors.OptionError, KeyError):
            options.append("")
    return _arrow_strings_dtype(binary, nullable, tuple(options))


_PANDAS_MAJOR = int(pd.__version__.split(".", 1)[0])


@functools.cache
def _arrow_strings_dtype(binary: bool, nullable: bool, options: tuple[str, ...]) -> Any:
    import pyarrow as pa

    type_ = pa.large_binary() if binary else pa.large_string()
    mapper = {pa.large_string(): pd.StringDtype()}.get if nullable else None
    return pa.chunked_array([], type=type_).to_pandas(types_mapper=mapper).dtype


def utc_dtype() -> pd.DatetimeTZDtype:
    """The dtype of UTC instants: the one pyarrow's ``to_pandas`` gives ``timestamp[ns, tz=UTC]`` (its time zone
    object differs between versions), or a ``zoneinfo`` UTC without pyarrow."""
    return _arrow_utc_dtype() if arrow_available() else pd.DatetimeTZDtype("ns", zoneinfo.ZoneInfo("UTC"))


@functools.cache
def _arrow_utc_dtype() -> pd.DatetimeTZDtype:
    import pyarrow as pa

    dtype = pa.array([], pa.timestamp("ns", tz="UTC")).to_pandas().dtype
    return dtype if isinstance(dtype, pd.DatetimeTZDtype) else pd.DatetimeTZDtype("ns", "UTC")
