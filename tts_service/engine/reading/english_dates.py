"""Dates over several tokens: "March 3, 2024", "Mar 3-5", "March 3 - 5, 2025", "17 may 2010", "the
20th of January". Each rule returns how many tokens it read (0: not a date), every token keeping
its own spoken words.
"""

from __future__ import annotations

import re

from tts_service.engine.reading import timedate as td
from tts_service.engine.reading.english_spans import Walk
from tts_service.engine.reading.english_tables import MONTH_NAMES

__all__ = ["day_month", "month_day"]

_DASHES = ("-", "–", "—")
#: words after which lower-case "may" before a day is the month ("by may 3")
_DATE_WORDS = frozenset(["on", "by", "until", "till", "since", "from", "before", "after", "of", "in"])


def _day_of_month(core: str) -> int | None:
    m = re.match(r"^(\d{1,2})(?:st|nd|rd|th)?$", core)
    return int(m.group(1)) if m and 1 <= int(m.group(1)) <= 31 else None


def _year_at(walk: Walk, k: int) -> int | None:
    core = walk.core(k)
    return int(core) if re.match(r"^(1[1-9]|20)\d\d$", core) else None


def month_day(walk: Walk, i: int) -> int:
    month = td.month_number(walk.core(i))
    days = re.match(r"^(\d{1,2})[-–](\d{1,2})$", walk.core(i + 1)) if not walk.trail(i) else None
    if month and days and 1 <= int(days.group(1)) < int(days.group(2)) <= 31:  # "Mar 3-5"
        said = f"{walk.w.ordinal(int(days.group(1)))} to {walk.w.ordinal(int(days.group(2)))}"
        return walk.set(i, MONTH_NAMES[month - 1], said)
    glued = re.match(r"^(\d{1,2})[-–—]([A-Za-z]{3,9}\.?)$", walk.core(i + 1)) if not walk.trail(i) else None
    to_month = td.month_number(glued.group(2)) if glued else None
    last_day = _day_of_month(walk.core(i + 2)) if glued and not walk.trail(i + 1) else None
    if month and glued and to_month and last_day and 1 <= int(glued.group(1)) <= 31:  # "Nov 24–Dec 1"
        said = f"{walk.w.ordinal(int(glued.group(1)))} to {MONTH_NAMES[to_month - 1]}"
        return walk.set(i, MONTH_NAMES[month - 1], said, walk.w.ordinal(last_day))
    day = _day_of_month(walk.core(i + 1))
    if month is None and walk.core(i) == "may" and day is not None:  # "may 17, 2010", "by may 3"
        dated = walk.core(i - 1).lower() in _DATE_WORDS or _year_at(walk, i + 2) is not None
        month = 5 if dated and walk.trail(i + 1) in ("", ",") else None
    if month is None or day is None or walk.trail(i):
        return 0
    name = MONTH_NAMES[month - 1]
    w = walk.w
    last = _day_of_month(walk.core(i + 3)) if walk.core(i + 2) in _DASHES else None
    if last is not None and last > day and not walk.trail(i + 1) and not walk.trail(i + 2):
        year = _year_at(walk, i + 4) if walk.trail(i + 3) in ("", ",") else None  # "March 3 - 5, 2025"
        tail = [w.year(year)] if year is not None else []
        return walk.set(i, name, w.ordinal(day), "to", w.ordinal(last), *tail)
    year = _year_at(walk, i + 2) if walk.trail(i + 1) in ("", ",") else None
    if year is not None:
        return walk.set(i, name, w.ordinal(day), w.year(year))
    return walk.set(i, name, *_more_days(walk, i + 1, day))


#: words after the last of several days listed ("Feb 3, 10 & 24 at noon"; not "May 2, 14 kids")
_AFTER_DAYS = frozenset(
    ["", "and", "or", "&", "at", "from", "for", "in", "only", "until", "till", "between", "by"]
)


def more_days(walk: Walk, i: int) -> int:
    """The days listed after a date that an earlier unit read ("on Dec. 24, | 25 and Jan. 1")."""
    day = _day_of_month(walk.core(i - 1))
    dated = day is not None and walk.trail(i - 1) == "," and td.month_number(walk.core(i - 2)) is not None
    if i - 1 not in walk.fixed or day is None or not dated:
        return 0
    return walk.set(i, *_more_days(walk, i - 1, day)[1:])


def _more_days(walk: Walk, k: int, day: int) -> list[str]:
    """ "Dec. 24, 25 and 31": the day at ``k`` and the later days of its month listed after it."""
    said = [walk.w.ordinal(day)]
    while True:
        joined = walk.core(k + 1).lower() in ("and", "or", "&") and not walk.trail(k + 1)
        if walk.trail(k) != "," and not joined:
            return said
        at = k + 1 + joined
        joiners = ["and" if walk.core(k + 1) == "&" else walk.core(k + 1).lower()] if joined else []
        more = _day_of_month(walk.core(at))
        ends = bool(walk.trail(at)) or walk.core(at + 1).lower() in _AFTER_DAYS
        ends = ends or td.month_number(walk.core(at + 1)) is not None
        if more is None or more <= day or not ends:
            return said
        said += [*joiners, walk.w.ordinal(more)]
        k, day = at, more


def day_month(walk: Walk, i: int) -> int:
    day = _day_of_month(walk.core(i))
    k = i + 2 if walk.core(i + 1).lower() == "of" else i + 1
    month = td.month_number(walk.core(k))
    if month is None and walk.core(k) == "may" and _year_at(walk, k + 1) is not None:
        month = 5  # "17 may 2010": between a day and a year "may" is the month
    if day is None or month is None or walk.trail(i):
        return 0
    the = "" if walk.core(i - 1).lower() == "the" else "the "
    said = [the + walk.w.ordinal(day)] + (["of"] if k == i + 2 else [])
    said[-1] += "" if k == i + 2 else " of"
    said.append(MONTH_NAMES[month - 1])
    year = _year_at(walk, k + 1) if not walk.trail(k) or walk.trail(k) == "," else None
    if year is not None:
        said.append(walk.w.year(year))
    return walk.set(i, *said)
