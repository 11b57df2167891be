"""Amounts of money: "$2,418.07" -> "two thousand four hundred eighteen dollars and seven cents",
"$3.4B" -> "three point four billion dollars", "USD 50" -> "fifty dollars"; a zero tail past the
cents is cents ("$20.500": "twenty dollars and fifty cents"), other long decimals are "point".
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import CURRENCY_CODES, CURRENCY_SYMBOLS, SCALES
from tts_service.engine.reading.words import NumberWords

__all__ = ["NUM", "amount_words", "code_amount", "deal", "read_money"]

NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_CUR = "|".join(re.escape(c) for c in sorted(CURRENCY_SYMBOLS, key=len, reverse=True))
_MONEY = re.compile(
    rf"^(?P<neg>[-−+]?)(?:(?P<cur>{_CUR})(?P<neg2>[-−]?)(?P<num>{NUM})|(?P<num2>{NUM})(?P<cur2>[€£¥₹]))"
    r"(?P<scale>k|K|m|M|mn|MM|b|B|bn|t|T|tn)?$"
)
_DEAL = re.compile(r"^(?P<n>[1-9]\d?)/(?P<price>[$€£]\d[\d,.]*)$")
_AMOUNT = re.compile(rf"^(?P<neg>[-−+]?)(?P<num>{NUM})$")


def amount_words(
    num: str, forms: tuple[str, str, str, str], w: NumberWords, *, neg: str = "", scale: str = ""
) -> str:
    """ "2,418.07" in ``forms`` (one, many, minor one, minor many) -> "... dollars and seven cents"."""
    one, many, minor_one, minor_many = forms
    integer, _, fraction = num.partition(".")
    if len(fraction) > 2 and not fraction[2:].strip("0"):
        fraction, num = fraction[:2], num[: len(num) - len(fraction) + 2]  # "$20.500": fifty cents
    if scale:
        return f"{neg}{w.number(num)} {scale} {many}"
    if fraction and (not minor_many or len(fraction) > 2):
        return f"{neg}{w.number(num)} {many}"
    plain = integer.replace(",", "") or "0"
    if len(plain) > 15:  # a sum too long to say: its digits, in groups
        return f"{neg}{w.number(num)} {many}"
    whole = int(plain)
    cents = int(fraction.ljust(2, "0")) if fraction else 0
    parts = []
    if whole or not cents:
        said = w.grouped(whole) if "," in integer else w.cardinal(whole)
        parts.append(f"{said} {one if whole == 1 else many}")
    if cents:
        minor = minor_one if cents == 1 else minor_many
        if not parts and minor in ("cent", "cents") and one != "dollar":
            # "€0.92": ninety-two euro cents, "C$0.31": thirty-one Canadian cents (not lost)
            minor = f"{one.removesuffix(' dollar')} {minor}"
        parts.append(f"{w.cardinal(cents)} {minor}")
    return neg + " and ".join(parts)


def read_money(core: str, w: NumberWords, scale_word: str = "") -> str | None:
    """A written amount with its symbol ("$3.50", "-€15", "20€", "$3.4B"), or None."""
    m = _MONEY.match(core)
    if m is None:
        return None
    forms = CURRENCY_SYMBOLS[m.group("cur") or m.group("cur2")]
    neg = "minus " if m.group("neg") in ("-", "−") or m.group("neg2") else ""  # "-$15", "$-12.75"
    scale = SCALES.get(m.group("scale") or "", "") or scale_word
    return amount_words(m.group("num") or m.group("num2"), forms, w, neg=neg, scale=scale)


def code_amount(code: str, core: str, w: NumberWords, scale: str = "") -> str | None:
    """An amount after its currency's code ("USD 50", "EUR 1,200.50", "USD 5" million), or None."""
    forms = CURRENCY_CODES.get(code)
    m = _AMOUNT.match(core) if forms else None
    if m is None or forms is None:
        return None
    neg = "minus " if m.group("neg") in ("-", "−") else ""
    return amount_words(m.group("num"), forms, w, neg=neg, scale=scale)


def deal(core: str, w: NumberWords) -> str | None:
    """ "3/$10" -> "three for ten dollars": so many for a price."""
    m = _DEAL.match(core)
    price = read_money(m.group("price"), w) if m else None
    return None if m is None or price is None else f"{w.cardinal(int(m.group('n')))} for {price}"
