"""The file tail: how many reads it costs, and what broken tails raise."""

from __future__ import annotations

import random

import pytest

from orcjit import OrcError, ORCFile
from orcjit.tail import TAIL_READ_SIZE
from tests.conftest import EXAMPLES

SMALL = EXAMPLES / "TestOrcFile.test1.orc"  # ZLIB, 1 stripe
UNCOMPRESSED = EXAMPLES / "TestOrcFile.testPredicatePushdown.orc"
BIG_TAIL = EXAMPLES / "TestOrcFile.metaData.orc"  # user metadata makes its tail larger than 16 KiB


def touch_everything(f: ORCFile) -> None:
    """Use every metadata accessor, so that lazily parsed parts are checked too."""
    str(f.schema)
    f.statistics  # noqa: B018
    f.user_metadata  # noqa: B018
    for i in range(f.nstripes):
        f.stripe_statistics(i)
        f.stripe_footer(i)


def test_small_tail_costs_one_read() -> None:
    with ORCFile(SMALL) as f:
        assert f.source.reads == 1
        assert f.source.bytes_read == SMALL.stat().st_size  # smaller than 16 KiB: the whole file is the tail read


def test_large_file_reads_only_the_last_16k() -> None:
    path = EXAMPLES / "demo-12-zlib.orc"
    with ORCFile(path) as f:
        assert f.source.reads == 1
        assert f.source.bytes_read == TAIL_READ_SIZE


def test_tail_larger_than_16k_costs_exactly_one_more_read() -> None:
    with ORCFile(BIG_TAIL) as f:
        assert f.source.reads == 2
        assert f.source.bytes_read == f.file_size - f.content_length  # the tail, and nothing more
        assert f.file_size - f.content_length > TAIL_READ_SIZE
        assert len(f.user_metadata) > 0


def test_missing_file_is_file_not_found(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        ORCFile(tmp_path / "nope.orc")


@pytest.mark.parametrize("path", [SMALL, UNCOMPRESSED], ids=lambda p: p.name)
def test_every_truncation_raises_orc_error(path) -> None:
    data = path.read_bytes()
    # every prefix for the small file; for the larger one, every prefix that cuts into the tail or the last stripe
    start = 0 if len(data) < 4096 else len(data) - 4096
    for size in [*range(0, 64), *range(start, len(data))]:
        with pytest.raises(OrcError):
            touch_everything(ORCFile(data[:size]))


def test_ps_length_byte_pointing_outside_the_file() -> None:
    data = bytearray(SMALL.read_bytes())
    data[-1] = 255
    with pytest.raises(OrcError):
        ORCFile(bytes(data[:200]))


def test_future_major_version_is_refused() -> None:
    from orcjit._proto import orc_proto_pb2 as pb

    data = SMALL.read_bytes()
    ps_len = data[-1]
    ps = pb.PostScript()
    ps.ParseFromString(data[-1 - ps_len : -1])
    del ps.version[:]
    ps.version.extend([2, 0])
    raw = ps.SerializeToString()
    with pytest.raises(OrcError, match=r"version 2\.0"):
        ORCFile(data[: -1 - ps_len] + raw + bytes([len(raw)]))


def test_unknown_compression_kind_is_refused() -> None:
    from orcjit._proto import orc_proto_pb2 as pb

    data = SMALL.read_bytes()
    ps_len = data[-1]
    ps = pb.PostScript()
    ps.ParseFromString(data[-1 - ps_len : -1])
    ps.compression = 42
    raw = ps.SerializeToString()
    with pytest.raises(OrcError, match="unknown compression kind 42"):
        ORCFile(data[: -1 - ps_len] + raw + bytes([len(raw)]))


@pytest.mark.parametrize("seed", range(4))
def test_random_bytes_in_postscript_and_footer(example_file, seed: int) -> None:
    """Mutations of the tail either open (the metadata still parses) or raise OrcError; nothing else."""
    data = example_file.read_bytes()
    with ORCFile(data) as f:
        tail_start = f.content_length
    rng = random.Random(f"{example_file.name}-{seed}")
    opened = failed = 0
    for _ in range(60):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(tail_start, len(data))
            mutated[pos] = rng.randrange(256)
        try:
            touch_everything(ORCFile(bytes(mutated)))
            opened += 1
        except OrcError as exc:
            assert str(exc)
            failed += 1
    assert opened + failed == 60
