"""``ORCFile``: an open ORC file's metadata."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .compression import CODEC_NAMES
from .encryption import EncryptedColumn, Encryption, check_encrypted_mode, guard_read, pruning_filters, read_encryption
from .errors import OrcError
from .indexes import BloomFilterIndex, RowIndex, read_bloom_filter, read_row_index
from .kernels.row_index import RowIndexTable
from .progress import StripeProgress, check_progress, stripe_progress
from .pushdown.filters import normalize_filters, referenced_paths
from .pushdown.plan import Explanation, StripeDecision, decide, explain
from .pushdown.rowgroups import kept_runs
from .pushdown.rows import filters_mask
from .reading.columns import ReadContext, read_column
from .reading.frame import Selection, build_frame, build_table, check_backend, select_columns
from .reading.scan import Run, allocate_outputs, decode_run, field_groups, run_tasks, workers_for
from .reading.seek import Positions, read_row_positions, read_stripe_rows
from .reading.streams import read_stripe_streams
from .reading.vector import ColumnVector, find_vector, prune_vector
from .schema import TypeNode, build_schema
from .sources import ByteSource, open_source
from .statistics import ColumnStatistics, decode_statistics
from .stripes import StripeFooterInfo, StripeInfo, read_stripe_footer, stripe_infos
from .tail import FileTail, read_tail, text_field

__all__ = ["ORCFile"]

# Footer.writer codes, named as pyarrow names them
WRITER_NAMES = {0: "ORC_JAVA", 1: "ORC_CPP", 2: "PRESTO", 3: "SCRITCHLEY_GO", 4: "TRINO", 5: "CUDF"}
# PostScript.writerVersion: each number marks a writer bug fixed (or feature added) from then on
WRITER_VERSION_NAMES = {
    0: "ORIGINAL",
    1: "HIVE_8732",  # string statistics use UTF-8 and stripe/file maxima are right
    2: "HIVE_4243",  # real column names
    3: "HIVE_12055",  # vectorized writer
    4: "HIVE_13083",  # decimals write PRESENT correctly
    5: "ORC_101",  # bloom filters hash strings as UTF-8
    6: "ORC_135",  # timestamp statistics in UTC
    7: "ORC_517",  # RLE v2 patched base fixed
    8: "ORC_203",  # string statistics bounded by lowerBound/upperBound
    9: "ORC_14",  # unbounded ORC-14 dictionary
}


@dataclass
class _Gathered:
    """What a read decoded: each output field's vectors (one per run of rows, or one for the whole read), where
    each run starts in the file and how many rows it holds, and the filters' exact row masks per run."""

    output: Selection
    filtered: bool
    columns: list[list[ColumnVector]] = field(default_factory=list)
    first_rows: list[int] = field(default_factory=list)
    row_counts: list[int] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)

    def mask(self) -> np.ndarray:
        return np.concatenate(self.masks) if self.masks else np.zeros(0, dtype=bool)


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
        self._source, self._owns_source = open_source(source, filesystem)
        try:
            self._tail: FileTail = read_tail(self._source)
            footer = self._tail.footer
            try:
                self.schema: TypeNode = build_schema(footer.types)
            except OrcError as exc:
                raise OrcError(f"{self._source.name}: footer: {exc}") from None
        except BaseException:
            self.close()
            raise
        self._columns = list(self.schema.walk())
        self._stripes = stripe_infos(footer)
        self._stripe_stats: list[Any] | None = None

    # -- the file -------------------------------------------------------------------------------------------------

    @property
    def source(self) -> ByteSource:
        """Where the bytes come from, with its ``reads`` and ``bytes_read`` counters."""
        return self._source

    @property
    def nrows(self) -> int:
        """Number of rows in the file."""
        # the stripes' rows agree with the footer's count when it has one (tail.py checks), and stand in for it
        # when it has none
        return sum(s.rows for s in self._stripes)

    @property
    def nstripes(self) -> int:
        """Number of stripes."""
        return len(self._stripes)

    @property
    def stripes(self) -> list[StripeInfo]:
        """Each stripe's offset, section lengths, rows and first row."""
        return list(self._stripes)

    @property
    def ncolumns(self) -> int:
        """Number of columns in the schema tree, the root included (column ids are ``0 .. ncolumns - 1``)."""
        return len(self._columns)

    @property
    def compression(self) -> str:
        """``NONE``, ``ZLIB``, ``SNAPPY``, ``LZO``, ``LZ4`` or ``ZSTD``."""
        return CODEC_NAMES[self._tail.compression]

    @property
    def compression_block_size(self) -> int:
        """The most bytes any compression chunk expands to."""
        return self._tail.block_size

    @property
    def row_index_stride(self) -> int:
        """Rows per row group; 0 when the file has no row index."""
        return int(self._tail.footer.rowIndexStride)

    @property
    def file_version(self) -> str:
        """The file format version, ``"0.11"`` or ``"0.12"``."""
        version = list(self._tail.postscript.version) or [0, 11]
        return ".".join(str(v) for v in version)

    @property
    def writer(self) -> str:
        """The implementation that wrote the file: ``ORC_JAVA``, ``ORC_CPP``, ``PRESTO``, ``TRINO``, ..."""
        footer = self._tail.footer
        code = footer.writer if footer.HasField("writer") else 0
        return WRITER_NAMES.get(code, f"UNKNOWN({code})")

    @property
    def writer_version_number(self) -> int:
        """The writer version as stored: each number marks writer bugs fixed from then on."""
        return int(self._tail.postscript.writerVersion)

    @property
    def writer_version(self) -> str:
        """The writer version's name, e.g. ``ORC_135`` (timestamp statistics in UTC from here on)."""
        number = self.writer_version_number
        return WRITER_VERSION_NAMES.get(number, f"FUTURE({number})")

    @property
    def software_version(self) -> str | None:
        """The writing software's own version string, where it recorded one (e.g. ``"ORC C++ 2.1.0"``)."""
        footer = self._tail.footer
        return text_field(footer.softwareVersion) if footer.HasField("softwareVersion") else None

    @property
    def user_metadata(self) -> dict[str, bytes]:
        """Key/value pairs the writing application stored."""
        return {text_field(item.name): bytes(item.value) for item in self._tail.footer.metadata}

    @property
    def content_length(self) -> int:
        """Bytes of header and stripes, before the tail."""
        return self._tail.content_end

    @property
    def file_size(self) -> int:
        """The file's length in bytes."""
        return self._tail.file_size

    @functools.cached_property
    def encryption(self) -> Encryption | None:
        """The file's column encryption (key provider and encrypted columns), or ``None`` if it encrypts nothing.

        Raises
        ------
        OrcError
            If the footer's encryption section names a column or key that does not exist.
        """
        return read_encryption(self._tail.footer, self.schema, self._source.name)

    @property
    def encrypted_columns(self) -> list[EncryptedColumn]:
        """The columns the file encrypts (ORC 1.6+ column encryption), each with its path, key and mask.

        Each entry covers the column's whole subtree. orcjit cannot decrypt them: reads that need one raise
        :class:`OrcError` unless given ``encrypted="skip"`` (leave them out) or ``encrypted="masked"`` (their
        masked copy: nulls, redacted or hashed values, as ORC readers without the key return).
        """
        encryption = self.encryption
        return list(encryption.columns) if encryption is not None else []

    # -- statistics -----------------------------------------------------------------------------------------------

    def _decode_all(self, messages: Any) -> list[ColumnStatistics]:
        messages = list(messages)
        return [
            decode_statistics(messages[node.column_id], node)
            if node.column_id < len(messages)
            else ColumnStatistics(column_id=node.column_id, kind=node.kind)
            for node in self._columns
        ]

    @property
    def statistics(self) -> list[ColumnStatistics]:
        """File-level statistics, one entry per column id."""
        return self._decode_all(self._tail.footer.statistics)

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
        index = self._stripe_index(i)
        if self._stripe_stats is None:
            self._stripe_stats = list(self._tail.metadata().stripeStats)
        if index >= len(self._stripe_stats):
            raise OrcError(
                f"{self._source.name}: metadata holds statistics for {len(self._stripe_stats)} stripes, "
                f"not for stripe {index}"
            )
        return self._decode_all(self._stripe_stats[index].colStats)

    # -- stripes --------------------------------------------------------------------------------------------------

    def _stripe_index(self, i: int) -> int:
        if not isinstance(i, int) or isinstance(i, bool):
            raise OrcError(f"stripe index must be an int, got {type(i).__name__}")
        index = i + len(self._stripes) if i < 0 else i
        if not 0 <= index < len(self._stripes):
            raise IndexError(f"stripe {i} out of range: the file has {len(self._stripes)} stripes")
        return index

    def stripe_footer(self, i: int) -> StripeFooterInfo:
        """The footer of stripe ``i``: its streams (kind, column, offset, length), column encodings and writer
        time zone."""
        stripe = self._stripes[self._stripe_index(i)]
        return read_stripe_footer(self._source, self._tail, stripe, len(self._columns))

    def row_index(self, stripe: int, column: str | int) -> RowIndex | None:
        """The row index of ``column`` in ``stripe``: statistics and stream positions for each row group.

        Parameters
        ----------
        stripe : int
            The stripe's number (negative counts from the end).
        column : str or int
            A dotted path (``"trip.fare"``, ``"tags._elem"``) or a column id.

        Returns
        -------
        RowIndex or None
            ``None`` when the writer wrote no row index (a row index stride of 0, or no ROW_INDEX stream).

        Raises
        ------
        IndexError
            If there is no such stripe.
        OrcError
            If there is no such column, it is encrypted, or the index is corrupt.
        """
        return read_row_index(self, stripe, column)

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
        return read_bloom_filter(self, stripe, column)

    # -- rows -----------------------------------------------------------------------------------------------------

    def _decode_stripe(
        self, index: int, selection: Selection, dictionary_as_category: bool, footer: StripeFooterInfo | None = None
    ) -> dict[int, ColumnVector]:
        """Decode the selected columns of stripe ``index``: the vectors of the root's fields by column id."""
        stripe = self._stripes[index]
        if footer is None:
            footer = read_stripe_footer(self._source, self._tail, stripe, len(self._columns))
        streams = read_stripe_streams(self._source, self._tail, stripe, footer, selection.selected)
        ctx = ReadContext(streams, selection.selected, dictionary_as_category)
        return self._fields(read_column(ctx, self.schema, stripe.rows))

    def _fields(self, root: ColumnVector) -> dict[int, ColumnVector]:
        """The vectors of the root's fields by column id (the root itself when it is not a struct)."""
        if self.schema.kind != "struct":
            return {self.schema.column_id: root}
        return {vec.node.column_id: vec for vec in root.children}

    def _row_positions(
        self,
        index: int,
        footer: StripeFooterInfo,
        selection: Selection,
        indexes: dict[int, RowIndexTable] | None = None,
    ) -> Positions | None:
        """Stream positions per row group of the selected columns in stripe ``index`` (``indexes``: row indexes
        already read, by column id); ``None`` when the stripe cannot be entered by row group."""
        nodes = [node for node in self._columns if node.column_id in selection.selected]
        stripe = self._stripes[index]
        return read_row_positions(self._source, self._tail, stripe, footer, nodes, self.row_index_stride, indexes)

    def _decode_rows(
        self,
        index: int,
        selection: Selection,
        first: int,
        count: int,
        dictionary_as_category: bool,
        footer: StripeFooterInfo,
        positions: Positions | None,
    ) -> dict[int, ColumnVector]:
        """Decode rows ``[first, first + count)`` of stripe ``index`` (entered by row group with ``positions``)."""
        root = read_stripe_rows(
            self._source,
            self._tail,
            self._stripes[index],
            footer,
            self.schema,
            selection.selected,
            first,
            count,
            positions,
            self.row_index_stride,
            dictionary_as_category,
        )
        return self._fields(root)

    def _runs(self, d: StripeDecision, selection: Selection) -> list[Run]:
        """The runs of rows to decode for stripe decision ``d``: each maximal run of the row groups it keeps, or
        the whole stripe when it skips none or cannot be entered by row group."""
        stripe = self._stripes[d.index]
        footer = d.footer or read_stripe_footer(self._source, self._tail, stripe, len(self._columns))
        groups = d.row_groups
        if groups is not None and not groups.keep.all() and groups.stride > 0:
            positions = self._row_positions(d.index, footer, selection, groups.indexes)
            if positions is not None:
                runs = []
                for start, stop in kept_runs(groups.keep):
                    first = start * groups.stride
                    count = min(stop * groups.stride, stripe.rows) - first
                    runs.append(Run(stripe, first, count, footer, positions))
                return runs
        return [Run(stripe, 0, stripe.rows, footer)]

    def _gather(
        self,
        indices: Sequence[int],
        columns: Sequence[str | int] | None,
        dictionary_as_category: bool,
        filters: Any,
        workers: int = 1,
        encrypted: str = "raise",
        progress: bool = False,
    ) -> _Gathered:
        """Decode what ``filters`` keeps of stripes ``indices`` on ``workers`` threads: the output columns'
        vectors, where each decoded run of rows starts in the file and how many rows it holds, and the exact
        row masks. ``progress``: show a bar over the stripes pruning kept."""
        output = select_columns(self.schema, columns)
        predicates = normalize_filters(filters, self.schema)
        decode = output
        if predicates:
            tested = referenced_paths(predicates)
            wanted = [*output.names, *tested] if columns is not None else None
            decode = select_columns(self.schema, wanted) if wanted is not None else output
            # the chosen nested fields and the tested columns, not the whole structs holding them: the rest of a
            # struct may be encrypted
            extra = select_columns(self.schema, tested).selected if wanted is not None else decode.selected
            decode = Selection(decode.fields, decode.names, extra | output.selected)
        output, decode, pruning = guard_read(
            self.encryption, check_encrypted_mode(encrypted), self.schema, output, decode, predicates, self._source.name
        )
        _, decisions = decide(self, pruning, list(indices))
        got = _Gathered(output, bool(predicates))
        kept = [d for d in decisions if d.keep]
        if not progress:
            return self._decode_kept(got, kept, decode, predicates, dictionary_as_category, workers, None)
        with stripe_progress(len(kept), self._source.name) as bar:
            return self._decode_kept(got, kept, decode, predicates, dictionary_as_category, workers, bar)

    def _decode_kept(
        self,
        got: _Gathered,
        kept: list[StripeDecision],
        decode: Selection,
        predicates: Any,
        dictionary_as_category: bool,
        workers: int,
        bar: StripeProgress | None,
    ) -> _Gathered:
        """The decoding half of :meth:`_gather`: fill ``got`` from the stripes ``kept``, advancing ``bar`` as
        each stripe's last task finishes."""
        output = got.output
        if not decode.fields:
            # no columns to read, only rows to count
            got.first_rows = [self._stripes[d.index].first_row for d in kept]
            got.row_counts = [d.rows for d in kept]
            if bar is not None:
                bar.advance(len(kept))
            return got
        runs = [run for d in kept for run in self._runs(d, decode)]
        total = 0
        for run in runs:
            run.start = total
            total += run.count
        got.first_rows = [r.stripe.first_row + r.first for r in runs]
        got.row_counts = [r.count for r in runs]
        outputs = allocate_outputs(output.fields, total, runs, self._source.name)
        root = self.schema.column_id
        groups = [
            {root} | {n.column_id for f in g for n in f.walk() if n.column_id in decode.selected}
            for g in field_groups(decode.fields, len(runs), workers)
        ]

        def task(job: tuple[Run, set[int]]) -> dict[int, ColumnVector]:
            run, selected = job
            slices = {i: out[run.start : run.start + run.count] for i, out in outputs.items() if i in selected}
            root_vector = decode_run(
                self._source,
                self._tail,
                self.schema,
                run,
                selected,
                self.row_index_stride,
                dictionary_as_category,
                slices,
            )
            vectors = self._fields(root_vector)
            for i, target in slices.items():
                values = vectors[i].values
                if values is not None and values is not target:  # decoded elsewhere (a root with nulls)
                    np.copyto(target, values)
            if bar is not None:
                bar.task_done(run.stripe.index)
            return vectors

        jobs = [(run, selected) for run in runs for selected in groups]
        if bar is not None:
            bar.expect(run.stripe.index for run, _ in jobs)
        decoded = run_tasks(task, jobs, workers)
        per_run = [
            {k: v for part in decoded[i * len(groups) : (i + 1) * len(groups)] for k, v in part.items()}
            for i in range(len(runs))
        ]
        for node in output.fields:
            column_id = node.column_id
            if column_id in outputs:
                chunks = [vectors[column_id] for vectors in per_run]
                valid = None
                if any(c.valid is not None for c in chunks):
                    valid = np.concatenate([np.ones(c.length, bool) if c.valid is None else c.valid for c in chunks])
                got.columns.append([ColumnVector(node, total, valid, values=outputs[column_id])])
            else:
                got.columns.append([prune_vector(vectors[column_id], output.selected) for vectors in per_run])
        if predicates:
            for run, vectors in zip(runs, per_run, strict=True):
                tested_vectors = {p.node.column_id: find_vector(vectors, p.node) for g in predicates for p in g}
                got.masks.append(filters_mask(predicates, tested_vectors, run.count))
        return got

    def _frame(
        self,
        indices: Sequence[int],
        columns: Sequence[str | int] | None,
        dtype_backend: str | None,
        dictionary_as_category: bool,
        filters: Any = None,
        file_row_index: bool = False,
        workers: int = 1,
        encrypted: str = "raise",
        progress: bool = False,
    ) -> pd.DataFrame:
        backend = check_backend(dtype_backend)
        got = self._gather(indices, columns, dictionary_as_category, filters, workers, encrypted, progress)
        output = got.output
        if output.fields:
            frame = build_frame(output, got.columns, backend, dictionary_as_category=dictionary_as_category)
        else:
            # no columns, but one row per row read, as pandas.read_orc gives
            frame = pd.DataFrame(index=pd.RangeIndex(sum(got.row_counts)), columns=pd.Index([], dtype=object))
        if file_row_index and got.row_counts:
            frame.index = _file_rows(got.first_rows, got.row_counts)
        if got.filtered:
            frame = frame[got.mask()]
            if not file_row_index:
                frame = self._as_in_full_read(frame.reset_index(drop=True), output, backend)
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
    ) -> Any:
        """Read the file, or the stripes listed in ``stripes``, into a ``pyarrow.Table``.

        The table has the types ``pyarrow.orc.read_table`` gives (unions as dense unions); decoded buffers are
        handed to Arrow without copies. ``columns``, ``filters``, ``dictionary_as_category``, ``use_threads``,
        ``max_workers``, ``encrypted`` and ``progress`` are as in :func:`orcjit.read_orc`.

        Raises
        ------
        IndexError
            If a stripe number is out of range, as :meth:`read_stripe`.
        OrcError
            As :meth:`read`.
        ImportError
            If pyarrow is not installed.
        """
        import pyarrow as pa

        workers = workers_for(use_threads, max_workers)
        check_progress(progress)
        indices = range(self.nstripes) if stripes is None else [self._stripe_index(i) for i in stripes]
        got = self._gather(indices, columns, dictionary_as_category, filters, workers, encrypted, progress)
        table = build_table(got.output, got.columns, dictionary_as_category=dictionary_as_category)
        if not got.output.fields:
            table = pa.table({"_": pa.nulls(sum(got.row_counts))}).drop_columns(["_"])  # rows, no columns
        return table.filter(pa.array(got.mask())) if got.filtered else table

    def _as_in_full_read(self, frame: pd.DataFrame, output: Selection, backend: str) -> pd.DataFrame:
        """Give pruned results the dtypes a full read has: with NumPy dtypes an integer or boolean column that
        holds nulls anywhere in the file is float or object, even when the stripes read have none."""
        if backend != "numpy":
            return frame
        for name, node in zip(output.names, output.fields, strict=True):
            if node.kind not in ("boolean", "tinyint", "smallint", "int", "bigint"):
                continue
            stats = self.statistics[node.column_id]
            nullable = stats.has_null is True or (stats.count is not None and stats.count < self.nrows)
            dtype = frame[name].dtype
            if nullable and dtype.kind in "iu":
                frame[name] = frame[name].astype(np.float64)
            elif nullable and dtype.kind == "b":
                frame[name] = frame[name].astype(object)
        return frame

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
    ) -> pd.DataFrame:
        """Read the whole file into a DataFrame; arguments as in :func:`orcjit.read_orc`."""
        workers = workers_for(use_threads, max_workers)
        check_progress(progress)
        return self._frame(
            range(self.nstripes),
            columns,
            dtype_backend,
            dictionary_as_category,
            filters,
            workers=workers,
            encrypted=encrypted,
            progress=progress,
        )

    def read_rows(
        self,
        start: int,
        stop: int,
        columns: Sequence[str | int] | None = None,
        dtype_backend: str | None = None,
        *,
        dictionary_as_category: bool = False,
        encrypted: str = "raise",
    ) -> pd.DataFrame:
        """Read rows ``[start, stop)`` of the file into a DataFrame whose index holds the rows' file numbers.

        Each stripe the range touches is entered with the row index at the row group holding its first row
        there; the rows before it in that group are skipped, not decoded, and the streams are fetched only up to
        about the row group after the last row. Stripes of files without a row index are decoded from their
        first row. A range past the file's end reads what there is of it. ``encrypted`` is as in
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
        backend = check_backend(dtype_backend)
        output = select_columns(self.schema, columns)
        output, _, _ = guard_read(
            self.encryption, check_encrypted_mode(encrypted), self.schema, output, output, None, self._source.name
        )
        if not output.fields:
            # no columns, but one row per row in the range, as read() gives
            return pd.DataFrame(index=pd.RangeIndex(start, stop), columns=pd.Index([], dtype=object))
        parts: list[list[ColumnVector]] = []
        for stripe in self._stripes:
            lo, hi = max(start, stripe.first_row), min(stop, stripe.first_row + stripe.rows)
            if lo >= hi:
                continue
            footer = read_stripe_footer(self._source, self._tail, stripe, len(self._columns))
            first, count = lo - stripe.first_row, hi - lo
            if count == stripe.rows:
                vectors = self._decode_stripe(stripe.index, output, dictionary_as_category, footer)
            else:
                positions = self._row_positions(stripe.index, footer, output)
                vectors = self._decode_rows(
                    stripe.index, output, first, count, dictionary_as_category, footer, positions
                )
            parts.append([vectors[f.column_id] for f in output.fields])
        columns_read = [[part[i] for part in parts] for i in range(len(output.fields))]
        frame = build_frame(output, columns_read, backend, dictionary_as_category=dictionary_as_category)
        frame.index = pd.RangeIndex(start, start + len(frame)) if parts else pd.RangeIndex(start, start)
        return frame

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
    ) -> pd.DataFrame:
        """Read stripe ``i`` into a DataFrame whose index holds the rows' numbers in the file; its columns are
        decoded in parallel unless ``use_threads=False``."""
        index = self._stripe_index(i)
        workers = workers_for(use_threads, max_workers)
        return self._frame(
            [index],
            columns,
            dtype_backend,
            dictionary_as_category,
            filters,
            file_row_index=True,
            workers=workers,
            encrypted=encrypted,
        )

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
    ) -> Iterator[pd.DataFrame]:
        """Yield one DataFrame per stripe, indexed by file row number; memory is bounded by one stripe.

        With ``filters``, stripes that cannot match are skipped and each DataFrame holds the matching rows.
        Each stripe's columns are decoded in parallel unless ``use_threads=False``. ``progress=True`` shows a
        bar over all the file's stripes (pruning is decided stripe by stripe as the iteration goes), advanced
        as each is read or skipped; it closes when the iteration ends, stops early or raises.
        """
        workers_for(use_threads, max_workers)  # a wrong max_workers fails before the first stripe
        check_progress(progress)
        check_backend(dtype_backend)
        # wrong arguments, and reads that need encrypted columns, fail before the first stripe
        output = select_columns(self.schema, columns)
        predicates = normalize_filters(filters, self.schema)
        tested = {p.node.column_id for group in predicates or [] for p in group}
        decode = Selection(output.fields, output.names, output.selected | tested)
        guard_read(
            self.encryption, check_encrypted_mode(encrypted), self.schema, output, decode, predicates, self._source.name
        )
        bar = stripe_progress(self.nstripes, self._source.name) if progress else None
        try:
            for stripe in self._stripes:
                frame = self.read_stripe(
                    stripe.index,
                    columns,
                    dtype_backend,
                    filters=filters,
                    dictionary_as_category=dictionary_as_category,
                    use_threads=use_threads,
                    max_workers=max_workers,
                    encrypted=encrypted,
                )
                if bar is not None:
                    bar.advance()
                if filters is None or len(frame):
                    yield frame
        finally:
            if bar is not None:
                bar.close()

    def explain(self, filters: Any, columns: Sequence[str | int] | None = None) -> Explanation:
        """What a read with ``filters`` would skip, and why.

        Returns an :class:`~orcjit.pushdown.plan.Explanation`: the file-level verdict, each stripe kept or
        skipped (by file statistics, stripe statistics, or because statistics and bloom filters ruled out
        every row group), row groups kept and skipped per stripe, and the bytes the read would fetch for
        ``columns`` against the file size: whole streams of the stripes read whole, and for stripes entered by
        row group the row indexes to seek with and each run of kept row groups' byte ranges (a run ending inside
        a compression chunk may fetch one chunk more). ``str()`` of it is a readable report.
        """
        predicates = normalize_filters(filters, self.schema)
        selection = select_columns(self.schema, columns)
        if predicates:
            selection = Selection(
                selection.fields,
                selection.names,
                selection.selected | select_columns(self.schema, referenced_paths(predicates)).selected,
            )
        # as reads do, statistics of encrypted columns (which describe the masked copy at best) prune nothing
        return explain(self, pruning_filters(self.encryption, predicates), selection.selected)

    # -- lifetime -------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file if this object opened it (a file object passed in stays open)."""
        if getattr(self, "_owns_source", False):
            self._source.close()
            self._owns_source = False

    def __enter__(self) -> ORCFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<orcjit.ORCFile {self._source.name!r} rows={self.nrows} stripes={self.nstripes} "
            f"compression={self.compression} schema={self.schema}>"
        )


def _file_rows(first_rows: Sequence[int], counts: Sequence[int]) -> pd.Index:
    """The file row numbers of runs of rows: a RangeIndex when the runs follow each other (no array of the rows,
    whose count a hostile file declares), else the runs' numbers."""
    if all(first_rows[i] + counts[i] == first_rows[i + 1] for i in range(len(first_rows) - 1)):
        return pd.RangeIndex(first_rows[0], first_rows[-1] + counts[-1])
    return pd.Index(np.concatenate([np.arange(r, r + n) for r, n in zip(first_rows, counts, strict=True)]))
