"""Column statistics decoded into plain Python values.

ORC keeps statistics for the whole file (footer), for each stripe (metadata section) and for each row group (row
index). The protobuf message is the same at every level; :func:`decode_statistics` turns one into a
:class:`ColumnStatistics` whose minimum, maximum and sum have the Python type of the column: ``int``, ``float``,
``str``, ``bytes`` sums as ``int``, ``decimal.Decimal``, ``datetime.date`` and ``pandas.Timestamp``; geometry
columns have a :class:`BoundingBox` and the geometry types they hold instead.
"""

from __future__ import annotations

import datetime
import decimal
import math
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from .types.kinds import FLOAT_KINDS, GEOSPATIAL_KINDS, INTEGER_KINDS, STRING_KINDS, TIMESTAMP_KINDS
from .types.schema import TypeNode

__all__ = [
    "GEOMETRY_TYPE_NAMES",
    "BoundingBox",
    "ColumnStatistics",
    "date_of_days",
    "decimal_of_text",
    "decode_statistics",
    "geometry_type_name",
    "timestamp_of_millis",
]


_EPOCH = datetime.date(1970, 1, 1)

# ISO WKB geometry type codes (the units digit; 1000, 2000 and 3000 add Z, M and ZM), named as GeoParquet names them
GEOMETRY_TYPE_NAMES = {
    1: "Point",
    2: "LineString",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}
_DIMENSIONS = {0: "", 1: " Z", 2: " M", 3: " ZM"}


def geometry_type_name(code: int) -> str:
    """The name of an ISO WKB geometry type code as GeoParquet writes it: ``1`` is ``"Point"``, ``1003``
    ``"Polygon Z"``, ``3002`` ``"LineString ZM"``.

    Raises
    ------
    KeyError
        If ``code`` is no such code.
    """
    dimensions, base = divmod(code, 1000)
    return GEOMETRY_TYPE_NAMES[base] + _DIMENSIONS[dimensions]


