"""Short written forms whose words their neighbours decide, and forms named by their own shape.

Apart from ``english_tokens`` because each is one small decision about one token, asked before
the general rules (abbreviations, codes, numbers) would read it otherwise:

* ``by_neighbours``: the word a short form stands for where the words around it say which:
  "W" after a measure with an inch mark is "wide" ('112" W x 38" D'), "SW" before "winds" is
  "southwest", "Ch." before "16" after "VHF" is "channel", "pp" after a price is "per person",
  "reg." before one "regular", a unit after "per" its name ("14.2¢ per kWh"), "eGFR" its letters,
  "Oct" beside another month or after "through" October ("Oct through Dec", "Jan, Feb and Mar");
* ``named_form``: a token whose shape names what it is: "14K" before "gold" (karats), "2BR"
  (bedrooms), "555-PEST" after "call" (a vanity number's word), "R-49" (an R-value), "OBD-II"
  (letters and a roman number).

None from either: the token is not such a form, and the general rules read it.
"""

from __future__ import annotations

import re

from tts_service.engine.reading import english_roles as roles
from tts_service.engine.reading import timedate as td
from tts_service.engine.reading import web
from tts_service.engine.reading.english_near import Context
from tts_service.engine.reading.english_tables import (
    ACRONYM_WORDS,
    COMPASS,
    MONTH_NAMES,
    MONTHS,
    ROMAN_SUFFIX,
    SIDE_WORDS,
    TLDS,
    WIND_WORDS,
)
from tts_service.engine.reading.english_units import unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = ["by_neighbours", "named_form"]

#: a measure with its side glued on ('36"W', '40"D')
_SIDED = re.compile(r"^(\d+(?:\.\d+)?)([\"'])([WDHL])$")
_CURRENCY_SIGNS = ("$", "€", "£", "¥")
#: the words before a number that is dialled ("call 555-PEST")
_DIALING = frozenset(["call", "dial", "at", "text", "phone", "line", "number"])
#: what a karat count is before ("a 14K gold band")
_KARAT_NEXT = frozenset(["gold", "white", "yellow", "rose", "solid", "plated"])
#: words of a sentence about gems, where a whole number's "ct" is carats ("a 2 ct diamond")
_GEMS = frozenset(
    ["diamond", "diamonds", "stone", "stones", "ring", "rings", "gem", "gems", "sapphire", "ruby", "emerald",
     "earrings", "solitaire", "pendant", "band", "gold", "jewelry", "studs"]
)  # fmt: skip
#: words of a sentence about wiring, where "20A" is amps
_ELECTRIC = frozenset(
    ["breaker", "breakers", "circuit", "circuits", "outlet", "outlets", "gfci", "fuse", "panel", "electrical",
     "electrician", "wiring", "wire", "receptacle", "charger", "volt", "volts", "amp", "amps", "service",
     "subpanel"]
)  # fmt: skip
#: words of a sentence about plant food, where "10-10-10" is its nutrients
_FEEDS = frozenset(
    ["fertilizer", "fertilizers", "feed", "npk", "plant", "plants", "lawn", "granular", "nutrients"]
)  # fmt: skip
#: words of a sentence about insurance, where "100/300/100" are a policy's limits
_COVERAGE = frozenset(["limits", "limit", "liability", "coverage", "policy", "insurance", "bodily", "covers"])
#: units that are squared or cubed ("per sq. ft.")
_SQUARED = frozenset(["ft", "m", "yd", "in", "mi", "km", "cm"])
#: what follows a count of times that says how often ("1x per week": once per week)
_HOW_OFTEN = frozenset(
    ["per", "a", "an", "each", "every", "daily", "weekly", "monthly", "yearly", "annually"]
)
#: the bands whose channel a "Ch." is ("VHF Ch. 16"); otherwise a book's chapter
_CHANNELS = frozenset(["vhf", "uhf", "tv", "radio", "cb"])
#: words between two months ("Oct through Dec", "Nov to Jan", "Jan, Feb and Mar")
_MONTH_JOINS = frozenset(["and", "or", "to", "through", "thru", "until", "till"])
#: words beside a month's short name that make it one ("through Dec", "early Feb", "Jan and Feb")
_MONTH_NEIGHBOURS = frozenset(
    ["through", "thru", "until", "till", "from", "since", "early", "late", "mid", "in", "by", "before",
     "after", "during", "each", "every", "last", "next"]
)  # fmt: skip


