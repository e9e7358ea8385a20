"""orcjit against another checkout of itself: the same reads of the standard dataset, timed in alternating processes.

Run from the repository root::

    git worktree add ../before <commit>
    python benchmarks/compare.py ../before . --codecs zstd --rounds 3

Each round runs one process per checkout (the order alternating from round to round), each process importing
orcjit from its checkout and timing every read: the whole file with the default dtypes, with ``use_threads=False``
and with ``dtype_backend="pyarrow"``, and each column alone with the default dtypes and with pyarrow's. A read's
time is the median of its repeats after one warm-up read; the table shows the median over the rounds, so a
difference between the checkouts has to hold in every round, not once. ``benchmarks/run.py`` times one checkout
against the other readers; this separates two versions of orcjit on a shared, noisy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import dataset  # noqa: E402

# run in the child, with the checkout first on sys.path: prints {case: median seconds} as JSON
CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import orcjit
path, repeats, columns = sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
cases = {
    "whole file": {},
    "whole file, use_threads=False": {"use_threads": False},
    "whole file, dtype_backend='pyarrow'": {"dtype_backend": "pyarrow"},
}
for c in columns:
    cases[c] = {"columns": [c]}
    cases[f"{c}, dtype_backend='pyarrow'"] = {"columns": [c], "dtype_backend": "pyarrow"}
out = {"orcjit": orcjit.__file__}
for name, kwargs in cases.items():
    orcjit.read_orc(path, **kwargs)
    n = max(1, repeats // 3) if name.startswith("whole") else repeats
    times = []
    for _ in range(n):
        t = time.perf_counter()
        orcjit.read_orc(path, **kwargs)
        times.append(time.perf_counter() - t)
    out[name] = statistics.median(times)
print(json.dumps(out))
"""


def _time_checkout(checkout: Path, path: Path, repeats: int, columns: list[str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(checkout.resolve()), str(path), str(repeats), ",".join(columns)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    origin = Path(result.pop("orcjit")).resolve()
    if checkout.resolve() not in origin.parents:
        raise SystemExit(f"{checkout}: the child imported orcjit from {origin}")
    return result


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the checkout to compare against")
    parser.add_argument("after", type=Path, help="the checkout under test")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--codecs", default="zstd", help="comma-separated, from: " + ",".join(dataset.CODECS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=9, help="timed reads of a column (a third for whole files)")
    parser.add_argument("--data-dir", type=Path, default=dataset.DATA_DIR)
    args = parser.parse_args(argv)
    codecs = [c.strip() for c in args.codecs.split(",") if c.strip()]
    files = dataset.files(args.rows, codecs, args.data_dir)
    columns = list(dataset.COLUMNS)
    lines = [
        f"Command: `python benchmarks/compare.py {' '.join(sys.argv[1:] if argv is None else argv)}`; "
        f"{args.rows:,} rows, {args.rounds} rounds, milliseconds (median over rounds of each round's median).",
        "",
        "| codec | read | before | after | after / before |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for codec in codecs:
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for round_ in range(args.rounds):
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for which in order:
                checkout = args.before if which == "before" else args.after
                runs[which].append(_time_checkout(checkout, files[codec], args.repeats, columns))
                print(f"{codec} round {round_ + 1}: {which} done", file=sys.stderr, flush=True)
        for case in runs["before"][0]:
            before = 1000 * statistics.median(r[case] for r in runs["before"])
            after = 1000 * statistics.median(r[case] for r in runs["after"])
            lines.append(f"| {codec} | {case} | {before:,.1f} | {after:,.1f} | {after / before:.2f}x |")
    table = "\n".join(lines)
    print(table)
    return table


if __name__ == "__main__":
    main()
