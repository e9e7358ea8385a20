"""A plain Python data source on pyarrow's ORC reader: the baseline ``benchmarks/spark.py`` compares orcjit with.

It is what someone would write in an afternoon with the Data Source API and ``pyarrow.orc``: one partition per
stripe, ``ORCFile.read_stripe(i, columns)`` in the worker, batches cast to the Arrow schema Spark expects. It has
no filter pushdown (Spark filters the rows it yields) and, like orcjit's source, prunes columns only through
``.option("columns", "a,b")`` because the Data Source API does not tell a reader which columns a query uses.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

# pyarrow's ORC types -> Spark SQL DDL; enough for flat files of the common primitive types
_DDL = {
    "bool": "boolean",
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float": "float",
    "double": "double",
    "string": "string",
    "binary": "binary",
    "date32[day]": "date",
}


def orc_files(path: str) -> list[str]:
    """The ORC files of ``path``: the file itself, the ``*.orc`` files of a directory, or a glob's matches."""
    if os.path.isdir(path):
        return sorted(glob.glob(os.path.join(path, "*.orc")))
    return sorted(glob.glob(path)) if glob.has_magic(path) else [path]


@dataclass
class StripePartition(InputPartition):
    """One stripe of one file."""

    path: str
    stripe: int


class PyArrowOrcReader(DataSourceReader):
    def __init__(self, files: list[str], schema: StructType) -> None:
        self.files = files
        self.schema = schema

    def partitions(self) -> list[StripePartition]:
        import pyarrow.orc as po

        return [StripePartition(f, i) for f in self.files for i in range(po.ORCFile(f).nstripes)]

    def read(self, partition: StripePartition) -> Iterator:  # type: ignore[override]
        import pyarrow.orc as po
        from pyspark.sql.pandas.types import to_arrow_schema

        # Spark checks yielded batches against exactly this schema (timestamps as microseconds in UTC)
        target = to_arrow_schema(self.schema, timezone="UTC")
        names = self.schema.fieldNames()
        # read_stripe gives the columns in file order; Spark wants them in the schema's
        batch = po.ORCFile(partition.path).read_stripe(partition.stripe, columns=names).select(names)
        yield batch.cast(target)


class PyArrowOrcDataSource(DataSource):
    """``spark.read.format("pyarrow_orc").option("columns", "a,b").load(path)``."""

    @classmethod
    def name(cls) -> str:
        return "pyarrow_orc"

    def _files(self) -> list[str]:
        files = orc_files(self.options["path"])
        if not files:
            raise FileNotFoundError(f"no ORC files at {self.options['path']}")
        return files

    def schema(self) -> str:
        import pyarrow as pa
        import pyarrow.orc as po

        arrow = po.ORCFile(self._files()[0]).schema
        wanted = self.options.get("columns")
        names = [c.strip() for c in wanted.split(",")] if wanted else arrow.names
        fields = []
        for name in names:
            kind = arrow.field(name).type
            ddl = "timestamp" if pa.types.is_timestamp(kind) else _DDL.get(str(kind))
            if ddl is None:
                raise TypeError(f"column {name}: {kind} is not handled by this benchmark source")
            fields.append(f"`{name}` {ddl}")
        return ", ".join(fields)

    def reader(self, schema: StructType) -> PyArrowOrcReader:
        return PyArrowOrcReader(self._files(), schema)


@dataclass
class ReplayPartition(InputPartition):
    """One Arrow IPC file."""

    path: str


class ArrowReplayReader(DataSourceReader):
    def __init__(self, files: list[str]) -> None:
        self.files = files

    def partitions(self) -> list[ReplayPartition]:
        return [ReplayPartition(f) for f in self.files]

    def read(self, partition: ReplayPartition) -> Iterator:  # type: ignore[override]
        import pyarrow as pa

        with pa.memory_map(partition.path) as source:
            reader = pa.ipc.open_file(source)
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)


class ArrowReplayDataSource(DataSource):
    """``spark.read.format("arrow_replay").load(folder)``: the record batches of ``folder/*.arrow`` as they are.

    Each IPC file, saved from what another source's ``read`` yielded for one partition, is one partition here;
    reading one is a memory map. What a query on it costs is what Spark spends around a Python data source: the
    workers, the Arrow hand-over to the JVM and the query itself, with no decoding.
    """

    @classmethod
    def name(cls) -> str:
        return "arrow_replay"

    def _files(self) -> list[str]:
        return sorted(glob.glob(os.path.join(self.options["path"], "*.arrow")))

    def schema(self) -> str:
        import pyarrow as pa

        with pa.memory_map(self._files()[0]) as source:
            arrow = pa.ipc.open_file(source).schema
        return ", ".join(
            f"`{f.name}` {'timestamp' if pa.types.is_timestamp(f.type) else _DDL[str(f.type)]}" for f in arrow
        )

    def reader(self, schema: StructType) -> ArrowReplayReader:
        return ArrowReplayReader(self._files())
