"""Open pages of the built site in headless Chromium and save screenshots of them.

Usage: ``python docs/screenshots.py [SITE] [OUT]`` (defaults: ``docs/_build/html`` and
``docs/_build/screenshots``). It shoots the front page and the ``read_orc`` reference, fails when a page is
missing, when Chromium writes no image, or when an image is blank (a page that did not render), and prints what it
saved. Chromium is Debian's ``chromium`` package (``/usr/bin/chromium``) or any Chromium or Chrome on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from matplotlib import image

PAGES = {"front-page.png": "index.html", "read_orc-reference.png": "reference/api/orcjit.read_orc.html"}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
# the closed network refuses Chromium's background connections; these flags keep it from trying
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1280,1000",
]


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit(f"screenshots: no Chromium on PATH (looked for {', '.join(BROWSERS)})")


def shoot(chromium: str, page: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [chromium, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}", page.as_uri()],
            check=True,
            capture_output=True,
            timeout=120,
        )
    if not out.is_file():
        raise SystemExit(f"screenshots: Chromium wrote no image for {page}")
    pixels = image.imread(out)
    if np.ptp(pixels[..., :3]) == 0:
        raise SystemExit(f"screenshots: {out} is a blank image: {page} did not render")


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "docs/_build/html").resolve()
    out_dir = Path(argv[1] if len(argv) > 1 else "docs/_build/screenshots").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    chromium = browser()
    for name, relative in PAGES.items():
        page = site / relative
        if not page.is_file():
            raise SystemExit(f"screenshots: {page} is not in the built site; build it first")
        shoot(chromium, page, out_dir / name)
        print(f"screenshots: {relative} -> {out_dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
