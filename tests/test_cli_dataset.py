"""The ``orcjit`` verbs on a dataset: a Hive-partitioned directory, a glob, or several files, read as one table.

The folder is written here with pyarrow (``year=.../city=.../part-0.orc``, two stripes a file, a ``_SUCCESS``
marker and an empty file); what the commands print is checked against :class:`orcjit.ORCDataset` and the data
written. Single-file behaviour is covered by the other ``test_cli*`` modules.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.orc as paorc
import pyarrow.parquet as pq
import pytest

from orcjit import ORCDataset
from orcjit.cli import build_parser
from orcjit.cli.render import write_json_rows
from tests.test_cli import assert_one_line_error, field, run, run_json, strict_json

PARTITIONS = [(2023, "Oslo"), (2023, "Paris"), (2024, "Oslo"), (2024, "Paris")]
ROWS_PER_FILE = {"Oslo": 30, "Paris": 50}


def part_table(year: int, city: str) -> pa.Table:
    n = ROWS_PER_FILE[city]
    base = (year - 2023) * 1000 + (0 if city == "Oslo" else 500)
    return pa.table(
        {
            "id": pa.array(range(base, base + n), pa.int64()),
            "name": [f"{city.lower()}-{i % 7}" for i in range(n)],
            "x": [None if i % 5 == 0 else i * 0.5 for i in range(n)],
        }
    )


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli_dataset") / "events"
    for year, city in PARTITIONS:
        folder = root / f"year={year}" / f"city={city}"
        folder.mkdir(parents=True)
        # small stripes, so that head and convert go a stripe at a time over several per file
        paorc.write_table(part_table(year, city), folder / "part-0.orc", stripe_size=1024, batch_size=16)
    (root / "_SUCCESS").write_bytes(b"")  # hidden: never looked at
    (root / "year=2024" / "city=Oslo" / "part-1.orc").write_bytes(b"")  # empty: skipped with a note
    return root


@pytest.fixture(scope="module")
def dataset(dataset_dir: Path) -> ORCDataset:
    return ORCDataset(str(dataset_dir))


def json_rows(frame: pd.DataFrame) -> list[Any]:
    """The rows of a DataFrame as ``cat`` and ``head --json`` print them."""
    buffer = io.StringIO()
    write_json_rows(buffer, frame)
    return [strict_json(line) for line in buffer.getvalue().splitlines()]


def lines_json(out: str) -> list[Any]:
    return [strict_json(line) for line in out.splitlines()]


def test_the_fixture_is_a_dataset_of_four_files(dataset: ORCDataset) -> None:
    assert len(dataset.files) == 4
    assert dataset.partition_columns == ["year", "city"]
    assert dataset.nrows == 2 * sum(ROWS_PER_FILE.values())
    assert len(dataset.notes) == 1 and "part-1.orc" in dataset.notes[0]
    # several stripes a file: head, cat and convert go a stripe at a time across stripes and files
    assert all(len(meta.stripes) > 1 for meta in dataset.meta.metas)


# -- schema ---------------------------------------------------------------------------------------------------------


def test_schema_text_marks_the_partition_columns(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "schema", dataset_dir)
    assert (code, err) == (0, "")
    assert field(out, "Type") == str(dataset.schema) == "struct<id:bigint,name:string,x:double,year:int,city:string>"
    assert field(out, "Files") == "4"
    assert field(out, "Partition columns") == "year, city"
    rows = {line.split()[1]: line.split() for line in out.splitlines() if re.match(r"^\s*\d+\s", line)}
    assert [rows[name][-1] for name in ("year", "city")] == ["yes", "yes"]
    assert [rows[name][-1] for name in ("id", "name", "x")] == ["bigint", "string", "double"]


def test_schema_json_marks_the_partition_columns(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "schema", dataset_dir)
    assert data["type"] == str(dataset.schema)
    assert data["files"] == 4
    assert data["partition_columns"] == ["year", "city"]
    assert {c["name"]: c.get("partition", False) for c in data["children"]} == {
        "id": False,
        "name": False,
        "x": False,
        "year": True,
        "city": True,
    }


def test_schema_columns_option_selects_partition_columns(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "schema", dataset_dir, "--columns", "city,id")
    assert [c["name"] for c in data["children"]] == ["id", "city"]


# -- meta -----------------------------------------------------------------------------------------------------------


def test_meta_json_summarises_the_dataset(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "meta", dataset_dir)
    assert data["file_count"] == 4
    assert data["rows"] == dataset.nrows
    assert data["partition_columns"] == ["year", "city"]
    assert len(data["notes"]) == 1 and "part-1.orc: empty file, skipped" in data["notes"][0]
    assert [f["path"] for f in data["files"]] == dataset.files
    partitions = dataset.partitions
    for i, f in enumerate(data["files"]):
        assert f["partition"] == {"year": partitions["year"][i], "city": partitions["city"][i]}
        assert f["rows"] == ROWS_PER_FILE[f["partition"]["city"]]
        assert f["size"] == Path(f["path"]).stat().st_size
        assert f["stripes"] >= 1
    assert data["bytes"] == sum(f["size"] for f in data["files"])
    assert data["stripe_count"] == sum(f["stripes"] for f in data["files"])


def test_meta_text_lists_each_file(dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "meta", dataset_dir)
    assert (code, err) == (0, "")
    assert int(field(out, "Files")) == 4
    assert int(field(out, "Rows")) == dataset.nrows
    assert field(out, "Partition columns") == "year, city"
    assert "part-1.orc: empty file, skipped" in out
    for path in dataset.files:
        (line,) = [line for line in out.splitlines() if line.strip().startswith(path)]
        year, city = line.split()[-2:]
        assert path.endswith(f"year={year}/city={city}/part-0.orc")


@pytest.mark.parametrize("option", [["--stripes", "0"], ["--columns", "id"]])
def test_meta_options_of_one_file_are_errors_on_a_dataset(
    dataset_dir: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    code, out, err = run(capsys, "meta", dataset_dir, *option)
    assert_one_line_error(code, out, err)
    assert option[0] in err


# -- stats ----------------------------------------------------------------------------------------------------------


def test_stats_json_sums_up_the_files(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "stats", dataset_dir, "--files")
    frame = dataset.read()
    by_name = {c["path"]: c for c in data["columns"]}
    assert list(by_name) == ["id", "name", "x", "year", "city"]
    for name in ("id", "name", "x", "year", "city"):
        column = by_name[name]
        assert column["partition"] == (name in ("year", "city"))
        assert column["count"] == int(frame[name].notna().sum())
        assert column["has_null"] == bool(frame[name].isna().any())
        assert column["minimum"] == frame[name].min()
        assert column["maximum"] == frame[name].max()
        assert column["files_without_bounds"] == 0
        assert [f["path"] for f in column["files"]] == dataset.files
    # the flag names the files that hold the dataset's bounds
    ids = {f["path"].split("/events/")[1]: f["flag"] for f in by_name["id"]["files"]}
    assert ids == {
        "year=2023/city=Oslo/part-0.orc": "min",
        "year=2023/city=Paris/part-0.orc": None,
        "year=2024/city=Oslo/part-0.orc": None,
        "year=2024/city=Paris/part-0.orc": "max",
    }


def test_stats_text_without_and_with_files(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "stats", dataset_dir, "--columns", "id,city")
    assert (code, err) == (0, "")
    assert "by file" not in out
    rows = [line.split() for line in out.splitlines() if line[:4].strip().isdigit()]
    assert [row[1] for row in rows] == ["id", "city"]
    assert rows[0][-3:-1] == ["0", "1549"]  # least minimum and greatest maximum of id
    code, out, err = run(capsys, "stats", dataset_dir, "--columns", "id", "--files")
    assert (code, err) == (0, "")
    assert "Column id by file:" in out
    assert out.count("part-0.orc") == 4


def test_stats_stripes_is_an_error_on_a_dataset(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(*run(capsys, "stats", dataset_dir, "--stripes", "0"))


def test_stats_nested_or_unknown_column_is_an_error(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "stats", dataset_dir, "--columns", "nope")
    assert_one_line_error(code, out, err)
    assert "nope" in err


# -- head and cat ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 7, 45, 1000])
def test_head_rows_equal_the_dataset_read(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str], n: int
) -> None:
    code, out, err = run(capsys, "head", dataset_dir, "-n", n, "--json")
    assert (code, err) == (0, "")
    assert lines_json(out) == json_rows(dataset.read().head(n))


def test_head_text_numbers_rows_as_the_dataset_read(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "head", dataset_dir, "-n", 40, "--columns", "id,city")
    assert (code, err) == (0, "")
    # past the first file (30 rows) the index goes on from 30, as in the dataset's read
    expected = dataset.read(["id", "city"]).head(40)
    assert out.splitlines() == expected.to_string().splitlines()


@pytest.mark.parametrize(
    "filters",
    [
        ["year == 2024"],
        ["city == Oslo", "x > 5"],
        ["x is null"],
        ["year == 2023", "city == Paris", "--any"],
        ["year == 1999"],
    ],
)
def test_cat_rows_equal_the_filtered_dataset_read(
    dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str], filters: list[str]
) -> None:
    args: list[str] = []
    for f in filters:
        args += ["--any"] if f == "--any" else ["--filter", f]
    code, out, err = run(capsys, "cat", dataset_dir, "--columns", "id,x,city", *args)
    assert (code, err) == (0, "")
    terms = {
        "year == 2024": ("year", "==", 2024),
        "city == Oslo": ("city", "==", "Oslo"),
        "x > 5": ("x", ">", 5.0),
        "x is null": ("x", "is null"),
        "year == 2023": ("year", "==", 2023),
        "city == Paris": ("city", "==", "Paris"),
        "year == 1999": ("year", "==", 1999),
    }
    given = [terms[f] for f in filters if f != "--any"]
    read_filters: Any = [[t] for t in given] if "--any" in filters else given
    expected = dataset.read(["id", "x", "city"], filters=read_filters)
    assert lines_json(out) == json_rows(expected)
    if filters == ["year == 1999"]:
        assert out == ""


# -- explain --------------------------------------------------------------------------------------------------------


def test_explain_skips_files_by_partition_values(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", dataset_dir, "--filter", "city == Oslo")
    assert (code, err) == (0, "")
    assert "files read: 2 of 4 (skipped: 2 by partition values)" in out
    skipped = [line for line in out.splitlines() if line.endswith("skipped by partition values")]
    assert len(skipped) == 2 and all("city=Paris" in line for line in skipped)


def test_explain_json(dataset_dir: Path, dataset: ORCDataset, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", dataset_dir, "--filter", "year == 2024", "--filter", "id < 1010", "--json")
    assert (code, err) == (0, "")
    data = strict_json(out)
    expected = dataset.explain([("year", "==", 2024), ("id", "<", 1010)]).to_dict()
    # 2024's Oslo file holds ids 1000-1029, its Paris file 1500-1549: the file statistics rule that one out
    assert data["files_skipped_by"] == expected["files_skipped_by"] == {"partition values": 2, "file statistics": 1}
    assert (data["files"], data["files_read"]) == (4, expected["files_read"])
    assert [f["path"] for f in data["file_details"]] == dataset.files
    assert data["bytes_to_read"] == expected["bytes_to_read"]


def test_explain_unknown_filter_column_is_an_error(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", dataset_dir, "--filter", "nope == 1")
    assert_one_line_error(code, out, err)


# -- convert --------------------------------------------------------------------------------------------------------


def test_convert_to_parquet_reads_back_as_the_dataset(
    dataset_dir: Path, dataset: ORCDataset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "events.parquet"
    code, out, err = run(capsys, "convert", dataset_dir, out_path)
    assert (code, err) == (0, "")
    assert out == f"orcjit: wrote {dataset.nrows} rows to {out_path} (parquet)\n"
    written = pq.read_table(out_path)
    expected = dataset.read_arrow()
    assert written.schema.remove_metadata() == expected.schema.remove_metadata()
    assert written.equals(expected)
    # one row group per stripe read, as for one file
    assert pq.ParquetFile(out_path).num_row_groups == sum(
        f["stripes"] for f in run_json(capsys, "meta", dataset_dir)["files"]
    )


def test_convert_filtered_to_csv(
    dataset_dir: Path, dataset: ORCDataset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "oslo.csv"
    code, out, err = run(capsys, "convert", dataset_dir, out_path, "--filter", "city == Oslo", "--columns", "id,x,year")
    assert (code, err) == (0, "")
    expected = dataset.read(["id", "x", "year"], filters=[("city", "==", "Oslo")])
    assert out == f"orcjit: wrote {len(expected)} rows to {out_path} (csv)\n"
    pd.testing.assert_frame_equal(pd.read_csv(out_path), expected, check_dtype=False)


def test_convert_nothing_matching_still_writes_the_columns(
    dataset_dir: Path, dataset: ORCDataset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "none.parquet"
    code, out, err = run(capsys, "convert", dataset_dir, out_path, "--filter", "year == 1999")
    assert (code, out, err) == (0, f"orcjit: wrote 0 rows to {out_path} (parquet)\n", "")
    written = pq.read_table(out_path)
    assert written.num_rows == 0
    assert written.schema.names == dataset.columns


# -- globs and several paths ----------------------------------------------------------------------------------------


def test_glob_reads_the_matching_files(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # partition folders are read below the glob's fixed part, as pyarrow and Spark read them
    pattern = str(dataset_dir / "*" / "city=Oslo" / "*.orc")
    expected = ORCDataset(pattern)
    assert len(expected.files) == 2 and expected.partition_columns == ["year", "city"]
    code, out, err = run(capsys, "cat", pattern)
    assert (code, err) == (0, "")
    assert lines_json(out) == json_rows(expected.read())
    assert {(row["year"], row["city"]) for row in lines_json(out)} == {(2023, "Oslo"), (2024, "Oslo")}
    assert run_json(capsys, "meta", pattern)["file_count"] == 2


def test_several_paths_read_as_one_dataset(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(dataset_dir / "year=2024" / "city=Paris" / "part-0.orc"), str(dataset_dir / "year=2023" / "city=Oslo")]
    expected = ORCDataset(paths)
    code, out, err = run(capsys, "head", *paths, "-n", 1000, "--json")
    assert (code, err) == (0, "")
    rows = lines_json(out)
    assert rows == json_rows(expected.read())
    assert len(rows) == ROWS_PER_FILE["Oslo"] + ROWS_PER_FILE["Paris"]
    # files in sorted path order, whatever order they were given in
    assert rows[0]["id"] == 0


# -- verbs for one file, and errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["index"],
        ["bloom", "--column", "id", "--value", "1"],
        ["parquet-bloom", "--column", "id", "--value", "1"],
        ["demo"],
    ],
)
def test_one_file_verbs_refuse_a_directory_or_glob(
    dataset_dir: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    for path in (dataset_dir, dataset_dir / "year=*" / "city=Oslo" / "*.orc"):
        code, out, err = run(capsys, args[0], path, *args[1:])
        assert_one_line_error(code, out, err)
        assert f"{args[0]} works on one file" in err
        assert f"{path} is a directory or glob: give one of its files" in err


def test_one_file_of_the_dataset_is_still_one_file(dataset_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = dataset_dir / "year=2023" / "city=Oslo" / "part-0.orc"
    data = run_json(capsys, "schema", path)
    assert [c["name"] for c in data["children"]] == ["id", "name", "x"]  # no partition columns: one file alone
    assert run(capsys, "index", path)[0] == 0


@pytest.mark.parametrize("verb", ["schema", "meta", "head", "cat"])
def test_a_glob_matching_nothing_is_a_one_line_error(
    dataset_dir: Path, capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    pattern = dataset_dir / "year=1999" / "*.orc"
    code, out, err = run(capsys, verb, pattern)
    assert_one_line_error(code, out, err)
    assert err == f"orcjit: error: no path matches {str(pattern)!r}\n"


def test_a_directory_of_no_files_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "_SUCCESS").write_bytes(b"")
    code, out, err = run(capsys, "head", tmp_path)
    assert_one_line_error(code, out, err)
    assert err.startswith("orcjit: error: no files ") and str(tmp_path) in err


@pytest.mark.parametrize("verb", ["schema", "meta", "stats", "head", "cat", "explain", "convert"])
def test_help_says_the_verb_takes_a_directory_or_glob(verb: str) -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    text = subparsers.choices[verb].format_help()  # type: ignore[attr-defined]
    assert "PATH [PATH ...]" in text
    assert "directory" in text and "glob" in text
