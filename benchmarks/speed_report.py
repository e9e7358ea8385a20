"""The "Speed" section of benchmarks/RESULTS.md and benchmarks/speed.png, from the timings of ``run.py``.

Issue 7's targets are ratios measured in one run; :data:`TARGETS` lists them and :func:`targets_table` says
which the run met.
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks import dataset
from benchmarks.memory import LABELS as MEMORY_LABELS

PLOT = Path(__file__).resolve().parent / "speed.png"
MIB = 2**20

# per column to pandas, orcjit / (pyarrow read_table + to_pandas): issue 21's limits, and issue 7's for the two
# columns issue 21 leaves alone (unique strings; decimals, bound by building CPython Decimal objects)
COLUMN_LIMITS = {
    "random_int": 0.6,
    "seq_int": 0.6,
    "small_int": 0.6,
    "float": 0.6,
    "dict_str": 0.5,
    "unique_str": 0.8,
    "flag": 0.6,
    "ts": 0.4,
    "amount": 0.3,
    "day": 0.4,
}
ONE_STRIPE_LIMIT = 0.7  # issue 21: every column of the one-stripe file, orcjit / (read_table + to_pandas)


def primary_codec(codecs: list[str]) -> str:
    """The codec the targets are judged on: zstd, the issue's, when it was measured."""
    return "zstd" if "zstd" in codecs else codecs[0]


def _ratio(a: Any, b: Any) -> float | None:
    if a is None or b is None or not b.ms:
        return None
    return float(a.ms / b.ms)


def _x(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"


def _ms(timing: Any, repeats: int) -> str:
    if timing is None:
        return "—"
    text = f"{timing.ms:,.0f}" if timing.ms >= 100 else f"{timing.ms:.1f}" if timing.ms >= 1 else f"{timing.ms:.2f}"
    # pyorc's sample gets at most 3 runs, which the section's text says once
    expected = min(repeats, 3) if timing.sample_rows else repeats
    return text if timing.runs >= expected else f"{text} (n={timing.runs})"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> list[str]:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    return [_row(header), _row(align), *(_row(r) for r in rows), ""]


# ---- targets ----------------------------------------------------------------------------------------------------


@dataclass
class Target:
    """A limit on a measured value: per file (every writer and codec measured), per writer, or one per run."""

    label: str
    limit: float
    unit: str  # "x" for ratios, "s" for seconds
    per_file: Callable[[dict[str, Any]], float | None] | None = None
    per_writer: Callable[[dict[str, Any], str], float | None] | None = None
    global_value: Callable[[dict[str, Any]], float | None] | None = None
    # whether a file's value takes part in the worst-file column
    counts: Callable[[dict[str, Any]], bool] = lambda c: True


def _whole(a: str, b: str, part: str = "whole") -> Callable[[dict[str, Any]], float | None]:
    return lambda c: _ratio(c.get(part, {}).get(a), c.get(part, {}).get(b))


def _column(name: str) -> Callable[[dict[str, Any]], float | None]:
    def value(c: dict[str, Any]) -> float | None:
        cells = c.get("columns", {}).get(name, {})
        return _ratio(cells.get("orcjit"), cells.get("to_pandas"))

    return value


def _numeric(c: dict[str, Any]) -> float | None:
    numeric = c.get("numeric", {}).get("numeric", {})
    return _ratio(numeric.get("orcjit"), numeric.get("decompress"))


# below this share of the numeric columns' bytes in compressed chunks there is next to nothing to decompress,
# and a ratio against it says nothing (snappy: the writer keeps its chunks of random numbers uncompressed)
MIN_COMPRESSED_SHARE = 0.05


def _worth_decompressing(c: dict[str, Any]) -> bool:
    return bool(c.get("numeric", {}).get("numeric", {}).get("compressed_share", 0.0) >= MIN_COMPRESSED_SHARE)


def _one_stripe_worst(results: dict[str, Any], writer: str) -> float | None:
    c = results.get("onestripe", {}).get(writer)
    if c is None:
        return None
    ratios = [_column(name)(c) for name in c["columns"]]
    return max((r for r in ratios if r is not None), default=None)


def _small(results: dict[str, Any], writer: str) -> float | None:
    cells = results.get("small", {}).get(writer)
    return None if cells is None else _ratio(cells.get("orcjit"), cells.get("pandas"))


def _memory(results: dict[str, Any]) -> float | None:
    found = results.get("memory", {}).get("orcjit")
    return None if found is None else found["peak_growth_bytes"] / found["frame_bytes"]


def _first_call(kind: str) -> Callable[[dict[str, Any]], float | None]:
    return lambda results: results["firstcall"][kind]["total"] if "firstcall" in results else None


TARGETS = [
    Target("Whole file to pandas, default dtypes: orcjit / pandas.read_orc", 0.5, "x", _whole("orcjit", "pandas")),
    Target(
        "Whole file without the decimal column: orcjit / pandas.read_orc",
        0.3,
        "x",
        _whole("orcjit", "pandas", "whole_no_decimal"),
    ),
    *(
        Target(
            f"Column `{name}` ({dataset.TYPES[name]}) to pandas: orcjit / read_table + to_pandas",
            limit,
            "x",
            _column(name),
        )
        for name, limit in COLUMN_LIMITS.items()
    ),
    Target(
        "Whole file, dtype_backend='pyarrow': orcjit / pyarrow.orc.read_table",
        1.0,
        "x",
        _whole("orcjit_arrow", "read_table"),
    ),
    Target(
        "Numeric columns: orcjit / decompressing their streams alone (1 thread)",
        1.3,
        "x",
        _numeric,
        counts=_worth_decompressing,
    ),
    Target(
        "One-stripe file, slowest column alone: orcjit / read_table + to_pandas",
        ONE_STRIPE_LIMIT,
        "x",
        per_writer=_one_stripe_worst,
    ),
    Target("Small file, whole: orcjit / pandas.read_orc (warm process)", 0.5, "x", per_writer=_small),
    Target("Peak memory growth of read_orc / memory of its DataFrame", 1.5, "x", global_value=_memory),
    Target("New process, warm cache: import orcjit + small read", 0.7, "s", global_value=_first_call("warm")),
    Target("New process, empty cache: cold compile, import + small read", 5.0, "s", global_value=_first_call("cold")),
]


def _judge(value: float | None, limit: float) -> str:
    if value is None:
        return "not measured"
    return "met" if value <= limit else "**missed**"


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}x" if unit == "x" else f"{value:.2f} s"


