"""Time zone rules owned by orcjit: the IANA database as vectorised transition tables.

ORC ``timestamp`` columns hold the wall clock the writer saw in its time zone (the stripe footer's
``writerTimezone``); reading them, and Spark's view of them, needs the zone's offset from UTC at tens of millions
of instants. pandas cannot be trusted with that: pandas 2 resolves a zone *name* through pytz, whose rules stop in
2037 and lose transitions before 1901. So orcjit reads the zone's rules itself, from the same files ``zoneinfo``
uses (each directory of ``zoneinfo.TZPATH``, then the ``tzdata`` package), and turns them into a table: the
instants (int64 nanoseconds since the epoch, UTC) where the offset changes and the offset from each on. After the
file's last transition the zone's POSIX TZ rule (the file's footer, e.g. ``EST5EDT,M3.2.0,M11.1.0``) is
expanded year by year, exactly as ``zoneinfo`` evaluates it, up to the end of the nanosecond range (2262). Tables
hold a few hundred entries and are cached per zone and convention; a lookup is a handful of NumPy operations per
array (each value's bucket of 2**47 ns names the period in force where the bucket starts, one comparison finds its
own), 0.2 s for 10 million random instants, with no Python per value.

Conventions
-----------
The IANA data, ORC Java and ORC C++ agree on every offset from 1900-01-01 00:00 UTC on, for every zone whose data
has no transitions listed past 2037 (all but Africa/Casablanca, Africa/El_Aaiun, Asia/Gaza and Asia/Hebron). They
disagree about earlier instants, measured with ORC Java 2.3 (``java.util.TimeZone``, as Spark 4.3 ships it),
ORC C++ 2.x (pyarrow 26, pyorc 0.12) and ``zoneinfo``:

``IANA``  (``zoneinfo``)
    Before a zone's first transition, its first standard-time type: usually local mean time (LMT, e.g. -4:56:02
    in America/New_York until 1883-11-18).
``ORC_JAVA``  (``java.util.TimeZone``, which ORC Java's reader and writer use)
    The table starts at 1900-01-01 00:00:00 UTC; before it, the zone's *current* standard offset (its raw
    offset: -5:00 in New York, +5:30 in Asia/Kolkata, +10:30 in Australia/Lord_Howe, whose clocks then read
    +10:36:20 LMT and, in 1895-1900, +10:00). Where the current rules have negative daylight saving time (e.g.
    Europe/Dublin) Java takes the winter offset as the standard one, as its rearguard data does. After 2037 Java
    follows the zone's recurring rules; the four zones above list transitions after 2037 that Java does not keep
    (their tables here keep them: a difference left documented).
``ORC_CPP``  (``orc::Timezone``, which ORC C++'s reader and writer use)
    Before the first transition, the type of the first transition into standard time (EST in New York, HMT
    +5:53:20 in Asia/Kolkata, AEST +10:00 in Australia/Lord_Howe), never LMT.

:func:`convention_of_writer` picks the convention of the implementation a file's footer names: ORC C++ for
``ORC_CPP`` files, ORC Java for every other writer (Java is the reference implementation; Hive, Spark and the
JVM readers of other writers' files use its rules). Both implementations compute a column's statistics with their
own convention, so reading with the writer's keeps values and statistics consistent (with ``zoneinfo``'s local
mean time, a filter between the two readings of a value before 1883 in New York lost the row to pruning).

The rules are the installed IANA data's. ORC C++ reads the same files (``/usr/share/zoneinfo`` or ``TZDIR``); Java
brings its own copy, compiled without the ``backzone`` file some systems build from (Debian's tzdata does): there
zones that IANA merged into others (Africa/Accra, Europe/Amsterdam, CET, ...) keep their own histories before
1980, and Java and orcjit can differ for them. Java also turns the current rules of Africa/Casablanca,
Africa/El_Aaiun and Africa/Windhoek into another standard offset (before 1900, and for Windhoek after 2037 too).

Per-value quirks of the implementations are not copied. When its zone differs from the writer's (pyarrow reads in
UTC), ORC C++'s reader looks up the offset of an instant before 1970 with a fraction of a millisecond or more one
second late (at the second its writer stores), so an instant in the last second before a transition gets the next
period's offset, and it takes that second back by the sign of the wall clock instead of the instant's, a second
off where the two lie on either side of 1970. orcjit uses the instant itself.

Wall clocks to instants (:meth:`ZoneRules.to_instant`) needs a rule where clocks repeat or skip: by default a
wall clock that occurs twice (a transition back) gives the *earlier* instant; one that never occurs (a transition
forward) gives the transition instant, the first that exists after the gap (pandas' ``nonexistent="shift_forward"``,
what orcjit's Spark conversion has always done: ORC Java never turns wall clocks into instants when it reads).
Spark's own rebasing of instants before 1900 takes ``java.time``'s rules instead (the later instant, the offset
before the gap).

POSIX rules are read as POSIX defines them. CPython's ``zoneinfo`` puts a zero-based day (``n``) one day early and
ORC C++ a one-based Julian day (``Jn``) one day late; no zone of the IANA database uses either form.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from .zonefiles import TimeZoneError, TZif, parse_rule, parse_tzif, zone_file

__all__ = [
    "IANA",
    "ORC_CPP",
    "ORC_JAVA",
    "UTC_NAMES",
    "TimeZoneError",
    "ZoneRules",
    "convention_of_writer",
    "orc_epoch_seconds",
    "rules_from_tzif",
    "zone_rules",
]

IANA = "iana"
ORC_JAVA = "orc-java"
ORC_CPP = "orc-cpp"
CONVENTIONS = (IANA, ORC_JAVA, ORC_CPP)

# names that mean UTC to every implementation, whether or not a zone file is installed under them
UTC_NAMES = frozenset(
    {"UTC", "GMT", "Z", "UCT", "Zulu", "Universal", "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Zulu", "Etc/Universal"}
)

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_NS = 1_000_000_000
_DAY = 86_400
# java.util.TimeZone keeps transitions from 1900-01-01 00:00:00 UTC on (sun.util.calendar.ZoneInfoFile)
_JAVA_TABLE_START = -2_208_988_800
# rules are expanded up to a year past the last instant int64 nanoseconds reach (2262-04-11)
_LAST_YEAR = 2263
_ORC_EPOCH_WALL = 1_420_070_400  # 2015-01-01 00:00:00 as seconds of a naive wall clock
# Java's custom zone ids: GMT+h, GMT+hh, GMT+hh:mm, GMT+hhmm (and the same after UTC)
_JAVA_CUSTOM = re.compile(r"^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$")


# -- tables ------------------------------------------------------------------------------------------------------


def _utc_year(seconds: int) -> int:
    return (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)).year


def _iana_periods(tz: TZif, name: str) -> tuple[int, list[tuple[int, int]]]:
    """``(offset before the first change, [(utc_seconds, offset from then on), ...])`` as ``zoneinfo`` reads the
    file: the table, then the TZ rule after the last transition (or the last type, without a rule)."""
    rule = parse_rule(tz.rule, name) if tz.rule else None
    types = tz.type_of
    # before the first transition: the first standard-time type of the file (zoneinfo's choice)
    before = next((tz.offsets[i] for i, dst in enumerate(tz.is_dst) if not dst), None)
    if before is None:
        before = tz.offsets[types[0]] if types else tz.offsets[0]
    changes = [(t, tz.offsets[k]) for t, k in zip(tz.transitions, types, strict=True)]
    if rule is None:
        if not changes:
            return tz.offsets[-1], []
        return before, changes
    if not changes:
        # the rule alone, from the first year the nanosecond range reaches
        first = _utc_year(_INT64_MIN // _NS) - 1
        periods = [p for year in range(first, _LAST_YEAR + 1) for p in rule.year_changes(year)]
        return periods[0][1], periods[1:]
    # the rule takes over one second after the last transition (zoneinfo and ORC C++ both use the table there)
    after = changes[-1][0] + 1
    year = _utc_year(after)
    following = [p for y in range(year, _LAST_YEAR + 1) for p in rule.year_changes(y)]
    at_after = [p for p in following if p[0] <= after][-1][1]
    changes.append((after, at_after))
    changes += [p for p in following if p[0] > after]
    return before, changes


def _convention_periods(tz: TZif, name: str, convention: str) -> tuple[int, list[tuple[int, int]]]:
    before, changes = _iana_periods(tz, name)
    if convention == ORC_CPP:
        # orc::Timezone: before the first transition, the first transition's standard-time type
        first_std = next((tz.offsets[k] for k in tz.type_of if not tz.is_dst[k]), tz.offsets[0])
        return (first_std if tz.transitions else before), changes
    if convention == ORC_JAVA:
        rule = parse_rule(tz.rule, name) if tz.rule else None
        if rule is not None:
            raw = rule.raw
        else:
            standard = [tz.offsets[k] for k in tz.type_of if not tz.is_dst[k]]
            raw = standard[-1] if standard else tz.offsets[-1]
        at_start = before
        for t, offset in changes:
            if t > _JAVA_TABLE_START:
                break
            at_start = offset
        later = [(t, offset) for t, offset in changes if t > _JAVA_TABLE_START]
        return raw, [(_JAVA_TABLE_START, at_start), *later]
    return before, changes


def _clip(value: int) -> int:
    return min(max(value, _INT64_MIN), _INT64_MAX)


@dataclass(frozen=True, eq=False)
class ZoneRules:
    """One zone's offsets from UTC at every instant int64 nanoseconds reach, in one convention.

    ``starts[i]`` (int64 ns since the epoch, UTC; ``starts[0]`` is the smallest int64) is where ``offsets[i]``
    (ns east of UTC) takes effect. Build it with :func:`zone_rules`.
    """

    name: str
    convention: str
    starts: np.ndarray
    offsets: np.ndarray
    # local wall clocks where each period starts and ends, and the UTC start of the next period (wall -> instant)
    _local_starts: np.ndarray = field(repr=False)
    _local_ends: np.ndarray = field(repr=False)
    _prev_local_ends: np.ndarray = field(repr=False)
    _next_starts: np.ndarray = field(repr=False)
    _regular: bool = field(repr=False)  # whether wall clocks can be looked up (see from_periods)

    @classmethod
    def from_periods(cls, name: str, convention: str, before: int, changes: Iterable[tuple[int, int]]) -> ZoneRules:
        """The table of offset ``before`` (seconds) until the first change, then each ``(utc_seconds, offset)``."""
        periods = [(_INT64_MIN, before * _NS)]
        for t, offset in changes:
            start = t * _NS
            if start <= _INT64_MIN:
                periods[0] = (_INT64_MIN, offset * _NS)
            elif start <= _INT64_MAX and offset * _NS != periods[-1][1]:
                if start <= periods[-1][0]:
                    raise TimeZoneError(f"time zone {name!r}: transitions out of order")
                periods.append((start, offset * _NS))
        starts = [p[0] for p in periods]
        offsets = [p[1] for p in periods]
        n = len(periods)
        local_starts = [_INT64_MIN] + [_clip(starts[i] + offsets[i]) for i in range(1, n)]
        local_ends = [_clip(starts[i + 1] + offsets[i]) for i in range(n - 1)] + [_INT64_MAX]
        # wall clocks are looked up by where each period starts locally: that takes starts in order and no wall
        # clock in more than two periods, which every zone has (not an arbitrary zone file)
        regular = all(
            local_starts[i] > local_starts[i - 1] and (i < 2 or local_ends[i - 2] <= local_starts[i])
            for i in range(1, n)
        )
        starts_array = np.array(starts, dtype=np.int64)
        local_starts_array = np.array(local_starts, dtype=np.int64)
        return cls(
            name,
            convention,
            starts_array,
            np.array(offsets, dtype=np.int64),
            local_starts_array,
            np.array(local_ends, dtype=np.int64),
            np.array([_INT64_MIN, *local_ends[:-1]], dtype=np.int64),
            np.array([*starts[1:], _INT64_MAX], dtype=np.int64),
            regular,
        )

    # the lookup indexes (256 KB each) are built when first needed: reads only ever need the first
    @functools.cached_property
    def _by_instant(self) -> _Index:
        return _Index.of(self.starts)

    @functools.cached_property
    def _by_wall(self) -> _Index:
        return _Index.of(self._local_starts)

    @property
    def fixed(self) -> bool:
        """Whether the zone has one offset at every instant."""
        return len(self.offsets) == 1

    @property
    def is_utc(self) -> bool:
        return self.fixed and int(self.offsets[0]) == 0

    def same_rules(self, other: ZoneRules) -> bool:
        """Whether the two zones give the same offset at every instant (as Java's ``TimeZone.hasSameRules``)."""
        return np.array_equal(self.starts, other.starts) and np.array_equal(self.offsets, other.offsets)

    def utcoffset(self, instants: np.ndarray) -> np.ndarray:
        """The offset (ns east of UTC) at each instant (int64 ns since the epoch, UTC)."""
        x = np.asarray(instants, dtype=np.int64)
        if self.fixed:
            return np.full(x.shape, self.offsets[0], dtype=np.int64)
        return self.offsets[self._by_instant.find(x)]

    def to_wall(self, instants: np.ndarray) -> np.ndarray:
        """The wall clock (int64 ns since 1970-01-01 00:00 local) at each instant (int64 ns since the epoch, UTC).

        Raises
        ------
        OverflowError
            When a wall clock falls outside the int64 nanoseconds (or is the smallest int64, pandas' NaT).
        """
        x = np.asarray(instants, dtype=np.int64)
        offsets = self.utcoffset(x)
        return _checked_add(x, offsets, "wall clock")

    def to_instant(
        self, walls: np.ndarray, ambiguous: str = "earlier", nonexistent: str = "shift_forward"
    ) -> np.ndarray:
        """The instant (int64 ns since the epoch, UTC) of each wall clock (int64 ns since 1970-01-01 00:00 local).

        Parameters
        ----------
        walls : numpy.ndarray of int64
        ambiguous : {"earlier", "later"}
            Which instant a wall clock the clocks show twice (they went back) stands for.
        nonexistent : {"shift_forward", "keep_offset"}
            For a wall clock the clocks skipped (they went forward): the transition instant, the first after the
            gap (pandas' ``shift_forward``), or the instant the offset before the gap gives, as many past the
            transition as the wall clock lies past the gap's start (``java.time``).

        Raises
        ------
        OverflowError
            When an instant falls outside the int64 nanoseconds (or is the smallest int64).
        """
        if ambiguous not in ("earlier", "later") or nonexistent not in ("shift_forward", "keep_offset"):
            raise ValueError(f"unknown rule for repeated or skipped wall clocks: {ambiguous!r}, {nonexistent!r}")
        w = np.asarray(walls, dtype=np.int64)
        if self.fixed:
            return _checked_add(w, np.full(w.shape, -self.offsets[0], dtype=np.int64), "instant")
        if not self._regular:
            raise TimeZoneError(f"time zone {self.name!r}: transitions too close together to read wall clocks")
        # the last period whose local start is at or before the wall clock: the later reading where clocks repeat
        period = self._by_wall.find(w)
        if ambiguous == "earlier":
            # the wall clock also falls in the period before (the clocks went back): the earlier instant is there
            period -= w < self._prev_local_ends[period]
        gap = w >= self._local_ends[period]
        if nonexistent == "keep_offset" or not gap.any():
            return _checked_add(w, -self.offsets[period], "instant")
        gap &= period < len(self.starts) - 1  # the last period has no end (the largest int64 stands for it)
        instants = _checked_add(w, -self.offsets[period], "instant", gap)
        instants[gap] = self._next_starts[period[gap]]
        return instants


_BUCKET_SHIFT = 47  # buckets of 2**47 ns (39 hours): 131,072 over the int64 range
_BUCKET_BIAS = 1 << (63 - _BUCKET_SHIFT)


@dataclass(frozen=True)
class _Index:
    """Where a value falls in a sorted table of period starts (``starts[0]`` the smallest int64), by buckets.

    ``numpy.searchsorted`` costs a binary search per value (0.5 s for 10M random instants); instead each value's
    bucket (its top bits) gives the period in force where the bucket starts, and one comparison with the next
    start finds its own. A bucket rarely holds two transitions; a loop catches those values (0.14 s).
    """

    starts: np.ndarray  # the table, then the largest int64 twice
    first: np.ndarray  # the period in force at the start of each bucket

    @classmethod
    def of(cls, starts: np.ndarray) -> _Index:
        edges = (np.arange(2 * _BUCKET_BIAS, dtype=np.int64) - _BUCKET_BIAS) << _BUCKET_SHIFT
        first = np.searchsorted(starts, edges, side="right") - 1
        dtype = np.int16 if len(starts) < 2**15 else np.int32
        return cls(np.append(starts, np.array([_INT64_MAX, _INT64_MAX], dtype=np.int64)), first.astype(dtype))

    def find(self, values: np.ndarray) -> np.ndarray:
        """The index of the last start at or before each value."""
        last = len(self.starts) - 3
        period = self.first[(values >> _BUCKET_SHIFT) + _BUCKET_BIAS].astype(np.int64)
        period += values >= self.starts[period + 1]
        later = values >= self.starts[period + 1]
        while later.any():
            # a bucket holding more than one start (or the largest int64, which the sentinel matches)
            later &= period < last
            period += later
            later = values >= self.starts[period + 1]
            later &= period < last
        return np.minimum(period, last, out=period)


def _checked_add(x: np.ndarray, y: np.ndarray, what: str, ignore: np.ndarray | None = None) -> np.ndarray:
    out = x + y
    if len(x) and (x.min() < _INT64_MIN + _DAY * _NS or x.max() > _INT64_MAX - _DAY * _NS):
        # offsets are under a day: only values this close to the ends can wrap around
        bad = (((x ^ out) & (y ^ out)) < 0) | (out == _INT64_MIN)
        if ignore is not None:
            bad &= ~ignore
        if bad.any():
            raise OverflowError(f"a {what} outside the years 1677-2262 that int64 nanoseconds reach")
    return out


# -- entry points ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def zone_rules(name: str, convention: str = IANA) -> ZoneRules:
    """The rules of IANA zone ``name`` (or a UTC alias, or Java's ``GMT+hh:mm``) in ``convention``.

    Parameters
    ----------
    name : str
        A zone key such as ``"America/New_York"``.
    convention : {"iana", "orc-java", "orc-cpp"}
        Whose reading of the instants before the zone's first transition (see the module docstring).

    Returns
    -------
    ZoneRules
        Cached: later calls with the same arguments return the same table.

    Raises
    ------
    TimeZoneError
        If the zone is unknown or its data cannot be read.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    if name in UTC_NAMES:
        return ZoneRules.from_periods(name, convention, 0, [])
    custom = _JAVA_CUSTOM.match(name)
    if custom is not None:
        sign, hours, minutes = custom.groups()
        offset = (int(hours) * 3600 + int(minutes or 0) * 60) * (-1 if sign == "-" else 1)
        if int(hours) > 23 or int(minutes or 0) > 59:
            raise TimeZoneError(f"unknown time zone {name!r}")
        return ZoneRules.from_periods(name, convention, offset, [])
    return rules_from_tzif(zone_file(name), name, convention)


def rules_from_tzif(data: bytes, name: str, convention: str = IANA) -> ZoneRules:
    """The rules a TZif file (RFC 8536, as ``zoneinfo.ZoneInfo.from_file`` reads) holds, named ``name``."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    tz = parse_tzif(data, name)
    before, changes = _convention_periods(tz, name, convention)
    return ZoneRules.from_periods(name, convention, before, changes)


# Footer.writer codes: 1 is ORC C++; 0 (also when the field is absent) is ORC Java, and the other writers' files
# are read by the JVM engines with Java's rules
_ORC_CPP_WRITERS = frozenset({1, "ORC_CPP"})


def convention_of_writer(writer: int | str | None) -> str:
    """The convention of the implementation a file's footer names (``Footer.writer`` code or
    ``ORCFile.writer`` name): :data:`ORC_CPP` for ORC C++, :data:`ORC_JAVA` for every other writer."""
    return ORC_CPP if writer in _ORC_CPP_WRITERS else ORC_JAVA


def orc_epoch_seconds(rules: ZoneRules) -> int:
    """ORC's timestamp base, 2015-01-01 00:00:00 in the zone, as seconds since the epoch (UTC)."""
    if rules.convention == ORC_CPP:
        # orc::Timezone takes the offset at 2015-01-01 00:00 UTC
        at = np.array([_ORC_EPOCH_WALL * _NS], dtype=np.int64)
        return _ORC_EPOCH_WALL - int(rules.utcoffset(at)[0]) // _NS
    return int(rules.to_instant(np.array([_ORC_EPOCH_WALL * _NS], dtype=np.int64))[0]) // _NS
