"""Time zones owned by orcjit (``orcjit.timezones``): every zone's table against ``zoneinfo`` from 1677 to 2262,
POSIX TZ rules against ``zoneinfo`` reading the same file, and the ORC C++ and ORC Java conventions against
references. Files written by ORC C++ and ORC Java are in tests/test_timezones_files.py.
"""

from __future__ import annotations

import datetime as dt
import io
import struct
import zoneinfo

import numpy as np
import pandas as pd
import pytest

from orcjit import timezones as tzs
from tests.factory import orc_cpp_wall_clock

ZONES = ("America/New_York", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe", "UTC")
# negative daylight saving time, 45-minute offsets, DST of two hours, rules at -1:00 and at 50:00
MORE_ZONES = ("Europe/Dublin", "Pacific/Chatham", "Antarctica/Troll", "America/Nuuk", "Asia/Gaza")
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH = dt.datetime(1970, 1, 1)
NS = 1_000_000_000
DAY = 86_400 * NS
LOW, HIGH = -(2**63) + 2 * DAY, 2**63 - 1 - 2 * DAY
JAVA_1900 = -2_208_988_800 * NS  # java.util.TimeZone's table starts at 1900-01-01 00:00:00 UTC
LA = "America/Los_Angeles"


def zoneinfo_offsets(zone: str, instants: np.ndarray) -> np.ndarray:
    """The reference: zoneinfo's UTC offset (ns) at each instant (ns since the epoch)."""
    tz = zoneinfo.ZoneInfo(zone)
    out = []
    for v in instants.tolist():
        seconds, nanos = divmod(v, NS)
        utc = EPOCH_UTC + dt.timedelta(seconds=seconds, microseconds=nanos // 1000)
        out.append(utc.astimezone(tz).utcoffset() // dt.timedelta(microseconds=1) * 1000)
    return np.array(out, dtype=np.int64)


def probes(rules: tzs.ZoneRules, rng: np.random.Generator, randoms: int, transitions: int | None = None) -> np.ndarray:
    """Random instants 1677-2262 and the table's transitions, each with the nanosecond either side."""
    starts = rules.starts[1:]
    if transitions is not None and len(starts) > transitions:
        starts = rng.choice(starts, transitions, replace=False)
    x = np.concatenate([rng.integers(LOW, HIGH, randoms), starts - 1, starts, starts + 1])
    return x[(x > LOW) & (x < HIGH)]


# -- the tables against zoneinfo --------------------------------------------------------------------------------


def test_every_zone_matches_zoneinfo() -> None:
    rng = np.random.default_rng(17)
    zones = sorted(zoneinfo.available_timezones())
    assert len(zones) > 400
    for zone in zones:
        rules = tzs.zone_rules(zone)
        x = probes(rules, rng, 40, 40)
        assert np.array_equal(rules.utcoffset(x), zoneinfo_offsets(zone, x)), zone
        # the other conventions differ from zoneinfo only before 1900 (Java) or before the first transition (C++)
        java = x[x >= JAVA_1900]
        assert np.array_equal(tzs.zone_rules(zone, tzs.ORC_JAVA).utcoffset(java), rules.utcoffset(java)), zone
        cpp = x[x >= rules.starts[min(1, len(rules.starts) - 1)]]
        assert np.array_equal(tzs.zone_rules(zone, tzs.ORC_CPP).utcoffset(cpp), rules.utcoffset(cpp)), zone


@pytest.mark.parametrize("zone", ZONES + MORE_ZONES)
def test_zone_matches_zoneinfo_at_every_transition(zone: str) -> None:
    rules = tzs.zone_rules(zone)
    rng = np.random.default_rng(len(zone))
    # every transition (the table's, then the rule's up to 2262) to the nanosecond, a grid every 9 days that would
    # see any transition the table missed, and random instants
    starts = rules.starts[1:]
    grid = np.arange(LOW, HIGH, 9 * DAY, dtype=np.int64)
    x = np.concatenate([probes(rules, rng, 2000), starts - NS, starts + NS - 1, grid])
    x = x[(x > LOW) & (x < HIGH)]
    assert np.array_equal(rules.utcoffset(x), zoneinfo_offsets(zone, x))
    assert np.array_equal(rules.to_wall(x), x + zoneinfo_offsets(zone, x))
    if zone != "UTC":
        assert len(starts) > 100 or zone == "Asia/Kolkata"  # the rule is expanded up to 2262
        assert zone == "Asia/Kolkata" or starts[-1] > pd.Timestamp("2261-01-01").value


@pytest.mark.parametrize("zone", ZONES + MORE_ZONES)
def test_wall_clocks_to_instants(zone: str) -> None:
    rules = tzs.zone_rules(zone)
    tz = zoneinfo.ZoneInfo(zone)
    rng = np.random.default_rng(len(zone) + 1)
    # wall clocks around every change of offset: where the clocks repeat and where they skip
    local_starts = rules.starts[1:] + rules.offsets[1:]
    local_ends = rules.starts[1:] + rules.offsets[:-1]
    edges = np.concatenate([local_starts, local_ends])
    walls = np.concatenate([rng.integers(LOW, HIGH, 500), edges - 1, edges, edges + 1])
    walls = walls[(walls > LOW) & (walls < HIGH)]
    got = rules.to_instant(walls)
    # zoneinfo's fold=0 is the earlier reading where clocks repeat and the offset before a gap, fold=1 the later
    # reading (and the offset after a gap)
    java_time = rules.to_instant(walls, nonexistent="keep_offset")
    later = rules.to_instant(walls, ambiguous="later", nonexistent="keep_offset")
    transitions = set(rules.starts.tolist())
    skipped = repeated = 0
    for i, (w, instant) in enumerate(zip(walls.tolist(), got.tolist(), strict=True)):
        seconds, nanos = divmod(w, NS)
        naive = EPOCH + dt.timedelta(seconds=seconds, microseconds=nanos // 1000)
        first, second = naive.replace(tzinfo=tz), naive.replace(tzinfo=tz, fold=1)
        fold0, fold1 = ((d - EPOCH_UTC) // dt.timedelta(microseconds=1) * 1000 + nanos % 1000 for d in (first, second))
        assert java_time[i] == fold0, (zone, naive)
        if first.astimezone(dt.UTC).astimezone(tz).replace(tzinfo=None) == naive:
            assert instant == fold0, (zone, naive)
            assert later[i] == fold1, (zone, naive)
            repeated += fold0 != fold1
        else:
            # skipped by the clocks: the first instant after the gap, a transition whose wall clock is past w
            skipped += 1
            assert instant in transitions, (zone, naive)
            assert rules.to_wall(np.array([instant]))[0] > w > rules.to_wall(np.array([instant - 1]))[0]
            assert later[i] == fold0
    if zone != "UTC":
        assert skipped and repeated, (skipped, repeated)
    # instants read back as wall clocks find themselves again, but for the later reading of a repeated hour
    x = probes(rules, rng, 2000)
    again = rules.to_instant(rules.to_wall(x))
    differ = again != x
    assert np.all(again[differ] < x[differ])
    assert np.array_equal(rules.to_wall(again[differ]), rules.to_wall(x[differ]))


def test_the_ends_of_the_nanosecond_range() -> None:
    # New York is on daylight saving time (-4:00) in April 2262, Kolkata on local mean time (+5:53:28) in 1677
    kolkata, new_york = tzs.zone_rules("Asia/Kolkata"), tzs.zone_rules("America/New_York")
    lmt = 21_208 * NS
    top, bottom = np.array([2**63 - 1]), np.array([-(2**63) + 1])
    assert new_york.to_wall(top)[0] == 2**63 - 1 - 4 * 3600 * NS
    assert kolkata.to_wall(bottom)[0] == -(2**63) + 1 + lmt
    with pytest.raises(OverflowError):
        kolkata.to_wall(top)
    with pytest.raises(OverflowError):
        new_york.to_wall(bottom)
    with pytest.raises(OverflowError):
        kolkata.to_instant(bottom)
    # pandas' NaT is the smallest int64: never a result
    with pytest.raises(OverflowError):
        kolkata.to_instant(np.array([-(2**63) + lmt]))
    assert kolkata.to_instant(np.array([-(2**63) + lmt + 1]))[0] == -(2**63) + 1
    with pytest.raises(OverflowError):
        new_york.to_instant(np.array([2**63 - 1]))


def test_zone_names() -> None:
    with pytest.raises(tzs.TimeZoneError, match="No/Such_Zone"):
        tzs.zone_rules("No/Such_Zone")
    with pytest.raises(tzs.TimeZoneError):
        tzs.zone_rules("../etc/passwd")
    with pytest.raises(ValueError, match="convention"):
        tzs.zone_rules("UTC", "pytz")
    # the names every implementation takes for UTC, and Java's custom ids
    for name in ("UTC", "GMT", "Z", "Etc/UTC", "Zulu"):
        assert tzs.zone_rules(name).is_utc
    for name, offset in (("GMT+05:30", 19_800), ("GMT-8", -28_800), ("UTC+0100", 3600), ("GMT+5", 18_000)):
        rules = tzs.zone_rules(name, tzs.ORC_JAVA)
        assert rules.fixed and rules.offsets[0] == offset * NS, name
    assert tzs.zone_rules("US/Pacific").same_rules(tzs.zone_rules(LA))
    assert not tzs.zone_rules(LA).same_rules(tzs.zone_rules("America/New_York"))
    assert tzs.zone_rules(LA) is tzs.zone_rules(LA)  # cached
    assert tzs.convention_of_writer("ORC_CPP") == tzs.convention_of_writer(1) == tzs.ORC_CPP
    for writer in ("ORC_JAVA", 0, None, "TRINO", 4, "PRESTO"):
        assert tzs.convention_of_writer(writer) == tzs.ORC_JAVA


def test_orc_epoch() -> None:
    # 2015-01-01 00:00:00 in the zone, as both implementations find it
    for zone in ZONES:
        expected = int(dt.datetime(2015, 1, 1, tzinfo=zoneinfo.ZoneInfo(zone)).timestamp())
        for convention in tzs.CONVENTIONS:
            assert tzs.orc_epoch_seconds(tzs.zone_rules(zone, convention)) == expected


# -- POSIX TZ rules, against zoneinfo reading the same file -------------------------------------------------------


def tzif(rule: str, transitions: tuple[tuple[int, int], ...] = (), types: tuple[tuple[int, bool], ...] = ()) -> bytes:
    """A TZif version 2 file: ``transitions`` (UTC seconds, type index) into ``types`` (offset, is DST), then
    ``rule`` as its footer."""
    types = types or ((0, False),)
    names = b"AAA\x00"

    def block(time_format: str) -> bytes:
        header = b"TZif2" + bytes(15) + struct.pack(">6l", 0, 0, 0, len(transitions), len(types), len(names))
        times = b"".join(struct.pack(time_format, t) for t, _ in transitions)
        kinds = bytes(k for _, k in transitions)
        records = b"".join(struct.pack(">lBB", offset, dst, 0) for offset, dst in types)
        return header + times + kinds + records + names

    v1 = [(t, k) for t, k in transitions if -(2**31) <= t < 2**31]
    assert len(v1) == len(transitions)
    return block(">l") + block(">q") + b"\n" + rule.encode() + b"\n"


RULES = [
    "EST5EDT,M3.2.0,M11.1.0",
    "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
    "IST-1GMT0,M10.5.0,M3.5.0/1",  # negative daylight saving time
    "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",  # transitions at -1:00
    "EET-2EEST,M3.4.4/50,M10.4.4/50",  # at 50:00
    "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3",  # two hours of DST
    "AAA3BBB,J60/2,J300/2",  # Julian days, February 29 never counted
    "AAA-5:45BBB-6:45,M9.5.0/2:45,M4.1.0/3:45",
    "<-0930>9:30",
    "XXX-14",
]


@pytest.mark.parametrize("rule", RULES)
def test_posix_rules_as_zoneinfo_reads_them(rule: str) -> None:
    rng = np.random.default_rng(len(rule))
    alone = tzif(rule)
    # a table first, the rule after its last transition (1990-01-01, into the rule's offset then)
    end = 631_152_000
    at_end = zoneinfo.ZoneInfo.from_file(io.BytesIO(alone)).utcoffset(dt.datetime(1990, 1, 1, 12))
    table = tzif(rule, ((-1_000_000_000, 1), (end, 0)), ((at_end // dt.timedelta(seconds=1), False), (7200, True)))
    for data in (alone, table):
        reference = zoneinfo.ZoneInfo.from_file(io.BytesIO(data))
        rules = tzs.rules_from_tzif(data, "test")
        x = probes(rules, rng, 3000)
        expected = []
        for v in x.tolist():
            seconds, nanos = divmod(v, NS)
            utc = EPOCH_UTC + dt.timedelta(seconds=seconds, microseconds=nanos // 1000)
            expected.append(utc.astimezone(reference).utcoffset() // dt.timedelta(microseconds=1) * 1000)
        assert np.array_equal(rules.utcoffset(x), np.array(expected)), rule
        walls = rules.to_wall(x)
        assert np.array_equal(rules.to_wall(rules.to_instant(walls)), walls)


def test_zero_based_day_rules() -> None:
    # POSIX "n": day n counted from 0 on January 1, February 29 counted. No zone of the IANA database uses the form;
    # zoneinfo puts such days one day early (pinned below), ORC C++ reads them as POSIX says, as orcjit does
    rule = "AAA3BBB,59/25,300/-1"
    data = tzif(rule)
    rules = tzs.rules_from_tzif(data, "test")
    reference = zoneinfo.ZoneInfo.from_file(io.BytesIO(data))
    for year in (1970, 2000, 2023, 2024, 2100, 2261):
        jan1 = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
        start = jan1 + dt.timedelta(days=59, hours=25) + dt.timedelta(hours=3)  # local standard time is UTC-3
        end = jan1 + dt.timedelta(days=300, hours=-1) + dt.timedelta(hours=2)  # local daylight time is UTC-2
        for at, offset in ((start, -2), (end, -3)):
            ns = (at - EPOCH_UTC) // dt.timedelta(microseconds=1) * 1000
            assert rules.utcoffset(np.array([ns - 1, ns])).tolist() == [(-5 - offset) * 3600 * NS, offset * 3600 * NS]
            day_early = at - dt.timedelta(days=1)
            assert day_early.astimezone(reference).utcoffset() == dt.timedelta(hours=offset)


def test_irregular_zone_data() -> None:
    # offsets that change faster than they move the clocks: instants still read as wall clocks, but wall clocks
    # cannot be placed
    data = tzif("AAA0", ((0, 1), (3600, 0), (3601, 1)), ((0, False), (-7200, False)))
    rules = tzs.rules_from_tzif(data, "test")
    x = np.array([0, 3600 * NS, 3601 * NS, -1])
    assert rules.to_wall(x).tolist() == [-7200 * NS, 3600 * NS, -3599 * NS, -1]
    with pytest.raises(tzs.TimeZoneError, match="too close"):
        rules.to_instant(x)


@pytest.mark.parametrize(
    "data",
    [b"", b"TZif2" + bytes(10), b"NOPE" + bytes(60), tzif("EST5EDT,M13.2.0,M11.1.0"), tzif("EST5EDT,M3.2.0")],
    ids=["empty", "truncated", "not-tzif", "bad-month", "one-date"],
)
def test_unreadable_zone_data(data: bytes) -> None:
    with pytest.raises(tzs.TimeZoneError):
        tzs.rules_from_tzif(data, "test")


# -- ORC C++'s convention ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("zone", (*ZONES, "Europe/Dublin"))
def test_orc_cpp_rules_against_a_reference(zone: str) -> None:
    # zoneinfo's offsets, but the first standard-time transition's before the first transition
    rules = tzs.zone_rules(zone, tzs.ORC_CPP)
    rng = np.random.default_rng(len(zone) + 2)
    x = probes(rules, rng, 1500, 300)
    expected = [orc_cpp_wall_clock(pd.Timestamp(v, tz="UTC"), zone).value for v in x.tolist()]
    assert rules.to_wall(x).tolist() == expected


def test_orc_java_rules_before_1900() -> None:
    # java.util.TimeZone: the zone's standard offset before 1900 (the negative DST of Dublin's rule read as Java's
    # rearguard data has it), zoneinfo's from 1900 on
    before = np.array([JAVA_1900 - 1, pd.Timestamp("1800-01-01").value, LOW])
    for zone, raw in [(LA, -8), ("Asia/Kolkata", 5.5), ("Australia/Lord_Howe", 10.5), ("Europe/Dublin", 0), ("UTC", 0)]:
        rules = tzs.zone_rules(zone, tzs.ORC_JAVA)
        assert (rules.utcoffset(before) == int(raw * 3600) * NS).all(), zone
        at = np.array([JAVA_1900])
        assert rules.utcoffset(at)[0] == zoneinfo_offsets(zone, at)[0]