def by_neighbours(core: str, w: NumberWords, ctx: Context) -> str | None:
    """The word the short form ``core`` stands for where its neighbours say which (see the module)."""
    if re.match(r"^[a-z][A-Z]{2,5}$", core) and core[1:] not in ACRONYM_WORDS:  # "eGFR", "hCG", "mRNA"
        return w.letters(core.upper())  # (not "eSIM": e, then a word)
    if core in SIDE_WORDS and roles.MARKED.match(ctx.prev_raw):  # '112" W x 38" D': wide, deep
        return SIDE_WORDS[core]
    if core == "x" and ctx.prev_raw in SIDE_WORDS and roles.MARKED.match(ctx.next_raw):
        return "by"
    if (sided := _SIDED.match(core)) is not None:  # '36"W x 40"D': thirty-six inches wide
        one = sided.group(1) == "1"
        mark = ("inch" if one else "inches") if sided.group(2) == '"' else ("foot" if one else "feet")
        return f"{w.number(sided.group(1))} {mark} {SIDE_WORDS[sided.group(3)]}"
    marked = ctx.prev_raw[-1:] in ('"', "″", "'", "′") or _SIDED.match(ctx.prev_raw) is not None
    if core in ("x", "X", "×") and marked and ctx.next_raw[:1].isdigit():
        return "by"  # '35 ½" x 59 ¾"': a measure by a measure
    if core == "Ch." and ctx.next_raw[:1].isdigit():  # "VHF Ch. 16": a channel; "Ch. 3" of a book
        return "channel" if _CHANNELS.intersection(ctx.before[-3:]) else "chapter"
    if core == "pp" and ctx.prev_raw[:1] in _CURRENCY_SIGNS:
        return "per person"  # "$185 pp"
    if core in ("hrs", "mins"):  # "12 credit hrs" (not "28 HRs": home runs)
        return "hours" if core == "hrs" else "minutes"
    if core.lower() == "reg." and ctx.next_raw[:1] in _CURRENCY_SIGNS:
        return "regular"  # "$99 (reg. $129)": the regular price
    if core == "c." and re.match(r"^(?:1[0-9]|20)\d\d$", ctx.next_raw):
        return "circa"  # "furniture from c. 1700"
    if core == "sq." and ctx.next_word in ("footage", "feet", "foot", "meters", "miles"):
        return "square"  # "depending on sq. footage"
    if core in ("sq.", "sq", "cu.", "cu") and ctx.prev() == "per" and ctx.next_word.rstrip(".") in _SQUARED:
        return "square" if core.startswith("sq") else "cubic"  # "$0.35 per sq. ft."
    squared = ctx.prev() in ("linear", "sq.", "sq", "square", "cu.", "cu", "cubic")
    per = ctx.prev() == "per" or (squared and ctx.prev(2) == "per")  # "per linear ft.", "per sq. ft."
    if per and core not in ("in", "x", "a", "A", "I") and (unit := unit_words(core.rstrip("."), False)):
        return unit  # "14.2¢ per kWh", "$3 per lb"
    if core in COMPASS and (WIND_WORDS.intersection(ctx.before[-3:]) or ctx.next_word in WIND_WORDS):
        return COMPASS[core]  # "SW winds", "winds NW 15 kts", "faces SSW"
    if (month := _short_month(core, ctx)) is not None:
        return month
    if (weight := _carats(core, ctx)) is not None:
        return weight
    if core[:1] == "." and core[1:].lower() in TLDS:  # "a .edu address": dot E D U
        return "dot " + web.read_address(core[1:].lower(), w)
    if re.match(r"^#[A-Z]{1,5}$", core) and re.match(r"^\d{3,}$", ctx.next_raw):
        return "number " + w.letters(core[1:])  # "license #TECL 31877": a number's letters, no tag
    part = re.match(r"^(mid|early|late)-([A-Z][a-z]{2,3}\.?)$", core)
    if part and (number := td.month_number(part.group(2))):
        return f"{part.group(1)} {MONTH_NAMES[number - 1]}"  # "mid-Oct"
    return None


def _short_month(core: str, ctx: Context) -> str | None:
    """ "Oct" -> "October" where a neighbour is a month or a word of time ("Oct through Dec");
    "Jan" (a name) and "May" (a word) only beside another month."""
    bare = core.rstrip(".")
    month = td.month_number(core) if bare[:1].isupper() and bare[1:].islower() and len(bare) <= 4 else None
    if month is None or bare in ("May", MONTH_NAMES[month - 1]):
        return None
    besides = [ctx.prev_raw, ctx.next_raw] + ([ctx.after_next] if ctx.next_word in _MONTH_JOINS else [])
    by_month = any(td.month_number(b.rstrip(".,")) is not None for b in besides if b[:1].isupper())
    by_month = by_month or (ctx.prev() in _MONTH_JOINS and ctx.prev(2) in MONTHS and ctx.prev(2) != "may")
    if by_month or (bare != "Jan" and ctx.prev() in _MONTH_NEIGHBOURS):
        return MONTH_NAMES[month - 1]
    return None


