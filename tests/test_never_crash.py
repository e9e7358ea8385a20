"""Arrays built from file data keep Arrow's invariants, or the read raises OrcError first: never a crash.

A map whose keys hold nulls is the file that aborted the interpreter: Arrow checks map keys when it builds a map
array and aborts the process (``Check failed ... Map array keys array should have no nulls``), which
``reading/arrow.py`` reached while building a result. ORC C++ writes such files (pyorc writes a ``None`` key and
reads it back) and a hostile file needs only one more stream in a stripe footer. orcjit refuses null keys where
the keys are decoded, in every read, with or without pyarrow: no pandas or Arrow map can hold them.

Reads of such files run in a child process, so that an abort fails the test instead of ending pytest.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest

import orcjit
from orcjit import OrcError, ORCFile
from tests import fuzz_harness as fh
from tests.factory import all_types_table, write_pyarrow, write_pyorc

ROOT = Path(__file__).resolve().parents[1]

# every way of reading a whole file, each in the child process in turn
READS = {
    "read": "f.read()",
    "read numpy_nullable": "f.read(dtype_backend='numpy_nullable')",
    "read pyarrow": "f.read(dtype_backend='pyarrow')",
    "read categories": "f.read(dictionary_as_category=True)",
    "read_arrow": "f.read_arrow()",
    "iter_stripes": "list(f.iter_stripes())",
    "read_stripe": "f.read_stripe(0)",
    "read_rows": "f.read_rows(1, f.nrows)",
    "projection": "f.read(columns=['m'])",
    "read_orc": "orcjit.read_orc(f.source.name)",
}
NUMPY_ONLY = ("read", "read numpy_nullable", "read categories", "iter_stripes", "read_stripe", "read_rows")

CHILD = """
import sys
import orcjit
with orcjit.ORCFile(sys.argv[1]) as f:
    for label, call in READS.items():
        print(label, end=": ", flush=True)
        try:
            eval(call)
        except orcjit.OrcError as e:
            print("OrcError:", e, flush=True)
        else:
            print("returned", flush=True)
"""


def read_in_child(path: Path, reads: tuple[str, ...] = tuple(READS), pyarrow: bool = True) -> dict[str, str]:
    """Each read of ``path`` in a child process: what it raised (``"OrcError: ..."``) or ``"returned"``. The child
    must exit normally: an abort or a crash fails the calling test with what the child printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not pyarrow:
        env["ORCJIT_NO_PYARROW"] = "1"
    code = f"READS = {dict((k, READS[k]) for k in reads)!r}\n{CHILD}"
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT
    )
    assert done.returncode == 0, f"the child died with {done.returncode}:\n{done.stdout}\n{done.stderr[-2000:]}"
    outcomes = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert list(outcomes) == list(reads), done.stdout
    return outcomes


def assert_null_keys_refused(outcomes: dict[str, str], path: Path, column: int, nulls: int, index: bool = True) -> None:
    """Every read raised OrcError for the null keys; ``index=False``: the row index does not match the streams, and
    read_rows, which seeks with it, may fail on that first."""
    for label, outcome in outcomes.items():
        if label == "read_rows" and not index:
            assert outcome.startswith(f"OrcError: {path}: stripe 0, column {column}"), outcome
            continue
        # read_rows starts at row 1, past the first map's nulls
        count = r"\d+" if label == "read_rows" else str(nulls)
        expected = (
            rf"OrcError: {re.escape(str(path))}: stripe 0, column {column} PRESENT stream: {count} keys of map 'm'"
        )
        assert re.match(expected + " are null, which Arrow maps cannot hold$", outcome), (label, outcome)


def test_null_map_keys_written_by_orc_cpp(tmp_path: Path) -> None:
    """pyorc (ORC C++) writes a map with a null key and reads it back; orcjit refuses it in every read."""
    rows = [(0, {"a": 1.0, None: 2.0}), (1, {}), (2, None), (3, {None: None, "b": 3.0, "c": None})]
    path = write_pyorc(tmp_path / "null_keys.orc", "struct<id:int,m:map<string,double>>", rows, compression="zlib")
    with path.open("rb") as f:
        assert list(pyorc.Reader(f)) == rows  # the oracle: a file ORC C++ reads as written
    assert_null_keys_refused(read_in_child(path), path, column=3, nulls=2)
    assert_null_keys_refused(read_in_child(path, NUMPY_ONLY, pyarrow=False), path, column=3, nulls=2)


