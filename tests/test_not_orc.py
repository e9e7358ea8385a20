"""Files that are not ORC, or not all of one: each gets an OrcError that says what the file is not or what is
missing, names the file, and carries none of the protobuf runtime's wording, from every kind of source and from the
command line.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pyorc
import pytest

import orcjit
from orcjit import OrcError, ORCFile
from orcjit._proto import orc_proto_pb2 as pb
from orcjit.tail import TAIL_READ_SIZE
from tests.conftest import EXAMPLES
from tests.factory import all_types_table, write_pyarrow
from tests.test_cli import assert_one_line_error, run

# what the protobuf runtime says when bytes do not parse ("Error parsing message with type 'orcjit.orc.PostScript':
# Wire format was corrupt", "Truncated message", ...): none of it may reach a user
PROTOBUF_WORDING = ("protobuf", "wire format", "error parsing", "message", "orcjit.orc.", "truncated message")

SMALL = EXAMPLES / "TestOrcFile.test1.orc"  # 1,711 bytes: the first read of the tail holds the whole file
LARGE = EXAMPLES / "TestOrcFile.testSeek.orc"  # 1.9 MB: the file's start lies outside the tail's read


def assert_plain(message: str) -> None:
    lowered = message.lower()
    for words in PROTOBUF_WORDING:
        assert words not in lowered, message


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A text file, a Parquet file (as pyarrow writes it), an empty file and ORC files cut short."""
    folder = tmp_path_factory.mktemp("bad")
    files = {}
    files["text"] = folder / "notes.txt"
    files["text"].write_text("id,name\n" + "".join(f"{i},row {i}\n" for i in range(500)))
    files["parquet"] = folder / "table.parquet"
    pq.write_table(pa.table({"id": list(range(1000)), "name": [f"n{i}" for i in range(1000)]}), files["parquet"])
    files["empty"] = folder / "empty.orc"
    files["empty"].write_bytes(b"")
    orc = write_pyarrow(folder / "whole.orc", all_types_table(n=3000, seed=5), compression="zstd")
    data = orc.read_bytes()
    assert len(data) > TAIL_READ_SIZE  # so that the magic at its start is not in the tail's first read
    files["truncated_half"] = folder / "half.orc"
    files["truncated_half"].write_bytes(data[: len(data) // 2])
    files["truncated_tail"] = folder / "tail.orc"
    files["truncated_tail"].write_bytes(data[:-10])  # a download that stopped 10 bytes short
    return files


EXPECTED = {
    "text": r"not an ORC file: it looks like text \(it starts with 'id,name\\nid,name|'id,name\\n0,row 0",
    "parquet": r"not an ORC file: it looks like Parquet \(it ends with Parquet's magic 'PAR1'\)",
    "empty": r"not an ORC file: the file is empty \(0 bytes\)",
    "truncated_half": r"truncated: the file starts with ORC's magic but its end is not an ORC PostScript",
    "truncated_tail": r"truncated: the file starts with ORC's magic but its end is not an ORC PostScript",
}


def test_the_bad_files_are_what_they_claim(bad_files: dict[str, Path]) -> None:
    """The oracles: pyarrow reads the Parquet file as Parquet, and its ORC reader refuses every one of them."""
    assert pq.read_table(bad_files["parquet"]).num_rows == 1000
    for path in bad_files.values():
        with pytest.raises((pa.ArrowInvalid, OSError)):
            pa_orc.ORCFile(str(path)).read()


SOURCES: dict[str, Callable[[Path], tuple[Any, str]]] = {
    "path": lambda p: (p, str(p)),
    "str": lambda p: (str(p), str(p)),
    "bytes": lambda p: (p.read_bytes(), "<bytes>"),
    "open file": lambda p: (open(p, "rb"), str(p)),  # noqa: SIM115 - closed by the test
    "BytesIO": lambda p: (io.BytesIO(p.read_bytes()), "<file object>"),
}


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("which", list(EXPECTED))
def test_each_bad_file_from_each_source(bad_files: dict[str, Path], which: str, source: str) -> None:
    given, name = SOURCES[source](bad_files[which])
    try:
        for call in (lambda: ORCFile(given), lambda: orcjit.read_orc(given)):
            with pytest.raises(OrcError) as info:
                call()
            message = str(info.value)
            assert message.startswith(f"{name}: ")
            assert re.search(EXPECTED[which], message), message
            assert "\n" not in message
            assert_plain(message)
    finally:
        if hasattr(given, "close"):
            given.close()


def test_a_large_file_with_its_tail_magic_costs_no_read_of_its_start() -> None:
    """The magic at the end of the PostScript is what is checked first: a good file is not read at its start."""
    with ORCFile(LARGE) as f:
        assert f.source.reads == 1
        assert f.source.bytes_read == TAIL_READ_SIZE


@pytest.mark.parametrize("path", [SMALL, LARGE], ids=lambda p: p.name)
def test_every_cut_of_an_orc_file_says_truncated(path: Path) -> None:
    """Every prefix of a real ORC file, from 1 byte to 1 byte short (near the end, where the tail lies, and a
    sample of the rest), is reported as truncated, never as "not an ORC file"."""
    data = path.read_bytes()
    rng = random.Random(path.name)
    sizes = sorted({*range(1, 40), *range(max(1, len(data) - 2000), len(data)), *rng.sample(range(1, len(data)), 200)})
    for size in sizes:
        with pytest.raises(OrcError) as info:
            ORCFile(data[:size])
        message = str(info.value)
        assert message.startswith("<bytes>: truncated: "), (size, message)
        assert_plain(message)


@pytest.mark.parametrize(
    ("data", "looks_like"),
    [
        (b"Obj\x01" + bytes(100), "Avro"),
        (b"ARROW1\x00\x00" + bytes(100), r"Arrow IPC \(Feather\)"),
        (b"\x1f\x8b\x08\x00" + bytes(100), "gzip-compressed data"),
        (b"PK\x03\x04" + bytes(100), "a zip archive"),
        (b"PAR1" + bytes(100), "Parquet"),  # the start of a Parquet file cut short: no PAR1 at its end
        ("déjà vu, \N{SNOWMAN}\n".encode() * 20, "text"),
    ],
)
def test_what_other_files_look_like(data: bytes, looks_like: str) -> None:
    with pytest.raises(OrcError, match=rf"^<bytes>: not an ORC file: it looks like {looks_like} \(it starts with "):
        ORCFile(data)


def test_binary_that_is_not_orc_shows_its_first_bytes() -> None:
    with pytest.raises(OrcError, match=r"^<bytes>: not an ORC file: it starts with b'\\x00\\x01\\x02") as info:
        ORCFile(bytes(range(256)) * 4)
    assert "where ORC files start with 'ORC'" in str(info.value)


def test_hive_011_postscript_without_magic_still_reads() -> None:
    """Only Hive 0.11 wrote PostScripts without the magic (every ORC file starts with it): such a file is read, as
    ORC C++ reads it, by checking the magic at the file's start instead."""
    data = SMALL.read_bytes()
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    ps.ClearField("magic")
    raw = ps.SerializeToString()
    assert not raw.endswith(b"ORC")
    legacy = data[: -1 - ps_len] + raw + bytes([len(raw)])
    with ORCFile(legacy) as f, ORCFile(data) as g:
        assert f.read_arrow().equals(g.read_arrow())
    # ORC C++ reads it too
    assert list(pyorc.Reader(io.BytesIO(legacy))) == list(pyorc.Reader(io.BytesIO(data)))
    # the magic at neither end: not ORC
    with pytest.raises(OrcError, match=r"^<bytes>: not an ORC file: it starts with b.XRC"):
        ORCFile(b"X" + legacy[1:])


def _replace_tail_part(data: bytes, part: str) -> bytes:
    """``data`` (an uncompressed file) with its footer or metadata section replaced by bytes that do not decode."""
    ps_len = data[-1]
    ps = pb.PostScript.FromString(data[-1 - ps_len : -1])
    assert ps.compression == 0
    footer_end = len(data) - 1 - ps_len
    footer_start = footer_end - ps.footerLength
    if part == "footer":
        return data[:footer_start] + b"\xff" * ps.footerLength + data[footer_end:]
    metadata_start = footer_start - ps.metadataLength
    return data[:metadata_start] + b"\xff" * ps.metadataLength + data[footer_start:]


@pytest.mark.parametrize("part", ["postscript", "footer", "metadata", "stripe footer", "row index", "bloom filter"])
def test_corrupt_sections_are_reported_in_orcs_words(tmp_path: Path, part: str) -> None:
    """A section deeper in the file that does not decode is named, with where it is, in ORC's words."""
    path = write_pyarrow(
        tmp_path / "f.orc",
        all_types_table(n=500, seed=3),
        compression="none",
        row_index_stride=100,
        bloom_filter_columns=["i32"],
    )
    data = path.read_bytes()
    with ORCFile(data) as f:
        stripe = f.stripes[0]
        streams = f.stripe_footer(0).streams
    if part == "postscript":
        ps_len = data[-1]
        bad = data[: -1 - ps_len] + b"\xff" * (ps_len - 4) + b"ORC" + data[-1:]
        expected = r"PostScript at offset \d+ is corrupt: its \d+ bytes do not decode as an ORC PostScript"
    elif part in ("footer", "metadata"):
        bad = _replace_tail_part(data, part)
        name = "file footer" if part == "footer" else r"metadata \(stripe statistics\)"
        expected = rf"{part} at offset \d+ is corrupt: its \d+ bytes do not decode as an ORC {name}"
    elif part == "stripe footer":
        start = stripe.offset + stripe.index_length + stripe.data_length
        bad = data[:start] + b"\xff" * stripe.footer_length + data[start + stripe.footer_length :]
        expected = r"stripe 0 .*is corrupt: its \d+ bytes do not decode as an ORC stripe footer"
    else:
        kinds = (6,) if part == "row index" else (7, 8)  # ROW_INDEX; BLOOM_FILTER, BLOOM_FILTER_UTF8
        stream = next(s for s in streams if s.kind in kinds and s.column == 4)  # i32
        bad = data[: stream.offset] + b"\xff" * stream.length + data[stream.offset + stream.length :]
        expected = rf"is corrupt: its \d+ bytes do not decode as an ORC {part}"
    target = tmp_path / "bad.orc"
    target.write_bytes(bad)

    def reads(f: ORCFile) -> None:
        f.stripe_statistics(0)
        f.stripe_footer(0)
        f.row_index(0, "i32")
        f.bloom_filter(0, "i32")

    with pytest.raises(OrcError, match=expected) as info, ORCFile(target) as f:
        reads(f)
    messages = [str(info.value)]
    if part == "row index":
        # pruning reads row indexes with kernels of its own, not the protobuf runtime: their errors are plain too
        with pytest.raises(OrcError, match=part) as info, ORCFile(target) as f:
            f.read(filters=[("i32", "==", 5)])
        messages.append(str(info.value))
    elif part == "bloom filter":
        # a bloom filter pruning cannot use only keeps row groups: the filtered read loses nothing
        expected_column = pa_orc.read_table(path, columns=["i32"])["i32"].to_pandas()
        value = int(expected_column.dropna().iloc[7])
        with ORCFile(target) as f:
            got = f.read(filters=[("i32", "==", value)], columns=["i32"])
        assert (got["i32"] == value).all() and len(got) == (expected_column == value).sum() > 0
    for message in messages:
        assert message.startswith(f"{target}: ")
        assert_plain(message)


# -- the command line ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", list(EXPECTED))
@pytest.mark.parametrize("args", [["schema"], ["meta"], ["stats", "--json"], ["head"]])
def test_cli_reports_one_line(
    bad_files: dict[str, Path], capsys: pytest.CaptureFixture[str], which: str, args: list[str]
) -> None:
    path = bad_files[which]
    code, out, err = run(capsys, *args, path)
    assert_one_line_error(code, out, err)
    assert err.startswith(f"orcjit: error: {path}: ")
    assert re.search(EXPECTED[which], err), err
    assert_plain(err)
