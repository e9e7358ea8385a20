"""``FileMeta``: what the layers below the API know of an open file, as plain data.

The scan (:mod:`orcjit.reading`), pruning (:mod:`orcjit.pushdown`) and the index objects (:mod:`orcjit.indexes`)
take a :class:`FileMeta`, never an :class:`~orcjit.ORCFile`: the byte source, the parsed tail, the schema, the
stripes, the row index stride and the writer, with the statistics and stripe footers derived from them on demand.
:class:`~orcjit.ORCFile` is the API over one.

It may import the byte, tail, stripe, type, statistics and encryption modules, nothing above them.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .encryption import Encryption, read_encryption
from .errors import OrcError
from .sources import ByteSource, open_source
from .statistics import ColumnStatistics, decode_statistics
from .stripes import StripeFooterInfo, StripeInfo, read_stripe_footer, stripe_infos
from .tail import FileTail, read_tail, text_field
from .types.schema import TypeNode, build_schema

__all__ = ["WRITER_NAMES", "WRITER_VERSION_NAMES", "FileMeta", "open_file"]

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


@dataclass(eq=False)
class FileMeta:
    """An open ORC file's metadata.

    Attributes
    ----------
    source : ByteSource
        Where the bytes come from.
    tail : FileTail
        PostScript, Footer and the still compressed Metadata section.
    schema : TypeNode
        The type tree.
    stripes : tuple of StripeInfo
        Each stripe's offset, section lengths, rows and first row.
    stride : int
        Rows per row group; 0 when the file has no row index.
    writer : str
        ``ORC_JAVA``, ``ORC_CPP``, ... (``UNKNOWN(n)`` for codes orcjit does not know).
    writer_version : int
        The PostScript's writer version number.
    software_version : str or None
        The writing software's own version string, where it recorded one.
    """

    source: ByteSource
    tail: FileTail
    schema: TypeNode
    stripes: tuple[StripeInfo, ...]
    stride: int
    writer: str
    writer_version: int
    software_version: str | None
    _stripe_stats: list[Any] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def name(self) -> str:
        """The file's name, as errors call it."""
        return self.source.name

    @property
    def nrows(self) -> int:
        """Rows in the file: the stripes' rows, which agree with the footer's count where it has one."""
        return sum(s.rows for s in self.stripes)

    @property
    def ncolumns(self) -> int:
        """Columns in the schema tree, the root included."""
        return self.schema.max_column_id + 1

    @property
    def compressed(self) -> bool:
        """Whether streams are stored in compression chunks."""
        return bool(self.tail.compression)

    @functools.cached_property
    def encryption(self) -> Encryption | None:
        """The file's column encryption, or ``None`` if it encrypts nothing."""
        return read_encryption(self.tail.footer, self.schema, self.name)

    def stripe_footer(self, index: int) -> StripeFooterInfo:
        """The footer of stripe ``index`` (a valid index), read and checked."""
        return read_stripe_footer(self.source, self.tail, self.stripes[index], self.ncolumns)

    @functools.cached_property
    def statistics(self) -> list[ColumnStatistics]:
        """File-level statistics, one entry per column id."""
        return self._decode_all(self.tail.footer.statistics)

    def stripe_statistics(self, index: int) -> list[ColumnStatistics]:
        """Statistics of stripe ``index``, one entry per column id.

        Raises
        ------
        OrcError
            If the metadata section is corrupt or holds no statistics for that stripe.
        """
        with self._lock:
            if self._stripe_stats is None:
                self._stripe_stats = list(self.tail.metadata().stripeStats)
        stats = self._stripe_stats
        if index >= len(stats):
            raise OrcError(f"{self.name}: metadata holds statistics for {len(stats)} stripes, not for stripe {index}")
        return self._decode_all(stats[index].colStats)

    def column_statistics(self, column_ids: Iterable[int], index: int | None = None) -> dict[int, ColumnStatistics]:
        """The file's statistics (or stripe ``index``'s) of ``column_ids`` only, by column id: what pruning and a
        filtered read need of a wide file, decoded as :attr:`statistics` and :meth:`stripe_statistics` decode them.

        Raises
        ------
        OrcError
            As :meth:`stripe_statistics`.
        """
        if index is None:
            if "statistics" in self.__dict__:
                return {i: self.statistics[i] for i in column_ids}
            messages = self.tail.footer.statistics
        else:
            with self._lock:
                if self._stripe_stats is None:
                    self._stripe_stats = list(self.tail.metadata().stripeStats)
            if index >= len(self._stripe_stats):
                self.stripe_statistics(index)  # raises
            messages = self._stripe_stats[index].colStats
        nodes = self._nodes
        return {
            i: decode_statistics(messages[i], nodes[i])
            if i < len(messages)
            else ColumnStatistics(column_id=i, kind=nodes[i].kind)
            for i in column_ids
        }

    @functools.cached_property
    def _nodes(self) -> dict[int, TypeNode]:
        return {node.column_id: node for node in self.schema.walk()}

    def _decode_all(self, messages: Any) -> list[ColumnStatistics]:
        messages = list(messages)
        return [
            decode_statistics(messages[node.column_id], node)
            if node.column_id < len(messages)
            else ColumnStatistics(column_id=node.column_id, kind=node.kind)
            for node in self.schema.walk()
        ]


def open_file(source: Any, filesystem: Any = None) -> tuple[FileMeta, bool]:
    """Open ``source`` and read its tail: the file's :class:`FileMeta`, and whether the caller owns (and must
    close) the byte source.

    Raises
    ------
    OrcError
        If the file is empty, not ORC, truncated or corrupt in its tail.
    """
    byte_source, owned = open_source(source, filesystem)
    try:
        tail = read_tail(byte_source)
        footer = tail.footer
        try:
            schema = build_schema(footer.types)
        except OrcError as exc:
            raise OrcError(f"{byte_source.name}: footer: {exc}") from None
    except BaseException:
        if owned:
            byte_source.close()
        raise
    code = footer.writer if footer.HasField("writer") else 0
    meta = FileMeta(
        source=byte_source,
        tail=tail,
        schema=schema,
        stripes=tuple(stripe_infos(footer)),
        stride=int(footer.rowIndexStride),
        writer=WRITER_NAMES.get(code, f"UNKNOWN({code})"),
        writer_version=int(tail.postscript.writerVersion),
        software_version=text_field(footer.softwareVersion) if footer.HasField("softwareVersion") else None,
    )
    return meta, owned
