"""The ``orcjit`` command line: ``schema``, ``meta``, ``stats`` and ``demo``, in text and JSON, and its errors.

Commands run in-process through :func:`orcjit.cli.main` for speed; one test runs the installed command for real.
"""

from __future__ import annotations

import importlib.resources
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from orcjit import ORCFile, __version__
from orcjit.cli import main
from orcjit.cli.options import parse_stripe_selection
from tests.conftest import EXAMPLES

STRIPE_STATS = EXAMPLES / "TestOrcFile.testStripeLevelStats.orc"  # int1 is 1, 2, 3 in its three stripes
META_DATA = EXAMPLES / "TestOrcFile.metaData.orc"  # user metadata and nested types
SAMPLE = Path(str(importlib.resources.files("orcjit").joinpath("data/sample.orc")))
SAMPLE_COLUMNS = [
    "trip_id",
    "vendor_id",
    "vehicle_id",
    "pickup_at",
    "pickup_date",
    "borough",
    "passengers",
    "distance_km",
    "fare",
    "payment",
    "shared",
    "note",
]


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run ``orcjit ARGS`` in-process and return its exit code, stdout and stderr."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Any:
    code, out, err = run(capsys, *args, "--json")
    assert (code, err) == (0, "")
    return strict_json(out)


def strict_json(text: str) -> Any:
    """Parse text as JSON as the standard defines it: Python's parser would accept NaN and Infinity."""

    def reject(constant: str) -> None:
        raise AssertionError(f"{constant} is not valid JSON")

    return json.loads(text, parse_constant=reject)


def named_fields(orc: ORCFile) -> list[str]:
    return [node.name for node in orc.schema.walk() if node.name is not None]


def field(text: str, label: str) -> str:
    """The value of a ``Label: value`` line."""
    match = re.search(rf"^{re.escape(label)}:\s+(.*)$", text, re.MULTILINE)
    assert match, f"no {label!r} line in:\n{text}"
    return match.group(1)


def assert_one_line_error(code: int, out: str, err: str) -> None:
    assert code == 1
    assert out == ""
    assert err.startswith("orcjit: error: ")
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err


# -- schema ---------------------------------------------------------------------------------------------------------


