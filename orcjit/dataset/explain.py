"""What a filtered read of a dataset skips and why: files by partition values (decided on the folder names,
without opening the file) or by missing columns, then within each file read, as for one file, by file statistics,
stripe statistics, row-group statistics and bloom filters; and the bytes the read fetches."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..pushdown.filters import describe, normalize_filters
from ..pushdown.plan import Explanation, explain
from ..reading.plan import plan_read
from .files import DatasetMeta
from .scan import SKIP, plan_files, resolve_nodes

__all__ = ["DatasetExplanation", "explain_dataset"]


@dataclass
class FileExplanation:
    """One file: skipped before opening (``skipped_by``), or what its read skips (``explanation``)."""

    path: str
    rows: int
    size: int
    partition: dict[str, Any]
    skipped_by: str | None = None
    explanation: Explanation | None = None

    @property
    def read(self) -> bool:
        return self.explanation is not None and self.explanation.file_verdict != "no"


@dataclass
class DatasetExplanation:
    """What a filtered read of a dataset skips and why; ``str()`` gives a readable report, ``to_dict()`` a
    JSON-friendly one."""

    filters: str
    files: list[FileExplanation] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        stripes = [d for f in self.files if f.explanation for d in f.explanation.stripes]
        groups = [d.row_groups for d in stripes if d.row_groups is not None]
        skipped: dict[str, int] = {}
        for f in self.files:
            if f.skipped_by:
                skipped[f.skipped_by] = skipped.get(f.skipped_by, 0) + 1
            elif f.explanation is not None and f.explanation.file_verdict == "no":
                skipped["file statistics"] = skipped.get("file statistics", 0) + 1
        return {
            "filters": self.filters,
            "files": len(self.files),
            "files_read": sum(f.read for f in self.files),
            "files_skipped_by": skipped,
            "stripes": sum(len(f.explanation.stripes) for f in self.files if f.explanation),
            "stripes_read": sum(d.keep for d in stripes),
            "row_groups": sum(len(g.keep) for g in groups),
            "row_groups_kept": sum(int(g.keep.sum()) for g in groups),
            "rows": sum(f.rows for f in self.files),
            "rows_in_stripes_read": sum(d.rows for d in stripes if d.keep),
            "bytes_to_read": sum(f.explanation.bytes_to_read for f in self.files if f.read and f.explanation),
            "index_bytes_read": sum(f.explanation.index_bytes for f in self.files if f.explanation),
            "bytes": sum(f.size for f in self.files),
            "file_details": [
                {
                    "path": f.path,
                    "rows": f.rows,
                    "partition": {k: str(v) if v is not None else None for k, v in f.partition.items()},
                    **({"skipped_by": f.skipped_by} if f.skipped_by else {}),
                    **(f.explanation.to_dict() if f.explanation else {}),
                }
                for f in self.files
            ],
        }

    def __str__(self) -> str:
        info = self.to_dict()
        why = ", ".join(f"{n} by {reason}" for reason, n in info["files_skipped_by"].items()) or "none"
        pct = 100.0 * info["bytes_to_read"] / info["bytes"] if info["bytes"] else 0.0
        lines = [
            f"filters: {self.filters}",
            f"files read: {info['files_read']} of {info['files']} (skipped: {why})",
            f"stripes read: {info['stripes_read']} of {info['stripes']} in the files opened; row groups kept: "
            f"{info['row_groups_kept']} of {info['row_groups']} in the stripes entered by row group",
            f"rows in stripes read: {info['rows_in_stripes_read']} of {info['rows']}",
            f"bytes: {info['bytes_to_read']} of {info['bytes']} ({pct:.1f}%) to read the selected columns, "
            f"{info['index_bytes_read']} of indexes read to decide",
        ]
        for f in self.files:
            part = "".join(f" {k}={v}" for k, v in f.partition.items())
            if f.skipped_by:
                lines.append(f"  {f.path}{part}: {f.rows} rows, skipped by {f.skipped_by}")
            elif f.explanation is not None:
                e = f.explanation
                kept = sum(d.keep for d in e.stripes)
                verdict = (
                    "skipped by file statistics"
                    if e.file_verdict == "no"
                    else f"stripes read {kept} of {len(e.stripes)}"
                )
                lines.append(f"  {f.path}{part}: {f.rows} rows, {verdict}")
        return "\n".join(lines)


def explain_dataset(dataset: DatasetMeta, filters: Any, columns: Any = None) -> DatasetExplanation:
    """Plan a read of ``columns`` with ``filters`` and explain it, opening only the files the partition values
    and missing columns leave."""
    nodes = resolve_nodes(dataset.schema, columns)
    predicates = normalize_filters(filters, dataset.schema)
    out = DatasetExplanation(describe(predicates))
    for plan in plan_files(dataset, nodes, predicates):
        meta = dataset.metas[plan.index]
        item = FileExplanation(
            dataset.paths[plan.index],
            meta.nrows,
            dataset.discovered.files[plan.index].size,
            dataset.partition_values(plan.index),
        )
        if plan.filters == SKIP:
            item.skipped_by = plan.reason
        else:
            with dataset.opened(plan.index) as opened:
                file_plan = plan_read(opened, plan.columns, plan.filters, "masked")
                item.explanation = explain(opened, file_plan.pruning, file_plan.decode.selected)
        out.files.append(item)
    return out
