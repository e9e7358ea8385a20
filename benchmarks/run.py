"""The speed benchmark: orcjit against pyarrow, pandas.read_orc and pyorc, whole files and single columns.

Run from the repository root::

    python benchmarks/run.py                       # 10M rows, 5 codecs; writes the "Speed" section of
                                                   # benchmarks/RESULTS.md and benchmarks/speed.png
    python benchmarks/run.py --rows 200000 --codecs zstd --no-write

It generates the standard dataset once (``benchmarks/dataset.py``: 10 columns of the common types, one file per
codec and writer, in the gitignored ``benchmarks/data/``): written by pyarrow (ORC C++, with dictionary strings)
in every codec asked for, and by Spark (ORC Java's defaults) in the codecs of ``--spark-codecs``. Then it
measures in one run:

- every reader on the whole file and on each column alone, per writer and codec (median of ``--repeats`` after a
  warm-up, in this process, with the file in the page cache; slow readers get fewer runs, marked in the tables);
- the numeric columns against decompressing their streams alone on one thread (``benchmarks/decompress.py``);
- each column of a file of ``--one-stripe-rows`` rows in a single stripe, per writer (``onestripe``);
- a file of ``--small-rows`` rows, the unit of work of a per-file read in Spark's ``mapInPandas`` (``small``);
- peak memory of each reader in a fresh process (``benchmarks/memory.py``);
- the first call of a new process, with an empty and a warm Numba cache (``benchmarks/firstcall.py``);

and checks each target of issues 7 and 21 against the measured ratios (``benchmarks/speed_report.py``).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
import pyarrow.orc as po  # noqa: E402

import orcjit  # noqa: E402
from benchmarks import dataset, decompress, firstcall, memory, speed_report  # noqa: E402

PARTS = ("whole", "columns", "numeric", "onestripe", "small", "memory", "firstcall")
# the readers timed on the one-stripe and the small files: pyorc's per-row tuples would only measure Python
QUICK_READERS = ("orcjit", "orcjit_arrow", "read_table", "to_pandas", "pandas")
# pyorc builds a Python tuple per row: even a sample takes seconds, and its time varies little from run to run
PYORC_REPEATS = 3
# orcjit.read_orc takes use_threads once the parallel reader lands; until then there is one orcjit row
HAS_THREADS = "use_threads" in inspect.signature(orcjit.read_orc).parameters


@dataclass
class Timing:
    """A median in milliseconds, over ``runs`` runs; ``sample_rows`` when it was scaled up from a sample."""

    ms: float
    runs: int
    sample_rows: int | None = None


@dataclass
class Reader:
    """One way of reading: ``read(path, columns)``; ``per_column`` False times it on whole files only."""

    key: str
    label: str
    read: Callable[[str, list[str] | None], Any]
    per_column: bool = True


def _pyorc_reader(sample_rows: int) -> Callable[[str, list[str] | None], Any]:
    import pyorc

    def read(path: str, columns: list[str] | None) -> Any:
        with open(path, "rb") as fh:
            return pyorc.Reader(fh, column_names=columns).read(sample_rows)

    return read


def readers(sample_rows: int) -> list[Reader]:
    """Every reader the benchmark knows, in table order; ``sample_rows`` is pyorc's sample."""
    out = [Reader("orcjit", "orcjit", lambda p, c: orcjit.read_orc(p, columns=c))]
    if HAS_THREADS:
        out.append(
            Reader(
                "orcjit_1t",
                "orcjit, use_threads=False",
                lambda p, c: orcjit.read_orc(p, columns=c, use_threads=False),  # type: ignore[call-arg]
                per_column=False,
            )
        )
    out += [
        Reader("orcjit_arrow", "orcjit, dtype_backend='pyarrow'", lambda p, c: orcjit.read_orc(p, c, "pyarrow")),
        Reader("read_table", "pyarrow.orc.read_table", lambda p, c: po.read_table(p, columns=c)),
        Reader("to_pandas", "read_table + to_pandas", lambda p, c: po.read_table(p, columns=c).to_pandas()),
        Reader("pandas", "pandas.read_orc", lambda p, c: pd.read_orc(p, columns=c)),
        Reader("pyorc", f"pyorc (first {sample_rows:,} rows, scaled)", _pyorc_reader(sample_rows)),
    ]
    return out


