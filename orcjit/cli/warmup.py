"""``orcjit warmup``: compile (or load from the Numba cache) every kernel a read can use, so that later processes
only load."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .options import add_json, add_verb
from .render import write_json


def add_to(subparsers: Any) -> None:
    """Add ``warmup`` and its options."""
    p = add_verb(
        subparsers,
        "warmup",
        "compile every kernel ahead of time, so that later reads only load them",
        "Compile, or load from the Numba cache, every kernel specialisation a read can use: all types and "
        "encodings, every codec including LZO, row index and bloom filter kernels, read-only and writable buffers. "
        "It reads small files through the public API (the ones bundled with orcjit, and more that pyarrow writes "
        "if it is installed) and prints each group's time with the kernels it compiled and loaded, then the "
        "cache directories. Run it once after installing, or in a container image's build step: a new process "
        "then reads without compiling. The cache goes to NUMBA_CACHE_DIR if set, else the user's cache directory "
        "(~/.cache/orcjit), else a private directory in $TMPDIR; never into the installed package.",
        "  orcjit warmup\n  NUMBA_CACHE_DIR=/opt/cache orcjit warmup\n  orcjit warmup --json",
        run,
    )
    p.add_argument("--quiet", action="store_true", help="print nothing (the exit status says whether it worked)")
    add_json(p, "the summary (seconds, kernels compiled and loaded per group, cache directories)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Compile or load every kernel, printing progress (unless ``--quiet``) or, with ``--json``, a summary."""
    from ..warmup import warmup

    summary = warmup(out=out, quiet=args.quiet or args.json)
    if args.json:
        write_json(out, summary.to_dict())
    return 0
