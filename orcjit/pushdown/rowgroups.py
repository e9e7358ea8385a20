"""Row-group pruning: the row index's statistics, then bloom filters for ``==`` and ``in`` where statistics said
maybe."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._proto import orc_proto_pb2 as pb
from ..errors import OrcError
from ..kernels.bloom import (
    bloom_filter_reliable,
    filters_may_contain,
    hash_candidates,
    parse_bloom_filter_index,
    stack_filters,
)
from ..statistics import decode_statistics
from ..stripes import StripeFooterInfo, StripeInfo
from ..tail import FileTail, parse_message
from .filters import INTEGER_KINDS, Filters, Predicate
from .prune import MAYBE, NO, conjunction, disjunction, evaluate_predicate

ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8 = 6, 7, 8


@dataclass
class RowGroupVerdict:
    """What pruning decided for the row groups of one stripe.

    ``keep[g]`` says whether row group ``g`` may hold a match; ``reasons[g]`` why it was skipped
    ("statistics" or "bloom filter"); ``index_bytes`` how much index data was read to decide.
    """

    keep: np.ndarray
    reasons: list[str | None]
    stride: int
    index_bytes: int = 0
    bloom_groups: int = 0
    notes: list[str] = field(default_factory=list)


def _read_stream(source: Any, tail: FileTail, stripe: StripeInfo, s: Any) -> bytes:
    raw = source.read(s.offset, s.length)
    what = f"{source.name}: stripe {stripe.index}, column {s.column} {s.kind_name} stream at offset {s.offset}"
    return tail.decompress(raw, what) if tail.compression else raw


def evaluate_row_groups(
    source: Any,
    tail: FileTail,
    stripe: StripeInfo,
    footer: StripeFooterInfo,
    filters: Filters,
    stride: int,
    writer: str,
    writer_version: int,
    trusted: Any,
    use_bloom: bool = True,
) -> RowGroupVerdict | None:
    """Decide each row group of ``stripe``; ``None`` when the stripe has no usable row index."""
    if stride <= 0 or stripe.rows <= 0:
        return None
    groups = (stripe.rows + stride - 1) // stride
    columns = {p.node.column_id: p.node for group in filters for p in group}
    streams = {(s.column, s.kind): s for s in footer.streams if s.column in columns}
    index_bytes = 0
    entries: dict[int, list[Any]] = {}
    for column in columns:
        s = streams.get((column, ROW_INDEX))
        if s is None:
            continue
        msg = parse_message(pb.RowIndex, _read_stream(source, tail, stripe, s), f"{source.name}: row index")
        index_bytes += s.length
        if len(msg.entry) != groups:
            # an index that does not describe this stripe's row groups says nothing
            continue
        entries[column] = list(msg.entry)
    if not entries:
        return None

    blooms: dict[int, tuple[Any, int]] = {}
    bloom_columns = {p.node.column_id for group in filters for p in group if p.op in ("==", "in")}
    if not use_bloom:
        bloom_columns = set()
    for column in bloom_columns:
        node = columns[column]
        for kind in (BLOOM_FILTER_UTF8, BLOOM_FILTER):
            s = streams.get((column, kind))
            if s is None or not bloom_filter_reliable(node.kind, writer, writer_version, kind):
                continue
            try:
                parsed = parse_bloom_filter_index(_read_stream(source, tail, stripe, s), "bloom filter index")
            except OrcError:
                continue  # a filter that cannot be read rules nothing out
            index_bytes += s.length
            if len(parsed) == groups:
                blooms[column] = (stack_filters(parsed), kind)
                break

    # per predicate with a bloom filter: which row groups it rules out, tested once for all groups
    ruled_out: dict[int, np.ndarray] = {}
    for conj in filters:
        for p in conj:
            if p.op in ("==", "in") and p.node.column_id in blooms and id(p) not in ruled_out:
                ruled_out[id(p)] = _bloom_rules_out(p, blooms[p.node.column_id][0], groups)

    verdicts = np.empty((groups,), dtype=np.int8)
    reasons: list[str | None] = [None] * groups
    bloom_groups = 0
    for g in range(groups):
        rows = min(stride, stripe.rows - g * stride)
        by_stats = []
        by_bloom = []
        for conj in filters:
            s_terms, b_terms = [], []
            for p in conj:
                entry = entries.get(p.node.column_id)
                tv = MAYBE
                if entry is not None and trusted(p.node.kind) and entry[g].HasField("statistics"):
                    tv = evaluate_predicate(p, decode_statistics(entry[g].statistics, p.node), rows)
                s_terms.append(tv)
                if tv == MAYBE and id(p) in ruled_out and ruled_out[id(p)][g]:
                    b_terms.append(NO)
                else:
                    b_terms.append(tv)
            by_stats.append(conjunction(s_terms))
            by_bloom.append(conjunction(b_terms))
        stats_verdict = disjunction(by_stats)
        final = disjunction(by_bloom)
        verdicts[g] = final
        if final == NO:
            reasons[g] = "statistics" if stats_verdict == NO else "bloom filter"
            bloom_groups += stats_verdict != NO
    return RowGroupVerdict(verdicts != NO, reasons, stride, index_bytes, bloom_groups)


def _bloom_rules_out(p: Predicate, stacked: Any, groups: int) -> np.ndarray:
    """Per row group: do the bloom filters say none of the predicate's values is there?"""
    hashes: list[int] = []
    for value in p.values:
        try:
            candidates = hash_candidates(value, p.node.kind)
        except OrcError:
            if p.node.kind in INTEGER_KINDS:
                continue  # a fraction, or a number beyond a long: no row of an integer column holds it
            return np.zeros(groups, dtype=np.bool_)  # a value that cannot be hashed rules nothing out
        if candidates is None:
            return np.zeros(groups, dtype=np.bool_)
        hashes.extend(candidates)
    return ~filters_may_contain(stacked, hashes)
