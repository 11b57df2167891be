"""Split a written token into its leading marks, its core and its trailing marks.

Apart from the reader because the overrides (lexicon, tags) split tokens the same way, and
because which trailing marks belong to the core is a decision of its own: the period of an
abbreviation ("Dr.", "p.", "min.") stays with it, a `"` after a number is an inch mark (unless
``english_context.close_quotes`` finds the quote it closes), a `'` after one is feet.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import DAYS, MONTHS

__all__ = ["dash_joined", "split_token"]

_LEAD = "\"'“‘([{¿¡"
_TRAIL = ".,;:!?)]}\"'”’…"
_AMOUNT_START = frozenset("0123456789$€£¥")
_CURRENCY_START = frozenset("$€£¥")
#: a dash that ends a clause: "—", or "--" as typed for one ("$20--", "I—")
_DASH_MARK = re.compile(r"(?:—|-{2,})$")


def split_token(token: str) -> tuple[str, str, str]:
    """("(", "$3.50", ").") from "($3.50)."; a period that belongs to an abbreviation stays."""
    start, end = 0, len(token)
    while start < end and (
        token[start] in _LEAD
        or (token[start] in "~≈±§" and token[start + 1 : start + 2] in _AMOUNT_START)
        or (token[start] == "+" and token[start + 1 : start + 2] in _CURRENCY_START)
        or (token[start] == "~" and token[start + 1 : start + 2].isupper())
        or (token[start] in "<>≤≥" and token[start + 1 : start + 2] in _AMOUNT_START)
    ):
        start += 1  # "~5 min", "≈$20", "±2°F", "§4.2", "+$8", "~Nov 1", ">90": the sign is said before
    while end > start:
        dash = None if token[end - 1] in _TRAIL else _DASH_MARK.search(token, start, end)
        if dash is None and token[end - 1] not in _TRAIL:
            break
        end = dash.start() if dash is not None else end - 1
    core = token[start:end]
    trail = token[end:]
    if (
        trail.startswith(".")
        and core
        and (
            re.match(r"^(?:[A-Za-z]\.)+[A-Za-z]$", core)
            or _dotted(core)
            or _dotted(re.split(r"[-–—/]", core)[-1])  # "Mon.–Fri.", "$6.50/doz."
        )
    ):
        core, trail = core + ".", trail[1:]
    if trail.startswith(('"', "″")) and re.match(r"^\d+(?:\.\d+)?$|^\d{1,2}/\d{1,2}$|^\d*[½¼¾⅓⅔⅛⅜⅝⅞]$", core):
        core, trail = core + trail[0], trail[1:]  # 12" (inches), 3/8" (of an inch)
    elif trail.startswith(("'", "′")) and re.match(r"^(?:\d+['′]?[xX×])*\d+(?:\.\d+)?$", core) and not start:
        core, trail = core + trail[0], trail[1:]  # 10' (feet), 12'x14'
    elif trail.startswith(("'", '"', "″")) and re.match(r"^\d+['′]\d*$", core):
        core, trail = core + trail[0], trail[1:]  # 5'10" and 6'
    return token[:start], core, trail


def _dotted(word: str) -> bool:
    """An abbreviation whose period is its own ("min.", "Dr."); the newer short ones only in lower
    or title case ("mo." is months, "MO." Missouri at a sentence's end)."""
    key = word.lower() + "."
    return key in _DOTTED and not (word.isupper() and key in _LOWER_ONLY)


#: abbreviations that are also state codes or words in capitals
_LOWER_ONLY = frozenset(
    ["op.", "ctr.", "ea.", "doz.", "reg.", "opt.", "ch.", "mo.", "yr.", "wk.", "hr.", "mi.", "c.", "est."]
)

_DOTTED = frozenset([
    "e.g.", "i.e.", "etc.", "vs.", "approx.", "appt.", "ext.", "dept.", "est.", "no.", "min.", "incl.",
    "max.", "inc.", "corp.", "ltd.", "co.", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.",
    "sep.", "sept.", "oct.", "nov.", "dec.", "dr.", "mr.", "mrs.", "ms.", "st.", "prof.", "jr.",
    "sr.", "ave.", "blvd.", "rd.", "ln.", "ct.", "apt.", "ste.", "mt.", "ft.", "sq.", "tue.", "tues.",
    "wed.", "thu.", "thur.", "thurs.", "fri.", "sat.", "sun.", "mon.", "vol.", "fig.", "pg.", "p.", "pp.",
    "maj.", "gen.", "col.", "capt.", "lt.", "sgt.", "rev.", "gov.", "sen.", "rep.", "pres.", "adm.", "hon.",
    "n.", "s.", "e.", "w.",  # "500 N. Michigan Ave.": a direction's period is no sentence end
    "oz.", "lb.", "lbs.", "tsp.", "tbsp.", "gal.", "qt.", "ref.", "sec.", "avg.",  # "the 12 oz. bag"
    "op.", "ctr.", "ea.", "doz.", "reg.", "opt.", "ch.", "mo.", "yr.", "wk.", "hr.", "mi.", "c.", "rm.",
    "bldg.", "cu.", "yd.", "hwy.", "pkwy.", "pl.", "cir.", "ter.", "trl.", "plz.", "expy.", "fwy.",
])  # fmt: skip


#: lower-case words that end a range after a dash ("9am—noon", "jan—mar")
_RANGE_ENDS = frozenset(["noon", "midnight", "close", "closing", "sunset", "sunrise", *MONTHS, *DAYS])

#: a dash written between two words with no space ("late—very", "555-0100--or", "Francis I--test"):
#: not a range ("9am—5pm", "Mon—Fri", "9am—noon" are), since a clause goes on in lower case
_JOINING_DASH = re.compile(r"(?<=[\w.%)\]'\"”’])(?:—|-{2,})(?=[(\"'“‘]?[a-z])|(?<=\w)-{2,}(?=[A-Z])")


def dash_joined(token: str) -> list[str]:
    """A token of two words joined by a dash, split after the dash (which stays with the first)."""
    cut = [m.end() for m in _JOINING_DASH.finditer(token)]
    cut = [c for c in cut if re.sub(r"[^a-z].*$", "", token[c:]) not in _RANGE_ENDS]
    if not cut:
        return [token]
    return [token[a:b] for a, b in zip([0, *cut], [*cut, len(token)], strict=True)]
