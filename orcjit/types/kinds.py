"""The one table of ORC type kinds: their numbers, families, the NumPy arrays they decode into, and the pandas and
Arrow dtypes each ``dtype_backend`` gives them.

Everything else in orcjit that asks "is this an integer column?", "what array do its values go in?" or "what
dtype does pandas.read_orc give it?" asks here, so that a kind is described once.

The pandas dtypes are those ``pandas.read_orc`` gives (pyarrow's ``Table.to_pandas`` with pandas' own
``types_mapper``): with ``dtype_backend=None`` a column without nulls keeps its NumPy type, an integer column
with nulls becomes float64 (NaN) and a boolean one object (``None``); ``"numpy_nullable"`` gives pandas' masked
dtypes to integers, floats, booleans and strings; ``"pyarrow"`` wraps the Arrow type in :class:`pandas.ArrowDtype`.
Kinds whose values become Python objects (decimals, dates, binary, compound types) are object columns with the
NumPy backends.

GEOMETRY and GEOGRAPHY (ORC format 1.1) are binary in every respect of layout and conversion: their values are WKB
bytes, stored as binary's are, so they belong to the ``binary`` family. What sets them apart is meaning: no filter
or bloom filter takes them (their bytes have no order and their statistics are a bounding box), which
:data:`GEOSPATIAL_KINDS` and :data:`FILTERABLE_KINDS` say.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OrcError

__all__ = [
    "BACKENDS",
    "BINARY_KINDS",
    "BYTES_KINDS",
    "COMPOUND_KINDS",
    "DEFAULT_DECIMAL_SCALE",
    "FILTERABLE_KINDS",
    "FLOAT_KINDS",
    "GEOSPATIAL_KINDS",
    "HIVE11_DECIMALS",
    "INTEGER_KINDS",
    "KINDS",
    "KIND_NAMES",
    "MAX_DECIMAL_PRECISION",
    "STRING_KINDS",
    "TIMESTAMP_KINDS",
    "Hive11Decimals",
    "Kind",
    "hive11_decimals",
    "kind",
]

BACKENDS = ("numpy", "numpy_nullable", "pyarrow")
# the most digits a decimal holds; what decimals whose type states no precision (Hive 0.11) are read with
MAX_DECIMAL_PRECISION = 38
# the scale of a decimal type that states a precision but no scale (ORC Java's TypeDescription default)
DEFAULT_DECIMAL_SCALE = 10


@dataclass(frozen=True)
class Hive11Decimals:
    """How a read gives the decimals of Hive 0.11 files: a ``decimal`` type that states no precision or scale,
    each value stored with a scale of its own (its digits after the point as written).

    ORC's readers give such a column one scale, each value brought to it, and 38 digits of precision; a value
    that needs more digits at that scale fails the read. ORC C++ (so pyarrow, ``pandas.read_orc`` and pyorc)
    reads at scale 6 (its ``forcedScaleOnHive11Decimal``), dropping further digits (truncating toward zero);
    ORC Java's type for them is ``decimal(38,10)`` and Spark (``spark.read.orc``) rounds each value to it half
    away from zero; ORC Java's reader itself hands over each value exactly, at its own scale.

    Attributes
    ----------
    name : str
        ``"orc_cpp"``, ``"orc_java"`` or ``"exact"``.
    scale : int or None
        The column's scale; ``None`` for each value at its own scale.
    half_up : bool
        Round to the scale half away from zero instead of truncating.
    """

    name: str
    scale: int | None
    half_up: bool = False


HIVE11_DECIMALS = {
    rule.name: rule
    for rule in (Hive11Decimals("orc_cpp", 6), Hive11Decimals("orc_java", 10, True), Hive11Decimals("exact", None))
}


def hive11_decimals(name: Any) -> Hive11Decimals:
    """The rule called ``name`` (``"orc_cpp"``, ``"orc_java"`` or ``"exact"``).

    Raises
    ------
    OrcError
        For any other value.
    """
    rule = HIVE11_DECIMALS.get(name) if isinstance(name, str) else None
    if rule is None:
        raise OrcError(f"hive11_decimals must be one of {', '.join(map(repr, HIVE11_DECIMALS))}, got {name!r}")
    return rule


@dataclass(frozen=True)
class Kind:
    """One ORC type kind.

    Attributes
    ----------
    name : str
        The name ORC's own tools print (``"bigint"``, ``"timestamp with local time zone"``).
    number : int
        ``Type.Kind`` in the file's footer.
    family : str
        ``boolean``, ``integer``, ``float``, ``string`` (string, varchar, char), ``binary`` (binary, geometry,
        geography), ``decimal``, ``date``, ``timestamp`` (both timestamp kinds) or ``compound``.
    storage : str or None
        The NumPy dtype each value decodes into, for fixed-width kinds (decimals: two int64 lanes, low word
        first, as Arrow's decimal128 lays them out); ``None`` for strings, binary and compound kinds.
    lanes : int
        Storage values per slot.
    with_nulls : str or None
        The NumPy dtype of the ``numpy`` backend's column when it holds nulls, where that differs from the
        column without nulls (integers become float64 with NaN, booleans object with ``None``).
    nullable : str or None
        The pandas dtype of the ``numpy_nullable`` backend, where it is not the ``numpy`` backend's.
    arrow : str or None
        The Arrow type pyarrow's ORC reader gives, for kinds with no parameters (decimals and compound kinds
        build theirs from the type); for geometry and geography, which pyarrow cannot read, their WKB as binary.
    geospatial : bool
        GEOMETRY and GEOGRAPHY: WKB values in a coordinate reference system the type names, which no filter tests.
    """

    name: str
    number: int
    family: str
    storage: str | None = None
    lanes: int = 1
    with_nulls: str | None = None
    nullable: str | None = None
    arrow: str | None = None
    geospatial: bool = False

    @property
    def fixed_width(self) -> bool:
        """Whether each value decodes into ``lanes`` slots of a NumPy array of ``storage``."""
        return self.storage is not None

    @functools.cached_property
    def dtype(self) -> np.dtype[Any]:
        """``storage`` as a NumPy dtype (made once: readers and converters ask for it per column and read).

        Raises
        ------
        TypeError
            For kinds that are not fixed width.
        """
        if self.storage is None:
            raise TypeError(f"{self.name} values are not fixed width")
        return np.dtype(self.storage)


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("boolean", 0, "boolean", "bool", with_nulls="object", nullable="boolean", arrow="bool"),
        Kind("tinyint", 1, "integer", "int8", with_nulls="float64", nullable="Int8", arrow="int8"),
        Kind("smallint", 2, "integer", "int16", with_nulls="float64", nullable="Int16", arrow="int16"),
        Kind("int", 3, "integer", "int32", with_nulls="float64", nullable="Int32", arrow="int32"),
        Kind("bigint", 4, "integer", "int64", with_nulls="float64", nullable="Int64", arrow="int64"),
        Kind("float", 5, "float", "float32", nullable="Float32", arrow="float32"),
        Kind("double", 6, "float", "float64", nullable="Float64", arrow="float64"),
        Kind("string", 7, "string", nullable="string", arrow="string"),
        Kind("binary", 8, "binary", arrow="binary"),
        Kind("timestamp", 9, "timestamp", "int64", arrow="timestamp[ns]"),
        Kind("array", 10, "compound"),
        Kind("map", 11, "compound"),
        Kind("struct", 12, "compound"),
        Kind("uniontype", 13, "compound"),
        Kind("decimal", 14, "decimal", "int64", lanes=2),
        Kind("date", 15, "date", "int32", arrow="date32"),
        Kind("varchar", 16, "string", nullable="string", arrow="string"),
        Kind("char", 17, "string", nullable="string", arrow="string"),
        Kind("timestamp with local time zone", 18, "timestamp", "int64", arrow="timestamp[ns, tz=UTC]"),
        Kind("geometry", 19, "binary", arrow="binary", geospatial=True),
        Kind("geography", 20, "binary", arrow="binary", geospatial=True),
    )
}
# Type.Kind numbers to names
KIND_NAMES: dict[int, str] = {k.number: k.name for k in KINDS.values()}


def _family(*families: str) -> frozenset[str]:
    return frozenset(k.name for k in KINDS.values() if k.family in families)


INTEGER_KINDS = _family("integer")
FLOAT_KINDS = _family("float")
STRING_KINDS = _family("string")  # text: string, varchar, char
BINARY_KINDS = _family("binary")  # bytes values: binary, and the WKB of geometry and geography
BYTES_KINDS = STRING_KINDS | BINARY_KINDS  # stored as LENGTH and DATA (or a dictionary): text and binary
TIMESTAMP_KINDS = _family("timestamp")
COMPOUND_KINDS = _family("compound")
GEOSPATIAL_KINDS = frozenset(k.name for k in KINDS.values() if k.geospatial)  # geometry, geography
# the kinds a filter may test: every primitive kind but the geospatial ones
FILTERABLE_KINDS = frozenset(KINDS) - COMPOUND_KINDS - GEOSPATIAL_KINDS


def kind(name: str) -> Kind:
    """The :class:`Kind` called ``name``.

    Raises
    ------
    KeyError
        If ORC has no kind of that name.
    """
    return KINDS[name]
