"""The corrupt files of the ORC project's test corpus, rebuilt here, each raising OrcError with a clear message.

The Apache ORC repository keeps broken files that once crashed or misled its readers (``examples/corrupt/`` and a
few at the top of ``examples/``). Their bytes are not in this workplace, so each is rebuilt from a valid pyorc file
with the same defect, by the split_file/join_file helpers of ``test_read_errors``:

- ``missing_blob_stream_in_string_dict.orc``: a dictionary-encoded string column without its DICTIONARY_DATA;
- ``missing_length_stream_in_string_dict.orc``: the same without the dictionary's LENGTH stream;
- ``negative_dict_entry_lengths.orc``: dictionary entry lengths that read as negative 64-bit numbers;
- ``stripe_footer_bad_column_encodings.orc``: a stripe footer with fewer column encodings than columns;
- ``zero.orc``: a file of zero bytes;
- ``version1999.orc``: a file written by a future ORC version (19.99).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import orcjit
from orcjit import OrcError, ORCFile
from tests import rle_v2_reference as v2
from tests.test_read_errors import COLUMN, DICTIONARY_DATA, LENGTH, join_file, raises, split_file, valid_files

__all__ = ["valid_files"]  # the fixture, imported for pytest to find


def test_missing_blob_stream_in_string_dict(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["dictionary"])
    stripe = parts.stripes[0]
    del stripe.streams[stripe.find(COLUMN["s"], DICTIONARY_DATA)]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "DICTIONARY_DATA stream", "missing")
    # the other columns still read
    assert list(orcjit.read_orc(join_file(parts), columns=["i", "n"]).columns) == ["i", "n"]


def test_missing_length_stream_in_string_dict(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["dictionary"])
    stripe = parts.stripes[0]
    del stripe.streams[stripe.find(COLUMN["s"], LENGTH)]
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "LENGTH stream", "missing")


def test_negative_dict_entry_lengths(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["dictionary"])
    stripe = parts.stripes[0]
    size = stripe.footer.columns[COLUMN["s"]].dictionarySize
    lengths = [5] * size
    lengths[1] = (1 << 64) - 3  # -3 as a signed 64-bit number
    stripe.streams[stripe.find(COLUMN["s"], LENGTH)].data = v2.direct(lengths, signed=False)
    raises(join_file(parts), tmp_path, "stripe 0", f"column {COLUMN['s']}", "LENGTH stream", "negative")


@pytest.mark.parametrize("keep", [0, 1, 3])
def test_stripe_footer_bad_column_encodings(valid_files: dict[str, bytes], tmp_path: Path, keep: int) -> None:
    parts = split_file(valid_files["direct"])
    del parts.stripes[0].footer.columns[keep:]
    raises(join_file(parts), tmp_path, "stripe 0", "encoding")


def test_zero_byte_file(tmp_path: Path) -> None:
    path = tmp_path / "zero.orc"
    path.write_bytes(b"")
    with pytest.raises(OrcError, match=r"zero.orc: not an ORC file: the file is empty \(0 bytes\)"):
        orcjit.read_orc(path)
    with pytest.raises(OrcError, match="file is empty"):
        ORCFile(b"")


def test_version_1999(valid_files: dict[str, bytes], tmp_path: Path) -> None:
    parts = split_file(valid_files["direct"])
    del parts.postscript.version[:]
    parts.postscript.version.extend([19, 99])
    path = tmp_path / "version1999.orc"
    path.write_bytes(join_file(parts))
    with pytest.raises(OrcError, match=r"version1999.orc: file format version 19.99 is not ORC v1"):
        orcjit.read_orc(path)
