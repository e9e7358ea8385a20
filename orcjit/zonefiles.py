"""Reading the IANA zone files: the TZif data ``zoneinfo`` reads (each directory of ``zoneinfo.TZPATH``, then the
``tzdata`` package), and the POSIX TZ rule in their footer, read as POSIX defines it (see :mod:`orcjit.timezones`,
which turns them into tables)."""

from __future__ import annotations

import calendar
import datetime
import importlib.resources
import os
import re
import struct
import zoneinfo
from dataclasses import dataclass

__all__ = ["PosixRule", "TZif", "TimeZoneError", "parse_rule", "parse_tzif", "zone_file"]

_DAY = 86_400
_TZIF_HEADER = struct.Struct(">4sc15x6l")


class TimeZoneError(ValueError):
    """A zone the IANA database does not know, or whose data cannot be read."""


# -- the zone file -----------------------------------------------------------------------------------------------


def zone_file(name: str) -> bytes:
    """The TZif bytes ``zoneinfo.ZoneInfo(name)`` reads: the first of ``zoneinfo.TZPATH`` holding the key, else
    the ``tzdata`` package."""
    try:
        zoneinfo.ZoneInfo(name)  # zoneinfo's own checks of the key (no absolute paths, no "..")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise TimeZoneError(f"unknown time zone {name!r}") from exc
    for directory in zoneinfo.TZPATH:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as fh:
                return fh.read()
    *package, resource = name.split("/")
    try:
        return importlib.resources.files(".".join(["tzdata.zoneinfo", *package])).joinpath(resource).read_bytes()
    except (ImportError, OSError, UnicodeEncodeError) as exc:
        raise TimeZoneError(f"unknown time zone {name!r}") from exc


@dataclass(frozen=True)
class TZif:
    """What a TZif file (RFC 8536) says: transitions (UTC seconds) into local time types, and the TZ rule."""

    transitions: tuple[int, ...]
    type_of: tuple[int, ...]  # the local time type each transition starts
    offsets: tuple[int, ...]  # of each type, seconds east of UTC
    is_dst: tuple[bool, ...]
    rule: str | None  # the footer of version 2+ files


def parse_tzif(data: bytes, name: str) -> TZif:
    def block(at: int, time_size: int) -> tuple[int, tuple[int, ...], tuple[int, ...], list[int], list[bool]]:
        if len(data) < at + _TZIF_HEADER.size:
            raise TimeZoneError(f"time zone {name!r}: truncated zone file")
        magic, _version, isut, isstd, leap, timecnt, typecnt, charcnt = _TZIF_HEADER.unpack_from(data, at)
        if magic != b"TZif" or typecnt < 1:
            raise TimeZoneError(f"time zone {name!r}: not a TZif zone file")
        at += _TZIF_HEADER.size
        end = at + timecnt * (time_size + 1) + typecnt * 6 + charcnt + leap * (time_size + 4) + isstd + isut
        if len(data) < end:
            raise TimeZoneError(f"time zone {name!r}: truncated zone file")
        times = struct.unpack_from(f">{timecnt}{'q' if time_size == 8 else 'l'}", data, at)
        at += timecnt * time_size
        kinds = tuple(data[at : at + timecnt])
        at += timecnt
        offsets, dst = [], []
        for i in range(typecnt):
            offset, isdst, _abbr = struct.unpack_from(">lBB", data, at + 6 * i)
            offsets.append(offset)
            dst.append(bool(isdst))
        if any(k >= typecnt for k in kinds):
            raise TimeZoneError(f"time zone {name!r}: a transition into an unknown local time type")
        return end, times, kinds, offsets, dst

    end, times, kinds, offsets, dst = block(0, 4)
    rule = None
    if data[4:5] not in (b"\x00", b""):  # version 2+: a 64-bit copy of the data, then the TZ rule
        end, times, kinds, offsets, dst = block(end, 8)
        footer = data[end:]
        if footer[:1] == b"\n" and b"\n" in footer[1:]:
            rule = footer[1 : footer.index(b"\n", 1)].decode("ascii", "replace") or None
    if list(times) != sorted(times):
        raise TimeZoneError(f"time zone {name!r}: transitions out of order")
    return TZif(tuple(times), kinds, tuple(offsets), tuple(dst), rule)


# -- the POSIX TZ rule -------------------------------------------------------------------------------------------


