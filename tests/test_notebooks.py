"""The notebooks in ``notebooks/`` run from top to bottom, draw their plots, and are committed with their outputs.

Each notebook is executed from a copy (nothing is written back to the repository) in a temporary working
directory. The pushdown and datasets notebooks assert in their own cells that every filtered read equals the full
read filtered in pandas, so a wrong answer fails here as an error in that cell.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# name -> (number of PNG images its run draws, patterns its text outputs must contain)
EXPECTED: dict[str, tuple[int, list[str]]] = {
    "exploring_an_orc_file.ipynb": (
        4,
        [
            r"struct<id:bigint,ts:timestamp,reading:double,city:string,device:string,online:boolean>",
            r"200,000 rows in [2-9] stripes",
            r"BLOOM_FILTER_UTF8",
            r"DICTIONARY_DATA",
            r"'dev-absent': \[0( 0)+\]",
            r"read [\d,]+ of [\d,]+ bytes",
        ],
    ),
    "datasets.ipynb": (
        1,
        [
            r"12 files, 360,000 rows",
            # Spark's _SUCCESS marker and hidden .crc checksums are found on disk and left out
            r"left out: _SUCCESS and 12 hidden \.crc files",
            r"(?s)partition only: [\d,]+ rows, equal.*data column only: [\d,]+ rows, equal.*both: [\d,]+ rows, equal",
            r"files read: [1-9] of 12 \(skipped: [1-9]\d* by partition values, [1-9]\d* by file statistics\)",
            r"row groups kept: [1-9]\d* of [1-9]\d* in the stripes entered by row group",
            r"part-00000 year=2022 city=Berlin: 30000 rows, skipped by partition values",
        ],
    ),
    "pushdown.ipynb": (
        1,
        [
            r"stripes read: 1 of [2-9]",
            r"skipped by stripe statistics",
            r"row groups kept \d+ of \d+ \(skipped: [1-9]\d* by statistics",
            r"skipped: 0 by statistics, [1-9]\d* by bloom filter",
            r"point \(bloom\)\s+orcjit, filters\s+1\s",
        ],
    ),
}


def text_of(output: Any) -> str:
    if output.output_type == "stream":
        return str(output.text)
    if output.output_type in ("execute_result", "display_data"):
        return str(output.get("data", {}).get("text/plain", ""))
    return ""


def images(nb: Any) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each notebook executed once, from a fresh copy, in its own temporary directory."""
    runs = {}
    for name in EXPECTED:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        workdir = tmp_path_factory.mktemp(name.removesuffix(".ipynb"))
        client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": workdir}})
        client.execute()
        runs[name] = (nb, workdir)
    return runs


def test_the_notebooks_listed_are_the_notebooks_there() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_and_draws_its_plots(executed: dict[str, Any], name: str) -> None:
    nb, workdir = executed[name]
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    count, patterns = EXPECTED[name]
    assert images(nb) == count
    text = "\n".join(text_of(o) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    for pattern in patterns:
        assert re.search(pattern, text), pattern
    # the notebooks write their ORC files to a temporary directory of their own and remove it
    assert list(workdir.iterdir()) == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_committed_notebook_keeps_its_outputs(executed: dict[str, Any], name: str) -> None:
    committed = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(committed)
    nb, _ = executed[name]
    assert [c.source for c in committed.cells] == [c.source for c in nb.cells]
    for index, (kept, ran) in enumerate(zip(committed.cells, nb.cells, strict=True)):
        if ran.cell_type != "code":
            continue
        if ran.outputs:
            assert kept.outputs, f"cell {index} of {name} was committed without its outputs"
        assert all(o.output_type != "error" for o in kept.outputs), f"cell {index} of {name} has an error"
    assert images(committed) == EXPECTED[name][0]
    committed_text = "\n".join(text_of(o) for c in committed.cells if c.cell_type == "code" for o in c.outputs)
    for pattern in EXPECTED[name][1]:
        assert re.search(pattern, committed_text), pattern
    assert (NOTEBOOKS / name).stat().st_size < 1_000_000
