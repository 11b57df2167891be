"""Readings that take several written tokens: dimensions, mixed fractions, identifiers in groups,
listings' rooms, amounts per a square or cubic unit, pairs of clock times, house numbers.

Each rule looks at the tokens from ``i`` on and returns how many it read (0: not its kind); every
token it takes gets its own spoken words, so marks still land on the written tokens.
"""

from __future__ import annotations

import re
from typing import Protocol

from tts_service.engine.reading import timedate as td
from tts_service.engine.reading.english_context import STREET_ANY
from tts_service.engine.reading.english_money import read_money
from tts_service.engine.reading.english_roles import (
    MARKS,
    dimension,
    mixed_fraction,
    noun_after_mark,
    noun_after_measure,
    paired,
    side,
)
from tts_service.engine.reading.english_tables import DIGIT_CONTEXT, SIDE_WORDS
from tts_service.engine.reading.english_tokens import RISKY_UNITS, unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = [
    "SHORT_AMPM", "Walk", "before_noun", "dimensions", "grouped_id", "house_number", "mixed", "per_area",
    "rooms", "short_ampm_pair",
]  # fmt: skip

#: a clock time with a bare a/p ("9a", "1:30p")
SHORT_AMPM = re.compile(r"^(?:1[0-2]|0?[1-9])(?::[0-5]\d)?[ap]$")
_QUANTITY = re.compile(r"^\d+(?:\.\d+)?['′\"″]?$")
_TIMES = frozenset(["x", "X", "×", "by"])
_GROUP = re.compile(r"^\d{2,5}$")
#: words that name what the spaced digit groups after them are ("Meeting ID: 845 2231 9907")
_ID_WORDS = DIGIT_CONTEXT | {"meeting", "conference", "webinar", "access", "passcode", "participant", "track",
                             "sku", "item", "part"}  # fmt: skip


class Walk(Protocol):
    """What a rule needs of the reader's walk over the tokens."""

    w: NumberWords
    fixed: dict[int, str]  # tokens read elsewhere: a lexicon's, a tag's, an earlier unit's (context only)

    def core(self, i: int) -> str: ...

    def lead(self, i: int) -> str: ...

    def trail(self, i: int) -> str: ...

    def set(self, i: int, *spoken: str) -> int: ...


def _unit_after(walk: Walk, k: int, prev: str, *, risky: bool = False) -> str | None:
    """The unit at ``k``; ``risky``: after a dimension even "m" and "in" are units ("25 x 7 m")."""
    unit = walk.core(k).rstrip(".")
    if unit in RISKY_UNITS and (not risky or unit == "x"):
        return None
    return unit_words(unit, not before_noun(walk, k - 1, prev))


def dimensions(walk: Walk, i: int) -> int:
    """ "40 x 30 x 15 cm", "2 x 4", "12 x 14 ft": the sides joined by "by", the unit plural."""
    k = i
    glued = dimension(walk.core(i), walk.w)
    if glued is not None and not walk.trail(i):  # "2x8 m2"
        unit = _unit_after(walk, i + 1, walk.core(i - 1).lower(), risky=True)
        return walk.set(i, glued, unit) if unit else 0
    prev = walk.core(i - 1).lower()
    spoken: list[str] = []
    while _QUANTITY.match(walk.core(k)):
        spoken.append(side(walk.core(k), walk.w))
        if walk.trail(k):
            break
        if walk.core(k)[-1:] in "\"″'′" and walk.core(k + 1) in SIDE_WORDS and not walk.trail(k):
            spoken.append(SIDE_WORDS[walk.core(k + 1)])  # '112" W x 38" D': one hundred twelve inches wide
            k += 1
            unit = None
        else:
            unit = _unit_after(walk, k + 1, "", risky=True)
        if unit and walk.core(k + 2) in _TIMES and not walk.trail(k + 1):  # "4 ft x 8 ft"
            spoken.append("\0" + walk.core(k + 1).rstrip("."))  # the unit as written, said below
            k += 1
        if walk.core(k + 1) not in _TIMES or walk.trail(k + 1) or not _QUANTITY.match(walk.core(k + 2)):
            break
        spoken.append("by")
        k += 2
    if "by" not in spoken:
        return 0
    unit = None if walk.trail(k) else _unit_after(walk, k + 1, prev, risky=True)
    plural = not (unit and before_noun(walk, k, prev))  # "a 4 ft x 8 ft sheet": "four foot by eight foot"
    if unit is None and not walk.trail(k) and noun_after_mark(walk.core(k + 1)):  # "a 20' x 40' tent"
        spoken = [
            s if s[:1] == "\0" else s.replace(" feet", " foot").replace(" inches", " inch") for s in spoken
        ]
    said = [unit_words(s[1:], plural) or s[1:] if s[:1] == "\0" else s for s in spoken]
    return walk.set(i, *said, *([unit] if unit else []))