def _carats(core: str, ctx: Context) -> str | None:
    """A gem's weight: "0.75 ct" carat, "1.2 ctw" carats total weight, "2 ct. tw"; a whole number
    "ct" is a count ("a 100 ct bottle") unless the sentence is about gems."""
    bare = core.rstrip(".").lower()
    if core.isupper() and bare == "ct":
        return None  # "2 CT scans"
    if bare in ("tw", "t.w") and ctx.prev() in ("ct", "ct.", "carat", "carats"):
        return "total weight"  # "2 ct. tw"
    number = ctx.prev_raw
    if bare not in ("ct", "ctw", "cttw", "tcw", "ct.tw") or not re.match(r"^\d*\.?\d+$|^\d+/\d+$", number):
        return None
    whole = re.match(r"^\d+$", number) is not None
    if bare == "ct" and whole and not _GEMS.intersection(ctx.topic):
        return "count"  # "a 100 ct bottle"
    noun_next = roles.noun_after_mark(ctx.next_raw) and not ctx.punctuated
    noun_next = noun_next and ctx.next_word not in ("total", "tw")
    carats = "carat" if number in ("1", "1.0") or noun_next else "carats"
    return carats + (" total weight" if bare != "ct" else "")


def named_form(core: str, w: NumberWords, ctx: Context) -> str | None:
    """The words of a token whose shape names what it is (see the module)."""
    plural = len(ctx.next_word) > 3 and ctx.next_word.endswith("s") and not ctx.next_word.endswith("ss")
    counted = plural or unit_words(ctx.next_word, True) is not None  # "10K miles", "25K points"
    gold = "gold" in ctx.topic and core[:-1] in ("10", "14", "18", "22", "24") and not counted  # "for 14K"
    if (m := re.match(r"^(\d{1,2})[Kk]$", core)) and (ctx.next_word in _KARAT_NEXT or gold):
        return w.cardinal(int(m.group(1))) + " karat"  # "a 14K gold band"
    if (m := re.match(r"^(\d)(?:BR|br|bd|bdrm)$", core)) is not None:  # "a 2BR apartment"
        adjective = roles.noun_after_mark(ctx.next_raw) and not ctx.punctuated
        return w.cardinal(int(m.group(1))) + (" bedroom" if adjective or m.group(1) == "1" else " bedrooms")
    if (m := re.match(r"^(\d{3})-([A-Z]{4,7})$", core)) and (ctx.prev() in _DIALING or ctx.next_lead == "("):
        return f"{w.digits(m.group(1))} {m.group(2).lower()}"  # "call 555-PEST": the letters as the word
    if (m := re.match(r"^(\d{1,2})x$", core)) is not None and not ctx.prev()[:1].isdigit():  # "1x per week"
        often = ctx.next_word in _HOW_OFTEN and m.group(1) in ("1", "2")  # once a day, twice a week
        return ("once" if m.group(1) == "1" else "twice") if often else f"{w.cardinal(int(m.group(1)))} times"
    npk = re.match(r"^(\d{1,2})-(\d{1,2})-(\d{1,2})$", core)
    fed = ctx.next_word in _FEEDS or (
        ctx.prev() in ("a", "an", "the", "use") and _FEEDS.intersection(ctx.topic)
    )
    if npk and fed:  # "a 10-10-10 fertilizer": ten ten ten, no date
        return " ".join(w.cardinal(int(n)) for n in npk.groups())
    limits = re.match(r"^(\d{2,3})/(\d{2,3})/(\d{2,3})$", core)
    if limits and _COVERAGE.intersection(ctx.topic) and all(int(n) % 5 == 0 for n in limits.groups()):
        return ", ".join(w.cardinal(int(n)) for n in limits.groups())  # "100/300/100" liability limits
    if (m := re.match(r"^(\d{1,4})-?(ct|count|pk|pack)\.?$", core)) is not None and not _GEMS.intersection(
        ctx.topic
    ):
        return (
            f"{w.cardinal(int(m.group(1)))} {'pack' if m.group(2).startswith('p') else 'count'}"  # "48-ct."
        )
    if (m := re.match(r"^(\d{1,3})(XL|XXL|XXXL)$", core)) is not None:  # "the HP 67XL": a size's letters
        return f"{roles.paired(m.group(1), w)} {w.letters(m.group(2))}"  # ("950XL": nine fifty)
    wired = _ELECTRIC.intersection(ctx.topic) or ctx.next_word in _ELECTRIC
    if (m := re.match(r"^(\d{1,3})A$", core)) and wired:  # "a 20A GFCI outlet", "draws 30A"
        noun_next = (roles.noun_after_mark(ctx.next_raw) or ctx.next_raw[:1].isupper()) and not ctx.punctuated
        return w.cardinal(int(m.group(1))) + (" amp" if noun_next or m.group(1) == "1" else " amps")
    if (m := re.match(r"^R-(\d{1,2})$", core)) is not None:  # "R-49": an insulation's R-value
        return "R " + w.cardinal(int(m.group(1)))
    if (m := re.match(r"^([A-Z]{2,5})-(II|III|IV|VI|VII|VIII|IX)$", core)) is not None:
        return f"{w.letters(m.group(1))} {w.cardinal(ROMAN_SUFFIX[m.group(2)])}"  # "OBD-II", "MIL-VIII"
    return None
