"""Reading without pyarrow: the NumPy backends build the DataFrame with orcjit's own converters (``orcjit.convert``).

The files are written here with pyarrow and pyorc; one subprocess in which ``import pyarrow`` fails
(``sys.modules["pyarrow"] = None`` before orcjit is imported) reads them all and pickles its DataFrames back, and
each is compared with what the pyarrow path gives for the same call in this process.

What necessarily differs: pandas keeps its string dtypes (``str``, and ``string`` for ``numpy_nullable``) in Arrow
memory when pyarrow is installed and as Python objects when it is not, so string columns, the categories of
categorical columns and the column labels have the same values under ``StringDtype("python")`` instead of
``StringDtype("pyarrow")``. Everything else (NumPy and nullable dtypes, NaN/None/NA/NaT for nulls, the Python
objects of binary, decimal, date, list, map, struct and union columns and the NumPy types of the values inside
them) must be the same.

Further tests set ``ORCJIT_NO_PYARROW=1`` to run the same code with pyarrow installed, where even the string
dtypes match, and call ``build_frame`` on hand-made vectors for cases no writer produces.
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
import os
import pickle
import random
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import orcjit
import orcjit.convert.strings
from orcjit.convert import build_frame, build_table
from orcjit.convert.strings import decode_strings
from orcjit.decode.vector import ColumnVector
from orcjit.errors import OrcError
from orcjit.reading.options import ReadOptions
from orcjit.types.resolve import select_columns
from orcjit.types.schema import TypeNode

from .factory import NULLS, all_types_pyorc, all_types_table, float_nan_rows, write_pyarrow, write_pyorc

ROOT = Path(__file__).resolve().parents[1]
ROWS = 3000
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3
# pandas' default string dtype on Python storage: ``str`` from pandas 3 on, object before
PYTHON_STR = pd.StringDtype("python", na_value=np.nan) if PANDAS_3 else np.dtype(object)

# -- files ----------------------------------------------------------------------------------------------------------

# every scalar type pyarrow writes, with a generator of values
SCALARS: dict[str, tuple[pa.DataType, Any]] = {
    "bool": (pa.bool_(), lambda r: r.random() < 0.5),
    "i8": (pa.int8(), lambda r: r.randint(-128, 127)),
    "i16": (pa.int16(), lambda r: r.randint(-(2**15), 2**15 - 1)),
    "i32": (pa.int32(), lambda r: r.randint(-(2**31), 2**31 - 1)),
    "i64": (pa.int64(), lambda r: r.randint(-(2**63), 2**63 - 1)),
    "f32": (pa.float32(), lambda r: r.randint(-1000, 1000) / 4),
    "f64": (pa.float64(), lambda r: r.gauss(0, 1e6)),
    "str": (pa.string(), lambda r: r.choice(["", "a", "naïve", "日本", "🎉x"])),
    "bin": (pa.binary(), lambda r: r.randbytes(r.randint(0, 5))),
    "dec": (pa.decimal128(20, 3), lambda r: Decimal(r.randint(-(10**19), 10**19)).scaleb(-3)),
    "date": (pa.date32(), lambda r: dt.date(1970, 1, 1) + dt.timedelta(days=r.randint(-50000, 50000))),
    "ts": (pa.timestamp("ns"), lambda r: r.randint(-(2**62), 2**62)),
    "ts_utc": (pa.timestamp("ns", tz="UTC"), lambda r: r.randint(-(2**62), 2**62)),
}


def nested_table(n: int, seed: int, null_rate: float, null_rows: int | None = None) -> pa.Table:
    """Lists, maps and struct fields of every scalar type, and lists, maps and structs inside each other.

    Values are null at ``null_rate``, only in the first ``null_rows`` rows when given (so that later stripes
    have none: Arrow converts struct fields stripe by stripe).
    """
    r = random.Random(seed)

    def maybe(i: int, make: Any) -> Any:
        nullable = null_rows is None or i < null_rows
        return None if nullable and r.random() < null_rate else make()

    def many(i: int, make: Any, most: int = 3) -> list[Any]:
        return [maybe(i, make) for _ in range(r.randint(0, most))]

    columns: dict[str, pa.Array] = {}
    for name, (typ, make) in SCALARS.items():
        lists = [maybe(i, lambda i=i, make=make: many(i, lambda: make(r))) for i in range(n)]
        columns[f"list_{name}"] = pa.array(lists, pa.list_(typ))
        maps = [
            maybe(i, lambda i=i, make=make: [(f"k{j}", maybe(i, lambda: make(r))) for j in range(r.randint(0, 3))])
            for i in range(n)
        ]
        columns[f"map_{name}"] = pa.array(maps, pa.map_(pa.string(), typ))
    structs = [
        maybe(i, lambda i=i: {name: maybe(i, lambda make=make: make(r)) for name, (_, make) in SCALARS.items()})
        for i in range(n)
    ]
    columns["struct"] = pa.array(structs, pa.struct([(name, typ) for name, (typ, _) in SCALARS.items()]))
    columns["list_list"] = pa.array(
        [maybe(i, lambda i=i: many(i, lambda i=i: many(i, lambda: r.randint(0, 9)))) for i in range(n)],
        pa.list_(pa.list_(pa.int32())),
    )
    element = pa.struct([("a", pa.int16()), ("t", pa.timestamp("ns")), ("l", pa.list_(pa.string()))])
    columns["list_struct"] = pa.array(
        [
            maybe(
                i,
                lambda i=i: many(
                    i,
                    lambda i=i: {
                        "a": maybe(i, lambda: r.randint(0, 9)),
                        "t": maybe(i, lambda: r.randint(0, 2**60)),
                        "l": maybe(i, lambda: ["x", "y"][: r.randint(0, 2)]),
                    },
                ),
            )
            for i in range(n)
        ],
        pa.list_(element),
    )
    inner = pa.struct([("b", pa.bool_()), ("m", pa.map_(pa.int32(), pa.list_(pa.float64())))])
    columns["struct_struct"] = pa.array(
        [
            maybe(
                i,
                lambda i=i: {
                    "s": maybe(
                        i,
                        lambda i=i: {
                            "b": maybe(i, lambda: r.random() < 0.5),
                            "m": maybe(i, lambda i=i: [(j, [1.5, maybe(i, lambda: 2.5)]) for j in range(2)]),
                        },
                    )
                },
            )
            for i in range(n)
        ],
        pa.struct([("s", inner)]),
    )
    columns["map_list"] = pa.array(
        [maybe(i, lambda i=i: [(j, many(i, lambda: dt.date(2000, 1, 1))) for j in range(2)]) for i in range(n)],
        pa.map_(pa.int64(), pa.list_(pa.date32())),
    )
    return pa.table(columns)


# a union of every kind of value (pyorc picks the variant by trying them in order: one variant each, mostly)
UNIONS_SCHEMA = (
    "struct<ts:uniontype<timestamp>,ts_utc:uniontype<timestamp with local time zone>,date:uniontype<date>,"
    "dec:uniontype<decimal(10,2)>,bin:uniontype<binary>,f32:uniontype<float>,bool:uniontype<boolean>,"
    "list:uniontype<array<int>>,struct:uniontype<struct<a:int,b:string>>,map:uniontype<int,map<string,double>>>"
)


def union_rows(n: int) -> list[tuple[Any, ...]]:
    """Rows for UNIONS_SCHEMA; never a null union (pyorc 0.12 crashes on those), nulls inside the variants."""
    return [
        (
            pd.Timestamp(1_500_000_000_123_456_789 + i),
            pd.Timestamp(i, tz="UTC"),
            dt.date(2000, 1, 1 + i % 28),
            Decimal(i).scaleb(-2),
            bytes([i % 256]) * (i % 3),
            i / 4,
            i % 2 == 0,
            [i, None][: i % 3],
            (i, "x") if i % 3 else (None, None),
            i if i % 2 else {"k": 1.5, "n": None},
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every file the tests read, by name; each of several stripes (but the empty ones)."""
    d = tmp_path_factory.mktemp("without-pyarrow")
    out: dict[str, Path] = {}
    small = {"stripe_size": 20000, "batch_size": 500}
    for nulls in NULLS:
        schema, rows = all_types_pyorc(ROWS, seed=1, nulls=nulls)
        # all null but the union: little data, smaller stripes
        stripe_size = 20000 if nulls != "all" else 2000
        out[f"pyorc-{nulls}"] = write_pyorc(
            d / f"pyorc-{nulls}.orc", schema, rows, stripe_size=stripe_size, batch_size=500
        )
        table = all_types_table(ROWS, seed=2, nulls=nulls)
        out[f"pyarrow-{nulls}"] = write_pyarrow(d / f"pyarrow-{nulls}.orc", table, compression="uncompressed", **small)
    schema, rows = all_types_pyorc(ROWS, seed=3, nulls="some")
    out["dictionary"] = write_pyorc(
        d / "dictionary.orc", schema, rows, dict_key_size_threshold=1.0, timezone="Asia/Kolkata", **small
    )
    nested = {"nested": (0.2, None), "nested-none": (0.0, None), "nested-first": (0.2, 300), "nested-all": (1.0, None)}
    for name, (rate, null_rows) in nested.items():
        table = nested_table(1200, seed=4, null_rate=rate, null_rows=null_rows)
        # uncompressed: pyarrow splits the stripes of a compressed file only every 64 KiB of compressed output
        out[name] = write_pyarrow(
            d / f"{name}.orc", table, compression="uncompressed", stripe_size=30000, batch_size=300
        )
    nan_rows = [row if i % 11 else (None, None) for i, row in enumerate(float_nan_rows(2000))]
    out["nan"] = write_pyorc(
        d / "nan.orc", "struct<f:float,d:double>", nan_rows, stripe_size=4000, batch_size=500, compression="none"
    )
    out["unions"] = write_pyorc(
        d / "unions.orc", UNIONS_SCHEMA, union_rows(1000), stripe_size=4000, batch_size=100, compression="none"
    )
    nested_unions = [((i if i % 2 else str(i),), [i, "x"][: i % 3], {"k": i} if i % 5 else None) for i in range(1000)]
    out["nested-unions"] = write_pyorc(
        d / "nested-unions.orc",
        "struct<s:struct<u:uniontype<int,string>>,l:array<uniontype<int,string>>,m:map<string,uniontype<int>>>",
        nested_unions,
        stripe_size=3000,
        batch_size=100,
        compression="none",
    )
    out["empty"] = write_pyorc(d / "empty.orc", schema, [])
    out["root-list"] = write_pyorc(d / "root-list.orc", "array<string>", [["a", None], None, []] * 10)
    for name, path in out.items():
        if not name.startswith(("empty", "root", "nested-all")):  # all null: too little data for two stripes
            assert orcjit.ORCFile(path).nstripes > 1, name
    return out


