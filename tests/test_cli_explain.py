"""``orcjit explain``: filter expressions parsed from the command line, typed by the file's columns, explained as
``ORCFile.explain`` explains the same filters written in Python."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from orcjit import OrcError, ORCFile
from orcjit.cli import main
from orcjit.pushdown.expressions import FilterExpression, Literal, filter_term, parse_filter_expression
from tests.factory import write_pyarrow

ROWS = 6000


@pytest.fixture(scope="module")
def orc_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six stripes of 1000 rows, row groups of 500; ``k`` sorted, ``s`` random keys with bloom filters."""
    rng = random.Random(4)
    keys = rng.sample(range(10**9), ROWS)
    table = pa.table(
        {
            "k": pa.array(range(ROWS), pa.int64()),
            "s": [f"key-{x:010d}" for x in keys],
            "f": [math.nan if i % 97 == 0 else i / 4 for i in range(ROWS)],
            "dec": pa.array([Decimal(i).scaleb(-2) for i in range(ROWS)], pa.decimal128(10, 2)),
            "d": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i // 10) for i in range(ROWS)], pa.date32()),
            "ts": pa.array([pd.Timestamp("2024-01-01").value + i * 10**9 for i in range(ROWS)], pa.timestamp("ns")),
            "tsl": pa.array([i * 10**12 for i in range(ROWS)], pa.timestamp("ns", tz="UTC")),
            "b": [i % 3 == 0 for i in range(ROWS)],
            "bin": [bytes([i % 256, 0]) for i in range(ROWS)],
            "n": pa.array([None if i % 2 else i for i in range(ROWS)], pa.int32()),
            "st": pa.array([{"a": i, "t": "x" * (i % 5)} for i in range(ROWS)]),
        }
    )
    return write_pyarrow(
        tmp_path_factory.mktemp("explain"),
        table,
        compression="uncompressed",
        stripe_size=1024,
        batch_size=1000,
        row_index_stride=500,
        bloom_filter_columns=["s"],
    )


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["explain", *(str(a) for a in args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def strict_json(text: str) -> Any:
    def reject(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=reject)


# -- parsing ---------------------------------------------------------------------------------------------------------


def parsed(text: str) -> tuple[str, str, tuple[Literal, ...]]:
    e = parse_filter_expression(text)
    assert isinstance(e, FilterExpression) and e.text == text
    return e.column, e.op, e.values


def lit(text: str, quoted: bool = False, binary: bytes | None = None) -> Literal:
    return Literal(text, quoted, binary)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x == 5", ("x", "==", (lit("5"),))),
        ("x=5", ("x", "==", (lit("5"),))),
        ("x = -5.5e3", ("x", "==", (lit("-5.5e3"),))),
        ("x!=5", ("x", "!=", (lit("5"),))),
        ("x <= 5", ("x", "<=", (lit("5"),))),
        ("x>=5", ("x", ">=", (lit("5"),))),
        ("x < 5", ("x", "<", (lit("5"),))),
        ("x >5", ("x", ">", (lit("5"),))),
        ("  x   ==   5  ", ("x", "==", (lit("5"),))),
        ("x in (1, 2,3)", ("x", "in", (lit("1"), lit("2"), lit("3")))),
        ("x IN(1)", ("x", "in", (lit("1"),))),
        ("x in [1, 2]", ("x", "in", (lit("1"), lit("2")))),
        ("x in (1,)", ("x", "in", (lit("1"),))),
        ("x in ()", ("x", "in", ())),
        ("x not in ('a', 'b,c', \"d)\")", ("x", "not in", (lit("a", True), lit("b,c", True), lit("d)", True)))),
        ("x NOT   IN (a b, c)", ("x", "not in", (lit("a b"), lit("c")))),
        ("x is null", ("x", "is null", ())),
        ("x IS NOT NULL", ("x", "is not null", ())),
        ("x is  not   null", ("x", "is not null", ())),
        ("st.a > 2", ("st.a", ">", (lit("2"),))),
        ("`my col` == 1", ("my col", "==", (lit("1"),))),
        ('"a<b" == 1', ("a<b", "==", (lit("1"),))),
        ("in == 5", ("in", "==", (lit("5"),))),
        ("index in (5)", ("index", "in", (lit("5"),))),
        ("s == hello world", ("s", "==", (lit("hello world"),))),
        ("s == 'it\\'s'", ("s", "==", (lit("it's", True),))),
        ('s == "a \\\\ b"', ("s", "==", (lit("a \\ b", True),))),
        ("s == ''", ("s", "==", (lit("", True),))),
        ("s == null", ("s", "==", (lit("null"),))),
        ("b == x'00ff'", ("b", "==", (lit("00ff", True, b"\x00\xff"),))),
        ("b in (X'01', x\"\")", ("b", "in", (lit("01", True, b"\x01"), lit("", True, b"")))),
        ("ts >= 2024-01-01 12:00:00", ("ts", ">=", (lit("2024-01-01 12:00:00"),))),
        ("s == 日本", ("s", "==", (lit("日本"),))),
    ],
)
def test_parse_filter_expression(text: str, expected: tuple[str, str, tuple[Literal, ...]]) -> None:
    assert parsed(text) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x", "no operator"),
        ("x ~ 5", "no operator"),
        ("x isnull", "no operator"),
        ("== 5", "column is missing"),
        ("x ==", "needs a value"),
        ("x ==   ", "needs a value"),
        ("x === 5", "unexpected '='"),
        ("x == <5", "unexpected '<'"),
        ("x in 5", "needs a list"),
        ("x in (1, 2", "closing"),
        ("x in (1 2) 3", "after the list"),
        ("x in ('a' 'b')", "separated by commas"),
        ("x in (1,,2)", "value is missing"),
        ("x is null 5", "takes no value"),
        ("x is not null x", "takes no value"),
        ("x == 'abc", "unterminated"),
        ("`x == 5", "unterminated"),
        ("x == 'a' b", "after the quoted value"),
        ("b == x'zz'", "not hexadecimal"),
    ],
)
def test_parse_filter_expression_errors(text: str, problem: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=problem) as info:
        parse_filter_expression(text)
    assert repr(text) in str(info.value) and "COLUMN OP VALUE" in str(info.value)


