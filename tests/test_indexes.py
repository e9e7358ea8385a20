"""ORCFile.row_index and ORCFile.bloom_filter: the public view of a stripe's indexes, checked against the data.

Row-group statistics are compared with each group's slice of the rows as pyarrow reads them, positions with the
kernel parser the reader seeks with, and bloom filters with the values present in each group (every one must be
found) and with an independent count of the bits.
"""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.orc as po
import pyorc
import pytest

import orcjit
from orcjit import OrcError, ORCFile
from orcjit.decode.positions import column_positions
from orcjit.indexes import describe_position, position_dict
from orcjit.kernels.row_index import parse_row_index

from .conftest import EXAMPLES

STRIDE = 1000
ROWS = 23_456  # the last row group of the last stripe is short


def _pyorc_file(compression: Any = pyorc.CompressionKind.ZSTD) -> bytes:
    rng = random.Random(7)
    buf = io.BytesIO()
    schema = "struct<id:bigint,city:string,score:double,tags:array<int>,point:struct<x:int,y:int>>"
    with pyorc.Writer(
        buf,
        schema,
        stripe_size=64 * 1024,
        row_index_stride=STRIDE,
        bloom_filter_columns=["id", "city", "score"],
        bloom_filter_fpp=0.05,
        compression=compression,
    ) as writer:
        for i in range(ROWS):
            city = None if i % 7 == 0 else f"city-{rng.randrange(5000)}"
            tags = [rng.randrange(100) for _ in range(i % 4)]
            writer.write((i * 3, city, rng.random() * 100, tags, (i, -i)))
    return buf.getvalue()


@pytest.fixture(scope="module", params=["ZSTD", "NONE"])
def pyorc_file(request: pytest.FixtureRequest) -> bytes:
    return _pyorc_file(getattr(pyorc.CompressionKind, request.param))


