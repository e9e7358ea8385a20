"""Reading a directory of ORC files: orcjit against pyarrow.dataset and Spark, in one run.

The dataset is laid out as Spark writes one (``year=/city=`` folders of part files and ``_SUCCESS``; no ``.crc``
files, which Hadoop's local filesystem would check):
``--files`` part files of ``--rows`` rows each (ids increasing over the files, a double, a string of 1,000
distinct values), written by pyarrow with dictionary strings (``dictionary_key_size_threshold=1``) and zstd, row
groups of 10,000 rows. Reads, each the best of ``--repeat`` in a warm process (the first call's compiling is
``benchmarks/firstcall.py``'s subject):

- the whole dataset to pandas: ``orcjit.read_orc(dir)`` and ``pyarrow.dataset.dataset(dir, format="orc",
  partitioning="hive").to_table().to_pandas()``;
- a filter on a partition column (one city of one year) and one on a data column (one id: statistics rule out all
  files but one, row groups most of that one), with ``filters=`` and with pyarrow's ``filter=`` expression;
- with ``--spark``, ``spark.read.orc(dir)`` with the same filters and ``.toPandas()`` (a local[2] session).

Ratios are the other reader's time over orcjit's: above 1, orcjit is faster.

Run ``python benchmarks/datasets.py`` (a minute on 2 cores; ``--spark`` adds about one more);
``--no-write`` prints without touching RESULTS.md.
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
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import write_section  # noqa: E402

CITIES = ("Lima", "Oslo", "Pune", "San Jose")
YEARS = (2022, 2023, 2024)


def write_dataset(root: Path, files: int, rows: int) -> None:
    import pyarrow as pa
    import pyarrow.orc as pa_orc

    rng = np.random.default_rng(20)
    words = np.array([f"customer-{i:05d}" for i in range(1000)], dtype=object)
    folders = [(y, c) for y in YEARS for c in CITIES]
    for i in range(files):
        year, city = folders[i % len(folders)]
        folder = root / f"year={year}" / f"city={city.replace(' ', '%20')}"
        folder.mkdir(parents=True, exist_ok=True)
        ids = np.arange(i * rows, (i + 1) * rows, dtype=np.int64)
        table = pa.table(
            {"id": ids, "amount": rng.normal(100, 30, rows), "customer": pa.array(words[rng.integers(0, 1000, rows)])}
        )
        path = folder / f"part-{i:05d}-c000.zstd.orc"
        pa_orc.write_table(
            table, str(path), compression="zstd", row_index_stride=10_000, dictionary_key_size_threshold=1.0
        )
    (root / "_SUCCESS").write_bytes(b"")


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=120)
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--spark", action="store_true", help="also time spark.read.orc (needs pyspark and Java 17)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()

    import pyarrow.compute as pc
    import pyarrow.dataset as pa_ds

    import orcjit

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sales"
        write_dataset(root, args.files, args.rows)
        one_id = (args.files // 2) * args.rows + 123
        cases: list[tuple[str, Any, Any]] = [
            ("whole dataset", None, None),
            (
                "year == 2023 and city == 'Oslo'",
                [("year", "==", 2023), ("city", "==", "Oslo")],
                (pc.field("year") == 2023) & (pc.field("city") == "Oslo"),
            ),
            (f"id == {one_id}", [("id", "==", one_id)], pc.field("id") == one_id),
        ]
        orcjit.read_orc(root)  # compile
        spark = _spark() if args.spark else None
        lines = []
        for label, filters, expression in cases:
            ours = best(lambda f=filters: orcjit.read_orc(root, filters=f), args.repeat)

            def arrow(e: Any = expression) -> Any:
                dataset = pa_ds.dataset(str(root), format="orc", partitioning="hive")
                return dataset.to_table(filter=e).to_pandas()

            n_ours, n_arrow = len(orcjit.read_orc(root, filters=filters)), len(arrow())
            assert n_ours == n_arrow, (label, n_ours, n_arrow)
            theirs = best(arrow, args.repeat)
            row = f"| {label} | {n_ours:,} | {ours * 1000:.0f} | {theirs * 1000:.0f} | {theirs / ours:.2f}x |"
            if spark is not None:
                sdf = spark.read.orc(str(root))
                if filters:
                    sdf = sdf.filter(" and ".join(_sql(t) for t in filters))
                slow = best(lambda d=sdf: d.toPandas(), max(2, args.repeat // 2))
                row += f" {slow * 1000:.0f} | {slow / ours:.2f}x |"
            lines.append(row)
            print(row, flush=True)
        if spark is not None:
            spark.stop()

    head = "| read | rows | orcjit ms | pyarrow.dataset ms | pyarrow / orcjit |"
    rule = "|---|---|---|---|---|"
    if args.spark:
        head += " spark.read.orc ms | Spark / orcjit |"
        rule += "---|---|"
    command = "python benchmarks/datasets.py" + (" --spark" if args.spark else "")
    section = "\n".join(
        [
            "## Datasets",
            "",
            f"`{command}` ({args.files} files of {args.rows:,} rows in `year=/city=` folders, pyarrow's writer with "
            f"dictionary strings and zstd; best of {args.repeat}, warm; Python {platform.python_version()}, "
            f"{os.cpu_count()} CPUs). pyarrow: `pyarrow.dataset.dataset(dir, format='orc', partitioning='hive')"
            ".to_table(filter=...).to_pandas()`.",
            "",
            head,
            rule,
            *lines,
            "",
        ]
    )
    if not args.no_write:
        write_section("Datasets", section)


def _sql(term: tuple[Any, ...]) -> str:
    value = term[2]
    return f"{term[0]} = {value!r}" if term[1] == "==" else f"{term[0]} {term[1]} {value!r}"


def _spark() -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


if __name__ == "__main__":
    main()