# -- typing by the column ---------------------------------------------------------------------------------------------


def term(text: str, orc_path: Path) -> tuple[Any, ...]:
    with ORCFile(orc_path) as orc:
        return filter_term(parse_filter_expression(text), orc.schema)


def test_filter_term_types(orc_path: Path) -> None:
    assert term("k == 5", orc_path) == ("k", "==", 5)
    assert term("k == 5.0", orc_path) == ("k", "==", 5)
    assert term("k < 2.5", orc_path) == ("k", "<", Decimal("2.5"))
    assert term("k == 1_000", orc_path) == ("k", "==", 1000)
    assert term("k == 123456789012345678901234567890", orc_path) == ("k", "==", 123456789012345678901234567890)
    assert term("k in (1, -2, 3e2)", orc_path) == ("k", "in", [1, -2, 300])
    assert term("n is null", orc_path) == ("n", "is null")
    assert term("n is not null", orc_path) == ("n", "is not null")
    value = term("f == nan", orc_path)[2]
    assert isinstance(value, float) and math.isnan(value)
    assert term("f >= -inf", orc_path) == ("f", ">=", -math.inf)
    assert term("f == 1e3", orc_path) == ("f", "==", 1000.0)
    assert term("dec == 1.10", orc_path) == ("dec", "==", Decimal("1.10"))
    assert term("dec < 0.1000000000000000055511151231257827", orc_path)[2] == Decimal(
        "0.1000000000000000055511151231257827"
    )  # exactly as written, never through a float
    assert term("s == 5", orc_path) == ("s", "==", "5")
    assert term("s == key 5", orc_path) == ("s", "==", "key 5")
    assert term("s in ('a, b', c)", orc_path) == ("s", "in", ["a, b", "c"])
    assert term("s == 'null'", orc_path) == ("s", "==", "null")
    assert term("s == null", orc_path) == ("s", "==", None)  # which the filters reject: use 'is null'
    assert term("bin == abc", orc_path) == ("bin", "==", b"abc")
    assert term("bin in (x'0100', 'é')", orc_path) == ("bin", "in", [b"\x01\x00", "é".encode()])
    assert term("b == TRUE", orc_path) == ("b", "==", True)
    assert term("b != 0", orc_path) == ("b", "!=", False)
    assert term("d >= 2024-02-29", orc_path) == ("d", ">=", "2024-02-29")  # the filters read ISO dates
    assert term("ts < 2024-01-01 00:10:00.5", orc_path) == ("ts", "<", "2024-01-01 00:10:00.5")
    assert term("st.a > 3", orc_path) == ("st.a", ">", 3)
    assert term("st.t == xx", orc_path) == ("st.t", "==", "xx")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("k == abc", "'abc' is not a number \\(k is bigint\\)"),
        ("k == nan", "'nan' is not a finite number"),
        ("k == 'x'", "'x' is not a number"),
        ("dec == 1,5", "'1,5' is not a number \\(dec is decimal\\)"),
        ("f > abc", "'abc' is not a number \\(f is double\\)"),
        ("b == yes", "'yes' is not true or false"),
        ("k == x'00'", "x'...' is for binary columns"),
        ("nope == 1", "no column 'nope' in the file; its columns are 'k', 's'"),
        ("st.nope == 1", "no column 'st.nope'"),
        ("st == 1", "column 'st' is a struct; filters test primitive columns"),
    ],
)
def test_filter_term_errors(text: str, problem: str, orc_path: Path) -> None:
    with pytest.raises(OrcError, match=problem) as info:
        term(text, orc_path)
    assert repr(text) in str(info.value)


