"""Read a number over a number: a part ("3/4 cup"), a score ("4/5"), a date ("on 3/10"), a split
("80/20"), a size ("32/33"), a part of an inch ('3/16"').

Apart from ``english_tokens`` because which of those a slash between two numbers is, is one
decision with many cues of its own.
"""

from __future__ import annotations

import re

from tts_service.engine.reading import english_context as sentence
from tts_service.engine.reading import english_roles as roles
from tts_service.engine.reading import timedate as td
from tts_service.engine.reading.english_near import Context
from tts_service.engine.reading.english_units import UNIT_NAMES, unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = ["FRACTION", "fraction_words", "inch_fraction", "read_fraction"]

FRACTION = re.compile(r"^(?P<a>\d{1,12}(?:\.\d+)?)/(?P<b>\d{1,12})(?P<th>st|nd|rd|th|ST|ND|RD|TH)?$")
_DENOMS = {2: ("half", "halves"), 4: ("quarter", "quarters")}
_INCH_FRACTION = re.compile(r"^(\d{1,2})/(\d{1,2})[\"″]$")
#: words of a sentence about clothes' sizes ("sleeve lengths 32/33")
_SIZE_WORDS = frozenset(
    ["size", "sizes", "sleeve", "sleeves", "length", "lengths", "inseam", "waist", "neck"]
)  # fmt: skip


def read_fraction(m: re.Match[str], w: NumberWords, ctx: Context) -> str:
    """A number over a number ("3/4", "4/5", "80/20", "3/10", "9/10 dentists"): a part, a score,
    a date, a split or a size, by the words around it (``m``: ``FRACTION``'s match)."""
    a, b = m.group("a"), int(m.group("b"))
    if (expiry := sentence.card_expiry(a, m.group("b"), ctx.prev(), w)) is not None:
        return expiry  # "expires 09/27"
    if ctx.next_raw in ("ARM", "ARMs") and not m.group("th"):
        return f"{w.number(a)} {w.number(m.group('b'))}"  # "a 7/1 ARM": seven one, no July first
    if ctx.prev() in ("no", "no.", "number", "#") and not m.group("th"):
        return f"{w.number(a)} slash {w.number(m.group('b'))}"  # "Route No 138/3": a name, no fraction
    # "what is 3/4 of 12", "what's 1/2 cup plus 2/3 cup": a part of something, no division
    of = ctx.next_word == "of" or unit_words(ctx.next_raw, False) is not None
    of = of or (not ctx.punctuated and ctx.next_word.isalpha() and ctx.next_word not in sentence.MATH_WORDS)
    if sentence.asks_to_calculate(ctx.before) and not m.group("th") and not of:
        return f"{w.number(a)} divided by {w.cardinal(b)}"  # "what is 10/2?"
    dated = (
        td.day_name(ctx.prev_raw.rstrip(","))
        or ctx.prev() in ("on", "due", "until")
        or m.group("b")[0] == "0"
    )
    unit_next = unit_words(ctx.next_raw, False) is not None or ctx.next_word in UNIT_NAMES  # "per 1/5 mile"
    dated = dated or (bool(sentence.SCHEDULE_WORDS.intersection(ctx.before)) and not unit_next)
    if dated and a.isdigit() and 1 <= int(a) <= 12 and 1 <= b <= 31 and not m.group("th"):
        return td.month_day(int(a), b, w)  # "Mon 3/10", "on 12/5", "12/05": a date
    sized = a.isdigit() and b == int(a) + 1 >= 11 and bool(_SIZE_WORDS.intersection(ctx.topic))
    if sized:  # "sleeve lengths 32/33": a size in two numbers
        return f"{w.cardinal(int(a))} {w.cardinal(b)}"
    split = a.isdigit() and int(a) + b == 100 and int(a) % 5 == 0 and b % 5 == 0 and int(a) >= 5 <= b
    if split and not m.group("th") and ctx.next_word not in ("of", "chance"):
        return f"{w.cardinal(int(a))} {w.cardinal(b)}"  # "the 80/20 coinsurance", "a 70/30 split"
    rated = ctx.prev() in ("rated", "rating", "scored", "score", "rate")
    scored = b in (5, 10, 100) and not m.group("th") and not unit_next
    if "." in a or scored or rated:  # "4/5th" is four fifths
        return f"{w.number(a)} out of {w.cardinal(b)}"
    n = int(a)
    if m.group("th") and n < b:  # "1/4th", "1/3rd": a fraction, never a date
        return (
            w.cardinal(n)
            + " "
            + (_DENOMS[b][n != 1] if b in _DENOMS else w.ordinal(b) + ("s" if n != 1 else ""))
        )
    # "3/12" is a date; "2/3", "3/8" and "5/6 of the vote" (a common part, or a part of something) fractions
    partial = ctx.next_word == "of" or ctx.prev() in ("a", "an", "about", "nearly", "over")
    fractional = b in (2, 3, 4, 8) or partial
    if (1 <= n < b <= 12 and fractional) or (n < b and b in _DENOMS):
        name = _DENOMS[b][n != 1] if b in _DENOMS else w.ordinal(b) + ("s" if n != 1 else "")
        if n == 1 and ctx.prev() in ("a", "an", "the") and b in _DENOMS:
            return name  # "a 1/2 sheet pizza": a half sheet; "the 1/2 gallon": the half gallon
        return ("one" if n == 1 and b == 2 else w.cardinal(n)) + " " + name
    measured = ctx.prev() in ("a", "an") or unit_next  # "a 5/16 wrench", "3/2 cups"
    if 1 <= n <= 12 and 1 <= b <= 31 and not measured:  # "3/2 cups" is no March 2nd
        return td.month_day(n, b, w)
    if n < b and b > 16 and b not in (32, 64):  # "720/850": a score, not seven hundred twenty 850ths
        return f"{w.cardinal(n)} out of {w.cardinal(b)}"
    if n < b:  # "31/32": "thirty-one thirty-seconds"
        return w.cardinal(n) + " " + w.ordinal(b) + ("s" if n != 1 else "")
    if 2 <= b <= 16:  # "22/3": "twenty-two thirds"
        return w.cardinal(n) + " " + (_DENOMS[b][1] if b in _DENOMS else w.ordinal(b) + "s")
    return f"{w.cardinal(n)} over {w.cardinal(b)}"


