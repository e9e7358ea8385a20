"""The fuzzer's quick run, and tests of the fuzzer itself.

The quick run reads a few thousand mutated files in worker subprocesses and requires every one to end in a
consistent read or an OrcError: no other exception, crash, hang or memory blow-up. The long run is
``python -m tests.fuzz_harness --cases 100000`` (see RELIABILITY.md).
"""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

import orcjit
from tests import fuzz_harness as fh
from tests import rle_v2_reference as v2
from tests.rle_reference import encode_byte_rle

QUICK_CASES = 1500


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[fh.CorpusFile]:
    return fh.load_corpus(tmp_path_factory.mktemp("fuzz-corpus"))


def test_corpus_holds_every_writer_and_codec(corpus: list[fh.CorpusFile]) -> None:
    names = {f.name for f in corpus}
    assert {f"pyarrow-{c}.orc" for c in ("none", "zlib", "zstd", "snappy", "lz4")} <= names
    assert {"pyorc-none.orc", "pyorc-zlib.orc"} <= names
    assert {"pyorc-nested-none.orc", "pyorc-nested-zlib.orc", "pyarrow-nested-zstd.orc"} <= names
    assert {"TestOrcFile.test1.orc", "TestVectorOrcFile.testLzo.orc", "over1k_bloom.orc"} <= names
    assert {"pre20-zlib.orc", "hive11-none.orc", "pyarrow-brotli.orc"} <= names
    assert sum(bool(f.filters) for f in corpus) >= 15


def test_taking_apart_and_putting_back_changes_no_row(corpus: list[fh.CorpusFile]) -> None:
    """Structural mutators start from a re-encoded file: it must read exactly as the original does."""
    for f in corpus:
        again = fh.encode_file(fh.decode_file(f.data))
        pd.testing.assert_frame_equal(orcjit.read_orc(again), orcjit.read_orc(f.data), obj=f.name)


def test_mutators_are_deterministic_and_change_the_file(corpus: list[fh.CorpusFile]) -> None:
    small = [f for f in corpus if f.layout.size < 50_000]
    for name, mutate in fh.MUTATORS.items():
        changed = 0
        for seed in range(8):
            f = small[seed % len(small)]
            first = mutate(f, random.Random(seed))
            assert first == mutate(f, random.Random(seed)), name
            changed += first != f.data
        assert changed >= 5, f"{name} left the file as it was in {8 - changed} of 8 tries"


def test_cases_are_reproducible(corpus: list[fh.CorpusFile]) -> None:
    a = fh.make_case(1234, corpus, seed=7)
    b = fh.make_case(1234, corpus, seed=7)
    assert (a.file, a.mutator, a.mode, a.data) == (b.file, b.mutator, b.mode, b.data)
    assert fh.make_case(1235, corpus, seed=7).data != a.data


def test_chunk_headers_are_found(corpus: list[fh.CorpusFile]) -> None:
    for f in corpus:
        if not f.layout.compressed:
            assert f.layout.chunk_headers == []
            continue
        assert f.layout.chunk_headers, f.name
        for at in f.layout.chunk_headers:
            length = int.from_bytes(f.data[at : at + 3], "little") >> 1
            assert at + 3 + length <= f.layout.size


def test_run_headers_of_every_rle_v2_sub_encoding() -> None:
    runs = [
        v2.short_repeat(7, 5, signed=False),
        v2.direct([1, 2, 3, 4, 5, 600], signed=False),
        v2.delta([10, 20, 30, 40], signed=False),
        v2.delta([5, 5, 5], signed=False),  # fixed delta: no packed deltas
        v2.patched_base([3, 4, 5, 6, 1 << 20, 7, 8, 9, 10, 11], width=4),
        v2.direct([9] * 3, signed=True),
    ]
    stream = b"".join(runs)
    starts = [sum(len(r) for r in runs[:i]) for i in range(len(runs))]
    assert fh.run_headers(stream, "v2") == starts


def test_run_headers_of_byte_rle() -> None:
    values = [1] * 50 + list(range(20)) + [0] * 130 + [5, 6]
    stream = encode_byte_rle(values)
    headers = fh.run_headers(stream, "byte")
    assert headers[0] == 0
    # each header's runs add up to the values encoded
    total = 0
    for at in headers:
        h = stream[at]
        total += h + 3 if h < 128 else 256 - h
    assert total == len(values)


NESTED_MUTATORS = ("nested_lengths", "child_present", "union_tags", "nested_kind", "child_values")


def _rle_streams(model: fh.OrcModel) -> list[tuple[fh.Stream, str]]:
    out = []
    for stripe in model.stripes:
        for s in stripe.streams:
            family = fh.stream_family(model, stripe, s)
            if family is not None and s.data:
                out.append((s, family))
    return out


def test_rle_streams_decode_and_encode_again(corpus: list[fh.CorpusFile]) -> None:
    """The nested mutators rewrite RLE streams through the reference coders: every RLE stream of the nested files
    decodes to the values orcjit reads and encodes to bytes that decode to them again."""
    for f in corpus:
        if "nested" not in f.name:
            continue
        streams = _rle_streams(fh.decode_file(f.data))
        assert len(streams) > 20, f.name
        for s, family in streams:
            values = fh._decode_all(s.data, family, s.kind == fh.DATA)
            assert values
            again = fh._decode_all(fh._encode_all(values, family, s.kind == fh.DATA), family, s.kind == fh.DATA)
            assert again == values, (f.name, s.column, s.kind)


