"""Numbers read by the role they play, not by their size: references, places, ratios, dimensions.

A person says a room number in pairs ("1207" -> "twelve oh seven"), an order reference digit by
digit, a gate or a seat as a letter and a small number ("B22" -> "B twenty-two"), "16:9" as a
ratio and "1920x1080" as a dimension. Each reader returns None when the token is not of its kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tts_service.engine.reading.english_tables import UNITS
from tts_service.engine.reading.english_units import PER_WORDS, UNIT_NAMES, unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = [
    "MARKED",
    "MARKS",
    "PAIRED_CONTEXT",
    "SHAPE_WORDS",
    "amount",
    "dimension",
    "joined",
    "mixed_fraction",
    "noun_after_mark",
    "noun_after_measure",
    "paired",
    "place_code",
    "plural_noun",
    "ratio",
    "reference",
    "side",
    "vulgar_part",
    "with_symbols",
]

#: a number after these is said in pairs, as a room is ("room 1207": "twelve oh seven")
PAIRED_CONTEXT = frozenset(
    ["room", "rm", "suite", "ste", "apt", "apartment", "unit", "flight", "office", "route", "highway", "hwy",
     "interstate", "exit", "platform", "terminal", "gate", "seat", "bus", "track", "pier", "dock", "bay",
     "level", "floor", "row", "aisle", "table", "locker", "section", "lot", "channel", "building", "bldg",
     "box", "boeing", "airbus", "cessna", "embraer", "§", "sec", "sec.", "cabin", "stateroom", "berth",
     "size", "train", "car", "coach", "carriage", "truck", "van", "store", "booth", "stall"]
)  # fmt: skip
#: words after which a letter-and-number code is a secret to spell, not a place to say
_SECRET_CONTEXT = frozenset(["code", "pin", "password", "passcode", "otp", "serial", "key", "token"])
#: words around a colon ratio that make it a picture's shape ("by"), not odds ("to")
SHAPE_WORDS = frozenset(
    [
        "aspect",
        "screen",
        "display",
        "monitor",
        "format",
        "frame",
        "video",
        "photo",
        "widescreen",
        "resolution",
        "tv",
        "shoot",
        "crop",
        "image",
        "sensor",
        "camera",
        "streaming",
    ]
)
_IS = frozenset(["it's", "that's", "there's", "here's", "what's", "he's", "she's", "let's", "who's",
                 "where's", "how's", "one's", "today's"])  # fmt: skip
_ARTICLES = frozenset(["a", "an", "the", "this", "that", "each", "every", "your", "my", "our", "their",
                       "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
                       "several", "some", "many", "few", "extra", "spare", "per"])  # fmt: skip
#: what follows a quantity to say what became of it, no noun it describes ("the 8,000 hrs needed")
_COUNTED_PARTICIPLES = frozenset(["needed", "required", "remaining", "used", "spent", "allowed",
                                  "included", "listed", "shown", "requested", "paid", "owed", "saved",
                                  "earned", "billed", "charged", "logged", "worked", "left"])  # fmt: skip
#: what a measure counts out in, named in the plural with no article before the measure: "75 mg
#: tablets", "3/8 in. anchors" (the measure is their adjective, its unit singular)
_MEASURED_PIECES = frozenset(["tablets", "capsules", "pills", "caplets", "softgels", "doses", "vials",
                              "bottles", "jars", "cans", "bags", "boxes", "packs", "cartons", "tubes",
                              "pouches", "cups", "rounds", "sheets", "boards", "planks", "pipes",
                              "bolts", "screws", "nails", "anchors", "panels", "tiles", "bricks",
                              "blocks", "rolls", "coils", "batteries", "bulbs", "filters", "tires",
                              "wheels", "pans", "pots", "trays", "containers", "bins", "buckets",
                              "drums"])  # fmt: skip
#: words after a unit that are not the noun it describes ("a 5 km long trail", "10 GB more")
_NOT_NOUNS = frozenset(
    [
        "of",
        "or",
        "and",
        "to",
        "in",
        "on",
        "at",
        "for",
        "from",
        "more",
        "less",
        "long",
        "wide",
        "tall",
        "high",
        "deep",
        "away",
        "ago",
        "per",
        "each",
        "left",
        "later",
        "early",
        "late",
        "off",
        "down",
        "up",
        "is",
        "are",
        "was",
        "were",
        "old",
        "apart",
        "behind",
        "ahead",
        "total",
        "max",
        "min",
        "you",
        "i",
        "we",
        "they",
        "he",
        "she",
        "it",
        "that",
        "this",
        "which",
        "who",
        "then",
        "than",
        "so",
        "but",
        "if",
        "as",
        "with",
        "by",
        "into",
        "onto",
        "over",
        "under",
        "across",
        "through",
        "today",
        "tonight",
        "now",
        "overall",
        "either",
        "both",
        "too",
        "still",
        "already",
        "instead",
        "exactly",
        "only",
        "just",
        "about",
        "around",
        "plus",
        "minus",
        "above",
        "below",
        "beneath",
        "past",
        "short",
        "thick",
    ]
)


def noun_after_mark(noun: str) -> bool:
    """ "8' banquet tables", '60" round tables': a measure written with a foot or inch mark is
    the adjective of the word after it, article or not, unless that word is no noun ("6' tall")."""
    return noun_after_measure("a", noun)


def noun_after_measure(prev: str, noun: str, prev2: str = "", *, plural_ok: bool = False) -> bool:
    """ "a 10 GB plan": after an article, the word after a measure is the noun it describes; after an
    article and an adjective too ("a clean 16 oz. bottle", "a failing 512GB SSD", ``prev2`` the
    article); with no article
    a plural noun (``plural_ok``: a measure, not money, whose noun is rarely a verb: "8 ft. ceilings")."""
    if prev2 in _ARTICLES and (prev in _ADJECTIVES or (prev.endswith("ing") and prev.isalpha())):
        prev = prev2
    noun = noun.removesuffix("'s").removesuffix("’s")  # "the 2.5L engine's belt"
    bare = noun.replace("-", "")  # "add-on"; "a 65W USB-C charger", "your 65" TV": an acronym is a noun too
    named = noun[:1].islower() or (bare.isupper() and 2 <= len(bare) <= (6 if "-" in noun else 4))  # "UHS-II"
    owner = prev.endswith(("'s", "’s")) and len(prev) > 3 and prev.replace("’", "'") not in _IS
    # "John's 5 kg bag"; not "it's", "that's" (is, not a possessive)
    pieces = noun.lower() in _MEASURED_PIECES or (plural_ok and plural_noun(noun))
    done = noun in _COUNTED_PARTICIPLES  # "the 8,000 hrs needed"
    return (
        (prev in _ARTICLES or owner or pieces)
        and bare.isalpha()
        and named
        and noun not in _NOT_NOUNS
        and noun not in _NO_PIECES  # "each 2 GB costs": a verb
        and not done
    )


#: the adjectives between an article and a measure ("a clean 16 oz. bottle", "a new 24V transformer")
_ADJECTIVES = frozenset(
    ["new", "old", "clean", "big", "small", "large", "standard", "full", "single", "double", "free", "basic",
     "special", "typical", "whole", "regular", "empty", "used", "heavy", "light", "short", "long", "quick",
     "replacement", "dedicated", "separate", "second", "brand-new", "sealed", "reusable", "additional",
     "optional", "larger", "smaller"]
)  # fmt: skip
#: words in s after a measure that are no plural it describes ("5 km years ago", "each 2 GB costs")
_NO_PIECES = frozenset(
    ["years", "months", "weeks", "days", "hours", "minutes", "seconds", "times", "others", "various",
     "always", "perhaps", "sometimes", "afterwards", "besides", "unless", "across", "costs", "takes",
     "makes", "gets", "comes", "goes", "runs", "includes", "covers", "posts", "needs", "means", "remains",
     "works", "lasts", "holds", "fits", "weighs", "requires", "pays", "adds", "starts", "ends", "applies",
     "gives", "keeps", "uses", "saves", "bills", "sells", "ships", "arrives", "leaves", "drops", "rises",
     "falls", "moves", "equals", "matters", "counts", "reads", "shows", "looks", "sounds", "feels", "seems"]
)  # fmt: skip


def plural_noun(word: str) -> bool:
    """ "chairs", "ceilings": a lower-case word in s that reads as a plural noun (not a unit's name,
    a time word, or a verb in s such as "costs", "leaves")."""
    ends = word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return len(word) > 4 and ends and word.islower() and word not in UNIT_NAMES and word not in _NO_PIECES


_ODDS_WORDS = frozenset(
    [
        "ratio",
        "odds",
        "won",
        "lost",
        "beat",
        "score",
        "mix",
        "mixed",
        "split",
        "chance",
        "scale",
        "dilution",
        "dilute",
    ]
)
_PLACE = re.compile(
    r"^(?:(?P<l1>[A-Za-z]|[A-Z]{2}(?=-))-?(?P<n1>[1-9]\d{0,2})|(?P<n2>[1-9]\d{0,2})(?P<l2>[A-Za-z]))$"
)  # "B22", "14C", "I-80", "US-101"
_RESOLUTION = re.compile(r"^(?P<n>480|576|720|1080|1440|2160|4320)(?P<s>[pi])$")
_RATIO = re.compile(r"^(?P<a>\d{1,5}):(?P<b>\d{1,5})(?::(?P<c>\d{1,5}))?$")
_NUM = r"\d+(?:\.\d+)?['′\"″]?"
_DIMENSION = re.compile(rf"^(?P<a>{_NUM})[xX×](?P<b>{_NUM})(?:[xX×](?P<c>{_NUM}))?(?P<unit>[a-zA-Z]+)?$")
#: a foot or an inch mark, and what it says after a number
MARKS = {"'": "feet", "′": "feet", '"': "inches", "″": "inches"}
#: a measure written with its foot or inch mark ('112"', "10'", '3.5\'')
MARKED = re.compile(r"^\d+(?:\.\d+)?[\"″'′]$")
#: what a mark says after one
_ONE = {"feet": "foot", "inches": "inch"}
_VULGAR = {"½": (1, 2), "¼": (1, 4), "¾": (3, 4), "⅓": (1, 3), "⅔": (2, 3), "⅛": (1, 8), "⅜": (3, 8),
           "⅝": (5, 8), "⅞": (7, 8)}  # fmt: skip
_AMOUNT = re.compile(r"^(?P<whole>\d{1,3})?(?:(?P<v>[½¼¾⅓⅔⅛⅜⅝⅞])|-(?P<a>\d{1,2})/(?P<b>\d{1,2}))$")
_MIXED = re.compile(r"^(?P<a>[1-9]\d?)/(?P<b>[2-9]|1[0-6])$")
_PARTS = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters")}


def paired(core: str, w: NumberWords) -> str:
    """A 3- or 4-digit reference in pairs: "314" -> "three fourteen", "1207" -> "twelve oh seven",
    "1500" -> "fifteen hundred"; others as a cardinal."""
    if len(core) == 3 and core[0] != "0" and core[1:] != "00":
        tail = "oh " + w.cardinal(int(core[2])) if core[1] == "0" else w.cardinal(int(core[1:]))
        return w.cardinal(int(core[0])) + " " + tail
    if len(core) == 4 and core[0] != "0" and core[1] != "0" and core[2:] == "00":
        return w.cardinal(int(core[:2])) + " hundred"
    if len(core) == 4 and core[0] != "0" and core[2:] != "00":
        tail = "oh " + w.cardinal(int(core[3])) if core[2] == "0" else w.cardinal(int(core[2:]))
        return w.cardinal(int(core[:2])) + " " + tail
    return w.cardinal(int(core)) if core.isdigit() and core[0] != "0" else w.digits(core)


def reference(digits: str, w: NumberWords) -> str:
    """A number that names something ("#3", "#412", "#58213"): small ones as numbers, three or
    four digits in pairs, longer ones digit by digit."""
    if len(digits) <= 2 and digits[0] != "0":
        return w.cardinal(int(digits))
    if len(digits) <= 4 and digits[0] != "0":
        return paired(digits, w)
    return w.digits(digits) if len(digits) <= 15 else w.digit_groups(digits)


def place_code(core: str, near: tuple[str, ...], w: NumberWords) -> str | None:
    """A gate, seat, exit or highway: one letter and a small number ("B22", "14C", "I-80")."""
    if (r := _RESOLUTION.match(core)) is not None:  # "1080p": "ten eighty p"
        return paired(r.group("n"), w) + " " + r.group("s")
    m = _PLACE.match(core)
    if m is None or _SECRET_CONTEXT.intersection(near):
        return None
    if m.group("l1"):  # "I-405": "I four oh five", as a route is said
        return w.letters(m.group("l1")) + " " + paired(m.group("n1"), w)
    return paired(m.group("n2"), w) + " " + w.letters(m.group("l2"))


def ratio(core: str, near: tuple[str, ...], w: NumberWords) -> str | None:
    """ "16:9" (a shape: "sixteen by nine"), "5:1" (odds, a score: "five to one"); not a time.

    ``near``: the two words before the ratio and the one after it."""
    m = _RATIO.match(core)
    if m is None:
        return None
    a, b, c = m.group("a"), m.group("b"), m.group("c")
    odds = bool(_ODDS_WORDS.intersection(near))
    shape = not odds and bool(SHAPE_WORDS.intersection(near))
    clock = len(b) == 2 and (c is None or len(c) == 2) and len(a) <= 2  # "4:30", "10:15:42"
    if clock and not odds and not shape:
        return None  # a time
    link = "by" if shape else "to"  # "1:2:3": one to two to three; "1:6000": one to six thousand
    return f" {link} ".join(w.cardinal(int(part)) for part in (a, b, c) if part is not None)


def dimension(core: str, w: NumberWords) -> str | None:
    """ "1920x1080" -> "nineteen twenty by ten eighty", "5x8ft" -> "five by eight feet"."""
    m = _DIMENSION.match(core)
    if m is None:
        return None
    unit = unit_words(m.group("unit"), True) if m.group("unit") else ""
    if unit is None:
        return None
    sides = [side(s, w) for s in (m.group("a"), m.group("b"), m.group("c")) if s]
    return " by ".join(sides) + (" " + unit if unit else "")


def side(text: str, w: NumberWords) -> str:
    """One side of a dimension: "12" or "12'" ("twelve feet") or '11"' ("eleven inches"); four
    digits in pairs, as a screen's pixels are said ("1920": "nineteen twenty")."""
    mark = MARKS.get(text[-1:], "")
    number = text[:-1] if mark else text
    said = paired(number, w) if len(number) == 4 and number.isdigit() else w.number(number)
    return said + (" " + (mark if number != "1" else _ONE[mark]) if mark else "")


