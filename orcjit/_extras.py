"""Optional parts of orcjit and the extras that install them: ``orcjit[spark]``, ``orcjit[parquet]``,
``orcjit[geo]``, ``orcjit[brotli]``.

A part that needs an optional package calls :func:`require` before importing it, so that a missing package is
reported as an :class:`ImportError` naming the extra to install (and the CLI prints it as one line), not as a bare
``ModuleNotFoundError`` from deep inside an import.
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRAS", "MissingExtraError", "require"]

# the modules each extra provides to orcjit's code (pyproject.toml's [project.optional-dependencies] installs them)
EXTRAS: dict[str, tuple[str, ...]] = {
    "parquet": ("pyarrow", "pyarrow.parquet"),  # pyarrow.parquet is absent from some builds (conda's pyarrow-core)
    "spark": ("pyspark", "pyarrow"),
    "geo": ("shapely",),
    "brotli": ("brotli",),  # the decoder of BROTLI-compressed files (orcjit.compression.codecs says why this one)
}


class MissingExtraError(ImportError):
    """An optional package a part of orcjit needs is not installed; the message names the extra to install."""


def require(extra: str, feature: str) -> None:
    """Import the modules of ``extra``, or raise :class:`MissingExtraError` naming those missing.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    feature : str
        What needs them, as the message should name it (``"orcjit.spark"``).

    Raises
    ------
    MissingExtraError
        If a module of the extra cannot be imported: ``orcjit.spark needs pyspark, which is not installed:
        pip install "orcjit[spark]"``.
    """
    missing: list[str] = []
    for module in EXTRAS[extra]:
        if module.split(".")[0] in missing:
            continue  # pyarrow.parquet when pyarrow itself is missing
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    if missing:
        names = " and ".join(missing)
        verb = "is" if len(missing) == 1 else "are"
        raise MissingExtraError(
            f'{feature} needs {names}, which {verb} not installed: pip install "orcjit[{extra}]"', name=missing[0]
        )