@dataclass(frozen=True)
class BoundingBox:
    """The bounding box of a geometry column's values, as ORC's geospatial statistics record it.

    Attributes
    ----------
    xmin, xmax, ymin, ymax : float
        The extent of the x and y coordinates (longitude and latitude in a geographic CRS).
    zmin, zmax, mmin, mmax : float or None
        The extent of z and m, for geometries that have them; ``None`` otherwise.
    """

    xmin: float
    xmax: float
    ymin: float
    ymax: float
    zmin: float | None = None
    zmax: float | None = None
    mmin: float | None = None
    mmax: float | None = None

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)``, the order of shapely's ``bounds`` and GeoPandas' ``total_bounds``."""
        return (self.xmin, self.ymin, self.xmax, self.ymax)

    def to_dict(self) -> dict[str, float]:
        """The bounds that are set."""
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass
class ColumnStatistics:
    """Statistics of one column over a file, a stripe or a row group.

    Attributes that do not apply to the column's type, or that the writer did not record, are ``None``.

    Attributes
    ----------
    column_id : int
    kind : str
        The column's type kind (see :class:`orcjit.TypeNode`).
    count : int or None
        Number of non-null values.
    has_null : bool or None
        Whether any value is null; ``None`` for files from writers that did not record it.
    minimum, maximum
        Smallest and largest value, of the column's Python type.
    sum
        Sum of the values for numbers and decimals; total length in bytes for strings and binary.
    lower_bound, upper_bound : str or None
        For strings whose minimum or maximum was too long to store: a bound in place of the value.
    true_count, false_count : int or None
        For booleans.
    min_children, max_children, total_children : int or None
        For arrays and maps: the fewest, most and total elements per value.
    bbox : BoundingBox or None
        For geometry columns: the extent of their non-empty values. ``None`` where the writer recorded none: ORC
        Java records none for geography columns, nor for geometry columns with only empty or null values, or
        with a NaN coordinate.
    geometry_types : tuple of int or None
        For geometry columns: the ISO WKB type codes of their non-empty values, in increasing order (1 point,
        2 linestring, ... 7 geometry collection, plus 1000 with Z, 2000 with M, 3000 with both; see
        :attr:`geometry_type_names`); ``None`` where the writer recorded none, as for ``bbox``.
    bytes_on_disk : int or None
        Bytes the column takes in the file, where the writer recorded it.
    """

    column_id: int
    kind: str
    count: int | None = None
    has_null: bool | None = None
    minimum: Any = None
    maximum: Any = None
    sum: Any = None
    lower_bound: str | None = None
    upper_bound: str | None = None
    true_count: int | None = None
    false_count: int | None = None
    min_children: int | None = None
    max_children: int | None = None
    total_children: int | None = None
    bbox: BoundingBox | None = None
    geometry_types: tuple[int, ...] | None = None
    bytes_on_disk: int | None = None

    @property
    def geometry_type_names(self) -> list[str] | None:
        """:attr:`geometry_types` by name, as GeoParquet's ``geometry_types`` names them (``"Point"``,
        ``"Polygon Z"``, ...)."""
        return None if self.geometry_types is None else [geometry_type_name(t) for t in self.geometry_types]

    def to_dict(self) -> dict[str, Any]:
        """The statistics that are set, as a dict (dates and timestamps as ISO text, decimals as strings, the
        bounding box as a dict of the bounds it has, geometry types as a list of codes).

        Float minima, maxima and sums stay floats, NaN and infinities included: ``json.dumps`` needs
        ``allow_nan`` or a conversion for those.
        """
        out: dict[str, Any] = {}
        for key in self.__dataclass_fields__:
            value = getattr(self, key)
            if value is None:
                continue
            if isinstance(value, (datetime.date, pd.Timestamp)):
                value = value.isoformat()
            elif isinstance(value, decimal.Decimal):
                value = str(value)
            elif isinstance(value, BoundingBox):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = list(value)
            out[key] = value
        return out


def timestamp_of_millis(millis: int, nanos_plus_one: int | None, utc: bool) -> pd.Timestamp | None:
    """A timestamp statistic: milliseconds and the nanoseconds field (plus one), as a Timestamp (UTC instants
    zone-aware); ``None`` past the nanosecond range."""
    # the nanos field holds the sub-millisecond nanoseconds plus one; writers leave it out when it would be 1 for a
    # minimum, and readers take a missing maximum as 999999 ns (passed in as 1_000_000) so the bound stays a bound
    nanos = millis * 1_000_000 + (nanos_plus_one - 1 if nanos_plus_one is not None else 0)
    try:
        return pd.Timestamp(nanos, unit="ns", tz="UTC" if utc else None)
    except (OverflowError, ValueError):
        return None


def date_of_days(days: int) -> datetime.date | None:
    """A date statistic as a ``datetime.date``; ``None`` past the years it holds."""
    try:
        return _EPOCH + datetime.timedelta(days=days)
    except OverflowError:
        return None


def decimal_of_text(text: str | bytes) -> decimal.Decimal | None:
    """A decimal statistic (its text) as a ``Decimal``; ``None`` when it is not a number."""
    if isinstance(text, bytes):  # not UTF-8: corrupt
        return None
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return None
    return value if value.is_finite() else None


def _extent(msg: Any, low: str, high: str) -> tuple[float, float] | None:
    """One dimension of a bounding box: both bounds, or None where either is missing, NaN or they enclose nothing
    (ORC Java writes infinities for a dimension none of the values has)."""
    if not (msg.HasField(low) and msg.HasField(high)):
        return None
    lo, hi = getattr(msg, low), getattr(msg, high)
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        return None
    return lo, hi


def _bounding_box(msg: Any) -> BoundingBox | None:
    x, y = _extent(msg, "xmin", "xmax"), _extent(msg, "ymin", "ymax")
    if x is None or y is None:
        return None  # an empty message: the writer found no extent (all empty, or a NaN coordinate)
    z, m = _extent(msg, "zmin", "zmax"), _extent(msg, "mmin", "mmax")
    return BoundingBox(*x, *y, *(z or (None, None)), *(m or (None, None)))


def _geometry_types(codes: Any) -> tuple[int, ...] | None:
    found = sorted(set(codes))
    # one code that is no WKB type makes the whole list suspect: a corrupt message must not pass for a partial one
    if not found or any(not (0 <= c // 1000 <= 3 and c % 1000 in GEOMETRY_TYPE_NAMES) for c in found):
        return None
    return tuple(found)


def _string(value: str | bytes) -> str | None:
    # a minimum or maximum that is not UTF-8 (writers before HIVE-8732, or corruption) says nothing reliable
    return None if isinstance(value, bytes) else value


def decode_statistics(msg: Any, node: TypeNode) -> ColumnStatistics:
    """Decode one ``ColumnStatistics`` protobuf message for the column ``node``.

    Statistics of a kind that does not match the column's type are ignored rather than trusted: a corrupt or
    foreign message must not lend a string column an integer minimum.
    """
    kind = node.kind
    stats = ColumnStatistics(column_id=node.column_id, kind=kind)
    if msg.HasField("numberOfValues"):
        stats.count = msg.numberOfValues
    if msg.HasField("hasNull"):
        stats.has_null = msg.hasNull
    if msg.HasField("bytesOnDisk"):
        stats.bytes_on_disk = msg.bytesOnDisk

    if kind in INTEGER_KINDS and msg.HasField("intStatistics"):
        s = msg.intStatistics
        stats.minimum = s.minimum if s.HasField("minimum") else None
        stats.maximum = s.maximum if s.HasField("maximum") else None
        stats.sum = s.sum if s.HasField("sum") else None
    elif kind in FLOAT_KINDS and msg.HasField("doubleStatistics"):
        s = msg.doubleStatistics
        stats.minimum = s.minimum if s.HasField("minimum") else None
        stats.maximum = s.maximum if s.HasField("maximum") else None
        stats.sum = s.sum if s.HasField("sum") else None
    elif kind in STRING_KINDS and msg.HasField("stringStatistics"):
        s = msg.stringStatistics
        stats.minimum = _string(s.minimum) if s.HasField("minimum") else None
        stats.maximum = _string(s.maximum) if s.HasField("maximum") else None
        stats.sum = s.sum if s.HasField("sum") else None
        stats.lower_bound = _string(s.lowerBound) if s.HasField("lowerBound") else None
        stats.upper_bound = _string(s.upperBound) if s.HasField("upperBound") else None
    elif kind == "binary" and msg.HasField("binaryStatistics"):
        s = msg.binaryStatistics
        stats.sum = s.sum if s.HasField("sum") else None
    elif kind == "boolean" and msg.HasField("bucketStatistics"):
        counts = list(msg.bucketStatistics.count)
        if counts:
            stats.true_count = counts[0]
            if stats.count is not None:
                stats.false_count = stats.count - counts[0]
    elif kind == "decimal" and msg.HasField("decimalStatistics"):
        s = msg.decimalStatistics
        stats.minimum = decimal_of_text(s.minimum) if s.HasField("minimum") else None
        stats.maximum = decimal_of_text(s.maximum) if s.HasField("maximum") else None
        stats.sum = decimal_of_text(s.sum) if s.HasField("sum") else None
    elif kind == "date" and msg.HasField("dateStatistics"):
        s = msg.dateStatistics
        stats.minimum = date_of_days(s.minimum) if s.HasField("minimum") else None
        stats.maximum = date_of_days(s.maximum) if s.HasField("maximum") else None
    elif kind in TIMESTAMP_KINDS and msg.HasField("timestampStatistics"):
        s = msg.timestampStatistics
        # Only the UTC fields (ORC-135) are decoded. The older fields were shifted by the writer's local time zone,
        # which only stripe footers record (and file-level statistics cannot use), so they stay undecoded here.
        utc = kind == "timestamp with local time zone"
        if s.HasField("minimumUtc"):
            stats.minimum = timestamp_of_millis(
                s.minimumUtc, s.minimumNanos if s.HasField("minimumNanos") else None, utc
            )
        if s.HasField("maximumUtc"):
            stats.maximum = timestamp_of_millis(
                s.maximumUtc, s.maximumNanos if s.HasField("maximumNanos") else 1_000_000, utc
            )
    elif kind in GEOSPATIAL_KINDS and msg.HasField("geospatialStatistics"):
        s = msg.geospatialStatistics
        stats.bbox = _bounding_box(s.bbox) if s.HasField("bbox") else None
        stats.geometry_types = _geometry_types(s.geospatialTypes)
    elif kind in ("array", "map") and msg.HasField("collectionStatistics"):
        s = msg.collectionStatistics
        stats.min_children = s.minChildren if s.HasField("minChildren") else None
        stats.max_children = s.maxChildren if s.HasField("maxChildren") else None
        stats.total_children = s.totalChildren if s.HasField("totalChildren") else None
    return stats
