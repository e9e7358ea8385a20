"""Columns decoded a block at a time through small int64 buffers: integers narrower than bigint (smallint, int,
date) straight into their own dtype, and timestamps' seconds and nanoseconds. The values must be those
pandas.read_orc gives whatever the block size (runs crossing block boundaries, nulls, seeks into row groups), and a
value outside the column's type must still be an OrcError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import orcjit
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.decode import columns, cursor
from tests.factory import write_pyarrow
from tests.fuzz_harness import decode_file, encode_file

ROWS = 30_000


@pytest.fixture(scope="module")
def narrow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(5)
    mask = rng.random(ROWS) < 0.1
    table = pa.table(
        {
            "short": pa.array(rng.integers(-(2**15), 2**15, ROWS, dtype=np.int16)),
            "int": pa.array(np.repeat(rng.integers(-(2**31), 2**31, ROWS // 50, dtype=np.int32), 50)),
            "int_nulls": pa.array(rng.integers(0, 1000, ROWS, dtype=np.int32), mask=mask),
            "day": pa.array(np.arange(ROWS, dtype=np.int32) // 7, type=pa.date32()),
            "ts": pa.array(rng.integers(-(2**62), 2**62, ROWS) // 7, type=pa.timestamp("ns"), mask=mask[::-1]),
        }
    )
    return write_pyarrow(tmp_path_factory.mktemp("narrow") / "narrow.orc", table, row_index_stride=1000)


@pytest.mark.parametrize("block", [1, 7, 512, 4099, 1 << 16])
def test_every_block_size_reads_as_pandas(narrow_file: Path, block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cursor, "BLOCK_VALUES", block)
    monkeypatch.setattr(columns, "BLOCK_VALUES", block)
    expected = pd.read_orc(narrow_file)
    pd.testing.assert_frame_equal(orcjit.read_orc(narrow_file), expected)
    pd.testing.assert_frame_equal(orcjit.read_orc(narrow_file, use_threads=False), expected)
    # a seek into row groups: the decoder enters mid-stream, then decodes block by block
    got = orcjit.read_orc(narrow_file, filters=[("day", ">=", expected["day"].iloc[25_500])])
    pd.testing.assert_frame_equal(got, expected[expected["day"] >= expected["day"].iloc[25_500]].reset_index(drop=True))


@pytest.mark.parametrize(
    ("kind", "value", "name"),
    [(pb.Type.SHORT, 2**15, "smallint"), (pb.Type.INT, -(2**31) - 1, "int"), (pb.Type.DATE, 2**40, "date")],
)
def test_a_value_outside_the_type_is_an_error(tmp_path: Path, kind: int, value: int, name: str) -> None:
    """A bigint column retyped in the footer: the value that does not fit is found in whichever block holds it."""
    values = np.zeros(5000, dtype=np.int64)
    values[4321] = value
    path = write_pyarrow(tmp_path / "wide.orc", pa.table({"x": values}))
    model = decode_file(path.read_bytes())
    model.footer.types[1].kind = kind
    retyped = tmp_path / "retyped.orc"
    retyped.write_bytes(encode_file(model))
    for block in (100, 1 << 16):
        cursor.BLOCK_VALUES, saved = block, cursor.BLOCK_VALUES
        try:
            with pytest.raises(orcjit.OrcError, match=f"value outside the range of {name}"):
                orcjit.read_orc(retyped)
        finally:
            cursor.BLOCK_VALUES = saved


@pytest.mark.parametrize("block", [100, 1 << 16])
def test_a_timestamp_past_the_nanosecond_range_is_an_error(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columns, "BLOCK_VALUES", block)
    seconds = np.zeros(5000, dtype=np.int64)
    seconds[4321] = 400 * 365 * 86400  # 2370: past 2262, where int64 nanoseconds end
    path = write_pyarrow(tmp_path / "far.orc", pa.table({"t": pa.array(seconds, type=pa.timestamp("s"))}))
    with pytest.raises(orcjit.OrcError, match="timestamp outside the years 1677-2262 that nanoseconds reach"):
        orcjit.read_orc(path)