# -- the command -------------------------------------------------------------------------------------------------------


def test_text_output_is_the_explanation(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, orc_path, "--filter", "k >= 2200", "--filter", "k < 2300")
    assert code == 0 and not err
    with ORCFile(orc_path) as orc:
        expected = str(orc.explain([("k", ">=", 2200), ("k", "<", 2300)]))
    assert out == expected + "\n"
    assert out.startswith("filters: k >= 2200 and k < 2300\nfile statistics: maybe\nstripes read: 1 of 6 ")
    assert out.count("skipped by stripe statistics") == 5
    assert "row groups kept 1 of 2 (skipped: 1 by statistics, 0 by bloom filter)" in out


def test_explanation_writes_values_as_the_filter_syntax_does(
    orc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # dates, timestamps (with a zone too) and decimals bare, strings quoted: the line reads back as --filter
    filters = ["d >= 2020-03-01", "ts > 2024-01-01 01:00:00.5", "tsl <= 1970-01-02T00:00:00+01:00"]
    filters += ["dec in (1.25, 59.99)", "s != 'key-1'"]
    code, out, _ = run(capsys, orc_path, *(arg for f in filters for arg in ("--filter", f)))
    assert code == 0
    first = out.splitlines()[0]
    assert first == (
        "filters: d >= 2020-03-01 and ts > 2024-01-01 01:00:00.500000 and tsl <= 1970-01-01 23:00:00+00:00"
        " and dec in [1.25, 59.99] and s != 'key-1'"
    )
    written = first.removeprefix("filters: ").split(" and ")
    code, again, _ = run(capsys, orc_path, *(arg for f in written for arg in ("--filter", f)))
    assert code == 0 and again == out


@pytest.mark.parametrize(
    ("expressions", "filters"),
    [
        (["k >= 2200", "k < 2300"], [("k", ">=", 2200), ("k", "<", 2300)]),
        (["d >= 2020-03-01", "d <= 2020-03-05"], [("d", ">=", dt.date(2020, 3, 1)), ("d", "<=", dt.date(2020, 3, 5))]),
        (["ts > 2024-01-01 01:00:00.5"], [("ts", ">", pd.Timestamp("2024-01-01 01:00:00.5"))]),
        (["tsl <= 1970-01-02T00:00:00+01:00"], [("tsl", "<=", pd.Timestamp("1970-01-01 23:00", tz="UTC"))]),
        (["dec in (1.25, 59.99, 100000)"], [("dec", "in", [Decimal("1.25"), Decimal("59.99"), Decimal(100000)])]),
        (["f != nan", "f > 10.5"], [("f", "!=", math.nan), ("f", ">", 10.5)]),
        (["b == true", "n is not null"], [("b", "==", True), ("n", "is not null")]),
        (["bin == x'0700'"], [("bin", "==", b"\x07\x00")]),
        (["st.a not in (1, 2)", "st.t == xxxx"], [("st.a", "not in", [1, 2]), ("st.t", "==", "xxxx")]),
    ],
)
def test_json_output_matches_explain(
    orc_path: Path, capsys: pytest.CaptureFixture[str], expressions: list[str], filters: list[Any]
) -> None:
    args = [a for e in expressions for a in ("--filter", e)]
    code, out, err = run(capsys, orc_path, *args, "--json")
    assert code == 0 and not err
    with ORCFile(orc_path) as orc:
        assert strict_json(out) == json.loads(json.dumps(orc.explain(filters).to_dict()))
    code, out, _ = run(capsys, orc_path, *args, "--any", "--json")
    assert code == 0
    with ORCFile(orc_path) as orc:
        assert strict_json(out) == json.loads(json.dumps(orc.explain([[f] for f in filters]).to_dict()))


def test_any_joins_with_or(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, orc_path, "--filter", "k < 10", "--filter", "k >= 5990", "--any", "--json")
    report = strict_json(out)
    assert code == 0 and report["filters"] == "k < 10 or k >= 5990"
    assert [s["read"] for s in report["stripes"]] == [True, False, False, False, False, True]
    code, out, _ = run(capsys, orc_path, "--filter", "k < 10", "--filter", "k >= 5990", "--json")
    assert strict_json(out)["stripes_read"] == 0  # both at once: no stripe holds such a row


def test_bloom_filters_show(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ORCFile(orc_path) as orc:
        key = orc.read(columns=["s"])["s"][4321]
    code, out, _ = run(capsys, orc_path, "--filter", f"s == '{key}'", "--json")
    report = strict_json(out)
    assert code == 0 and report["stripes_read"] == 1
    assert sum(s.get("row_groups_skipped_by_bloom_filter", 0) for s in report["stripes"]) >= 8


def test_columns_count_only_their_bytes(orc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, orc_path, "--filter", "k < 100", "--json")
    everything = strict_json(out)["bytes_to_read"]
    _, out, _ = run(capsys, orc_path, "--filter", "k < 100", "--columns", "k", "--json")
    only_k = strict_json(out)["bytes_to_read"]
    _, out, _ = run(capsys, orc_path, "--filter", "k < 100", "--columns", "k,st", "--json")
    k_and_struct = strict_json(out)["bytes_to_read"]
    assert 0 < only_k < k_and_struct < everything


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--filter", "k == abc"], "filter 'k == abc': 'abc' is not a number (k is bigint)"),
        (["--filter", "nope is null"], "filter 'nope is null': no column 'nope' in the file"),
        (["--filter", "s == null"], "comparing with None never matches; use 'is null' or 'is not null'"),
        (["--filter", "d == someday"], "'someday' is not a value of date column 'd'"),
        (["--filter", "k < 5", "--columns", "k,zz"], "no column 'zz' in the file"),
    ],
)
def test_errors_name_the_problem(
    orc_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, orc_path, *args)
    assert code == 1 and not out
    assert err.startswith("orcjit: error: ") and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--filter", "k ~ 5"], "invalid filter 'k ~ 5': no operator after the column 'k'"),
        (["--filter", "k in 5"], "'in' needs a list such as (1, 2, 3)"),
        ([], "the following arguments are required: --filter"),
    ],
)
def test_usage_errors(orc_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run(capsys, orc_path, *args)
    assert code == 2 and not out
    assert message in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, tmp_path / "absent.orc", "--filter", "k == 1")
    assert code == 1 and err.startswith("orcjit: error: ") and "absent.orc" in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--help"]) == 0
    out = capsys.readouterr().out
    for words in ("--filter EXPR", "--any", "--columns", "--json", "is null", "not in", "bloom filters", "examples:"):
        assert words in out
    assert main(["--help"]) == 0
    assert "orcjit explain data.orc --filter 'id == 42'" in capsys.readouterr().out
