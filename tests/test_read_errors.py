"""Corrupt files raise OrcError naming the problem and where it is (stripe, column, stream), never another error.

Each case starts from a small valid uncompressed file pyorc writes, takes it apart with :func:`split_file` into its
stripes' streams, stripe footers, Footer and PostScript (protobufs parsed with orcjit's own ``orc_proto_pb2``),
breaks one thing and puts it back together with :func:`join_file`, which recomputes every length and offset that
follows from the parts (stream lengths in the stripe footers, each StripeInformation, the Footer's content length,
the PostScript's footer and metadata lengths) unless a case overrides one on purpose.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

import orcjit
from orcjit import OrcError, ORCFile
from orcjit._proto import orc_proto_pb2 as pb
from tests import rle_v2_reference as v2
from tests.factory import write_pyorc

PRESENT, DATA, LENGTH, DICTIONARY_DATA = 0, 1, 2, 3
INDEX_KINDS = frozenset({6, 7, 8})  # ROW_INDEX, BLOOM_FILTER, BLOOM_FILTER_UTF8: the stripe's index section
DIRECT_V2, DICTIONARY, DICTIONARY_V2 = 2, 1, 3

SCHEMA = "struct<i:int,s:string,n:bigint,l:array<int>,t:timestamp,f:double>"
COLUMN = {"i": 1, "s": 2, "n": 3, "l": 4, "l.elem": 5, "t": 6, "f": 7}
ROWS = 1000


# -- taking files apart and putting them back together -----------------------------------------------------------


@dataclass
class StreamPart:
    """A stream's bytes; ``declared`` is the length the stripe footer states when that is not ``len(data)``."""

    kind: int
    column: int
    data: bytes
    declared: int | None = None


@dataclass
class StripePart:
    """A stripe: its streams in file order, its footer (whose stream list :func:`join_file` rebuilds) and rows.

    ``declared_data_length`` overrides the data length the Footer's StripeInformation states.
    """

    streams: list[StreamPart]
    footer: pb.StripeFooter
    rows: int
    declared_data_length: int | None = None

    def find(self, column: int, kind: int) -> int:
        """The position of the column's stream of ``kind`` in :attr:`streams`."""
        (i,) = [i for i, s in enumerate(self.streams) if s.column == column and s.kind == kind]
        return i


@dataclass
class OrcParts:
    stripes: list[StripePart]
    metadata: bytes
    footer: pb.Footer
    postscript: pb.PostScript
    tail_padding: bytes = field(default=b"")


def split_file(data: bytes) -> OrcParts:
    """An uncompressed ORC file's parts."""
    ps_len = data[-1]
    postscript = pb.PostScript.FromString(data[-1 - ps_len : -1])
    assert postscript.compression == 0, "split_file takes uncompressed files only"
    footer_start = len(data) - 1 - ps_len - postscript.footerLength
    footer = pb.Footer.FromString(data[footer_start : footer_start + postscript.footerLength])
    metadata = data[footer_start - postscript.metadataLength : footer_start]
    stripes = []
    for info in footer.stripes:
        start = info.offset + info.indexLength + info.dataLength
        stripe_footer = pb.StripeFooter.FromString(data[start : start + info.footerLength])
        streams = []
        pos = info.offset
        for s in stripe_footer.streams:
            streams.append(StreamPart(s.kind, s.column, data[pos : pos + s.length]))
            pos += s.length
        assert pos == start, "streams must fill the stripe's index and data sections"
        stripes.append(StripePart(streams, stripe_footer, info.numberOfRows))
    return OrcParts(stripes, metadata, footer, postscript)


def join_file(parts: OrcParts) -> bytes:
    """The file of ``parts``, every derived length and offset recomputed (but for the declared overrides)."""
    out = bytearray(b"ORC")
    infos = []
    for stripe in parts.stripes:
        offset = len(out)
        stripe_footer = copy.deepcopy(stripe.footer)
        del stripe_footer.streams[:]
        index_length = data_length = 0
        for s in stripe.streams:
            length = len(s.data) if s.declared is None else s.declared
            stripe_footer.streams.add(kind=s.kind, column=s.column, length=length)
            out += s.data
            if s.kind in INDEX_KINDS:
                index_length += len(s.data)
            else:
                data_length += len(s.data)
        footer_bytes = stripe_footer.SerializeToString()
        out += footer_bytes
        if stripe.declared_data_length is not None:
            data_length = stripe.declared_data_length
        infos.append(
            pb.StripeInformation(
                offset=offset,
                indexLength=index_length,
                dataLength=data_length,
                footerLength=len(footer_bytes),
                numberOfRows=stripe.rows,
            )
        )
    footer = copy.deepcopy(parts.footer)
    footer.contentLength = len(out)
    del footer.stripes[:]
    footer.stripes.extend(infos)
    out += parts.metadata
    footer_bytes = footer.SerializeToString()
    out += footer_bytes
    postscript = copy.deepcopy(parts.postscript)
    postscript.footerLength = len(footer_bytes)
    postscript.metadataLength = len(parts.metadata)
    ps_bytes = postscript.SerializeToString()
    assert len(ps_bytes) < 256
    return bytes(out + ps_bytes + bytes([len(ps_bytes)]))


