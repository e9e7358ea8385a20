"""TIMESTAMP kernels: nanosecond decoding, combining seconds and nanoseconds, and the rule for times before 1970.

The rule ``s < 0 and nanos > 999999 -> s - 1`` (``s`` the stored seconds plus the writer's 2015 epoch) is checked
against what the real writers store and the real readers return: ORC Java (bytes written by ORC Java 2.3 through
Spark, kept here as hex, and the ORC example TestOrcFile.testTimestamp.orc), ORC C++ through pyorc (raw seconds and
nanoseconds in, raw out) and through pyarrow (which also writes negative nanoseconds).
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import random
import zoneinfo
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyorc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyorc.converters import ORCConverter

import orcjit
from orcjit.kernels.status import BAD_LENGTH, BAD_VALUE, OVERFLOW, SCRATCH_SIZE, check, new_state
from orcjit.kernels.timestamp import UTC_EPOCH_2015, combine_timestamp, decode_nanos

from .conftest import EXAMPLES
from .factory import write_pyarrow, write_pyorc

NS = 10**9
INT64_MAX = 2**63 - 1


# -- references --------------------------------------------------------------------------------------------------


def encode_nanos(nanos: int) -> int:
    """The SECONDARY value a writer stores for ``nanos``: trailing zeros past two counted in the low three bits
    (negative nanoseconds, as pyarrow writes them, as their 64-bit two's complement)."""
    if nanos == 0 or nanos % 100 != 0:
        return (nanos << 3) & (2**64 - 1)
    nanos //= 100
    zeros = 1
    while nanos % 10 == 0 and zeros < 7:
        nanos //= 10
        zeros += 1
    return ((nanos << 3) | zeros) & (2**64 - 1)


def ref_nanos(encoded: int) -> int | None:
    v = encoded - 2**64 if encoded >= 2**63 else encoded
    zeros = v & 7
    n = v >> 3
    if zeros:
        n *= 10 ** (zeros + 1)
    return n if -999_999_999 <= n <= 999_999_999 else None


def ref_combine(seconds: int, encoded: int, epoch: int) -> int | None:
    nanos = ref_nanos(encoded)
    if nanos is None:
        return None
    s = seconds + epoch
    if s < 0 and nanos > 999_999:
        s -= 1
    total = s * NS + nanos
    return total if -INT64_MAX <= total <= INT64_MAX else None


def test_encode_nanos_reference() -> None:
    # the spec's examples: 1000 ns -> 0x0a, 100000 ns -> 0x0c
    assert encode_nanos(1000) == 0x0A
    assert encode_nanos(100_000) == 0x0C
    for n in (0, 1, 10, 100, 999_999_999, 500_000_000, 123_456_789, 1000):
        assert ref_nanos(encode_nanos(n)) == n


def nanos_of(values: list[int]) -> np.ndarray:
    out = np.zeros(len(values), dtype=np.int64)
    assert decode_nanos(np.array(values, dtype=np.uint64), out) == len(values)
    return out


def combine(seconds: list[int], encoded: list[int], epoch: int = UTC_EPOCH_2015) -> np.ndarray:
    out = np.zeros(len(seconds), dtype=np.int64)
    result = combine_timestamp(np.array(seconds, dtype=np.int64), np.array(encoded, dtype=np.uint64), out, epoch)
    assert result == len(seconds)
    return out


# -- hand-made vectors ---------------------------------------------------------------------------------------------


def test_decode_nanos_spec_vectors() -> None:
    assert nanos_of([0x0A, 0x0C, 0, 8, 7999999992, 47, 13]).tolist() == [
        1000,
        100_000,
        0,
        1,
        999_999_999,
        500_000_000,
        1_000_000,
    ]


def test_decode_nanos_negative_and_invalid() -> None:
    # pyarrow stores -0.5 s as seconds 0 and nanos -500000000: encoded -33 as a 64-bit value
    assert nanos_of([2**64 - 33, (-999_999_999 << 3) & (2**64 - 1)]).tolist() == [-500_000_000, -999_999_999]
    out = np.zeros(4, dtype=np.int64)
    for bad in (NS << 3, (NS // 10) << 3 | 1, 2**63 - 1, 2**63, (10 << 3) | 7):
        assert decode_nanos(np.array([bad], dtype=np.uint64), out) == BAD_VALUE
    assert decode_nanos(np.zeros(5, dtype=np.int64), out) == BAD_LENGTH
    # int64 input (as the RLE decoders produce) reads the same bits
    assert decode_nanos(np.array([-33], dtype=np.int64), out) == 1 and out[0] == -500_000_000


def test_combine_negative_seconds_rule() -> None:
    epoch = UTC_EPOCH_2015
    rows = [
        # (stored seconds relative to 2015, nanos) -> ns since 1970
        ((-epoch - 1, 1_000_000), -2 * NS + 1_000_000),  # writer stored -1 for -1.999: corrected
        ((-epoch - 1, 999_999), -NS + 999_999),  # under a millisecond: stored exactly, no correction
        ((-epoch, 500_000_000), 500_000_000),  # -0.5 s stored as 0: no reader can tell, read as +0.5 s
        ((-1, 999_999_999), (epoch - 1) * NS + 999_999_999),  # before 2015, after 1970: never corrected
        ((-300_000_000 - epoch + 1, 123_456_789), (-300_000_000) * NS + 123_456_789),
        ((0, 0), epoch * NS),
    ]
    out = combine([s for (s, _), _ in rows], [encode_nanos(n) for (_, n), _ in rows])
    assert out.tolist() == [want for _, want in rows]


def test_combine_epoch_offset_of_writer_zone() -> None:
    la_epoch = int(dt.datetime(2015, 1, 1, tzinfo=zoneinfo.ZoneInfo("America/Los_Angeles")).timestamp())
    assert la_epoch == 1420099200
    # the correction looks at seconds since 1970 after the writer's epoch is added
    out = combine([-la_epoch - 1, -la_epoch - 1], [encode_nanos(5_000_000), encode_nanos(5)], la_epoch)
    assert out.tolist() == [-2 * NS + 5_000_000, -NS + 5]


def test_combine_overflow_bounds() -> None:
    top, bottom = INT64_MAX // NS, -(INT64_MAX // NS)  # 9223372036 s
    cases = [
        (top, 854_775_807, INT64_MAX),
        (top, 854_775_808, None),
        (top + 1, -145_224_193, INT64_MAX),  # only reachable with negative nanos
        (top + 1, -145_224_192, None),
        (bottom, -854_775_807, -INT64_MAX),
        (bottom, -854_775_808, None),  # -2**63 is NaT in numpy: refused
        (bottom - 1, 0, None),
        (2**62 + 1, 0, None),
        (-(2**62) - 1, 0, None),
        (2**63 - 1, 0, None),
        (-(2**63), 0, None),
    ]
    for seconds, nanos, want in cases:
        out = np.zeros(1, dtype=np.int64)
        encoded = np.array([(nanos << 3) & (2**64 - 1)], dtype=np.uint64)
        result = combine_timestamp(np.array([seconds], dtype=np.int64), encoded, out, 0)
        if want is None:
            assert result == OVERFLOW, (seconds, nanos)
        else:
            assert result == 1 and out[0] == want, (seconds, nanos)
    # pandas' own limits: 1677-09-21 .. 2262-04-11 (pandas 2.2 cannot parse the lower one from a string)
    lo, hi = int(pd.Timestamp.min.value), int(pd.Timestamp.max.value)
    assert (str(pd.Timestamp.min), str(pd.Timestamp.max)) == (
        "1677-09-21 00:12:43.145224193",
        "2262-04-11 23:47:16.854775807",
    )
    for value in (lo, hi):
        s, n = divmod(value, NS)
        # as ORC Java and C++ store it: seconds rounded toward zero
        stored = s + 1 if s < 0 and n > 999_999 else s
        assert combine([stored - UTC_EPOCH_2015], [encode_nanos(n)]).tolist() == [value]


def test_combine_errors() -> None:
    out = np.zeros(2, dtype=np.int64)
    two = np.zeros(2, dtype=np.int64)
    assert combine_timestamp(two, np.zeros(1, dtype=np.int64), out, 0) == BAD_LENGTH
    assert combine_timestamp(two, two, np.zeros(1, dtype=np.int64), 0) == BAD_LENGTH
    assert combine_timestamp(two, np.array([0, NS << 3]), out, 0) == BAD_VALUE
    assert combine_timestamp(two, two, out, 2**62 + 1) == OVERFLOW


# -- properties ------------------------------------------------------------------------------------------------------


@settings(deadline=None, max_examples=300)
@given(st.lists(st.integers(0, 2**64 - 1) | st.integers(-(10**9), 10**9).map(encode_nanos), max_size=40))
def test_decode_nanos_matches_reference(values: list[int]) -> None:
    out = np.zeros(len(values), dtype=np.int64)
    result = decode_nanos(np.array(values, dtype=np.uint64), out)
    want = [ref_nanos(v) for v in values]
    if any(w is None for w in want):
        assert result == BAD_VALUE
    else:
        assert result == len(values) and out.tolist() == want


@settings(deadline=None, max_examples=300)
@given(
    st.lists(
        st.tuples(
            st.integers(-(2**63), 2**63 - 1) | st.integers(-(10**10), 10**10),
            st.integers(-(10**9) + 1, 10**9 - 1).map(encode_nanos) | st.integers(0, 2**64 - 1),
        ),
        max_size=30,
    ),
    st.sampled_from([UTC_EPOCH_2015, 1420099200, 0, -(10**9)]),
)
def test_combine_matches_reference(rows: list[tuple[int, int]], epoch: int) -> None:
    seconds = np.array([s for s, _ in rows], dtype=np.int64)
    encoded = np.array([n for _, n in rows], dtype=np.uint64)
    out = np.zeros(len(rows), dtype=np.int64)
    result = combine_timestamp(seconds, encoded, out, epoch)
    want = []
    for s, n in rows:
        if ref_nanos(n) is None:
            assert result == BAD_VALUE
            return
        if abs(s) > 2**62:
            assert result == OVERFLOW
            return
        value = ref_combine(s, n, epoch)
        if value is None:
            assert result == OVERFLOW
            return
        want.append(value)
    assert result == len(rows) and out.tolist() == want


def test_random_inputs_only_return_codes() -> None:
    rng = np.random.default_rng(7)
    for _ in range(2000):
        n = int(rng.integers(0, 20))
        seconds = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
        encoded = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
        out = np.zeros(int(rng.integers(0, 22)), dtype=np.int64)
        result = combine_timestamp(seconds, encoded, out, int(rng.integers(-(2**40), 2**40)))
        assert result == n or result in (BAD_LENGTH, BAD_VALUE, OVERFLOW)
        result = decode_nanos(encoded, out)
        assert result == n or result in (BAD_LENGTH, BAD_VALUE)


# -- streams of real files --------------------------------------------------------------------------------------------


def column_streams(path: Path | bytes, column: int, stripe: int = 0) -> tuple[dict[str, bytes], str, int, str | None]:
    """The decompressed streams of ``column`` in ``stripe``, its encoding, the stripe's rows and writer zone."""
    with orcjit.ORCFile(path) as f:
        footer = f.stripe_footer(stripe)
        streams = {
            s.kind_name: f.meta.tail.decompress(f.source.read(s.offset, s.length), f"{s.kind_name} of {column}")
            for s in footer.streams
            if s.column == column
        }
        return streams, footer.encodings[column].kind_name, f.stripes[stripe].rows, footer.writer_timezone


def int_stream(raw: bytes, count: int, signed: bool, encoding: str) -> np.ndarray:
    """Decode an integer RLE stream with the project's RLE v1 / v2 kernels."""
    from orcjit.kernels.rle_v1 import decode_rle_v1
    from orcjit.kernels.rle_v2 import decode_rle_v2

    decode = decode_rle_v2 if encoding.endswith("_V2") else decode_rle_v1
    buf = np.frombuffer(raw, dtype=np.uint8)
    out = np.zeros(count, dtype=np.int64)
    state = new_state()
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    check(decode(buf, 0, len(buf), out, 0, count, signed, state, scratch), state, "integer stream")
    return out


def present_bits(streams: dict[str, bytes], rows: int) -> np.ndarray:
    from orcjit.kernels.boolean_rle import boolean_rle_values

    if "PRESENT" not in streams:
        return np.ones(rows, dtype=bool)
    return boolean_rle_values(streams["PRESENT"], rows)


def decode_timestamps(path: Path | bytes, column: int, epoch: int, stripe: int = 0) -> list[int | None]:
    """The column's values as ns since 1970 (None for nulls), through the RLE decoders and combine_timestamp."""
    streams, encoding, rows, _ = column_streams(path, column, stripe)
    present = present_bits(streams, rows)
    n = int(present.sum())
    seconds = int_stream(streams["DATA"], n, True, encoding)
    nanos = int_stream(streams["SECONDARY"], n, False, encoding)
    out = np.zeros(n, dtype=np.int64)
    assert combine_timestamp(seconds, nanos, out, epoch) == n
    values = iter(out.tolist())
    return [next(values) if p else None for p in present]


def zone_epoch(zone: str) -> int:
    return int(dt.datetime(2015, 1, 1, tzinfo=zoneinfo.ZoneInfo(zone)).timestamp())


class RawTimestamp(ORCConverter):
    """pyorc converter passing ORC C++'s (seconds, nanoseconds) through both ways."""

    @staticmethod
    def from_orc(seconds: int, nanoseconds: int, timezone: zoneinfo.ZoneInfo) -> tuple[int, int]:
        return seconds, nanoseconds

    @staticmethod
    def to_orc(obj: tuple[int, int], timezone: zoneinfo.ZoneInfo) -> tuple[int, int]:
        return obj


RAW = {pyorc.TypeKind.TIMESTAMP: RawTimestamp, pyorc.TypeKind.TIMESTAMP_INSTANT: RawTimestamp}

# (seconds, nanoseconds) since 1970 as ORC C++ takes them: before 1970 and before 2015, with and without
# sub-millisecond and sub-second parts, including the last second before 1970 that no reader gets back
RAW_TIMES = [
    (-1, 500_000_000),
    (-2, 1000),
    (-2, 999_000_000),
    (-2, 999_999),
    (-2, 1_000_000),
    (0, 500_000_000),
    (0, 1),
    (-300_000_000, 123_456_789),
    (-300_000_000, 0),
    (-2_208_988_800, 999_999_999),
    (1_420_070_399, 999_999_999),
    (1_420_070_400, 0),
    (1_420_070_300, 5_000_000),
    (100, 0),
    (4_102_444_800, 123),
]


@pytest.mark.parametrize("zone", ["UTC", "America/Los_Angeles", "Asia/Kolkata"])
@pytest.mark.parametrize("kind", ["timestamp", "timestamp with local time zone"])
def test_pyorc_raw_times_match_orc_cpp(tmp_path: Path, zone: str, kind: str) -> None:
    rows = [(t,) if i % 5 != 3 else (None,) for i, t in enumerate(RAW_TIMES * 3)]
    path = write_pyorc(tmp_path, f"struct<t:{kind}>", rows, timezone=zone, converters=RAW, compression="zlib")
    with open(path, "rb") as fh:
        back = [r[0] for r in pyorc.Reader(fh, converters=RAW, timezone=zoneinfo.ZoneInfo(zone))]
    # a timestamp column counts from the writer zone's 2015; an instant column from UTC's
    epoch = UTC_EPOCH_2015 if kind != "timestamp" else zone_epoch(zone)
    ours = decode_timestamps(path, 1, epoch)
    want = [None if b is None else b[0] * NS + b[1] for b in back]
    assert ours == want
    # and the one value no reader returns as written
    written = [None if r[0] is None else r[0][0] * NS + r[0][1] for r in rows]
    differ = {w for o, w in zip(ours, written, strict=True) if o != w}
    assert differ == {-NS // 2}


def test_pyarrow_negative_nanoseconds(tmp_path: Path) -> None:
    ns = [
        -500_000_000,
        -1_999_999_000,
        -1_001_000_000,
        -1_000_999_999,
        -1_000_000_001,
        -300_000_000_876_543_211,
        1,
        1_420_070_399_999_999_999,
        1_420_070_300_005_000_000,
        -1,
        -999_999,
        -1_000_000,
        -(2**63) + 1,
        2**63 - 1,
        None,
    ]
    table = pa.table(
        {
            "t": pa.array(ns, pa.timestamp("ns")),
            "u": pa.array(ns, pa.timestamp("ns", "America/New_York")),
        }
    )
    path = write_pyarrow(tmp_path, table, compression="uncompressed")
    streams, _, _, _ = column_streams(path, 1)
    # pyarrow does write negative nanoseconds: their 64-bit patterns end up in the "unsigned" stream
    assert any(v < 0 for v in int_stream(streams["SECONDARY"], 14, False, "DIRECT_V2"))
    read = pa_orc.read_table(path)
    for column in (1, 2):
        want = read.column(column - 1).cast(pa.int64()).to_pylist()
        assert want == ns
        assert decode_timestamps(path, column, UTC_EPOCH_2015) == ns


def test_pyorc_factory_datetimes(tmp_path: Path) -> None:
    values = [
        pd.Timestamp("1969-12-31 23:59:58.999999999"),
        pd.Timestamp("1900-01-01 00:00:00.000000001"),
        pd.Timestamp("2014-12-31 23:59:59.5"),
        pd.Timestamp("1678-01-01 00:00:00.000000001"),
        pd.Timestamp("2261-12-31 23:59:59.999999999"),
        pd.Timestamp("2015-06-01 12:00:00.25"),
    ]
    path = write_pyorc(tmp_path, "struct<t:timestamp>", [(v,) for v in values], timezone="Europe/Berlin")
    got = decode_timestamps(path, 1, zone_epoch("Europe/Berlin"))
    # naive values are wall clocks of the writer zone, by zoneinfo's rules (pandas 2.2 resolves a zone name through
    # pytz, whose rules before 1901 are the zone's rounded local mean time)
    want = [int(v.tz_localize(zoneinfo.ZoneInfo("Europe/Berlin")).value) for v in values]
    assert got == want


# bytes written by ORC Java 2.3.0 (Spark 4, session and JVM zone UTC) for a timestamp column of twelve rows; Spark
# reads them back as in JAVA_READ. Written were the same times except the first, 1969-12-31 23:59:59.5, which
# ORC Java stores as 0 seconds and reads back one second late, as every reader does.
JAVA_DATA = bytes.fromhex(
    "7600a9491bff18a9491c01780700cd9c084b00cd9c084d00a9491bff00a9491bff0012cea5ff01b09e18ff00a9491c0100a9491c01"
)
JAVA_SECONDARY = bytes.fromhex("6e0b00002f00000d001f3d7a11fa0f1202000e4200000a00002f00002f000000000000001f3a")
JAVA_READ = [
    "1970-01-01 00:00:00.5",
    "1969-12-31 23:59:58.001",
    "1969-12-31 23:59:58.999",
    "1969-12-31 23:59:58.999999",
    "1960-05-06 07:08:09.123456",
    "1960-05-06 07:08:09.000456",
    "1970-01-01 00:00:00.000001",
    "1970-01-01 00:00:00.5",
    "2010-01-01 00:00:00.5",
    "1900-01-01 00:00:00",
    "1969-12-31 23:59:59",
    "1969-12-31 23:59:59.000999",
]


def test_orc_java_written_streams() -> None:
    seconds = int_stream(JAVA_DATA, 12, True, "DIRECT_V2")
    nanos = int_stream(JAVA_SECONDARY, 12, False, "DIRECT_V2")
    # ORC Java truncated the seconds toward zero: 1969-12-31 23:59:58.001 is stored as -1 s, not -2
    assert seconds[1] + UTC_EPOCH_2015 == -1
    out = np.zeros(12, dtype=np.int64)
    assert combine_timestamp(seconds, nanos, out, UTC_EPOCH_2015) == 12
    assert out.tolist() == [int(pd.Timestamp(s).value) for s in JAVA_READ]


def expected_rows(name: str) -> list:
    with gzip.open(EXAMPLES / "expected" / f"{name}.jsn.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def wall_clock(ns: int | None, zone: str) -> pd.Timestamp | None:
    if ns is None:
        return None
    return pd.Timestamp(ns, unit="ns", tz="UTC").tz_convert(zone).tz_localize(None)


def test_example_test_timestamp() -> None:
    # ORC Java, Hive 0.11 (RLE v1), writer zone US/Pacific, all values before 2015 with sub-second parts
    path = EXAMPLES / "TestOrcFile.testTimestamp.orc"
    _, encoding, _, zone = column_streams(path, 0)
    assert encoding == "DIRECT" and zone == "US/Pacific"
    got = [wall_clock(ns, zone) for ns in decode_timestamps(path, 0, zone_epoch(zone))]
    assert got == [pd.Timestamp(s) for s in expected_rows("TestOrcFile.testTimestamp")]


def test_example_over1k_bloom() -> None:
    # ORC Java, Hive 0.12 (RLE v2); its stripe footers name no writer zone: the wall clock is read as UTC
    path = EXAMPLES / "over1k_bloom.orc"
    want = [None if r["_col8"] is None else pd.Timestamp(r["_col8"]) for r in expected_rows("over1k_bloom")]
    got: list = []
    with orcjit.ORCFile(path) as f:
        for stripe in range(f.nstripes):
            got += [wall_clock(ns, "UTC") for ns in decode_timestamps(path, 9, UTC_EPOCH_2015, stripe)]
    assert got == want


def test_dates_need_only_a_cast(tmp_path: Path) -> None:
    days = [-719162, -1, 0, 1, 16436, 2932896, None]
    path = write_pyarrow(tmp_path, pa.table({"d": pa.array(days, pa.int32()).cast(pa.date32())}))
    streams, encoding, rows, _ = column_streams(path, 1)
    present = present_bits(streams, rows)
    values = int_stream(streams["DATA"], int(present.sum()), True, encoding)
    assert values.astype("datetime64[D]").tolist() == [dt.date(1970, 1, 1) + dt.timedelta(d) for d in days[:-1]]


def test_random_times_through_pyarrow(tmp_path: Path) -> None:
    rng = random.Random(3)
    ns = [rng.randrange(-(2**63) + 1, 2**63) for _ in range(3000)]
    ns += [rng.randrange(-3 * NS, 3 * NS) for _ in range(500)]
    ns += [rng.randrange(-(10**18), 10**18) // 10**k * 10**k for k in range(10) for _ in range(50)]
    buf = io.BytesIO()
    pa_orc.write_table(pa.table({"t": pa.array(ns, pa.timestamp("ns"))}), buf)
    assert decode_timestamps(buf.getvalue(), 1, UTC_EPOCH_2015) == ns
