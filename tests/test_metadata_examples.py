"""File metadata of the ORC project's example files (and a few generated ones) against pyorc and pyarrow.

Naming differences are mapped explicitly:

- compression: pyorc's ``CompressionKind`` names are orcjit's; pyarrow says ``UNCOMPRESSED`` for ``NONE``;
- writer: pyorc says ``ORC_JAVA_WRITER`` where orcjit and pyarrow say ``ORC_JAVA``;
- file version: pyorc gives a tuple ``(0, 12)``;
- writer version: pyorc gives a ``WriterVersion`` enum (value = orcjit's number, name = orcjit's name);
- software version: ORC C++ prefixes the writer's name (``ORC Java``, ``ORC C++``) to the footer's
  ``softwareVersion``, which orcjit reports bare (``None`` when the footer has none);
- schema: pyorc prints field names without quoting them, orcjit quotes the ones that need it as ORC Java does;
- content length: ORC C++ writers record the footer's ``contentLength`` 3 bytes short (see
  :func:`footer_content_length`);
- pyarrow reports user metadata with ``bytes`` keys, cannot name the compression of an LZO file, and has no
  schema for a file whose root is not a struct (asserted, not skipped).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest

from orcjit import ORCFile
from tests.factory import all_types_pyorc, all_types_table, write_pyarrow, write_pyorc

PYORC_WRITER = {
    "ORC_JAVA_WRITER": "ORC_JAVA",
    "ORC_CPP_WRITER": "ORC_CPP",
    "PRESTO_WRITER": "PRESTO",
    "SCRITCHLEY_GO": "SCRITCHLEY_GO",
    "TRINO_WRITER": "TRINO",
    "CUDF_WRITER": "CUDF",
}
PYARROW_COMPRESSION = {"UNCOMPRESSED": "NONE"}
# how ORC C++ names the writers in front of the software version
WRITER_DISPLAY = {"ORC_JAVA": "ORC Java", "ORC_CPP": "ORC C++"}
INDEX_STREAMS = {"ROW_INDEX", "BLOOM_FILTER", "BLOOM_FILTER_UTF8"}


def displayed_software_version(f: ORCFile) -> str:
    """The software version as ORC C++ shows it: the writer's name, then the footer's version if any."""
    return WRITER_DISPLAY[f.writer] + ("" if f.software_version is None else " " + f.software_version)


def footer_content_length(f: ORCFile) -> int:
    """The footer's ``contentLength``, which pyorc and pyarrow report: ORC C++ writers leave the 3-byte header out
    of it, though the spec counts it ("the length of the file header and body"); orcjit's ``content_length`` is
    where the stripes end, as :func:`check_stripe_layout` checks."""
    return f.content_length - (3 if f.writer == "ORC_CPP" else 0)


def check_stripe_layout(f: ORCFile) -> None:
    """Stripe offsets and section lengths as the bytes have them: each stripe's footer parses and its streams fill
    exactly its index and data sections, index streams first; stripes follow each other inside the content."""
    end = 3  # after the "ORC" header
    first_row = 0
    for i, s in enumerate(f.stripes):
        assert (s.index, s.first_row) == (i, first_row)
        assert s.offset >= end
        footer = f.stripe_footer(i)
        assert len(footer.encodings) == f.ncolumns
        index = [st for st in footer.streams if st.kind_name in INDEX_STREAMS]
        data = [st for st in footer.streams if st.kind_name not in INDEX_STREAMS]
        assert footer.streams == index + data
        assert sum(st.length for st in index) == s.index_length
        assert sum(st.length for st in data) == s.data_length
        end = s.offset + s.length
        first_row += s.rows
    assert end == f.content_length
    assert first_row == f.nrows


def check_against_pyorc(path: Path, f: ORCFile) -> None:
    with open(path, "rb") as fh:
        r = pyorc.Reader(fh)
        assert len(r) == f.nrows
        assert r.num_of_stripes == f.nstripes
        for s in f.stripes:
            stripe = r.read_stripe(s.index)
            assert (stripe.bytes_offset, stripe.bytes_length) == (s.offset, s.length)
            assert (stripe.row_offset, len(stripe)) == (s.first_row, s.rows)
        assert r.compression.name == f.compression
        assert r.compression_block_size == f.compression_block_size
        assert ".".join(map(str, r.format_version)) == f.file_version
        assert r.row_index_stride == f.row_index_stride
        assert PYORC_WRITER[r.writer_id] == f.writer
        assert (r.writer_version.value, r.writer_version.name) == (f.writer_version_number, f.writer_version)
        assert r.software_version == displayed_software_version(f)
        assert r.user_metadata == f.user_metadata
        assert str(pyorc.TypeDescription.from_string(str(f.schema))) == str(r.schema)
        lengths = r.bytes_lengths
        assert (lengths["content_length"], lengths["file_length"]) == (footer_content_length(f), f.file_size)


def check_against_pyarrow(path: Path, f: ORCFile) -> None:
    a = pa_orc.ORCFile(str(path))
    assert (a.nrows, a.nstripes) == (f.nrows, f.nstripes)
    if f.compression == "LZO":
        with pytest.raises(pa.ArrowInvalid, match="Compression type not supported"):
            _ = a.compression
    else:
        assert PYARROW_COMPRESSION.get(a.compression, a.compression) == f.compression
    assert a.compression_size == f.compression_block_size
    assert a.file_version == f.file_version
    assert a.row_index_stride == f.row_index_stride
    assert (a.writer, a.writer_version) == (f.writer, f.writer_version)
    assert a.software_version == displayed_software_version(f)
    if f.schema.kind == "struct":
        assert a.schema.names == f.schema.field_names
    else:
        with pytest.raises(pa.ArrowNotImplementedError, match="top-level struct"):
            _ = a.schema
    assert {k.decode(): v for k, v in (a.metadata or {}).items()} == f.user_metadata
    assert (a.content_length, a.file_length) == (footer_content_length(f), f.file_size)


def test_example_metadata(example_file: Path) -> None:
    with ORCFile(example_file) as f:
        check_stripe_layout(f)
        check_against_pyorc(example_file, f)
        check_against_pyarrow(example_file, f)


def test_example_schemas_print_alike(example_file: Path) -> None:
    # plain field names everywhere in the examples: no quoting to map
    with ORCFile(example_file) as f, open(example_file, "rb") as fh:
        assert str(f.schema) == str(pyorc.Reader(fh).schema)


def _generated(tmp_path: Path, case: str) -> Path:
    if case == "pyarrow-0.11-lz4":
        table = all_types_table(500, seed=1)
        return write_pyarrow(tmp_path, table, compression="lz4", file_version="0.11", row_index_stride=100)
    if case == "pyarrow-zstd-stripes":
        return write_pyarrow(tmp_path, all_types_table(3000, seed=2), compression="uncompressed", stripe_size=1)
    if case == "pyorc-metadata":
        schema, rows = all_types_pyorc(2000, seed=3)
        metadata = {"plain": b"value", "with.dot": b"\x00\xff\x01", "empty": b"", "ünï": "ç".encode()}
        return write_pyorc(tmp_path, schema, rows, compression="snappy", stripe_size=8192, metadata=metadata)
    if case == "pyorc-odd-names":
        schema = "struct<`a b`:int,`x.y`:string,`q``r`:struct<`1`:double>,Upper:array<int>>"
        rows = [(i, str(i), (i / 2,), [i] * (i % 3)) for i in range(100)]
        return write_pyorc(tmp_path, schema, rows, compression="zlib")
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["pyarrow-0.11-lz4", "pyarrow-zstd-stripes", "pyorc-metadata", "pyorc-odd-names"])
def test_generated_metadata(tmp_path: Path, case: str) -> None:
    path = _generated(tmp_path, case)
    with ORCFile(path) as f:
        assert f.writer == "ORC_CPP"
        check_stripe_layout(f)
        check_against_pyorc(path, f)
        check_against_pyarrow(path, f)


def test_odd_names_are_quoted(tmp_path: Path) -> None:
    with ORCFile(_generated(tmp_path, "pyorc-odd-names")) as f:
        # as ORC Java prints them: names other than [A-Za-z0-9_]+ in backquotes, backquotes doubled
        assert str(f.schema) == "struct<`a b`:int,`x.y`:string,`q``r`:struct<1:double>,Upper:array<int>>"
        assert f.schema.field_names == ["a b", "x.y", "q`r", "Upper"]