_RULE_NAME = r"(?:[^<0-9:.,+-]+|<[A-Za-z0-9+-]+>)"
_RULE_OFFSET = r"[+-]?\d{1,3}(?::\d{2}(?::\d{2})?)?"
_RULE = re.compile(
    rf"^{_RULE_NAME}(?P<std>{_RULE_OFFSET})(?:{_RULE_NAME}(?P<dst>{_RULE_OFFSET})?"
    r",(?P<start>[^,]+),(?P<end>[^,]+))?$"
)
_RULE_DAY = re.compile(r"^(?:M(?P<m>\d{1,2})\.(?P<w>\d)\.(?P<d>\d)|J(?P<j>\d{1,3})|(?P<n>\d{1,3}))(?:/(?P<t>.+))?$")


def _hms(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    parts = [int(p) for p in text.lstrip("+-").split(":")]
    parts += [0] * (3 - len(parts))
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


@dataclass(frozen=True)
class _Day:
    """A POSIX rule's transition date (``Mm.w.d``, ``Jn`` or ``n``) and local time of day."""

    kind: str
    month: int = 0
    week: int = 0
    weekday: int = 0  # 0 is Sunday
    day: int = 0
    time: int = 2 * 3600

    def local_seconds(self, year: int) -> int:
        """Seconds from 1970-01-01 00:00 of the local wall clock where the transition happens in ``year``."""
        if self.kind == "M":
            first_weekday = (datetime.date(year, self.month, 1).weekday() + 1) % 7
            day = 1 + (self.weekday - first_weekday) % 7 + 7 * (self.week - 1)
            if day > calendar.monthrange(year, self.month)[1]:
                day -= 7  # week 5 is the last such weekday of the month
            date = datetime.date(year, self.month, day)
        elif self.kind == "J":  # 1..365, February 29 never counted
            leap_day = calendar.isleap(year) and self.day >= 60
            date = datetime.date(year, 1, 1) + datetime.timedelta(days=self.day - 1 + leap_day)
        else:  # 0..365, February 29 counted
            date = datetime.date(year, 1, 1) + datetime.timedelta(days=self.day)
        return (date.toordinal() - _EPOCH_ORDINAL) * _DAY + self.time


_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()


def _parse_day(text: str) -> _Day:
    m = _RULE_DAY.match(text)
    if m is None:
        raise ValueError(text)
    time = _hms(m["t"]) if m["t"] else 2 * 3600
    if m["m"]:
        month, week, weekday = int(m["m"]), int(m["w"]), int(m["d"])
        if not (1 <= month <= 12 and 1 <= week <= 5 and 0 <= weekday <= 6):
            raise ValueError(text)
        return _Day("M", month, week, weekday, time=time)
    if m["j"]:
        if not 1 <= int(m["j"]) <= 365:
            raise ValueError(text)
        return _Day("J", day=int(m["j"]), time=time)
    if not 0 <= int(m["n"]) <= 365:
        raise ValueError(text)
    return _Day("n", day=int(m["n"]), time=time)


@dataclass(frozen=True)
class PosixRule:
    """A POSIX TZ rule: a standard offset and, optionally, daylight saving time between two dates a year."""

    std: int  # seconds east of UTC
    dst: int | None = None
    start: _Day | None = None
    end: _Day | None = None

    def year_changes(self, year: int) -> list[tuple[int, int]]:
        """``(utc_seconds, offset)`` from the first instant of UTC year ``year`` on, and where the offset changes
        within that year, evaluated as ``zoneinfo`` does (each instant by the rule of its own UTC year)."""
        first = (datetime.date(year, 1, 1).toordinal() - _EPOCH_ORDINAL) * _DAY
        if self.dst is None or self.start is None or self.end is None:
            return [(first, self.std)]
        last = (datetime.date(year + 1, 1, 1).toordinal() - _EPOCH_ORDINAL) * _DAY
        start = self.start.local_seconds(year) - self.std
        end = self.end.local_seconds(year) - self.dst

        def offset(t: int) -> int:
            dst = start <= t < end if start < end else not end <= t < start
            return self.dst if dst else self.std  # type: ignore[return-value]

        points = sorted({first, *(t for t in (start, end) if first < t < last)})
        return [(t, offset(t)) for t in points]

    @property
    def raw(self) -> int:
        """What Java takes for the zone's standard offset: with negative daylight saving time (Europe/Dublin's
        ``IST-1GMT0``), the winter one."""
        return self.std if self.dst is None or self.dst >= self.std else self.dst


def parse_rule(text: str, name: str) -> PosixRule:
    m = _RULE.match(text)
    try:
        if m is None:
            raise ValueError(text)
        std = -_hms(m["std"])
        if m["start"] is None:
            return PosixRule(std)
        dst = -_hms(m["dst"]) if m["dst"] else std + 3600
        return PosixRule(std, dst, _parse_day(m["start"]), _parse_day(m["end"]))
    except ValueError:
        raise TimeZoneError(f"time zone {name!r}: cannot read its TZ rule {text!r}") from None
