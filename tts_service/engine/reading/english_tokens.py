"""English readings of one written token (its core, punctuation stripped), given its neighbours.

Each reader returns the spoken words, or None when the token is not of its kind; ``read_core``
tries them most specific first. Context is the lower-case previous words and the next word.
"""

from __future__ import annotations

import re

from tts_service.engine.reading import english_context as sentence
from tts_service.engine.reading import english_fractions as fractions
from tts_service.engine.reading import english_roles as roles
from tts_service.engine.reading import timedate as td
from tts_service.engine.reading import web
from tts_service.engine.reading.english_codes import (
    is_model_name,
    model_number,
    named_code,
    over_letter,
    read_acronym,
    retirement_plan,
    spaced_model,
    spell_code,
    symbol_run,
    team_name,
)  # fmt: skip
from tts_service.engine.reading.english_money import NUM, read_money
from tts_service.engine.reading.english_near import Context
from tts_service.engine.reading.english_neighbours import by_neighbours, named_form
from tts_service.engine.reading.english_tables import (
    ABBREVIATIONS,
    COUNTED_TIME,
    DIGIT_CONTEXT,
    MODEL_YEAR_BEFORE,
    MONTH_NAMES,
    NUMBERED_RELEASES,
    ORDINAL_NAMES,
    ROMAN_CARDINAL_CONTEXT,
    SCALES,
    STREET_WORDS,
    SYMBOL_WORDS,
    TITLES,
    YEAR_CONTEXT,
)  # fmt: skip
from tts_service.engine.reading.english_units import PER_WORDS, unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = ["Context", "read_core", "read_money", "read_number", "unit_words"]

_NUMBER = re.compile(rf"^[-−+]?(?:{NUM})$")
_PERCENT = re.compile(rf"^(?P<num>[-−+]?(?:{NUM}))%$")
_ORDINAL = re.compile(r"^(?P<n>\d[\d,]{0,25})(?:st|nd|rd|th|ST|ND|RD|TH)$")
_DECADE = re.compile(r"^(?:(?P<y>1[1-9]\d0|20\d0)|['’]?(?P<short>[2-9]0)|['’]?(?P<aughts>00))['’]?s$")
_GLUED_UNIT = re.compile(rf"^(?P<num>[-−+]?(?:{NUM}))(?P<unit>°[CF]?|[A-Za-z/²]+\d?)$")
_FEET = re.compile(
    r"^(?P<ft>\d+)['′](?:(?P<in>\d+(?:\.\d+)?)(?:\"|″|'')?)?$|^(?P<only_in>\d+(?:\.\d+)?)(?:\"|″)$"
)
_VERSION = re.compile(r"^[vV]?\d+(?:\.\d+){2,}$")
_CODE = re.compile(r"^[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*$")
_ROMAN = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_MONTH_YEAR = re.compile(r"^(?P<m>0?[1-9]|1[0-2])/(?P<y>(?:19|20)\d\d)$")
#: what a year names before it ("the 2024 season")
_YEARLY = frozenset(["season", "election", "elections", "census", "budget", "edition", "model", "class",
                     "contribution", "deadline", "filing", "enrollment", "calendar", "fiscal",
                     "tournament", "championship", "campaign", "draft", "olympics", "vintage"])  # fmt: skip
#: what a three-digit decimal with no leading zero is before (baseball's way of writing them)
_AVERAGES = frozenset(
    ["batting", "hitting", "average", "avg", "hitter", "slugging", "on-base", "obp", "winning"]
)
#: words around a 4K or 8K that make it a picture's resolution, not four thousand
_SCREEN_NEXT = frozenset(
    ["uhd", "hdr", "at", "resolution", "video", "videos", "streaming", "content", "60", "120", "ultra"]
)
_SCREEN_BEFORE = frozenset(
    ["supports", "support", "native", "true", "shoots", "records", "streams", "upscales"]
)
_WORD_PER = re.compile(r"^([A-Za-z]{2,})/(mo|yr|wk|hr|day|week|month|year|night|person)\.?$")
#: what a number keeps the zeros after its point for ("a 4.00 GPA"); elsewhere "-1.00" is minus one
_DECIMAL_KEPT = frozenset(["gpa", "version", "release", "rating", "average", "era"])
#: what a numbered savings plan is called by ("a 529 plan": five twenty-nine)
_PLAN_WORDS = frozenset(["plan", "plans", "account", "accounts", "savings", "contribution", "contributions"])
_COMMON_FRACTION = re.compile(r"^(\d{1,2})/(\d{1,2})$")
_CLOCK_24 = re.compile(r"^(?:1[3-9]|2[0-3]):[0-5]\d$")
_LICENSED = frozenset(["license", "licence", "lic", "permit", "registration"])
_VULGAR_PARTS = {"½": "half", "¼": "quarter", "¾": "three quarter", "⅓": "third", "⅔": "two thirds"}
_SEASON = re.compile(r"^((?:19|20)\d\d)/(\d\d)$")
_TIRE = re.compile(r"^(\d{3})/(\d{2})(Z?R)(\d{2})$")
#: unit abbreviations that are also words: read as a unit only glued to the number ("5m", "10s")
RISKY_UNITS = frozenset({"in", "m", "s", "d", "h", "x", "l", "g", "B", "W", "V", "pt", "mo", "L", "cal"})
#: ...but these capitals are the unit after a spaced number too ("57 L", "65 W", "12 V"): a letter
#: after an amount is said "57 L" by nobody
SPACED_CAPITAL_UNITS = frozenset({"L", "W", "V"})
#: ...unless the number names a place, whose letter follows it ("Row 5 L", "Gate 12 W")
PLACE_WORDS = frozenset({"row", "seat", "gate", "section", "aisle", "deck", "platform", "bay", "dock", "lot"})
_TEXTING = frozenset(["text", "txt", "sms", "reply", "send", "texting"])
_LOWER_STREET = frozenset(["Ave", "Blvd", "Pkwy", "Hwy", "Expy", "Fwy", "Plz"])
_LOWER_SHORT = frozenset(["st", "ave", "rd", "blvd", "ln", "dr", "ct", "pl", "hwy", "pkwy"])
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")