def measure(fn: Callable[[], object], repeats: int, budget: float) -> Timing:
    """Median of ``repeats`` calls after a warm-up, or of fewer when the warm-up says they would overrun ``budget``.

    The warm-up compiles or loads what a first call needs and shows how long a call takes; a reader taking
    seconds per call gets ``budget // seconds`` runs (at least one), so a 10M-row run stays affordable.
    """
    t = time.perf_counter()
    fn()
    warm = time.perf_counter() - t
    runs = repeats if warm * repeats <= budget else max(1, min(repeats, int(budget // warm)))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return Timing(1000 * statistics.median(times), runs)


def time_reader(reader: Reader, path: str, columns: list[str] | None, args: argparse.Namespace) -> Timing:
    repeats = min(args.repeats, PYORC_REPEATS) if reader.key == "pyorc" else args.repeats
    timing = measure(lambda: reader.read(path, columns), repeats, args.budget)
    if reader.key == "pyorc":
        sample = min(args.pyorc_rows, args.rows)
        timing = Timing(timing.ms * args.rows / sample, timing.runs, sample)
    return timing


def _show(codec: str, what: str, key: str, timing: Timing) -> None:
    runs = f"{timing.runs} run{'s' if timing.runs != 1 else ''}"
    print(f"{codec:6s} {what:14s} {key:12s} {timing.ms:10.1f} ms  ({runs})", flush=True)


def bench_codec(codec: str, path: Path, chosen: list[Reader], args: argparse.Namespace) -> dict[str, Any]:
    """Every timing of one codec's file."""
    out: dict[str, Any] = {"file_bytes": path.stat().st_size, "stripes": orcjit.ORCFile(path).nstripes}
    p = str(path)
    if "whole" in args.only:
        out["whole"] = {}
        for reader in chosen:
            out["whole"][reader.key] = timing = time_reader(reader, p, None, args)
            _show(codec, "whole file", reader.key, timing)
        # the decimal column costs CPython's Decimal objects in every reader: the file without it, as issue 21 asks
        out["whole_no_decimal"] = {}
        no_decimal = [c for c in dataset.COLUMNS if dataset.TYPES[c] != "decimal(38,6)"]
        for reader in chosen:
            if reader.key in ("orcjit", "pandas"):
                out["whole_no_decimal"][reader.key] = timing = time_reader(reader, p, no_decimal, args)
                _show(codec, "no decimal", reader.key, timing)
    if "columns" in args.only:
        out["columns"] = bench_columns(codec, p, chosen, args)
    if "numeric" in args.only:
        out["numeric"] = bench_numeric(codec, p, chosen, args, out.get("whole", {}))
    return out


def bench_columns(codec: str, path: str, chosen: list[Reader], args: argparse.Namespace) -> dict[str, Any]:
    """Each of ``args.columns`` alone, by every reader that reads single columns."""
    out: dict[str, Any] = {}
    for column in args.columns:
        out[column] = cells = {}
        for reader in chosen:
            if reader.per_column:
                cells[reader.key] = timing = time_reader(reader, path, [column], args)
                _show(codec, column, reader.key, timing)
    return out


def bench_one_stripe(path: Path, chosen: list[Reader], args: argparse.Namespace) -> dict[str, Any]:
    """The whole one-stripe file and each column alone, by the quick readers."""
    quick = [r for r in chosen if r.key in QUICK_READERS]
    out: dict[str, Any] = {"file_bytes": path.stat().st_size, "stripes": orcjit.ORCFile(path).nstripes, "whole": {}}
    for reader in quick:
        out["whole"][reader.key] = timing = time_reader(reader, str(path), None, args)
        _show("1 stripe", "whole file", reader.key, timing)
    out["columns"] = bench_columns("1 stripe", str(path), quick, args)
    return out


def bench_small(path: Path, chosen: list[Reader], args: argparse.Namespace) -> dict[str, Timing]:
    """The whole small file, many times: the per-call cost of each quick reader."""
    out = {}
    for reader in chosen:
        if reader.key in QUICK_READERS:
            out[reader.key] = timing = measure(lambda r=reader: r.read(str(path), None), args.small_repeats, 60.0)
            _show("small", "whole file", reader.key, timing)
    return out


def bench_numeric(
    codec: str, path: str, chosen: list[Reader], args: argparse.Namespace, whole: dict[str, Timing]
) -> dict[str, Any]:
    """The numeric columns read by orcjit against decompressing their streams alone; the same for all columns.

    For all columns, orcjit's whole-file timings are reused when the whole-file part ran.
    """
    names = list(dataset.COLUMNS)
    numeric = [c for c in dataset.NUMERIC if c in names]
    out: dict[str, Any] = {}
    for scope, columns in (("numeric", numeric), ("all", names)):
        streams = decompress.collect(path, {names.index(c) + 1 for c in columns})
        run = decompress.decompress_all(streams)
        out[scope] = {
            "stored_bytes": streams.stored_bytes,
            "decompressed_bytes": run(),
            "chunks": streams.chunks,
            "compressed_share": streams.compressed_share,
            "decompress": measure(run, args.repeats, args.budget) if streams.chunks else None,
        }
        _show(codec, f"{scope} decomp.", "codec lib", out[scope]["decompress"] or Timing(0.0, 0))
        for reader in chosen:
            if reader.key in ("orcjit", "orcjit_1t"):
                if scope == "all" and reader.key in whole:
                    out[scope][reader.key] = whole[reader.key]
                    continue
                selected = None if scope == "all" else columns
                out[scope][reader.key] = timing = measure(
                    functools.partial(reader.read, path, selected), args.repeats, args.budget
                )
                _show(codec, f"{scope} columns", reader.key, timing)
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--codecs", default=",".join(dataset.CODECS), help="comma-separated, from: %(default)s")
    parser.add_argument("--columns", default=",".join(dataset.COLUMNS), help="columns timed alone (default: all)")
    parser.add_argument("--readers", default=None, help="comma-separated reader keys (default: all)")
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts, from: %(default)s")
    parser.add_argument("--repeats", type=int, default=5, help="runs per median, after one warm-up")
    parser.add_argument(
        "--budget", type=float, default=10.0, help="seconds of timed runs per measurement before runs are cut"
    )
    parser.add_argument("--pyorc-rows", type=int, default=250_000, help="rows pyorc reads; its time is scaled")
    parser.add_argument("--writers", default=",".join(dataset.WRITERS), help="comma-separated, from: %(default)s")
    parser.add_argument(
        "--spark-codecs", default="zstd", help="the codecs of --codecs Spark also writes (default: %(default)s)"
    )
    parser.add_argument("--one-stripe-rows", type=int, default=1_000_000, help="rows of the one-stripe file")
    parser.add_argument("--small-rows", type=int, default=1_000, help="rows of the small file")
    parser.add_argument("--small-repeats", type=int, default=200, help="runs per median on the small file")
    parser.add_argument("--data-dir", type=Path, default=dataset.DATA_DIR)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md and speed.png alone")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.codecs = _choices(args.codecs, dataset.CODECS, "codec")
    args.writers = _choices(args.writers, dataset.WRITERS, "writer")
    args.spark_codecs = _choices(args.spark_codecs, dataset.CODECS, "codec")
    args.columns = _choices(args.columns, tuple(dataset.COLUMNS), "column")
    args.only = _choices(args.only, PARTS, "part")
    return args


def _choices(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in allowed]
    if unknown:
        raise SystemExit(f"unknown {what}(s) {', '.join(unknown)}; expected some of {', '.join(allowed)}")
    return chosen


def writer_codecs(args: argparse.Namespace, writer: str) -> list[str]:
    """The codecs ``writer``'s files are measured in: all of ``--codecs`` for pyarrow, those also in
    ``--spark-codecs`` for Spark (each costs a Spark job to write and a full round of timings)."""
    if writer == "spark":
        return [c for c in args.codecs if c in args.spark_codecs]
    return list(args.codecs)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement ``args`` asks for, as the nested dict :mod:`benchmarks.speed_report` formats."""
    chosen = readers(min(args.pyorc_rows, args.rows))
    if args.readers:
        keys = _choices(args.readers, tuple(r.key for r in chosen), "reader")
        chosen = [r for r in chosen if r.key in keys]
    started = time.perf_counter()
    codecs = {w: writer_codecs(args, w) for w in args.writers}
    primary = speed_report.primary_codec(args.codecs)
    # every file is written before anything is timed: a Spark job writing would share the cores with the timings
    files = {w: dataset.files(args.rows, codecs[w], args.data_dir, w) for w in args.writers}
    one_stripe = {
        w: dataset.files(args.one_stripe_rows, [primary], args.data_dir, w, one_stripe=True)[primary]
        for w in args.writers
        if "onestripe" in args.only
    }
    small_files = {
        w: dataset.files(args.small_rows, [primary], args.data_dir, w)[primary]
        for w in args.writers
        if "small" in args.only
    }
    small = dataset.files(dataset.SMALL_ROWS, args.codecs, args.data_dir)
    for codec in args.codecs:  # load or compile every kernel before anything is timed
        for reader in chosen:
            if reader.key != "pyorc":
                reader.read(str(small[codec]), None)

    results: dict[str, Any] = {"readers": {r.key: r.label for r in chosen}, "writers": {}}
    for writer in args.writers:
        results["writers"][writer] = {"codecs": {}}
        for codec in codecs[writer]:
            print(f"-- {writer}, {codec}", flush=True)
            results["writers"][writer]["codecs"][codec] = bench_codec(codec, files[writer][codec], chosen, args)
    for writer, path in one_stripe.items():
        print(f"-- {writer}, {args.one_stripe_rows:,} rows in one stripe", flush=True)
        results.setdefault("onestripe", {})[writer] = bench_one_stripe(path, chosen, args)
    for writer, path in small_files.items():
        print(f"-- {writer}, {args.small_rows:,} rows", flush=True)
        results.setdefault("small", {})[writer] = bench_small(path, chosen, args)
    if "memory" in args.only:
        # on the first writer's file in the primary codec
        main_file = dataset.files(args.rows, [primary], args.data_dir, args.writers[0])[primary]
        results["memory"] = {}
        for key in memory.READERS:
            results["memory"][key] = found = memory.peak_memory(key, main_file, small[primary])
            ratio = found["peak_growth_bytes"] / found["frame_bytes"]
            print(f"memory {key:15s} peak +{found['peak_growth_bytes'] / 2**20:8.1f} MiB  {ratio:.2f}x", flush=True)
    if "firstcall" in args.only:
        results["firstcall"] = found = firstcall.first_call(small[primary])
        print(f"first call: cold {found['cold']['total']:.2f} s, warm {found['warm']['total']:.2f} s", flush=True)
    results["elapsed"] = time.perf_counter() - started
    return results


def main(argv: list[str] | None = None) -> str:
    """Run the benchmark; returns the Markdown section it printed (and wrote, without ``--no-write``)."""
    args = parse_args(argv)
    results = run(args)
    if not args.no_write:
        speed_report.plot(results, args, speed_report.PLOT)
    section = speed_report.section(results, args)
    print()
    print(section)
    if not args.no_write:
        speed_report.write(section)
    return section


if __name__ == "__main__":
    main()
