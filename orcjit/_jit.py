"""The single place where orcjit sets its Numba options.

Every kernel is compiled with ``cache=True`` (so a new process loads machine code from disk instead of compiling)
and ``nogil=True`` (so kernels can run in parallel threads). Kernels import :func:`jit` from here and never call
``numba.njit`` themselves.

Where the cache lives is Numba's choice, made once per kernel when its module is imported: ``NUMBA_CACHE_DIR`` if
set, else ``__pycache__`` beside the module if that directory is writable, else the user's cache directory
(``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``). So a read-only site-packages already caches per user
(``tests/test_jit_cache.py`` proves it). When none of those is writable (a container with a read-only file system
and no home), Numba refuses to create a caching kernel at all, and ``import orcjit`` would fail; :func:`jit` then
caches in a private directory under the system's temporary directory instead, and if even that is impossible it
compiles without a cache (and warns once).

Numba's ``inline="always"`` was measured and left out: it doubled the cold compile time of the RLE v2 decoder
(7 s to 15 s) for no throughput gain once bit unpacking streamed through an accumulator.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True}

# numba.config.CACHE_DIR is process-wide: the fallback sets it only for the moment a kernel is created
_config_lock = threading.Lock()
_warned_uncached = False


def jit(fn: F) -> F:
    """Compile ``fn`` as an orcjit kernel with the project's options."""
    try:
        return numba.njit(**JIT_OPTIONS)(fn)  # type: ignore[no-any-return]
    except RuntimeError:
        # Numba found no writable cache directory for fn's module ("cannot cache function ...: no locator")
        return _jit_without_user_cache(fn)


def fallback_cache_dir() -> str | None:
    """A private directory for kernel caches when Numba finds no writable one, or ``None`` if there is none.

    The directory is ``orcjit-numba-<user>`` in the system's temporary directory, created with mode 0700. Cache
    files are pickles that Numba loads and runs, so a directory that another user owns or may write to (or a
    symbolic link in its place) is refused, not used.
    """
    uid = os.getuid() if hasattr(os, "getuid") else None
    user = str(uid) if uid is not None else os.environ.get("USERNAME", "user")
    path = os.path.join(tempfile.gettempdir(), f"orcjit-numba-{user}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            return None
        if uid is not None and (st.st_uid != uid or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    return path


def _jit_without_user_cache(fn: F) -> F:
    global _warned_uncached
    path = fallback_cache_dir()
    if path is not None:
        with _config_lock:
            config: Any = numba.config
            saved = config.CACHE_DIR
            config.CACHE_DIR = path  # read by Numba's first cache locator while the kernel is created
            try:
                return numba.njit(**JIT_OPTIONS)(fn)  # type: ignore[no-any-return]
            except RuntimeError:
                pass
            finally:
                config.CACHE_DIR = saved
    if not _warned_uncached:
        _warned_uncached = True
        warnings.warn(
            "orcjit: no writable directory for the Numba cache (not beside the package, not in the user's cache "
            "directory, not in the temporary directory); kernels are compiled again in every process. Set "
            "NUMBA_CACHE_DIR to a writable directory.",
            RuntimeWarning,
            stacklevel=3,
        )
    options = {**JIT_OPTIONS, "cache": False}
    return numba.njit(**options)(fn)  # type: ignore[no-any-return]
