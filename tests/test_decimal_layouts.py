"""Decimals as the older and newer formats store them: ORC Java's pre-2.0 format (file version 1.9999,
"UNSTABLE-PRE-2.0"), whose decimals of precision 18 or less are one RLE v2 integer stream, and Hive 0.11 files,
whose decimal type states no precision or scale and whose values each carry their own.

Pre-2.0 files are written by ORC Java 2.3 through the Spark JVM (``OrcFile.Version.UNSTABLE_PRE_2_0``); pyarrow
and pyorc cannot write that version (ORC C++ can, but neither exposes it), so ORC C++ appears as a reader only:
orcjit's values are compared with pyorc's, pyarrow's and ORC Java's own reader's. Hive 0.11 files are built by
:mod:`tests.hive11` (no writer at hand writes them any more) and read by ORC C++ (pyarrow, pyorc: ``decimal(38,6)``,
further digits truncated), ORC Java (each value exactly as stored) and Spark (``decimal(38,10)``, rounded half up):
orcjit's three ``hive11_decimals`` rules against each.
"""

from __future__ import annotations

import random
import subprocess
import sys
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.orc as po
import pyorc
import pytest

import orcjit
from orcjit import OrcError
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.stripes import SECONDARY

from .fuzz_harness import decode_file, encode_file
from .hive11 import write_hive11_decimals
from .orc_java import read_orc_java_decimals, write_orc_java_decimals
from .pre20 import write_pre20_decimals

ROWS = 6000
STRIDE = 1000  # ORC Java writes no smaller row groups
PRE20_SCHEMA = "struct<p1:decimal(1,0),p10:decimal(10,2),p18:decimal(18,4),p19:decimal(19,3),p38:decimal(38,6)>"
WIDE = Context(prec=80)  # the default 28 digits would round 38-digit values
PRECISIONS = {"p1": (1, 0), "p10": (10, 2), "p18": (18, 4), "p19": (19, 3), "p38": (38, 6)}


def _decimals(precision: int, scale: int, n: int, seed: int) -> list[Decimal | None]:
    """Values of ``decimal(precision, scale)``: the extremes, zero, small and wide ones, runs of repeats (RLE),
    about one null in ten."""
    r = random.Random(seed)
    top = 10**precision - 1
    out: list[Decimal | None] = []
    while len(out) < n:
        shape = r.random()
        if shape < 0.1:
            out.append(None)
            continue
        if shape < 0.2:
            unscaled = r.choice([top, -top, 0, 1, -1])
        elif shape < 0.5:
            unscaled = r.randint(-min(1000, top), min(1000, top))
        else:
            unscaled = r.randint(-top, top)
        out += [Decimal(unscaled).scaleb(-scale, context=WIDE)] * (r.randint(1, 20) if shape < 0.3 else 1)
    return out[:n]


@pytest.fixture(scope="module")
def pre20(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list[Decimal | None]]]:
    """The same decimals written by ORC Java as pre-2.0 and as 0.12: several stripes, row groups of 1,000 rows."""
    folder = tmp_path_factory.mktemp("pre20")
    columns = {name: _decimals(p, s, ROWS, seed) for seed, (name, (p, s)) in enumerate(PRECISIONS.items())}
    options = {"stripe_size": 32 * 1024, "row_index_stride": STRIDE}
    unstable = write_orc_java_decimals(spark, folder / "pre20.orc", PRE20_SCHEMA, columns, **options)
    v12 = write_orc_java_decimals(spark, folder / "v12.orc", PRE20_SCHEMA, columns, version="V_0_12", **options)
    return unstable, v12, columns


def _frame(columns: dict[str, list[Decimal | None]]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(values, dtype=object) for name, values in columns.items()})


# -- ORC Java's pre-2.0 format -----------------------------------------------------------------------------------------