def amount(core: str, w: NumberWords) -> tuple[str, bool] | None:
    """ "1½", "¾", "1-1/2" -> ("one and a half", plural?): fractions as recipes write them."""
    m = _AMOUNT.match(core)
    if m is None or (not m.group("whole") and not m.group("v")):
        return None
    a, b = _VULGAR[m.group("v")] if m.group("v") else (int(m.group("a")), int(m.group("b")))
    if m.group("whole"):
        said = mixed_fraction(m.group("whole"), f"{a}/{b}", w)
        return None if said is None else (said, True)
    one, many = _PARTS.get(b, (w.ordinal(b), w.ordinal(b) + "s"))
    return ("one " + one if a == 1 else w.cardinal(a) + " " + many), a > b


def mixed_fraction(whole: str, fraction: str, w: NumberWords) -> str | None:
    """ "1", "1/2" -> "one and a half"; "2", "3/4" or "¾" -> "two and three quarters"."""
    m = _MIXED.match(fraction)
    if (m is None and fraction not in _VULGAR) or not whole.isdigit() or whole[0] == "0" or len(whole) > 9:
        return None
    a, b = (int(m.group("a")), int(m.group("b"))) if m else _VULGAR[fraction]
    if a == b:
        return None  # "3 5/2" is "three and five halves"; "2 2/2" is no number anyone writes
    one, many = _PARTS.get(b, (w.ordinal(b), w.ordinal(b) + "s"))
    part = ("an " if one[0] in "aeio" else "a ") + one if a == 1 else w.cardinal(a) + " " + many
    return f"{w.cardinal(int(whole))} and {part}"