def test_pre20_decimals_are_rle_v2_to_the_mutators(corpus: list[fh.CorpusFile]) -> None:
    """The run-length mutators reach the pre-2.0 file's short decimals: their DATA streams decode, as RLE v2, to
    the unscaled values orcjit reads."""
    f = next(f for f in corpus if f.name == "pre20-zlib.orc")
    model = fh.decode_file(f.data)
    stripe = model.stripes[0]
    rows = stripe.info.numberOfRows
    df = orcjit.read_orc(f.data).iloc[:rows]
    for name, column in (("p5", 2), ("p18", 3)):
        (data,) = [s for s in stripe.streams if s.column == column and s.kind == fh.DATA]
        assert fh.stream_family(model, stripe, data) == "v2"
        want = [int(v.scaleb(model.footer.types[column].scale)) for v in df[name].dropna()]
        assert fh._decode_all(data.data, "v2", True) == want
    (wide,) = [s for s in stripe.streams if s.column == 4 and s.kind == fh.DATA]
    assert fh.stream_family(model, stripe, wide) is None  # precision 30: varints, as in any other version


def _nested_state(model: fh.OrcModel) -> dict[str, object]:
    """What the nested mutators may change: streams of compound types and of the columns below them, and types."""
    nested = set(fh._nested_columns(model)) | {
        i for i, t in enumerate(model.footer.types) if t.kind in fh.COMPOUND and i
    }
    return {
        "streams": [
            [(s.column, s.kind, s.data) for s in stripe.streams if s.column in nested] for stripe in model.stripes
        ],
        "other streams": [
            [(s.column, s.kind, s.data) for s in stripe.streams if s.column not in nested] for stripe in model.stripes
        ],
        "types": [(t.kind, list(t.subtypes), list(t.fieldNames)) for t in model.footer.types],
    }


@pytest.mark.parametrize("name", NESTED_MUTATORS)
def test_nested_mutators_change_what_they_aim_at(corpus: list[fh.CorpusFile], name: str) -> None:
    """On the nested files each nested mutator changes the streams below a list, map, struct or union (or, for
    nested_kind, a compound type) and nothing else, in nearly every try."""
    files = [f for f in corpus if f.name.startswith("pyorc-nested")]
    change = fh.MUTATORS[name].change  # type: ignore[attr-defined]
    aimed = 0
    for seed in range(20):
        f = files[seed % len(files)]
        before = _nested_state(fh.decode_file(f.data))
        model = fh.decode_file(f.data)
        try:
            change(model, random.Random(seed))
        except LookupError:
            continue
        after = _nested_state(model)
        assert after["other streams"] == before["other streams"], name
        key = "types" if name == "nested_kind" else "streams"
        assert after["types" if key == "streams" else "streams"] == before["types" if key == "streams" else "streams"]
        aimed += after[key] != before[key]
        if name == "nested_kind":
            fh.encode_file(model)  # still a file
    assert aimed >= 16, f"{name} changed its target in {aimed} of 20 tries"


def test_nested_mutators_are_given_files_with_nested_types(corpus: list[fh.CorpusFile]) -> None:
    """A case of a nested mutator reads a file that has what the mutator aims at (a union for union_tags)."""
    kinds = {f.name: f.nested_kinds for f in corpus}
    assert kinds["pyorc-nested-none.orc"] == fh.COMPOUND
    assert kinds["TestOrcFile.testPredicatePushdown.orc"] == frozenset()
    for number in range(300):
        case = fh.make_case(number, corpus, seed=3, mutators=NESTED_MUTATORS)
        assert fh.AIMS[case.mutator] & kinds[case.file], (case.mutator, case.file)


@pytest.mark.parametrize(
    ("probe", "outcome"),
    [
        ("probe-crash", "crash"),
        ("probe-hang", "timeout"),
        ("probe-memory", "memory"),
        ("probe-other", "other"),
        ("probe-inconsistent", "inconsistent"),
    ],
)
def test_the_harness_tells_outcomes_apart(corpus: list[fh.CorpusFile], probe: str, outcome: str) -> None:
    """A worker that dies, hangs, blows up or misreads is charged to the case, and a fresh worker carries on."""
    valid = next(f for f in corpus if f.name == "pyarrow-zstd.orc")
    warm = [(valid.data, {"kind": kind}) for kind in ("full", "arrow")]
    worker = fh.Worker(timeout=5.0, memory_mb=200.0, warm=warm)
    try:
        case = fh.Case(0, valid.name, "none", {"kind": probe}, valid.data)
        got, detail = worker.run(case)
        assert got == outcome, detail
        after, detail = worker.run(fh.Case(1, valid.name, "none", {"kind": "full"}, valid.data))
        assert after == "ok", detail
        bad = fh.Case(2, valid.name, "none", {"kind": "full"}, valid.data[:-5])
        assert worker.run(bad)[0] == "orc_error"
    finally:
        worker.close()


def test_quick_fuzz_run(corpus: list[fh.CorpusFile], tmp_path: Path) -> None:
    report = fh.run_fuzz(corpus, QUICK_CASES, seed=20261121, jobs=2, timeout=30.0, memory_mb=1024.0)
    assert report.cases == QUICK_CASES
    # the mutations must reach both outcomes, or the run proves little
    assert report.counts["ok"] > QUICK_CASES // 10
    assert report.counts["orc_error"] > QUICK_CASES // 10
    assert set(report.by_mutator) == set(fh.MUTATORS)
    failures = "\n".join(
        f"{outcome}: case {case.number} ({case.mutator} on {case.file}, {case.mode}): {detail}"
        for case, outcome, detail in report.failures[:20]
    )
    assert report.bad == 0, f"{report.bad} bad outcomes:\n{report.table()}\n{failures}"