def test_pre20_stores_short_decimals_as_integers(pre20: tuple[Path, Path, Any]) -> None:
    """The layout under test is really there: version 1.9999, no SECONDARY stream for precision 18 or less."""
    path, _, _ = pre20
    with orcjit.ORCFile(path) as f:
        assert f.file_version == "1.9999" and f.nstripes > 1
        for i in range(f.nstripes):
            secondary = {s.column for s in f.stripe_footer(i).streams if s.kind == SECONDARY}
            assert secondary == {f.schema["p19"].column_id, f.schema["p38"].column_id}


def test_pre20_values_equal_every_reader(spark: Any, pre20: tuple[Path, Path, Any]) -> None:
    path, v12, columns = pre20
    want = _frame(columns)
    got = orcjit.read_orc(path)
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(orcjit.read_orc(v12), want)
    assert read_orc_java_decimals(spark, path) == columns
    with path.open("rb") as fh:
        assert [list(row) for row in pyorc.Reader(fh)] == [list(r) for r in zip(*columns.values(), strict=True)]
    for backend in (None, "numpy_nullable", "pyarrow"):
        expected = pd.read_orc(path, dtype_backend=backend) if backend else pd.read_orc(path)
        pd.testing.assert_frame_equal(orcjit.read_orc(path, dtype_backend=backend), expected)
    assert orcjit.ORCFile(path).read_arrow().equals(po.read_table(path))


def test_pre20_seeks_and_filters(pre20: tuple[Path, Path, Any]) -> None:
    """Row ranges entered through the row index, and filtered reads that skip row groups, equal the full read."""
    path, _, columns = pre20
    full = _frame(columns)
    r = random.Random(3)
    with orcjit.ORCFile(path) as f:
        for _ in range(12):
            start = r.randrange(ROWS)
            stop = min(ROWS, start + r.randrange(1, 1500))
            got = f.read_rows(start, stop)
            pd.testing.assert_frame_equal(got.reset_index(drop=True), full.iloc[start:stop].reset_index(drop=True))
        for name in ("p10", "p18", "p19"):
            present = [v for v in columns[name] if v is not None]
            low, high = sorted(r.sample(present, 2))
            for filters in ([(name, ">=", low), (name, "<=", high)], [(name, "in", [low, high])], [(name, "==", 0)]):
                got = f.read(filters=filters)
                mask = full[name].map(lambda v, fs=filters: v is not None and all(_holds(v, op, x) for _, op, x in fs))
                pd.testing.assert_frame_equal(got, full[mask.astype(bool)].reset_index(drop=True))
        narrow = f.explain([("p18", "==", columns["p18"][0] or 0)]).to_dict()
        assert any(s.get("row_groups_skipped_by_statistics", 0) for s in narrow["stripes"])


def _holds(value: Decimal, op: str, bound: Any) -> bool:
    if op == "in":
        return value in bound
    return {">=": value.__ge__, "<=": value.__le__, "==": value.__eq__, "<": value.__lt__, ">": value.__gt__}[op](bound)


def test_pre20_through_spark(spark: Any, pre20: tuple[Path, Path, Any]) -> None:
    import orcjit.spark

    path, _, _ = pre20
    orcjit.spark.register(spark)
    ours = spark.read.format("orcjit").load(str(path))
    theirs = spark.read.orc(str(path))
    assert ours.schema == theirs.schema
    assert sorted(map(tuple, ours.collect()), key=repr) == sorted(map(tuple, theirs.collect()), key=repr)


