"""Times and dates in English: "7:05pm" -> "seven oh five PM", "2024-03-15" -> "March fifteenth,
twenty twenty-four", "Tue" -> "Tuesday".

am and pm are written "AM" and "PM", the form every voice reads as the two letters.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import DAYS, MONTH_NAMES, MONTHS
from tts_service.engine.reading.words import NumberWords

__all__ = [
    "AMPM", "WORD_DAYS", "ampm_zone", "clock", "day_first_date", "day_name", "iso_date", "letter_days",
    "month_day", "named_date", "numeric_date", "quarter", "read_time", "zone",
]  # fmt: skip

AMPM = {"am": "AM", "a.m.": "AM", "a.m": "AM", "pm": "PM", "p.m.": "PM", "p.m": "PM", "a": "AM", "p": "PM"}
#: weekday abbreviations that are also English words ("we wed", "sat down", "the sun")
WORD_DAYS = frozenset(["sun", "sat", "wed", "tu", "th"])  # weekdays only beside a date or another day
_TIME = re.compile(
    r"^(?P<h>[01]?\d|2[0-4])(?::(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?|(?=[aApP]))"
    r"(?P<ampm>[aApP]\.?[mM]\.?)?$"
)
_ISO = re.compile(
    r"^(?P<y>1[5-9]\d\d|20\d\d)(?P<sep>[-/.])(?P<m>0?[1-9]|1[0-2])(?P=sep)(?P<d>0?[1-9]|[12]\d|3[01])$"
)
#: day first, known by a day past 12 ("15-01-2020", "25/12/2024")
_DAY_FIRST = re.compile(r"^(?P<d>1[3-9]|2\d|3[01])(?P<sep>[/.-])(?P<m>0?[1-9]|1[0-2])(?P=sep)(?P<y>\d{4})$")
_ONE_LETTER = {"M": "Monday", "T": "Tuesday", "W": "Wednesday", "Th": "Thursday", "F": "Friday",
               "Sa": "Saturday", "Su": "Sunday"}  # fmt: skip
_LETTER_DAYS = re.compile(r"^(M|T|W|Th|F|Sa|Su)[-–](M|T|W|Th|F|Sa|Su)$")
_NAMED = re.compile(r"^(?P<mon>[A-Za-z]{3,9}\.?)-(?P<d>\d{1,2})(?:-(?P<y>\d{4}))?$")
#: month and day names that are not also English words may be written in lower case
_LOWER_OK = frozenset(
    ["january", "february", "april", "june", "july", "august", "september", "october", "november",
     "december", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "monday",
     "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)  # fmt: skip
_QUARTER = re.compile(r"^(?P<q>[1-4])(?P<part>[QH])(?P<y>\d{2}|(?:19|20)\d\d)$")
_SHORT_QUARTER = re.compile(r"^Q([1-4])['’](\d\d)$")
_FISCAL = re.compile(r"^FY([1-9]\d|(?:19|20)\d\d)$")
_DOTTED_TIME = re.compile(r"^(?:[1-9]|1[0-2])\.[0-5]\d[aApP]\.?[mM]\.?$")
_ZONES = frozenset(["EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT", "AKST", "AKDT", "HST", "GMT",
                    "UTC", "BST", "CET", "CEST", "IST", "AEST", "ET", "CT", "MT", "PT"])  # fmt: skip
_AMPM_ZONE = re.compile(r"^([aApP]\.?[mM]\.?)([A-Za-z][A-Za-z.]{1,7})$")
_NUMERIC = re.compile(
    r"^(?P<m>0?[1-9]|1[0-2])(?P<sep>[/.-])(?P<d>0?[1-9]|[12]\d|3[01])(?P=sep)(?P<y>\d{4}|\d{2})$"
)


def clock(hour: int, minute: int, words: NumberWords, *, ampm: str = "", second: int | None = None) -> str:
    """10:05 -> "ten oh five"; 10:00 -> "ten o'clock" ("ten" before AM/PM); 18:00 -> "eighteen hundred"."""
    text = words.cardinal(hour)
    if minute == 0 and second is None:
        if ampm:
            text += ""
        elif 1 <= hour <= 12:
            text += " o'clock"
        else:
            text += " hundred"
    elif minute == 0:
        text += "" if ampm else " hundred"  # "10:00:00 PM": "ten PM and zero seconds"
    elif minute < 10:
        text += " oh " + words.cardinal(minute)
    else:
        text += " " + words.cardinal(minute)
    if second is not None:
        text += " and " + words.cardinal(second) + (" second" if second == 1 else " seconds")
    if hour == 0 and not ampm and minute:
        text = "zero " + text.removeprefix("zero ")
    return text + (" " + ampm if ampm else "")


def read_time(core: str, words: NumberWords, *, next_ampm: str = "") -> str | None:
    """A written time ("10:30", "7pm", "7:05p.m.", "19:45:10", "10.30am"), with the next token's
    am/pm if any."""
    if "." in core[:3] and _DOTTED_TIME.match(core):
        core = core.replace(".", ":", 1)  # "10.30am": the period is the colon, am/pm says so
    m = _TIME.match(core)
    if m is None:
        return None
    ampm = AMPM.get((m.group("ampm") or "").lower(), "") or next_ampm
    if m.group("m") is None and not ampm:
        return None
    hour = int(m.group("h"))
    if ampm and not 1 <= hour <= 12:
        return None
    second = int(m.group("s")) if m.group("s") else None
    if second == 0 and ampm:
        second = None  # "10:00:00 p.m.": "ten PM"
    if second is not None and not ampm:  # "1:01:01", "14:10:30": hours, minutes and seconds
        parts = [(hour, "hour"), (int(m.group("m")), "minute"), (second, "second")]
        said = [f"{words.cardinal(n)} {unit}{'' if n == 1 else 's'}" for n, unit in parts]
        return f"{said[0]} {said[1]} and {said[2]}"
    return clock(hour, int(m.group("m") or 0), words, ampm=ampm, second=second)


def month_day(month: int, day: int, words: NumberWords, year: int | None = None) -> str:
    text = MONTH_NAMES[month - 1] + " " + words.ordinal(day)
    return text + (", " + words.year(year) if year is not None else "")


def iso_date(core: str, words: NumberWords) -> str | None:
    """ "2024-03-15" -> "March fifteenth, twenty twenty-four"."""
    m = _ISO.match(core)
    if m is None:
        return None
    return month_day(int(m.group("m")), int(m.group("d")), words, int(m.group("y")))


def letter_days(core: str) -> str | None:
    """Opening hours in one-letter days: "M-F" -> "Monday to Friday", "T-Th", "M–Sa"; a list of
    them, "M/W/F" -> "Monday, Wednesday and Friday", "T/Th" (but "M/F" may be male or female)."""
    m = _LETTER_DAYS.match(core)
    if m is not None:
        return f"{_ONE_LETTER[m.group(1)]} to {_ONE_LETTER[m.group(2)]}"
    days = core.split("/")
    if (
        core == "M/F"
        or len(days) < 2
        or any(d not in _ONE_LETTER for d in days)
        or len(set(days)) < len(days)
    ):
        return None
    names = [_ONE_LETTER[d] for d in days]
    return ", ".join(names[:-1]) + " and " + names[-1]


def named_date(core: str, words: NumberWords) -> str | None:
    """ "Jan-15", "Jan-15-2020" -> "January fifteenth, twenty twenty"."""
    m = _NAMED.match(core)
    month = month_number(m.group("mon")) if m else None
    if m is None or month is None or not 1 <= int(m.group("d")) <= 31:
        return None
    return month_day(month, int(m.group("d")), words, int(m.group("y")) if m.group("y") else None)


def day_first_date(core: str, words: NumberWords) -> str | None:
    """ "15-01-2020" -> "the fifteenth of January, twenty twenty"."""
    m = _DAY_FIRST.match(core)
    if m is None:
        return None
    month = MONTH_NAMES[int(m.group("m")) - 1]
    return f"the {words.ordinal(int(m.group('d')))} of {month}, {words.year(int(m.group('y')))}"


def numeric_date(core: str, words: NumberWords) -> str | None:
    """US order: "3/15/2024", "03-15-24", "3.15.2024" -> "March fifteenth, twenty twenty-four"."""
    m = _NUMERIC.match(core)
    if m is None:
        return None
    year = int(m.group("y"))
    said = month_day(int(m.group("m")), int(m.group("d")), words)
    if len(m.group("y")) == 4:
        return f"{said}, {words.year(year)}"
    # two digits: this century's years from 2010 are said whole ("twenty twenty-six"); others as
    # written, which is how people say them ("oh five", "ninety-eight") and guesses no century
    if year == 0 or 10 <= year < 50:
        return f"{said}, {words.year(2000 + year)}"
    return f"{said}, " + (f"oh {words.cardinal(year)}" if year < 10 else words.cardinal(year))


def day_name(core: str) -> str | None:
    """ "Tue", "Tues.", "Thu" -> the weekday's name; only capitalized ("sat" is a verb)."""
    bare = core.rstrip(".")
    if not bare[:1].isupper() and bare not in _LOWER_OK:
        return None
    return DAYS.get(bare.lower())