def is_one(num: str) -> bool:
    """ "1", "-1", "1.0": a count of one (its unit singular)."""
    return num.lstrip("-−+") in ("1", "1.0")


def read_number(num: str, w: NumberWords, ctx: Context | None = None) -> str:
    """A plain written number, by its role: identifiers digit by digit, years as years, else cardinal."""
    body = num.lstrip("-−+")
    plain = body.replace(",", "")
    sign = "plus " if num[:1] == "+" else ""
    if (
        re.match(r"^\.\d{3}$", num)
        and ctx is not None
        and (ctx.next_word in _AVERAGES or ctx.prev() in _AVERAGES)
    ):
        return roles.paired(num[1:], w)  # "a .312 batting average": three twelve
    counted = (
        ctx is not None
        and (num[:1] in "-−+" or ctx.next_word.isalpha())
        and ctx.next_word not in _DECIMAL_KEPT
    )
    if re.match(r"^\d[\d,]*\.00+$", body) and counted:
        num, body = num.split(".")[0], body.split(".")[0]  # "-1.00 diopters": minus one
        plain = body.replace(",", "")
    if "." in num or num[:1] in "-−":
        return sign + w.number(num)
    if ctx is not None and "," not in body:
        clock = sentence.military_time(plain, ctx.prev(), ctx.next_word, w) if len(plain) == 4 else None
        if clock is not None:
            return clock  # "leaves at 0730"
        named_form = len(plain) == 4 and ctx.next_word in ("form", "forms")  # "1099 forms", not "312 forms"
        named_form = named_form or (plain in ("529", "401", "403", "457") and ctx.next_word in _PLAN_WORDS)
        named_form = named_form or (plain == "365" and ctx.prev_raw in ("Microsoft", "Office"))
        if named_form or (len(plain) in (3, 4) and sentence.tax_form(plain, ctx.prev())):
            return roles.paired(plain, w)  # "1099 forms", "Form 1040", "your 1040": ten forty
        if ctx.prev() == "#" and len(plain) <= 4:
            return roles.reference(plain, w)  # "(# 123)" as "#123"
        if len(ctx.prev_raw) > 2 and ctx.prev_raw[-1] == "#" and ctx.prev_raw[:-1].isalpha():
            return (
                w.digits(plain) if len(plain) >= 5 else roles.reference(plain, w)
            )  # "Rx# 55012", "PA# 4410"
        near = ctx.before[-3:]
        unit = ctx.next_word.rstrip(".")
        measured = unit in ("sq", "cu") or (unit not in RISKY_UNITS and unit_words(unit, True) is not None)
        named = (
            ctx.prev() in ("number", "no", "no.", "#", "is", "and", "or", "&")
            and not measured  # "the apartment is 850 sq ft": a size, not the apartment's number
            and bool(
                roles.PAIRED_CONTEXT.intersection(near)
                or {p[:-1] for p in near if p.endswith("s")} & roles.PAIRED_CONTEXT
            )
        )  # "room number 1412", "rooms 1207 and 1208"
        prev = ctx.prev().rstrip(".")
        if len(ctx.prev_raw) == 2 and ctx.prev_raw.isupper() and roles.PAIRED_CONTEXT.intersection(near):
            prev = ctx.prev(2)  # "flight UA 482": the airline's code between
        counted = roles.plural_noun(ctx.next_word)  # "20 round tables, 160 chairs": a count
        named = (prev[:-1] in roles.PAIRED_CONTEXT or named) and not counted
        if (prev in roles.PAIRED_CONTEXT or named) and len(plain) <= 4:
            return sign + roles.paired(plain, w)
        if prev == "box" and 5 <= len(plain) <= 8:
            return sign + w.digits(plain)  # "P.O. Box 17023": one seven oh two three
        texting = (ctx.prev() == "to" and bool(_TEXTING.intersection(near))) or ctx.prev() in _TEXTING
        if texting and 3 <= len(plain) <= 6:
            return sign + w.digits(plain)  # a short code: "text JOIN to 55123"
        # "Member since 2019" is a year; "card ending in 1234" is not ("in" is no year word beside "ending")
        dated = ctx.prev() in sentence.SINCE and len(plain) == 4 and 1100 <= int(plain) <= 2099
        if ctx.prev() in ("error", "err", "http", "status") and len(plain) == 3:
            return roles.paired(plain, w)  # "Error 404": four oh four
        if (
            ctx.before[-2:] in (("end", "in"), ("ends", "in"), ("ending", "in"))
            and len(plain) <= 6
            and (after := ctx.next_word.rstrip(".,;:!?").lower()) not in COUNTED_TIME
            and unit_words(after, True) is None
        ):  # "it should end in 3908": a card's last four ("ends in 14 days" counts the days)
            return w.digits(plain)
        if ctx.prev() in ("from", "to", "at") and _TEXTING.intersection(ctx.before) and len(plain) in (5, 6):
            return w.digits(plain)  # "a text from 72166": a short code
        if ctx.digits_named and 3 <= len(plain) <= 6:
            return w.digits(plain)  # "the last four digits on file are 6032"
        if len(plain) >= 5 and _LICENSED.intersection(b.rstrip(".") for b in ctx.before[-3:]):
            return w.digits(plain)  # "license ROC 318264": a license's number, digit by digit
        if ctx.prev() in ("ext", "ext.", "extension", "x") and re.match(r"^[1-9]\d?00$", plain):
            return roles.paired(plain, w) if len(plain) == 4 else w.cardinal(int(plain))  # "ext. 400"
        if ctx.prev() == "port" and len(plain) >= 3:
            return w.digits(plain)  # "port 443": a network port, digit by digit
        if (ctx.prev() in DIGIT_CONTEXT and (len(plain) >= 3 or plain[0] == "0")) or (
            len(plain) >= 3 and (DIGIT_CONTEXT.intersection(near) or "digits" in near) and not dated
        ):
            return sign + (w.digit_groups(plain) if len(plain) > 15 else w.digits(plain))
        if len(plain) == 4 and 1100 <= int(plain) <= 2099 and _year_like(ctx):
            return sign + w.year(int(plain))
        if len(plain) == 4 and plain[0] != "0" and is_model_name(ctx.prev_raw, ctx.before):
            return sign + spaced_model(plain, w)  # "RTX 4090": forty ninety
        if ctx.next_word.replace(".", "") in ("ad", "bc", "bce", "ce") and len(plain) <= 4:
            return sign + (w.year(int(plain)) if len(plain) == 4 else roles.paired(plain, w))  # "340 AD"
    if "," in body and len(plain) <= 21:  # grouped by commas: a quantity, "... quintillion ..."
        return sign + w.grouped(int(plain))
    if len(plain) > 15:  # an identifier, not a quantity (card and reference numbers)
        return sign + w.digit_groups(plain)
    if (
        (
            plain in sentence.SERVICE_NUMBERS
            and sentence.service(plain, None if ctx is None else (ctx.prev(), ctx.next_word))
        )
        or (len(plain) > 1 and plain[0] == "0")
        or (len(plain) >= 7 and "," not in body and len(plain.rstrip("0")) > 3)  # "1000000" is a million
    ):
        return sign + w.digits(plain)
    return sign + w.cardinal(int(plain))