def test_pre20_built_without_a_jvm_is_what_orc_java_writes(
    spark: Any, pre20: tuple[Path, Path, Any], tmp_path: Path
) -> None:
    """:mod:`tests.pre20` (the fuzz corpus's pre-2.0 file, built where there is no JVM) lays each column out as ORC
    Java does (the same stream kinds, the same encodings) and ORC Java's reader reads it to the same values."""
    real, _, columns = pre20
    built = write_pre20_decimals(
        tmp_path / "built.orc",
        {name: (*PRECISIONS[name], values) for name, values in columns.items()},
        stride=STRIDE,
        stripe_rows=2000,
    )

    def layout(path: Path) -> dict[str, tuple[frozenset[int], int]]:
        with orcjit.ORCFile(path) as f:
            footer = f.stripe_footer(0)
            out = {}
            for name in columns:
                column = f.schema[name].column_id
                kinds = frozenset(s.kind for s in footer.streams if s.column == column)
                out[name] = (kinds, footer.encodings[column].kind)
            return out

    assert layout(built) == layout(real)
    assert read_orc_java_decimals(spark, built) == columns
    pd.testing.assert_frame_equal(orcjit.read_orc(built, columns=list(columns)), _frame(columns))
    with orcjit.ORCFile(built) as f:
        got = f.read_rows(1500, 3700, columns=list(columns)).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, _frame(columns).iloc[1500:3700].reset_index(drop=True))


@pytest.mark.parametrize("version", [[1, 9998], [2, 0], [1, 9999, 1][:1]])
def test_versions_orcjit_does_not_know_are_refused(
    pre20: tuple[Path, Path, Any], version: list[int], tmp_path: Path
) -> None:
    data = pre20[0].read_bytes()
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    del ps.version[:]
    ps.version.extend(version)
    raw = ps.SerializeToString()
    path = tmp_path / "future.orc"
    path.write_bytes(data[: -1 - ps_len] + raw + bytes([len(raw)]))
    with pytest.raises(OrcError, match=rf"future.orc: file format version {'.'.join(map(str, version))} is not ORC v1"):
        orcjit.read_orc(path)


# -- Hive 0.11 decimals ------------------------------------------------------------------------------------------------

# each value with its own scale: negative, more digits than 6 (truncated by ORC C++, rounded by Spark), exactly 6,
# fewer, none, trailing zeros, and 35 digits at scale 10
HIVE11_VALUES = [
    Decimal("12345678.6547456"),
    Decimal("-1.23456789"),
    Decimal("5"),
    None,
    Decimal("1.5"),
    Decimal("-0.0000005"),
    Decimal("0.0000015"),
    Decimal("-12345678.6547455"),
    Decimal("123.1234565"),
    Decimal("0.12345678901234"),
    Decimal("-9.99999999999"),
    Decimal("1.0000009"),
    Decimal("9999999999999999999999999.99999"),
    Decimal("0.000"),
]


def _hive11_column(n: int, seed: int) -> list[Decimal | None]:
    r = random.Random(seed)
    out: list[Decimal | None] = []
    for i in range(n):
        if i < len(HIVE11_VALUES):
            out.append(HIVE11_VALUES[i])
        elif r.random() < 0.1:
            out.append(None)
        else:
            out.append(Decimal(r.randint(-(10**12), 10**12)).scaleb(-r.randint(0, 12), context=WIDE))
    return out


@pytest.fixture(scope="module")
def hive11(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[Decimal | None]]]:
    columns = {"d": _hive11_column(ROWS, 1), "e": _hive11_column(ROWS, 2)[::-1]}
    path = write_hive11_decimals(tmp_path_factory.mktemp("h11") / "h11.orc", columns, stride=STRIDE, stripe_rows=2000)
    return path, columns


def _truncated(value: Decimal | None, scale: int) -> Decimal | None:
    return None if value is None else value.quantize(Decimal(1).scaleb(-scale), rounding="ROUND_DOWN", context=WIDE)


def test_hive11_by_default_as_orc_cpp_and_pandas(hive11: tuple[Path, Any]) -> None:
    path, columns = hive11
    with orcjit.ORCFile(path) as f:
        assert f.schema["d"].hive11_decimal and str(f.schema["d"]) == "decimal" and f.nstripes == 3
    got = orcjit.read_orc(path)
    for backend in (None, "numpy_nullable", "pyarrow"):
        expected = pd.read_orc(path, dtype_backend=backend) if backend else pd.read_orc(path)
        pd.testing.assert_frame_equal(orcjit.read_orc(path, dtype_backend=backend), expected)
    assert got["d"].tolist() == [_truncated(v, 6) for v in columns["d"]]  # ORC C++'s rule, stated here
    with path.open("rb") as fh:
        assert [row[1] for row in pyorc.Reader(fh)] == got["d"].tolist()