def vulgar_part(core: str, adjective: bool, w: NumberWords) -> str | None:
    """A fraction sign with an inch or foot mark: '1½"' -> "one and a half inches", '¾"' ->
    "three quarters of an inch" (``adjective``, before its noun: "three quarter inch")."""
    mark = MARKS.get(core[-1:], "")
    m = _AMOUNT.match(core[:-1]) if mark else None
    if m is None or not m.group("v"):
        return None
    a, b = _VULGAR[m.group("v")]
    if m.group("whole"):
        return f"{mixed_fraction(m.group('whole'), m.group('v'), w)} {mark}"  # '1½"': one and a half inches
    one, many = _PARTS.get(b, (w.ordinal(b), w.ordinal(b) + "s"))
    single = _ONE[mark]
    if adjective:  # 'a ½" gap', '¾" plywood': a half inch gap, three quarter inch plywood
        return (one if a == 1 else f"{w.cardinal(a)} {one}") + " " + single
    return ("half" if b == 2 else ("an " if one[0] in "aeio" else "a ") + one if a == 1 else
            f"{w.cardinal(a)} {many} of") + (" an " if single == "inch" else " a ") + single  # fmt: skip


_PER = re.compile(r"^(?P<head>[^/\s]*\d[^/\s]*)/(?P<unit>[A-Za-z]+)\.?$")
#: a price: what it is per can be any thing sold ("$40/round", "5¢/gal", "C$0.31/km")
_PRICED = re.compile(r"^(?:[A-Z]{0,2}[$€£¥₹]|[$€£¥₹]?\d[\d,]*(?:\.\d+)?¢$)")
_PRICED_PER = {
    "doz": "dozen",
    "pc": "piece",
    "pcs": "piece",
    "ppl": "person",
    "pp": "person",
    "sqft": "square foot",
}
_PER_PER = re.compile(r"^(?P<head>[^/\s]*\d[^/\s]*)/(?P<units>[A-Za-z]+/[A-Za-z]+)\.?$")
#: "1st-time", "7.2-millimeter", "1/4-inch"
_HYPHENED = re.compile(
    r"^(?P<head>[-−+]?[\d,]*\.?\d+(?:st|nd|rd|th)?|\d{1,2}/\d{1,2}|['’]?(?:1[1-9]|20)?\d0s|[½¼¾⅓⅔]|\d+(?:\.\d+)?[a-z]{1,3})"
    r"-(?P<word>[A-Za-z]+|(?:sq|cu)-(?:ft|in|yd|m))\.?$"
)  # "1st-time", "1/4-inch", "'70s-inspired"
_LINKED = re.compile(r"^(\d{1,3})-([a-z]{2,4})-(\d{1,3})$")
_AGE_WORDS = {"yr": "year", "yrs": "year", "mo": "month", "wk": "week", "hr": "hour"}
_AGED = re.compile(r"^(?P<head>\d[\d,]*(?:\.\d+)?)(?P<words>(?:-[a-z]+){2,3})$")
_PLAN = re.compile(r"^(?P<n>\d{3})\((?P<letter>[a-z])\)?$")
_PREFIXED = re.compile(r"^(?P<prefix>mid|pre|post|early|late)-(?P<rest>.*\d.*)$", re.IGNORECASE)