def _year_like(ctx: Context) -> bool:
    """A year in 1100-2099 next to a year word, before punctuation or a word that starts a clause."""
    if ctx.prev() in YEAR_CONTEXT or td.month_number(ctx.prev().title()) is not None:
        return True
    if (
        (
            ctx.prev() in ("the", "a", "its", "their", "his", "her", "your", "my", "our")
            or ctx.prev() in MODEL_YEAR_BEFORE
        )
        and not ctx.punctuated
        and (ctx.next_raw[:1].isupper() or ctx.next_word in _YEARLY)
    ):
        return True  # "the 2011 World Series", "a 1967 Mustang", "the 2024 season"
    return sentence.year_after(ctx.before) or sentence.clause_follows(
        ctx.next_word, ctx.punctuated or bool(ctx.next_lead)
    )


def _regnal(core: str, ctx: Context) -> bool:
    """After a given name ("Henry VIII", "Sam II"), or a given name and a surname ("Henry Ford II")."""
    if ctx.prev() in ORDINAL_NAMES:
        return True
    return (
        len(core) >= 2
        and ctx.prev(2) in ORDINAL_NAMES
        and ctx.prev_raw[1:].islower()
        and ctx.prev_raw.istitle()
    )


def _roman(core: str, ctx: Context) -> int | None:
    # "King David I of Scotland", "Francis I." are the first; "Sam I am" keeps the pronoun
    ended = ctx.punctuated or ctx.next_word in ("", "of", "and")
    first = core == "I" and ctx.prev() in ORDINAL_NAMES and ended
    lone_i = core == "I" and ctx.prev() not in ROMAN_CARDINAL_CONTEXT
    if not core or _ROMAN.match(core) is None or (lone_i and not first) or core in ("C", "D", "L", "M"):
        return None  # "Schedule C", "Plan D": a letter alone is no hundred
    titled = ctx.prev_raw.istitle() and ctx.prev_raw.isalpha() and re.match(r"^[IVX]{2,6}$", core)
    if ctx.prev() not in ROMAN_CARDINAL_CONTEXT and not _regnal(core, ctx) and not titled:
        return None  # "Final Fantasy VII", "Apollo XI": a numeral of I, V, X after a name is a number
    total = 0
    for a, b in zip(core, core[1:] + " ", strict=True):
        va, vb = _ROMAN_VALUES[a], _ROMAN_VALUES.get(b, 0)
        total += -va if va < vb else va
    return total


