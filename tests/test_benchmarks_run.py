"""Smoke test of benchmarks/run.py on a tiny dataset: every part runs and the report has its rows.

No timing is asserted (speed is judged by the benchmark itself); what is checked is that the dataset, the
decompression floor, the memory probe, the tables and the plot are built from real reads.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.orc as po
import pytest

import orcjit
from benchmarks import dataset, decompress, memory, run, speed_report
from benchmarks.results import RESULTS

ROWS = 3_000


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speed-data")


def test_dataset_has_the_ten_columns_in_each_codec(data_dir: Path) -> None:
    files = dataset.files(ROWS, ["zstd", "none"], data_dir)
    for codec, path in files.items():
        table = po.read_table(path)
        assert table.num_rows == ROWS
        assert table.column_names == list(dataset.COLUMNS)
        assert po.ORCFile(path).compression == ("UNCOMPRESSED" if codec == "none" else codec.upper())
    assert po.read_table(files["zstd"]).equals(po.read_table(files["none"]))
    assert po.read_table(files["zstd"], columns=["seq_int"]).column(0).to_pylist() == list(range(ROWS))


def test_one_stripe_files_hold_one_stripe(data_dir: Path) -> None:
    path = dataset.files(ROWS, ["zstd"], data_dir, one_stripe=True)["zstd"]
    assert path.name == f"speed-{ROWS}-zstd-one-stripe.orc"
    assert po.ORCFile(path).nstripes == 1
    assert po.read_table(path).equals(po.read_table(dataset.files(ROWS, ["zstd"], data_dir)["zstd"]))


def test_spark_writes_the_same_rows_with_orc_java_defaults(spark, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    path = dataset.files(ROWS, ["zstd"], data_dir, writer="spark")["zstd"]
    assert path.name == f"speed-spark-{ROWS}-zstd.orc"
    assert spark.sparkContext._jsc is not None  # the test session was left running
    f = orcjit.ORCFile(path)
    assert (f.writer, f.compression) == ("ORC_JAVA", "ZSTD")
    assert f.row_index_stride == 10_000
    # ORC Java's defaults: the 100 categories dictionary-encoded (DICTIONARY_V2), the unique ids direct (DIRECT_V2)
    kinds = [e.kind for e in f.stripe_footer(0).encodings]
    names = list(dataset.COLUMNS)
    assert kinds[names.index("dict_str") + 1] == 3 and kinds[names.index("unique_str") + 1] == 2
    ours = orcjit.read_orc(path)
    theirs = orcjit.read_orc(dataset.files(ROWS, ["zstd"], data_dir)["zstd"])
    pd.testing.assert_frame_equal(ours, theirs)


def test_decompression_floor_returns_the_streams_bytes(data_dir: Path) -> None:
    files = dataset.files(ROWS, ["zstd", "none"], data_dir)
    ids = {list(dataset.COLUMNS).index(c) + 1 for c in dataset.NUMERIC}
    plain = decompress.collect(str(files["none"]), ids)
    packed = decompress.collect(str(files["zstd"]), ids)
    assert plain.chunks == 0 and plain.original_bytes == plain.stored_bytes > 0
    assert packed.chunks > 0
    # both files hold the same values encoded alike, so their decompressed streams are the same size
    assert decompress.decompress_all(packed)() == decompress.decompress_all(plain)() == plain.stored_bytes


def test_memory_probe_reads_the_file_in_a_new_process(data_dir: Path) -> None:
    files = dataset.files(ROWS, ["zstd"], data_dir)
    small = dataset.files(dataset.SMALL_ROWS, ["zstd"], data_dir)
    found = memory.peak_memory("orcjit", files["zstd"], small["zstd"])
    assert found["rows"] == ROWS
    assert found["frame_bytes"] == orcjit.read_orc(files["zstd"]).memory_usage(deep=True).sum()
    assert found["peak_growth_bytes"] >= 0


def test_run_reports_every_reader_column_and_target(data_dir: Path, tmp_path: Path) -> None:
    before = RESULTS.read_text() if RESULTS.exists() else None
    argv = ["--rows", str(ROWS), "--codecs", "zstd,none", "--repeats", "1", "--pyorc-rows", "500"]
    argv += ["--only", "whole,columns,numeric,onestripe,small", "--small-repeats", "3", "--one-stripe-rows", "2000"]
    argv += ["--writers", "pyarrow", "--data-dir", str(data_dir), "--no-write"]
    args = run.parse_args(argv)
    results = run.run(args)
    section = speed_report.section(results, args)

    assert section.startswith("## Speed\n")
    assert "--rows 3000" in section
    for target in speed_report.TARGETS:
        assert f"| {target.label} |" in section
    for label in results["readers"].values():
        assert label in section
    assert "pyorc (first 500 rows, scaled)" in section
    for codec in ("zstd", "none"):
        c = results["writers"]["pyarrow"]["codecs"][codec]
        assert set(c["whole"]) == set(results["readers"])
        assert set(c["whole_no_decimal"]) == {"orcjit", "pandas"}
        assert set(c["columns"]) == set(dataset.COLUMNS)
        assert all(t.ms > 0 for t in c["whole"].values())
        assert f"| {codec} | numeric |" in section
    for column in dataset.COLUMNS:
        assert f"| `{column}` | {dataset.TYPES[column]} |" in section
    assert results["writers"]["pyarrow"]["codecs"]["none"]["numeric"]["numeric"]["decompress"] is None
    assert "| Peak memory" in section and "not measured" in section  # the memory part was not asked for
    one = results["onestripe"]["pyarrow"]
    assert one["stripes"] == 1 and set(one["columns"]) == set(dataset.COLUMNS)
    assert "### 2,000 rows in one stripe (zstd), written by pyarrow" in section
    assert set(results["small"]["pyarrow"]) == set(run.QUICK_READERS)
    assert "### A small file: 1,000 rows" in section

    png = tmp_path / "speed.png"
    speed_report.plot(results, args, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (RESULTS.read_text() if RESULTS.exists() else None) == before  # --no-write left RESULTS.md alone


def test_main_prints_the_section_and_rejects_unknown_parts(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--rows", str(ROWS), "--codecs", "zstd", "--repeats", "1", "--readers", "orcjit,to_pandas,pandas"]
    section = run.main([*argv, "--only", "whole", "--data-dir", str(data_dir), "--no-write"])
    assert section in capsys.readouterr().out
    assert "| zstd |" in section
    with pytest.raises(SystemExit, match="unknown part"):
        run.parse_args(["--only", "everything"])
