"""Throughput of each orcjit kernel on 10M values, next to a numpy copy of the output, and kernel compile times.

Run from the repository root::

    python benchmarks/kernels.py            # writes the "Kernels" section of benchmarks/RESULTS.md
    python benchmarks/kernels.py --values 1000000 --no-write

Streams come from files written by pyarrow (ORC C++) where a writer decides the encoding, so the runs are the ones
real files hold. Each timing is the best of 5 calls on a warm kernel; "memcpy" is ``np.copyto`` of the same output,
the floor any decoder that writes that array pays.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.orc as po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import write_section  # noqa: E402
from orcjit import ORCFile  # noqa: E402
from orcjit.kernels import bloom, split_block  # noqa: E402
from orcjit.kernels.bitpack import unpack_bits  # noqa: E402
from orcjit.kernels.boolean_rle import decode_boolean_rle  # noqa: E402
from orcjit.kernels.byte_rle import decode_byte_rle  # noqa: E402
from orcjit.kernels.decimal import decode_decimal_varints  # noqa: E402
from orcjit.kernels.present import spread_present  # noqa: E402
from orcjit.kernels.rle_v1 import decode_rle_v1  # noqa: E402
from orcjit.kernels.rle_v2 import decode_rle_v2  # noqa: E402
from orcjit.kernels.status import SCRATCH_SIZE, new_state  # noqa: E402
from orcjit.kernels.timestamp import combine_timestamp  # noqa: E402
from orcjit.kernels.varint import decode_uvarints  # noqa: E402

REPEATS = 5


def best_of(fn: Callable[[], object]) -> float:
    fn()  # compile and warm
    best = float("inf")
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def data_stream(column: pa.Array, *, file_version: str = "0.12", kind: str = "DATA") -> np.ndarray:
    """The uncompressed ``kind`` stream of a one-stripe ORC file holding ``column``."""
    sink = io.BytesIO()
    po.write_table(
        pa.table({"c": column}),
        sink,
        compression="uncompressed",
        file_version=file_version,
        stripe_size=1 << 31,
        dictionary_key_size_threshold=0,
    )
    f = ORCFile(sink.getvalue())
    assert f.nstripes == 1
    (stream,) = [s for s in f.stripe_footer(0).streams if s.column == 1 and s.kind_name == kind]
    return np.frombuffer(f.source.read(stream.offset, stream.length), dtype=np.uint8)


def encode_uvarints(values: np.ndarray) -> np.ndarray:
    """Protobuf varints of non-negative ``values``, vectorised over the byte index."""
    v = values.astype(np.uint64)
    nbytes = np.ones(len(v), dtype=np.int64)
    rest = v >> np.uint64(7)
    while rest.any():
        nbytes += rest > 0
        rest >>= np.uint64(7)
    out = np.zeros(int(nbytes.sum()), dtype=np.uint8)
    starts = np.concatenate([[0], np.cumsum(nbytes)[:-1]])
    for k in range(int(nbytes.max())):
        sel = nbytes > k
        byte = (v[sel] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = nbytes[sel] > k + 1
        out[starts[sel] + k] = (byte | (more.astype(np.uint64) << np.uint64(7))).astype(np.uint8)
    return out


class Bench:
    def __init__(self, n: int) -> None:
        self.n = n
        self.rows: list[tuple[str, int, int, int, float, float]] = []

    def add(self, name: str, values: int, in_bytes: int, out: np.ndarray, run: Callable[[], object]) -> None:
        seconds = best_of(run)
        dst = np.empty_like(out)
        copy = best_of(lambda: np.copyto(dst, out))
        self.rows.append((name, values, in_bytes, out.nbytes, seconds, copy))
        print(
            f"{name:42s} {values / seconds / 1e6:9.0f} M values/s  {in_bytes / seconds / 1e9:6.2f} GB/s in  "
            f"{out.nbytes / seconds / 1e9:6.2f} GB/s out  memcpy {values / copy / 1e6:7.0f} M/s",
            flush=True,
        )


def rle_int(bench: Bench, name: str, values: np.ndarray, *, file_version: str = "0.12") -> None:
    buf = data_stream(pa.array(values), file_version=file_version)
    out = np.empty(len(values), dtype=np.int64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    decode = decode_rle_v2 if file_version == "0.12" else decode_rle_v1

    def run() -> None:
        state = new_state()
        assert decode(buf, 0, len(buf), out, 0, len(out), True, state, scratch) == len(buf)

    bench.add(name, len(values), len(buf), out, run)
    assert np.array_equal(out, values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=10_000_000, help="values per kernel (default 10M)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time measurement")
    args = parser.parse_args()
    n = args.values
    rng = np.random.default_rng(42)
    bench = Bench(n)

    # -- integer RLE: encodings chosen by ORC C++ ----------------------------------------------------------------
    rle_int(bench, "RLE v2 direct (random, 31-bit)", rng.integers(-(2**30), 2**30, n))
    rle_int(bench, "RLE v2 direct (random, 7-bit)", rng.integers(0, 64, n))
    rle_int(bench, "RLE v2 delta (fixed step)", np.arange(n, dtype=np.int64) * 3)
    rle_int(bench, "RLE v2 delta (varying steps)", np.cumsum(rng.integers(0, 1000, n)))
    outliers = np.where(rng.random(n) < 0.02, rng.integers(0, 2**40, n), rng.integers(0, 256, n))
    rle_int(bench, "RLE v2 patched base (2% outliers)", outliers)
    rle_int(bench, "RLE v2 short repeat (runs of 3-10)", np.repeat(rng.integers(0, 2**20, n // 6 + 1), 6)[:n])
    rle_int(bench, "RLE v1 (random, 31-bit)", rng.integers(-(2**30), 2**30, n), file_version="0.11")
    rle_int(bench, "RLE v1 (fixed step)", np.arange(n, dtype=np.int64), file_version="0.11")

    # -- bit unpacking alone -------------------------------------------------------------------------------------
    for width in (1, 4, 12, 16, 32):
        packed = rng.integers(0, 256, (n * width + 7) // 8, dtype=np.uint8)
        packed.flags.writeable = False
        out = np.empty(n, dtype=np.int64)
        bench.add(
            f"bit unpacking, width {width}",
            n,
            packed.nbytes,
            out,
            lambda p=packed, w=width, o=out: unpack_bits(p, 0, len(p), w, n, o, 0),
        )

    # -- varints, bytes, booleans --------------------------------------------------------------------------------
    for label, values in (("1 byte", rng.integers(0, 128, n)), ("1-3 bytes", rng.integers(0, 2**20, n))):
        buf = encode_uvarints(values)
        buf.flags.writeable = False
        out = np.empty(n, dtype=np.int64)
        bench.add(
            f"varints ({label})",
            n,
            buf.nbytes,
            out,
            lambda b=buf, o=out: decode_uvarints(b, 0, len(b), o, 0, n, new_state()),
        )
        assert np.array_equal(out, values)

    for label, values in (
        ("literals", rng.integers(-128, 128, n)),
        ("runs", np.repeat(rng.integers(-128, 128, n // 50 + 1), 50)[:n]),
    ):
        buf = data_stream(pa.array(values.astype(np.int8)))
        out = np.empty(n, dtype=np.int8)
        bench.add(
            f"byte RLE ({label})",
            n,
            buf.nbytes,
            out,
            lambda b=buf, o=out: decode_byte_rle(b, 0, len(b), o, 0, n, new_state(), np.zeros(SCRATCH_SIZE, np.int64)),
        )
        assert np.array_equal(out, values)

    bools = rng.random(n) < 0.5
    buf = data_stream(pa.array(bools))
    out = np.empty(n, dtype=np.bool_)
    bench.add(
        "boolean RLE (random)",
        n,
        buf.nbytes,
        out,
        lambda: decode_boolean_rle(buf, 0, len(buf), out, 0, n, new_state(), np.zeros(SCRATCH_SIZE, np.int64)),
    )
    assert np.array_equal(out, bools)

    # -- decimals, timestamps, nulls -----------------------------------------------------------------------------
    unscaled = rng.integers(-(10**17), 10**17, n)
    dec = pa.array(unscaled).cast(pa.decimal128(38, 0))
    buf = data_stream(dec)
    hi, lo = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64)
    bench.add(
        "decimal varints (decimal(38,0), 18 digits)",
        n,
        buf.nbytes,
        lo,
        lambda: decode_decimal_varints(buf, 0, len(buf), hi, lo, 0, n, new_state()),
    )

    seconds = rng.integers(-(10**9), 10**9, n)
    nanos = (rng.integers(0, 10**6, n) << 3).astype(np.int64)
    out = np.empty(n, dtype=np.int64)
    bench.add(
        "timestamp combine (seconds + nanos)",
        n,
        seconds.nbytes + nanos.nbytes,
        out,
        lambda: combine_timestamp(seconds, nanos, out, 1420070400),
    )

    present = rng.random(n) < 0.9
    dense = rng.integers(0, 2**40, int(present.sum()))
    out = np.empty(n, dtype=np.int64)
    bench.add(
        "PRESENT spread (10% nulls)",
        n,
        dense.nbytes + present.nbytes,
        out,
        lambda: spread_present(dense, present, out, 0),
    )

    # -- bloom filters -------------------------------------------------------------------------------------------
    longs = rng.integers(-(2**62), 2**62, n)
    hashes = np.empty(n, dtype=np.uint64)
    bench.add("ORC bloom: Thomas Wang hash of longs", n, longs.nbytes, hashes, lambda: bloom.hash_longs(longs, hashes))
    strings = pa.array([f"key-{i:010d}" for i in rng.integers(0, 10**9, n // 10)])
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)[: len(strings) + 1].astype(np.int64)
    data = np.frombuffer(strings.buffers()[2], dtype=np.uint8)
    shashes = np.empty(len(strings), dtype=np.uint64)
    bench.add(
        "ORC bloom: Murmur3 hash64 of 14-byte strings",
        len(strings),
        data.nbytes,
        shashes,
        lambda: bloom.hash_strings(data, offsets, shashes),
    )
    bits = np.zeros(10_000 * 64 // 64 * 16, dtype=np.uint64)  # 10,000 expected values at ~5% fpp
    found = np.empty(n, dtype=np.bool_)
    bench.add(
        "ORC bloom: test 10M hashes, k=4",
        n,
        hashes.nbytes,
        found,
        lambda: bloom.bloom_test_many(bits, 64 * len(bits), 4, hashes, found),
    )

    words = split_block.new_filter(split_block.optimal_num_bytes(n, 0.01))
    xx = np.empty(n, dtype=np.uint64)
    raw = longs.view(np.uint8)
    bench.add("Parquet: xxHash64 of int64", n, raw.nbytes, xx, lambda: split_block.xxhash64_fixed(raw, 8, xx))
    bench.add("Parquet: split-block insert", n, xx.nbytes, xx, lambda: split_block.sbbf_insert_many(words, xx))
    bench.add("Parquet: split-block check", n, xx.nbytes, found, lambda: split_block.sbbf_check_many(words, xx, found))

    compile_rows = [] if args.no_compile else measure_compile()
    if not args.no_write:
        write_results(bench, compile_rows, " ".join(["python", "benchmarks/kernels.py", *sys.argv[1:]]))


COMPILE_PROBE = r"""
import time
t0 = time.perf_counter()
import numpy as np
from orcjit.kernels import bloom, split_block
from orcjit.kernels.bitpack import unpack_bits
from orcjit.kernels.boolean_rle import decode_boolean_rle
from orcjit.kernels.byte_rle import decode_byte_rle
from orcjit.kernels.decimal import decode_decimal_varints
from orcjit.kernels.present import spread_present
from orcjit.kernels.rle_v1 import decode_rle_v1
from orcjit.kernels.rle_v2 import decode_rle_v2
from orcjit.kernels.status import SCRATCH_SIZE, new_state
from orcjit.kernels.timestamp import combine_timestamp
from orcjit.kernels.varint import decode_uvarints
t_import = time.perf_counter() - t0
buf = np.frombuffer(bytes([0x0A, 0x27, 0x10]), dtype=np.uint8)
i64 = np.zeros(16, dtype=np.int64)
u64 = np.zeros(16, dtype=np.uint64)
u8 = np.zeros(16, dtype=np.uint8)
sc = np.zeros(SCRATCH_SIZE, dtype=np.int64)
calls = {
    "RLE v2": lambda: decode_rle_v2(buf, 0, 3, i64, 0, 5, False, new_state(), sc),
    "RLE v1": lambda: decode_rle_v1(buf, 0, 3, i64, 0, 1, True, new_state(), sc),
    "varints": lambda: decode_uvarints(buf, 0, 3, i64, 0, 1, new_state()),
    "byte RLE": lambda: decode_byte_rle(buf, 0, 3, u8, 0, 1, new_state(), sc),
    "boolean RLE": lambda: decode_boolean_rle(buf, 0, 3, np.zeros(16, np.bool_), 0, 1, new_state(), sc),
    "bit unpacking": lambda: unpack_bits(buf, 0, 3, 8, 3, i64, 0),
    "decimal varints": lambda: decode_decimal_varints(buf, 0, 3, i64, u64, 0, 1, new_state()),
    "timestamp": lambda: combine_timestamp(i64, i64, i64.copy(), 0),
    "PRESENT spread": lambda: spread_present(i64, np.ones(16, np.bool_), i64.copy(), 0),
    "ORC bloom hashing": lambda: (bloom.hash_longs(i64, u64), bloom.hash_strings(u8, np.zeros(2, np.int64), u64)),
    "ORC bloom test": lambda: bloom.bloom_test_many(u64, 64 * 16, 3, u64, np.zeros(16, np.bool_)),
    "Parquet split-block": lambda: (
        split_block.xxhash64_fixed(u8, 8, u64[:2]),
        split_block.sbbf_insert_many(split_block.new_filter(32), u64),
        split_block.sbbf_check_many(split_block.new_filter(32), u64, np.zeros(16, np.bool_)),
    ),
}
for name, call in calls.items():
    t = time.perf_counter()
    call()
    print(f"{name}\t{time.perf_counter() - t:.3f}")