def read_core(core: str, w: NumberWords, ctx: Context) -> str | None:
    """The spoken form of ``core``, or None to leave it as written."""
    said = _read_core(core, w, ctx)
    return roles.with_symbols(core, w, read_acronym) if said is None else said


def _read_core(core: str, w: NumberWords, ctx: Context) -> str | None:
    if core in sentence.NUMBER_WORDS and (
        counted := sentence.no_word(core, ctx.next_raw, not ctx.before, ctx.next_lead, ctx.prev())
    ):
        return counted
    if (reading := sentence.estimated(core, ctx.next_raw) or sentence.masked_digits(core, w)) is not None:
        return reading  # "Est. delivery", "••••4242"
    if core in ABBREVIATIONS:
        return ABBREVIATIONS[core]
    if (near := by_neighbours(core, w, ctx)) is not None:
        return near  # '112" W': wide, "SW winds", "VHF Ch. 16", "$185 pp", "per kWh", "eGFR"
    if core.lower() in ABBREVIATIONS and core.lower() not in ("no.",):
        return ABBREVIATIONS[core.lower()]
    if web.is_email(core) or web.is_url(core):
        return web.read_address(core, w)
    if re.match(
        r"^#(?=[A-Z\d-]*\d)[A-Z\d]+(?:-[A-Z\d]+)+$|^#[A-Z]{1,3}\d[A-Z\d]*$"
        r"|^#(?=\d[\dA-Z]{5,}$)\d*[A-Z][\dA-Z]*$",
        core,
    ):  # "#A1234", "#123-456", "#1Z999AA1012" (a word and digits, "#COVID19", is a tag)
        return _number_sign(ctx) + spell_code(core[1:], w)
    if core[0] == "#" and (place := roles.place_code(core[1:], ctx.before[-3:], w)) is not None:
        return "number " + place  # "seat #14C"
    tagged = core[0] == "#" and re.match(r"^#\w*[A-Za-z]\w*$", core) is not None  # "#2024goals"
    if core[0] in "@#" and len(core) > 1 and (core[1].isalpha() or core[1] == "_" or tagged):
        return web.read_tag(core, w)
    if (form := named_form(core, w, ctx)) is not None:
        return form  # "14K gold", "2BR", "555-PEST", "R-49", "OBD-II"
    if (named := named_code(core, w)) is not None:
        return named  # "Ctrl+Alt+Del", "1099-NEC", "K-5", "5W-30", "USB-C", "0x80070005"...
    if (plan := retirement_plan(core, w) or team_name(core, w)) is not None:
        return plan  # "a 401k plan", "the 49ers"
    if core[0] == "*" and core[1:].isdigit():  # "dial *67": the phone's star key, then digits
        return "star " + w.digits(core[1:])
    if core[-1] == "#" and core[:-1].isdigit():  # "enter 1234#": the phone's pound key
        return w.digits(core[:-1]) + " pound"
    if core[0] == "#" and core[1:].isdigit():
        return _number_sign(ctx) + roles.reference(core[1:], w)
    if core in SYMBOL_WORDS:
        return SYMBOL_WORDS[core]
    if (symbols := symbol_run(core)) is not None:
        return symbols
    if (said := roles.amount(core, w)) is not None:
        return said[0]
    if core[-1:] in roles.MARKS:  # '1½"', 'a ¾" gap'
        adjective = not ctx.punctuated and roles.noun_after_mark(ctx.next_raw) and ctx.next_word != "of"
        if (part := roles.vulgar_part(core, adjective, w)) is not None:
            return part
    if core[:1] in _VULGAR_PARTS and (part := roles.joined(core, w, _joined_head)) is not None:
        return part  # "½-price"
    if not any(c.isdigit() for c in core):
        return _read_word(core, w, ctx)
    return _read_numeric(core, w, ctx)


