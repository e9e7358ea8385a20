"""The standard speed-benchmark dataset: 10 columns of the common ORC types, one file per codec and writer.

Files are written into the gitignored ``benchmarks/data/`` once and reused, by one of :data:`WRITERS`:

- ``pyarrow``: ORC C++ through ``pyarrow.orc.write_table``, with ORC Java's dictionary threshold (0.8) so that
  the category strings are dictionary-encoded as every other writer does it by default (pyarrow's own default
  never uses dictionaries);
- ``spark``: ORC Java, the writer of Spark and Hive, driven by a local Spark session with its defaults
  (dictionary strings below the 0.8 threshold, 64 MiB stripes, row index stride 10,000), from the pyarrow
  file's values, so both writers hold the same rows.

``one_stripe=True`` asks either writer for a stripe large enough to hold the whole file. Building the 10M-row
table takes a few seconds, writing each file 10-60 s. Every column is generated vectorised, so the generator
costs little next to the writers.
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
ONE_STRIPE_SIZE = 1 << 30  # larger than any file the benchmarks write
SMALL_ROWS = 10_000
WRITERS = ("pyarrow", "spark")
WRITER_LABELS = {
    "pyarrow": "pyarrow (ORC C++), dictionary_key_size_threshold=0.8",
    "spark": "Spark (ORC Java 2.3 defaults)",
}
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


def path_for(
    rows: int, codec: str, data_dir: Path = DATA_DIR, writer: str = "pyarrow", one_stripe: bool = False
) -> Path:
    """Where the file of ``rows`` rows in ``codec`` by ``writer`` lives (whether or not it exists yet)."""
    name = f"speed-{rows}-{codec}" if writer == "pyarrow" else f"speed-{writer}-{rows}-{codec}"
    return Path(data_dir) / f"{name}{'-one-stripe' if one_stripe else ''}.orc"


def files(
    rows: int,
    codecs: tuple[str, ...] | list[str],
    data_dir: Path = DATA_DIR,
    writer: str = "pyarrow",
    one_stripe: bool = False,
) -> dict[str, Path]:
    """The dataset in each of ``codecs`` written by ``writer``, writing the files that are missing.

    A file is written under a temporary name and renamed, so an interrupted run leaves no half-written file
    for the next run to trust.
    """
    if writer not in WRITERS:
        raise ValueError(f"unknown writer {writer!r}; expected one of {', '.join(WRITERS)}")
    out = {codec: path_for(rows, codec, data_dir, writer, one_stripe) for codec in codecs}
    missing = [codec for codec, path in out.items() if not path.exists()]
    if missing:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        if writer == "pyarrow":
            _write_pyarrow(rows, {codec: out[codec] for codec in missing}, one_stripe)
        else:
            written = [path_for(rows, c, data_dir) for c in CODECS if path_for(rows, c, data_dir).exists()]
            source = written[0] if written else files(rows, ["zstd"], data_dir)["zstd"]
            _write_spark(source, {codec: out[codec] for codec in missing}, one_stripe)
    return out


def _write_pyarrow(rows: int, targets: dict[str, Path], one_stripe: bool) -> None:
    import pyarrow.orc as po

    data = table(rows)
    for codec, path in targets.items():
        print(f"writing {path.name}", flush=True)
        partial = path.with_suffix(".orc.partial")
        po.write_table(
            data,
            str(partial),
            compression=_PYARROW_CODEC.get(codec, codec),
            stripe_size=ONE_STRIPE_SIZE if one_stripe else STRIPE_SIZE,
            compression_strategy=_STRATEGY.get(codec, "speed"),
            dictionary_key_size_threshold=0.8,  # ORC Java's default: unique keys direct, categories dictionary
        )
        partial.rename(path)


def _write_spark(source: Path, targets: dict[str, Path], one_stripe: bool) -> None:
    """Rewrite ``source`` (the pyarrow file) with Spark's ORC writer, one file per codec."""
    import shutil

    from pyspark.sql import SparkSession

    from benchmarks.spark import start_spark

    ours = SparkSession.getActiveSession() is None  # a session of the caller's is left running
    spark = SparkSession.getActiveSession() or start_spark()
    try:
        frame = spark.read.orc(str(source))
        for codec, path in targets.items():
            print(f"writing {path.name} with Spark", flush=True)
            staging = path.with_suffix(".spark")
            shutil.rmtree(staging, ignore_errors=True)
            writer = frame.coalesce(1).write.option("compression", codec)
            if one_stripe:
                writer = writer.option("orc.stripe.size", str(ONE_STRIPE_SIZE))
            writer.orc(str(staging))
            (part,) = staging.glob("part-*.orc")
            part.rename(path)
            shutil.rmtree(staging)
    finally:
        if ours:
            spark.stop()
