"""Unit words: "kg" -> "kilogram(s)", and the units built from others ("km/h", "kg/m", "km2", "ft²").

Looked up as written first, then in lower case ("KG", "mbps"); a unit over another is "per" the
second ("10 cm/s": "ten centimeters per second"); a length with 2 or ² is square, with 3 or ³ cubic,
and a time under a power is squared ("9.8 m/s²": "... meters per second squared").
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import UNITS

__all__ = ["PER_WORDS", "UNIT_NAMES", "unit_words"]

#: units of health and fitness answers ("72 bpm", "110 mg/dL", "5 mcg"), apart from the table at its size cap
_MORE = {
    "bpm": ("beat per minute", "beats per minute"), "dL": ("deciliter", "deciliters"),
    "mcg": ("microgram", "micrograms"), "µg": ("microgram", "micrograms"),
    "μm": ("micrometer", "micrometers"), "µm": ("micrometer", "micrometers"),
    "mmHg": ("millimeter of mercury", "millimeters of mercury"),
    "IU": ("I U", "I U"), "yds": ("yard", "yards"), "kJ": ("kilojoule", "kilojoules"),
    "pct": ("percent", "percent"),
    "ng": ("nanogram", "nanograms"), "kts": ("knot", "knots"), "kt": ("knot", "knots"),
    "ft-lbs": ("foot-pound", "foot-pounds"), "ft-lb": ("foot-pound", "foot-pounds"),
    "lb-ft": ("pound-foot", "pound-feet"), "mIU": ("milli-international unit", "milli-international units"),
    "CBM": ("cubic meter", "cubic meters"), "cbm": ("cubic meter", "cubic meters"),
    "hp": ("horsepower", "horsepower"), "qts": ("quart", "quarts"), "pts": ("point", "points"),
    "kn": ("knot", "knots"), "pCi": ("picocurie", "picocuries"), "pc": ("piece", "pieces"),
    "pcs": ("piece", "pieces"), "kgal": ("thousand gallons", "thousand gallons"), "Ω": ("ohm", "ohms"),
    "kΩ": ("kilohm", "kilohms"), "MΩ": ("megohm", "megohms"),
}  # fmt: skip
#: the units' names as said, one and many ("mile", "miles"): a unit written out; and the kitchen's
UNIT_NAMES = frozenset(
    [name for forms in (*UNITS.values(), *_MORE.values()) for name in forms if " " not in name]
    + ["cup", "cups", "stick", "sticks", "slice", "slices", "scoop", "scoops", "dose", "doses"]
)
_LOWER = {unit.lower(): forms for unit, forms in (UNITS | _MORE).items() if unit.lower() not in UNITS}
#: the word after "per" that is not a unit ("$15/night", "3 oz/day")
PER_WORDS = {
    w: (w, w + "s") for w in ["night", "person", "day", "week", "month", "year", "hour", "user", "guest"]
}
#: units in capitals that are also acronyms of their own ("12 PT visits", "2 CT scans")
_CAPITAL_WORDS = frozenset(["PT", "CT", "MI", "IN", "DR", "ST"])
_LENGTHS = frozenset(["mm", "cm", "m", "km", "in", "ft", "yd", "mi"])
#: the micro sign and the Greek mu that stands for it, and the units they prefix
_MICRO = frozenset("µμ")
_MICRO_BASES = frozenset(["m", "g", "s", "l", "L", "A", "V", "W", "J", "Hz", "mol"])
_POWER = re.compile(r"^(?P<base>[a-z]+)(?P<p>[23²³])$")


def _forms(unit: str) -> tuple[str, str] | None:
    if len(unit) == 1 and unit.isupper() and unit not in UNITS and unit not in _MORE:
        return None  # "5G" is no gram (an ohm's "Ω" is)
    if re.match(r"^[A-Z]{2,}s$", unit) or unit in _CAPITAL_WORDS:
        return None  # "28 HRs", "94 RBIs": an acronym's plural, not hours; "12 PT visits": therapy
    forms = UNITS.get(unit) or _MORE.get(unit) or UNITS.get(unit.lower()) or _LOWER.get(unit.lower())
    if forms is not None:
        return forms
    if unit[:1] in _MICRO and unit[1:] in _MICRO_BASES and unit[1:] in UNITS:  # "μs", "µL" (two signs)
        one, many = UNITS[unit[1:]]
        return "micro" + one, "micro" + many
    m = _POWER.match(unit)
    if m is not None and m.group("base") in _LENGTHS:
        one, many = UNITS[m.group("base")]
        kind = "square " if m.group("p") in "2²" else "cubic "
        return kind + one, kind + many
    return None


def _squared(unit: str) -> tuple[str, str] | None:
    """A time under a power, as in an acceleration: "s²" -> "second squared"."""
    m = _POWER.match(unit)
    forms = None if m is None or m.group("base") in _LENGTHS else _forms(m.group("base"))
    if m is None or forms is None:
        return None
    power = " squared" if m.group("p") in "2²" else " cubed"
    return forms[0] + power, forms[1] + power


def unit_words(unit: str, plural: bool) -> str | None:
    """The spoken unit, plural or not; None when ``unit`` is no unit."""
    if "/" in unit and unit not in UNITS:
        top, _, bottom = unit.partition("/")
        top = top.removesuffix(".")  # "4 hrs./night"
        upper, lower = _forms(top), _forms(bottom) or PER_WORDS.get(bottom.lower()) or _squared(bottom)
        if upper is None or lower is None:
            return None
        return f"{upper[1 if plural else 0]} per {lower[0]}"
    forms = _forms(unit)
    return None if forms is None else forms[1 if plural else 0]