# -- the reads, run in both processes ---------------------------------------------------------------------------------

# case id -> (file, method, keyword arguments); method "read_orc", "read_stripe:<i>" or "iter_stripes"
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {}
_WHOLE_FILES = [f"{writer}-{nulls}" for writer in ("pyorc", "pyarrow") for nulls in NULLS]
_WHOLE_FILES += ["dictionary", "nan", "nested", "nested-none", "nested-first", "nested-all"]
for _name in _WHOLE_FILES:
    for _backend in (None, "numpy_nullable"):
        CASES[f"{_name}-{_backend}"] = (_name, "read_orc", {"dtype_backend": _backend})
CASES.update(
    {
        "category": ("dictionary", "read_orc", {"dictionary_as_category": True}),
        "category-nullable": (
            "dictionary",
            "read_orc",
            {"dictionary_as_category": True, "dtype_backend": "numpy_nullable", "columns": ["str", "char", "struct"]},
        ),
        "columns": ("pyorc-some", "read_orc", {"columns": ["union", "struct.b", "i8", "list"]}),
        "no-columns": ("pyorc-some", "read_orc", {"columns": []}),
        "filters": ("pyorc-some", "read_orc", {"filters": [("i32", ">", 0)], "columns": ["i32", "str", "map"]}),
        "read-stripe": ("pyorc-some", "read_stripe:1", {}),
        "read-stripe-nullable": ("nested", "read_stripe:2", {"dtype_backend": "numpy_nullable"}),
        "iter-stripes": ("dictionary", "iter_stripes", {"columns": ["ts", "varchar", "dec38"]}),
        "empty": ("empty", "read_orc", {}),  # no stripe: every column's dtype as pyarrow gives it
        "empty-nullable": ("empty", "read_orc", {"dtype_backend": "numpy_nullable"}),
        "empty-category": ("empty", "read_orc", {"columns": ["str", "list"], "dictionary_as_category": True}),
        "root-list": ("root-list", "read_orc", {}),
        "unions": ("unions", "read_orc", {}),
        "nested-unions": ("nested-unions", "read_orc", {}),
    }
)


