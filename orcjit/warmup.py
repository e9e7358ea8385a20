"""Compile, or load from the cache, every kernel a read can use: ``orcjit warmup`` and :func:`orcjit.warmup`.

Numba compiles a kernel the first time a read calls it with a new combination of argument types (a
*specialisation*) and caches the machine code on disk (:mod:`orcjit._jit` says where). The first read of a file in
a fresh installation therefore spends seconds compiling; warming up spends them ahead of time, once per
installation and cache directory (in a container image's build step, for example), so that later processes only
load.

Warmup does not call kernels with argument types of its own, which would drift from what the readers pass as the
readers change, and then warm nothing. It reads small ORC files through the public API, so it compiles exactly the
specialisations reads use: in full, through every dtype backend, as categories, by row range (which seeks), by
stripe, as Arrow, column by column, and filtered on every column with ``==``, ``in``, ``>`` and ``is null``
(statistics, row indexes, bloom filters, row filtering). The groups, each timed:

- the bundled files: ``orcjit/data/sample.orc`` (zstd), ``orcjit/data/warmup.orc`` (every ORC type, with and
  without nulls, dictionary and direct strings, char, varchar, unions; zstd) and ``orcjit/data/warmup-v11.orc``
  (RLE v1, zlib), the last two written by ``scripts/make_warmup_orc.py``;
- the same rewritten uncompressed and with LZO by :func:`recompress` (no Python library writes LZO);
- every kind of source: bytes, bytearray, memoryview, file object and path, since the source decides whether
  kernels see read-only or writable buffers (a specialisation each);
- with pyarrow installed, files it writes from a table of every type it knows: zstd, a copy with every value null,
  each of its other codecs (uncompressed in several stripes, zlib, snappy, lz4), and RLE v1 (file version 0.11).

Without pyarrow the last group is skipped, and so are reads that need it (``dtype_backend="pyarrow"``,
``read_arrow``): reads without pyarrow cannot use those either.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import io
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any, TextIO

import numpy as np

from ._proto import orc_proto_pb2 as pb
from .compression import decompress_stream
from .errors import OrcError
from .orcfile import ORCFile
from .read import read_orc
from .types.schema import TypeNode

__all__ = ["GroupResult", "WarmupSummary", "bundled_files", "kernel_cache_dirs", "recompress", "warmup"]

BUNDLED = ("data/sample.orc", "data/warmup-v11.orc", "data/warmup.orc")
ROWS = 3000
ROW_INDEX_STRIDE = 1000
# chunks of the LZO rewrite; ORC's default compression block size
LZO_BLOCK_SIZE = 256 * 1024
# a literal run that the first byte of an LZO1X block can state alone holds at most 255 - 17 bytes
_LZO_SHORT_RUN = 238
_LZO_END = b"\x11\x00\x00"
_NONE, _LZO = 0, 3
# ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8: the streams of a stripe's index section
_INDEX_KINDS = (6, 7, 8)


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
        Groups not run, each with the reason (pyarrow missing).
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


def _orcjit_dispatchers() -> list[Any]:
    """Every kernel of orcjit's modules imported so far."""
    from numba.core.dispatcher import Dispatcher

    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if name != "orcjit" and not name.startswith("orcjit."):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                found[id(value)] = value
    return list(found.values())


def _cache_hits() -> int:
    return sum(sum(d._cache_hits.values()) for d in _orcjit_dispatchers())


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
    for d in _orcjit_dispatchers():
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
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if module == "orcjit" or module.startswith("orcjit."):
            with self._lock:
                self.count += 1


@contextmanager
def _counting() -> Iterator[_CompileCounter]:
    from numba.core import event

    counter = _CompileCounter()
    listener = type("_Listener", (event.Listener,), {"on_start": counter.on_start, "on_end": counter.on_end})()
    with event.install_listener("numba:compile", listener):
        yield counter


# -- inputs ---------------------------------------------------------------------------------------------------------


def bundled_files() -> list[bytes]:
    """The bytes of the ORC files that ship with orcjit."""
    package = importlib.resources.files("orcjit")
    return [package.joinpath(name).read_bytes() for name in BUNDLED]


