"""The NumPy backends against ORC C++'s own read, needing neither pyarrow nor pandas.read_orc.

CI runs this module (with ``tests/test_read_examples.py``'s orc-contents comparisons) in an environment where
pyarrow is not installed at all, so that orcjit's NumPy-only conversion (``orcjit.convert``) is tested
with the pandas and NumPy that users without pyarrow have. Files are written by pyorc (ORC C++) with every type,
in several writer time zones, codecs and null densities, and read back by pyorc itself: each value of orcjit's
default and ``numpy_nullable`` backends must equal pyorc's.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import math
import zoneinfo
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyorc
import pytest

import orcjit
from orcjit.errors import OrcError
from orcjit.types.schema import TypeNode
from tests.factory import PYORC_CONVERTERS, PYORC_FIELDS, all_types_pyorc, orc_cpp_wall_clock, write_pyorc

HAVE_PYARROW = importlib.util.find_spec("pyarrow") is not None
ROWS = 1500
# (writer zone, compression, nulls, dictionary-encoded strings)
CASES = [
    ("UTC", "zstd", "some", False),
    ("America/New_York", "zlib", "some", True),
    ("Australia/Lord_Howe", "snappy", "none", False),
    ("Asia/Kolkata", "lz4", "all", False),
    ("Europe/Berlin", "uncompressed", "some", True),
]
INTEGERS = frozenset({"tinyint", "smallint", "int", "bigint"})
STRINGS = frozenset({"string", "char", "varchar"})


def _null(v: Any) -> bool:
    if v is None or v is pd.NaT or v is pd.NA:
        return True
    return isinstance(v, float | np.floating) and math.isnan(v)


def normal(node: TypeNode, v: Any, side: str, zone: str = "UTC") -> Any:
    """``v``, a value of ``node`` from ``side`` (``"pyorc"`` or ``"orcjit"``), as plain comparable Python."""
    if _null(v):
        return None
    kind = node.kind
    if kind == "uniontype":
        if side == "pyorc":  # pyorc gives the bare value; this schema's variants are int and string
            tag, value = int(isinstance(v, str)), v
        else:
            tag, value = v["tag"], v["value"]
        return {"tag": tag, "value": normal(node.children[tag], value, side, zone)}
    if kind == "boolean":
        assert isinstance(v, bool | np.bool_), v
        return bool(v)
    if kind in INTEGERS:
        # the default backend gives integer columns with nulls as float64, as pandas.read_orc does
        return float(v) if isinstance(v, float | np.floating) else int(v)
    if kind in ("float", "double"):
        return float(v)
    if kind in STRINGS:
        assert isinstance(v, str), v
        return v
    if kind == "binary":
        assert isinstance(v, bytes), v
        return v
    if kind == "decimal":
        assert isinstance(v, Decimal), v
        if side == "orcjit":
            assert v.as_tuple().exponent == -(node.scale or 0), v
        return v
    if kind == "date":
        assert type(v) is dt.date, v
        return v
    if kind == "timestamp":
        # pyorc gives the instant the writer stored: its wall clock as ORC C++ reads it (before a zone's first
        # transition, its first standard offset rather than local mean time)
        return orc_cpp_wall_clock(pd.Timestamp(v), zone) if side == "pyorc" else pd.Timestamp(v)
    if kind == "timestamp with local time zone":
        return pd.Timestamp(v).tz_convert("UTC")
    if kind == "array":
        return [normal(node.children[0], x, side, zone) for x in v]
    if kind == "map":
        key, value = node.children
        pairs = v.items() if isinstance(v, dict) else v
        return [(normal(key, k, side, zone), normal(value, x, side, zone)) for k, x in pairs]
    assert kind == "struct", kind
    return {c.name: normal(c, v[c.name], side, zone) for c in node.children}


def _written(tmp_path: Path, zone: str, compression: str, nulls: str, dictionary: bool) -> Path:
    schema, rows = all_types_pyorc(ROWS, seed=len(zone), nulls=nulls)
    ts = PYORC_FIELDS.index("ts")
    if zone != "UTC":  # a naive wall clock may not exist in the zone, an instant always does
        rows = [(*r[:ts], None if r[ts] is None else r[ts].tz_localize("UTC"), *r[ts + 1 :]) for r in rows]
    return write_pyorc(
        tmp_path,
        schema,
        rows,
        compression=compression,
        timezone=zone,
        stripe_size=16 * 1024,
        batch_size=250,
        dict_key_size_threshold=1.0 if dictionary else None,
    )


def _pyorc_columns(path: Path, zone: str, schema: TypeNode) -> dict[str, list[Any]]:
    with open(path, "rb") as fh:
        reader = pyorc.Reader(
            fh, struct_repr=pyorc.StructRepr.DICT, converters=PYORC_CONVERTERS, timezone=zoneinfo.ZoneInfo(zone)
        )
        rows = list(reader)
    return {c.name: [normal(c, row[c.name], "pyorc", zone) for row in rows] for c in schema.children}


@pytest.mark.parametrize("dtype_backend", [None, "numpy_nullable"])
@pytest.mark.parametrize(("zone", "compression", "nulls", "dictionary"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_numpy_backends_equal_pyorc(
    tmp_path: Path, zone: str, compression: str, nulls: str, dictionary: bool, dtype_backend: str | None
) -> None:
    path = _written(tmp_path, zone, compression, nulls, dictionary)
    with orcjit.ORCFile(path) as f:
        schema = f.schema
        assert f.nstripes > 1 or nulls == "all"  # all-null columns take a few bytes: one stripe
    expected = _pyorc_columns(path, zone, schema)
    frame = orcjit.read_orc(path, **({"dtype_backend": dtype_backend} if dtype_backend else {}))
    assert list(frame.columns) == [c.name for c in schema.children]
    for c in schema.children:
        got = [normal(c, v, "orcjit") for v in frame[c.name]]
        want = expected[c.name]
        if c.kind in INTEGERS and frame[c.name].dtype == np.float64:
            want = [None if w is None else float(w) for w in want]
        assert len(got) == len(want) == ROWS
        bad = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
        assert not bad, (
            f"{c.name}: {len(bad)} values differ, first at row {bad[0]}: {got[bad[0]]!r} != {want[bad[0]]!r}"
        )


def test_filtered_read_equals_filtered_full_read(tmp_path: Path) -> None:
    path = _written(tmp_path, "America/New_York", "zstd", "some", True)
    full = orcjit.read_orc(path)
    filters = [[("i32", ">", 0), ("str", "in", ["abc", "naïve"])], [("date", "<", dt.date(1950, 1, 1))]]
    got = orcjit.read_orc(path, filters=filters)
    keep = ((full["i32"] > 0) & full["str"].isin(["abc", "naïve"])) | (
        full["date"].map(lambda d: d is not None and not _null(d) and d < dt.date(1950, 1, 1))
    )
    want = full[keep.fillna(False).astype(bool)].reset_index(drop=True)
    assert 0 < len(got) < len(full)
    pd.testing.assert_frame_equal(got, want)


def test_pyarrow_backend_without_pyarrow_is_a_clear_error(tmp_path: Path) -> None:
    if HAVE_PYARROW:
        assert len(orcjit.read_orc(_written(tmp_path, "UTC", "zstd", "none", False), dtype_backend="pyarrow")) == ROWS
        return
    with pytest.raises((OrcError, ImportError), match="pyarrow"):
        orcjit.read_orc(_written(tmp_path, "UTC", "zstd", "none", False), dtype_backend="pyarrow")
