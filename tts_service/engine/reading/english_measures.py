"""A number and the unit after it, as one measure: "20 lbs", "5-10 mph", "350–400 sq. ft.", "64 fl oz",
"250 mg/5 mL", "$56 USD", "3 tbsp. of", "10.49 s,".

Apart from ``english`` because deciding whether the word after a number is its unit is one job
with its own traps: a unit that is also a word ("in", "m", "s", "x") is one only when the clause
ends on it or a measure word follows; a unit before its noun is singular ("a 10 GB plan"); a unit
after an amount of money is a scale ("$5 bn") or a currency's code; a clock time before "hrs" is
said in hours. The walk (``english._Walk``) calls ``range_unit`` and ``number_unit`` at each token;
each says how many tokens it read (0: none).
"""

from __future__ import annotations

import re
from typing import Protocol

from tts_service.engine.reading import english_context as sentence
from tts_service.engine.reading import english_money as amounts
from tts_service.engine.reading import english_spans as spans
from tts_service.engine.reading.english_money import read_money
from tts_service.engine.reading.english_near import Context
from tts_service.engine.reading.english_roles import amount
from tts_service.engine.reading.english_tables import CURRENCY_CODES, CURRENCY_SYMBOLS, SCALES
from tts_service.engine.reading.english_tokens import (
    PLACE_WORDS,
    RISKY_UNITS,
    SPACED_CAPITAL_UNITS,
    is_one,
    read_core,
)
from tts_service.engine.reading.english_units import unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = ["NUMBERISH", "measure_number", "number_unit", "range_unit"]


class MeasureWalk(spans.Walk, Protocol):
    """What a measure needs of the walk besides a span rule's: a token's context, and the end."""

    def ctx(self, i: int) -> Context: ...

    def last(self, i: int) -> bool: ...


#: a scale written apart after an amount of money, in any case ("$5 bn", "¥30 b", "€2 mln")
_SPACED_SCALES = {"k": "thousand", "m": "million", "mn": "million", "mm": "million", "mln": "million",
                  "mil": "million", "b": "billion", "bn": "billion", "bln": "billion", "t": "trillion",
                  "tn": "trillion", "trn": "trillion"}  # fmt: skip
_QUANTITY_RANGE = re.compile(r"^(\d[\d,]*(?:\.\d+)?)[-–—](\d[\d,]*(?:\.\d+)?)$")
#: words that follow a measure, not a letter ("5,895 m above sea level")
_AFTER_MEASURE = frozenset(
    ["above", "below", "high", "tall", "long", "deep", "wide", "away", "thick", "apart", "more", "less", "of"]
)
NUMBERISH = re.compile(r"^[-−+]?(?:[$€£¥]?\d[\d,]*(?:\.\d+)?[kKMB]|[$€£¥]?\d[\d,]*(?:\.\d+)?%?)$")
_MEASURED = re.compile(r"^[-−+]?\d[\d,]*(?:\.\d+)?$")
_MEASURED_RANGE = re.compile(r"^(\d[\d,]*(?:\.\d+)?)[-–—](\d[\d,]*(?:\.\d+)?)$")


def measure_number(core: str, w: NumberWords) -> str | None:
    """The words of a measure's number: a plain one ("64"), or a range ("350–400": "three hundred
    fifty to four hundred"); None for anything else (it is not a measure's number)."""
    if _MEASURED.match(core):
        return w.number(core)
    if span := _MEASURED_RANGE.match(core):
        return f"{w.number(span.group(1))} to {w.number(span.group(2))}"
    return None


def range_unit(walk: MeasureWalk, i: int) -> int:
    """ "5-10 mph", "20-30 lbs", "1980-1970 kg": a range of quantities, then their unit."""
    m = _QUANTITY_RANGE.match(walk.core(i))
    nxt = walk.core(i + 1).rstrip(".")
    dotted_month = nxt == "mo" and (walk.core(i + 1) + walk.trail(i + 1)).startswith("mo.")  # "6–12 mo."
    inches = nxt == "in" and (
        walk.trail(i + 1).startswith(".") or walk.core(i + 2).lower() in _AFTER_MEASURE
    )  # "1–2 in. below"
    if m is None or walk.trail(i) or not nxt or (nxt in RISKY_UNITS and not (dotted_month or inches)):
        return 0
    plural = not spans.before_noun(walk, i, walk.core(i - 1).lower())
    unit = unit_words(nxt, plural or " per " in (unit_words(nxt, True) or ""))  # "10-15 mph winds"
    if unit is None:
        return 0
    return walk.set(i, f"{walk.w.number(m.group(1))} to {walk.w.number(m.group(2))}", unit)


