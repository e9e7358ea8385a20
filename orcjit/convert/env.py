"""What the environment decides about conversions: whether pyarrow is there to use, and the pandas dtypes that
follow pandas' version and options. Each is asked here, once, by every converter."""

from __future__ import annotations

import functools
import os
import warnings
import zoneinfo
from typing import Any

import pandas as pd

__all__ = ["arrow_available", "arrow_string_dtype", "default_string_dtype", "nan_is_na", "utc_dtype"]


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
    return _default_string_dtype(_string_options())


@functools.cache
def _default_string_dtype(options: tuple[Any, ...]) -> Any:
    dtype = pd.Series(["x"]).dtype
    return dtype if isinstance(dtype, pd.StringDtype) else None


def arrow_string_dtype(binary: bool, nullable: bool) -> Any:
    """The dtype ``to_pandas`` gives an Arrow ``large_string`` (``large_binary``) column: pandas' Arrow-backed
    ``str``, object, or ``StringDtype()`` when ``nullable`` (``dtype_backend="numpy_nullable"``)."""
    return _arrow_string_dtype(binary, nullable, _string_options())


@functools.cache
def _arrow_string_dtype(binary: bool, nullable: bool, options: tuple[Any, ...]) -> Any:
    import pyarrow as pa

    type_ = pa.large_binary() if binary else pa.large_string()
    mapper = {pa.large_string(): pd.StringDtype()}.get if nullable else None
    return pa.chunked_array([], type=type_).to_pandas(types_mapper=mapper).dtype


# the pandas options string dtypes follow: asking pandas for a dtype costs more than converting a small column,
# so the answers are kept per value of these options
_STRING_OPTIONS = ("future.infer_string", "mode.string_storage")
_STRING_OPTION_KEYS = tuple(tuple(key.split(".")) for key in _STRING_OPTIONS)


def _string_options() -> tuple[Any, ...]:
    try:  # pandas' own store of option values: reading it neither costs a lookup by pattern nor warns
        store = pd._config.config._global_config
        return tuple([store[section][name] for section, name in _STRING_OPTION_KEYS])
    except (AttributeError, KeyError, TypeError):  # pragma: no cover - a pandas that keeps them elsewhere
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecates future.infer_string
            return tuple(_option(key) for key in _STRING_OPTIONS)


def _option(key: str) -> Any:  # pragma: no cover - see _string_options
    try:
        return pd.get_option(key)
    except (pd.errors.OptionError, KeyError):
        return None


def utc_dtype() -> pd.DatetimeTZDtype:
    """The dtype of UTC instants: the one pyarrow's ``to_pandas`` gives ``timestamp[ns, tz=UTC]`` (its time zone
    object differs between versions), or a ``zoneinfo`` UTC without pyarrow."""
    return _arrow_utc_dtype() if arrow_available() else pd.DatetimeTZDtype("ns", zoneinfo.ZoneInfo("UTC"))


@functools.cache
def _arrow_utc_dtype() -> pd.DatetimeTZDtype:
    import pyarrow as pa

    dtype = pa.array([], pa.timestamp("ns", tz="UTC")).to_pandas().dtype
    return dtype if isinstance(dtype, pd.DatetimeTZDtype) else pd.DatetimeTZDtype("ns", "UTC")
