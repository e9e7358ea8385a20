"""The standard speed-benchmark dataset: 10 columns of the common ORC types, one file per codec.

Files are written by pyarrow (ORC C++) into the gitignored ``benchmarks/data/`` once and reused: building the
10M-row table takes a few seconds, writing each codec 10-30 s. Every column is generated vectorised, so the
generator costs little next to the writer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"
CODECS = ("zstd", "zlib", "snappy", "lz4", "none")
# pyarrow.orc's names for the codecs, where they differ from ours
_PYARROW_CODEC = {"none": "uncompressed"}
# ORC C++'s "speed" strategy runs LZ4 at an acceleration so high that no chunk ever shrinks: every chunk is
# stored uncompressed and the file is as large as with none (pyarrow 26). The "compression" strategy gives real
# LZ4 chunks; the other codecs keep the writer's default, as the figures do.
_STRATEGY = {"lz4": "compression"}

# name -> what it holds; the order is the file's column order
COLUMNS = {
    "random_int": "int64, uniform over +-2^62 (incompressible)",
    "seq_int": "int64, 0, 1, 2, ... (RLE v2 delta)",
    "small_int": "int32, uniform in [0, 1000)",
    "float": "float64, normal",
    "dict_str": "string, 100 distinct values (dictionary encoded)",
    "unique_str": "string, unique ids (direct encoded)",
    "flag": "bool, 30% true",
    "ts": "timestamp, 5 years at microsecond precision",
    "amount": "decimal(38,6), 13 digits",
    "day": "date, 55 years",
}
TYPES = {
    "random_int": "bigint",
    "seq_int": "bigint",
    "small_int": "int",
    "float": "double",
    "dict_str": "string",
    "unique_str": "string",
    "flag": "boolean",
    "ts": "timestamp",
    "amount": "decimal(38,6)",
    "day": "date",
}
# the columns whose decoding is pure integer / float / boolean work: compared with decompression alone
NUMERIC = ("random_int", "seq_int", "small_int", "float", "flag")
STRIPE_SIZE = 64 * 1024 * 1024
SMALL_ROWS = 10_000
SEED = 20260707


def table(rows: int):  # type: ignore[no-untyped-def]
    """The dataset as a pyarrow Table of ``rows`` rows (same seed, so the same values every time)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(SEED)
    ids = pa.array(rng.permutation(rows).astype(np.int64) * 7919)
    unique = pc.binary_join_element_wise("id-", pc.cast(ids, pa.string()), "")
    words = np.array([f"{w}-{i}" for i, w in enumerate(["alpha", "bravo", "charlie", "delta", "echo"] * 20)])
    # decimal128 is two little-endian int64 words per value: the low word, then its sign extension
    unscaled = rng.integers(-(10**12), 10**12, rows)
    words128 = np.empty((rows, 2), dtype=np.int64)
    words128[:, 0] = unscaled
    words128[:, 1] = unscaled >> 63
    amount = pa.Array.from_buffers(pa.decimal128(38, 6), rows, [None, pa.py_buffer(words128)])
    micros = rng.integers(0, 5 * 365 * 86_400 * 10**6, rows).astype("timedelta64[us]")
    return pa.table(
        {
            "random_int": rng.integers(-(2**62), 2**62, rows),
            "seq_int": np.arange(rows, dtype=np.int64),
            "small_int": rng.integers(0, 1000, rows).astype(np.int32),
            "float": rng.normal(0, 1e6, rows),
            "dict_str": pa.array(words[rng.integers(0, len(words), rows)]),
            "unique_str": unique,
            "flag": rng.random(rows) < 0.3,
            "ts": pa.array(np.datetime64("2020-01-01", "us") + micros).cast(pa.timestamp("ns")),
            "amount": amount,
            "day": pa.array(rng.integers(0, 20_000, rows).astype(np.int32)).cast(pa.date32()),
        }
    )


def path_for(rows: int, codec: str, data_dir: Path = DATA_DIR) -> Path:
    """Where the file of ``rows`` rows in ``codec`` lives (whether or not it exists yet)."""
    return Path(data_dir) / f"speed-{rows}-{codec}.orc"


def files(rows: int, codecs: tuple[str, ...] | list[str], data_dir: Path = DATA_DIR) -> dict[str, Path]:
    """The dataset in each of ``codecs``, writing the files that are missing.

    A file is written under a temporary name and renamed, so an interrupted run leaves no half-written file
    for the next run to trust.
    """
    import pyarrow.orc as po

    out = {codec: path_for(rows, codec, data_dir) for codec in codecs}
    missing = [codec for codec, path in out.items() if not path.exists()]
    if missing:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        data = table(rows)
        for codec in missing:
            print(f"writing {out[codec].name}", flush=True)
            partial = out[codec].with_suffix(".orc.partial")
            po.write_table(
                data,
                str(partial),
                compression=_PYARROW_CODEC.get(codec, codec),
                stripe_size=STRIPE_SIZE,
                compression_strategy=_STRATEGY.get(codec, "speed"),
                dictionary_key_size_threshold=0.8,  # ORC Java's default: unique keys direct, categories dictionary
            )
            partial.rename(out[codec])
    return out
