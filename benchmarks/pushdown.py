"""Point lookups and range filters with pushdown: orcjit against pyarrow and pyorc, in one run.

Run from the repository root::

    python benchmarks/pushdown.py                 # 10M rows; writes the "Pushdown" section of RESULTS.md
    python benchmarks/pushdown.py --rows 1000000 --no-write

The dataset (generated once into benchmarks/data/, zstd, row index stride 10,000, bloom filters on the two keys)
has a sorted id, a high-cardinality int key and string key in random order, and a few payload columns. Each
figure is the median of 5 runs in this process, after one warm-up run, with the file in the page cache.
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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.orc as po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orcjit  # noqa: E402
from benchmarks.results import write_section  # noqa: E402

REPEATS = 5


def dataset(rows: int) -> Path:
    path = ROOT / "benchmarks" / "data" / f"pushdown-{rows}.orc"
    if not path.exists():
        write_dataset(path, rows)
    return path


def write_dataset(path: Path, rows: int, stripe_size: int | None = None) -> None:
    """Write the lookup dataset of ``rows`` rows to ``path`` (``stripe_size``: pyarrow's, default its own)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261121)
    key_int = rng.permutation(rows).astype(np.int64) * 7919 + 13
    table = pa.table(
        {
            "id": np.arange(rows, dtype=np.int64),
            "key_int": key_int,
            "key_str": pa.array([f"user-{k:012d}" for k in key_int.tolist()]),
            "amount": rng.normal(100, 30, rows).round(2),
            "category": pa.array(rng.choice(["a", "b", "c", "d", "e"], rows)),
            "ts": pa.array(np.datetime64("2024-01-01") + rng.integers(0, 10**15, rows).astype("timedelta64[us]")),
            "flag": rng.random(rows) < 0.5,
        }
    )
    names = table.column_names
    extra = {} if stripe_size is None else {"stripe_size": stripe_size}
    tmp = path.with_suffix(".tmp")
    po.write_table(
        table,
        str(tmp),
        compression="zstd",
        row_index_stride=10_000,
        bloom_filter_columns=[names.index("key_int") + 1, names.index("key_str") + 1],
        bloom_filter_fpp=0.01,
        dictionary_key_size_threshold=0.8,  # ORC Java's default: unique keys direct, categories dictionary
        **extra,
    )
    tmp.replace(path)


def median_ms(fn: Callable[[], object]) -> float:
    fn()
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    path = dataset(args.rows)
    meta = orcjit.ORCFile(path)
    probe = meta.read_stripe(meta.nstripes // 2, columns=["key_int", "key_str"]).iloc[1234]
    key_int, key_str = int(probe["key_int"]), str(probe["key_str"])
    lo, hi = args.rows // 2, args.rows // 2 + 5_000

    import pyorc
    from pyorc.predicates import PredicateColumn

    def pyorc_lookup(column: str, value: object, kind: object, select: list[str] | None) -> int:
        with open(path, "rb") as fh:
            reader = pyorc.Reader(fh, column_names=select, predicate=PredicateColumn(kind, column) == value)
            schema = reader.selected_schema
            names = list(schema.fields)
            idx = names.index(column) if column in names else None
            return sum(1 for row in reader if idx is None or row[idx] == value)

    def measure(label: str, column: str, value: object, kind: object, scope: str, select: list[str] | None) -> tuple:
        flt = pc.field(column) == value
        ours = median_ms(lambda: orcjit.read_orc(path, columns=select, filters=[(column, "==", value)]))
        arrow = median_ms(lambda: po.read_table(path, columns=select).filter(flt).to_pandas())
        dataset_ms = median_ms(lambda: ds.dataset(path, format="orc").to_table(columns=select, filter=flt))
        pyorc_ms = median_ms(lambda: pyorc_lookup(column, value, kind, select))
        print(
            f"{label:14s} {scope:11s} orcjit {ours:8.1f} ms  pyarrow {arrow:8.1f}  dataset {dataset_ms:8.1f}"
            f"  pyorc {pyorc_ms:8.1f}",
            flush=True,
        )
        return label, scope, ours, arrow, dataset_ms, pyorc_ms

    rows = [
        measure(label, column, value, kind, scope, select)
        for label, column, value, kind in (
            ("int key ==", "key_int", key_int, pyorc.TypeKind.LONG),
            ("string key ==", "key_str", key_str, pyorc.TypeKind.STRING),
        )
        for scope, select in (("one column", [column]), ("all columns", None))
    ]

    f = orcjit.ORCFile(path)
    f.source.reset_counters()
    t = time.perf_counter()
    got = f.read(columns=["id", "amount"], filters=[("id", ">=", lo), ("id", "<", hi)])
    range_ms = 1000 * (time.perf_counter() - t)
    range_bytes = f.source.bytes_read
    f.source.reset_counters()
    f.read(columns=["id", "amount"])
    full_bytes = f.source.bytes_read
    assert len(got) == hi - lo
    report = f.explain([("id", ">=", lo), ("id", "<", hi)], columns=["id", "amount"]).to_dict()
    kept = sum(s.get("row_groups_kept", 0) for s in report["stripes"] if s["read"])
    print(
        f"range on sorted id: {range_ms:.1f} ms, {range_bytes} of {full_bytes} bytes of a full read; "
        f"{report['stripes_read']} stripes, {kept} row groups kept"
    )
    if not args.no_write:
        write_results(rows, (range_ms, range_bytes, full_bytes, report, kept), args.rows, sys.argv[1:])


def write_results(rows: list, range_info: tuple, nrows: int, argv: list[str]) -> None:
    range_ms, range_bytes, full_bytes, report, kept = range_info
    lines = [
        "## Pushdown",
        "",
        f"Command: `{' '.join(['python', 'benchmarks/pushdown.py', *argv])}`"
        + f" on {platform.machine()}, {os.cpu_count()} cores; {nrows:,} rows, zstd, row index stride 10,000,"
        " bloom filters (fpp 0.01) on both keys; median of 5, milliseconds.",
        "",
        "| lookup | columns | orcjit | pyarrow read + filter | pyarrow.dataset filter | pyorc predicate | vs pyarrow |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, scope, ours, arrow, dataset_ms, pyorc_ms in rows:
        cells = [label, scope, *(f"{ms:.1f}" for ms in (ours, arrow, dataset_ms, pyorc_ms)), f"{arrow / ours:.1f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Range filter on the sorted id (5,000 rows, columns id and amount): {range_ms:.1f} ms, "
        f"{range_bytes:,} bytes read against {full_bytes:,} for the same columns unfiltered; "
        f"{report['stripes_read']} of {len(report['stripes'])} stripes and {kept} row groups kept.",
    ]
    write_section("Pushdown", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
