"""Print the table of memory bombs in RELIABILITY.md: each hostile file of ``tests/test_memory_bombs.py`` read
every way that test reads it, in a child process of its own, with the peak memory it took.

Run from the repository root: ``python scripts/memory_bombs.py``. Peak growth is the child's peak RSS after the
bomb's reads less its peak after the same reads of the valid files (which load every kernel), in MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tests.test_memory_bombs as mb  # after the path that finds it


def main() -> None:
    root = Path(tempfile.mkdtemp())
    valid = []
    files = [("direct", mb.valid_file(False)), ("dictionary", mb.valid_file(True)), ("other", mb.other_file())]
    for name, data in files:
        path = root / f"valid-{name}.orc"
        path.write_bytes(data)
        valid.append((str(path), "b" if name == "other" else "l"))
    print("| hostile file | size | reads | outcomes | peak growth (MB) |")
    print("|---|---:|---:|---|---:|")
    for i, bomb in enumerate(mb.BOMBS):
        path = root / f"bomb-{i}.orc"
        data = bomb.make()
        path.write_bytes(data)
        calls = sorted(set(bomb.errors) | set(bomb.ok))
        manifest = root / f"manifest-{i}.json"
        entry = {"name": bomb.name, "path": str(path), "column": bomb.column, "calls": calls}
        manifest.write_text(
            json.dumps({"valid": valid, "calls": mb.CALLS, "bombs": [entry], "message_limit": mb.MESSAGE_LIMIT})
        )
        done = subprocess.run(
            [sys.executable, "-c", mb.CHILD, str(manifest)], capture_output=True, text=True, timeout=600, check=True
        )
        result = json.loads(done.stdout.splitlines()[-1])
        got = result["bombs"][bomb.name]
        kinds = " / ".join(sorted({kind for kind, _ in got["results"].values()}))
        growth = got["peak"] - result["baseline"]
        print(f"| {bomb.name} | {len(data):,} B | {len(calls)} | {kinds} | {growth:.0f} |", flush=True)


if __name__ == "__main__":
    main()
