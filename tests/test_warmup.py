"""``orcjit warmup``: after it, a new process reads files of every type without compiling a kernel.

The warmups run in subprocesses with a fresh ``NUMBA_CACHE_DIR`` each (once with pyarrow, once with ``import
pyarrow`` failing); then other subprocesses with the same cache directory read files written here by pyarrow and
pyorc (every type, each codec, nulls, RLE v1, unions, char and varchar) and the ORC project's LZO example, through
the public API's paths and filtered with every op on every primitive column, and count Numba's compile events:
there must be none.

The files warmup reads ship in ``orcjit/data`` and are written by ``scripts/make_warmup_orc.py``; its LZO writer
(``scripts/orc_rewrite.py``) is tested here, loaded by path since ``scripts/`` is not a package.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest

import orcjit
from orcjit.cli import main
from orcjit.pushdown.filters import COMPARISONS, NULL_OPS, SET_OPS
from orcjit.types.kinds import FILTERABLE_KINDS
from orcjit.warmup import GROUPS

from .conftest import EXAMPLES
from .factory import COMPRESSIONS, all_types_pyorc, all_types_table, write_pyarrow, write_pyorc

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "orcjit" / "data"
NO_PYARROW = "import sys; sys.modules['pyarrow'] = None\n"

PRIMITIVE_KINDS = FILTERABLE_KINDS  # every kind but the compound ones
OPS = COMPARISONS + SET_OPS + NULL_OPS
CODECS = ["LZ4", "LZO", "NONE", "SNAPPY", "ZLIB", "ZSTD"]

# Run in the child: reads every file named on the command line in several ways, and filtered with each op on each
# primitive column; reports compile events, the codecs read and the (kind, op) pairs read, as JSON.
READER = r"""
import json, sys
from numba.core import event

compiled = []

class Listener(event.Listener):
    def on_start(self, e):
        pass

    def on_end(self, e):
        d = e.data["dispatcher"]
        compiled.append(f"{CURRENT}: {d.py_func.__module__}.{d.py_func.__qualname__} {e.data['args']}")

event.register("numba:compile", Listener())
import orcjit
from orcjit._jit import registered_kernels

try:
    import pyarrow
    backends = [None, "numpy_nullable", "pyarrow"]
except ImportError:
    backends = [None, "numpy_nullable"]
