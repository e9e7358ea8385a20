"""The first call of a new process: ``import orcjit`` and one small read, with an empty and with a warm Numba cache.

Each probe is a new Python process whose ``NUMBA_CACHE_DIR`` points at a temporary directory of its own, so the
caches beside orcjit's modules (from earlier runs and tests) are not used. The first process finds the directory
empty and compiles every kernel the read needs; the next ones load them from it.

Where the time goes is measured too, not guessed:

- per kernel: each probe wraps Numba's ``Dispatcher.compile`` (the one door through which a dispatcher compiles a
  specialisation or loads it from the cache, also when one kernel's compilation types a call to another) and
  records, per kernel, the specialisations compiled and loaded and the seconds spent in them *exclusive* of
  nested kernels (a caller's time does not count its callees' again);
- the imports of a warm process, from ``python -X importtime -c "import orcjit"``: self time summed per top-level
  package, and orcjit's own modules with the most cumulative time;
- the floor: a process that imports only numba and pandas, which a pandas read through Numba kernels cannot avoid.

Run alone for the tables::

    python benchmarks/firstcall.py                      # the standard 10-column file of 10,000 rows, zstd
    python benchmarks/firstcall.py --warm-runs 5 --signatures
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The instrumentation is installed after ``import orcjit`` (so it costs the import nothing) and before the read.
_PROBE = """
import json, sys, time
c0, t0 = time.process_time(), time.perf_counter()
import orcjit
c1, t1 = time.process_time(), time.perf_counter()

from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher
_stack = []  # per open compile call: [wall, CPU] inclusive seconds of its finished children
_kernels = {}
_original = Dispatcher.compile

def _compile(self, sig):
    # Numba compiles under one process-wide lock: taking it first keeps another thread's compilation (and the
    # wait for it) out of this one's time, and this thread's counters its own
    with global_compiler_lock:
        return _timed(self, sig)

def _timed(self, sig):
    hits, misses = sum(self._cache_hits.values()), sum(self._cache_misses.values())
    _stack.append([0.0, 0.0])
    start, cpu = time.perf_counter(), time.process_time()
    try:
        return _original(self, sig)
    finally:
        inclusive = time.perf_counter() - start
        inclusive_cpu = time.process_time() - cpu
        children = _stack.pop()
        exclusive, exclusive_cpu = inclusive - children[0], inclusive_cpu - children[1]
        if _stack:
            _stack[-1][0] += inclusive
            _stack[-1][1] += inclusive_cpu
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        entry = _kernels.setdefault(name, {
            "compiled": [], "loaded": 0, "compile_s": 0.0, "compile_cpu": 0.0, "compile_s_inclusive": 0.0,
            "load_s": 0.0, "load_cpu": 0.0,
        })
        if sum(self._cache_misses.values()) > misses:
            entry["compiled"].append(str(sig))
            entry["compile_s"] += exclusive
            entry["compile_cpu"] += exclusive_cpu
            entry["compile_s_inclusive"] += inclusive
        elif sum(self._cache_hits.values()) > hits:
            entry["loaded"] += 1
            entry["load_s"] += exclusive
            entry["load_cpu"] += exclusive_cpu

Dispatcher.compile = _compile
c2, t2 = time.process_time(), time.perf_counter()
df = orcjit.read_orc(sys.argv[1])
c3, t3 = time.process_time(), time.perf_counter()
print(json.dumps({
    "import": t1 - t0, "read": t3 - t2, "import_cpu": c1 - c0, "read_cpu": c3 - c2, "rows": len(df),
    "kernels": _kernels,
}))
"""


def _env(cache_dir: str | None) -> dict[str, str]:
    env = dict(os.environ)
    # an installed package has its bytecode compiled (pip does it); a checkout run with PYTHONDONTWRITEBYTECODE
    # would compile orcjit's sources in every probe and time that instead
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _probe(path: Path, cache_dir: str) -> dict[str, Any]:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, env=_env(cache_dir), check=False
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"first-call probe failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["total"] = result["import"] + result["read"]
    result["total_cpu"] = result["import_cpu"] + result["read_cpu"]
    result["process"] = wall
    return result


def _wall(code: str, runs: int, cache_dir: str | None = None) -> float:
    """Median wall seconds of a new process running ``python -c code``."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=_env(cache_dir), capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