def _number_sign(ctx: Context) -> str:
    """ "order #58213": number; "claim number is #CLM-2026-0044": said once, the '#' silent."""
    return "" if {"number", "no", "no.", "num"}.intersection(ctx.before[-3:]) else "number "


def _read_word(core: str, w: NumberWords, ctx: Context) -> str | None:
    if web.is_domain(core) or web.is_file_name(core):
        return web.read_address(core, w)
    if (per := _WORD_PER.match(core)) is not None:  # "15 GB of data/mo", "4 msgs/mo"
        word, period = per.group(1), unit_words(per.group(2), False) or PER_WORDS[per.group(2).lower()][0]
        return f"{ABBREVIATIONS.get(word.lower(), word)} per {period}"
    bare = core.rstrip(".")
    after_name = bool(ctx.before) and (ctx.prev()[:1].isdigit() or ctx.prev()[:1].isalpha())
    capital_before = ctx.prev_raw[:1].isupper() or ctx.prev_raw[:1].isdigit()
    street = bare in STREET_WORDS and after_name and capital_before
    if bare in ("NE", "NW", "SE", "SW"):  # "Main St SE", "8800 SE Hwy 99E", not "the Camry SE"
        street = street and (ctx.prev_raw.isdigit() or ctx.prev_raw.rstrip(".") in sentence.STREET_ANY)
    if not ctx.prev_raw[:1].isdigit() and len(ctx.before) < 2:
        street = False  # "Visit St. Louis": the word before starts the unit
    if len(bare) == 1 and not (ctx.prev_raw.isdigit() and ctx.next_raw[:1].isalnum()):
        street = False  # "9 N Main St", "708 N 1st St"
    if bare.islower() and bare.title() in _LOWER_STREET and ctx.prev_raw[:1].isupper():
        return STREET_WORDS[bare.title()]  # "San Tomas hwy"
    if bare in _LOWER_SHORT and (
        _ORDINAL.match(ctx.prev_raw) or (ctx.prev_raw.istitle() and any(b.isdigit() for b in ctx.before[:-1]))
    ):
        return STREET_WORDS[bare.title()]  # "12 S 1st st", "45 Oak st": after a street's name
    if bare.lower() in ("apt", "ste", "bldg", "rm", "fl") and (
        ctx.next_raw[:1].isdigit() or ctx.next_raw[:1] == "#"
    ):
        return STREET_WORDS[bare.title()]  # "apt 2B", "ste 110", "Fl 3"
    named = sentence.title_or_street(bare, ctx.prev_raw, ctx.next_raw, core.endswith("."))
    if (named := named or sentence.road_direction(bare, ctx.prev_raw, ctx.before)) is not None:
        return named
    converting = ctx.prev() in ("in", "to", "into") and any(b[:1].isdigit() for b in ctx.before)
    if converting and len(core) > 1 and core not in RISKY_UNITS and (unit := unit_words(core, True)):
        return unit  # "50kg in lbs": a unit to convert to, after an amount
    if ctx.prev() in _TEXTING and ctx.next_word == "to" and core.isupper():
        return core.lower()  # "Reply YES to 22333": the keyword, said as a word
    if bare in ("N", "S", "E", "W") and ctx.prev_raw.endswith(("°", "º")):
        return STREET_WORDS[bare]  # "40.7580° N, 73.9855° W"
    named_street = (
        ctx.next_raw.istitle() or _ORDINAL.match(ctx.next_raw) is not None
    ) and ctx.next_raw not in STREET_WORDS
    street_word = ctx.after_next.rstrip(".,")  # a street word, not one more direction ("Sato N, Dhara S")
    named_street = named_street and len(street_word) > 1 and street_word in sentence.STREET_ANY
    if named_street and bare in ("N", "S", "E", "W", "St"):
        return STREET_WORDS[bare] if bare != "St" else "Saint"  # "onto E. Colonial Dr.", "Rue St. Pierre Ct."
    if bare in ("Jr", "Sr") and ctx.next_raw[:1].islower() and not ctx.punctuated:
        return TITLES[bare]  # "Sr. managers"
    if bare in ("mt", "ft") and ctx.next_raw.istitle() and not any(c.isdigit() for c in ctx.prev_raw):
        return TITLES[bare.title()]  # "in mt View", "ft Worth": a place's title in lower case
    if bare in ("Jr", "Sr") and ctx.prev_raw.istitle() and ctx.prev_raw.isalpha():
        return TITLES[bare]  # "Robert Hayes Jr., so": a generation after a name
    title_next = ctx.next_raw[:1].isupper() and not ctx.punctuated
    generation = bare == "Gen" and ctx.next_raw in ("X", "Y", "Z", "Alpha")  # "Gen. Z buyers"
    if bare in TITLES and (title_next or not ctx.before) and not street and not generation:
        return TITLES[bare]
    if street or (bare in STREET_WORDS and len(bare) > 2 and bare not in TITLES and bare != "Unit"):
        return STREET_WORDS[bare]
    day = td.day_name(core) if not bare.isupper() or ctx.next_raw[:1].isdigit() else None  # "SAT scores"
    if day is not None and (len(bare) < len(day)) and (bare.lower() not in td.WORD_DAYS or _dated(core, ctx)):
        return day
    month = td.month_number(core)
    if month is not None and bare.lower() != "may" and len(bare) <= 4 and ctx.next_raw[:1].isdigit():
        return MONTH_NAMES[month - 1]
    days = [td.day_name(p) for p in core.split("/")]
    if len(days) > 1 and all(days):  # "Mon/Wed/Fri": Monday, Wednesday and Friday
        listed = [d for d in days if d]
        return ", ".join(listed[:-1]) + " and " + listed[-1]
    if re.match(r"^[A-Za-z]{3,}(?:/[A-Za-z]{3,})+$", core):  # "upgrade/update", "yes/no/maybe"
        top, _, bottom = core.partition("/")
        if bottom.lower() in PER_WORDS and top.islower():
            return f"{top} per {bottom}"  # "7 days/week", "calls/day"
        return " slash ".join(read_acronym(p, w) or p for p in core.split("/"))
    if "&" in core and len(core) <= 5:
        a, _, b = core.partition("&")
        return f"{w.letters(a)} and {w.letters(b)}".strip()
    stem, owner = (core[:-2], core[-2:]) if core.endswith(("'s", "’s")) else (core, "")  # "Henry VIII's"
    roman = _roman(stem, ctx)
    if roman is not None:
        if ctx.prev() not in ROMAN_CARDINAL_CONTEXT and _regnal(stem, ctx):
            return "the " + w.ordinal(roman) + owner
        return w.cardinal(roman) + owner
    return sentence.shouted(core, ctx.prev_raw, ctx.next_raw) or read_acronym(core, w)


