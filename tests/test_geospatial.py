"""GEOMETRY and GEOGRAPHY columns (ORC format 1.1): WKB values, CRS and edge interpolation algorithm, geospatial
statistics, shapely and GeoPandas, filters refused, the CLI and the Spark data source.

The oracle is ORC Java 2.3 (through the Spark JVM, :mod:`tests.orc_java`): it writes the files, from WKB made byte by
byte here (:mod:`tests.geodata`: every geometry type, Z, M and ZM, both byte orders, empty geometries, nulls), and
its reader gives the values, types and statistics orcjit must give. Spark 4.0's ORC Java (2.1) has no geospatial
types: there the tests of ORC Java's files skip, and those on files made without it (binary columns retyped in the
footer) run.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest
import shapely

import orcjit
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.cli import main
from orcjit.statistics import BoundingBox, decode_statistics, geometry_type_name
from orcjit.types import BINARY_KINDS, BYTES_KINDS, FILTERABLE_KINDS, GEOSPATIAL_KINDS, build_schema
from orcjit.types.kinds import KINDS
from tests import geodata as gd
from tests import orc_java as oj
from tests.spark_support import needs_pushdown

ROOT = Path(__file__).resolve().parents[1]
N = 5000
STRIDE = 1000
# column: (kind, crs, algorithm, ordinates, seed, nulls, empties); crs and algorithm None: ORC Java's defaults
COLUMNS: dict[str, tuple[str, str | None, str | None, tuple[str, ...], int, float, float]] = {
    "g": ("geometry", None, None, ("XY",), 1, 0.1, 0.05),
    "g_zm": ("geometry", "EPSG:3857", None, ("XY", "XYZ", "XYM", "XYZM"), 2, 0.1, 0.05),
    "geog": ("geography", None, None, ("XY",), 3, 0.1, 0.05),
    "geog_karney": ("geography", "EPSG:4326", "KARNEY", ("XY", "XYZ"), 4, 0.1, 0.05),
    "g_empty": ("geometry", None, None, ("XY",), 5, 0.7, 0.3),  # nulls and empty geometries only
}


def _cli(*args: str) -> tuple[int, str]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


# -- files ------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def values() -> dict[str, gd.GeometryColumn]:
    return {
        name: gd.random_geometries(N, seed, dims, nulls=nulls, empties=empties)
        for name, (_, _, _, dims, seed, nulls, empties) in COLUMNS.items()
    }


@pytest.fixture(scope="module")
def java_file(spark: Any, values: dict[str, gd.GeometryColumn], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ORC Java's file: 5 stripes of about 1000 rows, row groups of 1000, a bloom filter on ``g``."""
    if not oj.has_geospatial_types(spark):
        pytest.skip("this Spark's ORC Java (before 2.2: Spark 4.0) has no GEOMETRY or GEOGRAPHY type")
    fields = [("id", spark._jvm.org.apache.orc.TypeDescription.createLong())]
    fields += [(name, oj.geospatial_type(spark, kind, crs, alg)) for name, (kind, crs, alg, *_) in COLUMNS.items()]
    path = tmp_path_factory.mktemp("geo") / "orc-java-geo.orc"
    columns = {"id": np.arange(N), **{name: column.values for name, column in values.items()}}
    return oj.write_wkb_orc_java(
        spark,
        path,
        fields,
        columns,
        stripe_size=100_000,
        row_index_stride=STRIDE,
        rows_between_memory_checks=500,
        bloom_filter_columns="g",
    )


@pytest.fixture(scope="module")
def java_view(spark: Any, java_file: Path) -> dict[str, Any]:
    """What ORC Java's reader gives for the file: metadata, and the values (through a binary rewrite)."""
    rewritten = oj.rewrite_as_binary_orc_java(spark, java_file, java_file.with_name("as-binary.orc"))
    return {**oj.orc_java_metadata(spark, java_file), "values": pa_orc.read_table(str(rewritten))}