def _map_file_with_null_keys(tmp_path: Path) -> tuple[Path, int, int]:
    """A pyarrow-written file mutated as the fuzzer mutates files: its stripe footer lists the PRESENT stream of
    the map's values a second time, for the map's keys. Returns the path, the keys' column and their nulls."""
    table = all_types_table(n=300, seed=11).select(["i32", "map"]).rename_columns(["i", "m"])
    data = write_pyarrow(tmp_path / "maps.orc", table, compression="zlib").read_bytes()
    model = fh.decode_file(data)
    types = model.footer.types
    map_column = next(i for i, t in enumerate(types) if t.kind == fh.MAP)
    keys, items = types[map_column].subtypes
    stripe = model.stripes[0]
    present = next(s for s in stripe.streams if s.column == items and s.kind == fh.PRESENT)
    at = next(i for i, s in enumerate(stripe.streams) if s.column == keys)
    stripe.streams.insert(at, fh.Stream(fh.PRESENT, keys, present.data))
    path = tmp_path / "null_keys_mutated.orc"
    path.write_bytes(fh.encode_file(model))
    # the map's value nulls, now read as key nulls: as many as the values' PRESENT stream clears
    nulls = int(table.column("m").combine_chunks().items.null_count)
    assert nulls > 0
    return path, keys, nulls


def test_mutated_file_that_aborted_the_interpreter(tmp_path: Path) -> None:
    path, keys, nulls = _map_file_with_null_keys(tmp_path)
    assert_null_keys_refused(read_in_child(path), path, keys, nulls, index=False)
    assert_null_keys_refused(read_in_child(path, NUMPY_ONLY, pyarrow=False), path, keys, nulls, index=False)


def test_maps_without_null_keys_still_read(tmp_path: Path) -> None:
    """The check costs nothing to valid files: maps read as pyarrow reads them, keys and all."""
    table = all_types_table(n=300, seed=11).select(["map"])
    path = write_pyarrow(tmp_path / "maps.orc", table, compression="zlib")
    with ORCFile(path) as f:
        assert f.read_arrow().column("map").equals(pa_orc.read_table(path).column("map"))
        got = f.read()["map"]
    expected = pd.read_orc(path)["map"]
    assert got.map(lambda v: v if v is None else list(v)).tolist() == expected.tolist()


# -- Arrow's other limits ----------------------------------------------------------------------------------------


def test_union_of_more_variants_than_arrow_holds(tmp_path: Path) -> None:
    """ORC unions have up to 256 variants, Arrow unions 128: read_arrow says so; the NumPy paths read every tag
    (they were cut to int8: tag 129 came back as -127 with no value)."""
    schema = "struct<u:uniontype<" + ",".join(["int"] * 129 + ["string"]) + ">>"
    rows = [(5,), ("x",), (-1,), ("yz",)]  # ints take the first variant, strings the last
    buffer = io.BytesIO()
    with pyorc.Writer(buffer, schema) as writer:
        writer.writerows(rows)
    data = buffer.getvalue()
    assert list(pyorc.Reader(io.BytesIO(data))) == rows
    expected = [{"tag": 0 if isinstance(v, int) else 129, "value": v} for (v,) in rows]
    with ORCFile(data) as f:
        assert f.read()["u"].tolist() == expected
        with pytest.raises(OrcError, match=r"column 'u': a union of 130 variants, more than an Arrow union holds"):
            f.read_arrow()
        with pytest.raises(OrcError, match="more than an Arrow union holds"):
            f.read(dtype_backend="pyarrow")
    code = f"import orcjit; print(orcjit.read_orc({data!r})['u'].tolist())"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ORCJIT_NO_PYARROW": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert done.stdout.strip() == repr(expected)


def test_decimal_scale_past_the_precision(tmp_path: Path) -> None:
    """A decimal's scale may not pass its precision (a scale of 2**32 - 1 reached Arrow's decimal type as an
    OverflowError). A decimal without a precision is a Hive 0.11 one, whose values carry their own scales: the
    type's scale means nothing there, and is ignored as ORC C++ (pyarrow) ignores it."""
    table = pa.table({"d": pa.array([None, Decimal("1.5")], pa.decimal128(10, 2))})
    data = write_pyarrow(tmp_path / "d.orc", table, compression="none").read_bytes()
    for precision, scale, ok in ((10, 8, True), (10, 11, False), (38, 39, False), (20, 2**32 - 1, False)):
        model = fh.decode_file(data)
        model.footer.types[1].precision = precision
        model.footer.types[1].scale = scale
        mutated = fh.encode_file(model)
        if ok:
            with ORCFile(mutated) as f:
                assert f.read_arrow().column("d").type == pa.decimal128(precision, scale)
        else:
            message = f"decimal column 1 has scale {scale} larger than its precision {precision}"
            with pytest.raises(OrcError, match=message):
                ORCFile(mutated)
    for scale in (38, 39, 2**32 - 1):
        model = fh.decode_file(data)
        model.footer.types[1].ClearField("precision")
        model.footer.types[1].scale = scale
        mutated = fh.encode_file(model)
        oracle = pa_orc.ORCFile(pa.BufferReader(mutated)).read().column("d")
        with ORCFile(mutated) as f:
            got = f.read_arrow().column("d")
        assert got.type == oracle.type == pa.decimal128(38, 6)
        assert got.to_pylist() == oracle.to_pylist()


