"""The single place where orcjit sets its Numba options.

Every kernel is compiled with ``cache=True`` (so a new process loads machine code from disk instead of compiling),
``nogil=True`` (so kernels can run in parallel threads) and ``no_cfunc_wrapper=True``: Numba otherwise compiles,
beside each kernel and the wrapper Python calls it through, a C-callable wrapper for first-class function values,
which orcjit never makes (leaving it out saves about a tenth of the compile time of a new environment's first
read). Kernels import :func:`jit` from here and never call ``numba.njit`` themselves.

Where the cache lives is decided once per kernel, when its module is imported:

1. ``NUMBA_CACHE_DIR``, if the user set it (Numba's own rule);
2. else orcjit's directory in the user's cache directory (:func:`user_cache_dir`: ``$XDG_CACHE_HOME/orcjit`` or
   ``~/.cache/orcjit`` on Linux, ``~/Library/Caches/orcjit`` on macOS, ``%LOCALAPPDATA%\\orcjit`` on Windows);
3. else a private ``orcjit-numba-<uid>`` directory in the system's temporary directory (a read-only container);
4. else no cache at all, with one warning.

Numba's default would cache in ``__pycache__`` beside the modules, that is inside an installed package. pip does
not know those files, so uninstalling leaves a folder of caches behind that later shadows an editable install
(``import orcjit`` found an empty namespace package): orcjit never writes into its own package. Under the chosen
directory Numba mirrors each module's absolute path, so two installs (two environments, an editable checkout and
a wheel) never share or overwrite each other's kernels.

Every kernel :func:`jit` creates is recorded, and :func:`registered_kernels` lists them: ``orcjit warmup`` counts
compilations and cache hits, and finds the cache directories, through it, whatever module a kernel lives in.

Numba's ``inline="always"`` was measured and left out: it doubled the cold compile time of the RLE v2 decoder
(7 s to 15 s) for no throughput gain once bit unpacking streamed through an accumulator; on the decimal helpers it
saved nothing either, where writing them out in their one caller saved a third. Measured again on the decoder of
one run loop, inlining its helpers still doubled it (4.6 s to 9.6 s of CPU): Numba's inlining pass alone took 4 s.

Loading from the cache skips one thing Numba does: before each load it "refreshes" its target context, which the
first time imports and registers every implementation Numba has (typed dicts and lists, random, linalg, unicode
...), about 0.4 s of a new process's first read, for machine code that uses none of them. A load needs only
Numba's runtime (NRT: allocation and reference counting) to be set up, so :class:`_LoadingCache` does that and
loads; a compilation still refreshes the context as always, so a process that loads some kernels and compiles
others works as before.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numba
from numba.core.caching import FunctionCache

F = TypeVar("F", bound=Callable[..., Any])

JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "no_cfunc_wrapper": True}

# numba.config.CACHE_DIR is process-wide: the fallback sets it only for the moment a kernel is created
_config_lock = threading.Lock()
_warned_uncached = False
# every kernel jit() made, in the order their modules were imported; list.append is atomic, so no lock
_kernels: list[Any] = []


def jit(fn: F) -> F:
    """Compile ``fn`` as an orcjit kernel with the project's options, and record it (:func:`registered_kernels`)."""
    kernel = _dispatcher(fn)
    cache = getattr(kernel, "_cache", None)
    if type(cache) is FunctionCache and _LoadingCache.usable(cache):
        cache.__class__ = _LoadingCache  # same state (the directory chosen above), a lighter load
    _kernels.append(kernel)
    return kernel


class _LoadingCache(FunctionCache):
    """Numba's cache of a kernel's compiled code, loading it without refreshing the whole target context first (see
    the module docstring): only Numba's runtime, which the loaded code calls, is initialised."""

    @staticmethod
    def usable(cache: Any) -> bool:
        """Whether this Numba's cache has the methods :meth:`load_overload` calls instead of its own."""
        return callable(getattr(cache, "_load_overload", None)) and callable(
            getattr(cache, "_guard_against_spurious_io_errors", None)
        )

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        from numba.core.runtime import rtsys

        rtsys.initialize(target_context)  # once per process; the rest of Numba's refresh waits for a compilation
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # pragma: no cover - the guard swallowed an error (Numba returns None there too)


def registered_kernels() -> list[Any]:
    """Every kernel made by :func:`jit` so far: Numba dispatchers of the modules imported until now.

    Returns
    -------
    list of numba.core.dispatcher.Dispatcher
        A new list, in the order the kernels were made; kernels of modules imported later are not in it.
    """
    return list(_kernels)


def _dispatcher(fn: F) -> F:
    config: Any = numba.config
    if config.CACHE_DIR:  # NUMBA_CACHE_DIR: the user's choice comes first
        try:
            return numba.njit(**JIT_OPTIONS)(fn)  # type: ignore[no-any-return]
        except RuntimeError:
            pass  # that directory cannot be written: fall back as below
    root = _cache_root()
    kernel = _jit_cached_in(fn, root) if root is not None else None
    return kernel if kernel is not None else _jit_uncached(fn)


@functools.cache
def _cache_root() -> str | None:
    return user_cache_dir() or fallback_cache_dir()


def user_cache_dir() -> str | None:
    """orcjit's directory in the user's cache directory, created if needed; ``None`` if it cannot be written."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "orcjit")
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    return path


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


def _jit_cached_in(fn: F, path: str) -> F | None:
    """``fn`` compiled with its cache under ``path``, or ``None`` if Numba cannot cache there."""
    with _config_lock:
        config: Any = numba.config
        saved = config.CACHE_DIR
        config.CACHE_DIR = path  # read by Numba's first cache locator while the kernel is created
        try:
            return numba.njit(**JIT_OPTIONS)(fn)  # type: ignore[no-any-return]
        except RuntimeError:
            return None
        finally:
            config.CACHE_DIR = saved


def _jit_uncached(fn: F) -> F:
    global _warned_uncached
    if not _warned_uncached:
        _warned_uncached = True
        warnings.warn(
            "orcjit: no writable directory for the Numba cache (not NUMBA_CACHE_DIR, not the user's cache "
            "directory, not the temporary directory); kernels are compiled again in every process. Set "
            "NUMBA_CACHE_DIR to a writable directory.",
            RuntimeWarning,
            stacklevel=4,  # past _jit_uncached, _dispatcher and jit: the line defining the kernel
        )
    options = {**JIT_OPTIONS, "cache": False}
    return numba.njit(**options)(fn)  # type: ignore[no-any-return]
