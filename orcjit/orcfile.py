"""``ORCFile``: an open ORC file, its metadata and its reads (the API over :mod:`orcjit.reading`)."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .compression import CODEC_NAMES
from .encryption import EncryptedColumn, Encryption
from .errors import OrcError
from .filemeta import WRITER_VERSION_NAMES, FileMeta, open_file
from .indexes import BloomFilterIndex, RowIndex, read_bloom_filter, read_row_index
from .progress import stripe_progress
from .pushdown.plan import Explanation, explain
from .reading.options import ReadOptions
from .reading.plan import plan_read, row_range_runs
from .reading.result import read_frame, read_table, to_frame
from .reading.scan import scan_runs, scan_stripes
from .sources import ByteSource
from .statistics import ColumnStatistics
from .stripes import StripeFooterInfo, StripeInfo
from .tail import text_field
from .types.schema import TypeNode

__all__ = ["ORCFile"]


class ORCFile:
    """An ORC file opened for its metadata.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like, binary file object or ByteSource
        A local path, a URL fsspec understands (``s3://...``, ``memory://...``), the file's bytes, or an open
        binary file with ``read`` and ``seek``.
    filesystem : fsspec or pyarrow filesystem, optional
        As in :func:`pandas.read_orc`: ``source`` is a path on this filesystem.

    Raises
    ------
    OrcError
        If the file is empty, not ORC, truncated or corrupt in its tail.

    Examples
    --------
    >>> with orcjit.ORCFile("data.orc") as f:  # doctest: +SKIP
    ...     print(f.schema, f.nrows, f.statistics[1].minimum)
    """

    def __init__(self, source: str | os.PathLike[str] | Any, *, filesystem: Any = None) -> None:
        self._owns_source = False
        self.meta: FileMeta
        """The file's metadata as plain data, which the layers below the API take (:mod:`orcjit.filemeta`)."""
        self.meta, self._owns_source = open_file(source, filesystem)
        self.schema: TypeNode = self.meta.schema

    # -- the file -------------------------------------------------------------------------------------------------

    @property
    def source(self) -> ByteSource:
        """Where the bytes come from, with its ``reads`` and ``bytes_read`` counters."""
        return self.meta.source

    @property
    def nrows(self) -> int:
        """Number of rows in the file."""
        return self.meta.nrows

    @property
    def nstripes(self) -> int:
        """Number of stripes."""
        return len(self.meta.stripes)

    @property
    def stripes(self) -> list[StripeInfo]:
        """Each stripe's offset, section lengths, rows and first row."""
        return list(self.meta.stripes)

    @property
    def ncolumns(self) -> int:
        """Number of columns in the schema tree, the root included (column ids are ``0 .. ncolumns - 1``)."""
        return self.meta.ncolumns

    @property
    def compression(self) -> str:
        """``NONE``, ``ZLIB``, ``SNAPPY``, ``LZO``, ``LZ4``, ``ZSTD`` or ``BROTLI``."""
        return CODEC_NAMES[self.meta.tail.compression]

    @property
    def compression_block_size(self) -> int:
        """The most bytes any compression chunk expands to."""
        return self.meta.tail.block_size

    @property
    def row_index_stride(self) -> int:
        """Rows per row group; 0 when the file has no row index."""
        return self.meta.stride

    @property
    def file_version(self) -> str:
        """The file format version: ``"0.11"``, ``"0.12"``, or ``"1.9999"`` for ORC Java's pre-2.0 format
        ("UNSTABLE-PRE-2.0", whose decimals of precision 18 or less are stored as integers)."""
        version = list(self.meta.tail.postscript.version) or [0, 11]
        return ".".join(str(v) for v in version)

    @property
    def writer(self) -> str:
        """The implementation that wrote the file: ``ORC_JAVA``, ``ORC_CPP``, ``PRESTO``, ``TRINO``, ..."""
        return self.meta.writer

    @property
    def writer_version_number(self) -> int:
        """The writer version as stored: each number marks writer bugs fixed from then on."""
        return self.meta.writer_version

    @property
    def writer_version(self) -> str:
        """The writer version's name, e.g. ``ORC_135`` (timestamp statistics in UTC from here on)."""
        number = self.meta.writer_version
        return WRITER_VERSION_NAMES.get(number, f"FUTURE({number})")

    @property
    def software_version(self) -> str | None:
        """The writing software's own version string, where it recorded one (e.g. ``"ORC C++ 2.1.0"``)."""
        return self.meta.software_version

    @property
    def user_metadata(self) -> dict[str, bytes]:
        """Key/value pairs the writing application stored."""
        return {text_field(item.name): bytes(item.value) for item in self.meta.tail.footer.metadata}

    @property
    def content_length(self) -> int:
        """Bytes of header and stripes, before the tail."""
        return self.meta.tail.content_end

    @property
    def file_size(self) -> int:
        """The file's length in bytes."""
        return self.meta.tail.file_size

    @functools.cached_property
    def encryption(self) -> Encryption | None:
        """The file's column encryption (key provider and encrypted columns), or ``None`` if it encrypts nothing.

        Raises
        ------
        OrcError
            If the footer's encryption section names a column or key that does not exist.
        """
        return self.meta.encryption

    @property
    def encrypted_columns(self) -> list[EncryptedColumn]:
        """The columns the file encrypts (ORC 1.6+ column encryption), each with its path, key and mask.

        Each entry covers the column's whole subtree. orcjit cannot decrypt them: reads that need one raise
        :class:`OrcError` unless given ``encrypted="skip"`` (leave them out) or ``encrypted="masked"`` (their
        masked copy: nulls, redacted or hashed values, as ORC readers without the key return).
        """
        encryption = self.encryption
        return list(encryption.columns) if encryption is not None else []

    # -- statistics and indexes -----------------------------------------------------------------------------------

    @property
    def statistics(self) -> list[ColumnStatistics]:
        """File-level statistics, one entry per column id."""
        return list(self.meta.statistics)

    def stripe_statistics(self, i: int) -> list[ColumnStatistics]:
        """Statistics of stripe ``i``, one entry per column id.

        The metadata section holding them is decompressed and parsed on first use.

        Raises
        ------
        IndexError
            If there is no stripe ``i``.
        OrcError
            If the metadata section is corrupt or holds no statistics for that stripe.
        """
        return self.meta.stripe_statistics(self._stripe_index(i))

    def _stripe_index(self, i: int) -> int:
        if not isinstance(i, int) or isinstance(i, bool):
            raise OrcError(f"stripe index must be an int, got {type(i).__name__}")
        count = len(self.meta.stripes)
        index = i + count if i < 0 else i
        if not 0 <= index < count:
            raise IndexError(f"stripe {i} out of range: the file has {count} stripes")
        return index

    def stripe_footer(self, i: int) -> StripeFooterInfo:
        """The footer of stripe ``i``: its streams (kind, column, offset, length), column encodings and writer
        time zone."""
        return self.meta.stripe_footer(self._stripe_index(i))

    def row_index(self, stripe: int, column: str | int) -> RowIndex | None:
        """The row index of ``column`` in ``stripe``: statistics and stream positions for each row group.

        Parameters
        ----------
        stripe : int
            The stripe's number (negative counts from the end).
        column : str or int
            A name, a dotted path (``"trip.fare"``, ``"tags._elem"``) or a column id.

        Returns
        -------
        RowIndex or None
            ``None`` when the writer wrote no row index (a row index stride of 0, or no ROW_INDEX stream).

        Raises
        ------
        IndexError
            If there is no such stripe.
        OrcError
            If there is no such column, the name is ambiguous, the column is encrypted, or the index is corrupt.
        """
        return read_row_index(self.meta, self._stripe_index(stripe), column)

    def bloom_filter(self, stripe: int, column: str | int) -> BloomFilterIndex | None:
        """The bloom filters of ``column`` in ``stripe``, one per row group.

        Parameters are those of :meth:`row_index`. ``None`` when the writer made no bloom filter for the column
        (writers make them only for the columns asked for, such as ``orc.bloom.filter.columns`` in ORC Java and
        Spark, or pyorc's ``bloom_filter_columns``).

        Examples
        --------
        >>> bf = orc.bloom_filter(0, "city")  # doctest: +SKIP
        >>> bf.might_contain("Oslo"), bf.fill_ratio  # doctest: +SKIP
        """
        return read_bloom_filter(self.meta, self._stripe_index(stripe), column)

    # -- rows -----------------------------------------------------------------------------------------------------

    def read(
        self,
        columns: Sequence[str | int] | None = None,
        dtype_backend: str | None = None,
        *,
        filters: Any = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        progress: bool = False,
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> pd.DataFrame:
        """Read the whole file into a DataFrame; arguments as in :func:`orcjit.read_orc`."""
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
        return read_frame(self.meta, options)

    def read_stripe(
        self,
        i: int,
        columns: Sequence[str | int] | None = None,
        dtype_backend: str | None = None,
        *,
        filters: Any = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> pd.DataFrame:
        """Read stripe ``i`` into a DataFrame whose index holds the rows' numbers in the file; its columns are
        decoded in parallel unless ``use_threads=False``."""
        index = self._stripe_index(i)
        options = ReadOptions(
            columns,
            filters,
            dtype_backend,
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            hive11_decimals=hive11_decimals,
            geometry=geometry,
        )
        return read_frame(self.meta, options, [index], file_row_index=True)

    def iter_stripes(
        self,
        columns: Sequence[str | int] | None = None,
        dtype_backend: str | None = None,
        *,
        filters: Any = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        progress: bool = False,
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> Iterator[pd.DataFrame]:
        """Yield one DataFrame per stripe, indexed by file row number; memory is bounded by one stripe.

        With ``filters``, stripes that cannot match are skipped and each DataFrame holds the matching rows.
        Each stripe's columns are decoded in parallel unless ``use_threads=False``. ``progress=True`` shows a
        bar over all the file's stripes (pruning is decided stripe by stripe as the iteration goes), advanced
        as each is read or skipped; it closes when the iteration ends, stops early or raises.
        """
        # wrong arguments, and reads that need encrypted columns, fail before the first stripe
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
        plan = plan_read(self.meta, columns, filters, encrypted)
        options = dataclasses.replace(options, progress=False)  # one bar over the stripes, not one per stripe
        bar = stripe_progress(self.nstripes, self.source.name) if progress else None
        try:
            for stripe in self.meta.stripes:
                got = scan_stripes(self.meta, plan, [stripe.index], options)
                frame = to_frame(
                    self.meta, got, options.backend, dictionary_as_category, file_row_index=True, geometry=geometry
                )
                if bar is not None:
                    bar.advance()
                if filters is None or len(frame):
                    yield frame
        finally:
            if bar is not None:
                bar.close()

    def read_rows(
        self,
        start: int,
        stop: int,
        columns: Sequence[str | int] | None = None,
        dtype_backend: str | None = None,
        *,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        hive11_decimals: str = "orc_cpp",
        geometry: str = "wkb",
    ) -> pd.DataFrame:
        """Read rows ``[start, stop)`` of the file into a DataFrame whose index holds the rows' file numbers.

        Each stripe the range touches is entered with the row index at the row group holding its first row
        there; the rows before it in that group are skipped, not decoded, and the streams are fetched only up to
        about the row group after the last row. Stripes of files without a row index are decoded from their
        first row. A range past the file's end reads what there is of it. The other arguments are as in
        :func:`orcjit.read_orc`.

        Raises
        ------
        OrcError
            If ``start`` or ``stop`` is not an int, or ``start`` is negative or after ``stop``; as :meth:`read`.
        """
        for name, value in (("start", start), ("stop", stop)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise OrcError(f"{name} must be an int, got {type(value).__name__}")
        if start < 0 or stop < start:
            raise OrcError(f"rows [{start}, {stop}): start must be 0 or more and stop no less than start")
        start, stop = min(int(start), self.nrows), min(int(stop), self.nrows)
        options = ReadOptions(
            columns,
            None,
            dtype_backend,
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            hive11_decimals=hive11_decimals,
            geometry=geometry,
        )
        plan = plan_read(self.meta, columns, None, encrypted)
        if not plan.output.fields:
            # no columns, but one row per row in the range, as read() gives
            return pd.DataFrame(index=pd.RangeIndex(start, stop), columns=pd.Index([], dtype=object))
        runs = row_range_runs(self.meta, start, stop, plan.decode)
        got = scan_runs(self.meta, runs, plan, options)
        frame = to_frame(
            self.meta, got, options.backend, dictionary_as_category, file_row_index=True, geometry=geometry
        )
        if not runs:
            frame.index = pd.RangeIndex(start, start)
        return frame

    def read_arrow(
        self,
        columns: Sequence[str | int] | None = None,
        *,
        filters: Any = None,
        stripes: Sequence[int] | None = None,
        dictionary_as_category: bool = False,
        use_threads: bool = True,
        max_workers: int | None = None,
        encrypted: str = "raise",
        progress: bool = False,
        hive11_decimals: str = "orc_cpp",
    ) -> Any:
        """Read the file, or the stripes listed in ``stripes``, into a ``pyarrow.Table``.

        The table has the types ``pyarrow.orc.read_table`` gives (unions as dense unions); decoded buffers are
        handed to Arrow without copies. ``columns``, ``filters``, ``dictionary_as_category``, ``use_threads``,
        ``max_workers``, ``encrypted``, ``progress`` and ``hive11_decimals`` (not ``"exact"``) are as in
        :func:`orcjit.read_orc`.

        Raises
        ------
        IndexError
            If a stripe number is out of range, as :meth:`read_stripe`.
        OrcError
            As :meth:`read`.
        ImportError
            If pyarrow is not installed.
        """
        import pyarrow  # noqa: F401  (fails first, and clearly, without pyarrow)

        options = ReadOptions(
            columns,
            filters,
            None,
            dictionary_as_category,
            use_threads,
            max_workers,
            encrypted,
            progress,
            hive11_decimals=hive11_decimals,
        )
        indices = None if stripes is None else [self._stripe_index(i) for i in stripes]
        return read_table(self.meta, options, indices)

    def explain(self, filters: Any, columns: Sequence[str | int] | None = None) -> Explanation:
        """What a read with ``filters`` would skip, and why.

        Returns an :class:`~orcjit.pushdown.plan.Explanation`: the file-level verdict, each stripe kept or
        skipped (by file statistics, stripe statistics, or because statistics and bloom filters ruled out
        every row group), row groups kept and skipped per stripe, and the bytes the read would fetch for
        ``columns`` against the file size: whole streams of the stripes read whole, and for stripes entered by
        row group the row indexes to seek with and each run of kept row groups' byte ranges (a run ending inside
        a compression chunk may fetch one chunk more). ``str()`` of it is a readable report.
        """
        # as reads do, statistics of encrypted columns (which describe the masked copy at best) prune nothing
        plan = plan_read(self.meta, columns, filters, "masked")
        return explain(self.meta, plan.pruning, plan.decode.selected)

    # -- lifetime -------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file if this object opened it (a file object passed in stays open)."""
        if getattr(self, "_owns_source", False):
            self.meta.source.close()
            self._owns_source = False

    def __enter__(self) -> ORCFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<orcjit.ORCFile {self.source.name!r} rows={self.nrows} stripes={self.nstripes} "
            f"compression={self.compression} schema={self.schema}>"
        )
