"""Geometry test data: WKB made here, byte by byte, and GEOMETRY/GEOGRAPHY files made without ORC Java.

:func:`wkb` writes ISO WKB (either byte order, with Z, M or both), so that the tests know every value and its
coordinates without trusting a geometry library. :func:`random_geometries` makes a column of them: every geometry
type, empty geometries and nulls, with the bounding box and ISO type codes of its non-empty values (what ORC Java's
geospatial statistics should hold). :func:`geospatial_file` writes binary columns with pyarrow and rewrites their
type kinds in the footer to GEOMETRY (19) or GEOGRAPHY (20): the streams of a binary column are exactly those of a
geometry column, so the result is a valid file of ORC format 1.1 for readers without ORC Java 2.3 (the fuzz corpus,
the oldest test stack).
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from orcjit._proto import orc_proto_pb2 as pb

# ISO WKB type codes of the base types
POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, COLLECTION = range(1, 8)
GEOMETRY, GEOGRAPHY = 19, 20
_DIMS = {"XY": 0, "XYZ": 1000, "XYM": 2000, "XYZM": 3000}

Coordinate = tuple[float, ...]


@dataclass(frozen=True)
class Shape:
    """A geometry: its base type code, its ordinates (``XY``, ``XYZ``, ``XYM`` or ``XYZM``) and its parts.

    ``parts`` is a coordinate for a point (``None``: empty), coordinates for a linestring, rings of coordinates for
    a polygon, and shapes for the multi types and collections.
    """

    code: int
    dims: str
    parts: Any

    @property
    def iso_code(self) -> int:
        return self.code + _DIMS[self.dims]

    def coordinates(self) -> list[Coordinate]:
        if self.code == POINT:
            return [] if self.parts is None else [self.parts]
        if self.code == LINESTRING:
            return list(self.parts)
        if self.code == POLYGON:
            return [c for ring in self.parts for c in ring]
        return [c for shape in self.parts for c in shape.coordinates()]

    @property
    def empty(self) -> bool:
        return not self.coordinates()


def wkb(shape: Shape, little: bool = True) -> bytes:
    """The ISO WKB of ``shape``; an empty point is written with NaN coordinates, as GEOS and JTS write it."""
    order = "<" if little else ">"
    out = bytearray(struct.pack(f"{order}BI", 1 if little else 0, shape.iso_code))
    n = len(shape.dims)

    def coordinates(coords: Sequence[Coordinate]) -> None:
        out.extend(struct.pack(f"{order}I", len(coords)))
        for c in coords:
            out.extend(struct.pack(f"{order}{n}d", *c))

    if shape.code == POINT:
        out.extend(struct.pack(f"{order}{n}d", *(shape.parts or [math.nan] * n)))
    elif shape.code == LINESTRING:
        coordinates(shape.parts)
    elif shape.code == POLYGON:
        out.extend(struct.pack(f"{order}I", len(shape.parts)))
        for ring in shape.parts:
            coordinates(ring)
    else:
        out.extend(struct.pack(f"{order}I", len(shape.parts)))
        for part in shape.parts:
            out.extend(wkb(part, little))
    return bytes(out)


@dataclass
class GeometryColumn:
    """A column of WKB values (``None`` for nulls) and what geospatial statistics say of its non-empty values."""

    values: list[bytes | None]
    shapes: list[Shape | None]
    types: set[int] = field(default_factory=set)

    def bbox(self, rows: slice = slice(None)) -> dict[str, float] | None:
        """``{"xmin": ..., "xmax": ..., ...}`` over the non-empty values of ``rows``: x and y always, z and m where
        some coordinate has them; ``None`` when every value there is null or empty."""
        coords = [(s.dims, c) for s in self.shapes[rows] if s is not None and not s.empty for c in s.coordinates()]
        if not coords:
            return None
        out: dict[str, float] = {}
        for axis in "xyzm":
            found = [c[dims.index(axis.upper())] for dims, c in coords if axis.upper() in dims]
            if found:
                out[f"{axis}min"], out[f"{axis}max"] = min(found), max(found)
        return out

    def type_codes(self, rows: slice = slice(None)) -> list[int]:
        return sorted({s.iso_code for s in self.shapes[rows] if s is not None and not s.empty})


def random_geometries(
    n: int, seed: int, dims: Sequence[str] = ("XY",), *, nulls: float = 0.1, empties: float = 0.05
) -> GeometryColumn:
    """``n`` WKB values of every geometry type in the given ordinates, in both byte orders, with nulls and empty
    geometries (of several types) mixed in; coordinates are round numbers inside longitude/latitude ranges, polygons
    valid (a square, with a square hole inside or not)."""
    rng = random.Random(seed)

    def coordinate(d: str) -> Coordinate:
        values = [rng.randrange(-3600, 3600) / 20, rng.randrange(-1800, 1800) / 20]
        return tuple(values + [rng.randrange(-1000, 1000) / 4 for _ in d[2:]])

    def line(d: str, k: int) -> list[Coordinate]:
        return [coordinate(d) for _ in range(k)]

    def polygon(d: str) -> list[list[Coordinate]]:
        # a square shell, and maybe a square hole inside it: valid polygons, whose envelope (which ORC Java's
        # bounding box takes) is that of all their coordinates
        r = rng.randrange(1, 200) / 20
        cx, cy = rng.randrange(-3400, 3400) / 20, rng.randrange(-1600, 1600) / 20
        rings = []
        for size in (r, r / 2)[: rng.randrange(1, 3)]:
            corners = [(cx - size, cy - size), (cx + size, cy - size), (cx + size, cy + size), (cx - size, cy + size)]
            ring = [(*xy, *coordinate(d)[2:]) for xy in corners]
            rings.append([*ring, ring[0]])
        return rings

    def make(code: int, d: str) -> Shape:
        if code == POINT:
            return Shape(POINT, d, coordinate(d))
        if code == LINESTRING:
            return Shape(LINESTRING, d, line(d, rng.randrange(2, 5)))
        if code == POLYGON:
            return Shape(POLYGON, d, polygon(d))
        if code == COLLECTION:
            return Shape(COLLECTION, d, [make(rng.randrange(1, 7), d) for _ in range(rng.randrange(1, 4))])
        return Shape(code, d, [make(code - 3, d) for _ in range(rng.randrange(1, 4))])

    def empty(d: str) -> Shape:
        code = rng.choice((POINT, LINESTRING, POLYGON, MULTIPOINT, COLLECTION))
        return Shape(code, d, None if code == POINT else [])

    column = GeometryColumn([], [])
    for _ in range(n):
        draw = rng.random()
        if draw < nulls:
            column.values.append(None)
            column.shapes.append(None)
            continue
        d = rng.choice(list(dims))
        shape = empty(d) if draw < nulls + empties else make(rng.randrange(1, 8), d)
        column.values.append(wkb(shape, little=rng.random() < 0.5))
        column.shapes.append(shape)
        if not shape.empty:
            column.types.add(shape.iso_code)
    return column


def rewrite_footer(data: bytes, change: Any) -> bytes:
    """An uncompressed ORC file with its footer changed in place by ``change(footer)``."""
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    if ps.compression != 0:
        raise ValueError("rewrite_footer takes uncompressed files")
    footer_start = len(data) - 1 - ps_len - ps.footerLength
    footer = pb.Footer.FromString(data[footer_start : footer_start + ps.footerLength])
    change(footer)
    footer_bytes = footer.SerializeToString()
    ps.footerLength = len(footer_bytes)
    ps_bytes = ps.SerializeToString()
    return data[:footer_start] + footer_bytes + ps_bytes + bytes([len(ps_bytes)])


def geospatial_file(
    path: Path,
    columns: Mapping[str, tuple[int, GeometryColumn]],
    *,
    crs: Mapping[str, str] | None = None,
    algorithm: Mapping[str, int] | None = None,
    row_index_stride: int = 100,
    **writer_options: Any,
) -> Path:
    """Write an uncompressed file of an ``id`` column and ``columns`` (name: (19 or 20, values)) with pyarrow, as
    binary, then make those columns GEOMETRY or GEOGRAPHY in the footer, with the ``crs`` and ``algorithm`` given
    (left out of the type otherwise) and file statistics as ORC Java writes them (a bounding box and type codes for
    geometry, an empty message for geography). ``writer_options`` go to :func:`tests.factory.write_pyarrow`."""
    from tests.factory import write_pyarrow

    n = len(next(iter(columns.values()))[1].values)
    table = pa.table(
        {"id": pa.array(range(n), pa.int64()), **{k: pa.array(c.values, pa.binary()) for k, (_, c) in columns.items()}}
    )
    written = write_pyarrow(path, table, compression="none", row_index_stride=row_index_stride, **writer_options)
    names = list(table.column_names)

    def change(footer: Any) -> None:
        for name, (kind, column) in columns.items():
            cid = names.index(name) + 1
            t = footer.types[cid]
            t.kind = kind
            if crs and name in crs:
                t.crs = crs[name]
            if algorithm and name in algorithm:
                t.algorithm = algorithm[name]
            stats = footer.statistics[cid]
            stats.ClearField("binaryStatistics")
            geo = stats.geospatialStatistics
            geo.SetInParent()
            box = column.bbox() if kind == GEOMETRY else None
            if box is not None:
                for key, value in box.items():
                    setattr(geo.bbox, key, value)
                geo.geospatialTypes.extend(column.type_codes())

    written.write_bytes(rewrite_footer(written.read_bytes(), change))
    return written