def run_case(path: Path, method: str, kwargs: dict[str, Any]) -> Any:
    """The read a case names: a DataFrame, or a list of them for iter_stripes."""
    if method == "read_orc":
        return orcjit.read_orc(path, **kwargs)
    with orcjit.ORCFile(path) as f:
        if method == "iter_stripes":
            return list(f.iter_stripes(**kwargs))
        return f.read_stripe(int(method.split(":")[1]), **kwargs)


def metadata(path: Path) -> dict[str, Any]:
    """What ORCFile tells of a file without reading rows."""
    with orcjit.ORCFile(path) as f:
        return {
            "schema": str(f.schema),
            "nrows": f.nrows,
            "stripes": f.stripes,
            "compression": f.compression,
            "writer": (f.writer, f.writer_version, f.software_version),
            "user_metadata": f.user_metadata,
            "statistics": [repr(s) for s in f.statistics],
            "stripe_statistics": [repr(s) for s in f.stripe_statistics(1)],
            "stripe_footer": repr(f.stripe_footer(0)),
        }


# the process without pyarrow runs the source of run_case and metadata: it cannot import this module, which imports
# pyarrow
CHILD = (
    textwrap.dedent(
        """
    from __future__ import annotations
    import pickle, sys
    sys.modules["pyarrow"] = None  # every import of pyarrow now raises ImportError
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from typing import Any
    import pandas as pd
    import orcjit
    """
    )
    + inspect.getsource(run_case)
    + inspect.getsource(metadata)
    + textwrap.dedent(
        """
    with open(sys.argv[2], "rb") as fh:
        files, cases = pickle.load(fh)
    out = {"frames": {}, "errors": {}}
    for key, (name, method, kwargs) in cases.items():
        try:
            out["frames"][key] = run_case(files[name], method, kwargs)
        except Exception as exc:
            out["errors"][key] = f"{type(exc).__name__}: {exc}"
    try:
        orcjit.read_orc(files["pyorc-some"], dtype_backend="pyarrow")
    except ImportError as exc:
        out["pyarrow_backend"] = f"ImportError: {exc}"
    else:
        out["pyarrow_backend"] = "no error"
    out["metadata"] = metadata(files["pyorc-some"])
    out["string_storage"] = pd.StringDtype().storage
    out["pyarrow_modules"] = sorted(m for m, v in sys.modules.items() if m.split(".")[0] == "pyarrow" and v is not None)
    with open(sys.argv[3], "wb") as fh:
        pickle.dump(out, fh)
    """
    )
)


