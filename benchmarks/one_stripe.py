"""One stripe, read column by column: orcjit against pyarrow and pandas.read_orc (issue 21).

Run from the repository root::

    python benchmarks/one_stripe.py               # 1M rows, zstd
    python benchmarks/one_stripe.py --rows 200000 --repeats 5

The file is the standard dataset (:func:`benchmarks.dataset.table`) written by pyarrow in ONE stripe (zstd, row
index stride 10,000, ``dictionary_key_size_threshold=0.8``), into the gitignored ``benchmarks/data/`` once. Each
column alone and the whole file are read by orcjit's ``read_orc``, ``pyarrow.orc.read_table(...).to_pandas()`` and
``pandas.read_orc``; the readers take turns run by run (the machine's noise falls on all of them alike), and each
figure is the median of ``--repeats`` runs after one warm-up run of each, with the file in the page cache. Prints
a markdown table of times and ratios, and the command.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow.orc as po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orcjit  # noqa: E402
from benchmarks.dataset import COLUMNS, DATA_DIR, table  # noqa: E402

STRIDE = 10_000


def dataset(rows: int, codec: str) -> Path:
    """The one-stripe file of ``rows`` rows in ``codec``, written once."""
    path = DATA_DIR / f"one-stripe-{rows}-{codec}.orc"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".orc.partial")
    po.write_table(
        table(rows),
        str(partial),
        compression=codec,
        stripe_size=1 << 30,
        row_index_stride=STRIDE,
        dictionary_key_size_threshold=0.8,
    )
    partial.rename(path)
    return path


def readers(path: Path, columns: list[str] | None) -> dict[str, Callable[[], object]]:
    return {
        "orcjit": lambda: orcjit.read_orc(path, columns=columns),
        "pyarrow": lambda: po.read_table(str(path), columns=columns).to_pandas(),
        "pandas": lambda: pd.read_orc(path, columns=columns),
    }


def medians(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds of each reader, the readers taking turns after one warm-up run each."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--codec", default="zstd")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--columns", nargs="*", default=None, help="columns to time alone (default: all)")
    args = parser.parse_args()
    path = dataset(args.rows, args.codec)
    f = orcjit.ORCFile(path)
    assert f.nstripes == 1, f"{path} has {f.nstripes} stripes"
    orcjit.read_orc(path)  # compile (or load) the kernels before timing
    cases: list[tuple[str, list[str] | None]] = [(c, [c]) for c in (args.columns or list(COLUMNS))]
    cases.append(("whole file", None))
    command = "python benchmarks/one_stripe.py " + " ".join(sys.argv[1:])
    print(f"`{command.strip()}` — {args.rows:,} rows, one stripe, {args.codec}, median of {args.repeats}")
    print(f"({platform.python_version()}, {os.cpu_count()} CPUs, orcjit {orcjit.__version__})\n")
    print("| column | orcjit ms | pyarrow ms | pandas ms | orcjit / pyarrow | orcjit / pandas |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, columns in cases:
        got = medians(readers(path, columns), args.repeats)
        ours = got["orcjit"]
        print(
            f"| {name} | {1000 * ours:.1f} | {1000 * got['pyarrow']:.1f} | {1000 * got['pandas']:.1f} "
            f"| {ours / got['pyarrow']:.2f} | {ours / got['pandas']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