print(f"import\t{t_import:.3f}")
print(f"total\t{time.perf_counter() - t0:.3f}")
"""


def measure_compile() -> list[tuple[str, float, float]]:
    """Seconds to import and first-call each kernel in a new process: with an empty cache, then with it warm."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        runs = []
        for _ in range(2):
            out = subprocess.run(
                [sys.executable, "-c", COMPILE_PROBE], env=env, check=True, capture_output=True, text=True
            )
            runs.append(dict(line.split("\t") for line in out.stdout.strip().splitlines()))
    rows = [(name, float(runs[0][name]), float(runs[1][name])) for name in runs[0]]
    for name, cold, warm in rows:
        print(f"compile {name:24s} cold {cold:7.2f} s   cached {warm:6.3f} s")
    return rows


def write_results(bench: Bench, compile_rows: list[tuple[str, float, float]], command: str) -> None:
    lines = [
        "## Kernels",
        "",
        f"Command: `{command}` on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"one thread, {bench.n:,} values per kernel, best of {REPEATS}.",
        "",
        "| kernel | M values/s | GB/s in | GB/s out | memcpy of output, M values/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, values, in_bytes, out_bytes, seconds, copy in bench.rows:
        lines.append(
            f"| {name} | {values / seconds / 1e6:,.0f} | {in_bytes / seconds / 1e9:.2f} | "
            f"{out_bytes / seconds / 1e9:.2f} | {values / copy / 1e6:,.0f} |"
        )
    if compile_rows:
        lines += [
            "",
            "First call in a new process (import, then one call of each kernel on tiny input, in this order), seconds."
            " Kernels share compiled helpers, so one called after another that uses the same helper compiles less"
            " (bit unpacking is compiled by RLE v2 before it):",
            "",
            "| kernel | empty cache (compile) | warm cache (load) |",
            "|---|---:|---:|",
        ]
        lines += [f"| {name} | {cold:.2f} | {warm:.3f} |" for name, cold, warm in compile_rows]
    write_section("Kernels", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
