"""BROTLI-compressed files (ORC format 1.1, compression kind 6) read exactly as the same files in zstd or zlib.

The files are written by pyarrow and pyorc (ORC C++) and rewritten into Brotli chunks by :mod:`tests.orc_brotli`:
several stripes, row indexes, bloom filters, every type (char, varchar and unions from pyorc), lists, maps,
structs and unions nested with nulls at every level, RLE v1 and v2, dictionary and direct strings. Each is
rewritten three ways: chunks of the source's block size; of 4 KiB with every third chunk stored original; of 1000
bytes with every fifth original. Most chunks are then exactly a block. Every read of a Brotli file (whole, by
columns, each dtype backend, Arrow, by stripe, seeks with ``read_rows``, filtered reads entering row groups,
``explain``, row indexes and bloom filters) must equal the same read of its source file, and
``pandas.read_orc``/``pyarrow.orc`` of the source where they read the columns.

Damaged Brotli chunks (corrupt, cut short, followed by other bytes, expanding past the block size) give an
OrcError naming the stripe, column and stream; ``tests/test_memory_bombs.py`` reads the same bombs in a child
process and bounds its peak memory. Without the ``brotli`` module, reading a Brotli file names the extra to
install.

ORC Java: Spark's jars hold orc-core 2.3.0 with its ``BrotliCodec``, but that codec needs the brotli4j library
(``com.aayushatharva.brotli4j``), which Spark does not ship and which is not installed here (no package registry
this project uses provides it). ORC Java can therefore neither write nor read a Brotli file in this environment:
:func:`test_orc_java_brotli` checks that the writer fails for exactly that reason and is skipped with it. Where
brotli4j is on Spark's classpath it reads the file ORC Java writes instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.orc as pa_orc
import pytest

import orcjit
from orcjit import OrcError
from tests import fuzz_harness
from tests.factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc
from tests.orc_brotli import to_brotli
from tests.test_cli import field, run
from tests.test_memory_bombs import (
    BROTLI,
    COLUMN,
    DATA,
    StoredPart,
    join_compressed,
    split_file,
    valid_file,
)
from tests.test_read_differential import BACKENDS, assert_same

ROOT = Path(__file__).resolve().parents[1]

# (block size, every n-th chunk stored original): the source's blocks; 4 KiB; 1000 bytes
VARIANTS = {"source-blocks": (None, 0), "4KiB-third-original": (4096, 3), "1000B-fifth-original": (1000, 5)}


def _sources(directory: Path) -> dict[str, Path]:
    schema, rows = all_types_pyorc(6000, seed=4)
    return {
        # RLE v2, dictionary strings, zstd, bloom filters, four stripes
        "pyarrow-zstd": write_pyarrow(
            directory / "pyarrow-zstd.orc",
            all_types_table(30_000, seed=3),
            compression="zstd",
            stripe_size=64 * 1024,
            row_index_stride=1000,
            bloom_filter_columns=["i32", "str"],
            dictionary_key_size_threshold=1.0,
        ),
        # RLE v1, direct strings, zlib
        "pyarrow-zlib-v11": write_pyarrow(
            directory / "pyarrow-zlib-v11.orc",
            all_types_table(20_000, seed=5),
            compression="zlib",
            file_version="0.11",
            stripe_size=64 * 1024,
            row_index_stride=2000,
            bloom_filter_columns=["i64", "str"],
        ),
        # char, varchar, unions; 8 KiB blocks
        "pyorc-zlib": write_pyorc(
            directory / "pyorc-zlib.orc",
            schema,
            rows,
            compression="zlib",
            compression_block_size=8192,
            stripe_size=64 * 1024,
            row_index_stride=500,
            bloom_filter_columns=["i64", "str"],
            dict_key_size_threshold=1.0,
        ),
        # lists, maps, structs and unions inside each other, in one stripe of ten row groups (pyorc 0.12 crashes
        # writing a few thousand of these rows)
        "pyorc-nested-zstd": write_pyorc(
            directory / "pyorc-nested-zstd.orc",
            fuzz_harness.NESTED_PYORC_SCHEMA,
            fuzz_harness.nested_rows(1000, seed=7),
            compression="zstd",
            stripe_size=4096,
            row_index_stride=100,
        ),
    }


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[Path, Path, dict[str, int]]]:
    """(source, variant) -> the source file, its Brotli rewrite, and how many chunks of each kind the rewrite has."""
    directory = tmp_path_factory.mktemp("brotli")
    out = {}
    for name, source in _sources(directory).items():
        for variant, (block_size, original_every) in VARIANTS.items():
            data, kinds = to_brotli(source.read_bytes(), block_size, original_every)
            target = directory / f"{name}-{variant}-brotli.orc"
            target.write_bytes(data)
            out[(name, variant)] = (source, target, kinds)
    return out


CASES = [
    (name, variant)
    for name in ("pyarrow-zstd", "pyarrow-zlib-v11", "pyorc-zlib", "pyorc-nested-zstd")
    for variant in VARIANTS
]
CASE_IDS = [f"{name}-{variant}" for name, variant in CASES]


def _pandas_columns(f: orcjit.ORCFile) -> list[str]:
    """The top-level fields pandas.read_orc reads: those without a union, which its NumPy backends refuse."""
    return [child.name for child in f.schema.children if "uniontype" not in str(child)]


def _top_fields(f: orcjit.ORCFile) -> list[str]:
    return [child.name for child in f.schema.children]


def assert_equal(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Equal columns, dtypes, index and values. ``DataFrame.equals`` decides in milliseconds where
    :func:`assert_same` takes seconds, but takes a NaN inside a list for unequal to itself: then assert_same decides.
    """
    same_types = list(got.columns) == list(expected.columns) and list(got.dtypes) == list(expected.dtypes)
    if not (same_types and got.equals(expected)):
        assert_same(got, expected)


