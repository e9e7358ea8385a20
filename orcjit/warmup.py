"""Compile, or load from the cache, every kernel a read can use: ``orcjit warmup`` and :func:`orcjit.warmup`.

Numba compiles a kernel the first time a read calls it with a new combination of argument types (a
*specialisation*) and caches the machine code on disk (:mod:`orcjit._jit` says where). The first read of a file in
a fresh installation therefore spends seconds compiling; warming up spends them ahead of time, once per
installation and cache directory (in a container image's build step, for example), so that later processes only
load.

Warmup does not call kernels with argument types of its own, which would drift from what the readers pass as the
readers change, and then warm nothing. It reads small ORC files that ship with orcjit through the public API only,
so it compiles exactly the specialisations reads use: in full, through every dtype backend, as categories, by row
range (which seeks), by stripe, stripe by stripe, as Arrow, column by column, and filtered on every primitive
column with every filter op (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``, ``is null``, ``is not
null``), which runs statistics, row indexes, bloom filters and row filtering. The groups, each timed:

- the bundled files: ``orcjit/data/sample.orc`` (zstd), ``warmup.orc`` (every ORC type, with and without nulls,
  dictionary and direct strings, char, varchar, unions; zstd) and ``warmup-v11.orc`` (RLE v1, zlib);
- ``warmup.orc`` rewritten uncompressed and with LZO;
- every kind of source: bytes, bytearray, memoryview, file object and path, since the source decides whether
  kernels see read-only or writable buffers;
- files pyarrow wrote from a table of every type it knows, with wide values: zstd, a copy with every value null,
  each of its other codecs (uncompressed in several stripes, zlib, snappy, lz4), and RLE v1 (file version 0.11).

``scripts/make_warmup_orc.py`` writes the ``warmup*.orc`` files when orcjit is built; warmup only reads them, so it
needs neither pyorc nor pyarrow. Without pyarrow, the reads that need it (``dtype_backend="pyarrow"``,
``read_arrow``) are skipped: reads without pyarrow cannot use those either.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import io
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

from ._jit import registered_kernels
from .errors import OrcError
from .orcfile import ORCFile
from .read import read_orc
from .types.schema import TypeNode

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["GroupResult", "WarmupSummary", "kernel_cache_dirs", "warmup"]


@dataclass(frozen=True)
class _Group:
    """Files of ``orcjit/data`` read together and timed as one group.

    ``thorough`` names those of ``files`` also read column by column and filtered on every primitive column (the
    others on their first only); with ``sources``, each file is read from every kind of source but bytes.
    """

    name: str
    files: tuple[str, ...]
    thorough: tuple[str, ...] = ()
    sources: bool = False


GROUPS = (
    _Group(
        "bundled files (zstd, zlib)",
        ("sample.orc", "warmup.orc", "warmup-v11.orc"),
        thorough=("warmup.orc", "warmup-v11.orc"),
    ),
    _Group("bundled files, uncompressed and LZO", ("warmup-none.orc", "warmup-lzo.orc")),
    _Group("sources: bytearray, memoryview, file object, path", ("warmup.orc", "warmup-none.orc"), sources=True),
    _Group(
        "pyarrow-written: all types, all null, codecs, RLE v1",
        (
            "warmup-arrow.orc",
            "warmup-arrow-nulls.orc",
            "warmup-arrow-none.orc",
            "warmup-arrow-zlib.orc",
            "warmup-arrow-snappy.orc",
            "warmup-arrow-lz4.orc",
            "warmup-arrow-v11.orc",
        ),
        thorough=("warmup-arrow.orc",),
    ),
)
# literals to compare with for kinds whose statistics hold no minimum and maximum
_LITERALS: dict[str, tuple[Any, Any]] = {"boolean": (False, True), "binary": (b"", b"\x01")}
_NO_PYARROW = 'reads that need pyarrow (dtype_backend="pyarrow", read_arrow): pyarrow is not installed'


@dataclass(frozen=True)
class GroupResult:
    """What warming one group of inputs took.

    Attributes
    ----------
    name : str
    seconds : float
    compiled : int
        Kernel specialisations Numba compiled (each also written to the cache).
    loaded : int
        Kernel specialisations loaded from the cache.
    reads : int
        Reads through the public API.
    """

    name: str
    seconds: float
    compiled: int
    loaded: int
    reads: int


@dataclass(frozen=True)
class WarmupSummary:
    """The result of :func:`warmup`.

    Attributes
    ----------
    groups : tuple of GroupResult
        One per group of inputs, in the order run.
    skipped : tuple of str
        What was not warmed, each with the reason: without pyarrow, the reads that need it.
    cache_dirs : tuple of str
        The directories orcjit's kernels are cached in; empty when caching is off.
    seconds : float
        Wall time of the whole warmup.
    """

    groups: tuple[GroupResult, ...]
    skipped: tuple[str, ...]
    cache_dirs: tuple[str, ...]
    seconds: float

    @property
    def compiled(self) -> int:
        """Kernel specialisations compiled, over all groups."""
        return sum(g.compiled for g in self.groups)

    @property
    def loaded(self) -> int:
        """Kernel specialisations loaded from the cache, over all groups."""
        return sum(g.loaded for g in self.groups)

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-ready values."""
        return {
            "seconds": self.seconds,
            "compiled": self.compiled,
            "loaded": self.loaded,
            "cache_dirs": list(self.cache_dirs),
            "groups": [vars(g).copy() for g in self.groups],
            "skipped": list(self.skipped),
        }


