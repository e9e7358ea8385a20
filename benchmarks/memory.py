"""Peak memory of one read, measured in a fresh process so that nothing an earlier read kept is counted.

The parent calls :func:`peak_memory`; it runs this file as a script, which imports the reader, reads a tiny file
once (so that loading Numba's cache and pyarrow's lazy imports are not counted), then reads the real file and
prints, as JSON, how far the resident set grew above where it stood just before the read, and the size of the
DataFrame it returned (``memory_usage(deep=True)``).

The peak comes from the kernel's high-water mark (``VmHWM``), reset just before the read by writing ``5`` to
``/proc/self/clear_refs`` (Linux 4.0+). Where that is not allowed, a thread samples the resident set every
millisecond instead, which can miss a short spike.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

READERS = ("orcjit", "orcjit_pyarrow", "pandas", "pyarrow")
LABELS = {
    "orcjit": "orcjit.read_orc",
    "orcjit_pyarrow": "orcjit.read_orc, dtype_backend='pyarrow'",
    "pandas": "pandas.read_orc",
    "pyarrow": "pyarrow.orc.read_table + to_pandas",
}


def _reader(name: str) -> Callable[[str], Any]:
    if name.startswith("orcjit"):
        import orcjit

        backend = "pyarrow" if name == "orcjit_pyarrow" else None
        return lambda path: orcjit.read_orc(path, dtype_backend=backend)
    if name == "pandas":
        import pandas as pd

        return lambda path: pd.read_orc(path)
    if name == "pyarrow":
        import pyarrow.orc as po

        return lambda path: po.read_table(path).to_pandas()
    raise ValueError(f"unknown reader {name!r}; expected one of {', '.join(READERS)}")


def _status(field: str) -> int:
    """A ``kB`` field of /proc/self/status, in bytes."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"/proc/self/status has no {field}")


class _Sampler(threading.Thread):
    """Tracks the highest resident set seen, for kernels that do not let us reset the high-water mark."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = _status("VmRSS")
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, _status("VmRSS"))
            time.sleep(0.001)

    def stop(self) -> int:
        self.done.set()
        self.join()
        return max(self.peak, _status("VmRSS"))


def measure(name: str, path: str, warm_path: str) -> dict[str, Any]:
    """Read ``path`` with reader ``name`` in this process; see the module docstring for what is measured."""
    read = _reader(name)
    read(warm_path)
    gc.collect()
    before = _status("VmRSS")
    sampler = None
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        method = "VmHWM"
    except OSError:
        sampler = _Sampler()
        sampler.start()
        method = "sampled every 1 ms"
    t = time.perf_counter()
    df = read(path)
    seconds = time.perf_counter() - t
    peak = sampler.stop() if sampler else _status("VmHWM")
    return {
        "reader": name,
        "baseline_bytes": before,
        "peak_growth_bytes": peak - before,
        "retained_bytes": _status("VmRSS") - before,
        "frame_bytes": int(df.memory_usage(deep=True).sum()),
        "rows": len(df),
        "seconds": seconds,
        "method": method,
    }


def peak_memory(name: str, path: Path, warm_path: Path) -> dict[str, Any]:
    """Run :func:`measure` in a new Python process and return its result."""
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), name, str(path), str(warm_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"memory probe for {name} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    print(json.dumps(measure(*sys.argv[1:4])))