def fraction_words(n: int, b: int, w: NumberWords) -> str:
    """A proper fraction as a part: "a quarter", "three sixteenths"."""
    name = _DENOMS[b] if b in _DENOMS else (w.ordinal(b), w.ordinal(b) + "s")
    return name[0] if n == 1 else f"{w.cardinal(n)} {name[1]}"


def inch_fraction(core: str, w: NumberWords, ctx: Context) -> str | None:
    """'3/16"': a part of an inch, with "of an inch" where no noun follows."""
    m = _INCH_FRACTION.match(core)
    if m is None or not 0 < int(m.group(1)) < int(m.group(2)):
        return None
    part = fraction_words(int(m.group(1)), int(m.group(2)), w)  # "3/16\"": a part of an inch
    lone = m.group(1) == "1" and ctx.prev() not in ("a", "an", "the", "one")  # "wider than 1/4\""
    if m.group(1) != "1" and (ctx.next_word == "of" or ctx.punctuated or not ctx.next_word):
        return part + " of an inch"  # "at 3/32\" of tread": three thirty-seconds of an inch
    if part.endswith("quarters") and not ctx.punctuated and roles.noun_after_mark(ctx.next_raw):
        part = part[:-1]  # '3/4" plywood': three quarter inch plywood
    return ("a " if lone else "") + part + " inch"  # "3/8\" anchors": three eighths inch anchors
