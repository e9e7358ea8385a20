"""Brotli decoders on ORC chunks: Google's reference decoder (the brotli wheel, which orcjit uses) and cramjam's.

The streams of real ORC files are decompressed, cut into chunks of 256 KiB (ORC Java's default block size; the
bundled sample file keeps its own 64 KiB blocks, whose chunks are mostly far smaller), compressed with Brotli at
qualities 1, 5 and 11, and decoded chunk after chunk into one buffer, as a reader decodes a stream: orcjit's own
codec call (``decompress_chunk_into``, which copies what the reference decoder returns into the buffer) against
``cramjam.brotli.decompress_into`` straight into the buffer. One thread, best of 5, MB/s of decompressed bytes.

The files: the speed benchmark's 10 columns (``benchmarks/dataset.py``) with ``--rows`` rows, the ORC project's
example files (ORC Java's writer; ``ORCJIT_EXAMPLES`` or ``../shared/orc-examples``), and orcjit's bundled
sample file.

Run ``python benchmarks/brotli_decoders.py`` (a minute on 2 cores); ``--no-write`` prints without touching RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import dataset  # noqa: E402
from benchmarks.results import write_section  # noqa: E402
from orcjit import ORCFile  # noqa: E402
from orcjit.compression import decompress_stream  # noqa: E402
from orcjit.compression.codecs import BROTLI, decompress_chunk_into  # noqa: E402

BLOCK = 256 * 1024
QUALITIES = (1, 5, 11)
EXAMPLES = Path(os.environ.get("ORCJIT_EXAMPLES", ROOT.parent / "shared" / "orc-examples"))


def plain_streams(path: Path) -> tuple[list[bytes], int]:
    """Every stream of every stripe of ``path``, decompressed, and the file's compression block size."""
    out = []
    with ORCFile(path) as f:
        codec = f.meta.tail.compression
        block = f.compression_block_size
        for i in range(f.nstripes):
            for stream in f.stripe_footer(i).streams:
                stored = f.source.read(stream.offset, stream.length)
                out.append(bytes(decompress_stream(stored, codec, block, f"stream at {stream.offset}")))
    return out, block


def best_of(fn: Callable[[], object], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name: str, streams: list[bytes], block: int) -> list[str]:
    import brotli
    import cramjam

    blocks = [s[i : i + block] for s in streams for i in range(0, len(s), block)]
    blocks = [b for b in blocks if b]
    total = sum(map(len, blocks))
    out = np.empty(block + 1, dtype=np.uint8)
    view = memoryview(out)
    rows = []
    for quality in QUALITIES:
        chunks = [memoryview(brotli.compress(b, quality=quality)) for b in blocks]
        stored = sum(map(len, chunks))
        for chunk, plain in zip(chunks, blocks, strict=True):  # both decoders give the bytes back
            assert bytes(view[: decompress_chunk_into(BROTLI, chunk, view, block)]) == plain
            assert bytes(view[: cramjam.brotli.decompress_into(chunk, view)]) == plain

        def reference(chunks: list[memoryview] = chunks) -> None:
            for chunk in chunks:
                decompress_chunk_into(BROTLI, chunk, view, block)

        def rust(chunks: list[memoryview] = chunks) -> None:
            for chunk in chunks:
                cramjam.brotli.decompress_into(chunk, view)

        ours, theirs = total / best_of(reference) / 1e6, total / best_of(rust) / 1e6
        row = (
            f"| {name} | {len(blocks):,} | {total / len(blocks) / 1024:,.1f} | {quality} | {total / stored:.2f} | "
            f"{ours:,.0f} | {theirs:,.0f} | {ours / theirs:.2f}x |"
        )
        print(row, flush=True)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows of the speed dataset (default 200,000)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    import brotli
    import cramjam

    with tempfile.TemporaryDirectory() as tmp:
        import pyarrow.orc as po

        speed = Path(tmp) / "speed.orc"
        po.write_table(dataset.table(args.rows), str(speed), compression="uncompressed")
        sources = [
            (f"speed dataset, {args.rows:,} rows", plain_streams(speed)[0], BLOCK),
            (
                "ORC examples (ORC Java)",
                [s for p in sorted(EXAMPLES.glob("*.orc")) for s in plain_streams(p)[0]],
                BLOCK,
            ),
            ("orcjit/data/sample.orc", *plain_streams(ROOT / "orcjit" / "data" / "sample.orc")),
        ]
    header = [
        "| files | chunks | mean chunk KiB | quality | ratio | orcjit (brotli wheel) MB/s | cramjam.brotli MB/s | "
        "orcjit / cramjam |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    print("\n".join(header))
    rows = [row for name, streams, block in sources for row in measure(name, streams, block)]
    command = (
        f"Command: `python benchmarks/brotli_decoders.py --rows {args.rows}` on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, brotli {brotli.__version__}, cramjam "
        f"{cramjam.__version__}; one thread, best of 5, MB/s of decompressed bytes."
    )
    if not args.no_write:
        write_section("Brotli decoders", "\n".join(["## Brotli decoders", "", command, "", *header, *rows]) + "\n")


if __name__ == "__main__":
    main()