# -- the rewritten files --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant"), CASES, ids=CASE_IDS)
def test_rewrites_hold_brotli_and_original_chunks_of_whole_blocks(
    files: dict[tuple[str, str], Any], name: str, variant: str
) -> None:
    source, path, kinds = files[(name, variant)]
    block_size, original_every = VARIANTS[variant]
    with orcjit.ORCFile(source) as s, orcjit.ORCFile(path) as f:
        assert f.compression == "BROTLI"
        assert s.compression in ("ZSTD", "ZLIB")
        assert f.compression_block_size == (block_size or s.compression_block_size)
        assert f.nstripes == s.nstripes >= (1 if name == "pyorc-nested-zstd" else 2)
        assert f.row_index_stride == s.row_index_stride > 0
    assert kinds["brotli"] + kinds["brotli, a whole block"] > 0
    if original_every:
        assert kinds["brotli, a whole block"] > 0
        assert kinds["original, a whole block"] > 0
        assert kinds["original"] > 0


def test_orcfile_and_meta_say_brotli(files: dict[tuple[str, str], Any], capsys: pytest.CaptureFixture[str]) -> None:
    _, path, _ = files[("pyarrow-zstd", "4KiB-third-original")]
    code, out, err = run(capsys, "meta", path)
    assert (code, err) == (0, "")
    assert field(out, "Compression") == "BROTLI, block size 4096 bytes (4.0 KiB)"
    assert json.loads(run(capsys, "meta", path, "--json")[1])["compression"] == "BROTLI"