def month_number(core: str) -> int | None:
    """ "March", "Mar", "Mar." -> 3; capitalized only ("may" is a verb)."""
    bare = core.rstrip(".")
    dotted = core.endswith(".") and bare != "may"  # "jan. 15", "mar. 3": abbreviated, so a month
    if not bare[:1].isupper() and bare not in _LOWER_OK and not dotted:
        return None
    return MONTHS.get(bare.lower())


def quarter(core: str, words: NumberWords) -> str | None:
    """ "2Q22", "3Q2024" -> "the second quarter of twenty-two" (a fiscal quarter, written short;
    "1H23": "the first half of twenty-three");
    "FY24", "FY2024" -> "F Y twenty-four" (a fiscal year)."""
    m = _QUARTER.match(core)
    if m is None:
        short = _SHORT_QUARTER.match(core)  # "Q3'24": "Q three twenty-four"
        if short is not None:
            return f"Q {words.cardinal(int(short.group(1)))} {words.number(short.group(2))}"
        fiscal = _FISCAL.match(core)
        if fiscal is None:
            return None
        year = fiscal.group(1)
        return "F Y " + (words.cardinal(int(year)) if len(year) == 2 else words.year(int(year)))
    year = m.group("y")
    said = words.cardinal(int(year)) if len(year) == 2 and year[0] != "0" else words.year(int(year))
    part = "quarter" if m.group("part") == "Q" else "half"
    if part == "half" and int(m.group("q")) > 2:
        return None
    return f"the {words.ordinal(int(m.group('q')))} {part} of {said}"


#: the zones written without their season, said by name ("ET": Eastern Time)
_GENERIC_ZONES = {"ET": "Eastern Time", "CT": "Central Time", "MT": "Mountain Time", "PT": "Pacific Time"}


def zone(core: str) -> str | None:
    """A time zone after a time, in any case and dotted or not ("est", "e.s.t", "PDT") -> "EST",
    written as "PM" is: in capitals, the form a voice reads letter by letter."""
    bare = core.replace(".", "").upper()
    if bare not in _ZONES:
        return None
    if bare in _GENERIC_ZONES:
        return _GENERIC_ZONES[bare]  # "9 PM ET": nine PM Eastern Time
    return " ".join(bare) if len(bare) == 2 else bare


def ampm_zone(core: str) -> tuple[str, str] | None:
    """ "p.m.est" -> ("PM", "EST"): am or pm with its time zone glued on."""
    m = _AMPM_ZONE.match(core)
    said = zone(m.group(2)) if m else None
    return None if m is None or said is None else (AMPM[m.group(1).lower().rstrip(".")], said)