def targets_table(results: dict[str, Any], codecs: list[str]) -> list[str]:
    """Each target with its value for each writer's file in the primary codec, and the worst value over every
    file measured (every writer and codec), which the result is judged on."""
    primary = primary_codec(codecs)
    writers = list(results["writers"])
    rows = []
    for target in TARGETS:
        cells = ["—"] * len(writers)
        worst_value: float | None = None
        where = ""
        if target.per_file is not None:
            measured = []
            for i, writer in enumerate(writers):
                files = results["writers"][writer]["codecs"]
                if primary in files:
                    cells[i] = _value(target.per_file(files[primary]), target.unit)
                for codec, c in files.items():
                    value = target.per_file(c)
                    if value is not None and target.counts(c):
                        measured.append((value, f"{writer} {codec}"))
            if measured:
                worst_value, where = max(measured)
        elif target.per_writer is not None:
            measured = []
            for i, writer in enumerate(writers):
                value = target.per_writer(results, writer)
                cells[i] = _value(value, target.unit)
                if value is not None:
                    measured.append((value, writer))
            if measured:
                worst_value, where = max(measured)
        else:
            assert target.global_value is not None
            worst_value = target.global_value(results)
        limit = f"<= {target.limit:g}{'x' if target.unit == 'x' else ' s'}"
        worst = _value(worst_value, target.unit) + (f" ({where})" if where else "")
        rows.append([target.label, limit, *cells, worst, _judge(worst_value, target.limit)])
    header = ["target", "limit", *(f"{w}, {primary}" for w in writers), "worst file", "result"]
    return _table(header, rows, numeric_from=1)


# ---- tables -----------------------------------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("numba", "numpy", "pandas", "pyarrow", "pyorc")
    )
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {versions}"