def test_schema_text(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", example_file)
    assert (code, err) == (0, "")
    with ORCFile(example_file) as orc:
        assert field(out, "Type") == str(orc.schema)
        # one table row per column id, in order, ending in its type (just the kind for compound types)
        rows = [line for line in out.splitlines() if re.match(r"^\s*\d+\s", line)]
        nodes = list(orc.schema.walk())
        assert [int(line.split()[0]) for line in rows] == list(range(orc.ncolumns))
        for line, node in zip(rows, nodes, strict=True):
            assert line.endswith("  " + (node.kind if node.is_compound else str(node))), line
        for name in named_fields(orc):
            assert re.search(rf"^\s*\d+\s+{re.escape(name)}\s", out, re.MULTILINE), name


def test_schema_json(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "schema", example_file)
    with ORCFile(example_file) as orc:
        assert data == orc.schema.to_dict()
        assert data["type"] == str(orc.schema)


def test_schema_text_shows_nested_children(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", META_DATA)
    assert code == 0
    assert re.search(r"^19\s+map\s+map$", out, re.MULTILINE)
    assert re.search(r"^20\s+<key>\s+string$", out, re.MULTILINE)
    assert re.search(r"^21\s+<value>\s+struct$", out, re.MULTILINE)
    assert re.search(r"^12\s+<element>\s+struct$", out, re.MULTILINE)


# -- meta -----------------------------------------------------------------------------------------------------------


def test_meta_text(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "meta", example_file)
    assert (code, err) == (0, "")
    with ORCFile(example_file) as orc:
        assert int(field(out, "Rows")) == orc.nrows
        assert int(field(out, "Stripes")) == orc.nstripes
        assert field(out, "Compression").split(",")[0] == orc.compression
        assert field(out, "File version") == orc.file_version
        assert field(out, "Writer") == orc.writer
        assert field(out, "Writer version").startswith(orc.writer_version)
        assert field(out, "File size").split()[0] == str(orc.file_size)
        headers = re.findall(r"^Stripe (\d+): offset (\d+), ", out, re.MULTILINE)
        assert headers == [(str(s.index), str(s.offset)) for s in orc.stripes]
        assert out.count("  Streams (") == orc.nstripes
        if orc.nstripes:
            # every column shows up in the encodings table by its path
            for node in orc.schema.walk():
                if node.path:
                    assert re.search(rf"^\s+{node.column_id}\s+{re.escape(node.path)}\s", out, re.MULTILINE)


def test_meta_json(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "meta", example_file)
    with ORCFile(example_file) as orc:
        assert data["rows"] == orc.nrows
        assert data["stripe_count"] == orc.nstripes
        assert data["column_count"] == orc.ncolumns
        assert data["type"] == str(orc.schema)
        assert data["compression"] == orc.compression
        assert data["compression_block_size"] == orc.compression_block_size
        assert data["file_version"] == orc.file_version
        assert data["writer_version"] == orc.writer_version
        assert data["row_index_stride"] == orc.row_index_stride
        assert data["file_size"] == orc.file_size == example_file.stat().st_size
        assert data["content_length"] == orc.content_length
        assert data["user_metadata"] == {k: {"size": len(v)} for k, v in orc.user_metadata.items()}
        assert len(data["stripes"]) == orc.nstripes
        assert sum(s["rows"] for s in data["stripes"]) == orc.nrows
        for s, info in zip(data["stripes"], orc.stripes, strict=True):
            footer = orc.stripe_footer(info.index)
            assert (s["index"], s["offset"], s["length"], s["rows"]) == (
                info.index,
                info.offset,
                info.length,
                info.rows,
            )
            assert s["writer_timezone"] == footer.writer_timezone
            assert [(st["kind"], st["column"], st["offset"], st["length"]) for st in s["streams"]] == [
                (st.kind_name, st.column, st.offset, st.length) for st in footer.streams
            ]
            assert [e["kind"] for e in s["encodings"]] == [e.kind_name for e in footer.encodings]
            # streams lie in the stripe's index and data sections, back to back
            if s["streams"]:
                assert s["streams"][0]["offset"] == s["offset"]
                last = s["streams"][-1]
                assert last["offset"] + last["length"] <= s["offset"] + s["index_length"] + s["data_length"]


def test_meta_user_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "meta", META_DATA)
    assert code == 0
    assert field(out, "User metadata") == "3 keys"
    assert re.search(r"^\s+big\s+40000$", out, re.MULTILINE)
    assert run_json(capsys, "meta", META_DATA)["user_metadata"]["big"] == {"size": 40000}


def test_meta_dictionary_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "meta", STRIPE_STATS)
    string1 = data["stripes"][0]["encodings"][2]
    assert string1 == {"column": 2, "path": "string1", "kind": "DICTIONARY_V2", "dictionary_size": 1}
    assert data["stripes"][0]["encodings"][1]["dictionary_size"] is None  # DIRECT_V2 has no dictionary


@pytest.mark.parametrize(
    ("selection", "expected"), [("0,2", [0, 2]), ("1-2", [1, 2]), ("2", [2]), ("2,0-1", [0, 1, 2])]
)
def test_meta_stripe_selection(capsys: pytest.CaptureFixture[str], selection: str, expected: list[int]) -> None:
    data = run_json(capsys, "meta", STRIPE_STATS, "--stripes", selection)
    assert [s["index"] for s in data["stripes"]] == expected
    assert data["stripe_count"] == 3
    code, out, _ = run(capsys, "meta", STRIPE_STATS, "--stripes", selection)
    assert code == 0
    assert [int(i) for i in re.findall(r"^Stripe (\d+):", out, re.MULTILINE)] == expected


# -- stats ----------------------------------------------------------------------------------------------------------


