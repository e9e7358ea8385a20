"""The ``orcjit`` verbs ``index``, ``bloom`` and ``convert``, and ``--columns`` on every verb that shows a file.

Files are written here with pyorc (bloom filters, a row index every 1000 rows, several small stripes); what the
commands print is checked against the data itself, read back with pyarrow.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as paorc
import pyarrow.parquet as pq
import pytest

from orcjit import ORCFile
from orcjit.cli import VERBS, build_parser
from tests.factory import write_pyorc
from tests.test_cli import run, run_json

SCHEMA = "struct<id:int,name:string,x:double,flag:boolean,s:struct<a:bigint>>"
NROWS = 12_345
STRIDE = 1000


def make_row(i: int) -> tuple[Any, ...]:
    name = None if i % 11 == 0 else f"name-{i % 97}"
    x = None if i % 7 == 0 else i * 0.25 - 300.0
    return (i * 7 % NROWS, name, x, i % 3 == 0, (i * 5,))


@pytest.fixture(scope="module")
def orc_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("verbs") / "data.orc"
    write_pyorc(
        path,
        SCHEMA,
        (make_row(i) for i in range(NROWS)),
        stripe_size=8192,
        row_index_stride=STRIDE,
        bloom_filter_columns=["id", "name"],
    )
    with ORCFile(path) as orc:
        assert orc.nstripes >= 3  # the tests below are about several stripes
    return path


@pytest.fixture(scope="module")
def table(orc_path: Path) -> pa.Table:
    return paorc.read_table(orc_path)


def column_values(table: pa.Table, path: str) -> pa.ChunkedArray:
    column = table.column(path.split(".")[0])
    for part in path.split(".")[1:]:
        column = pc.struct_field(column, part)
    return column


# -- index --------------------------------------------------------------------------------------------------------


def test_index_json_statistics_equal_the_data(
    orc_path: Path, table: pa.Table, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "index", orc_path)
    assert data["row_index_stride"] == STRIDE
    with ORCFile(orc_path) as orc:
        nstripes = orc.nstripes
        seen = {(e["stripe"], e["path"]) for e in data["indexes"]}
        # every column of every stripe has a row index, the root and the struct included
        assert seen == {(i, n.path) for i in range(nstripes) for n in orc.schema.walk()}
        for entry in data["indexes"]:
            expected = orc.row_index(entry["stripe"], entry["column_id"])
            assert expected is not None
            assert [g["positions"] for g in entry["row_groups"]] == [
                g["positions"] for g in expected.to_dict()["row_groups"]
            ]
            stripe = orc.stripes[entry["stripe"]]
            # the groups tile the stripe, a stride each but the last
            assert [g["first_row"] for g in entry["row_groups"]] == list(
                range(stripe.first_row, stripe.first_row + stripe.rows, STRIDE)
            )
            assert sum(g["rows"] for g in entry["row_groups"]) == stripe.rows
            if entry["path"] in ("", "s"):
                continue
            values = column_values(table, entry["path"])
            for group in entry["row_groups"]:
                part = values.slice(group["first_row"], group["rows"])
                stats = group["statistics"]
                assert stats["count"] == len(part) - part.null_count
                assert stats["has_null"] == (part.null_count > 0)
                if entry["path"] == "flag":
                    assert stats["true_count"] == pc.sum(part).as_py()
                    continue
                assert (stats["minimum"], stats["maximum"]) == (pc.min(part).as_py(), pc.max(part).as_py())
    rows = sum(g["rows"] for e in data["indexes"] if e["path"] == "id" for g in e["row_groups"])
    assert rows == NROWS


def test_index_text_table(orc_path: Path, table: pa.Table, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", orc_path, "--columns", "id", "--stripes", "1")
    assert (code, err) == (0, "")
    with ORCFile(orc_path) as orc:
        index = orc.row_index(1, "id")
        assert index is not None
    assert "Stripe 1, column 1 id (int)" in out
    assert "Stripe 0" not in out and "name" not in out
    header = next(line for line in out.splitlines() if line.strip().startswith("group"))
    assert header.split()[:7] == ["group", "first", "row", "rows", "count", "has", "null"]
    assert "DATA position" in header and " min " in header and header.split()[-2:] == ["DATA", "position"]
    ids = column_values(table, "id")
    for g in range(len(index)):
        first, rows = int(index.first_rows[g]), int(index.rows[g])
        part = ids.slice(first, rows)
        cells = f"{g}  {first}  {rows}  {rows}  no  {pc.min(part).as_py()}  {pc.max(part).as_py()}"
        assert any(" ".join(line.split()).startswith(" ".join(cells.split())) for line in out.splitlines())


def test_index_of_a_file_without_row_indexes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "plain.orc"
    write_pyorc(path, "struct<a:int>", [(i,) for i in range(10)], row_index_stride=0)
    code, out, err = run(capsys, "index", path)
    assert (code, err) == (0, "")
    assert "no row index" in out
    assert run_json(capsys, "index", path)["indexes"] == []


def test_index_unknown_column(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", orc_path, "--columns", "id,nope")
    assert (code, out) == (1, "")
    assert err.startswith("orcjit: error: ") and "'nope'" in err


# -- bloom --------------------------------------------------------------------------------------------------------


def rows_holding(table: pa.Table, path: str, value: Any) -> set[int]:
    """The file row numbers where the column holds ``value``."""
    values = column_values(table, path).to_pylist()
    return {i for i, v in enumerate(values) if v == value}


@pytest.mark.parametrize(
    ("column", "value", "typed"), [("id", "4321", 4321), ("id", "0", 0), ("name", "name-5", "name-5")]
)
def test_bloom_finds_every_present_value(
    orc_path: Path, table: pa.Table, capsys: pytest.CaptureFixture[str], column: str, value: str, typed: Any
) -> None:
    data = run_json(capsys, "bloom", orc_path, "--column", column, "--value", value)
    assert data["value"] == typed
    rows = rows_holding(table, column, typed)
    assert rows
    holding = 0
    for stripe in data["stripes"]:
        assert stripe["bloom_filter"] and stripe["reliable"]
        for group in stripe["row_groups"]:
            span = range(group["first_row"], group["first_row"] + group["rows"])
            if any(r in span for r in rows):
                holding += 1
                assert group["may_contain"], (stripe["stripe"], group)
            assert 0 < group["fill_ratio"] < 1
    assert data["row_groups"] == sum(len(s["row_groups"]) for s in data["stripes"])
    assert holding <= data["may_contain"] <= data["row_groups"]
    code, out, err = run(capsys, "bloom", orc_path, "--column", column, "--value", value)
    assert (code, err) == (0, "")
    assert f"Summary: {data['may_contain']} of {data['row_groups']} row groups may contain the value" in out


def test_bloom_absent_value_text_agrees_with_json(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "bloom", orc_path, "--column", "id", "--value", "-77")
    code, out, err = run(capsys, "bloom", orc_path, "--column", "id", "--value", "-77")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    no = sum(1 for line in lines if line.rstrip().endswith("  no"))
    maybe = sum(1 for line in lines if line.rstrip().endswith("may contain"))
    assert no == data["row_groups"] - data["may_contain"]
    assert maybe == data["may_contain"]
    assert no > data["row_groups"] // 2  # a 5% filter rules an absent value out of most groups
    assert f"{no} certainly do not" in out
    for stripe in data["stripes"]:
        assert stripe["stream"] == "BLOOM_FILTER_UTF8"
        for group in stripe["row_groups"]:
            assert group["num_hash_functions"] > 0 and group["num_bits"] > 0


def test_bloom_column_without_filters_and_one_stripe(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bloom", orc_path, "--column", "x", "--value", "1.5")
    assert (code, err) == (0, "")
    assert "no bloom filter" in out and "Note: x has no bloom filter" in out
    data = run_json(capsys, "bloom", orc_path, "--column", "id", "--value", "3", "--stripes", "1")
    assert [s["stripe"] for s in data["stripes"]] == [1]


def test_bloom_types_the_value_and_notes_unreliable_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    days = [datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 50) for i in range(3000)]
    path = write_pyorc(
        tmp_path / "dates.orc",
        "struct<d:date,t:tinyint,w:string,m:decimal(4,2)>",
        [(day, i % 100, "it's" if i == 2500 else "x", decimal.Decimal(i % 100) / 4) for i, day in enumerate(days)],
        row_index_stride=STRIDE,
        bloom_filter_columns=["d", "t", "w", "m"],
    )
    data = run_json(capsys, "bloom", path, "--column", "m", "--value", "12.25")
    assert data["value"] == "12.25" and data["may_contain"] == 3
    for bad in ("123.5", "1.255"):
        code, out, err = run(capsys, "bloom", path, "--column", "m", "--value", bad)
        assert (code, out) == (1, "") and "does not fit decimal(4,2)" in err
    data = run_json(capsys, "bloom", path, "--column", "d", "--value", "2024-01-05")
    assert data["value"] == "2024-01-05"
    assert data["may_contain"] == data["row_groups"] == 3  # every group of 1000 days holds each of the 50
    assert run_json(capsys, "bloom", path, "--column", "w", "--value", '"it\'s"')["stripes"][0]["row_groups"][2][
        "may_contain"
    ]
    code, out, err = run(capsys, "bloom", path, "--column", "d", "--value", "2024-13-01")
    assert code == 1 and "ISO" in err
    # ORC C++ hashes many tinyint values wrongly: the filters are shown, with a note that nothing prunes on them
    code, out, err = run(capsys, "bloom", path, "--column", "t", "--value", "5")
    assert (code, err) == (0, "")
    assert "(not reliable)" in out and "orcjit does not skip row groups on them" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--column", "nope", "--value", "1"], ["'nope'"]),
        (["--column", "id", "--value", "abc"], ["'abc' is not a number", "id is int"]),
        (["--column", "id", "--value", "99999999999"], ["32-bit"]),
        (["--column", "id", "--value", "1.5"], ["not an integer"]),
        (["--column", "s", "--value", "1"], ["struct"]),
        (["--column", "id", "--value", "null"], ["null"]),
    ],
)
def test_bloom_bad_column_or_value(
    orc_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: list[str]
) -> None:
    code, out, err = run(capsys, "bloom", orc_path, *args)
    assert (code, out) == (1, "")
    assert err.startswith("orcjit: error: ")
    for word in words:
        assert word in err


# -- convert ------------------------------------------------------------------------------------------------------


def test_convert_to_parquet_equals_pyarrow(
    orc_path: Path, table: pa.Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "all.parquet"
    code, out, err = run(capsys, "convert", orc_path, out_path)
    assert (code, err) == (0, "")
    assert out == f"orcjit: wrote {NROWS} rows to {out_path} (parquet)\n"
    written = pq.ParquetFile(out_path)
    with ORCFile(orc_path) as orc:
        assert written.num_row_groups == orc.nstripes
    pd.testing.assert_frame_equal(written.read().to_pandas(), table.to_pandas())


def test_convert_with_columns_and_filters(
    orc_path: Path, table: pa.Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = table.to_pandas()
    out_path = tmp_path / "some.pq"
    args = ["convert", orc_path, out_path, "--columns", "id,x", "--filter", "id < 4000", "--filter", "x > 100.5"]
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, "")
    expected = frame.loc[(frame.id < 4000) & (frame.x > 100.5), ["id", "x"]].reset_index(drop=True)
    assert 0 < len(expected) < NROWS
    assert f"wrote {len(expected)} rows" in out
    pd.testing.assert_frame_equal(pq.read_table(out_path).to_pandas(), expected)
    # --any: rows matching either filter
    code, _, _ = run(capsys, *args, "--any", "--force")
    assert code == 0
    expected = frame.loc[(frame.id < 4000) | (frame.x > 100.5), ["id", "x"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(pq.read_table(out_path).to_pandas(), expected)


def test_convert_to_csv_round_trips(
    orc_path: Path, table: pa.Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "rows.csv"
    code, out, err = run(capsys, "convert", orc_path, out_path, "--columns", "id,name,x,flag")
    assert (code, err) == (0, "")
    assert f"wrote {NROWS} rows to {out_path} (csv)" in out
    expected = table.select(["id", "name", "x", "flag"]).to_pandas()
    got = pd.read_csv(out_path, dtype={"name": "str"})
    assert list(got.columns) == ["id", "name", "x", "flag"]
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    # to standard output: only the CSV there, the summary on stderr
    code, out, err = run(capsys, "convert", orc_path, "-", "--columns", "id", "--filter", "id < 3")
    assert code == 0
    assert out.splitlines()[0] == "id" and sorted(map(int, out.splitlines()[1:])) == [0, 1, 2]
    assert "wrote 3 rows to standard output (csv)" in err


def test_convert_refuses_to_overwrite(orc_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "exists.csv"
    out_path.write_text("keep me")
    code, out, err = run(capsys, "convert", orc_path, out_path)
    assert (code, out) == (1, "") and "--force" in err
    assert out_path.read_text() == "keep me"
    code, _, _ = run(capsys, "convert", orc_path, out_path, "--columns", "id", "--force")
    assert code == 0
    assert len(pd.read_csv(out_path)) == NROWS


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["out.csv", "--columns", "nope"], "'nope'"),
        (["out.txt"], "--format"),
        (["-", "--format", "parquet"], "standard output"),
        (["out.csv", "--filter", "nope == 1"], "'nope'"),
    ],
)
def test_convert_errors(
    orc_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], word: str
) -> None:
    target = [str(tmp_path / a) if a.startswith("out.") else a for a in args]
    code, out, err = run(capsys, "convert", orc_path, *target)
    assert (code, out) == (1, "")
    assert err.startswith("orcjit: error: ") and word in err
    assert list(tmp_path.iterdir()) == []  # nothing half-written left behind


def test_convert_without_pyarrow(
    orc_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "pyarrow.parquet", None)
    code, out, err = run(capsys, "convert", orc_path, tmp_path / "x.parquet")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "orcjit: error: orcjit convert to Parquet needs pyarrow.parquet, which is not installed: "
        'pip install "orcjit[parquet]"'
    ]
    assert not (tmp_path / "x.parquet").exists()


# -- --columns on the other verbs -----------------------------------------------------------------------------------


def test_schema_columns(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", orc_path, "--columns", "s.a,name")
    assert (code, err) == (0, "")
    names = [line.split()[1] for line in out.splitlines()[6:]]
    assert names == ["(root)", "name", "s", "a"]
    tree = run_json(capsys, "schema", orc_path, "--columns", "s")
    assert [c["name"] for c in tree["children"]] == ["s"]
    assert [c["name"] for c in tree["children"][0]["children"]] == ["a"]


def test_meta_columns(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = run_json(capsys, "meta", orc_path)
    some = run_json(capsys, "meta", orc_path, "--columns", "name,s")
    assert some["rows"] == full["rows"] and len(some["stripes"]) == len(full["stripes"])
    for mine, theirs in zip(some["stripes"], full["stripes"], strict=True):
        assert {st["column"] for st in mine["streams"]} == {2, 5, 6}
        assert mine["streams"] == [st for st in theirs["streams"] if st["column"] in (2, 5, 6)]
        assert [e["path"] for e in mine["encodings"]] == ["name", "s", "s.a"]
    code, out, _ = run(capsys, "meta", orc_path, "--columns", "flag")
    assert code == 0 and "flag" in out and " name " not in out


def test_stats_columns(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = run_json(capsys, "stats", orc_path, "--columns", "id,s")
    assert [c["path"] for c in stats["columns"]] == ["id", "s", "s.a"]
    assert all([c["path"] for c in s["columns"]] == ["id", "s", "s.a"] for s in stats["stripes"])
    code, out, _ = run(capsys, "stats", orc_path, "--columns", "x", "--no-stripes")
    assert code == 0
    rows = [line.split()[1] for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert rows == ["x"]


@pytest.mark.parametrize("command", ["schema", "meta", "stats", "head", "cat", "index", "explain"])
def test_unknown_column_is_an_error(orc_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    extra = ["--filter", "id == 1"] if command == "explain" else []
    code, out, err = run(capsys, command, orc_path, "--columns", "id,nope", *extra)
    assert (code, out) == (1, "")
    assert err.startswith("orcjit: error: ") and "nope" in err


# -- help ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("index", ["--columns", "--stripes", "--json", "position", "row group"]),
        ("bloom", ["--column", "--value", "--stripes", "--json", "fill ratio"]),
        ("convert", ["--format", "--force", "--columns", "--filter", "--any", "--encrypted", "parquet", "csv"]),
        ("schema", ["--columns", "--json"]),
        ("meta", ["--columns", "--json", "--stripes"]),
        ("stats", ["--columns", "--json", "--no-stripes"]),
        ("head", ["--columns", "--json", "-n"]),
        ("cat", ["--columns", "--filter"]),
    ],
)
def test_verb_help(capsys: pytest.CaptureFixture[str], command: str, options: list[str]) -> None:
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    text = " ".join(out.split())
    assert f"usage: orcjit {command}" in text and "examples:" in text and f"orcjit {command} data.orc" in text
    for option in options:
        assert option in text, option


def test_program_help_lists_the_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("index", "bloom", "convert", "cat", "head", "explain"):
        assert f"  {command}" in out and f"orcjit {command} " in out


ALL_VERBS = {
    "schema",
    "meta",
    "stats",
    "explain",
    "head",
    "cat",
    "index",
    "bloom",
    "parquet-bloom",
    "convert",
    "demo",
    "warmup",
}


def test_program_help_lists_every_verb_module(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    commands = out.split("\n  COMMAND\n", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"^ {4}(\S+)", commands, re.MULTILINE)
    assert len(listed) == len(set(listed))
    assert set(listed) == ALL_VERBS
    # each verb is one module of orcjit.cli that adds itself and answers with its own run
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(sub.choices) == listed == [module.__name__.rsplit(".", 1)[1].replace("_", "-") for module in VERBS]
    for module in VERBS:
        name = module.__name__.rsplit(".", 1)[1].replace("_", "-")
        assert sub.choices[name].get_default("handler") is module.run, name


@pytest.mark.parametrize("command", sorted(ALL_VERBS))
def test_every_verb_has_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, err = run(capsys, command, "--help")
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: orcjit {command} ")
    assert "\noptions:\n  -h, --help" in out
    assert f"\nexamples:\n  orcjit {command}" in out
