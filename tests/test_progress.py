"""``progress=True``: a tqdm bar over the stripes a read decodes, for read_orc, ORCFile.read, read_arrow and
iter_stripes."""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np
import pandas as pd
import pytest

import orcjit
import orcjit.progress
from orcjit import OrcError, ORCFile
from tests.factory import write_pyarrow


class RecordingBar:
    """Stands in for tqdm: records what the read asks of its bar."""

    made: list[RecordingBar] = []  # noqa: RUF012 (reset by the fixture)

    def __init__(self, total: int, unit: str, desc: str) -> None:
        self.total, self.unit, self.desc = total, unit, desc
        self.n = 0
        self.closed = False
        self.threads: set[str] = set()
        RecordingBar.made.append(self)

    def update(self, n: int = 1) -> None:
        assert not self.closed
        self.n += n
        self.threads.add(threading.current_thread().name)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[RecordingBar]:
    RecordingBar.made = []
    monkeypatch.setattr(orcjit.progress, "_bar_class", lambda: RecordingBar)
    return RecordingBar.made


@pytest.fixture(scope="module")
def striped(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A file of several stripes whose ``i`` column rises, so filters on it skip whole stripes."""
    n = 100_000
    rng = np.random.default_rng(9)
    frame = pd.DataFrame(
        {
            "i": np.arange(n, dtype=np.int64),
            "x": rng.normal(size=n),
            "s": [f"row {k % 977}" for k in range(n)],
        }
    )
    path = write_pyarrow(tmp_path_factory.mktemp("progress"), frame, compression="zstd", stripe_size=64 * 1024)
    with ORCFile(path) as f:
        assert f.nstripes >= 4
    return path


def test_read_orc_draws_a_tqdm_bar_that_reaches_every_stripe(striped: Any, capsys: pytest.CaptureFixture) -> None:
    with ORCFile(striped) as f:
        nstripes = f.nstripes
    with_bar = orcjit.read_orc(striped, progress=True)
    err = capsys.readouterr().err
    assert f"{nstripes}/{nstripes}" in err
    assert "stripe" in err
    assert striped.name in err
    pd.testing.assert_frame_equal(with_bar, orcjit.read_orc(striped))
    assert capsys.readouterr().err == ""  # progress=False draws nothing


@pytest.mark.parametrize("use_threads", [True, False])
def test_bar_counts_each_stripe_once_from_the_decoding_tasks(
    striped: Any, recorded: list[RecordingBar], use_threads: bool
) -> None:
    with ORCFile(striped) as f:
        got = f.read(progress=True, use_threads=use_threads, max_workers=2)
        pd.testing.assert_frame_equal(got, f.read())
        (bar,) = recorded
        assert (bar.total, bar.n, bar.unit, bar.desc) == (f.nstripes, f.nstripes, "stripe", striped.name)
        assert bar.closed
        if use_threads:
            # advanced where the stripes were decoded, on the pool's threads
            assert all(name.startswith("orcjit") for name in bar.threads)


def test_projection_to_no_columns_still_finishes_the_bar(striped: Any, recorded: list[RecordingBar]) -> None:
    with ORCFile(striped) as f:
        got = f.read(columns=[], progress=True)
        assert len(got) == f.nrows
        (bar,) = recorded
        assert bar.n == bar.total == f.nstripes and bar.closed


def test_filters_that_skip_stripes_count_only_the_stripes_read(striped: Any, recorded: list[RecordingBar]) -> None:
    filters = [("i", ">=", 75_000)]
    with ORCFile(striped) as f:
        kept = f.explain(filters).to_dict()["stripes_read"]
        assert 0 < kept < f.nstripes
        got = f.read(filters=filters, progress=True)
        pd.testing.assert_frame_equal(got, f.read(filters=filters))
        (bar,) = recorded
        assert bar.total == bar.n == kept and bar.closed
        # nothing survives pruning: an empty bar, closed
        assert f.read(filters=[("i", "<", -1)], progress=True).empty
        assert recorded[1].total == recorded[1].n == 0 and recorded[1].closed


def test_read_arrow_shows_progress(striped: Any, recorded: list[RecordingBar]) -> None:
    with ORCFile(striped) as f:
        table = f.read_arrow(stripes=[0, 2], progress=True)
        assert table.equals(f.read_arrow(stripes=[0, 2]))
        (bar,) = recorded
        assert bar.total == bar.n == 2 and bar.closed


def test_iter_stripes_advances_per_stripe(striped: Any, recorded: list[RecordingBar]) -> None:
    with ORCFile(striped) as f:
        it = f.iter_stripes(progress=True)
        frames = []
        for frame in it:
            frames.append(frame)
            assert recorded[0].n == len(frames)  # the stripe just yielded is counted
        bar = recorded[0]
        assert bar.total == bar.n == f.nstripes and bar.closed
        pd.testing.assert_frame_equal(pd.concat(frames), f.read().set_axis(pd.RangeIndex(f.nrows)))


def test_iter_stripes_counts_skipped_stripes_and_closes_when_stopped(
    striped: Any, recorded: list[RecordingBar]
) -> None:
    with ORCFile(striped) as f:
        frames = list(f.iter_stripes(filters=[("i", ">=", 75_000)], progress=True))
        assert 0 < len(frames) < f.nstripes
        assert recorded[0].n == recorded[0].total == f.nstripes and recorded[0].closed
        it = f.iter_stripes(progress=True)
        next(it)
        it.close()  # the consumer stops early
        assert recorded[1].n == 1 and recorded[1].closed


def test_a_failing_read_closes_the_bar(
    striped: Any, recorded: list[RecordingBar], monkeypatch: pytest.MonkeyPatch
) -> None:
    import orcjit.reading.scan

    calls = 0
    real = orcjit.reading.scan.decode_run

    def flaky(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OrcError("corrupt stripe")
        return real(*args, **kwargs)

    monkeypatch.setattr(orcjit.reading.scan, "decode_run", flaky)
    with ORCFile(striped) as f, pytest.raises(OrcError, match="corrupt stripe"):
        f.read(progress=True, use_threads=False)
    (bar,) = recorded
    assert bar.closed and bar.n == 1


def test_a_failing_iter_stripes_closes_the_bar(
    striped: Any, recorded: list[RecordingBar], monkeypatch: pytest.MonkeyPatch
) -> None:
    import orcjit.reading.scan

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OrcError("corrupt stripe")

    monkeypatch.setattr(orcjit.reading.scan, "decode_run", broken)
    with ORCFile(striped) as f, pytest.raises(OrcError, match="corrupt stripe"):
        list(f.iter_stripes(progress=True))
    (bar,) = recorded
    assert bar.closed and bar.n == 0


def test_missing_tqdm_raises_orc_error(striped: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # makes `import tqdm` raise ImportError
    with pytest.raises(OrcError, match=r"pip install tqdm.*orcjit\[progress\]"):
        orcjit.read_orc(striped, progress=True)
    with ORCFile(striped) as f:
        with pytest.raises(OrcError, match="pip install tqdm"):
            f.read_arrow(progress=True)
        with pytest.raises(OrcError, match="pip install tqdm"):
            next(f.iter_stripes(progress=True))
        # without progress, tqdm is not needed
        assert len(f.read(progress=False)) == f.nrows


@pytest.mark.parametrize("bad", [1, 0, "yes", None])
def test_progress_must_be_a_bool(striped: Any, bad: Any) -> None:
    with pytest.raises(OrcError, match="progress must be True or False"):
        orcjit.read_orc(striped, progress=bad)
    with ORCFile(striped) as f:
        with pytest.raises(OrcError, match="progress must be True or False"):
            f.read_arrow(progress=bad)
        with pytest.raises(OrcError, match="progress must be True or False"):
            next(f.iter_stripes(progress=bad))