@pytest.fixture(scope="module")
def child(files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the process without pyarrow read: every case's result, and its metadata and error checks."""
    d = tmp_path_factory.mktemp("child")
    with open(d / "cases.pkl", "wb") as fh:
        pickle.dump((files, CASES), fh)
    env = {k: v for k, v in os.environ.items() if k != "ORCJIT_NO_PYARROW"}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), str(d / "cases.pkl"), str(d / "out.pkl")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    with open(d / "out.pkl", "rb") as fh:
        return pickle.load(fh)  # type: ignore[no-any-return]


# -- comparing --------------------------------------------------------------------------------------------------------


def assert_same_value(got: Any, want: Any, where: str) -> None:
    """``got`` is ``want``: same Python type at every level, NumPy arrays of the same dtype and values."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} {got!r} != {type(want).__name__} {want!r}"
    if isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), f"{where}: {got.dtype} != {want.dtype}"
        if want.dtype == object:
            for i, (g, w) in enumerate(zip(got, want, strict=True)):
                assert_same_value(g, w, f"{where}[{i}]")
        elif want.dtype.kind in "mM":
            assert np.array_equal(got.view("i8"), want.view("i8")), where
        else:
            assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), f"{where}: {got} != {want}"
    elif isinstance(want, dict):
        assert list(got) == list(want), where
        for key in want:
            assert_same_value(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same_value(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), where
    elif isinstance(want, pd.Timestamp):
        assert got == want and str(got.tz) == str(want.tz), f"{where}: {got!r} != {want!r}"
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def python_strings(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its Arrow-backed strings (columns, categories, labels) on Python storage instead: what pandas
    makes of the same values without pyarrow."""
    out = frame.copy()
    for i, dtype in enumerate(frame.dtypes):
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
            python = pd.StringDtype("python", na_value=dtype.na_value) if PANDAS_3 else pd.StringDtype("python")
            out.isetitem(i, frame.iloc[:, i].astype(python))
        elif isinstance(dtype, pd.CategoricalDtype) and isinstance(dtype.categories.dtype, pd.StringDtype):
            categories = pd.Index(list(dtype.categories), dtype=PYTHON_STR)
            out.isetitem(i, frame.iloc[:, i].cat.rename_categories(categories))
    if isinstance(frame.columns.dtype, pd.StringDtype):
        out.columns = pd.Index(list(frame.columns), dtype=PYTHON_STR)
    return out


