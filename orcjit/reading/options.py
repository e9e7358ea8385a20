"""``ReadOptions``: the arguments every read takes, checked once.

``read_orc`` and each of ``ORCFile``'s reads take the same keywords (pandas' and pyarrow's names); they build one
:class:`ReadOptions`, which checks every argument before anything is read, and the scan takes that.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._extras import require
from ..encryption import check_encrypted_mode
from ..errors import OrcError
from ..progress import check_progress
from ..types.kinds import BACKENDS, Hive11Decimals, hive11_decimals

__all__ = ["GEOMETRY_FORMS", "ReadOptions", "check_backend", "check_geometry", "workers_for"]

# what geometry and geography columns become: their WKB bytes, or shapely geometries made from them
GEOMETRY_FORMS = ("wkb", "shapely")


@dataclass(frozen=True)
class ReadOptions:
    """What to read and how; see :func:`orcjit.read_orc` for each argument.

    Raises
    ------
    OrcError
        If an argument is wrong (see :func:`check_backend`, :func:`workers_for`, :func:`check_geometry`,
        :func:`~orcjit.types.kinds.hive11_decimals`, ``encrypted`` not one of its values, ``progress`` not a bool
        or tqdm missing).
    ImportError
        If ``dtype_backend="pyarrow"`` and pyarrow is not installed, or ``geometry="shapely"`` and shapely is not.
    """

    columns: Sequence[str | int] | None = None
    filters: Any = None
    dtype_backend: str | None = None
    dictionary_as_category: bool = False
    use_threads: bool = True
    max_workers: int | None = None
    encrypted: str = "raise"
    progress: bool = False
    hive11_decimals: str = "orc_cpp"
    geometry: str = "wkb"

    def __post_init__(self) -> None:
        check_backend(self.dtype_backend)
        workers_for(self.use_threads, self.max_workers)
        check_encrypted_mode(self.encrypted)
        check_progress(self.progress)
        hive11_decimals(self.hive11_decimals)
        check_geometry(self.geometry, self.dtype_backend)

    @property
    def hive11(self) -> Hive11Decimals:
        """How decimals of Hive 0.11 files are given (:class:`~orcjit.types.kinds.Hive11Decimals`)."""
        return hive11_decimals(self.hive11_decimals)

    @property
    def backend(self) -> str:
        """``"numpy"`` (pandas' default, ``dtype_backend=None``), ``"numpy_nullable"`` or ``"pyarrow"``."""
        return self.dtype_backend or "numpy"

    @property
    def workers(self) -> int:
        """Threads the read may use."""
        return workers_for(self.use_threads, self.max_workers)


def check_backend(dtype_backend: str | None) -> str:
    """Validate ``dtype_backend`` as pandas does; ``None`` means pandas' default (numpy).

    Raises
    ------
    OrcError
        If it is none of pandas' backends.
    ImportError
        If it is ``"pyarrow"`` and pyarrow is not installed.
    """
    if dtype_backend is None:
        return "numpy"
    if dtype_backend not in BACKENDS[1:]:
        raise OrcError(f"dtype_backend {dtype_backend!r} is invalid, only 'numpy_nullable' and 'pyarrow' are allowed.")
    if dtype_backend == "pyarrow":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise ImportError("dtype_backend='pyarrow' needs pyarrow: pip install pyarrow") from exc
    return dtype_backend


def check_geometry(geometry: str, dtype_backend: str | None) -> str:
    """Validate ``geometry``: ``"wkb"`` (geometry and geography columns as WKB bytes) or ``"shapely"``.

    Raises
    ------
    OrcError
        If it is neither, or it is ``"shapely"`` with ``dtype_backend="pyarrow"``: an Arrow-backed column holds
        Arrow values, not Python objects (read with another backend, or keep the WKB: ``shapely.from_wkb`` takes
        the column's values).
    ImportError
        If it is ``"shapely"`` and shapely is not installed (``orcjit[geo]``).
    """
    if geometry not in GEOMETRY_FORMS:
        raise OrcError(f"geometry must be one of {', '.join(map(repr, GEOMETRY_FORMS))}, got {geometry!r}")
    if geometry == "shapely":
        if dtype_backend == "pyarrow":
            raise OrcError(
                "geometry='shapely' needs a NumPy backend: shapely geometries are Python objects, which "
                "dtype_backend='pyarrow' (Arrow values only) cannot hold; its geometry columns are WKB binary"
            )
        require("geo", "geometry='shapely'")
    return geometry


def workers_for(use_threads: bool, max_workers: int | None) -> int:
    """How many threads a read uses: ``max_workers``, else one per CPU this process may run on.

    Raises
    ------
    OrcError
        If ``use_threads`` is not a bool or ``max_workers`` not a positive int.
    """
    positive = isinstance(max_workers, int) and not isinstance(max_workers, bool) and max_workers >= 1
    if max_workers is not None and not positive:
        raise OrcError(f"max_workers must be a positive int, got {max_workers!r}")
    if not isinstance(use_threads, bool):
        raise OrcError(f"use_threads must be True or False, got {use_threads!r}")
    if not use_threads:
        return 1
    if max_workers is not None:
        return max_workers
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