# -- the valid files ---------------------------------------------------------------------------------------------


def rows(seed: int = 3) -> list[tuple[object, ...]]:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "", "ünï"]
    return [
        (
            rng.randint(-(2**31), 2**31 - 1),
            rng.choice(words),
            None if i % 7 == 3 else rng.randint(-(2**40), 2**40),
            [rng.randint(-9, 9) for _ in range(rng.randint(0, 3))],
            (rng.randint(0, 2**31), rng.randint(0, 999_999_999)),  # (seconds, nanoseconds) as written
            rng.random(),
        )
        for i in range(ROWS)
    ]


@pytest.fixture(scope="module")
def valid_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The same rows, uncompressed, with directly encoded strings (``direct``) and with a dictionary
    (``dictionary``)."""
    root = tmp_path_factory.mktemp("valid")
    out = {}
    for name, threshold in (("direct", 0.0), ("dictionary", 1.0)):
        path = write_pyorc(root / f"{name}.orc", SCHEMA, rows(), compression="none", dict_key_size_threshold=threshold)
        out[name] = path.read_bytes()
    return out


def test_round_trip(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    """split_file and join_file rebuild a file orcjit reads as the original."""
    for name, data in valid_files.items():
        parts = split_file(data)
        assert len(parts.stripes) == 1
        encoding = parts.stripes[0].footer.columns[COLUMN["s"]].kind
        assert encoding == (DICTIONARY_V2 if name == "dictionary" else DIRECT_V2)
        rebuilt = join_file(parts)
        # the same layout (ORC C++ writes a Footer.contentLength 3 bytes short, join_file the true one)
        assert len(rebuilt) == len(data)
        expected = orcjit.read_orc(data)
        assert expected.shape == (ROWS, 6)
        assert orcjit.read_orc(rebuilt).equals(expected)


# -- the broken files --------------------------------------------------------------------------------------------


def read(data: bytes, tmp_path: Path, columns: list[str] | None = None) -> None:
    path = tmp_path / "broken.orc"
    path.write_bytes(data)
    orcjit.read_orc(path, columns=columns)


def raises(data: bytes, tmp_path: Path, *parts: str, columns: list[str] | None = None) -> str:
    """Reading ``data`` raises OrcError (exactly: no other exception gets through) with each of ``parts`` in its
    message; returns the message."""
    with pytest.raises(OrcError) as info:
        read(data, tmp_path, columns)
    assert type(info.value) is OrcError
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    return message


def test_unknown_compression_kind(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    parts.postscript.compression = 99
    data = join_file(parts)
    message = raises(data, tmp_path, "unknown compression kind 99", "PostScript")
    ps_offset = len(data) - 1 - data[-1]
    assert f"offset {ps_offset}" in message


def test_unknown_type_kind(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    parts.footer.types[COLUMN["n"]].kind = 99  # uint32 in orcjit's proto: it parses as 99
    raises(join_file(parts), tmp_path, f"column {COLUMN['n']}", "unknown kind 99")


def test_unknown_stream_kind(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    at = stripe.find(COLUMN["n"], DATA) + 1
    stripe.streams.insert(at, StreamPart(99, COLUMN["n"], b"\x01\x02\x03"))
    data = join_file(parts)
    raises(data, tmp_path, "stripe 0", f"column {COLUMN['n']}", "unknown stream kind 99")
    raises(data, tmp_path, "stripe 0", f"column {COLUMN['n']}", "unknown stream kind 99", columns=["n"])
    # streams of columns a read does not select are never looked at: another column reads as in the valid file
    expected = orcjit.read_orc(valid_files["direct"], columns=["i", "s"])
    path = tmp_path / "unknown-stream.orc"
    path.write_bytes(data)
    assert orcjit.read_orc(path, columns=["i", "s"]).equals(expected)


@pytest.mark.parametrize("column", ["i", "s", "l", "t", "f"])
def test_unknown_column_encoding(valid_files: dict[str, bytes], tmp_path: Path, column: str) -> None:
    parts = split_file(valid_files["direct"])
    parts.stripes[0].footer.columns[COLUMN[column]].kind = 7
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN[column]}", "encoding 7")


@pytest.mark.parametrize("encoding", [DICTIONARY, DICTIONARY_V2])
@pytest.mark.parametrize("column", ["i", "n", "f", "t", "l"])
def test_dictionary_encoding_on_a_column_without_dictionaries(
    valid_files: dict[str, bytes], tmp_path: Path, column: str, encoding: int
) -> None:
    parts = split_file(valid_files["direct"])
    parts.stripes[0].footer.columns[COLUMN[column]].kind = encoding
    name = "DICTIONARY" if encoding == DICTIONARY else "DICTIONARY_V2"
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN[column]}", f"cannot use {name}")


@pytest.mark.parametrize(("column", "kind"), [("i", DATA), ("s", DATA), ("s", LENGTH), ("t", 5), ("f", DATA)])
def test_missing_stream(valid_files: dict[str, bytes], tmp_path: Path, column: str, kind: int) -> None:
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    del stripe.streams[stripe.find(COLUMN[column], kind)]
    name = {DATA: "DATA", LENGTH: "LENGTH", 5: "SECONDARY"}[kind]
    raises(
        join_file(parts), tmp_path, "stripe 0", f"column {COLUMN[column]}", f"{name} stream (missing from the stripe)"
    )


@pytest.mark.parametrize(("column", "kind"), [("i", DATA), ("s", LENGTH), ("t", 5)])
def test_empty_stream(valid_files: dict[str, bytes], tmp_path: Path, column: str, kind: int) -> None:
    """A stream the stripe footer lists with no bytes is empty, not missing."""
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    stripe.streams[stripe.find(COLUMN[column], kind)].data = b""
    name = {DATA: "DATA", LENGTH: "LENGTH", 5: "SECONDARY"}[kind]
    message = raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN[column]}", f"{name} stream")
    assert "missing" not in message


def test_dictionary_index_past_the_dictionary(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["dictionary"])
    encoding = parts.stripes[0].footer.columns[COLUMN["s"]]
    assert encoding.dictionarySize == 6
    encoding.dictionarySize = 2  # the indices still reach 5
    message = raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "DATA stream", "dictionary of 2")
    # kept as categories, the indices are checked before the strings would be gathered: the same error
    with pytest.raises(OrcError) as info:
        orcjit.read_orc(tmp_path / "broken.orc", dictionary_as_category=True)
    assert str(info.value) == message


def test_dictionary_longer_than_its_data(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["dictionary"])
    stripe = parts.stripes[0]
    stream = stripe.streams[stripe.find(COLUMN["s"], DICTIONARY_DATA)]
    stream.data = stream.data[:-3]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "DICTIONARY_DATA stream", "holds")


@pytest.mark.parametrize("column", ["s", "l"])
def test_lengths_past_the_data(valid_files: dict[str, bytes], tmp_path: Path, column: str) -> None:
    """A LENGTH stream that claims more than the data holds: string bytes, or list elements."""
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    if column == "s":
        stream = stripe.streams[stripe.find(COLUMN["s"], DATA)]
        stream.data = stream.data[: len(stream.data) // 2]
        raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "DATA stream", "LENGTH needs")
    else:
        # the list lengths ask for more elements than the element column's DATA stream holds
        stream = stripe.streams[stripe.find(COLUMN["l.elem"], DATA)]
        stream.data = stream.data[: len(stream.data) // 2]
        raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['l.elem']}", "DATA stream")


def test_present_too_short(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    stream = stripe.streams[stripe.find(COLUMN["n"], PRESENT)]
    stream.data = stream.data[:2]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['n']}", "PRESENT stream")


@pytest.mark.parametrize("column", ["i", "n", "f", "t"])
def test_data_too_short(valid_files: dict[str, bytes], tmp_path: Path, column: str) -> None:
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    stream = stripe.streams[stripe.find(COLUMN[column], DATA)]
    stream.data = stream.data[: len(stream.data) // 3]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN[column]}", "DATA stream")


def test_truncated_stripe(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    """The stripe lost its last bytes: its footer still lists the streams as they were."""
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    last = stripe.streams[-1]
    last.declared = len(last.data)
    last.data = last.data[:-10]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {last.column}", "past the end of the stripe")


def test_stripe_past_the_body(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    """The stripe lost its last bytes and the Footer still gives its old length: it runs into the tail."""
    parts = split_file(valid_files["direct"])
    stripe = parts.stripes[0]
    last = stripe.streams[-1]
    stripe.declared_data_length = sum(len(s.data) for s in stripe.streams if s.kind not in INDEX_KINDS)
    last.declared = len(last.data)
    last.data = last.data[:-10]
    raises(join_file(parts), tmp_path, "stripe 0", "outside the body")


def test_stream_listed_past_the_stripe_end(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    """The stripe footer lists one more stream than the stripe holds."""
    parts = split_file(valid_files["direct"])
    parts.stripes[0].streams.append(StreamPart(DATA, COLUMN["f"], b"", declared=100))
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['f']}", "DATA stream", "past the end of the stripe")


def test_stream_of_a_column_the_schema_lacks(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    parts.stripes[0].streams.append(StreamPart(DATA, 42, b"\x00"))
    raises(join_file(parts), tmp_path, "stripe 0", "column 42")


def test_errors_of_every_stripe_name_it(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    """A file of two stripes, the second broken: the message names stripe 1."""
    parts = split_file(valid_files["direct"])
    second = copy.deepcopy(parts.stripes[0])
    parts.stripes.append(second)
    parts.footer.numberOfRows = 2 * ROWS
    ok = join_file(parts)
    assert len(orcjit.read_orc(ok)) == 2 * ROWS
    second.footer.columns[COLUMN["i"]].kind = DICTIONARY
    raises(join_file(parts), tmp_path, "stripe 1", f"column {COLUMN['i']}", "cannot use DICTIONARY")
    with ORCFile(join_file(parts)) as f:
        assert len(f.read_stripe(0)) == ROWS  # the first stripe still reads


@pytest.mark.parametrize("name", ["direct", "dictionary"])
def test_string_that_is_not_utf8(valid_files: dict[str, bytes], tmp_path: Path, name: str) -> None:
    """pandas' str and Arrow's string assume UTF-8: a bad string is an error here, not a DataFrame that fails later
    (pyarrow's to_pandas raises 'Wrapping ... failed')."""
    parts = split_file(valid_files[name])
    stripe = parts.stripes[0]
    kind = DATA if name == "direct" else DICTIONARY_DATA
    stream = stripe.streams[stripe.find(COLUMN["s"], kind)]
    at = stream.data.index("ü".encode())
    stream.data = stream.data[:at] + b"\xfc" + stream.data[at + 1 :]  # the lead byte of a six-byte form
    item = "value" if name == "direct" else "dictionary entry"
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", f"{item} ", "is not valid UTF-8")
    # the other columns read
    assert list(orcjit.read_orc(join_file(parts), columns=["i"]).columns) == ["i"]


def test_binary_is_not_checked_as_utf8(tmp_path: Path) -> None:
    values = [b"\xff\xfe", b"ok", b"\xc3", b""]
    path = write_pyorc(tmp_path / "binary.orc", "struct<b:binary>", [(v,) for v in values], compression="none")
    assert orcjit.read_orc(path)["b"].tolist() == values


def test_footer_without_a_row_count(valid_files: dict[str, bytes]) -> None:
    """numberOfRows is optional in the Footer: the stripes' rows stand in for it."""
    parts = split_file(valid_files["direct"])
    parts.footer.ClearField("numberOfRows")
    with ORCFile(join_file(parts)) as f:
        assert f.nrows == ROWS == len(f.read())


def test_footer_row_count_disagreeing_with_the_stripes(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    parts.footer.numberOfRows = ROWS + 1
    raises(join_file(parts), tmp_path, f"stripes hold {ROWS} rows but the footer says the file has {ROWS + 1}")


def test_list_longer_than_arrow_holds(tmp_path: Path) -> None:
    """Elements of struct<> have no bytes, so nothing bounds how many a list claims; Arrow lists stop at 2**31 - 1."""
    path = write_pyorc(tmp_path / "lists.orc", "struct<l:array<struct<>>>", [([()] * 2,), ([()],)], compression="none")
    parts = split_file(path.read_bytes())
    stripe = parts.stripes[0]
    stripe.streams[stripe.find(1, LENGTH)].data = v2.direct([1 << 30, 1 << 30], signed=False)
    with ORCFile(join_file(parts)) as f:
        for read in (f.read, f.read_arrow):
            with pytest.raises(OrcError, match=r"column 'l': 2147483648 array elements in one stripe are more than"):
                read()


def test_stripe_footer_past_the_message_limit(valid_files: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """Stripe footers are protobuf messages like the Footer: they stop at the message limit too."""
    import orcjit.tail

    parts = split_file(valid_files["direct"])
    parts.stripes[0].footer.writerTimezone = "x" * 5000
    data = join_file(parts)
    monkeypatch.setattr(orcjit.tail, "MAX_MESSAGE_SIZE", 4096)
    with ORCFile(data) as f, pytest.raises(OrcError, match=r"stripe 0 footer .* decompresses to more than 4096 bytes"):
        f.stripe_footer(0)


def test_rows_without_columns_cost_no_memory_per_row(valid_files: dict[str, bytes]) -> None:
    """A stripe that declares 10**12 rows read with no columns: a RangeIndex of its rows, not an array of them."""
    parts = split_file(valid_files["direct"])
    parts.stripes[0].rows = 10**12
    parts.footer.numberOfRows = 10**12
    with ORCFile(join_file(parts)) as f:
        frame = f.read_stripe(0, columns=[])
        assert frame.shape == (10**12, 0)
        assert isinstance(frame.index, pd.RangeIndex)
        assert isinstance(f.read(columns=[]).index, pd.RangeIndex)