_IMPORTTIME = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)")


def import_breakdown(cache_dir: str | None = None) -> dict[str, Any]:
    """Where ``import orcjit`` spends its time, from ``python -X importtime``.

    Returns
    -------
    dict
        ``packages``: self seconds summed per top-level package (they add up to the whole import);
        ``orcjit``: orcjit's modules with their self and cumulative seconds.
    """
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import orcjit"],
        capture_output=True,
        text=True,
        env=_env(cache_dir),
        check=True,
    )
    packages: dict[str, float] = defaultdict(float)
    own: dict[str, tuple[float, float]] = {}
    for line in proc.stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if not match:
            continue
        self_us, cumulative_us, _, module = match.groups()
        packages[module.split(".")[0]] += int(self_us) / 1e6
        if module.split(".")[0] == "orcjit":
            own[module] = (int(self_us) / 1e6, int(cumulative_us) / 1e6)
    return {"packages": dict(packages), "orcjit": own}


def _median_kernels(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kernel, the median of each number over ``runs`` (a kernel missing from a run counts as 0 there)."""
    names = {name for run in runs for name in run}
    out: dict[str, Any] = {}
    for name in names:
        entries = [run.get(name) for run in runs]
        first = next(e for e in entries if e is not None)
        merged = dict(first)
        for key, value in first.items():
            if isinstance(value, float):
                merged[key] = statistics.median(e[key] if e else 0.0 for e in entries)
        out[name] = merged
    return out


def first_call(path: Path, warm_runs: int = 3, cold_runs: int = 1) -> dict[str, Any]:
    """Seconds for ``import orcjit`` and ``read_orc(path)`` in a new process: cold (each run with an empty cache of
    its own), then warm (median of runs).

    Returns
    -------
    dict
        ``{"cold": {...}, "warm": {...}, "warm_runs": n, "cold_runs": m}``, each inner dict holding ``import``,
        ``read``, ``total`` (their sum) and ``process`` (wall time of the whole process, interpreter start-up
        included), and the CPU seconds of the first three (``import_cpu`` ...: less disturbed by other processes),
        medians over the runs; ``cold`` also holds ``kernels`` (per kernel: signatures ``compiled``, ``compile_s``
        and ``compile_cpu`` exclusive of nested kernels, medians) and ``warm`` the ``kernels`` (``loaded``,
        ``load_s``, ``load_cpu``).
    """
    keys = ("import", "read", "total", "process", "import_cpu", "read_cpu", "total_cpu")
    colds, runs = [], []
    for k in range(cold_runs):
        with tempfile.TemporaryDirectory(prefix="orcjit-numba-cache-") as cache_dir:
            colds.append(_probe(path, cache_dir))
            if k == cold_runs - 1:
                runs = [_probe(path, cache_dir) for _ in range(warm_runs)]
    cold: dict[str, Any] = {key: statistics.median(run[key] for run in colds) for key in keys}
    cold["kernels"] = _median_kernels([run["kernels"] for run in colds])
    warm: dict[str, Any] = {key: statistics.median(run[key] for run in runs) for key in keys} if runs else {}
    warm["kernels"] = _median_kernels([run["kernels"] for run in runs]) if runs else {}
    return {"cold": cold, "warm": warm, "warm_runs": warm_runs, "cold_runs": cold_runs}


def _short(name: str) -> str:
    return name.removeprefix("orcjit.kernels.")


def kernel_table(found: dict[str, Any], signatures: bool = False) -> list[str]:
    """Per-kernel lines: specialisations compiled and seconds (wall and CPU, exclusive of nested kernels) in the
    cold process; specialisations loaded and milliseconds in the warm one."""
    cold, warm = found["cold"]["kernels"], found["warm"]["kernels"]
    names = sorted(set(cold) | set(warm), key=lambda n: -cold.get(n, {}).get("compile_cpu", 0.0))
    lines = [
        f"{'kernel':52s} {'compiled':>8s} {'cold s':>7s} {'cpu s':>6s} {'incl s':>7s} {'loaded':>6s} "
        f"{'load ms':>7s} {'cpu ms':>6s}"
    ]
    for name in names:
        c, w = cold.get(name, {}), warm.get(name, {})
        lines.append(
            f"{_short(name)[:52]:52s} {len(c.get('compiled', ())):8d} {c.get('compile_s', 0.0):7.2f} "
            f"{c.get('compile_cpu', 0.0):6.2f} {c.get('compile_s_inclusive', 0.0):7.2f} {w.get('loaded', 0):6d} "
            f"{1e3 * w.get('load_s', 0.0):7.1f} {1e3 * w.get('load_cpu', 0.0):6.1f}"
        )
        if signatures:
            lines.extend(f"    {sig}" for sig in c.get("compiled", ()))

    def total(kernels: dict[str, Any], key: str) -> float:
        return sum(k[key] for k in kernels.values())

    lines.append(
        f"{'total':52s} {sum(len(c['compiled']) for c in cold.values()):8d} {total(cold, 'compile_s'):7.2f} "
        f"{total(cold, 'compile_cpu'):6.2f} {'':7s} {total(warm, 'loaded'):6d} {1e3 * total(warm, 'load_s'):7.1f} "
        f"{1e3 * total(warm, 'load_cpu'):6.1f}"
    )
    return lines


def import_table(found: dict[str, Any], top: int = 12) -> list[str]:
    """Self seconds per top-level package, then orcjit's modules with the most cumulative seconds."""
    packages = sorted(found["packages"].items(), key=lambda kv: -kv[1])
    lines = [f"{'package (self time)':40s} {'ms':>7s}"]
    lines += [f"{name:40s} {1e3 * s:7.1f}" for name, s in packages[:top]]
    rest = sum(s for _, s in packages[top:])
    lines.append(f"{'(the others)':40s} {1e3 * rest:7.1f}")
    lines.append(f"{'total':40s} {1e3 * sum(found['packages'].values()):7.1f}")
    lines.append("")
    lines.append(f"{'orcjit module':40s} {'self ms':>7s} {'cum ms':>7s}")
    own = sorted(found["orcjit"].items(), key=lambda kv: -kv[1][1])
    lines += [f"{name:40s} {1e3 * s:7.1f} {1e3 * c:7.1f}" for name, (s, c) in own[:top]]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=None, help="rows of the standard file (default 10,000)")
    parser.add_argument("--codec", default="zstd")
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=1, help="cold processes, each with an empty cache")
    parser.add_argument("--cold-only", action="store_true", help="only the cold processes' per-kernel table")
    parser.add_argument("--signatures", action="store_true", help="list each compiled signature")
    parser.add_argument("--file", type=Path, default=None, help="an ORC file instead of the standard one")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.file is None:
        from benchmarks import dataset

        rows = args.rows or dataset.SMALL_ROWS
        args.file = dataset.files(rows, [args.codec])[args.codec]

    found = first_call(args.file, 0 if args.cold_only else args.warm_runs, args.cold_runs)
    print(f"file: {args.file}")
    print()
    print("\n".join(kernel_table(found, args.signatures)))
    print()
    if args.cold_only:
        r = found["cold"]
        print(
            f"empty cache (median of {args.cold_runs}): import + read {r['total']:5.2f} s, read {r['read']:5.2f} s; "
            f"CPU: import + read {r['total_cpu']:5.2f} s, read {r['read_cpu']:5.2f} s"
        )
        return
    with tempfile.TemporaryDirectory(prefix="orcjit-numba-cache-") as cache_dir:
        print("\n".join(import_table(import_breakdown(cache_dir))))
    print()
    runs = args.warm_runs
    python = _wall("pass", runs)
    floor = _wall("import numba, pandas", runs)
    imported = _wall("import orcjit", runs)
    for label, seconds in (
        (f"new process (median of {runs})", None),
        ("python -c pass", python),
        ('python -c "import numba, pandas" (the floor)', floor),
        ('python -c "import orcjit"', imported),
    ):
        print(f"{label:48s} {'s' if seconds is None else format(seconds, '.2f'):>6s}")
    print()
    for kind in ("cold", "warm"):
        r = found[kind]
        label = f"empty cache (median of {args.cold_runs})" if kind == "cold" else f"warm cache (median of {runs})"
        print(
            f"{label:28s} import {r['import']:5.2f} s  read {r['read']:5.2f} s  import + read {r['total']:5.2f} s  "
            f"whole process {r['process']:5.2f} s;  CPU: import {r['import_cpu']:5.2f} s  read {r['read_cpu']:5.2f} s"
        )


if __name__ == "__main__":
    main()