def _joined_head(part: str, w: NumberWords) -> str | None:
    if (said := read_money(part, w)) is not None:
        return said
    if part in _VULGAR_PARTS:  # "½-price"
        return _VULGAR_PARTS[part]
    if part[-1:] == "¢" and _NUMBER.match(part[:-1]):  # "5¢/gal"
        return w.number(part[:-1]) + (" cent" if is_one(part[:-1]) else " cents")
    if (m := _COMMON_FRACTION.match(part)) is not None and 0 < int(m.group(1)) < int(m.group(2)):
        return fractions.fraction_words(
            int(m.group(1)), int(m.group(2)), w
        )  # "a 1/4-inch key": "a quarter inch key"
    if any(p.match(part) for p in (_NUMBER, _DECADE, _ORDINAL, _PERCENT)):  # "1st-time", "0.5%/mo"
        return _read_numeric(part, w, Context((), "", ""))
    glued = re.match(r"^(\d+(?:\.\d+)?)([a-z]{2,3})$", part)
    if glued and (unit := unit_words(glued.group(2), False)):
        return f"{w.number(glued.group(1))} {unit}"  # "a 2mm-wide chain": two millimeter
    return None


def _dated(core: str, ctx: Context) -> bool:
    """ "Wed", "Sat", "Sun" are also words: a weekday when abbreviated with a period, or next to a
    date, a month, another weekday or a range ("Wed, Mar 12", "Sat 10/4", "Mon or Wed")."""
    if not core[:1].isupper() or not core.rstrip(".").isalpha():
        return False
    nxt = ctx.next_raw
    dated = nxt[:1].isdigit() or td.day_name(nxt) is not None or td.month_number(nxt) is not None
    dated = dated or ctx.next_word in ("morning", "afternoon", "evening", "night", "noon")  # "Sat morning"
    after_day = td.day_name(ctx.prev_raw) is not None or (
        ctx.prev() in ("or", "and", "to", "through", "thru") and td.day_name(ctx.prev(2).title()) is not None
    )
    after = ctx.next_word in ("and", "or", "&", "through", "thru") and td.day_name(ctx.after_next) is not None
    # capitalised inside a sentence, not a name ("Sun Life", "the Sun"): the verb or noun would be lower-case
    inside = bool(ctx.before) and ctx.prev() not in ("the", "a", "an", "of") and not nxt[:1].isupper()
    return (
        inside
        or core.endswith(".")
        or dated
        or after
        or ctx.prev() in ("every", "on", "next", "this", "last", "until", "till", "by", "from", "each")
        or after_day
        or ctx.next_word in ("-", "–", "to")
        or ctx.prev() in ("-", "–")
    )


