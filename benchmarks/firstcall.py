"""The first call of a new process: ``import orcjit`` and one small read, with an empty and with a warm Numba cache.

Each probe is a new Python process whose ``NUMBA_CACHE_DIR`` points at a temporary directory of its own, so the
caches beside orcjit's modules (from earlier runs and tests) are not used. The first process finds the directory
empty and compiles every kernel the read needs; the next ones load them from it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_PROBE = """
import json, sys, time
t0 = time.perf_counter()
import orcjit
t1 = time.perf_counter()
df = orcjit.read_orc(sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "read": t2 - t1, "rows": len(df)}))
"""


def _probe(path: Path, cache_dir: str) -> dict[str, Any]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"first-call probe failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["total"] = result["import"] + result["read"]
    result["process"] = wall
    return result


def first_call(path: Path, warm_runs: int = 3) -> dict[str, Any]:
    """Seconds for ``import orcjit`` and ``read_orc(path)`` in a new process: cold, then warm (median of runs).

    Returns
    -------
    dict
        ``{"cold": {...}, "warm": {...}, "warm_runs": n}``, each inner dict holding ``import``, ``read``,
        ``total`` (their sum) and ``process`` (wall time of the whole process, interpreter start-up included).
    """
    with tempfile.TemporaryDirectory(prefix="orcjit-numba-cache-") as cache_dir:
        cold = _probe(path, cache_dir)
        runs = [_probe(path, cache_dir) for _ in range(warm_runs)]
    warm = {key: statistics.median(run[key] for run in runs) for key in ("import", "read", "total", "process")}
    return {"cold": cold, "warm": warm, "warm_runs": warm_runs}