@pytest.fixture(scope="module")
def handmade(values: dict[str, gd.GeometryColumn], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pyarrow's binary columns retyped in the footer: geometry without CRS, geography with CRS and algorithm."""
    return gd.geospatial_file(
        tmp_path_factory.mktemp("handmade") / "handmade.orc",
        {"g": (gd.GEOMETRY, values["g"]), "geog": (gd.GEOGRAPHY, values["geog_karney"])},
        crs={"geog": "EPSG:4326"},
        algorithm={"geog": pb.Type.EdgeInterpolationAlgorithm.Value("VINCENTY")},
        row_index_stride=STRIDE,
    )


# -- the kind table and the schema ------------------------------------------------------------------------------------


def test_kinds_are_binary_in_layout_and_never_filtered() -> None:
    assert {KINDS["geometry"].number, KINDS["geography"].number} == {19, 20}
    assert {"geometry", "geography"} == GEOSPATIAL_KINDS
    assert GEOSPATIAL_KINDS <= BINARY_KINDS <= BYTES_KINDS
    assert not GEOSPATIAL_KINDS & FILTERABLE_KINDS
    assert all(KINDS[k].arrow == "binary" for k in GEOSPATIAL_KINDS)


def _types(*kinds: dict[str, Any]) -> list[Any]:
    root = pb.Type(kind=12, subtypes=range(1, len(kinds) + 1), fieldNames=[f"c{i}" for i in range(len(kinds))])
    return [root, *(pb.Type(**k) for k in kinds)]


def test_schema_defaults_and_names_as_orc_java_prints_them() -> None:
    schema = build_schema(
        _types(
            {"kind": 19},
            {"kind": 20},
            {"kind": 19, "crs": "EPSG:32633"},
            {"kind": 20, "crs": "OGC:CRS83", "algorithm": 2},
        )
    )
    assert str(schema) == (
        "struct<c0:geometry(OGC:CRS84),c1:geography(OGC:CRS84,SPHERICAL),c2:geometry(EPSG:32633),"
        "c3:geography(OGC:CRS83,THOMAS)>"
    )
    c3 = schema["c3"]
    assert (c3.crs, c3.algorithm) == ("OGC:CRS83", "THOMAS")
    assert schema["c0"].algorithm is None
    assert c3.to_dict() == {
        "id": 4,
        "kind": "geography",
        "type": "geography(OGC:CRS83,THOMAS)",
        "name": "c3",
        "crs": "OGC:CRS83",
        "algorithm": "THOMAS",
    }


def test_unknown_algorithm_is_an_orc_error() -> None:
    with pytest.raises(orcjit.OrcError, match="geography column 1 has unknown edge interpolation algorithm 9"):
        build_schema(_types({"kind": 20, "algorithm": 9}))


# -- statistics decoding ----------------------------------------------------------------------------------------------


def _geo_stats(kind: str = "geometry", **fields: Any) -> orcjit.ColumnStatistics:
    node = build_schema(_types({"kind": KINDS[kind].number}))["c0"]
    return decode_statistics(pb.ColumnStatistics(numberOfValues=3, geospatialStatistics=fields), node)


def test_bounding_box_keeps_only_dimensions_that_enclose_values() -> None:
    inf = math.inf
    stats = _geo_stats(
        bbox={"xmin": -1, "xmax": 2, "ymin": 3, "ymax": 4, "zmin": inf, "zmax": -inf, "mmin": 0, "mmax": math.nan},
        geospatialTypes=[3, 1, 1],
    )
    assert stats.bbox == BoundingBox(-1, 2, 3, 4)
    assert stats.bbox.bounds == (-1, 3, 2, 4)
    assert stats.geometry_types == (1, 3)
    assert stats.geometry_type_names == ["Point", "Polygon"]
    assert stats.to_dict()["bbox"] == {"xmin": -1, "xmax": 2, "ymin": 3, "ymax": 4}
    assert stats.to_dict()["geometry_types"] == [1, 3]
    with_zm = _geo_stats(bbox={"xmin": 0, "xmax": 0, "ymin": 0, "ymax": 0, "zmin": 1, "zmax": 2, "mmin": 3, "mmax": 5})
    assert with_zm.bbox == BoundingBox(0, 0, 0, 0, 1, 2, 3, 5)


@pytest.mark.parametrize(
    "fields",
    [
        {},  # geography as ORC Java writes it
        {"bbox": {}},  # a box the writer gave up on (a NaN coordinate)
        {"bbox": {"xmin": 0, "xmax": 1, "ymin": 0}},
        {"bbox": {"xmin": math.inf, "xmax": -math.inf, "ymin": math.inf, "ymax": -math.inf}},  # only empty values
        {"bbox": {"xmin": 2, "xmax": 1, "ymin": 0, "ymax": 1}},
    ],
)
def test_no_bounding_box(fields: dict[str, Any]) -> None:
    stats = _geo_stats(**fields)
    assert stats.bbox is None and stats.geometry_types is None
    assert "bbox" not in stats.to_dict()


def test_unknown_type_codes_make_the_list_unknown() -> None:
    assert _geo_stats(geospatialTypes=[1, 8]).geometry_types is None
    assert _geo_stats(geospatialTypes=[1, 4001]).geometry_types is None
    assert _geo_stats(geospatialTypes=[3007, 2001]).geometry_type_names == ["Point M", "GeometryCollection ZM"]
    assert geometry_type_name(1003) == "Polygon Z"


def test_statistics_of_other_kinds_are_not_taken() -> None:
    node = build_schema(_types({"kind": 8}))["c0"]  # binary
    msg = pb.ColumnStatistics(geospatialStatistics={"bbox": {"xmin": 0, "xmax": 1, "ymin": 0, "ymax": 1}})
    assert decode_statistics(msg, node).bbox is None


# -- ORC Java's files -------------------------------------------------------------------------------------------------


def test_types_as_orc_java_reads_them(java_file: Path, java_view: dict[str, Any]) -> None:
    with orcjit.ORCFile(java_file) as f:
        assert str(f.schema) == java_view["schema"]
        for name, expected in java_view["types"].items():
            node = f.schema[name]
            assert {"crs": node.crs, "algorithm": node.algorithm} == expected, name
        assert f.schema["g"].crs == "OGC:CRS84" and f.schema["geog"].algorithm == "SPHERICAL"
        assert (f.schema["geog_karney"].crs, f.schema["geog_karney"].algorithm) == ("EPSG:4326", "KARNEY")


def test_values_as_orc_java_reads_them(
    java_file: Path, java_view: dict[str, Any], values: dict[str, gd.GeometryColumn]
) -> None:
    java = java_view["values"]
    with orcjit.ORCFile(java_file) as f:
        assert f.nstripes >= 4 and f.row_index_stride == STRIDE
        df = f.read()
        arrow = f.read_arrow()
        pyarrow_backed = f.read(dtype_backend="pyarrow")
        nullable = f.read(dtype_backend="numpy_nullable")
    for name, column in values.items():
        assert java.column(name).to_pylist() == column.values, name  # ORC Java reads what was written
        assert df[name].dtype == object and df[name].tolist() == column.values, name
        assert nullable[name].tolist() == column.values, name
        assert arrow.schema.field(name).type == pa.binary()
        assert arrow.column(name).to_pylist() == column.values
        assert pyarrow_backed[name].dtype == pd.ArrowDtype(pa.binary())
        assert pa.array(pyarrow_backed[name]).to_pylist() == column.values
    assert df["id"].tolist() == list(range(N))


def test_streams_and_encodings_are_binarys(java_file: Path) -> None:
    """DIRECT_V2 with PRESENT, DATA and LENGTH, a row index, and (for ``g``) a bloom filter, as binary's."""
    with orcjit.ORCFile(java_file) as f:
        for i in range(f.nstripes):
            footer = f.stripe_footer(i)
            for node in f.schema.children[1:]:
                kinds = {s.kind for s in footer.streams if s.column == node.column_id}
                assert {1, 2, 6} <= kinds <= {0, 1, 2, 6, 8}, (i, node.name, kinds)
                assert footer.encodings[node.column_id].kind == 2  # DIRECT_V2
        bloom = f.bloom_filter(0, "g")
        assert bloom is not None and not bloom.reliable  # never used to skip rows
        assert f.row_index(0, "g") is not None


@pytest.mark.parametrize(("start", "stop"), [(0, N), (999, 1001), (1500, 3700), (2047, 2049), (4990, N + 5)])
def test_read_rows_seeks_through_row_groups(
    java_file: Path, values: dict[str, gd.GeometryColumn], start: int, stop: int
) -> None:
    with orcjit.ORCFile(java_file) as f:
        got = f.read_rows(start, stop, columns=["g_zm", "geog", "id"])
    assert got.index.tolist() == got["id"].tolist() == list(range(start, min(stop, N)))
    assert got["g_zm"].tolist() == values["g_zm"].values[start:stop]
    assert got["geog"].tolist() == values["geog"].values[start:stop]


def test_stripes_and_filters_on_other_columns(java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    with orcjit.ORCFile(java_file) as f:
        for i, stripe in enumerate(f.stripes):
            part = f.read_stripe(i, columns=["g"])
            assert part["g"].tolist() == values["g"].values[stripe.first_row : stripe.first_row + stripe.rows]
        kept = f.read(filters=[("id", ">=", 4321)], columns=["geog_karney"])
        assert kept["geog_karney"].tolist() == values["geog_karney"].values[4321:]
        report = f.explain([("id", "<", 100)])
        assert report.stripes[0].keep and not any(s.keep for s in report.stripes[1:])


def test_statistics_as_orc_java_reads_them(
    java_file: Path, java_view: dict[str, Any], values: dict[str, gd.GeometryColumn]
) -> None:
    def ours(stats: orcjit.ColumnStatistics) -> dict[str, Any]:
        out: dict[str, Any] = {"count": stats.count, "has_null": stats.has_null}
        if stats.kind in GEOSPATIAL_KINDS:
            bbox = stats.bbox.to_dict() if stats.bbox is not None else None
            types = list(stats.geometry_types) if stats.geometry_types is not None else None
            out.update(bbox=bbox, geometry_types=types)
        return out

    with orcjit.ORCFile(java_file) as f:
        assert [ours(s) for s in f.statistics] == java_view["statistics"]
        assert len(java_view["stripes"]) == f.nstripes
        for i, stripe in enumerate(f.stripes):
            assert [ours(s) for s in f.stripe_statistics(i)] == java_view["stripes"][i], i
            rows = slice(stripe.first_row, stripe.first_row + stripe.rows)
            g = f.stripe_statistics(i)[f.schema["g"].column_id]
            assert g.bbox.to_dict() == values["g"].bbox(rows)
            assert list(g.geometry_types) == values["g"].type_codes(rows)
        by_name = {node.name: f.statistics[node.column_id] for node in f.schema.children}
    # and against the values written: ORC Java's statistics are what they should be
    for name in ("g", "g_zm"):
        assert by_name[name].bbox.to_dict() == values[name].bbox(), name
        assert list(by_name[name].geometry_types) == values[name].type_codes(), name
        assert by_name[name].count == sum(v is not None for v in values[name].values)
    assert len(by_name["g_zm"].geometry_types) == 28  # 7 types in XY, XYZ, XYM and XYZM
    # ORC Java computes nothing for geography, nor over values that are all null or empty
    for name in ("geog", "geog_karney", "g_empty"):
        assert by_name[name].bbox is None and by_name[name].geometry_types is None, name


# -- shapely and GeoPandas --------------------------------------------------------------------------------------------


def _check_shapes(column: pd.Series, expected: list[bytes | None]) -> None:
    """An object column of shapely geometries (None for nulls) equal to the WKB ``expected``."""
    assert column.dtype == object
    want = shapely.from_wkb(np.array(expected, dtype=object))
    for got, wanted in zip(column.tolist(), want, strict=True):
        if wanted is None:
            assert got is None
            continue
        assert isinstance(got, shapely.Geometry) and got.geom_type == wanted.geom_type
        assert got.is_empty == wanted.is_empty
        assert got.is_empty or shapely.equals_exact(got, wanted, 0)


def test_shapely_geometries(java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    with orcjit.ORCFile(java_file) as f:
        df = f.read(geometry="shapely")
        rows = f.read_rows(1200, 2300, columns=["geog"], geometry="shapely")
        parts = list(f.iter_stripes(columns=["g"], filters=[("id", "<", 1500)], geometry="shapely"))
        nullable = f.read(columns=["g_zm"], dtype_backend="numpy_nullable", geometry="shapely")
        stripe = f.read_stripe(1, columns=["g"], geometry="shapely")
    for name, column in values.items():
        _check_shapes(df[name], column.values)
    _check_shapes(rows["geog"], values["geog"].values[1200:2300])
    _check_shapes(pd.concat(parts)["g"], values["g"].values[:1500])
    _check_shapes(nullable["g_zm"], values["g_zm"].values)
    assert shapely.has_z(nullable["g_zm"].dropna().to_numpy()).any()
    assert stripe.index[0] > 0
    assert df["id"].tolist() == list(range(N))  # other columns as they are


def test_geopandas_as_the_guide_says(handmade: Path) -> None:
    # docs/guides/types.md shows the three lines under ``with`` as they are written here (tests/test_docs.py)
    geopandas = pytest.importorskip("geopandas")  # in the test extra; the numpy-only stack has neither
    path = handmade
    with orcjit.ORCFile(path) as f:
        gdf = geopandas.GeoDataFrame(f.read(geometry="shapely"), geometry="g", crs=f.schema["g"].crs)
        bbox = f.statistics[f.schema["g"].column_id].bbox  # bbox.bounds: (xmin, ymin, xmax, ymax), without reading rows
        geographic = geopandas.GeoSeries(f.read(columns=["geog"], geometry="shapely")["geog"], crs=f.schema["geog"].crs)
    assert gdf.crs.to_string() == "OGC:CRS84"
    assert tuple(gdf.total_bounds) == bbox.bounds
    assert geographic.crs.to_epsg() == 4326


def test_fuzz_corpus_holds_a_geospatial_file(tmp_path: Path) -> None:
    from tests import fuzz_harness as fh

    corpus = {f.name: f for f in fh.load_corpus(tmp_path, examples=False)}
    with orcjit.ORCFile(corpus["geospatial-none.orc"].data) as f:
        assert {n.kind for n in f.schema.children} == {"bigint", "geometry", "geography"}
        assert f.nstripes > 1 and f.statistics[f.schema["g"].column_id].bbox is not None


def test_shapely_refused_with_arrow_and_unknown_forms(handmade: Path) -> None:
    with pytest.raises(orcjit.OrcError, match="geometry='shapely' needs a NumPy backend"):
        orcjit.read_orc(handmade, dtype_backend="pyarrow", geometry="shapely")
    with pytest.raises(orcjit.OrcError, match="geometry must be one of 'wkb', 'shapely', got 'geojson'"):
        orcjit.ORCFile(handmade).read(geometry="geojson")


def test_invalid_wkb_is_an_orc_error_naming_the_row(tmp_path: Path) -> None:
    column = gd.GeometryColumn([gd.wkb(gd.Shape(gd.POINT, "XY", (1.0, 2.0))), None, b"\x01\x01\x00"], [])
    path = gd.geospatial_file(tmp_path / "bad.orc", {"g": (gd.GEOMETRY, column)})
    assert orcjit.read_orc(path)["g"].tolist() == column.values  # WKB is only bytes to orcjit
    with pytest.raises(orcjit.OrcError, match="column 'g': the value in row 2 is not valid WKB"):
        orcjit.read_orc(path, geometry="shapely")


def test_without_shapely_the_error_names_the_extra(handmade: Path) -> None:
    code = f"""
        import sys
        sys.modules["shapely"] = None
        import orcjit
        print(orcjit.read_orc({str(handmade)!r})["g"].map(type).iloc[0].__name__)
        try:
            orcjit.read_orc({str(handmade)!r}, geometry="shapely")
        except ImportError as exc:
            print(type(exc).__name__, exc)
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "bytes",
        "MissingExtraError geometry='shapely' needs shapely, which is not installed: pip install \"orcjit[geo]\"",
    ]


# -- files made without ORC Java --------------------------------------------------------------------------------------


def test_handmade_file(handmade: Path, values: dict[str, gd.GeometryColumn]) -> None:
    """Types without a CRS read as ORC Java reads them; values, seeks and statistics as in ORC Java's files."""
    with orcjit.ORCFile(handmade) as f:
        assert str(f.schema) == "struct<id:bigint,g:geometry(OGC:CRS84),geog:geography(EPSG:4326,VINCENTY)>"
        assert f.read()["g"].tolist() == values["g"].values
        assert f.read_rows(1990, 2210, columns=["geog"])["geog"].tolist() == values["geog_karney"].values[1990:2210]
        g = f.statistics[f.schema["g"].column_id]
        assert g.bbox.to_dict() == values["g"].bbox() and list(g.geometry_types) == values["g"].type_codes()
        _check_shapes(f.read(geometry="shapely")["geog"], values["geog_karney"].values)


# -- filters ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filters", [[("g", "==", b"\x01")], [("geog", "is null")], [[("id", ">", 3)], [("g", "in", [b"x"])]]]
)
def test_filters_are_refused(handmade: Path, filters: list[Any]) -> None:
    with pytest.raises(orcjit.OrcError, match=r"column '(g|geog)' is a (geometry|geography), which filters do not"):
        orcjit.read_orc(handmade, filters=filters)
    with pytest.raises(orcjit.OrcError, match="which filters do not test"), orcjit.ORCFile(handmade) as f:
        f.explain(filters)


def test_cli_filter_is_refused(handmade: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for verb in ("cat", "explain", "convert"):
        args = [verb, str(handmade), "--filter", "g is not null"]
        if verb == "convert":
            args[2:2] = [str(handmade.with_name("out.parquet"))]
        code, _ = _cli(*args)
        assert code == 1, verb
        assert "column 'g' is a geometry, which filters do not test" in capsys.readouterr().err, verb


# -- the CLI ----------------------------------------------------------------------------------------------------------


def test_cli_schema_meta_and_stats(handmade: Path, values: dict[str, gd.GeometryColumn]) -> None:
    code, text = _cli("schema", str(handmade))
    assert code == 0 and "geography(EPSG:4326,VINCENTY)" in text and "geometry(OGC:CRS84)" in text
    code, text = _cli("schema", str(handmade), "--json")
    geog = json.loads(text)["children"][2]
    assert (geog["crs"], geog["algorithm"]) == ("EPSG:4326", "VINCENTY")
    code, text = _cli("meta", str(handmade))
    assert "Type:" in text and "g:geometry(OGC:CRS84),geog:geography(EPSG:4326,VINCENTY)" in text

    code, text = _cli("stats", str(handmade), "--no-stripes", "--json")
    g = json.loads(text)["columns"][2]
    assert g["bbox"] == values["g"].bbox() and g["geometry_types"] == values["g"].type_codes()
    code, text = _cli("stats", str(handmade), "--no-stripes")
    row = next(line for line in text.splitlines() if line.split()[:2] == ["2", "g"])
    box = values["g"].bbox()
    assert f"x {box['xmin']!r}..{box['xmax']!r}, y {box['ymin']!r}..{box['ymax']!r}" in row
    assert "Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon, GeometryCollection" in row
    assert "bbox" in text.splitlines()[5] and "geometry types" in text.splitlines()[5]


def test_cli_index_shows_each_row_groups_box(java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    """ORC Java records a bounding box and geometry types for each row group of a geometry column (none for
    geography): ``orcjit index`` shows them, and its JSON holds them whole."""
    code, text = _cli("index", str(java_file), "--columns", "g,geog", "--stripes", "0", "--json")
    assert code == 0
    by_path = {index["path"]: index for index in json.loads(text)["indexes"]}
    with orcjit.ORCFile(java_file) as f:
        first = f.stripes[0].first_row
    for group in by_path["g"]["row_groups"]:
        rows = slice(first + group["first_row"], first + group["first_row"] + group["rows"])
        assert group["statistics"]["bbox"] == values["g"].bbox(rows)
        assert group["statistics"]["geometry_types"] == values["g"].type_codes(rows)
    assert not any("bbox" in group["statistics"] for group in by_path["geog"]["row_groups"])
    code, text = _cli("index", str(java_file), "--columns", "g", "--stripes", "0")
    header = next(line for line in text.splitlines() if line.lstrip().startswith("group"))
    assert "bbox" in header and "geometry types" in header
    box = values["g"].bbox(slice(first, first + STRIDE))
    assert f"x {box['xmin']!r}..{box['xmax']!r}, y {box['ymin']!r}..{box['ymax']!r}" in text


# -- other readers ----------------------------------------------------------------------------------------------------


def test_pyarrow_and_pyorc(java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    """pyarrow 26's ORC reader (ORC C++ knows the types) has no Arrow type for them; pyorc 0.12 cannot open the
    file. Should either learn to read them, its values must be orcjit's."""
    import pyorc

    try:
        table = pa_orc.read_table(str(java_file))
    except (pa.ArrowTypeError, pa.ArrowNotImplementedError, pa.ArrowInvalid) as exc:
        assert "geometry" in str(exc)  # "Unknown Orc type kind: geometry(OGC:CRS84)"
    else:
        assert table.column("g").to_pylist() == values["g"].values
    try:
        with java_file.open("rb") as stream:
            rows = list(pyorc.Reader(stream))
    except (ValueError, RuntimeError, TypeError) as exc:
        assert str(exc)
    else:
        assert [r[1] for r in rows] == values["g"].values


# -- Spark ------------------------------------------------------------------------------------------------------------


def test_spark_data_source(spark: Any, java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    from pyspark.sql.types import BinaryType

    import orcjit.spark

    orcjit.spark.register(spark)
    df = spark.read.format("orcjit").load(str(java_file))
    assert all(df.schema[name].dataType == BinaryType() for name in COLUMNS)
    rows = sorted(df.collect(), key=lambda r: r["id"])
    for name, column in values.items():
        assert [None if r[name] is None else bytes(r[name]) for r in rows] == column.values, name
    picked = spark.read.format("orcjit").option("columns", "geog_karney").load(str(java_file))
    assert sorted(bytes(r[0]) for r in picked.collect() if r[0] is not None) == sorted(
        v for v in values["geog_karney"].values if v is not None
    )


@needs_pushdown
def test_spark_pushes_no_filter_on_them(java_file: Path) -> None:
    """The reader Spark's pushdown worker gets takes filters on ``id`` and returns those on geometries to Spark."""
    from pyspark.sql.datasource import EqualTo, GreaterThan, IsNotNull

    from orcjit.spark.datasource import OrcjitDataSource, OrcjitPushdownReader

    source = OrcjitDataSource({"path": str(java_file)})
    planned = source.reader(source.schema())
    reader = OrcjitPushdownReader(planned.files, planned.schema, time_zone=planned.time_zone)
    on_geometry = [IsNotNull(("g",)), EqualTo(("geog",), b"\x01")]
    assert list(reader.pushFilters([GreaterThan(("id",), 4000), *on_geometry])) == on_geometry
    rows = [i for p in reader.partitions() for batch in reader.read(p) for i in batch.column("id").to_pylist()]
    assert sorted(rows) == list(range(4001, N))


def test_spark_read_orc(spark: Any, java_file: Path, values: dict[str, gd.GeometryColumn]) -> None:
    """Spark's own ORC reader: PySpark 4.3 cannot read these files (it parses ``geometry(OGC:CRS84)`` as a Spark
    type and fails, whatever columns are read). Should it learn to, its values must be orcjit's."""
    try:
        rows = spark.read.orc(str(java_file)).select("id", "g").collect()
    except Exception as exc:  # Py4JJavaError, or an AnalysisException, by version
        assert "geometry" in str(exc).lower()
        return
    got = [r["g"] for r in sorted(rows, key=lambda r: r["id"])]
    assert [None if v is None else bytes(getattr(v, "wkb", v)) for v in got] == values["g"].values


def test_spark_makes_geometries_of_the_wkb(spark: Any, java_file: Path) -> None:
    """The path the Spark docs of orcjit give to Spark's GEOMETRY type (Spark 4.1+: ``st_geomfromwkb``)."""
    from pyspark.sql import functions

    import orcjit.spark

    if not hasattr(functions, "st_geomfromwkb"):
        pytest.skip("this PySpark (before 4.1) has no geometry functions")
    orcjit.spark.register(spark)
    df = spark.read.format("orcjit").load(str(java_file)).where("id < 50 AND g IS NOT NULL")
    shapes = df.select(functions.st_asbinary(functions.st_geomfromwkb("g")).alias("wkb"), "g").collect()
    assert shapes
    for row in shapes:
        assert shapely.equals_exact(shapely.from_wkb(bytes(row["wkb"])), shapely.from_wkb(bytes(row["g"])), 0)