def mixed(walk: Walk, i: int) -> int:
    """ "1 1/2 cups" -> "one and a half cups"; "2 3/4 in" -> "two and three quarters inches"."""
    if walk.trail(i):
        return 0
    fraction = walk.core(i + 1)
    percent = fraction.endswith("%")  # "33 1/3%": thirty-three and a third percent
    mark = MARKS.get(fraction[-1:], "")  # '35 ½"'
    said = mixed_fraction(walk.core(i), fraction[:-1] if mark or percent else fraction, walk.w)
    if said is None:
        return 0
    whole, _, part = said.partition(" and ")
    if percent or mark:
        return walk.set(i, whole, f"and {part} {mark or 'percent'}")
    unit = None if walk.trail(i + 1) else _unit_after(walk, i + 2, walk.core(i - 1).lower())
    return walk.set(i, whole, "and " + part, *([unit] if unit else []))


def grouped_id(walk: Walk, i: int) -> int:
    """Spaced digit groups after an identifier word ("ID: 845 2231 9907", "access code 553 219"):
    one identifier, digit by digit, never one cardinal."""
    if not _GROUP.match(walk.core(i)) or not _GROUP.match(walk.core(i + 1)):
        return 0
    named = bool(_ID_WORDS.intersection(walk.core(i - k).lower() for k in (1, 2, 3)))
    k = i
    while _GROUP.match(walk.core(k)) and (k == i or not walk.trail(k - 1)):
        k += 1
    # four groups of four digits or more ("9400 1000 0000 0000 00") are an identifier, named or not
    long_run = k - i >= 4 and all(len(walk.core(j)) == 4 for j in range(i, k - 1))
    if not (named or long_run) or k - i < 2 or sum(len(walk.core(j)) for j in range(i, k)) < 5:
        return 0
    spoken = [walk.w.digits(walk.core(j)) for j in range(i, k)]
    return walk.set(i, *[s + "," if j < len(spoken) - 1 else s for j, s in enumerate(spoken)])


def before_noun(walk: Walk, i: int, prev: str) -> bool:
    """A measure used as an adjective says its unit once: "a 10 GB plan", "the 20 lb bag"."""
    noun = walk.core(i + 2)
    if prev == "every":
        return False  # "every 30 min. starting at 5", "every 15 min until 7": how often, never an adjective
    prev2 = walk.core(i - 2).lower()
    described = noun_after_measure(prev, noun, prev2, plural_ok=True)  # "8 ft. ceilings"
    return not walk.trail(i + 1) and described and unit_words(noun, False) is None


_ROOMS = re.compile(r"^(?P<beds>\d{1,2})?(?:bd|br|bdrm|beds?)/(?P<baths>\d(?:\.5)?)(?P<ba>ba|baths?)?$", re.I)