def test_hive11_as_orc_java_is_sparks(spark: Any, hive11: tuple[Path, Any]) -> None:
    import orcjit.spark

    path, columns = hive11
    theirs = spark.read.orc(str(path)).orderBy("id")
    assert theirs.schema["d"].dataType.simpleString() == "decimal(38,10)"
    got = orcjit.read_orc(path, hive11_decimals="orc_java")
    assert got["d"].tolist() == [r.d for r in theirs.select("d").collect()]
    want = [
        None if v is None else v.quantize(Decimal("1E-10"), rounding="ROUND_HALF_UP", context=WIDE)
        for v in columns["d"]
    ]
    assert got["d"].tolist() == want
    orcjit.spark.register(spark)
    ours = spark.read.format("orcjit").load(str(path)).orderBy("id")
    assert ours.schema == theirs.schema
    assert ours.collect() == theirs.collect()


def test_hive11_exact_is_orc_javas_reader(spark: Any, hive11: tuple[Path, Any]) -> None:
    path, columns = hive11
    got = orcjit.read_orc(path, hive11_decimals="exact")
    java = read_orc_java_decimals(spark, path)
    for name in ("d", "e"):
        assert got[name].tolist() == java[name]  # equal values; ORC Java's HiveDecimal drops trailing zeros
        assert [None if v is None else v.as_tuple() for v in got[name]] == [
            None if v is None else v.as_tuple() for v in columns[name]
        ]  # orcjit keeps each value's scale as stored
    with pytest.raises(OrcError, match="scale per value"):
        orcjit.read_orc(path, hive11_decimals="exact", dtype_backend="pyarrow")
    with pytest.raises(OrcError, match="scale per value"):
        orcjit.ORCFile(path).read_arrow(hive11_decimals="exact")
    with pytest.raises(OrcError, match="hive11_decimals must be one of"):
        orcjit.read_orc(path, hive11_decimals="java")


@pytest.mark.parametrize("rule", ["orc_cpp", "orc_java", "exact"])
def test_hive11_seeks_and_filters(hive11: tuple[Path, Any], rule: str) -> None:
    """Row ranges enter the varint DATA and the scales by the row index; filters keep exactly the rows whose value,
    as the rule gives it, holds, and statistics prune nothing."""
    path, _ = hive11
    full = orcjit.read_orc(path, hive11_decimals=rule)
    r = random.Random(5)
    with orcjit.ORCFile(path) as f:
        for _ in range(8):
            start = r.randrange(ROWS)
            stop = min(ROWS, start + r.randrange(1, 1200))
            got = f.read_rows(start, stop, hive11_decimals=rule).reset_index(drop=True)
            pd.testing.assert_frame_equal(got, full.iloc[start:stop].reset_index(drop=True))
        for filters in ([("d", "<=", 1)], [("d", "==", Decimal("1.000000"))], [("e", ">", 0), ("d", "<", 0)]):
            got = f.read(filters=filters, hive11_decimals=rule)
            mask = np.ones(len(full), dtype=bool)
            for column, op, bound in filters:
                mask &= np.array([v is not None and _holds(v, op, bound) for v in full[column]])
            pd.testing.assert_frame_equal(got, full[mask].reset_index(drop=True))
        explained = f.explain([("d", "<=", 1)]).to_dict()
        assert explained["stripes_read"] == f.nstripes
        assert not any(s.get("row_groups_skipped_by_statistics") for s in explained["stripes"])