def joined(core: str, w: NumberWords, head: Callable[[str, NumberWords], str | None]) -> str | None:
    """A number joined to a word: "$20/mo" -> "twenty dollars per month", "7.2-millimeter" (an
    adjective: the unit singular), "24-hour", "mid-1980s". ``head`` reads the number part."""
    if (m := _PER_PER.match(core)) is not None:  # "$24/user/month": per user per month
        said = head(m.group("head"), w)
        pers = [
            unit_words(u, False) or PER_WORDS.get(u.lower(), (u,))[0] for u in m.group("units").split("/")
        ]
        return None if said is None else said + "".join(f" per {p}" for p in pers)
    if (m := _PER.match(core)) is not None:
        unit = m.group("unit")
        said, per = head(m.group("head"), w), unit_words(unit, False) or PER_WORDS.get(unit.lower(), ("",))[0]
        if said is not None and not per and _PRICED.match(m.group("head")):
            if unit.lower() == "ea":
                return said + " each"  # "$189/ea"
            per = _PRICED_PER.get(unit.lower()) or (unit if unit.islower() and len(unit) >= 3 else "")
        return None if said is None or not per else f"{said} per {per}"  # "$40/round", "$6.50/doz."
    if (m := _HYPHENED.match(core)) is not None:
        said, word = head(m.group("head"), w), m.group("word")
        if (area := re.match(r"^(sq|cu)-(ft|in|yd|m)$", word)) is not None:  # "a 2,400-sq-ft home"
            kind = "square" if area.group(1) == "sq" else "cubic"
            return None if said is None else f"{said} {kind} {unit_words(area.group(2), False)}"
        unit = unit_words(word, False) if not word.isupper() or word in UNITS else None
        counted = re.match(r"^[1-9]\d{0,2}$", m.group("head")) is not None
        if said is not None and unit is None and counted and word.isupper() and 3 <= len(word) <= 4:
            return f"{said} {w.letters(word)}"  # "a 67-CCF increase" (not a code's "4410-AZ")
        if said is not None and unit is not None and said.endswith(" quarters"):
            said = said[:-1]  # "3/4-in.": a three quarter inch line
        if said is None or (unit is None and not ((word.islower() or word.istitle()) and len(word) >= 3)):
            return None  # "the 50-Class Club" as much as "a 24-hour gym"
        return f"{said} {unit or word}"
    if (m := _AGED.match(core)) is not None:  # "10-year-old", "3-day-long": the number, then its words
        said = head(m.group("head"), w)
        spelled = [_AGE_WORDS.get(word, word) for word in m.group("words").split("-")]  # "16-yr-old"
        return None if said is None else said + " ".join(spelled)
    if (m := _LINKED.match(core)) is not None:  # "2-for-1", "3-in-1", "1-on-1"
        return f"{w.cardinal(int(m.group(1)))} {m.group(2)} {w.cardinal(int(m.group(3)))}"
    if (m := _PLAN.match(core)) is not None:  # "401(k)", "403(b)": the plan's name
        return paired(m.group("n"), w) + " " + m.group("letter")
    if (m := _PREFIXED.match(core)) is not None:
        said = head(m.group("rest"), w)
        return None if said is None else f"{m.group('prefix')} {said}"
    return None


