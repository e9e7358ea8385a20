"""``read_orc``: pandas.read_orc's signature and result, from orcjit's decoders."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .dataset.discovery import is_dataset_path
from .dataset.files import open_dataset
from .dataset.read import read_dataset
from .errors import OrcError
from .filemeta import open_file
from .reading.options import ReadOptions
from .reading.result import read_frame

__all__ = ["read_orc"]


def read_orc(
    path: str | os.PathLike[str] | Any,
    columns: Sequence[str | int] | None = None,
    dtype_backend: str | None = None,
    filesystem: Any = None,
    *,
    filters: Any = None,
    dictionary_as_category: bool = False,
    use_threads: bool = True,
    max_workers: int | None = None,
    encrypted: str = "raise",
    progress: bool = False,
    hive11_decimals: str = "orc_cpp",
    geometry: str = "wkb",
    **kwargs: Any,
) -> pd.DataFrame:
    """Load an ORC file into a DataFrame, as :func:`pandas.read_orc` does.

    Parameters
    ----------
    path : str, os.PathLike, bytes-like, binary file object, or list of paths
        A local path, a URL fsspec understands (``s3://...``), the file's bytes, or an open binary file. A
        directory, a glob or a list of paths reads a dataset of many files as one table (Hive ``key=value``
        folders become columns), as :class:`orcjit.ORCDataset` with its defaults does: files in sorted path order,
        then rows, indexed from 0; ``columns`` and ``filters`` may name partition columns.
    columns : list of str or int, optional
        Columns to read, by name (dotted paths such as ``"a.b"`` select fields inside structs) or position. As in
        pandas, the result keeps the file's column order, not this list's. A name several columns share raises
        :class:`OrcError` listing them; a position chooses one (:mod:`orcjit.types.resolve`).
    dtype_backend : {None, "numpy_nullable", "pyarrow"}
        As in pandas: ``None`` gives NumPy dtypes (floats for integer columns with nulls, object for booleans
        with nulls), ``"numpy_nullable"`` pandas' nullable dtypes, ``"pyarrow"`` :class:`pandas.ArrowDtype`.
    filesystem : fsspec or pyarrow filesystem, optional
        Read ``path`` from this filesystem.
    filters : list of tuples, or list of lists of tuples, optional
        Rows to keep, in the pandas/pyarrow DNF convention: ``[("a", ">", 5), ("b", "in", ["x", "y"])]`` is a
        conjunction, ``[[...], [...]]`` a disjunction of conjunctions. Ops ``==`` (``=``), ``!=``, ``<``, ``<=``,
        ``>``, ``>=``, ``in``, ``not in``, and the null tests ``("a", "is null")`` / ``("a", "is not null")``;
        columns by name or dotted path into structs, resolved as ``columns`` resolves names. Stripes and row
        groups that statistics and bloom filters rule out are skipped, then rows are filtered exactly and the index
        is reset, as ``df[mask].reset_index(drop=True)`` would. The rows kept are those ``pyarrow.dataset`` and
        ``pandas.read_parquet`` keep for the same filter (:mod:`orcjit.pushdown.semantics`): a null satisfies
        ``not in`` but no comparison, NaN compares as IEEE 754 says and is a member of a list holding NaN, and
        ``-0.0`` equals ``0.0``, in lists too.
    dictionary_as_category : bool, default False
        Dictionary-encoded string columns become :class:`pandas.Categorical` without building every string.
    use_threads : bool, default True
        Decode stripes and columns in parallel on a thread pool (the kernels and codecs release the GIL), as
        pyarrow's ``use_threads``. Besides the result, memory holds the streams of one stripe (or one column of
        it) per thread.
    max_workers : int, optional
        Threads to use; by default one per CPU this process may run on.
    encrypted : {"raise", "skip", "masked"}, default "raise"
        What to do with columns the file encrypts (ORC column encryption; see ``ORCFile.encrypted_columns``),
        which orcjit cannot decrypt. ``"raise"``: a read that needs one raises :class:`OrcError` naming the
        columns and keys. ``"skip"``: leave them out of the result (a filter on one raises). ``"masked"``: return
        the unencrypted masked copy the writer stored beside them (all nulls, redacted or SHA-256 hashed values),
        as ORC Java, ORC C++ and pyarrow return without the key; filters test the masked values.
    progress : bool, default False
        Show a tqdm progress bar on stderr, labelled with the file's name, counting the stripes the read decodes:
        its total is the stripes left after statistics pruning (stripes skipped by ``filters`` are not counted),
        and it advances as each stripe's decoding finishes. It is closed even when the read fails. Needs tqdm
        (``pip install tqdm``, or ``orcjit[progress]``).
    hive11_decimals : {"orc_cpp", "orc_java", "exact"}, default "orc_cpp"
        How to give the decimals of Hive 0.11 files, whose ``decimal`` type states no precision or scale and
        whose values each carry a scale of their own (:class:`orcjit.types.kinds.Hive11Decimals`). ``"orc_cpp"``:
        as ORC C++, pyarrow and pandas.read_orc give them, ``decimal(38,6)``, further digits dropped (truncated
        toward zero). ``"orc_java"``: as Spark and Hive give them, ``decimal(38,10)``, rounded half away from
        zero. ``"exact"``: each value as stored, at its own scale (the NumPy backends only: an Arrow decimal has
        one scale). A value needing more than 38 digits at the scale raises :class:`OrcError`. Other decimals,
        whose type states precision and scale, are read as they are.
    geometry : {"wkb", "shapely"}, default "wkb"
        What GEOMETRY and GEOGRAPHY columns hold: their values' WKB as ``bytes`` (with
        ``dtype_backend="pyarrow"``, Arrow ``binary``), or ``"shapely"``: shapely geometries, made with one
        vectorised ``shapely.from_wkb`` per column (needs shapely: ``orcjit[geo]``; not with
        ``dtype_backend="pyarrow"``, whose columns cannot hold Python objects). Only top-level columns are
        converted; geometries inside lists, maps and structs stay WKB. The column's coordinate reference system
        is its type's (:attr:`orcjit.TypeNode.crs`). For a GeoPandas GeoDataFrame::

            with orcjit.ORCFile(path) as f:
                gdf = geopandas.GeoDataFrame(f.read(geometry="shapely"), geometry="g", crs=f.schema["g"].crs)

        (pyproj, which GeoPandas uses, takes ORC Java's default ``OGC:CRS84`` and ``AUTHORITY:CODE`` names such
        as ``EPSG:4326`` as they are.)
    **kwargs
        pandas passes extra keywords on to pyarrow's reader, which accepts none; orcjit raises on them rather
        than ignoring them.

    Returns
    -------
    DataFrame
        Strings use pandas' default string dtype, decimals are :class:`decimal.Decimal` objects (NumPy
        backends), ``timestamp`` columns hold the writer's wall clock (naive) and
        ``timestamp with local time zone`` columns UTC instants. Unions, which pandas.read_orc cannot convert,
        hold ``{"tag": variant, "value": value}`` dicts. A file whose root type is not a struct gives one column
        named ``_col0``.

    Raises
    ------
    OrcError
        If the file is not valid ORC, or an argument is wrong (an unknown column, an invalid dtype_backend, an
        unsupported keyword, ``max_workers`` not a positive int, ``encrypted`` not one of its values,
        ``progress`` not a bool, or ``progress=True`` without tqdm installed, ``hive11_decimals`` or ``geometry``
        not one of its values, or ``geometry="shapely"`` with ``dtype_backend="pyarrow"``), or if the read needs an
        encrypted column and ``encrypted="raise"``, or a filter names a geometry or geography column, or
        (``geometry="shapely"``) a value is not valid WKB.
    ImportError
        If ``dtype_backend="pyarrow"`` without pyarrow, or ``geometry="shapely"`` without shapely installed.
    """
    if kwargs:
        raise OrcError(f"read_orc got unsupported keyword arguments: {', '.join(sorted(kwargs))}")
    options = ReadOptions(
        columns,
        filters,
        dtype_backend,
        dictionary_as_category,
        use_threads,
        max_workers,
        encrypted,
        progress,
        hive11_decimals=hive11_decimals,
        geometry=geometry,
    )
    if is_dataset_path(path, filesystem):
        return read_dataset(open_dataset(path, filesystem), options)
    meta, owned = open_file(path, filesystem)
    try:
        return read_frame(meta, options)
    finally:
        if owned:
            meta.source.close()