def test_stats_text(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "stats", example_file)
    assert (code, err) == (0, "")
    with ORCFile(example_file) as orc:
        assert int(field(out, "Rows")) == orc.nrows
        assert "File statistics:" in out
        assert re.findall(r"^Stripe (\d+) statistics", out, re.MULTILINE) == [str(i) for i in range(orc.nstripes)]
        # one row per column in the file table, each starting with its id and path
        file_table = out.split("File statistics:")[1].split("\nStripe ")[0]
        for node, stats in zip(orc.schema.walk(), orc.statistics, strict=True):
            pattern = rf"^\s+{node.column_id}\s+{re.escape(node.path or '(root)')}\s+\S+"
            if stats.count is not None:
                pattern += rf".*\s{stats.count}\s"
            assert re.search(pattern, file_table, re.MULTILINE), (pattern, file_table)


def test_stats_json(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "stats", example_file)
    with ORCFile(example_file) as orc:
        assert data["rows"] == orc.nrows
        assert data["stripe_count"] == orc.nstripes

        def expected(stats: list[Any]) -> list[dict[str, Any]]:
            out = []
            for node, st in zip(orc.schema.walk(), stats, strict=True):
                values = json.loads(json.dumps(st.to_dict()))
                del values["column_id"]
                out.append({"id": node.column_id, "path": node.path, "type": str(node), **values})
            return out

        assert data["columns"] == expected(orc.statistics)
        assert [s["index"] for s in data["stripes"]] == list(range(orc.nstripes))
        for s in data["stripes"]:
            assert s["rows"] == orc.stripes[s["index"]].rows
            assert s["columns"] == expected(orc.stripe_statistics(s["index"]))


def test_stats_known_values(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "stats", STRIPE_STATS)
    int1 = data["columns"][1]
    assert (int1["path"], int1["minimum"], int1["maximum"], int1["sum"], int1["count"]) == ("int1", 1, 3, 18000, 11000)
    assert [(s["columns"][1]["minimum"], s["columns"][1]["maximum"]) for s in data["stripes"]] == [
        (1, 1),
        (2, 2),
        (3, 3),
    ]
    assert [s["columns"][2]["minimum"] for s in data["stripes"]] == ["one", "two", "three"]

    code, out, _ = run(capsys, "stats", STRIPE_STATS)
    assert code == 0
    # the file-level row: id, path, type, count, has null, min, max, sum
    assert re.search(r"^\s+1\s+int1\s+int\s+11000\s+no\s+1\s+3\s+18000$", out, re.MULTILINE)
    assert re.search(r"^\s+2\s+string1\s+string\s+1000\s+no\s+three\s+three\s+5000$", out, re.MULTILINE)


def test_stats_stripe_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert "stripes" not in run_json(capsys, "stats", STRIPE_STATS, "--no-stripes")
    code, out, _ = run(capsys, "stats", STRIPE_STATS, "--no-stripes")
    assert code == 0 and "File statistics:" in out and "Stripe " not in out

    data = run_json(capsys, "stats", STRIPE_STATS, "--stripes", "1")
    assert [(s["index"], s["first_row"], s["columns"][1]["minimum"]) for s in data["stripes"]] == [(1, 5000, 2)]
    code, out, _ = run(capsys, "stats", STRIPE_STATS, "--stripes", "0,2")
    assert re.findall(r"^Stripe (\d+) statistics", out, re.MULTILINE) == ["0", "2"]


def test_stats_booleans_and_nested(capsys: pytest.CaptureFixture[str]) -> None:
    columns = run_json(capsys, "stats", META_DATA, "--no-stripes")["columns"]
    assert (columns[1]["path"], columns[1]["true_count"], columns[1]["false_count"]) == ("boolean1", 1, 0)
    assert (columns[5]["path"], columns[5]["minimum"], columns[5]["maximum"]) == ("long1", 45097156608, 45097156608)
    assert columns[20]["path"] == "map._key"
    code, out, _ = run(capsys, "stats", META_DATA, "--no-stripes")
    assert code == 0
    assert re.search(r"^\s+5\s+long1\s+bigint\s+1\s+no\s+45097156608\s+45097156608\s+45097156608$", out, re.M)


