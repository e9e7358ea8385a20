"""What a read fetches: only the selected columns' streams, adjacent ones in one request."""

from __future__ import annotations

import orcjit
from orcjit import ORCFile
from orcjit.decode.streams import coalesce
from orcjit.stripes import DATA_KINDS
from tests.factory import all_types_table, write_pyarrow


def test_coalesce_merges_touching_and_near_ranges() -> None:
    assert coalesce([(10, 5), (0, 10), (15, 5), (30, 5)]) == [(0, 20), (30, 5)]
    assert coalesce([(0, 10), (12, 3)], max_gap=2) == [(0, 15)]
    assert coalesce([(0, 10), (13, 3)], max_gap=2) == [(0, 10), (13, 3)]
    assert coalesce([(0, 10), (2, 3)]) == [(0, 10)]  # contained ranges merge too


def test_projection_reads_only_its_streams(tmp_path) -> None:
    path = write_pyarrow(tmp_path, all_types_table(20_000, 3, "some"), compression="zstd", stripe_size=64 * 1024)
    with ORCFile(path) as f:
        assert f.nstripes > 1
        column = f.schema["i64"]
        expected_bytes = 0
        for i, stripe in enumerate(f.stripes):
            footer = f.stripe_footer(i)
            expected_bytes += stripe.footer_length
            mine = [s for s in footer.streams if s.column == column.column_id and s.kind in DATA_KINDS]
            expected_bytes += sum(s.length for s in mine)
        f.source.reset_counters()
        frame = f.read(columns=["i64"])
        # per stripe: its footer, then the column's streams, which lie next to each other, in one request
        assert f.source.reads == 2 * f.nstripes
        assert f.source.bytes_read == expected_bytes
        f.source.reset_counters()
        full = f.read()
        assert f.source.bytes_read > 5 * expected_bytes
    assert frame["i64"].equals(full["i64"])


def test_read_orc_closes_what_it_opened(tmp_path) -> None:
    path = write_pyarrow(tmp_path, all_types_table(100, 1, "none"))
    before = set(__import__("os").listdir("/proc/self/fd"))
    orcjit.read_orc(path)
    assert set(__import__("os").listdir("/proc/self/fd")) == before