def rooms(walk: Walk, i: int) -> int:
    """ "3 bd/2 ba", "3BR/2BA": a listing's bedrooms and bathrooms, each with its count; before a
    noun, as its adjective ("a 3BR/2BA condo": a three bedroom, two bath condo)."""
    glued = _ROOMS.match(walk.core(i))
    if glued and glued.group("beds") and glued.group("ba"):
        before_noun = noun_after_measure(walk.core(i - 1).lower(), walk.core(i + 1)) and not walk.trail(i)
        return walk.set(i, _rooms_said(glued.group("beds"), glued.group("baths"), walk.w, before_noun))
    split = _ROOMS.match(walk.core(i + 1))
    baths_word = walk.core(i + 2).lower().rstrip(".") in ("ba", "bath", "baths")
    counted = walk.core(i).isdigit() and not walk.trail(i)
    if not (split and not split.group("beds") and baths_word and counted):
        return 0
    before_noun = noun_after_measure(walk.core(i - 1).lower(), walk.core(i + 3)) and not walk.trail(i + 2)
    beds, baths = _rooms_said(walk.core(i), split.group("baths"), walk.w, before_noun).split(", ")
    number, _, bedrooms = beds.partition(" ")
    count, _, bathrooms = baths.rpartition(" ")
    return walk.set(i, number, f"{bedrooms}, {count}", bathrooms)


def _rooms_said(beds: str, baths: str, w: NumberWords, before_noun: bool) -> str:
    bath_count = w.cardinal(int(float(baths))) + (" and a half" if baths.endswith(".5") else "")
    if before_noun:
        return f"{w.cardinal(int(beds))} bedroom, {bath_count} bath"
    bedrooms = "bedroom" if beds == "1" else "bedrooms"
    bathrooms = "bathroom" if baths == "1" else "bathrooms"
    return f"{w.cardinal(int(beds))} {bedrooms}, {bath_count} {bathrooms}"


def per_area(walk: Walk, i: int) -> int:
    """ "$9/sq ft", "$48/cu yd": an amount per a square or cubic unit written apart."""
    m = re.match(r"^(.+)/(sq|cu)\.?$", walk.core(i))  # "$1.25/sq. ft."
    unit = unit_words(walk.core(i + 1).rstrip("."), False) if m and not walk.trail(i) else None
    said = read_money(m.group(1), walk.w) if m else None
    if m is None or unit is None or said is None:
        return 0
    return walk.set(i, f"{said} per {'square' if m.group(2) == 'sq' else 'cubic'}", unit)


def short_ampm_pair(walk: Walk, i: int) -> int:
    """ "between 9a and 1p": two clock times with a bare a/p, joined by a word."""
    joined = walk.core(i + 1).lower() in ("and", "to", "through", "thru", "or", "-", "–")
    if not (joined and SHORT_AMPM.match(walk.core(i)) and SHORT_AMPM.match(walk.core(i + 2))):
        return 0
    sides = [td.read_time(walk.core(k) + "m", walk.w) or walk.core(k) for k in (i, i + 2)]
    return walk.set(i, sides[0], walk.core(i + 1) if walk.core(i + 1).isalpha() else "to", sides[1])


#: roads named by a number ("6710 Hwy. 55", "450 Route 9", "12 County Road 7")
_NUMBERED_ROADS = frozenset(["Hwy", "Highway", "Route", "Rte", "Rt", "County", "State", "Interstate", "FM"])


def house_number(walk: Walk, i: int) -> int:
    """ "123 Main St", "742 Evergreen Terrace", "1412 Broadway": a house number in pairs."""
    core = walk.core(i)
    if not (core.isdigit() and 1 <= len(core) <= 5 and not walk.trail(i)):
        return 0
    directed = walk.core(i + 1).rstrip(".") in ("N", "S", "E", "W", "NE", "NW", "SE", "SW")
    if walk.core(i + 1 + directed) == "Broadway":  # the street with no street word ("1420 N. Broadway")
        return walk.set(i, paired(core, walk.w))
    road = walk.core(i + 1 + directed).rstrip(".")
    if road in _NUMBERED_ROADS and walk.core(i + 2 + directed).isdigit() and len(core) >= 3:
        return walk.set(i, paired(core, walk.w))  # "6710 Hwy. 55", "1200 Route 9": on a numbered road
    for k in range(i + 2, i + 5):  # past the last token, core is empty
        bare = walk.core(k).rstrip(".")
        bare = bare.title() if bare in ("st", "ave", "rd", "blvd", "ln", "dr") else bare  # "Oak st"
        name = walk.core(k - 1)
        if (
            bare in STREET_ANY
            and len(bare) > 1
            and (name[:1].isupper() or re.match(r"^\d+(?:st|nd|rd|th)$", name))
        ):
            return walk.set(i, paired(core, walk.w))
    return 0
