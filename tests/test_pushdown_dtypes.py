"""A filtered read has the dtypes of the full read, whichever stripes pruning skipped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

import orcjit
from tests.factory import write_pyarrow


def test_skipped_stripes_with_nulls_keep_full_read_dtypes(tmp_path) -> None:
    n = 30_000
    ids = np.arange(n)
    # nulls only in the first rows: the stripes a filter on the last rows keeps have none
    values = pa.array([None if i < 100 else i for i in range(n)], pa.int32())
    flags = pa.array([None if i < 100 else bool(i % 2) for i in range(n)], pa.bool_())
    path = write_pyarrow(
        tmp_path, pa.table({"id": ids, "v": values, "b": flags}), compression="uncompressed", stripe_size=64 * 1024
    )
    f = orcjit.ORCFile(path)
    assert f.nstripes > 2
    flt = [("id", ">=", n - 10)]
    report = f.explain(flt).to_dict()
    assert report["stripes_read"] < f.nstripes  # the stripe holding the nulls is skipped
    full = orcjit.read_orc(path)
    got = orcjit.read_orc(path, filters=flt)
    expected = full[full["id"] >= n - 10].reset_index(drop=True)
    assert full["v"].dtype == np.float64 and full["b"].dtype == object
    pd.testing.assert_frame_equal(got, expected)
