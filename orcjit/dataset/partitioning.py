# TEMPORARY STUB (helper writes the real module)
from __future__ import annotations
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True)
class PartitionColumn:
    name: str
    kind: str
    precision: int | None = None
    scale: int | None = None

    def type_string(self) -> str:
        return f"decimal({self.precision},{self.scale})" if self.kind == "decimal" else self.kind


def partition_segments(relative_dir):
    out = []
    for part in relative_dir.split("/"):
        if "=" in part:
            k, v = part.split("=", 1)
            out.append((unquote(k), unquote(v)))
    return out


def infer_partitioning(segments, where, schema=None):
    if not segments or not segments[0]:
        return [], [() for _ in segments]
    keys = [k for k, _ in segments[0]]
    cols = []
    for j, k in enumerate(keys):
        vals = [s[j][1] for s in segments]
        try:
            [int(v) for v in vals if v != DEFAULT_PARTITION]
            kind = "bigint"
        except ValueError:
            kind = "string"
        cols.append(PartitionColumn(k, kind))
    values = [
        tuple(None if v == DEFAULT_PARTITION else (int(v) if c.kind == "bigint" else v) for c, (_, v) in zip(cols, s))
        for s in segments
    ]
    return cols, values
