"""Time zones as Spark's JVM names them, and as the Python processes around it find theirs."""

from __future__ import annotations

import os
import re
import zoneinfo
from typing import Any

from ..errors import OrcError

__all__ = ["check_zone", "jvm_time_zone", "local_zone", "zone_name"]


def check_zone(name: str) -> str:
    """``name``, after checking that Python knows the zone."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise OrcError(f"orcjit: unknown time zone {name!r} (use a name such as 'America/Los_Angeles')") from None
    return name


_OFFSET_ZONE = re.compile(r"^(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$")


def zone_name(name: str | None) -> str | None:
    """``name`` as a zone name Python knows (Java's ``GMT+08:00`` as ``Etc/GMT-8``), or None."""
    if not name:
        return None
    match = _OFFSET_ZONE.match(name.strip())
    if match:
        sign, hours, minutes = match.groups()
        if minutes not in (None, "00"):
            return None
        name = "UTC" if int(hours) == 0 else f"Etc/GMT{'-' if sign == '+' else '+'}{int(hours)}"
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    return name


def local_zone() -> str:
    """The Python process's time zone name, as the JVM finds its default: ``TZ``, then ``/etc/localtime``."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                zoneinfo.ZoneInfo(name)
                return name
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                continue
    return "UTC"


def jvm_time_zone(spark: Any) -> str | None:
    """The driver JVM's default time zone, which Spark's ORC reader reads ``timestamp`` wall clocks in."""
    try:
        return str(spark._jvm.java.util.TimeZone.getDefault().getID())
    except Exception:
        pass  # Spark Connect: no JVM gateway here; ask through SQL
    try:
        row = spark.sql("SELECT java_method('java.lang.System', 'getProperty', 'user.timezone') AS zone").first()
        return str(row[0]) if row and row[0] else None
    except Exception:
        return None