def assert_frames_match(got: pd.DataFrame, want: pd.DataFrame, python_storage: bool) -> None:
    """Equal frames; with ``python_storage`` ``got`` (read without pyarrow) has its strings on Python storage where
    ``want`` has them on Arrow."""
    expected = python_strings(want) if python_storage else want
    objects = [i for i, t in enumerate(expected.dtypes) if t == np.dtype(object)]
    plain = [i for i in range(expected.shape[1]) if i not in objects]
    pd.testing.assert_frame_equal(got.iloc[:, plain], expected.iloc[:, plain], check_exact=True)
    pd.testing.assert_index_equal(got.columns, expected.columns, exact=True)
    for i in objects:
        assert got.dtypes.iloc[i] == np.dtype(object), expected.columns[i]
        for j, (g, w) in enumerate(zip(got.iloc[:, i].to_numpy(), expected.iloc[:, i].to_numpy(), strict=True)):
            assert_same_value(g, w, f"{expected.columns[i]}[{j}]")


def assert_results_match(got: Any, want: Any, python_storage: bool) -> None:
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_frames_match(g, w, python_storage)
    else:
        assert_frames_match(got, want, python_storage)


# -- without pyarrow --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(CASES))
def test_read_without_pyarrow(case: str, files: dict[str, Path], child: dict[str, Any]) -> None:
    assert case not in child["errors"], child["errors"][case]
    name, method, kwargs = CASES[case]
    want = run_case(files[name], method, kwargs)
    got = child["frames"][case]
    assert_results_match(got, want, python_storage=True)
    frames = got if isinstance(got, list) else [got]
    for frame in frames:
        for dtype in frame.dtypes:
            # pandas' string dtypes without pyarrow: the Python storage
            assert not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow")


def test_child_had_no_pyarrow(child: dict[str, Any]) -> None:
    assert child["pyarrow_modules"] == []
    assert child["string_storage"] == "python"
    strings = child["frames"]["pyorc-some-None"]["str"]
    assert strings.dtype == PYTHON_STR
    assert child["frames"]["pyorc-some-numpy_nullable"]["str"].dtype == pd.StringDtype("python")


