"""Point lookups on one large stripe (issue 21): deciding which row groups to read must cost less than reading.

Run from the repository root::

    python benchmarks/lookup_one_stripe.py                # 2M rows in one stripe, 200 row groups
    python benchmarks/lookup_one_stripe.py --profile      # and where orcjit's time goes (cProfile, cumulative)

The file (generated once into benchmarks/data/) is the dataset of ``benchmarks/pushdown.py`` written as ONE stripe:
zstd, row index stride 10,000, bloom filters (fpp 0.01) on the unique int key and the unique string key. A
lookup of one key keeps 1 of the 200 row groups (and bloom filters' false positives). orcjit's figures are the
median and the minimum wall clock of ``--repeats`` runs (each looks up another key) and their median CPU time (all
threads: a busy machine inflates it less than the wall clock); pyarrow's and pyorc's the median wall clock of
``--other-repeats``; all after a warm-up run, with the file in the page cache. Prints only: RESULTS.md is left
alone.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.orc as po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orcjit  # noqa: E402
from benchmarks.pushdown import write_dataset  # noqa: E402

ROWS = 2_000_000


def one_stripe_file(rows: int) -> Path:
    path = ROOT / "benchmarks" / "data" / f"lookup-one-stripe-{rows}.orc"
    if not path.exists():
        write_dataset(path, rows, stripe_size=1 << 30)
    return path


def timings(fn: Callable[[int], object], repeats: int) -> tuple[list[float], list[float]]:
    """Milliseconds of ``fn(i)`` for ``i`` in ``range(repeats)``, after one warm-up call: wall clock, and the
    process's CPU time (all threads; on a shared machine it leaves out the time spent waiting for a core)."""
    fn(repeats)
    wall, cpu = [], []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn(i)
        wall.append(1000 * (time.perf_counter() - t))
        cpu.append(1000 * (time.process_time() - c))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--repeats", type=int, default=41, help="orcjit runs per figure")
    parser.add_argument("--other-repeats", type=int, default=5, help="pyarrow and pyorc runs per figure")
    parser.add_argument("--profile", action="store_true", help="cProfile orcjit's string-key lookups")
    parser.add_argument("--only-orcjit", action="store_true", help="time orcjit alone")
    args = parser.parse_args()
    path = one_stripe_file(args.rows)
    meta = orcjit.ORCFile(path)
    assert meta.nstripes == 1, f"{path} has {meta.nstripes} stripes"
    keys = meta.read_stripe(0, columns=["key_int", "key_str"])
    # keys spread over the file, one per run: each lookup decides afresh
    picks = keys.iloc[[(7_919 * (i + 1) * 101) % len(keys) for i in range(max(args.repeats, args.other_repeats) + 1)]]
    key_ints, key_strs = [int(v) for v in picks["key_int"]], [str(v) for v in picks["key_str"]]
    report = meta.explain([("key_str", "==", key_strs[0])], columns=["key_str"]).to_dict()
    stripe = report["stripes"][0]
    print(
        f"{path.name}: {args.rows:,} rows, {meta.nstripes} stripe, {stripe.get('row_groups')} row groups; "
        f"string-key lookup keeps {stripe.get('row_groups_kept')}, reads {report['bytes_to_read']:,} bytes of data "
        f"and {report['index_bytes_read']:,} of indexes to decide"
    )

    import pyorc
    from pyorc.predicates import PredicateColumn

    def pyorc_lookup(column: str, value: object, kind: object, select: list[str] | None) -> int:
        with open(path, "rb") as fh:
            reader = pyorc.Reader(fh, column_names=select, predicate=PredicateColumn(kind, column) == value)
            names = list(reader.selected_schema.fields)
            idx = names.index(column) if column in names else None
            return sum(1 for row in reader if idx is None or row[idx] == value)

    def ours(column: str, values: list, select: list[str] | None, i: int) -> None:
        got = orcjit.read_orc(path, columns=select, filters=[(column, "==", values[i])])
        assert len(got) == 1, len(got)

    def arrow(column: str, values: list, select: list[str] | None, i: int) -> None:
        po.read_table(path, columns=select).filter(pc.field(column) == values[i]).to_pandas()

    def porc(column: str, values: list, kind: object, select: list[str] | None, i: int) -> None:
        pyorc_lookup(column, values[i], kind, select)

    cases = [
        ("string key ==", "key_str", key_strs, pyorc.TypeKind.STRING),
        ("int key ==", "key_int", key_ints, pyorc.TypeKind.LONG),
    ]
    print(f"orcjit: median of {args.repeats}; others: median of {args.other_repeats}; milliseconds")
    print("| lookup | columns | orcjit | orcjit min | orcjit CPU | pyarrow read + filter | pyorc predicate |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, column, values, kind in cases:
        for scope, select in (("one column", [column]), ("all columns", None)):
            mine, cpu = timings(partial(ours, column, values, select), args.repeats)
            cells = [f"{statistics.median(mine):.1f}", f"{min(mine):.1f}", f"{statistics.median(cpu):.1f}"]
            if args.only_orcjit:
                cells += ["-", "-"]
            else:
                for fn in (partial(arrow, column, values, select), partial(porc, column, values, kind, select)):
                    cells.append(f"{statistics.median(timings(fn, args.other_repeats)[0]):.1f}")
            print(f"| {label} | {scope} | " + " | ".join(cells) + " |", flush=True)

    if args.profile:
        for select in (["key_str"], None):
            profiler = cProfile.Profile()
            profiler.enable()
            for i in range(args.repeats):
                orcjit.read_orc(path, columns=select, filters=[("key_str", "==", key_strs[i])])
            profiler.disable()
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
            stats.print_stats(40)
            print(f"\n-- cProfile, {args.repeats} string-key lookups, columns={select} --")
            print(out.getvalue())


if __name__ == "__main__":
    main()