def test_row_group_statistics_match_the_rows(pyorc_file: bytes) -> None:
    table = po.ORCFile(io.BytesIO(pyorc_file)).read()
    with ORCFile(pyorc_file) as f:
        assert f.nstripes > 2
        groups = 0
        for stripe in f.stripes:
            for name in ("id", "city", "score"):
                index = f.row_index(stripe.index, name)
                assert index is not None and index.path == name and index.stride == STRIDE
                assert index.first_rows[0] == stripe.first_row and int(index.rows.sum()) == stripe.rows
                for g, stats in enumerate(index.statistics):
                    first, rows = int(index.first_rows[g]), int(index.rows[g])
                    values = table.column(name).slice(first, rows).to_pylist()
                    present = [v for v in values if v is not None]
                    assert stats.count == len(present)
                    assert stats.has_null == (len(present) < rows)
                    assert stats.minimum == min(present) and stats.maximum == max(present)
                    groups += 1
        assert groups == 3 * sum(-(-s.rows // STRIDE) for s in f.stripes)


def test_compound_columns_have_counts_and_their_own_positions(pyorc_file: bytes) -> None:
    table = po.ORCFile(io.BytesIO(pyorc_file)).read()
    with ORCFile(pyorc_file) as f:
        index = f.row_index(0, "tags")
        assert index is not None
        for g, stats in enumerate(index.statistics):
            lists = table.column("tags").slice(int(index.first_rows[g]), int(index.rows[g])).to_pylist()
            # ORC C++ leaves total_children at 0 in every statistics of a list, so only the count is checked
            assert stats.count == sum(v is not None for v in lists)
            assert set(index.positions[g]) == {"LENGTH"}  # no nulls, so no PRESENT stream and no PRESENT position
        point = f.row_index(0, "point")
        assert point is not None and all(p == {} for p in point.positions)  # a struct's rows are its children's
        assert f.row_index(0, "point.x").statistics[1].minimum == STRIDE  # type: ignore[union-attr]


def test_positions_agree_with_the_kernel_parser_the_reader_uses(pyorc_file: bytes) -> None:
    with ORCFile(pyorc_file) as f:
        compressed = f.compression != "NONE"
        for stripe in f.stripes:
            footer = f.stripe_footer(stripe.index)
            for node in f.schema.walk():
                index = f.row_index(stripe.index, node.column_id)
                assert index is not None and index.compressed == compressed
                (s,) = [s for s in footer.streams if s.column == node.column_id and s.kind_name == "ROW_INDEX"]
                raw = f.meta.tail.decompress_message(f.source.read(s.offset, s.length), "test")
                table = parse_row_index(raw, "test")
                assert table is not None
                split = column_positions(table.position_rows(), node, footer, compressed, "test")
                for g in range(len(index)):
                    assert list(index.positions[g].values()) == list(split[g].values())
                    assert set(index.positions[g]) <= {"PRESENT", "DATA", "LENGTH", "SECONDARY"}
                # every stream stands at its start in the first row group
                assert all(p.chunk_offset == 0 and p.values_to_skip == 0 for p in index.positions[0].values())


def test_row_index_frame_and_json_forms(pyorc_file: bytes) -> None:
    with ORCFile(pyorc_file) as f:
        index = f.row_index(1, "city")
        assert index is not None
        frame = index.to_frame()
        assert list(frame["group"]) == list(range(len(index)))
        assert list(frame["minimum"]) == [s.minimum for s in index.statistics]
        assert {"PRESENT position", "DATA position", "LENGTH position"} <= set(frame.columns)
        assert frame["DATA position"][1] == describe_position(index.positions[1]["DATA"], index.compressed)
        as_dict = index.to_dict()
        assert as_dict["stripe"] == 1 and as_dict["path"] == "city" and len(as_dict["row_groups"]) == len(index)
        group = as_dict["row_groups"][1]
        assert group["statistics"]["count"] == index.statistics[1].count
        assert group["positions"]["LENGTH"] == position_dict(index.positions[1]["LENGTH"], index.compressed)
        key = "chunk_offset" if index.compressed else "byte_offset"
        assert set(group["positions"]["PRESENT"]) >= {key, "values_to_skip", "bits_to_skip"}


def _popcount(words: np.ndarray) -> int:
    return sum(bin(int(w)).count("1") for w in words)


def test_bloom_filters_find_every_present_value(pyorc_file: bytes) -> None:
    table = po.ORCFile(io.BytesIO(pyorc_file)).read()
    with ORCFile(pyorc_file) as f:
        assert f.writer == "ORC_CPP"
        for stripe in f.stripes:
            for name in ("id", "city", "score"):
                bf = f.bloom_filter(stripe.index, name)
                assert bf is not None and bf.stream == "BLOOM_FILTER_UTF8" and bf.reliable
                index = f.row_index(stripe.index, name)
                assert index is not None and len(bf) == len(index)
                for g in range(len(bf)):
                    words = bf.bits[g, : bf.num_bits[g] // 64]
                    assert bf.fill_ratio[g] == pytest.approx(_popcount(words) / bf.num_bits[g])
                    values = table.column(name).slice(int(index.first_rows[g]), int(index.rows[g])).to_pylist()
                    for v in {v for v in values if v is not None}:
                        assert bf.might_contain(v)[g], (stripe.index, name, g, v)


def test_bloom_filter_false_positives_follow_the_fill_ratio(pyorc_file: bytes) -> None:
    with ORCFile(pyorc_file) as f:
        bf = f.bloom_filter(0, "id")
        assert bf is not None
        # ids are multiples of 3: the others are absent everywhere
        absent = [3 * i + 1 for i in range(3000)]
        hits = np.array([bf.might_contain(v) for v in absent])
        expected = bf.false_positive_rate.mean()
        assert 0 < expected < 0.2
        assert hits.mean() == pytest.approx(expected, abs=0.03)
        assert bf.to_dict()["row_groups"][0]["num_bits"] == int(bf.num_bits[0])


def test_columns_without_bloom_filters_and_files_without_indexes() -> None:
    data = _pyorc_file()
    with ORCFile(data) as f:
        assert f.bloom_filter(0, "tags") is None
        assert f.row_index(-1, "id") is not None  # negative stripes count from the end
    with ORCFile(EXAMPLES / "TestOrcFile.testWithoutIndex.orc") as f:
        assert f.row_index_stride == 0 and f.row_index(0, 1) is None and f.bloom_filter(0, 1) is None


def test_bad_arguments_and_values_raise() -> None:
    with ORCFile(_pyorc_file()) as f:
        with pytest.raises(OrcError, match=r"no column 'nope'.*'city'"):
            f.row_index(0, "nope")
        with pytest.raises(OrcError, match="no column 99"):
            f.bloom_filter(0, 99)
        with pytest.raises(OrcError, match="dotted path or a column id"):
            f.row_index(0, True)  # type: ignore[arg-type]
        with pytest.raises(IndexError, match="stripe 50 out of range"):
            f.row_index(50, "id")
        bf = f.bloom_filter(0, "id")
        assert bf is not None
        with pytest.raises(OrcError, match="cannot"):
            bf.might_contain("not a number")


def test_hive_early_bloom_layout_is_named_not_misread() -> None:
    # over1k_bloom.orc predates the layout every ORC reader knows: its filters are refused with a reason
    with ORCFile(EXAMPLES / "over1k_bloom.orc") as f, pytest.raises(OrcError, match="hash functions"):
        f.bloom_filter(0, "_col7")


SPARK_PANDAS_WARNING = "ignore:PySpark does not yet fully support pandas:FutureWarning"


@pytest.mark.filterwarnings(SPARK_PANDAS_WARNING)
def test_spark_written_indexes(spark: Any, tmp_path: Path) -> None:
    rows = [(i, f"name-{(i * 7919) % 3001}", None if i % 11 == 0 else float(i) / 3) for i in range(6000)]
    out = tmp_path / "spark"
    (
        spark.createDataFrame(rows, "k long, name string, x double")
        .coalesce(1)
        .write.option("orc.bloom.filter.columns", "k,name")
        .option("orc.row.index.stride", "1000")
        .orc(str(out))
    )
    (path,) = out.glob("*.orc")
    with ORCFile(path) as f:
        assert f.writer == "ORC_JAVA"
        name = f.bloom_filter(0, "name")
        x = f.row_index(0, "x")
        assert name is not None and name.reliable and x is not None and len(x) == 6
        for g in range(6):
            chunk = rows[g * 1000 : (g + 1) * 1000]
            assert all(name.might_contain(n)[g] for _, n, _ in chunk)
            present = [v for _, _, v in chunk if v is not None]
            assert x.statistics[g].minimum == min(present) and x.statistics[g].has_null
        assert f.bloom_filter(0, "x") is None
        assert int(orcjit.read_orc(path, filters=[("name", "==", "name-5")])["k"].iloc[0]) * 7919 % 3001 == 5
