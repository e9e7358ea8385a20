"""Spark partitions of a read: runs of stripes, balanced by bytes, each read by one Python worker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql.datasource import InputPartition

__all__ = ["OrcjitPartition", "plan_partitions"]


class OrcjitPartition(InputPartition):
    """Stripes to read: ``pieces`` lists ``(path, [stripe index, ...])``; ``nbytes`` is their stripe data.

    ``file_filters`` holds, by path, the pushed filters left for each file once its partition values have decided
    the tests on partition columns (``None``: every row passes); a file it does not name takes the reader's.
    """

    def __init__(
        self,
        pieces: list[tuple[str, list[int]]],
        nbytes: int,
        file_filters: dict[str, list[list[tuple[Any, ...]]] | None] | None = None,
    ) -> None:
        self.pieces = pieces
        self.nbytes = nbytes
        self.file_filters = file_filters or {}


def plan_partitions(units: Sequence[tuple[str, int, int]], count: int) -> list[OrcjitPartition]:
    """Cut ``(path, stripe, bytes)`` units, in order, into ``min(count, len(units))`` contiguous runs of about
    equal bytes.

    Runs are cut greedily: a run ends before the unit whose middle would take it past its share (the bytes left
    over the runs left), and wherever the units left are only enough for one run each. Runs stay in file and
    stripe order, so each reads ranges of stripes.
    """
    if not units:
        return []
    count = max(1, min(count, len(units)))
    groups: list[list[tuple[str, int, int]]] = [[]]
    left = sum(u[2] for u in units)
    done = 0  # bytes of the current run
    for i, unit in enumerate(units):
        runs_left = count - len(groups) + 1  # the current run included
        if groups[-1] and runs_left > 1:
            share = left / runs_left
            if len(units) - i < runs_left or done + unit[2] / 2 > share:
                left -= done
                groups.append([])
                done = 0
        groups[-1].append(unit)
        done += unit[2]
    out = []
    for group in groups:
        pieces: list[tuple[str, list[int]]] = []
        for path, stripe, _ in group:
            if pieces and pieces[-1][0] == path:
                pieces[-1][1].append(stripe)
            else:
                pieces.append((path, [stripe]))
        out.append(OrcjitPartition(pieces, sum(u[2] for u in group)))
    return out
