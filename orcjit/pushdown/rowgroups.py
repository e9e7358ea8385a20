"""Row-group pruning: the row index's statistics, then bloom filters for ``==`` and ``in`` where statistics said
maybe.

Only the tested columns' index streams are read, each once; a bloom filter stream only when statistics leave some
row group open for a predicate it can rule on, tested in place on its bytes for every row group in one kernel call.
The row indexes read here serve the read's seeking too (:attr:`RowGroupVerdict.indexes`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..compression import HEADER_SIZE, iter_chunks
from ..errors import OrcError
from ..filemeta import FileMeta
from ..kernels.bloom import (
    bloom_filter_index_may_contain,
    bloom_filter_reliable,
    chunked_bloom_filter_index_may_contain,
    hash_candidates,
)
from ..kernels.row_index import RowIndexTable, parse_row_index
from ..stripes import BLOOM_FILTER, BLOOM_FILTER_UTF8, ROW_INDEX, StreamInfo, StripeFooterInfo, StripeInfo
from ..tail import MAX_MESSAGE_SIZE, FileTail
from ..types.kinds import INTEGER_KINDS
from .filters import Filters, Predicate
from .group_statistics import GroupStatistics
from .prune import MAYBE, NO, YES


@dataclass
class RowGroupVerdict:
    """What pruning decided for the row groups of one stripe.

    ``keep[g]`` says whether row group ``g`` may hold a match; ``reasons[g]`` why it was skipped
    ("statistics" or "bloom filter"); ``index_bytes`` how much index data was read to decide; ``indexes`` the row
    indexes read, by column id, for the read to seek with.
    """

    keep: np.ndarray
    reasons: list[str | None]
    stride: int
    index_bytes: int = 0
    bloom_groups: int = 0
    notes: list[str] = field(default_factory=list)
    indexes: dict[int, RowIndexTable] = field(default_factory=dict)


def kept_runs(keep: np.ndarray) -> list[tuple[int, int]]:
    """``[start, stop)`` of each maximal run of kept row groups (True in ``keep``): what a read decodes at once."""
    padded = np.concatenate([[False], keep.astype(bool), [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def read_index_stream(source: Any, tail: FileTail, stripe: StripeInfo, s: StreamInfo) -> bytes | memoryview:
    """An index stream (row index, bloom filter index) of ``stripe``, decompressed."""
    raw = source.read(s.offset, s.length)
    what = f"{source.name}: stripe {stripe.index}, column {s.column} {s.kind_name} stream at offset {s.offset}"
    return tail.decompress_message(raw, what) if tail.compression else raw


def evaluate_row_groups(
    meta: FileMeta,
    stripe: StripeInfo,
    footer: StripeFooterInfo,
    filters: Filters,
    trusted: Any,
    use_bloom: bool = True,
) -> RowGroupVerdict | None:
    """Decide each row group of ``stripe``; ``None`` when the stripe has no usable row index."""
    source, tail, stride = meta.source, meta.tail, meta.stride
    writer, writer_version = meta.writer, meta.writer_version
    if stride <= 0 or stripe.rows <= 0:
        return None
    groups = (stripe.rows + stride - 1) // stride
    columns = {p.node.column_id: p.node for group in filters for p in group}
    streams = {(s.column, s.kind): s for s in footer.streams if s.column in columns}
    index_bytes = 0
    parsed: dict[int, RowIndexTable] = {}
    for column in columns:
        s = streams.get((column, ROW_INDEX))
        if s is None:
            continue
        what = f"{source.name}: stripe {stripe.index}, column {column}"
        # an index that does not describe this stripe's row groups says nothing
        table = parse_row_index(read_index_stream(source, tail, stripe, s), what, entries=groups)
        index_bytes += s.length
        if table is not None:
            parsed[column] = table
    if not parsed:
        return None
    # only now is the number of row groups backed by bytes (an index entry per group): the stripe's rows are not
    rows = np.minimum(stride, stripe.rows - stride * np.arange(groups, dtype=np.int64))
    tables = {column: GroupStatistics(table, columns[column], rows) for column, table in parsed.items()}

    # statistics first, once per predicate: bloom filters are read only for what they leave open
    verdicts: dict[int, np.ndarray] = {}
    for conj in filters:
        for p in conj:
            if id(p) not in verdicts:
                table = tables.get(p.node.column_id)
                usable = table is not None and trusted(p.node)
                verdicts[id(p)] = table.evaluate(p) if usable else np.full(groups, MAYBE, np.int8)

    # a Hive 0.11 decimal's filter hashes the value as stored, not as read (brought to a scale)
    bloom_columns = {
        p.node.column_id for group in filters for p in group if p.op in ("==", "in") and not p.node.hive11_decimal
    }
    if not use_bloom:
        bloom_columns = set()
    blooms: dict[int, BloomStream | None] = {}

    def bloom_answer(column: int, hashes: list[int]) -> np.ndarray | None:
        """Per row group: may any of ``hashes`` be in the column's bloom filters? ``None`` when it has none that
        can be read. The first stream (BLOOM_FILTER_UTF8, then BLOOM_FILTER) that reads as one filter per row
        group serves every predicate on the column; it is read once."""
        nonlocal index_bytes
        if column in blooms:
            found = blooms[column]
            return None if found is None else found.may_contain(hashes)
        blooms[column] = None
        node = columns[column]
        for kind in (BLOOM_FILTER_UTF8, BLOOM_FILTER):
            s = streams.get((column, kind))
            if s is None or not bloom_filter_reliable(node.kind, writer, writer_version, kind):
                continue
            what = f"{source.name}: stripe {stripe.index}, column {column} bloom filter index"
            try:
                found = BloomStream(source.read(s.offset, s.length), tail, what)
                answer = found.may_contain(hashes)
            except OrcError:
                continue  # a filter that cannot be read rules nothing out
            index_bytes += s.length
            if len(answer) == groups:  # else it describes something else
                blooms[column] = found
                return answer
        return None

    # per predicate with a bloom filter, where statistics leave a row group open: which groups it rules out, all
    # tested at once on the stream's bytes
    ruled_out: dict[int, np.ndarray] = {}
    for conj in filters:
        for p in conj:
            column = p.node.column_id
            if p.op not in ("==", "in") or column not in bloom_columns or id(p) in ruled_out:
                continue
            if not (verdicts[id(p)] == MAYBE).any():
                continue
            hashes = _bloom_hashes(p)
            answer = None if hashes is None else bloom_answer(column, hashes)
            if answer is not None:
                ruled_out[id(p)] = ~answer

    by_stats = np.full(groups, NO, dtype=np.int8)
    by_bloom = np.full(groups, NO, dtype=np.int8)
    for conj in filters:
        s_conj = np.full(groups, YES, dtype=np.int8)
        b_conj = np.full(groups, YES, dtype=np.int8)
        for p in conj:
            tv = verdicts[id(p)]
            np.minimum(s_conj, tv, out=s_conj)
            if id(p) in ruled_out:
                tv = np.where((tv == MAYBE) & ruled_out[id(p)], NO, tv).astype(np.int8)
            np.minimum(b_conj, tv, out=b_conj)
        np.maximum(by_stats, s_conj, out=by_stats)
        np.maximum(by_bloom, b_conj, out=by_bloom)
    pruned = by_bloom == NO
    by_bloom_only = pruned & (by_stats != NO)
    reasons: list[str | None] = [
        None if not cut else ("bloom filter" if bloom else "statistics")
        for cut, bloom in zip(pruned.tolist(), by_bloom_only.tolist(), strict=True)
    ]
    indexes = {column: t.table for column, t in tables.items()}
    return RowGroupVerdict(~pruned, reasons, stride, index_bytes, int(by_bloom_only.sum()), indexes=indexes)


class BloomStream:
    """One column's bloom filter index in one stripe as stored, tested where its chunks lie when they are all
    original, as bloom filter bits always are (:func:`~orcjit.kernels.bloom.chunked_bloom_filter_index_may_contain`:
    no copy to join them); else decompressed once and tested on the joined bytes.

    Raises
    ------
    OrcError
        If the chunks' framing is broken (from the constructor), or as
        :func:`~orcjit.kernels.bloom.bloom_filter_index_may_contain` (from :meth:`may_contain`).
    """

    def __init__(self, stored: bytes, tail: FileTail, what: str) -> None:
        self.stored = stored
        self.tail = tail
        self.what = what
        self._joined: bytes | memoryview | None = None
        self._chunks: tuple[np.ndarray, np.ndarray, int] | None = None
        if tail.compression:
            starts, offsets, size = [], [], 0
            for pos, is_original, chunk in iter_chunks(stored, tail.block_size, what):
                if not is_original:
                    break
                starts.append(size)
                offsets.append(pos + HEADER_SIZE)
                size += len(chunk)
            else:
                if size <= MAX_MESSAGE_SIZE:
                    self._chunks = np.array(starts, dtype=np.int64), np.array(offsets, dtype=np.int64), size
        else:
            self._joined = stored

    def may_contain(self, hashes: Sequence[int] | None) -> np.ndarray:
        """Per row group: may any of ``hashes`` be there (``None``: all True)?"""
        if self._chunks is not None:
            starts, offsets, size = self._chunks
            got = chunked_bloom_filter_index_may_contain(self.stored, starts, offsets, size, hashes, self.what)
            if got is not None:
                return got
            self._chunks = None  # not a message that kernel reads: joined, once
        if self._joined is None:
            self._joined = self.tail.decompress_message(self.stored, self.what)
        return bloom_filter_index_may_contain(self._joined, hashes, self.what)


def _bloom_hashes(p: Predicate) -> list[int] | None:
    """The hashes whose absence from a row group's bloom filter rules ``p`` out there; ``None`` when a value cannot
    be ruled out by any filter (it cannot be hashed, or is NaN)."""
    hashes: list[int] = []
    for value in p.values:
        try:
            candidates = hash_candidates(value, p.node.kind)
        except OrcError:
            if p.node.kind in INTEGER_KINDS:
                continue  # a fraction, or a number beyond a long: no row of an integer column holds it
            return None
        if candidates is None:
            return None
        hashes.extend(candidates)
    return hashes