def test_stats_odd_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow as pa
    import pyarrow.orc as orc

    path = tmp_path / "odd.orc"
    table = pa.table(
        {
            "x": [1.0, float("inf"), float("nan")],
            "s": ["line1\nline2", "tab\there", "m\u00e9tro"],
            "long": ["a" * 500, "b", "c"],
        }
    )
    orc.write_table(table, str(path))
    # NaN and infinities must not leak into the JSON as bare NaN / Infinity tokens
    columns = run_json(capsys, "stats", path)["columns"]
    assert columns[1]["maximum"] == "Infinity"
    assert columns[2]["maximum"] == "tab\there"
    assert columns[3]["minimum"] == "a" * 500  # whole in JSON
    # in text, control characters are escaped and long values shortened, so each column stays one table row
    code, out, _ = run(capsys, "stats", path, "--no-stripes")
    assert code == 0
    rows = [line for line in out.splitlines() if re.match(r"^\s+\d+\s", line)]
    assert len(rows) == 4
    assert "line1\\nline2" in rows[2] and "tab\\there" in rows[2]
    assert "a" * 500 not in out and "aaa..." in rows[3]


# -- demo -----------------------------------------------------------------------------------------------------------


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "demo")
    assert (code, err) == (0, "")
    for section in ("== Schema ==", "== Metadata ==", "== Statistics =="):
        assert section in out
    for name in SAMPLE_COLUMNS:
        # in the schema tree and in the statistics table
        assert len(re.findall(rf"^\s*\d+\s+{name}\s", out, re.MULTILINE)) == 2, name
    assert field(out, "Rows") == "5000"
    assert field(out, "Compression").startswith("ZSTD")
    assert "decimal(8,2)" in out


def test_demo_other_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", STRIPE_STATS)
    assert code == 0
    assert "string1" in out and field(out, "Rows") == "11000" and "sample" not in out


def test_sample_file() -> None:
    # what scripts/make_sample.py promises, and the demo relies on
    assert SAMPLE.stat().st_size < 200_000
    with ORCFile(SAMPLE) as orc:
        assert orc.nrows == 5000 and orc.nstripes >= 2
        assert orc.compression == "ZSTD" and orc.row_index_stride == 1000
        assert named_fields(orc) == SAMPLE_COLUMNS
        kinds = {node.kind for node in orc.schema.walk()}
        assert {"bigint", "timestamp", "string", "double", "decimal", "date", "boolean"} <= kinds
        assert any(s.has_null for s in orc.statistics)
        footer = orc.stripe_footer(0)
        bloom = {s.column for s in footer.streams if s.kind_name.startswith("BLOOM_FILTER")}
        assert bloom == {orc.schema["vehicle_id"].column_id}
        assert orc.schema["borough"].column_id in {
            i for i, e in enumerate(footer.encodings) if e.kind_name.startswith("DICTIONARY")
        }


# -- help, version, usage -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("schema", ["tree", "column", "id", "type"]),
        ("meta", ["rows", "stripe", "compression", "streams", "encoding", "dictionary size"]),
        ("stats", ["statistics", "count", "min", "max", "sum"]),
        ("demo", ["sample", "schema", "statistics"]),
    ],
)
def test_subcommand_help(capsys: pytest.CaptureFixture[str], command: str, words: list[str]) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    text = " ".join(out.split()).lower()
    assert f"usage: orcjit {command}" in text
    assert "print" in text and "examples:" in text and f"orcjit {command}" in text
    for word in words:
        assert word in text, word


def test_program_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("schema", "meta", "stats", "demo"):
        assert re.search(rf"^\s+{command}\s+\S", out, re.MULTILINE)
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"orcjit {__version__}\n")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["nosuchcommand"],
        ["schema"],
        ["meta", "x.orc", "--stripes", "a"],
        ["meta", "x.orc", "--stripes", "3-1"],
        ["stats", "x.orc", "--stripes", "1", "--no-stripes"],
        ["schema", "x.orc", "--bogus"],
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert "usage: orcjit" in err and "error:" in err