def test_hive11_statistics_describe_values_as_stored(tmp_path: Path) -> None:
    """A row group whose values are all 1.0000009 has a minimum above 1, yet ORC C++'s rule reads them as 1.000000,
    which ``d <= 1`` keeps: statistics (and bloom filters) of Hive 0.11 decimals must not prune, so none do."""
    values = [Decimal("1.0000009")] * STRIDE + [Decimal("5")] * STRIDE
    path = write_hive11_decimals(tmp_path / "edge.orc", {"d": values}, stride=STRIDE)
    with orcjit.ORCFile(path) as f:
        assert f.row_index(0, "d").statistics[0].minimum == Decimal("1.0000009")
        assert len(f.read(filters=[("d", "<=", 1)])) == STRIDE
        assert len(f.read(filters=[("d", "<=", 1)], hive11_decimals="orc_java")) == 0
        assert len(f.read(filters=[("d", "==", Decimal("1.000000"))])) == STRIDE
        assert len(f.read(filters=[("d", "in", [Decimal("1.0000009")])], hive11_decimals="exact")) == STRIDE


def test_hive11_compressed(tmp_path: Path, hive11: tuple[Path, Any]) -> None:
    path, columns = hive11
    zipped = write_hive11_decimals(tmp_path / "z.orc", columns, stride=STRIDE, stripe_rows=2000, compression="zlib")
    assert orcjit.ORCFile(zipped).compression == "ZLIB"
    for rule in ("orc_cpp", "exact"):
        pd.testing.assert_frame_equal(
            orcjit.read_orc(zipped, hive11_decimals=rule), orcjit.read_orc(path, hive11_decimals=rule)
        )
    with orcjit.ORCFile(zipped) as f:
        pd.testing.assert_frame_equal(f.read_rows(2400, 2600), orcjit.read_orc(path).iloc[2400:2600])


def test_values_past_38_digits_at_the_column_scale(tmp_path: Path) -> None:
    """A decimal(38,0) value of 39 digits stored at the column's own scale is corrupt: it needs no rescaling (which
    would find it), so the digits are checked on their own; OrcError names the value, whatever is read."""
    values = [Decimal(1), Decimal(10**38), Decimal(-5)]
    model = decode_file(write_hive11_decimals(tmp_path / "wide.orc", {"d": values}).read_bytes())
    model.footer.types[2].precision = 38  # a decimal(38,0) column: no longer Hive 0.11's
    model.footer.types[2].scale = 0
    path = tmp_path / "wide38.orc"
    path.write_bytes(encode_file(model))
    with orcjit.ORCFile(path) as f:
        assert f.schema.children[1].decimal_precision == 38 and not f.schema.children[1].hive11_decimal
        for read in (f.read, lambda: f.read(dtype_backend="pyarrow"), f.read_arrow):
            with pytest.raises(OrcError, match=r"decimal value 1\.0+E\+38 has more digits than decimal\(38,0\) holds"):
                read()


def test_hive11_values_past_38_digits_at_the_scale(tmp_path: Path) -> None:
    """38 digits at scale 0 need 44 at scale 6: ORC C++ and Spark refuse the read, and so does orcjit unless asked
    for the values as stored."""
    values = [Decimal("9" * 34), Decimal("1"), Decimal("9" * 38), Decimal("-" + "9" * 38)]
    path = write_hive11_decimals(tmp_path / "wide.orc", {"d": values})
    for rule in ("orc_cpp", "orc_java"):
        with pytest.raises(OrcError, match=r"does not fit 38 digits at scale \d+ \(hive11_decimals='exact'"):
            orcjit.read_orc(path, hive11_decimals=rule)
    # ORC C++ refuses them too: pyarrow 26 raises; pyarrow 16 aborts the process, hence a process of its own
    code = f"import pyarrow.orc as po; po.read_table({str(path)!r})"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode < 0 or "Hive 0.11 decimal was more than 38 digits" in run.stderr, run.stderr[-500:]
    assert orcjit.read_orc(path, hive11_decimals="exact")["d"].tolist() == values
