"""The speed benchmark: orcjit against pyarrow, pandas.read_orc and pyorc, whole files and single columns.

Run from the repository root::

    python benchmarks/run.py                       # 10M rows, 5 codecs; writes the "Speed" section of
                                                   # benchmarks/RESULTS.md and benchmarks/speed.png
    python benchmarks/run.py --rows 200000 --codecs zstd --no-write

It generates the standard dataset once (``benchmarks/dataset.py``: 10 columns of the common types, one file per
codec, in the gitignored ``benchmarks/data/``), then measures in one run:

- every reader on the whole file and on each column alone, per codec (median of ``--repeats`` after a warm-up,
  in this process, with the file in the page cache; slow readers get fewer runs, marked in the tables);
- the numeric columns against decompressing their streams alone on one thread (``benchmarks/decompress.py``);
- peak memory of each reader in a fresh process (``benchmarks/memory.py``);
- the first call of a new process, with an empty and a warm Numba cache (``benchmarks/firstcall.py``);

and checks each target of issue 7 against the measured ratios (``benchmarks/speed_report.py``).
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

PARTS = ("whole", "columns", "numeric", "memory", "firstcall")
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
    out: dict[str, Any] = {"file_bytes": path.stat().st_size}
    p = str(path)
    if "whole" in args.only:
        out["whole"] = {}
        for reader in chosen:
            out["whole"][reader.key] = timing = time_reader(reader, p, None, args)
            _show(codec, "whole file", reader.key, timing)
    if "columns" in args.only:
        out["columns"] = {}
        for column in args.columns:
            out["columns"][column] = cells = {}
            for reader in chosen:
                if reader.per_column:
                    cells[reader.key] = timing = time_reader(reader, p, [column], args)
                    _show(codec, column, reader.key, timing)
    if "numeric" in args.only:
        out["numeric"] = bench_numeric(codec, p, chosen, args, out.get("whole", {}))
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
    parser.add_argument("--data-dir", type=Path, default=dataset.DATA_DIR)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md and speed.png alone")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.codecs = _choices(args.codecs, dataset.CODECS, "codec")
    args.columns = _choices(args.columns, tuple(dataset.COLUMNS), "column")
    args.only = _choices(args.only, PARTS, "part")
    return args


def _choices(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in allowed]
    if unknown:
        raise SystemExit(f"unknown {what}(s) {', '.join(unknown)}; expected some of {', '.join(allowed)}")
    return chosen


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement ``args`` asks for, as the nested dict :mod:`benchmarks.speed_report` formats."""
    chosen = readers(min(args.pyorc_rows, args.rows))
    if args.readers:
        keys = _choices(args.readers, tuple(r.key for r in chosen), "reader")
        chosen = [r for r in chosen if r.key in keys]
    started = time.perf_counter()
    files = dataset.files(args.rows, args.codecs, args.data_dir)
    small = dataset.files(dataset.SMALL_ROWS, args.codecs, args.data_dir)
    for codec in args.codecs:  # load or compile every kernel before anything is timed
        for reader in chosen:
            if reader.key != "pyorc":
                reader.read(str(small[codec]), None)

    results: dict[str, Any] = {"codecs": {}, "readers": {r.key: r.label for r in chosen}}
    for codec in args.codecs:
        results["codecs"][codec] = bench_codec(codec, files[codec], chosen, args)
    primary = speed_report.primary_codec(args.codecs)
    if "memory" in args.only:
        results["memory"] = {}
        for key in memory.READERS:
            results["memory"][key] = found = memory.peak_memory(key, files[primary], small[primary])
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
