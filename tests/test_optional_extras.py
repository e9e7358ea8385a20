"""The optional parts without their extras: ``orcjit.spark`` without pyspark or pyarrow, ``orcjit.parquet`` and the
CLI without pyarrow.

Each case runs in a subprocess in which the missing packages cannot be imported (``sys.modules[name] = None``
before orcjit is imported, which makes ``import name`` raise ``ModuleNotFoundError``). An import of an optional
part must raise an ``ImportError`` whose message names the extra to install; every CLI verb must either work
exactly as it does with pyarrow (the same output as in this process) or print one ``orcjit: error:`` line naming
the extra and exit with status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

from orcjit.cli import build_parser

from .test_cli import run

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str, blocked: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which the modules ``blocked`` cannot be imported."""
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def _import_error(module: str, blocked: list[str]) -> dict[str, Any]:
    """What ``import module`` raises in a child without ``blocked``: type, whether an ImportError, message."""
    code = f"""
        import json
        try:
            import {module}
        except BaseException as exc:
            print(json.dumps({{"type": type(exc).__name__, "import_error": isinstance(exc, ImportError),
                               "message": str(exc), "name": getattr(exc, "name", None)}}))
        else:
            print(json.dumps(None))
    """
    done = _child(code, blocked)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# -- imports -------------------------------------------------------------------------------------------------------

SPARK = 'pip install "orcjit[spark]"'
PARQUET = 'pip install "orcjit[parquet]"'
NO_PYARROW_SPARK = f"orcjit.spark needs pyarrow, which is not installed: {SPARK}"
NO_PYARROW_PARQUET = f"orcjit.parquet needs pyarrow, which is not installed: {PARQUET}"


@pytest.mark.parametrize(
    ("module", "blocked", "message", "name"),
    [
        ("orcjit.spark", ["pyarrow"], NO_PYARROW_SPARK, "pyarrow"),
        ("orcjit.spark", ["pyspark"], f"orcjit.spark needs pyspark, which is not installed: {SPARK}", "pyspark"),
        (
            "orcjit.spark",
            ["pyspark", "pyarrow"],
            f"orcjit.spark needs pyspark and pyarrow, which are not installed: {SPARK}",
            "pyspark",
        ),
        # a submodule imports the package first, so it fails the same way
        ("orcjit.spark.helpers", ["pyarrow"], NO_PYARROW_SPARK, "pyarrow"),
        ("orcjit.parquet", ["pyarrow"], NO_PYARROW_PARQUET, "pyarrow"),
        # pyarrow without its Parquet module, as conda's pyarrow-core
        (
            "orcjit.parquet",
            ["pyarrow.parquet"],
            f"orcjit.parquet needs pyarrow.parquet, which is not installed: {PARQUET}",
            "pyarrow.parquet",
        ),
        ("orcjit.parquet.read", ["pyarrow"], NO_PYARROW_PARQUET, "pyarrow"),
    ],
)
def test_import_without_the_extra(module: str, blocked: list[str], message: str, name: str) -> None:
    raised = _import_error(module, blocked)
    assert raised == {"type": "MissingExtraError", "import_error": True, "message": message, "name": name}


def test_spark_older_than_4() -> None:
    # PySpark 3.5 has no pyspark.sql.datasource: what orcjit.spark says then
    import pyspark

    raised = _import_error("orcjit.spark", ["pyspark.sql.datasource"])
    assert raised["import_error"] and raised["type"] == "MissingExtraError"
    assert raised["message"] == f"orcjit.spark needs PySpark 4.0 or later, not {pyspark.__version__}: {SPARK}"


def test_orcjit_itself_needs_no_extra(tmp_path: Path) -> None:
    path = tmp_path / "a.orc"
    pa_orc.write_table(pa.table({"x": [1, 2, None]}), path)
    code = """
        import sys
        import orcjit
        frame = orcjit.read_orc(sys.argv[1])
        print(frame["x"].tolist(), "orcjit.spark" in sys.modules, "orcjit.parquet" in sys.modules)
    """
    done = _child(code, ["pyarrow", "pyspark"], str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[1.0,", "2.0,", "nan]", "False", "False"]


# -- the CLI -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("extras")
    table = pa.table({"k": list(range(200)), "s": [f"v{i % 7}" for i in range(200)]})
    pa_orc.write_table(table, folder / "a.orc")
    pq.write_table(table, folder / "a.parquet")
    return {"orc": folder / "a.orc", "parquet": folder / "a.parquet", "folder": folder}


def _verbs() -> set[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def _calls(files: dict[str, Path]) -> dict[str, list[str]]:
    orc, parquet, folder = str(files["orc"]), str(files["parquet"]), files["folder"]
    return {
        "schema": ["schema", orc],
        "meta": ["meta", orc],
        "stats": ["stats", orc],
        "head": ["head", orc],
        "cat": ["cat", orc, "--filter", "k < 5"],
        "explain": ["explain", orc, "--filter", "k == 3"],
        "index": ["index", orc],
        "bloom": ["bloom", orc, "--column", "k", "--value", "3"],
        "parquet-bloom": ["parquet-bloom", parquet, "--column", "k", "--value", "3"],
        "convert": ["convert", orc, str(folder / "out.parquet")],
        "convert-csv": ["convert", orc, "-", "--format", "csv"],
        "demo": ["demo"],
        # warmup without pyarrow is tests/test_warmup.py::test_warmup_without_pyarrow_covers_every_type
    }


# what each verb needs that pyarrow provides: the extra its message names
NEEDS = {"parquet-bloom": PARQUET, "convert": PARQUET}


def test_every_verb_without_pyarrow(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    calls = _calls(files)
    assert {argv[0] for argv in calls.values()} | {"warmup"} == _verbs()  # a new verb must be added here
    code = """
        import contextlib, io, json, sys, traceback
        from orcjit.cli import main

        results = {}
        for name, argv in json.loads(sys.argv[1]).items():
            out, err = io.StringIO(), io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    status = main(argv)
            except BaseException:
                status, err = "raised", io.StringIO(traceback.format_exc())
            results[name] = [status, out.getvalue(), err.getvalue()]
        print(json.dumps(results))
    """
    done = _child(code, ["pyarrow", "pyspark"], json.dumps(calls))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert set(got) == set(calls)
    for name, argv in calls.items():
        status, out, err = got[name]
        if name in NEEDS:
            assert (status, out) == (1, ""), (name, err)
            (line,) = err.splitlines()
            assert line.startswith("orcjit: error: ") and line.endswith(NEEDS[name]), (name, err)
            assert "Traceback" not in err
        else:
            # the same as with pyarrow, in this process
            assert [status, out, err] == list(run(capsys, *argv)), name
    assert not (files["folder"] / "out.parquet").exists()
    assert got["parquet-bloom"][2] == f"orcjit: error: {NO_PYARROW_PARQUET}\n"


def test_console_script_without_pyarrow(files: dict[str, Path]) -> None:
    # the real entry point, as a user runs it: one line on stderr, status 1
    code = "import runpy; sys.argv[0] = 'orcjit'; runpy.run_module('orcjit', run_name='__main__')"
    done = _child(code, ["pyarrow"], "parquet-bloom", str(files["parquet"]), "--column", "k", "--value", "3")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"orcjit: error: {NO_PYARROW_PARQUET}\n"