def test_parse_stripe_selection() -> None:
    assert parse_stripe_selection("3") == [range(3, 4)]
    assert parse_stripe_selection("0, 2") == [range(0, 1), range(2, 3)]
    assert parse_stripe_selection("4-6,1") == [range(4, 7), range(1, 2)]
    assert parse_stripe_selection("0-999999999999") == [range(0, 1_000_000_000_000)]  # not expanded


# -- errors ---------------------------------------------------------------------------------------------------------


def bad_files(tmp_path: Path) -> dict[str, Path]:
    not_orc = tmp_path / "notes.txt"
    not_orc.write_text("these are not the bytes you are looking for\n" * 20)
    empty = tmp_path / "empty.orc"
    empty.write_bytes(b"")
    truncated = tmp_path / "truncated.orc"
    data = (EXAMPLES / "TestOrcFile.testSeek.orc").read_bytes()
    truncated.write_bytes(data[: len(data) // 2])  # a download cut off half way
    return {"not_orc": not_orc, "empty": empty, "truncated": truncated}


@pytest.mark.parametrize("which", ["not_orc", "empty", "truncated"])
@pytest.mark.parametrize("args", [["schema"], ["meta"], ["stats", "--json"], ["demo"]])
def test_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str, args: list[str]) -> None:
    path = bad_files(tmp_path)[which]
    code, out, err = run(capsys, *args, path)
    assert_one_line_error(code, out, err)
    assert str(path) in err


def test_corrupt_stripe_footer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the tail is fine, so schema works, but meta must read the stripe footers
    data = bytearray(STRIPE_STATS.read_bytes())
    with ORCFile(STRIPE_STATS) as orc:
        stripe = orc.stripes[1]
    start = stripe.offset + stripe.index_length + stripe.data_length
    data[start : start + stripe.footer_length] = b"\xff" * stripe.footer_length
    path = tmp_path / "bad_footer.orc"
    path.write_bytes(bytes(data))
    assert run(capsys, "schema", path)[0] == 0
    code, out, err = run(capsys, "meta", path)
    assert_one_line_error(code, out, err)
    assert "stripe 1" in err
    # selecting only the intact stripes works
    assert run(capsys, "meta", path, "--stripes", "0,2")[0] == 0


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.orc"
    for args in (["schema"], ["meta", "--json"], ["stats"], ["demo"]):
        code, out, err = run(capsys, *args, path)
        assert_one_line_error(code, out, err)
        assert err == f"orcjit: error: {path}: No such file or directory\n"


def test_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "meta", tmp_path)
    assert_one_line_error(code, out, err)
    assert str(tmp_path) in err


@pytest.mark.parametrize("command", ["meta", "stats"])
@pytest.mark.parametrize("selection", ["1,3", "1-7", "0-999999999999"])
def test_stripe_out_of_range(capsys: pytest.CaptureFixture[str], command: str, selection: str) -> None:
    code, out, err = run(capsys, command, STRIPE_STATS, "--stripes", selection)
    assert_one_line_error(code, out, err)
    assert "no stripe 3, the file has stripes 0-2" in err


def test_stripe_selection_on_file_without_stripes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "meta", EXAMPLES / "TestOrcFile.emptyFile.orc", "--stripes", "0")
    assert_one_line_error(code, out, err)
    assert "no stripe 0, the file has no stripes" in err


