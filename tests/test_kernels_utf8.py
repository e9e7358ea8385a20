"""UTF-8 validation: byte vectors from the Unicode standard's table of well-formed sequences, and a property test
against Python's own strict decoder."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orcjit import OrcError
from orcjit.kernels import utf8
from orcjit.kernels.utf8 import check_utf8, first_invalid


def _pack(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in strings])
    data = np.frombuffer(b"".join(strings) or b"\0", dtype=np.uint8)[: offsets[-1]]
    return offsets, data


VALID = [
    b"",
    b"plain ascii, long enough for the eight-byte steps",
    "é".encode(),
    "\u0800".encode(),  # E0 A0 80: the smallest three-byte sequence
    "\ud7ff".encode(),  # ED 9F BF: just below the surrogates
    "\ue000".encode(),  # EE 80 80: just above them
    "\uffff".encode(),
    "\U00010000".encode(),  # F0 90 80 80
    "\U0010ffff".encode(),  # F4 8F BF BF: the largest code point
    "mixed ascii and ünïcödé text 日本語 🎉".encode(),
]
INVALID = [
    b"\x80",  # a continuation byte alone
    b"\xbf",
    b"\xc0\xaf",  # overlong '/'
    b"\xc1\xbf",
    b"\xc3",  # a lead byte at the end
    b"\xc3(",  # a lead byte without its continuation
    b"\xe0\x80\xaf",  # overlong three-byte
    b"\xe0\x9f\xbf",
    b"\xed\xa0\x80",  # the surrogate U+D800
    b"\xed\xbf\xbf",
    b"\xe2\x82",  # three-byte sequence cut short
    b"\xf0\x80\x80\xaf",  # overlong four-byte
    b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80",  # U+110000, past the last code point
    b"\xf5\x80\x80\x80",
    b"\xff",
    b"\xfe",
    b"ok so far \xe2\x28\xa1",
]


@pytest.mark.parametrize("value", VALID)
def test_valid_sequences(value: bytes) -> None:
    value.decode("utf-8")  # the vectors themselves are right
    assert first_invalid(*_pack([b"abc", value, b"xyz"])) == -1


@pytest.mark.parametrize("value", INVALID)
def test_invalid_sequences(value: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        value.decode("utf-8")
    assert first_invalid(*_pack([b"abc", "ü".encode(), value, b"xyz"])) == 2


def test_a_sequence_split_between_two_strings_is_invalid_in_each() -> None:
    e_acute = "é".encode()
    assert first_invalid(*_pack([e_acute[:1], e_acute[1:]])) == 0
    assert first_invalid(*_pack([b"", e_acute])) == -1


def test_check_names_the_value_and_what() -> None:
    offsets, data = _pack([b"fine", b"bad \xff here"])
    with pytest.raises(OrcError, match=r"stripe 3 column 's': value 1 is not valid UTF-8 \(starts b'bad \\xff here'\)"):
        check_utf8(offsets, data, "stripe 3 column 's'")
    check_utf8(*_pack([b"fine", "fïne".encode()]), "unused")


def test_ascii_needs_no_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # all-ASCII strings are recognised without the kernels, which a read of ASCII strings then never compiles;
    # only the bytes the strings span count (the strings of a slice of a stripe's data)
    calls: list[int] = []

    def spy(offsets: np.ndarray, data: np.ndarray) -> int:
        calls.append(len(offsets) - 1)
        return int(first_invalid(offsets, data))

    monkeypatch.setattr(utf8, "first_invalid", spy)
    check_utf8(*_pack([b"plain", b"", b"ascii text"]), "unused")
    check_utf8(*_pack([b"", b""]), "unused")
    check_utf8(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8), "unused")
    data = np.frombuffer(b"\xffascii\xff", dtype=np.uint8)
    check_utf8(np.array([1, 3, 6]), data, "unused")
    assert calls == []
    check_utf8(*_pack([b"plain", "fïne".encode()]), "unused")
    assert calls == [2]
    with pytest.raises(OrcError, match="value 2 is not valid UTF-8"):
        check_utf8(np.array([1, 3, 6, 7]), data, "unused")
    assert calls == [2, 3]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=12) | st.text(max_size=6).map(str.encode), max_size=12))
def test_agrees_with_python(strings: list[bytes]) -> None:
    expected = -1
    for i, s in enumerate(strings):
        try:
            s.decode("utf-8")
        except UnicodeDecodeError:
            expected = i
            break
    assert first_invalid(*_pack(strings)) == expected