def _read_numeric(core: str, w: NumberWords, ctx: Context) -> str | None:
    if _NUMBER.match(core):
        return read_number(core, w, ctx)
    money = read_money(core, w)
    if money is not None:
        return money
    if (m := _PERCENT.match(core)) is not None:  # "+2.3%": plus two point three percent
        return ("plus " if core[0] == "+" else "") + w.number(m.group("num")) + " percent"
    if core[-1] == "¢" and _NUMBER.match(core[:-1]):  # "5¢"
        return w.number(core[:-1]) + (" cent" if is_one(core[:-1]) else " cents")
    if core[-1] == "+" and (money := read_money(core[:-1], w)) is not None:
        return money + " plus"  # "$100+"
    if core[-1] == "+" and _NUMBER.match(core[:-1]) and core[0].isdigit():
        return read_number(core[:-1], w, ctx) + " plus"  # "10,000+ users"
    if (m := _SEASON.match(core)) is not None:  # "the 2026/27 season"
        return f"{w.year(int(m.group(1)))} to {w.cardinal(int(m.group(2)))}"
    if (m := _TIRE.match(core)) is not None:  # "225/65R17": a tire's width, profile and rim
        width, profile, kind, rim = m.groups()
        return f"{roles.paired(width, w)} {w.cardinal(int(profile))} {w.letters(kind)} {w.cardinal(int(rim))}"
    if (m := re.match(r"^[vV](\d{1,3})\.(\d{1,3})$", core)) is not None:  # "v2.1"
        return f"version {w.cardinal(int(m.group(1)))} point {w.digits(m.group(2))}"
    if (m := _COMMON_FRACTION.match(core)) and {"pitch", "slope"}.intersection(ctx.before[-3:]):
        return f"{w.cardinal(int(m.group(1)))} {w.cardinal(int(m.group(2)))}"  # "a roof pitch of 6/12"
    if (m := re.match(r"^(\d{1,2})/(\d{1,2})$", core)) and ctx.prev_raw.rstrip(",") in NUMBERED_RELEASES:
        return f"{w.cardinal(int(m.group(1)))} or {w.cardinal(int(m.group(2)))}"  # "Windows 10/11"
    for reader in (td.iso_date, td.numeric_date, td.day_first_date):
        if (date := reader(core, w)) is not None:
            return date
    if ":" in core and (said := roles.ratio(core, (*ctx.before[-2:], ctx.next_word), w)) is not None:
        return said  # "a 1:16 ratio", "16:9 screens": no time
    on_the_hour = re.match(r"^0(\d):00$", core)  # "from 04:00 to 23:30": a 24-hour clock's hours
    if on_the_hour and (_CLOCK_24.match(ctx.after_next) or any(_CLOCK_24.match(b) for b in ctx.before)):
        hour = on_the_hour.group(1)
        return f"oh {w.cardinal(int(hour))} hundred" if hour != "0" else "zero hundred"
    if (time := td.read_time(core, w)) is not None:
        return time
    if re.match(r"^\d{1,2}:[0-5]\d[ap]$", core) and (time := td.read_time(core + "m", w)) is not None:
        return time  # "6:30p": the a or p of am/pm alone
    if (m := _ORDINAL.match(core)) is not None:
        return w.ordinal(int(m.group("n").replace(",", "")))
    if (m := _DECADE.match(core)) is not None:
        if m.group("aughts"):
            return "two thousands"  # "the '00s"
        if m.group("short"):
            return w.cardinal(int(m.group("short")))[:-1] + "ies"
        year = w.year(int(m.group("y")))
        return year[:-1] + "ies" if year.endswith("y") else year + "s"
    if (m := _FEET.match(core)) is not None:
        adjective = not ctx.punctuated and roles.noun_after_mark(ctx.next_raw)  # a 12" pizza, 8' tables
        if m.group("only_in"):
            one = is_one(m.group("only_in")) or adjective
            return w.number(m.group("only_in")) + (" inch" if one else " inches")
        feet = w.cardinal(int(m.group("ft"))) + (" foot" if m.group("ft") == "1" or adjective else " feet")
        return feet + (" " + w.number(m.group("in")) if m.group("in") else "")
    if (part := fractions.inch_fraction(core, w, ctx)) is not None:
        return part  # '3/16"', '3/4" plywood'
    if (m := _MONTH_YEAR.match(core)) is not None:  # a card's expiry, "07/2026"
        return MONTH_NAMES[int(m.group("m")) - 1] + " " + w.year(int(m.group("y")))
    eyes = {
        "vision",
        "acuity",
        "eye",
        "eyes",
        "see",
        "sees",
        "seeing",
        "eyesight",
        "sight",
        "lasik",
        "glasses",
    }
    if (m := re.match(r"^20/(\d{2,3})$", core)) and (core == "20/20" or eyes & {*ctx.topic, ctx.next_word}):
        # "20/40 vision", "see 20/20": twenty forty
        return f"twenty {w.cardinal(int(m.group(1)))}"
    if (m := fractions.FRACTION.match(core)) is not None:
        return fractions.read_fraction(m, w, ctx)
    private = core.split(".")[0] in ("10", "127", "169", "172", "192") and "version" not in ctx.before
    if _IP.match(core) and ("ip" in ctx.before or private or any(len(p) == 3 for p in core.split("."))):
        return " dot ".join(w.digits(p) for p in core.split("."))  # an IP address
    if _VERSION.match(core):  # "v2.1.3": "version two point one point three"; "2026.44.3": a year's release
        numbers = core.lstrip("vV").split(".")
        pieces = [w.year(int(p)) if k == 0 and re.match(r"^(?:19|20)\d\d$", p) else w.cardinal(int(p))
                  for k, p in enumerate(numbers)]  # fmt: skip
        parts = " point ".join(pieces)
        return ("version " if core[0] in "vV" else "") + parts
    if (said := roles.dimension(core, w)) is not None:
        return said
    if (m := _GLUED_UNIT.match(core)) is not None:
        num, unit = m.group("num"), m.group("unit")
        screen = ctx.next_word in roles.SHAPE_WORDS | _SCREEN_NEXT or ctx.prev() in _SCREEN_BEFORE
        if unit == "K" and num in ("4", "5", "8") and screen:
            return w.number(num) + " K"  # "a 4K TV": a screen's resolution, not four thousand
        if unit == "K" and sentence.race(num, ctx.prev(), ctx.next_word, ctx.punctuated):
            return w.number(num) + " K"  # "the 5K": a race
        counted = ctx.next_raw.islower() and ctx.next_raw.endswith("s") and len(ctx.next_raw) >= 4  # 2M users
        placed = ctx.prev().rstrip(".") in roles.PAIRED_CONTEXT | PLACE_WORDS  # "Suite 2B opens"
        counted = counted and not placed and not ctx.punctuated
        if unit in ("k", "K", "bn", "mn", "tn") or (unit in ("B", "M") and ("." in num or counted)):
            return w.number(num) + " " + SCALES[unit]
        noun_next = roles.noun_after_measure(ctx.prev(), ctx.next_raw, ctx.prev(2), plural_ok=True)
        adjective = not ctx.punctuated and noun_next  # "a 10GB plan", "24V transformers"
        adjective = adjective or (
            not ctx.punctuated and re.match(r"^[VIH]\d{1,2}$", ctx.next_raw) is not None
        )
        if unit == "m" and re.match(r"^\d+(?:h|hr|hrs)$", ctx.prev_raw):
            unit = "min"  # "1h 30m": minutes after hours, not meters
        words = unit_words(unit, not is_one(num) and not adjective)
        if words is not None:
            return w.number(num) + " " + words
        if unit == "X" and (len(num) >= 3 or ctx.prev() in roles.PAIRED_CONTEXT) and num.isdigit():
            return roles.paired(num, w) + " X"  # "Route 190X": a name, not a hundred ninety times
        if unit in ("x", "X"):
            return w.number(num) + " times"
        if unit in ("F", "C") and sentence.TEMPERATURE_WORDS.intersection(
            ctx.before
        ):  # "the thermostat to 75F"
            return w.number(num) + (" degrees Fahrenheit" if unit == "F" else " degrees Celsius")
        if "." in num and unit.isalpha() and unit.isupper() and len(unit) <= 4:
            return w.number(num) + " " + w.letters(unit)  # "99.9FM"
    if (said := roles.joined(core, w, _joined_head)) is not None:
        lone = core[:2] == "1/" and core[:4] != "1/2-" and ctx.prev() not in ("a", "an", "the")
        if lone and _COMMON_FRACTION.match(core.split("-")[0]):
            said = (
                "one " + said
            )  # "at 1/8-inch": one eighth inch ("a 1/4-inch key": a quarter; "1/2-price": half)
        return said
    if (said := roles.place_code(core, ctx.before[-3:], w)) is not None:
        return said
    if (said := model_number(core, ctx.before, w) or over_letter(core, w)) is not None:
        return said  # "RTX-6000", "1/f"
    if _CODE.match(core):
        return spell_code(core, w)
    if web.is_file_name(core) or web.is_domain(core):
        return web.read_address(core, w)
    return roles.ratio(core, (*ctx.before[-2:], ctx.next_word), w)