def test_broken_pipe(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code = main(["meta", str(STRIPE_STATS)])
    monkeypatch.undo()
    assert code == 141  # what a tool killed by SIGPIPE reports
    assert capsys.readouterr().err == ""


# -- the installed command ------------------------------------------------------------------------------------------


def test_console_script() -> None:
    exe = shutil.which("orcjit")
    command = [exe] if exe else [sys.executable, "-m", "orcjit"]
    result = subprocess.run(
        [*command, "stats", "--json", "--stripes", "0", str(STRIPE_STATS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    data = strict_json(result.stdout)
    assert data["columns"][1]["maximum"] == 3
    assert [s["index"] for s in data["stripes"]] == [0]


# -- head ------------------------------------------------------------------------------------------------------------


def test_head_prints_the_first_rows(capsys: pytest.CaptureFixture[str]) -> None:
    import orcjit

    code, out, _ = run(capsys, "head", SAMPLE, "-n", "3")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 4  # header and three rows
    expected = orcjit.read_orc(SAMPLE).head(3)
    assert lines[0].split() == list(expected.columns)
    for i, line in enumerate(lines[1:]):
        assert line.split()[:2] == [str(i), str(expected["trip_id"].iloc[i])]


def test_head_json_equals_read_orc(capsys: pytest.CaptureFixture[str]) -> None:
    import orcjit

    code, out, _ = run(capsys, "head", SAMPLE, "-n", "2500", "--json", "--columns", "fare,trip_id,borough")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    expected = orcjit.read_orc(SAMPLE, columns=["trip_id", "borough", "fare"]).head(2500)
    assert len(rows) == 2500  # spans the first two stripes
    assert [list(r) for r in rows[:1]] == [["trip_id", "borough", "fare"]]  # file order, as pandas does
    assert [r["trip_id"] for r in rows] == expected["trip_id"].tolist()
    assert [r["fare"] for r in rows] == [None if v is None else str(v) for v in expected["fare"]]
    assert [r["borough"] for r in rows] == [None if v != v else v for v in expected["borough"]]


def test_head_of_nested_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "head", EXAMPLES / "TestOrcFile.test1.orc", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 2
    assert rows[0]["middle"] == {"list": [{"int1": 1, "string1": "bye"}, {"int1": 2, "string1": "sigh"}]}
    assert rows[1]["string1"] == "bye"


def test_cat_prints_every_row_as_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    import orcjit

    code, out, _ = run(capsys, "cat", SAMPLE, "--columns", "trip_id,fare,pickup_at")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    expected = orcjit.read_orc(SAMPLE, columns=["trip_id", "pickup_at", "fare"])
    assert len(rows) == len(expected) == orcjit.ORCFile(SAMPLE).nrows
    assert [r["trip_id"] for r in rows] == expected["trip_id"].tolist()
    assert [r["fare"] for r in rows] == [None if v is None else str(v) for v in expected["fare"]]
    assert [r["pickup_at"] for r in rows] == [None if v is pd.NaT else v.isoformat() for v in expected["pickup_at"]]


def test_cat_with_filters_prints_the_matching_rows(capsys: pytest.CaptureFixture[str]) -> None:
    import orcjit

    full = orcjit.read_orc(SAMPLE, columns=["trip_id", "passengers"])
    code, out, _ = run(capsys, "cat", SAMPLE, "--columns", "trip_id", "--filter", "passengers >= 5")
    assert code == 0
    want = full[full["passengers"] >= 5]["trip_id"].tolist()
    assert 0 < len(want) < len(full)
    assert [json.loads(line)["trip_id"] for line in out.splitlines()] == want
    code, out, _ = run(capsys, "cat", SAMPLE, "--filter", "passengers == 1", "--filter", "passengers == 2", "--any")
    assert code == 0
    assert len(out.splitlines()) == int(full["passengers"].isin([1, 2]).sum())


def test_cat_of_nested_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cat", EXAMPLES / "TestOrcFile.test1.orc")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 2 and rows[0]["middle"]["list"][1] == {"int1": 2, "string1": "sigh"}


def test_head_unknown_column_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "head", SAMPLE, "--columns", "nope")
    assert code == 1
    assert "orcjit: error:" in err and "nope" in err


def test_demo_reads_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo")
    assert code == 0
    assert "== Rows ==" in out
    assert re.search(r"^0\s+1000000\s", out, re.MULTILINE)
