"""Parquet point lookups: orcjit.parquet.read_parquet (statistics, then bloom filters) against pyarrow.

Run from the repository root::

    python benchmarks/parquet_bloom.py                 # 10M rows; writes the "Parquet bloom filters" section
    python benchmarks/parquet_bloom.py --rows 1000000 --no-write

The file (generated once into benchmarks/data/, which git ignores; zstd, row groups of 500,000 rows) holds a
random int64 key and a string key in random order, each with a bloom filter (fpp 0.01), and two payload columns.
Each lookup is the best of N runs (after one warm-up) for several present and several absent keys, with the file
in the page cache: orcjit's read_parquet, pyarrow.parquet.read_table with the same filters, and a full
pyarrow read filtered in pandas.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import write_section  # noqa: E402
from orcjit.parquet import read_parquet  # noqa: E402
from orcjit.parquet.read import plan_row_groups  # noqa: E402

GROUP_ROWS = 500_000


def dataset(rows: int, directory: Path | None = None) -> Path:
    """The benchmark file of ``rows`` rows, written on first use."""
    directory = directory or ROOT / "benchmarks" / "data"
    path = directory / f"parquet-bloom-{rows}.parquet"
    if path.exists():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261121)
    key = rng.permutation(rows).astype(np.int64) * 7919 + 13
    table = pa.table(
        {
            "key": key,
            "skey": pa.array([f"user-{k:012d}" for k in key.tolist()]),
            "amount": rng.normal(100, 30, rows).round(2),
            "flag": rng.random(rows) < 0.5,
        }
    )
    group = min(GROUP_ROWS, max(rows // 4, 1))
    options = {c: {"ndv": group, "fpp": 0.01} for c in ("key", "skey")}
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp, row_group_size=group, compression="zstd", bloom_filter_options=options)
    tmp.rename(path)
    return path


def best_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * min(times)


def lookups(path: Path, rows: int) -> list[tuple[str, str, object]]:
    """Three present and three absent values of each key."""
    probe = pq.ParquetFile(path).read_row_group(0, columns=["key", "skey"])
    present = [int(probe.column("key")[i].as_py()) for i in (5, probe.num_rows // 2, probe.num_rows - 3)]
    absent = [14, rows * 7919 + 100, 7919 * 17 + 12]  # inside and outside the keys' range, never of form 7919k+13
    out: list[tuple[str, str, object]] = []
    for v in present:
        out += [("int key, present", "key", v), ("string key, present", "skey", f"user-{v:012d}")]
    for v in absent:
        out += [("int key, absent", "key", v), ("string key, absent", "skey", f"user-{v:012d}")]
    return out


def run(rows: int, repeats: int, directory: Path | None = None) -> list[dict[str, object]]:
    """Time every lookup; check the three ways agree on the rows."""
    path = dataset(rows, directory)
    results = []
    for label, column, value in lookups(path, rows):
        filters = [(column, "==", value)]
        ours = read_parquet(path, filters=filters)
        arrow = pq.read_table(path, filters=filters).to_pandas()
        full = pq.read_table(path).to_pandas()
        plain = full[full[column] == value].reset_index(drop=True)
        assert ours.equals(arrow) and ours.equals(plain), (label, value)
        plan = plan_row_groups(path, filters)
        results.append(
            {
                "lookup": label,
                "value": value,
                "rows": len(ours),
                "kept": len(plan.kept),
                "groups": plan.num_row_groups,
                "orcjit": best_ms(lambda f=filters: read_parquet(path, filters=f), repeats),
                "pyarrow": best_ms(lambda f=filters: pq.read_table(path, filters=f).to_pandas(), repeats),
                "pandas": best_ms(
                    lambda c=column, v=value: (lambda d: d[d[c] == v])(pq.read_table(path).to_pandas()), repeats
                ),
            }
        )
        r = results[-1]
        print(
            f"{label:21s} kept {r['kept']}/{r['groups']}  orcjit {r['orcjit']:8.1f} ms  "
            f"pyarrow {r['pyarrow']:8.1f}  read+pandas {r['pandas']:8.1f}",
            flush=True,
        )
    return results


def table_lines(results: list[dict[str, object]]) -> list[str]:
    lines = [
        "| lookup | value | rows | row groups read | orcjit | pyarrow read_table(filters) | read + pandas filter "
        "| vs pyarrow | vs pandas |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ours, arrow, plain = float(r["orcjit"]), float(r["pyarrow"]), float(r["pandas"])  # type: ignore[arg-type]
        lines.append(
            f"| {r['lookup']} | `{r['value']}` | {r['rows']} | {r['kept']} of {r['groups']} | {ours:.1f} "
            f"| {arrow:.1f} | {plain:.1f} | {arrow / ours:.1f}x | {plain / ours:.1f}x |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=5, help="runs per lookup; the best is reported")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args(argv)
    results = run(args.rows, args.repeats)
    lines = table_lines(results)
    print("\n".join(lines))
    if not args.no_write:
        command = " ".join(["python", "benchmarks/parquet_bloom.py", *(sys.argv[1:] if argv is None else argv)])
        group = min(GROUP_ROWS, max(args.rows // 4, 1))
        header = [
            "## Parquet bloom filters",
            "",
            f"Command: `{command}` on {platform.machine()}, {os.cpu_count()} cores; {args.rows:,} rows, zstd, "
            f"row groups of {group:,} rows, split-block bloom filters (fpp 0.01) on both keys written by pyarrow "
            f"{pa.__version__}; best of {args.repeats}, milliseconds, whole rows (4 columns) returned as pandas.",
            "",
        ]
        write_section("Parquet bloom filters", "\n".join(header + lines) + "\n")


if __name__ == "__main__":
    main()