def test_pyarrow_backend_needs_pyarrow(child: dict[str, Any]) -> None:
    assert child["pyarrow_backend"].startswith("ImportError: dtype_backend='pyarrow' needs pyarrow")


def test_metadata_without_pyarrow(files: dict[str, Path], child: dict[str, Any]) -> None:
    assert child["metadata"] == metadata(files["pyorc-some"])


# -- ORCJIT_NO_PYARROW in this process: the same code with pyarrow at hand -------------------------------------------


@pytest.mark.parametrize("case", ["pyarrow-some-None", "nested-first-numpy_nullable", "category", "iter-stripes"])
def test_environment_variable(case: str, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    name, method, kwargs = CASES[case]
    want = run_case(files[name], method, kwargs)
    monkeypatch.setenv("ORCJIT_NO_PYARROW", "1")
    got = run_case(files[name], method, kwargs)
    # pandas' string dtype picks Arrow storage when pyarrow is installed, as the pyarrow path does
    assert_results_match(got, want, python_storage=False)


def test_environment_variable_takes_the_numpy_path(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings are decoded by orcjit (not by Arrow) only where pyarrow is missing or the variable says so."""
    calls = []
    original = orcjit.convert.strings.decode_strings

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(orcjit.convert.strings, "decode_strings", counting)
    orcjit.read_orc(files["pyorc-none"], columns=["str"])
    assert calls == []
    monkeypatch.setenv("ORCJIT_NO_PYARROW", "1")
    orcjit.read_orc(files["pyorc-none"], columns=["str"])
    assert calls
    # the pyarrow backend is pyarrow's whatever the variable says
    assert isinstance(
        orcjit.read_orc(files["pyorc-none"], columns=["i8"], dtype_backend="pyarrow").dtypes.iloc[0], pd.ArrowDtype
    )


def test_frame_is_writable(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The arrays are the DataFrame's own: not views of the file's read-only buffers."""
    monkeypatch.setenv("ORCJIT_NO_PYARROW", "1")
    for backend in (None, "numpy_nullable"):
        with orcjit.ORCFile(files["pyorc-none"]) as f:
            frame = f.read_stripe(0, dtype_backend=backend)  # one stripe: nothing concatenated
        for j, dtype in enumerate(frame.dtypes):
            if dtype != np.dtype(object):
                frame.iloc[0, j] = frame.iloc[1, j]
                assert frame.iloc[0, j] == frame.iloc[1, j]


# -- hand-made vectors ------------------------------------------------------------------------------------------------


def _struct_of(*children: TypeNode) -> TypeNode:
    root = TypeNode(0, "struct", children=list(children), max_column_id=max(c.max_column_id for c in children))
    for child in children:
        child.parent = root
    return root


def _encode(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [s.encode() for s in strings]
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in raw], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(raw), dtype=np.uint8)


def test_categories_of_dictionary_and_direct_stripes() -> None:
    """Stripes with a dictionary and stripes encoded directly (which a writer may mix): the same categories, in the
    same order, as Arrow's dictionary unification gives."""
    node = TypeNode(1, "string", name="s", max_column_id=1)
    root = _struct_of(node)
    dictionary = ColumnVector(
        node, 4, np.array([1, 1, 0, 1], dtype=bool), values=np.array([0, 2, 0, 1]), dictionary=_encode(["b", "c", "a"])
    )
    offsets, data = _encode(["x", "", "", "a", "b"])
    direct = ColumnVector(node, 5, np.array([1, 0, 1, 1, 1], dtype=bool), offsets=offsets, data=data)
    selection = select_columns(root, None)
    for pieces in ([dictionary, direct], [direct, dictionary], [direct], [dictionary, dictionary]):
        table = build_table(selection, [pieces], dictionary_as_category=True)
        for backend in ("numpy", "numpy_nullable"):
            mapper = {pa.string(): pd.StringDtype()}.get if backend == "numpy_nullable" else None
            want = table.to_pandas(types_mapper=mapper)
            got = build_frame(selection, [pieces], backend, dictionary_as_category=True)
            assert_frames_match(got, want, python_storage=False)


def test_nested_unions() -> None:
    """pyarrow cannot convert a union inside a struct or list: they become the same dicts as unions at the top
    level, with pyarrow (build_frame converts such columns itself) or without."""
    variants = [TypeNode(3, "int", max_column_id=3), TypeNode(4, "string", max_column_id=4)]
    union = TypeNode(2, "uniontype", children=variants, max_column_id=4)
    lst = TypeNode(1, "array", name="l", children=[union], max_column_id=4)
    variants[0].parent = variants[1].parent = union
    union.parent = lst
    root = _struct_of(lst)
    offsets, data = _encode(["", "", "x"])
    ints = ColumnVector(variants[0], 3, np.array([1, 0, 0], dtype=bool), values=np.array([7, 0, 0], dtype=np.int32))
    strs = ColumnVector(variants[1], 3, np.array([0, 0, 1], dtype=bool), offsets=offsets, data=data)
    tags = ColumnVector(
        union, 3, np.array([1, 0, 1], dtype=bool), values=np.array([0, 0, 1], dtype=np.int8), children=[ints, strs]
    )
    vec = ColumnVector(lst, 2, None, offsets=np.array([0, 3, 3]), children=[tags])
    with_arrow = build_frame(select_columns(root, None), [[vec]], "numpy")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ORCJIT_NO_PYARROW", "1")
        frame = build_frame(select_columns(root, None), [[vec]], "numpy")
    assert_frames_match(frame, with_arrow, python_storage=False)
    first, second = frame["l"]
    assert first.dtype == object and list(first) == [{"tag": 0, "value": 7}, None, {"tag": 1, "value": "x"}]
    assert second.dtype == object and len(second) == 0


def test_invalid_utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORCJIT_NO_PYARROW", "1")
    node = TypeNode(1, "string", name="s", max_column_id=1)
    vec = ColumnVector(node, 1, None, offsets=np.array([0, 2]), data=np.frombuffer(b"\xc3\x28", dtype=np.uint8))
    with pytest.raises(OrcError, match="not valid UTF-8"):
        build_frame(select_columns(_struct_of(node), None), [[vec]], "numpy")


def test_pyarrow_backend_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow fails, as where it is not installed
    with pytest.raises(ImportError, match="needs pyarrow"):
        ReadOptions(dtype_backend="pyarrow")


@pytest.mark.parametrize("seed", range(4))
def test_decode_strings(seed: int) -> None:
    """Decoding with and without the search for repeats (few distinct values, all distinct, empty values, offsets
    not starting at 0) gives each value's bytes; repeats share one object."""
    r = random.Random(seed)
    alphabets = [[b""], [b"a", b"b"], [b"ab", b"a", b"b", b""], [bytes([i]) for i in range(256)]]
    for n in (0, 1, 255, 256, 5000, 40000):
        alphabet = r.choice(alphabets)
        if r.random() < 0.3:
            values = [r.randbytes(r.randint(0, 6)) for _ in range(n)]
        else:
            values = [b"".join(r.choice(alphabet) for _ in range(r.randint(0, 3))) for _ in range(n)]
        pad = r.randint(0, 3)
        offsets = np.full(n + 1, pad, dtype=np.int64)
        offsets[1:] += np.cumsum([len(v) for v in values], dtype=np.int64)
        data = np.frombuffer(b"z" * pad + b"".join(values) + b"tail", dtype=np.uint8)
        got = decode_strings(offsets, data, binary=True)
        assert got.dtype == object and got.tolist() == values
        text = [v.decode("latin-1") for v in values]
        encoded = [t.encode() for t in text]
        offsets = np.zeros(n + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        strings = decode_strings(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8), binary=False)
        assert strings.tolist() == text
        if n >= 5000 and len(set(text)) < 100:
            assert len({id(s) for s in strings}) == len(set(text))