#: symbols inside a word ("C++", "test$", "12@"), said one by one
_SYMBOLS = {"+": "plus", "$": "dollar", "#": "hash", "@": "at", "%": "percent", "&": "and", "=": "equals",
            "/": "slash", "*": "star", "€": "euro", "£": "pound", "¥": "yen", "₩": "won",
            "₹": "rupee", "°": "degrees", "º": "degrees", "˚": "degrees"}  # fmt: skip
_SYMBOLIC = re.compile(r"^(?=.*[A-Za-z0-9])(?=.*[+$#@%&=/*€£¥₩₹°º˚])[A-Za-z0-9+$#@%&=/*€£¥₩₹°º˚]+$")


def with_symbols(core: str, w: NumberWords, word: Callable[[str, NumberWords], str | None]) -> str | None:
    """A token no other rule read that mixes words or numbers with symbols: each piece said
    ("C++" -> "C plus plus", "2+3" -> "two plus three"); ``word`` reads a run of letters."""
    if _SYMBOLIC.match(core) is None:
        return None
    out = []
    for piece in re.findall(r"[A-Za-z]+|\d+|.", core):
        if piece.isdigit():
            out.append(w.cardinal(int(piece)) if len(piece) <= 4 and piece[0] != "0" else w.digits(piece))
        elif piece in "º˚":  # letters to Python, degrees to a reader
            out.append(_SYMBOLS[piece])
        elif piece.isalpha():
            out.append(word(piece, w) or piece)
        elif piece == "#" and core.endswith("#") and core[:-1].isalpha() and len(core) > 2:
            out.append("number")  # "Order#", "Rx#" (not "C#")
        else:
            out.append(_SYMBOLS[piece])
    return " ".join(out)
