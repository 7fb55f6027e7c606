"""Reading the audit log (gateway/audit.py writes it) for `gateway log` and `gateway stats`.

The log and its rotated files (.3 oldest ... .1, then the live file) are read in time order.
A line that is not an audit entry (a JSON object with a time and a decision) is skipped and
counted, never fatal: the log is written by
many hook processes and may end in a torn line.
"""

import json
import os
import re
from datetime import UTC, datetime, timedelta

from gateway import audit

_RELATIVE = re.compile(r"^(\d+)\s*(s|sec|m|min|h|hour|hours|d|day|days|w|week|weeks)$")
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "hours": 3600,
          "d": 86400, "day": 86400, "days": 86400, "w": 604800, "week": 604800,
          "weeks": 604800}
WHEN_HELP = "30m, 2h, 7d, 1w, today, yesterday, 2026-11-20 or 2026-11-20T14:00 (local time)"


class Reading:
    """Entries read, and how many lines had to be skipped."""

    def __init__(self):
        self.skipped = 0
        self.files = []
        self.bad = []  # (file, line number) of the first skipped lines

    def skip(self, path, lineno) -> None:
        self.skipped += 1
        if len(self.bad) < 3:
            self.bad.append((path, lineno))

    def skipped_note(self) -> str:
        """One line for stderr: how many lines were skipped, and where the first ones are."""
        where = ", ".join(f"{f} line {n}" for f, n in self.bad)
        more = ", ..." if self.skipped > len(self.bad) else ""
        return (f"gateway: skipped {self.skipped} line(s) that are not audit entries ({where}"
                f"{more}); a torn last line is harmless, other damage means the file was "
                "edited by hand")


def parse_when(text: str, now: datetime | None = None) -> datetime:
    """A point in time (UTC, aware) from the forms in WHEN_HELP; ValueError otherwise."""
    now = now or datetime.now(UTC)
    t = text.strip().lower()
    m = _RELATIVE.match(t)
    if m:
        return now - timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2)])
    if t in ("today", "yesterday"):
        local = now.astimezone()
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        if t == "yesterday":
            midnight -= timedelta(days=1)
        return midnight.astimezone(UTC)
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a time; use {WHEN_HELP}") from None
    if when.tzinfo is None:
        when = when.astimezone()  # local time
    return when.astimezone(UTC)


def entry_time(entry) -> datetime | None:
    value = entry.get("time")
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def log_files(path: str) -> list:
    """The log's files that exist, oldest first."""
    out = [f"{path}.{i}" for i in range(audit.KEEP, 0, -1)] + [path]
    return [p for p in out if os.path.isfile(p)]


def read(path: str, reading: Reading, since=None, until=None, decisions=(), events=(),
         codes=(), sessions=(), tools=(), grep=None):
    """Yield the entries (dicts) that pass every given filter, in time order."""
    codes = {c.upper() for c in codes}
    for f in log_files(path):
        reading.files.append(f)
        with open(f, "rb") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    reading.skip(f, lineno)
                    continue
                if not isinstance(entry, dict) or not isinstance(entry.get("time"), str) \
                        or not isinstance(entry.get("decision"), str):
                    reading.skip(f, lineno)
                    continue
                if since or until:
                    when = entry_time(entry)
                    if when is None or (since and when < since) or (until and when >= until):
                        continue
                if decisions and entry.get("decision") not in decisions:
                    continue
                if events and entry.get("event") not in events:
                    continue
                if codes and str(entry.get("code", "")).upper() not in codes:
                    continue
                if sessions and entry.get("session") not in sessions:
                    continue
                if tools and entry.get("tool") not in tools:
                    continue
                if grep and grep not in str(entry.get("command") or ""):
                    continue
                yield entry
