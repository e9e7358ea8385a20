"""Trust rules: data from writers known to get an index wrong is never pruned by it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

import orcjit
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.pushdown.prune import bloom_filters_trusted, statistics_trusted
from tests.factory import write_pyarrow


def test_bloom_filter_trust_by_writer_release() -> None:
    assert bloom_filters_trusted("ORC_JAVA", None)
    assert bloom_filters_trusted("ORC_CPP", "2.2.2")
    assert bloom_filters_trusted("ORC_CPP", "1.6.12")
    assert bloom_filters_trusted("ORC_CPP", "1.7.1")
    for bad in ("1.6.0", "1.6.11", "1.7.0", "1.6.3-SNAPSHOT"):
        assert not bloom_filters_trusted("ORC_CPP", bad)
    assert not bloom_filters_trusted("ORC_CPP", None)  # releases before 1.6.11 recorded no version


def test_statistics_trust_by_writer_version() -> None:
    assert not statistics_trusted("string", "ORC_JAVA", 0)  # before HIVE-8732
    assert statistics_trusted("string", "ORC_JAVA", 1)
    assert not statistics_trusted("decimal", "ORC_JAVA", 0)
    assert statistics_trusted("int", "ORC_JAVA", 0)
    assert statistics_trusted("string", "ORC_CPP", 6)


def _with_software_version(data: bytes, version: str | None) -> bytes:
    """The same file with the footer's softwareVersion replaced (or removed)."""
    ps_len = data[-1]
    ps = pb.PostScript()
    ps.ParseFromString(data[-1 - ps_len : -1])
    assert ps.compression == 0
    footer_start = len(data) - 1 - ps_len - ps.footerLength
    footer = pb.Footer()
    footer.ParseFromString(data[footer_start : footer_start + ps.footerLength])
    if version is None:
        footer.ClearField("softwareVersion")
    else:
        footer.softwareVersion = version
    raw = footer.SerializeToString()
    ps.footerLength = len(raw)
    ps_raw = ps.SerializeToString()
    return data[:footer_start] + raw + ps_raw + bytes([len(ps_raw)])


def test_bad_cpp_bloom_filters_are_not_used(tmp_path) -> None:
    rng = np.random.default_rng(5)
    keys = rng.permutation(200_000)[:50_000].astype(np.int64)  # spread every key range over every row group
    path = write_pyarrow(
        tmp_path,
        pa.table({"key": keys, "value": np.arange(len(keys))}),
        compression="uncompressed",
        row_index_stride=1000,
        bloom_filter_columns=["key"],
        bloom_filter_fpp=0.01,
    )
    data = path.read_bytes()
    wanted = int(keys[12_345])
    flt = [("key", "==", wanted)]
    expected = orcjit.read_orc(data)
    expected = expected[expected["key"] == wanted].reset_index(drop=True)

    good = orcjit.ORCFile(data).explain(flt).to_dict()
    skipped = sum(s.get("row_groups_skipped_by_bloom_filter", 0) for s in good["stripes"])
    assert skipped > 40  # min/max keep all 50 row groups; the bloom filters rule out nearly all of them

    for version in ("1.6.5", None):
        bad = _with_software_version(data, version)
        report = orcjit.ORCFile(bad).explain(flt).to_dict()
        assert sum(s.get("row_groups_skipped_by_bloom_filter", 0) for s in report["stripes"]) == 0
        got = orcjit.read_orc(bad, filters=flt)
        assert got.equals(expected)
    assert orcjit.read_orc(data, filters=flt).equals(expected)