def _lzo_literal_block(data: bytes | memoryview) -> bytes:
    """``data`` as one LZO1X block of a single literal run: valid LZO that any decoder reads back.

    A run of up to 238 bytes is stated by its first byte (length + 17); a longer one by a zero byte and the length
    less 18 in the zero-run scheme (each further zero byte adds 255, a final non-zero byte adds itself). The block
    ends with the end-of-stream marker.
    """
    n = len(data)
    if n <= _LZO_SHORT_RUN:
        head = bytes([n + 17])
    else:
        rest = n - 18
        zeros, last = divmod(rest, 255)
        if last == 0:  # the final length byte must not be zero
            zeros, last = zeros - 1, 255
        head = b"\x00" + b"\x00" * zeros + bytes([last])
    return head + bytes(data) + _LZO_END


def _lzo_stream(data: bytes) -> bytes:
    """A stream as ORC stores it under LZO: chunks of at most LZO_BLOCK_SIZE bytes, each after its 3-byte header."""
    out = bytearray()
    for start in range(0, len(data), LZO_BLOCK_SIZE):
        block = _lzo_literal_block(memoryview(data)[start : start + LZO_BLOCK_SIZE])
        out += (len(block) << 1).to_bytes(3, "little")  # the low bit clear: a compressed chunk
        out += block
    return bytes(out)


def recompress(data: bytes, codec: int) -> bytes:
    """Rewrite an ORC file uncompressed (``codec`` 0) or with LZO (``codec`` 3).

    Every stream, stripe footer, the metadata and the footer are decompressed (whatever the file's codec) and
    stored again, as they are or as LZO chunks (literal runs only: valid LZO, not smaller). Row indexes and bloom
    filters are left out, since their positions count compressed bytes that no longer hold; the footer's row
    index stride becomes 0.

    Parameters
    ----------
    data : bytes
        A whole ORC file.
    codec : int
        The CompressionKind to write: 0 (NONE) or 3 (LZO).

    Returns
    -------
    bytes
        A whole ORC file with the same rows, schema and statistics.
    """
    if codec not in (_NONE, _LZO):
        raise ValueError(f"recompress writes NONE (0) or LZO (3), not compression kind {codec}")
    encode: Callable[[bytes], bytes] = _lzo_stream if codec == _LZO else bytes
    ps_len = data[-1]
    postscript = pb.PostScript.FromString(data[-1 - ps_len : -1])
    old_codec, block = postscript.compression, postscript.compressionBlockSize or LZO_BLOCK_SIZE
    footer_start = len(data) - 1 - ps_len - postscript.footerLength
    metadata_start = footer_start - postscript.metadataLength

    def plain(start: int, length: int, what: str) -> bytes:
        return bytes(decompress_stream(memoryview(data)[start : start + length], old_codec, block, what))

    footer = pb.Footer.FromString(plain(footer_start, postscript.footerLength, "footer"))
    metadata = plain(metadata_start, postscript.metadataLength, "metadata")
    out = bytearray(b"ORC")
    for stripe in footer.stripes:
        stripe_footer = pb.StripeFooter.FromString(
            plain(stripe.offset + stripe.indexLength + stripe.dataLength, stripe.footerLength, "stripe footer")
        )
        kept, pos = [], stripe.offset
        for s in stripe_footer.streams:
            if s.kind not in _INDEX_KINDS:
                kept.append((s, encode(plain(pos, s.length, "stream"))))
            pos += s.length
        del stripe_footer.streams[:]
        stripe.offset = len(out)
        for s, body in kept:
            stream = stripe_footer.streams.add()
            stream.CopyFrom(s)
            stream.length = len(body)
            out += body
        stripe.indexLength = 0
        stripe.dataLength = len(out) - stripe.offset
        body = encode(stripe_footer.SerializeToString())
        stripe.footerLength = len(body)
        out += body
    footer.contentLength = len(out)
    footer.rowIndexStride = 0
    metadata_body = encode(metadata)
    footer_body = encode(footer.SerializeToString())
    out += metadata_body + footer_body
    postscript.compression = codec
    postscript.compressionBlockSize = LZO_BLOCK_SIZE
    postscript.metadataLength = len(metadata_body)
    postscript.footerLength = len(footer_body)
    ps = postscript.SerializeToString()
    return bytes(out + ps + bytes([len(ps)]))