# literals for kinds whose statistics hold no minimum and maximum
DEFAULTS = {"boolean": (False, True), "binary": (b"", b"\x01")}
rows, codecs, covered = {}, set(), set()
for path in sys.argv[1:]:
    CURRENT = path.rsplit("/", 1)[-1]
    data = open(path, "rb").read()
    for backend in backends:
        rows[CURRENT] = len(orcjit.read_orc(path, dtype_backend=backend))
    orcjit.read_orc(bytearray(data), dictionary_as_category=True)
    with orcjit.ORCFile(data) as f:
        codecs.add(f.compression)
        if f.nrows > 10:
            f.read_rows(f.nrows // 2, f.nrows - 2)
        for node in f.schema.children:
            if node.is_compound:
                continue
            name, stats = node.name, f.statistics[node.column_id]
            lo, hi = getattr(stats, "minimum", None), getattr(stats, "maximum", None)
            if lo is None or hi is None:
                lo, hi = DEFAULTS.get(node.kind, (None, None))
            terms = [(name, "is null"), (name, "is not null")]
            if lo is not None:
                terms += [(name, op, lo) for op in ("==", "!=", "<=", ">")]
                terms += [(name, op, hi) for op in ("<", ">=")]
                terms += [(name, op, [lo, hi]) for op in ("in", "not in")]
            for i, term in enumerate(terms):
                try:
                    # the first with every column (rows filtered across them), the others with this one alone
                    f.read(columns=None if i == 0 else [name], filters=[term])
                except orcjit.OrcError:
                    continue
                covered.add((node.kind, term[1]))
print(json.dumps({
    "compiled": compiled,
    "cache_hits": sum(sum(d._cache_hits.values()) for d in registered_kernels()),
    "rows": rows,
    "codecs": sorted(codecs),
    "covered": sorted(covered),
}))
"""


def _run(code: str, args: list[str], cache: Path, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _warmup(cache: Path, cwd: Path, prefix: str = "") -> dict[str, Any]:
    code = prefix + "import sys\nfrom orcjit.cli import main\nsys.exit(main(['warmup', '--json']))"
    summary: dict[str, Any] = json.loads(_run(code, [], cache, cwd))
    return summary


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Files of every type: pyarrow in each codec and RLE v1, pyorc with unions, char and varchar; the LZO example."""
    out = tmp_path_factory.mktemp("files")
    paths = []
    for nulls in ("some", "none", "all"):
        table = all_types_table(2500, seed=3, nulls=nulls)
        for codec in COMPRESSIONS:
            paths.append(
                write_pyarrow(
                    out / f"pyarrow-{nulls}-{codec}.orc",
                    table,
                    compression=codec,
                    row_index_stride=1000,
                    bloom_filter_columns=["i64", "str", "date", "dec18"],
                    dictionary_key_size_threshold=1.0 if codec == "zstd" else 0.0,
                )
            )
        paths.append(write_pyarrow(out / f"pyarrow-{nulls}-v11.orc", table, compression="zlib", file_version="0.11"))
        schema, rows = all_types_pyorc(2500, seed=4, nulls=nulls)
        for codec in ("zstd", "uncompressed"):
            paths.append(
                write_pyorc(
                    out / f"pyorc-{nulls}-{codec}.orc",
                    schema,
                    rows,
                    compression=codec,
                    row_index_stride=1000,
                    bloom_filter_columns=["i32", "str"],
                )
            )
    return [Path(p) for p in paths] + [EXAMPLES / "TestVectorOrcFile.testLzo.orc"]


@pytest.fixture(scope="module")
def warmed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A cache directory after ``orcjit warmup``, and its JSON summary."""
    cache = tmp_path_factory.mktemp("numba-cache")
    return cache, _warmup(cache, cache.parent)


def test_warmup_reports_groups_and_cache_dirs(warmed: tuple[Path, dict[str, Any]]) -> None:
    cache, summary = warmed
    assert summary["compiled"] > 20 and summary["loaded"] == 0  # a fresh cache: everything compiled
    assert summary["skipped"] == []
    names = [g["name"] for g in summary["groups"]]
    assert names[0].startswith("bundled files") and any("LZO" in n for n in names)
    assert all(g["seconds"] >= 0 and g["reads"] > 0 for g in summary["groups"])
    assert summary["cache_dirs"] and all(d.startswith(str(cache)) for d in summary["cache_dirs"])
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))


def _check_reads(result: dict[str, Any]) -> None:
    """The reader compiled nothing, loaded kernels, and read every codec and every op on every primitive kind."""
    assert result["compiled"] == [], "\n".join(result["compiled"])
    assert result["cache_hits"] > 0
    assert result["codecs"] == CODECS
    missing = {(kind, op) for kind in PRIMITIVE_KINDS for op in OPS} - {tuple(c) for c in result["covered"]}
    assert not missing, sorted(missing)


def test_reads_after_warmup_compile_nothing(warmed: tuple[Path, dict[str, Any]], files: list[Path]) -> None:
    cache, _ = warmed
    result = json.loads(_run(READER, [str(p) for p in files], cache, cache.parent))
    _check_reads(result)
    for path in files:
        assert result["rows"][path.name] == orcjit.ORCFile(path).nrows


def test_warmup_again_only_loads(warmed: tuple[Path, dict[str, Any]]) -> None:
    cache, first = warmed
    again = _warmup(cache, cache.parent)
    assert again["compiled"] == 0
    assert again["loaded"] > 0
    assert again["cache_dirs"] == first["cache_dirs"]


def test_warmup_without_pyarrow_covers_every_type(tmp_path: Path, files: list[Path]) -> None:
    """Without pyarrow, warmup still reads every bundled file (they are ORC files, whoever wrote them) and skips
    only the reads that need pyarrow; that warms what reads of every type, codec and filter op use."""
    cache = tmp_path / "cache"
    summary = _warmup(cache, tmp_path, NO_PYARROW)
    assert summary["compiled"] > 20
    assert len(summary["skipped"]) == 1 and "pyarrow" in summary["skipped"][0]
    result = json.loads(_run(NO_PYARROW + READER, [str(p) for p in files], cache, tmp_path))
    _check_reads(result)


def test_cli_warmup_quiet_and_help(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def fake_warmup(*, out: Any = None, quiet: bool = False) -> Any:
        calls.append(quiet)
        return None

    monkeypatch.setattr(sys.modules["orcjit.warmup"], "warmup", fake_warmup)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["warmup", "--quiet"]) == 0
    assert calls == [True] and out.getvalue() == ""
    assert main(["warmup", "--help"]) == 0
    assert "NUMBA_CACHE_DIR" in out.getvalue() and "usage: orcjit warmup" in out.getvalue()


# -- the files warmup reads ----------------------------------------------------------------------------------------


def _script(name: str) -> ModuleType:
    """The module ``scripts/<name>.py``, loaded by path (``scripts/`` is not a package)."""
    spec = importlib.util.spec_from_file_location(f"_scripts_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def orc_rewrite() -> ModuleType:
    return _script("orc_rewrite")


@pytest.mark.parametrize("codec", [0, 3], ids=["none", "lzo"])
@pytest.mark.parametrize("name", ["sample.orc", "warmup.orc", "warmup-v11.orc"])
def test_recompress_keeps_the_rows(orc_rewrite: ModuleType, name: str, codec: int) -> None:
    data = (DATA / name).read_bytes()
    rewritten = orc_rewrite.recompress(data, codec)
    with orcjit.ORCFile(rewritten) as f:
        assert f.compression == ("NONE" if codec == 0 else "LZO")
        assert f.row_index_stride == 0
    pd.testing.assert_frame_equal(orcjit.read_orc(rewritten), orcjit.read_orc(data))


@pytest.mark.parametrize("size", [1, 3, 4, 18, 19, 238, 239, 255 + 18, 256 + 18, 2 * 255 + 18, 100_000])
def test_lzo_literal_block_decodes(orc_rewrite: ModuleType, size: int) -> None:
    from orcjit.compression.lzo import decompress_lzo

    data = bytes((i * 7 + size) % 256 for i in range(size))
    assert decompress_lzo(orc_rewrite.lzo_literal_block(data), size) == data


def test_warmup_reads_the_bundled_files() -> None:
    """Every file of orcjit/data is read by warmup, and every file warmup reads is there and declared package
    data; together they hold every codec."""
    read = {name for group in GROUPS for name in group.files}
    assert read == {p.name for p in DATA.glob("*.orc")}
    assert 'orcjit = ["data/*.orc"' in (ROOT / "pyproject.toml").read_text()
    assert {orcjit.ORCFile(DATA / name).compression for name in read} == set(CODECS)


def test_bundled_files_are_what_the_script_writes(tmp_path: Path) -> None:
    """The committed warmup files hold what scripts/make_warmup_orc.py writes (compared as rows: another pyorc or
    pyarrow may write other bytes), and the script writes every warmup file."""
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_warmup_orc.py"), "--out-dir", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    written = sorted(p.name for p in tmp_path.glob("*.orc"))
    assert written == sorted(p.name for p in DATA.glob("warmup*.orc"))
    for name in written:
        with orcjit.ORCFile(DATA / name) as a, orcjit.ORCFile(tmp_path / name) as b:
            assert str(a.schema) == str(b.schema)
            assert (a.compression, a.file_version, a.nstripes, a.row_index_stride) == (
                b.compression,
                b.file_version,
                b.nstripes,
                b.row_index_stride,
            )
            pd.testing.assert_frame_equal(a.read(), b.read())