def number_unit(walk: MeasureWalk, i: int) -> int:
    core, nxt = walk.core(i), walk.core(i + 1)
    if not nxt or walk.trail(i):
        return 0
    dotted = nxt.endswith(".") and (nxt[:-1] not in RISKY_UNITS or nxt == "mo.")  # "6 mo.": months
    if dotted and unit_words(nxt[:-1], False) is not None:
        nxt = nxt[:-1]  # "10 min. from now": the unit's own period, not "minimum"
    w = walk.w
    symbol = re.match(r"^([-−]?)([$€£¥])(\d[\d,]*(?:\.\d+)?)$", core)  # "$56 USD": in the code's words
    coded = symbol is not None and nxt in CURRENCY_CODES and nxt[:1] != "X"
    same = symbol is not None and coded and CURRENCY_SYMBOLS[symbol.group(2)][0] in CURRENCY_CODES[nxt][0]
    if symbol and same and (priced := amounts.code_amount(nxt, symbol.group(1) + symbol.group(3), w)):
        return walk.set(i, priced, "")
    scale = _SPACED_SCALES.get(nxt.lower())
    if scale and (scaled := read_money(core, w, scale)) is not None:
        number, _, unit = scaled.partition(" " + scale + " ")  # "$5 bn", "¥30 b", "€2 mln"
        return walk.set(i, number, scale + " " + unit)
    if nxt in SCALES and len(nxt) > 2:  # "$3.4 billion", "2.5 million"
        money = read_money(core, w, SCALES[nxt])
        if money is not None:
            number, _, unit = money.partition(" " + SCALES[nxt] + " ")
            return walk.set(i, number, SCALES[nxt] + " " + unit)
        measure = None if walk.trail(i + 1) else unit_words(walk.core(i + 2), True)
        if measure is not None and NUMBERISH.match(core) and walk.core(i + 2) not in RISKY_UNITS:
            return walk.set(i, w.number(core), SCALES[nxt], measure)  # "100 million km"
        return 0
    fraction_amount = amount(core, w)
    if fraction_amount and nxt not in RISKY_UNITS and unit_words(nxt, False) is not None:  # "1½ tsp"
        return walk.set(i, fraction_amount[0], unit_words(nxt, fraction_amount[1]) or nxt)
    fraction = re.match(r"^(\d+)/(\d+)$", core)
    if (
        fraction
        and nxt == "in"
        and walk.trail(i + 1).startswith(".")
        and int(fraction.group(1)) < int(fraction.group(2))
    ):  # "over 1/4 in.": a quarter inch
        said = read_core(core + '"', w, walk.ctx(i)) or core
        return walk.set(i, said.removesuffix(" inch"), "inch")
    if fraction and nxt not in RISKY_UNITS and unit_words(nxt, False) is not None:  # "1/4 tsp"
        plural = int(fraction.group(1)) > int(fraction.group(2))
        said = read_core(core, w, walk.ctx(i)) or core
        return walk.set(i, said, unit_words(nxt, plural) or nxt)
    squared = walk.core(i + 2).rstrip(".")
    measured = measure_number(core, w)  # "64", or a range: "350–400"
    dose = re.match(r"^([a-zA-Zµμ]{1,4})/(\d+(?:\.\d+)?)$", nxt)  # "250 mg/5 mL": a concentration
    if measured and dose and (top := unit_words(dose.group(1), not is_one(core))):
        per = unit_words(squared, not is_one(dose.group(2)))
        if per is not None:
            return walk.set(i, measured, f"{top} per {w.number(dose.group(2))}", per)
    if measured and nxt == "linear" and (linear := unit_words(squared, not is_one(core))):
        return walk.set(i, measured, "linear", linear)  # "15 linear ft"
    if measured and nxt.rstrip(".") == "fl" and squared == "oz":  # "64 fl oz": fluid ounces
        plural = not is_one(core) and not spans.before_noun(
            walk, i + 1, walk.core(i - 1).lower()
        )  # "your 24 fl oz cold brew"
        return walk.set(i, measured, "fluid", "ounces" if plural else "ounce")
    if measured and nxt.rstrip(".") in ("sq", "cu") and squared in ("ft", "m", "mi", "km", "yd", "in"):
        plural = not is_one(core) and not spans.before_noun(
            walk, i + 1, walk.core(i - 1).lower()
        )  # "2 sq ft", "a 2 sq ft rug"
        square = unit_words(squared, plural) or ""
        return walk.set(i, measured, "square" if nxt.rstrip(".") == "sq" else "cubic", square)
    plus_unit = unit_words(nxt.rstrip("."), True) if core.endswith("+") and nxt not in RISKY_UNITS else None
    if plus_unit and (at_least := measure_number(core[:-1], w)):  # "20+ lbs": twenty plus pounds
        return walk.set(i, f"{at_least} plus", plus_unit)
    if not re.match(r"^[-−+]?\d[\d,]*(?:\.\d+)?$", core):
        return 0
    plural = not is_one(core) and not spans.before_noun(walk, i, walk.ctx(i).prev())
    forms = CURRENCY_CODES.get(nxt) or (CURRENCY_SYMBOLS.get(nxt) if len(nxt) == 1 else None)
    if forms and "." in core and (priced := amounts.code_amount(nxt, core, w)) is not None:
        return walk.set(i, priced, "")  # "25.00 USD": dollars and cents, the code said with them
    if forms:  # "20 USD", "5 €"
        return walk.set(i, w.number(core), forms[1] if plural else forms[0])
    # "5 ft 10 in.": inches after feet, unless a word follows ("6 feet 1 in height")
    after_feet = nxt == "in" and walk.core(i - 1).rstrip(".") in ("ft", "feet", "foot")
    after_feet = after_feet and (bool(walk.trail(i + 1)) or not walk.core(i + 2)[:1].islower())
    place = walk.core(i - 1).lower().rstrip(".") in PLACE_WORDS
    risky = nxt in RISKY_UNITS and (nxt not in SPACED_CAPITAL_UNITS or place)
    # "10.49 s,", "8,849 m (29,032 ft)": a unit when the clause ends on it
    closed = walk.trail(i + 1)[:1] in (",", ";", ".", ")") or walk.lead(i + 2) == "("
    twin = walk.core(i + 2).lower() in ("or", "and", "to") and walk.core(i + 4) == nxt  # "0.5 g or 1 g"
    twin = twin and walk.core(i + 3)[:1].isdigit()
    closed = nxt.islower() and (closed or twin or walk.core(i + 2).lower() in _AFTER_MEASURE)
    closed = closed or walk.core(i + 1) == "mo."  # "6 mo.": months, the abbreviation's own period
    closed = closed or (nxt == "g" and walk.core(i + 2) in ("and", "or", "per"))  # "under 25 g and"
    inches = nxt == "in" and walk.core(i + 2).lower() in _AFTER_MEASURE  # "22 in long"
    inches = inches or (nxt == "in" and walk.last(i + 1) and walk.trail(i + 1)[:1] == ".")  # "is 165 in."
    dot = walk.trail(i + 1)
    marked = dot in (".,", ".;") or (dot == "." and walk.core(i + 2)[:1].islower())
    inches = inches or (nxt == "in" and marked)  # "6 in. off", "5 in., or more": the period says inches
    if risky and ((nxt in ("in", "x") and not inches) or (plural and not closed)) and not after_feet:
        return 0  # "a 2 L bottle": a unit before its noun, though "L" alone could be a letter
    clock = sentence.military_time(core, walk.ctx(i).prev(), nxt, w)
    if clock is not None and nxt in ("hrs", "hours"):
        return walk.set(i, clock, "hours")  # "at 1500 hrs": fifteen hundred hours
    said_unit = unit_words(nxt, plural)
    rate = unit_words(nxt, True)
    if rate is not None and " per " in rate and not is_one(core):
        said_unit = rate  # "a 500 Mbps plan": five hundred megabits per second, before its noun too
    if nxt.rstrip(".") == "pt" and walk.core(i + 2).lower() in (
        "stock",
        "font",
        "type",
        "paper",
        "text",
        "cardstock",
    ):
        said_unit = "point"  # "16 pt. stock": a paper's or a type's size, not pints
    if said_unit is None:
        return 0
    return walk.set(i, w.number(core), said_unit)