def test_decimal_values_with_more_digits_than_the_precision(tmp_path: Path) -> None:
    """A value with more digits than its column's precision is corrupt (no writer stores one, and Arrow's full
    validation refuses it): OrcError names the value and the type. Found by the fuzzer's validation of read_arrow."""
    values = [Decimal("12345678.91"), None, Decimal("-0.01"), Decimal("999.99")]
    table = pa.table({"d": pa.array(values, pa.decimal128(10, 2))})
    data = write_pyarrow(tmp_path / "d.orc", table, compression="none").read_bytes()
    assert pa_orc.ORCFile(pa.BufferReader(data)).read().column("d").to_pylist() == values  # the oracle
    for precision, fits in ((10, True), (12, True), (9, False), (4, False)):
        model = fh.decode_file(data)
        model.footer.types[1].precision = precision
        mutated = fh.encode_file(model)
        with ORCFile(mutated) as f:
            if fits:
                table = f.read_arrow()
                table.validate(full=True)
                assert table.column("d").to_pylist() == values
                assert f.read()["d"].tolist() == values
            else:
                match = rf"decimal value 12345678\.91 has more digits than decimal\({precision},2\) holds"
                for read in (f.read_arrow, f.read, lambda: f.read(dtype_backend="pyarrow")):
                    with pytest.raises(OrcError, match=match):
                        read()


# -- the fuzzer's nested mutators ----------------------------------------------------------------------------------

NESTED_MUTATORS = ("nested_lengths", "child_present", "union_tags", "nested_kind", "child_values")


@pytest.fixture(scope="module")
def nested_corpus(tmp_path_factory: pytest.TempPathFactory) -> list[fh.CorpusFile]:
    return [f for f in fh.load_corpus(tmp_path_factory.mktemp("nested"), examples=False) if "nested" in f.name]


def _as_pyorc(node: orcjit.TypeNode, array: pa.Array) -> list[object]:
    """The values of an Arrow array in the form pyorc reads them: structs as tuples, maps as dicts, a union's value
    without its tag. Built from the arrays' buffers, not Arrow's ``to_pylist``, which in pyarrow 14 reads the union
    values of a map entry past the first map as null."""
    kind = node.kind
    if kind == "struct":
        fields = [_as_pyorc(c, array.field(i)) for i, c in enumerate(node.children)]
        rows: list[object] = list(zip(*fields, strict=True)) if fields else [()] * len(array)
    elif kind in ("array", "map"):
        bounds = list(itertools.pairwise(array.offsets.to_pylist()))
        if kind == "array":
            elements = _as_pyorc(node.children[0], array.values)
            rows = [elements[a:b] for a, b in bounds]
        else:
            keys = _as_pyorc(node.children[0], array.keys)
            items = _as_pyorc(node.children[1], array.items)
            rows = [dict(zip(keys[a:b], items[a:b], strict=True)) for a, b in bounds]
    elif kind == "uniontype":
        variants = [_as_pyorc(c, array.field(i)) for i, c in enumerate(node.children)]
        return [variants[code][j] for j, code in enumerate(array.type_codes.to_pylist())]
    else:
        return array.to_pylist()
    valid = array.is_valid().to_pylist()
    return [row if ok else None for row, ok in zip(rows, valid, strict=True)]


def test_nested_corpus_reads_as_its_writers_wrote_it(nested_corpus: list[fh.CorpusFile]) -> None:
    """The fuzzer's nested files, with nulls at every level, read as pyorc and pyarrow read them."""
    names = {f.name for f in nested_corpus}
    assert names == {"pyorc-nested-none.orc", "pyorc-nested-zlib.orc", "pyarrow-nested-zstd.orc"}
    for f in nested_corpus:
        with ORCFile(f.data) as orc:
            table = orc.read_arrow()
            schema = orc.schema
        table.validate(full=True)
        if f.name.startswith("pyarrow"):
            assert table.equals(pa_orc.ORCFile(pa.BufferReader(f.data)).read()), f.name
        else:
            columns = [
                [value for chunk in table.column(i).chunks for value in _as_pyorc(node, chunk)]
                for i, node in enumerate(schema.children)
            ]
            assert list(zip(*columns, strict=True)) == list(pyorc.Reader(io.BytesIO(f.data))), f.name
