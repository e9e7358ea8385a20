"""benchmarks/RESULTS.md: one section per benchmark script, each replaced in place when its script runs again."""

from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = "# Benchmark results\n\nEach section says the command that produced it.\n\n"


def write_section(title: str, section: str) -> None:
    """Put ``section`` (starting with ``## title``) into RESULTS.md, replacing an older one of the same title."""
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    heading = f"## {title}\n"
    if heading in text:
        text = re.sub(rf"## {re.escape(title)}\n.*?(?=\n## |\Z)", lambda _: section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)
    print(f"wrote {RESULTS.name}")