# -- counting what Numba does ---------------------------------------------------------------------------------------


def _cache_hits() -> int:
    return sum(sum(d._cache_hits.values()) for d in registered_kernels())


def kernel_cache_dirs() -> list[str]:
    """The directories Numba caches orcjit's kernels in, as chosen when their modules were imported.

    Returns
    -------
    list of str
        Sorted and distinct; one per package directory of kernels, under ``NUMBA_CACHE_DIR``, the user's cache
        directory or the private temporary one (:mod:`orcjit._jit`). Empty when caching is off, for example
        under ``NUMBA_DISABLE_JIT=1``.
    """
    dirs = set()
    for d in registered_kernels():
        path = getattr(getattr(d, "_cache", None), "_cache_path", None)  # Numba's NullCache has none
        if path:
            dirs.add(str(path))
    return sorted(dirs)


class _CompileCounter:
    """Counts Numba compilations of orcjit's kernels while installed (from any thread)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def on_start(self, event: Any) -> None:
        pass

    def on_end(self, event: Any) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        # looked up now: kernels of modules imported during the read are registered as they are imported
        if any(dispatcher is kernel for kernel in registered_kernels()):
            with self._lock:
                self.count += 1


@contextmanager
def _counting() -> Iterator[_CompileCounter]:
    from numba.core import event

    counter = _CompileCounter()
    listener = type("_Listener", (event.Listener,), {"on_start": counter.on_start, "on_end": counter.on_end})()
    with event.install_listener("numba:compile", listener):
        yield counter


# -- reads ----------------------------------------------------------------------------------------------------------


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _filters(orc: ORCFile, node: TypeNode) -> list[list[Any]]:
    """One filter of each op on ``node``, with literals inside its range, so that each goes through every pushdown
    stage (statistics, row indexes, bloom filters) and keeps rows to filter; the first (``!=`` the minimum) keeps
    most rows, not all."""
    name = node.name
    terms: list[list[Any]] = []
    stats = orc.statistics[node.column_id]
    lo, hi = getattr(stats, "minimum", None), getattr(stats, "maximum", None)
    if lo is None or hi is None:
        lo, hi = _LITERALS.get(node.kind, (None, None))
    if lo is not None:
        terms += [[(name, op, lo)] for op in ("!=", "==", "<=", ">")]
        terms += [[(name, op, hi)] for op in ("<", ">=")]
        terms += [[(name, op, [lo, hi])] for op in ("in", "not in")]
    return [*terms, [(name, "is null")], [(name, "is not null")]]


def _read_all_ways(source: Any, *, thorough: bool) -> int:
    """Read ``source`` through the public API's paths; return the number of reads.

    ``thorough`` adds a read of each column alone and filters on every primitive column (each read with that
    column only, so that it stays quick); without it, filters on the first primitive column only.
    """
    arrow = _has_pyarrow()
    reads = 0

    def attempt(fn: Callable[[], Any]) -> None:
        nonlocal reads
        # a filter orcjit refuses for a type, say: it reads nothing, so it would compile nothing
        with contextlib.suppress(OrcError):
            fn()
        reads += 1

    for backend in [None, "numpy_nullable"] + (["pyarrow"] if arrow else []):
        attempt(partial(read_orc, source, dtype_backend=backend))
    attempt(partial(read_orc, source, dictionary_as_category=True))
    with ORCFile(source) as orc:
        fields = [f for f in orc.schema.children if f.name is not None]
        n = orc.nrows
        attempt(partial(orc.read_rows, n // 2 + 1, n - 3))
        attempt(partial(orc.read_rows, n // 3, n // 3 + 5, dtype_backend="numpy_nullable"))
        attempt(partial(orc.read_stripe, orc.nstripes - 1))
        attempt(partial(_drain, orc.iter_stripes()))
        if arrow:
            attempt(orc.read_arrow)
        primitive = [f for f in fields if not f.is_compound]
        for i, node in enumerate(primitive if thorough else primitive[:1]):
            for j, terms in enumerate(_filters(orc, node)):
                # the first filter on the first column with every column read (rows dropped across them),
                # the others with that column alone
                attempt(partial(orc.read, columns=None if i == j == 0 else [str(node.name)], filters=terms))
            attempt(partial(orc.explain, [(node.name, "is not null")]))
        if thorough:
            for node in fields:
                attempt(partial(read_orc, source, columns=[str(node.name)]))
    return reads


def _drain(frames: Iterator[Any]) -> None:
    for _ in frames:
        pass


def _read_sources(resource: Traversable) -> int:
    """Read a bundled file from every kind of source but bytes (the default elsewhere)."""
    data = resource.read_bytes()
    reads = 0
    for source in (bytearray(data), memoryview(bytearray(data)), io.BytesIO(data)):
        reads += _read_all_ways(source, thorough=False)
    with importlib.resources.as_file(resource) as path:  # a temporary copy if the package is zipped
        reads += _read_all_ways(str(path), thorough=False)
    return reads


def _read_group(group: _Group) -> int:
    data = importlib.resources.files("orcjit").joinpath("data")
    if group.sources:
        return sum(_read_sources(data.joinpath(name)) for name in group.files)
    return sum(_read_all_ways(data.joinpath(n).read_bytes(), thorough=n in group.thorough) for n in group.files)


# -- the entry point ------------------------------------------------------------------------------------------------


def warmup(*, out: TextIO | None = None, quiet: bool = False) -> WarmupSummary:
    """Compile, or load from the Numba cache, every kernel specialisation a read can use.

    Run it once after installing orcjit (or in a container's build step) so that no later process compiles:
    the first read of a new process then only loads machine code from the cache. A second run only loads. See
    the module documentation for what is read.

    Parameters
    ----------
    out : text stream, optional
        Where the progress lines go: one line per group as it finishes (time, kernels compiled, kernels
        loaded), then the total and the cache directories. ``sys.stdout`` when ``None``.
    quiet : bool
        Print nothing.

    Returns
    -------
    WarmupSummary
        Per-group timings and counts, what was skipped, and the cache directories.
    """
    stream = sys.stdout if out is None else out

    def say(line: str) -> None:
        if not quiet:
            stream.write(line + "\n")
            stream.flush()

    started = time.perf_counter()
    skipped = () if _has_pyarrow() else (_NO_PYARROW,)
    results: list[GroupResult] = []
    for group in GROUPS:
        hits = _cache_hits()
        t = time.perf_counter()
        with _counting() as counter:
            reads = _read_group(group)
        result = GroupResult(group.name, time.perf_counter() - t, counter.count, _cache_hits() - hits, reads)
        results.append(result)
        say(
            f"  {group.name:<52} {result.seconds:7.2f} s  {result.compiled:4d} compiled  {result.loaded:4d} from cache"
            f"  ({reads} reads)"
        )
    for reason in skipped:
        say(f"  skipped {reason}")
    # kernels of modules imported during the groups (lazily imported ones) are registered by now
    summary = WarmupSummary(tuple(results), skipped, tuple(kernel_cache_dirs()), time.perf_counter() - started)
    say(
        f"warmup done in {summary.seconds:.1f} s: {summary.compiled} kernel specialisations compiled, "
        f"{summary.loaded} loaded from the cache"
    )
    if summary.cache_dirs:
        for i, d in enumerate(summary.cache_dirs):
            say(("Numba cache: " if i == 0 else "             ") + d)
    else:
        say("Numba cache: none (caching is off, so kernels are compiled in every process)")
    return summary