def _arrow_table(pa: Any) -> Any:
    """A deterministic table of every type pyarrow writes to ORC, each column once with nulls, once without."""
    rng = np.random.default_rng(20240607)
    n = ROWS
    words = np.array([f"word-{i}" for i in range(20)])
    # the value shapes pick RLE v2's sub-encodings: repeats, deltas, wide random values with outliers
    big = rng.integers(-(2**62), 2**62, n)
    big[::97] = 0
    ts = np.datetime64("2021-03-04T05:06:07", "ns") + rng.integers(0, 10**17, n).astype("timedelta64[ns]")
    unscaled = rng.integers(-(10**15), 10**15, n)
    columns = {
        "bool": pa.array(rng.random(n) < 0.3),
        "i8": pa.array(rng.integers(-128, 128, n).astype(np.int8)),
        "i16": pa.array(rng.integers(-(2**15), 2**15, n).astype(np.int16)),
        "i32": pa.array(np.repeat(rng.integers(-(2**31), 2**31, n // 10), 10).astype(np.int32)),
        "i64": pa.array(big),
        "seq": pa.array(np.arange(n, dtype=np.int64) * 3),
        "f32": pa.array(rng.normal(0, 1e3, n).astype(np.float32)),
        "f64": pa.array(rng.normal(0, 1e6, n)),
        "str": pa.array([f"s{v}" for v in rng.permutation(n)]),
        "dict": pa.array(words[rng.integers(0, len(words), n)]),
        "bin": pa.array([bytes(rng.integers(0, 256, i % 9, dtype=np.uint8)) for i in range(n)], pa.binary()),
        "dec": pa.array([Decimal(int(v) % 10**9).scaleb(-2) for v in unscaled], pa.decimal128(12, 2)),
        "dec38": pa.array([Decimal((int(v) << 40) + 7).scaleb(-6) for v in unscaled], pa.decimal128(38, 6)),
        "date": pa.array(rng.integers(-20000, 30000, n).astype(np.int32)).cast(pa.date32()),
        "ts": pa.array(ts, pa.timestamp("ns")),
        "ts_utc": pa.array(ts, pa.timestamp("ns", tz="UTC")),
        "list": pa.array([list(range(i % 4)) for i in range(n)], pa.list_(pa.int32())),
        "map": pa.array(
            [[(f"k{j}", float(j)) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.float64())
        ),
        "struct": pa.array(
            [{"a": i, "b": f"b{i % 5}"} for i in range(n)], pa.struct([("a", pa.int32()), ("b", pa.string())])
        ),
    }
    null = rng.random(n) < 0.15
    null[0] = False
    mask = pa.array(null)
    arrays, names = [], []
    for name, arr in columns.items():
        arrays += [arr, pa.compute.if_else(mask, pa.scalar(None, arr.type), arr)]
        names += [name, f"{name}_nulls"]
    return pa.table(arrays, names=names)


def _arrow_file(pa: Any, table: Any, compression: str, **options: Any) -> bytes:
    import pyarrow.orc

    sink = pa.BufferOutputStream()
    ncolumns = 1 + sum(_count_columns(f.type) for f in table.schema)
    options.setdefault("row_index_stride", ROW_INDEX_STRIDE)
    options.setdefault("dictionary_key_size_threshold", 0.5)  # "dict" columns as dictionaries, the others direct
    options.setdefault("bloom_filter_columns", list(range(1, ncolumns)))
    pyarrow.orc.write_table(table, sink, compression=compression, **options)
    return bytes(sink.getvalue().to_pybytes())


def _count_columns(typ: Any) -> int:
    """ORC columns an Arrow type takes: itself and its nested children."""
    import pyarrow as pa

    if pa.types.is_map(typ):
        return 1 + _count_columns(typ.key_type) + _count_columns(typ.item_type)
    if pa.types.is_list(typ):
        return 1 + _count_columns(typ.value_type)
    if pa.types.is_struct(typ):
        return 1 + sum(_count_columns(typ.field(i).type) for i in range(typ.num_fields))
    return 1


# -- reads ----------------------------------------------------------------------------------------------------------


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _filter_terms(node: TypeNode, stats: Any) -> list[list[Any]]:
    """Filters on one column that go through every pushdown stage: statistics, row indexes, bloom filters."""
    lo, hi = getattr(stats, "minimum", None), getattr(stats, "maximum", None)
    name = node.name
    terms: list[list[Any]] = [[(name, "is null")]]
    if lo is not None:
        terms.append([(name, "==", lo)])
        terms.append([(name, ">", lo)])
        terms.append([(name, "in", [lo, hi] if hi is not None else [lo])])
    return terms


def _read_all_ways(source: Any, *, thorough: bool) -> int:
    """Read ``source`` through the public API's paths; return the number of reads.

    ``thorough`` adds a read of each column alone and filters on every column (each read with that column only, so
    that it stays quick); without it, filters on the first column only.
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
            # every column of the file once (the rows kept, filtered), then this column alone
            columns = None if i == 0 else [str(node.name)]
            for terms in _filter_terms(node, orc.statistics[node.column_id]):
                attempt(partial(orc.read, columns=columns, filters=terms))
            attempt(partial(orc.explain, [(node.name, "is not null")]))
        if thorough:
            for node in fields:
                attempt(partial(read_orc, source, columns=[str(node.name)]))
    return reads


def _drain(frames: Iterable[Any]) -> None:
    for _ in frames:
        pass


def _sources(data: bytes, directory: str) -> Iterable[Callable[[], Any]]:
    """Functions making a fresh source of each kind over the same file, but bytes (the default elsewhere)."""
    path = os.path.join(directory, "warmup.orc")
    with open(path, "wb") as f:
        f.write(data)
    yield lambda: bytearray(data)
    yield lambda: memoryview(bytearray(data))
    yield lambda: io.BytesIO(data)
    yield lambda: path


@dataclass
class _Plan:
    groups: list[tuple[str, Callable[[], int]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _plan() -> _Plan:
    plan = _Plan()
    bundled = bundled_files()
    rewritten = [recompress(data, codec) for data in bundled for codec in (_NONE, _LZO)]

    def each(files: list[bytes], thorough: bool) -> Callable[[], int]:
        return lambda: sum(_read_all_ways(data, thorough=thorough) for data in files)

    def sources() -> int:
        reads = 0
        with tempfile.TemporaryDirectory(prefix="orcjit-warmup-") as directory:
            for data in (bundled[-1], rewritten[-2]):  # zstd and uncompressed
                reads += sum(_read_all_ways(make(), thorough=False) for make in _sources(data, directory))
        return reads

    plan.groups.append(("bundled files (zstd, zlib)", each(bundled, True)))
    plan.groups.append(("bundled files, uncompressed and LZO", each(rewritten, False)))
    plan.groups.append(("sources: bytearray, memoryview, file object, path", sources))
    if not _has_pyarrow():
        plan.skipped.append("files written by pyarrow: pyarrow is not installed")
        return plan
    import pyarrow as pa
    import pyarrow.compute

    table = _arrow_table(pa)
    nulls = pa.table([pa.nulls(ROWS, c.type) for c in table.columns], names=table.column_names)

    def written() -> int:
        reads = _read_all_ways(_arrow_file(pa, table, "zstd"), thorough=True)
        reads += _read_all_ways(_arrow_file(pa, nulls, "zstd"), thorough=False)
        # small stripes: the uncompressed file splits into several, so seeks meet stripe boundaries
        options: dict[str, dict[str, Any]] = {"uncompressed": {"stripe_size": 4096, "batch_size": 1000}}
        for codec in ("uncompressed", "zlib", "snappy", "lz4"):
            reads += _read_all_ways(_arrow_file(pa, table, codec, **options.get(codec, {})), thorough=False)
        return reads + _read_all_ways(_arrow_file(pa, table, "zlib", file_version="0.11"), thorough=False)

    plan.groups.append(("pyarrow-written: all types, all null, codecs, RLE v1", written))
    return plan


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
    plan = _plan()
    results: list[GroupResult] = []
    for name, run in plan.groups:
        hits = _cache_hits()
        t = time.perf_counter()
        with _counting() as counter:
            reads = run()
        result = GroupResult(name, time.perf_counter() - t, counter.count, _cache_hits() - hits, reads)
        results.append(result)
        say(
            f"  {name:<52} {result.seconds:7.2f} s  {result.compiled:4d} compiled  {result.loaded:4d} from cache"
            f"  ({reads} reads)"
        )
    for reason in plan.skipped:
        say(f"  skipped {reason}")
    # kernels of modules imported during the groups (lazily imported ones) join the list
    summary = WarmupSummary(
        tuple(results), tuple(plan.skipped), tuple(kernel_cache_dirs()), time.perf_counter() - started
    )
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