def whole_table(readers: dict[str, str], files: dict[str, Any], repeats: int) -> list[str]:
    """One row per codec's file: each reader's time on the whole file and orcjit's ratios."""
    keys = list(readers)
    header = ["codec", "file MiB", "stripes", *(readers[k] for k in keys)]
    header += ["orcjit / pandas.read_orc", "orcjit / to_pandas", "orcjit pyarrow / read_table"]
    header += ["without decimal: orcjit / pandas.read_orc"]
    rows = []
    for codec, c in files.items():
        whole = c.get("whole", {})
        rows.append(
            [
                codec,
                f"{c['file_bytes'] / MIB:,.0f}",
                str(c.get("stripes", "—")),
                *(_ms(whole.get(k), repeats) for k in keys),
                _x(_ratio(whole.get("orcjit"), whole.get("pandas"))),
                _x(_ratio(whole.get("orcjit"), whole.get("to_pandas"))),
                _x(_ratio(whole.get("orcjit_arrow"), whole.get("read_table"))),
                _x(_whole("orcjit", "pandas", "whole_no_decimal")(c)),
            ]
        )
    return _table(header, rows)


def column_table(
    readers: dict[str, str], cells_of: dict[str, Any], columns: list[str], repeats: int, limits: dict[str, float]
) -> list[str]:
    """One row per column read alone: each reader's time, orcjit's ratio and its limit."""
    columns = [c for c in columns if c in cells_of]
    keys = [k for k in readers if any(k in cells_of[c] for c in columns)]
    header = ["column", "type", *(readers[k] for k in keys), "orcjit / to_pandas", "limit"]
    header.append("orcjit pyarrow / read_table")
    rows = []
    for column in columns:
        cells = cells_of[column]
        rows.append(
            [
                f"`{column}`",
                dataset.TYPES[column],
                *(_ms(cells.get(k), repeats) for k in keys),
                _x(_ratio(cells.get("orcjit"), cells.get("to_pandas"))),
                f"{limits[column]:g}x",
                _x(_ratio(cells.get("orcjit_arrow"), cells.get("read_table"))),
            ]
        )
    return _table(header, rows, numeric_from=2)


def column_ratio_table(files: dict[str, Any], columns: list[str]) -> list[str]:
    rows = []
    for column in columns:
        cells = [_x(_column(column)(c)) for c in files.values()]
        rows.append([f"`{column}`", *cells, f"{COLUMN_LIMITS[column]:g}x"])
    return _table(["column", *files, "limit"], rows)


def numeric_table(readers: dict[str, str], files: dict[str, Any], repeats: int) -> list[str]:
    threads = "orcjit_1t" in readers
    header = ["codec", "columns", "stored MiB", "in compressed chunks", "decompressed MiB", "decompress alone"]
    header += ["orcjit", "orcjit / alone"]
    if threads:
        header += ["orcjit 1 thread", "1 thread / alone"]
    rows = []
    for codec, c in files.items():
        for scope, what in (("numeric", "numeric"), ("all", "all 10")):
            n = c["numeric"][scope]
            alone = n["decompress"]
            row = [
                codec,
                what,
                f"{n['stored_bytes'] / MIB:,.1f}",
                f"{100 * n['compressed_share']:.0f}%",
                f"{n['decompressed_bytes'] / MIB:,.1f}",
                _ms(alone, repeats) if alone else "none to do",
                _ms(n.get("orcjit"), repeats),
                _x(_ratio(n.get("orcjit"), alone)),
            ]
            if threads:
                row += [_ms(n.get("orcjit_1t"), repeats), _x(_ratio(n.get("orcjit_1t"), alone))]
            rows.append(row)
    return _table(header, rows, numeric_from=2)


def small_table(results: dict[str, Any], repeats: int) -> list[str]:
    readers = results["readers"]
    found = results["small"]
    keys = [k for k in readers if any(k in cells for cells in found.values())]
    rows = []
    for writer, cells in found.items():
        rows.append(
            [
                dataset.WRITER_LABELS[writer],
                *(_ms(cells.get(k), repeats) for k in keys),
                _x(_ratio(cells.get("orcjit"), cells.get("pandas"))),
            ]
        )
    return _table(["writer", *(readers[k] for k in keys), "orcjit / pandas.read_orc"], rows)