# -- reads equal the source's ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant"), CASES, ids=CASE_IDS)
def test_reads_equal_the_source_and_pandas(files: dict[tuple[str, str], Any], name: str, variant: str) -> None:
    source, path, _ = files[(name, variant)]
    with orcjit.ORCFile(path) as f:
        pandas_columns = _pandas_columns(f)
        fields = _top_fields(f)
    for backend in BACKENDS:
        got = orcjit.read_orc(path, **backend)
        assert_equal(got, orcjit.read_orc(source, **backend))
        if variant == "source-blocks":  # the other variants equal the same source's read, so pandas' too
            assert_same(got[pandas_columns], pd.read_orc(source, columns=pandas_columns, **backend))
    # one column at a time, each read without the others' streams
    for column in fields[:: max(1, len(fields) // 6)]:
        assert_equal(orcjit.read_orc(path, columns=[column], dtype_backend="pyarrow"), got[[column]])
    with orcjit.ORCFile(path) as f, orcjit.ORCFile(source) as s:
        assert f.read_arrow().equals(pa_orc.read_table(source))
        whole = f.read()
        assert_equal(pd.concat(list(f.iter_stripes())), whole)
        assert_equal(f.read(use_threads=False), whole)
        assert_equal(f.read(dictionary_as_category=True), s.read(dictionary_as_category=True))


def _rows(frame: pd.DataFrame, start: int, stop: int) -> pd.DataFrame:
    """Rows ``start:stop`` of ``frame`` taken, not sliced: pyarrow 16 reads wrong values out of a sparse union
    sliced past its start (newer pyarrow does not)."""
    part = frame.take(np.arange(start, stop))
    part.index = frame.index[start:stop]
    return part


@pytest.mark.parametrize(("name", "variant"), CASES, ids=CASE_IDS)
def test_seeks_equal_the_source(files: dict[tuple[str, str], Any], name: str, variant: str) -> None:
    """read_rows enters row groups with the row index, whose positions now name Brotli chunks."""
    source, path, _ = files[(name, variant)]
    # ORC C++ (pyorc 0.12) stores the nested file's unions inside structs inside maps so that a read from the
    # stripe's start gives other values than were written (-85 where -31 was written, say: pyorc's own reader
    # agrees), while a seek by the row index gives the written ones; there the Brotli file's seeks are compared
    # with the source's seeks only
    exact = name != "pyorc-nested-zstd"
    arrow = "pyarrow"  # the dtypes of a few rows are those of the whole file only with Arrow's nullable types
    with orcjit.ORCFile(source) as s, orcjit.ORCFile(path) as f:
        whole = s.read(dtype_backend=arrow)
        n = len(whole)
        stride = f.row_index_stride
        fields = _top_fields(f)
        for start in (0, stride - 1, stride + 7, 3 * stride + 1, n // 2, n - 3):
            for stop in (start + 1, start + stride + 5):
                stop = min(stop, n)
                got = f.read_rows(start, stop, dtype_backend=arrow)
                assert_same(got, s.read_rows(start, stop, dtype_backend=arrow))
                if exact:
                    assert_same(got, _rows(whole, start, stop))
            got = f.read_rows(start, min(n, start + 40), columns=fields[:2], dtype_backend=arrow)
            assert_same(got, s.read_rows(start, min(n, start + 40), columns=fields[:2], dtype_backend=arrow))
            if exact:
                assert_same(got, _rows(whole, start, min(n, start + 40))[fields[:2]])
        assert_same(f.read_rows(n // 3, n // 3 + 50), s.read_rows(n // 3, n // 3 + 50))
        # across each stripe boundary
        first = 0
        for stripe in f.stripes[:-1]:
            first += stripe.rows
            assert_same(f.read_rows(first - 3, first + 3, dtype_backend=arrow), _rows(whole, first - 3, first + 3))


def _filters(whole: pd.DataFrame, fields: list[str]) -> list[list[tuple[str, str, Any]]]:
    """Point lookups of values present (bloom filters) and absent, ranges and ``in`` on the integer and string
    columns the file has."""
    out: list[list[tuple[str, str, Any]]] = []
    for name in ("i32", "i64", "str", "id"):
        if name not in fields:
            continue
        values = whole[name].dropna()
        value, other = (v.item() if isinstance(v, np.generic) else v for v in values.iloc[[len(values) * 2 // 3, 5]])
        out.append([(name, "==", value)])
        out.append([(name, "in", [value, other])])
        if isinstance(value, str):
            out.append([(name, "==", "not a value of the file")])
        else:
            out.append([(name, "==", -12345)])
            out.append([(name, ">", value)])
            out.append([(name, "<", values.min() + (values.max() - values.min()) // 20)])
    return out


@pytest.mark.parametrize(("name", "variant"), CASES, ids=CASE_IDS)
def test_filtered_reads_and_explain_equal_the_source(
    files: dict[tuple[str, str], Any], name: str, variant: str
) -> None:
    source, path, _ = files[(name, variant)]
    exact = name != "pyorc-nested-zstd"  # see test_seeks_equal_the_source
    arrow = "pyarrow"
    with orcjit.ORCFile(source) as s, orcjit.ORCFile(path) as f:
        whole = s.read(dtype_backend=arrow)
        fields = _top_fields(f)
        filters = _filters(whole, fields)
        assert filters
        for filt in filters:
            got = f.read(filters=filt, dtype_backend=arrow)
            assert_equal(got, s.read(filters=filt, dtype_backend=arrow))
            assert_equal(f.read(filters=filt), s.read(filters=filt))
            assert_equal(f.read(filters=filt, columns=fields[:2], dtype_backend=arrow), got[fields[:2]])
            # the rows kept are those whose values pass, as pandas selects them from the whole file
            column, op, value = filt[0]
            values = whole[column]
            if op == "in":
                mask = values.isin(value)
            else:
                mask = {"==": values.__eq__, ">": values.__gt__, "<": values.__lt__}[op](value)
            if exact:
                assert_equal(got, whole[mask.fillna(False).astype(bool)].reset_index(drop=True))
            # the same stripes and row groups are kept, for the same reasons; only bytes counts differ
            ours, theirs = (str(x.explain(filt)).splitlines() for x in (f, s))
            assert [line for line in ours if not line.startswith("bytes:")] == [
                line for line in theirs if not line.startswith("bytes:")
            ]


def test_bloom_filters_prune_row_groups_of_brotli_files(files: dict[tuple[str, str], Any]) -> None:
    """The row indexes and bloom filters of a Brotli file are read and used: a point lookup skips row groups by
    bloom filter, as in the zstd source."""
    source, path, _ = files[("pyarrow-zstd", "1000B-fifth-original")]
    with orcjit.ORCFile(source) as s, orcjit.ORCFile(path) as f:
        whole = s.read()
        value = int(whole["i32"].dropna().iloc[12_345])
        plan = f.explain([("i32", "==", value)]).to_dict()
        skipped = sum(stripe.get("row_groups_skipped_by_bloom_filter", 0) for stripe in plan["stripes"])
        assert skipped > 0, plan
        bytes_counts = ("bytes_to_read", "index_bytes_read", "file_size")
        assert plan == {**s.explain([("i32", "==", value)]).to_dict(), **{k: plan[k] for k in bytes_counts}}
        for stripe in range(f.nstripes):
            ours, theirs = f.bloom_filter(stripe, "i32"), s.bloom_filter(stripe, "i32")
            assert ours is not None and theirs is not None
            assert ours.to_dict() == theirs.to_dict()
            assert ours.might_contain(value).tolist() == theirs.might_contain(value).tolist()
            ours_index, theirs_index = f.row_index(stripe, "i32"), s.row_index(stripe, "i32")
            assert ours_index is not None and theirs_index is not None
            statistics = [c for c in theirs_index.to_frame().columns if not c.endswith("position")]
            pd.testing.assert_frame_equal(ours_index.to_frame()[statistics], theirs_index.to_frame()[statistics])


# -- damaged chunks ----------------------------------------------------------------------------------------------------


def _damaged(replace: bytes) -> bytes:
    """The bombs' valid file in Brotli chunks, its column ``i`` DATA stream replaced by the chunks ``replace``."""
    parts = split_file(valid_file(False))
    stripe = parts.stripes[0]
    stripe.streams[stripe.find(COLUMN["i"], DATA)] = StoredPart(DATA, COLUMN["i"], replace)
    return join_compressed(parts, BROTLI)


def _chunk(body: bytes, original: bool = False) -> bytes:
    return ((len(body) << 1) | original).to_bytes(3, "little") + body


def _damages() -> dict[str, tuple[bytes, str]]:
    import brotli

    # (Brotli has no checksum: damage inside a stream may decode to other bytes, for the value decoders to find
    # wrong or not; the fuzzer reads such files. These are damages the Brotli decoder itself reports.)
    good = brotli.compress(bytes(range(200)) * 10, quality=5)
    return {
        "corrupt": (_chunk(b"\xff" * 4 + good[4:]), "BROTLI chunk is corrupt"),
        "cut short": (_chunk(good[: len(good) // 2]), "BROTLI chunk ends before its Brotli stream does"),
        "bytes after its end": (_chunk(good + b"\x00\x01"), "BROTLI chunk is corrupt: it is not one whole"),
        "past the block size": (
            _chunk(brotli.compress(bytes(64 * 1024 + 1), quality=5)),
            "BROTLI chunk expands past the compression block size of 65536 bytes",
        ),
        "a bomb": (
            _chunk(brotli.compress(bytes(1 << 30), quality=5)),
            "BROTLI chunk expands past the compression block size of 65536 bytes",
        ),
        "after a good chunk": (_chunk(good) + _chunk(b"\xff\xff\xff"), "chunk at byte"),
    }


@pytest.mark.parametrize("damage", list(_damages()))
def test_damaged_chunks_name_the_stream(damage: str) -> None:
    replace, message = _damages()[damage]
    data = _damaged(replace)
    column = COLUMN["i"]
    for read in (
        lambda: orcjit.read_orc(data),
        lambda: orcjit.read_orc(data, columns=["i"], use_threads=False),
        lambda: orcjit.ORCFile(data).read_rows(150, 160),
        lambda: orcjit.ORCFile(data).read_arrow(),
        lambda: orcjit.read_orc(data, filters=[("i", ">", 0)]),
    ):
        with pytest.raises(OrcError) as caught:
            read()
        text = str(caught.value)
        assert f"stripe 0, column {column} DATA stream" in text, text
        assert message in text, text
    # the other columns do not need the damaged stream
    assert len(orcjit.read_orc(data, columns=["s"])) == 1000


def test_undamaged_file_reads() -> None:
    """The file the damaged ones are made from, in Brotli chunks, reads as the uncompressed original."""
    data = join_compressed(split_file(valid_file(False)), BROTLI)
    with orcjit.ORCFile(data) as f:
        assert f.compression == "BROTLI"
        assert_same(f.read(), orcjit.read_orc(valid_file(False)))


# -- without the extra ------------------------------------------------------------------------------------------------

_CHILD = """
import json, sys
{prelude}
import orcjit
from orcjit.cli import main
out = {{}}
try:
    orcjit.read_orc(sys.argv[1])
    out["read"] = None
except BaseException as exc:
    out["read"] = [type(exc).__name__, isinstance(exc, ImportError), isinstance(exc, orcjit.OrcError), str(exc)]
out["zstd rows"] = len(orcjit.read_orc(sys.argv[2]))
out["cli"] = main(["meta", sys.argv[1]])
print(json.dumps(out))
"""

_OLD_BROTLI = """
import types
class _Decompressor:
    def process(self, data):
        return b""
sys.modules["brotli"] = types.SimpleNamespace(Decompressor=_Decompressor, error=Exception, __version__="1.1.0")
"""


@pytest.mark.parametrize(
    ("prelude", "message"),
    [
        (
            'sys.modules["brotli"] = None',
            'reading a BROTLI-compressed ORC file needs brotli, which is not installed: pip install "orcjit[brotli]"',
        ),
        (
            _OLD_BROTLI,
            "reading a BROTLI-compressed ORC file needs brotli 1.2 or newer, which bounds what a chunk may expand "
            'to; found 1.1.0: pip install --upgrade "orcjit[brotli]"',
        ),
    ],
    ids=["missing", "too old"],
)
def test_without_brotli_the_error_names_the_extra(
    files: dict[tuple[str, str], Any], prelude: str, message: str
) -> None:
    source, path, _ = files[("pyarrow-zstd", "source-blocks")]
    code = _CHILD.format(prelude=textwrap.dedent(prelude))
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), str(source)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["read"] == ["MissingExtraError", True, False, message]
    assert out["zstd rows"] == 30_000  # files of the other codecs do not need it
    assert out["cli"] == 1
    assert done.stderr.strip().splitlines() == [f"orcjit: error: {message}"]


# -- ORC Java ---------------------------------------------------------------------------------------------------------


def test_orc_java_brotli(spark: Any, tmp_path: Path) -> None:
    """ORC Java's own Brotli writer: where it runs, orcjit and ORC Java read its file alike; where it cannot (Spark's
    jars lack brotli4j, as here: see the module docstring), the failure is that one, as docs/guides/types.md says."""
    from py4j.protocol import Py4JJavaError

    from tests.orc_java import read_orc_java, write_orc_java

    rng = np.random.default_rng(6)
    columns = {"x": rng.integers(-(10**12), 10**12, 50_000), "d": np.arange(50_000) % 1000}
    try:
        path = write_orc_java(
            spark, tmp_path / "java-brotli.orc", "struct<x:bigint,d:bigint>", columns, "UTC", compression="BROTLI"
        )
    except Py4JJavaError as exc:
        # ORC Java's BrotliCodec loads brotli4j when the writer is created
        assert "NoClassDefFoundError: com/aayushatharva/brotli4j" in str(exc), str(exc)[:2000]
        return
    with orcjit.ORCFile(path) as f:
        assert f.compression == "BROTLI"
        got = f.read()
        assert f.read_rows(30_000, 30_010)["x"].tolist() == columns["x"][30_000:30_010].tolist()
    assert got["x"].tolist() == columns["x"].tolist()
    assert got["d"].tolist() == columns["d"].tolist()
    theirs = read_orc_java(spark, path, "UTC")
    assert theirs["x"].tolist() == columns["x"].tolist()