def memory_table(results: dict[str, Any]) -> list[str]:
    rows = []
    for key, found in results["memory"].items():
        rows.append(
            [
                MEMORY_LABELS[key],
                f"{found['frame_bytes'] / MIB:,.0f}",
                f"{found['peak_growth_bytes'] / MIB:,.0f}",
                _x(found["peak_growth_bytes"] / found["frame_bytes"]),
                f"{found['retained_bytes'] / MIB:,.0f}",
                f"{found['seconds']:.2f}",
            ]
        )
    header = ["reader", "DataFrame MiB", "peak RSS growth MiB", "peak / DataFrame", "RSS kept after MiB", "read s"]
    return _table(header, rows)


def first_call_table(results: dict[str, Any]) -> list[str]:
    found = results["firstcall"]
    rows = []
    for kind, label in (("cold", "empty cache (compiles)"), ("warm", f"warm cache (median of {found['warm_runs']})")):
        r = found[kind]
        rows.append([label, *(f"{r[k]:.2f}" for k in ("import", "read", "total", "process"))])
    return _table(["new process", "import orcjit s", "read s", "import + read s", "whole process s"], rows)


def section(results: dict[str, Any], args: argparse.Namespace) -> str:
    """The Markdown section, starting ``## Speed``."""
    codecs, columns, repeats = args.codecs, args.columns, args.repeats
    primary = primary_codec(codecs)
    readers = results["readers"]
    command = " ".join(["python", "benchmarks/run.py", *args.argv])
    lines = [
        "## Speed",
        "",
        f"Command: `{command}` on {machine()}; took {results['elapsed'] / 60:.1f} min.",
        "",
        f"Data: {args.rows:,} rows of 10 columns (`benchmarks/dataset.py`), each file named by its writer: "
        + "; ".join(f"**{w}**: {dataset.WRITER_LABELS[w]}" for w in results["writers"])
        + ". pyarrow's files have stripes of 64 MiB; Spark's the ORC Java default (64 MiB). Files are read from "
        f"the page cache. Times in milliseconds: the median of {repeats} runs after one warm-up, all in one "
        f"process. A reader whose warm-up shows its runs would take more than {args.budget:g} s gets fewer, "
        f"marked (n=runs). pyorc reads the first {min(args.pyorc_rows, args.rows):,} rows into Python tuples "
        "(median of at most 3 runs) and its time is scaled to all rows. orcjit uses its defaults"
        + (" (threads on), and once with `use_threads=False`." if "orcjit_1t" in readers else ".")
        + " Ratios below 1 mean orcjit is faster.",
        "",
    ]
    lines += [f"### Targets of issues 7 and 21 ({primary})", "", *targets_table(results, codecs)]
    for writer, found in results["writers"].items():
        files = found["codecs"]
        label = dataset.WRITER_LABELS[writer]
        first = files[primary] if primary in files else next(iter(files.values()))
        first_codec = primary if primary in files else next(iter(files))
        if any("whole" in c for c in files.values()):
            lines += [f"### Whole file, written by {label}", "", *whole_table(readers, files, repeats)]
            if writer == next(iter(results["writers"])) and PLOT.exists():
                lines += [f"![time per reader relative to read_table + to_pandas, {primary}]({PLOT.name})", ""]
        if "columns" in first:
            lines += [f"### Each column alone ({first_codec}), written by {label}", ""]
            lines += column_table(readers, first["columns"], columns, repeats, COLUMN_LIMITS)
            if len(files) > 1:
                lines += ["orcjit / read_table + to_pandas for each codec:", ""]
                lines += column_ratio_table(files, columns)
                for codec, c in files.items():
                    if codec != first_codec:
                        lines += [f"<details><summary>Each column alone ({codec}), written by {label}</summary>", ""]
                        lines += [*column_table(readers, c["columns"], columns, repeats, COLUMN_LIMITS)]
                        lines += ["</details>", ""]
        if "numeric" in first:
            lines += [
                f"### Numeric columns against decompression alone, written by {label}",
                "",
                f"Numeric columns: {', '.join(f'`{c}`' for c in dataset.NUMERIC)}. 'Decompress alone' is the codec "
                "library's one-chunk call over every compressed chunk of their streams, on one thread, with the "
                "bytes already in memory (`benchmarks/decompress.py`); chunks stored uncompressed cost it nothing. "
                f"Codecs with under {MIN_COMPRESSED_SHARE:.0%} of the bytes in compressed chunks are left out of the "
                "target's worst-file column.",
                "",
                *numeric_table(readers, files, repeats),
            ]
    for writer, c in results.get("onestripe", {}).items():
        lines += [
            f"### {args.one_stripe_rows:,} rows in one stripe ({primary}), written by {dataset.WRITER_LABELS[writer]}",
            "",
            f"The same columns in a file of {c['stripes']} stripe(s), {c['file_bytes'] / MIB:,.1f} MiB: the whole "
            "file, then each column alone.",
            "",
            *whole_table(readers, {primary: c}, repeats),
            *column_table(readers, c["columns"], columns, repeats, dict.fromkeys(COLUMN_LIMITS, ONE_STRIPE_LIMIT)),
        ]
    if "small" in results:
        lines += [
            f"### A small file: {args.small_rows:,} rows of the 10 columns ({primary})",
            "",
            f"The whole file read {args.small_repeats} times in a warm process (median): the unit cost of a read "
            "per file, as in Spark's `mapInPandas` or a `pandas_udf`.",
            "",
            *small_table(results, args.small_repeats),
        ]
    if "memory" in results:
        lines += [
            f"### Peak memory ({primary}, whole file, a new process per reader)",
            "",
            "Growth of the resident set above where it stood before the read (after imports and a warm-up read of "
            "a small file), against `DataFrame.memory_usage(deep=True).sum()` of the result "
            f"(`benchmarks/memory.py`), on the file written by {dataset.WRITER_LABELS[args.writers[0]]}.",
            "",
            *memory_table(results),
        ]
    if "firstcall" in results:
        lines += [
            f"### First call ({primary}, {dataset.SMALL_ROWS:,} rows, all 10 columns)",
            "",
            "A new Python process runs `import orcjit; orcjit.read_orc(small file)` with `NUMBA_CACHE_DIR` set to "
            "a new empty directory (everything the read needs is compiled), then new processes with the same "
            "directory (loaded from the cache) (`benchmarks/firstcall.py`).",
            "",
            *first_call_table(results),
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def write(text: str) -> None:
    from benchmarks.results import write_section

    write_section("Speed", text)


# ---- plot -------------------------------------------------------------------------------------------------------


def plot(results: dict[str, Any], args: argparse.Namespace, path: Path) -> None:
    """Bars per reader of time relative to read_table + to_pandas, for the whole file and each column."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    codec = primary_codec(args.codecs)
    files = next(iter(results["writers"].values()))["codecs"]
    if codec not in files:
        path.unlink(missing_ok=True)
        return
    c = files[codec]
    groups: list[tuple[str, dict[str, Any]]] = []
    if "whole" in c:
        groups.append(("whole file", c["whole"]))
    groups += [(name, c["columns"][name]) for name in args.columns if "columns" in c]
    keys = [k for k in results["readers"] if k != "to_pandas" and any(k in cells for _, cells in groups)]
    groups = [(name, cells) for name, cells in groups if "to_pandas" in cells]
    if not groups or not keys:
        path.unlink(missing_ok=True)  # a plot of an earlier run would not match this run's tables
        return
    fig, ax = plt.subplots(figsize=(13, 5.5))
    width = 0.8 / len(keys)
    for i, key in enumerate(keys):
        xs, ys = [], []
        for g, (_, cells) in enumerate(groups):
            value = _ratio(cells.get(key), cells["to_pandas"])
            if value is not None:
                xs.append(g - 0.4 + width * (i + 0.5))
                ys.append(value)
        ax.bar(xs, ys, width, label=results["readers"][key])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)), [name for name, _ in groups], rotation=20)
    ax.set_ylabel("time / (read_table + to_pandas), log scale")
    ax.set_title(f"{args.rows:,} rows, {codec}: time relative to pyarrow read_table + to_pandas (lower is faster)")
    ax.legend(fontsize=8, ncols=3)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path.name}")
