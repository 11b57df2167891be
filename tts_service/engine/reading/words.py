"""Number and letter words for one language: the vocabulary the readers build spoken forms from.

Cardinals, ordinals and years come from num2words (maintained, 50+ languages), cached because a
call costs about 0.3 ms; English is then put in the American style a voice bot speaks ("two
thousand four hundred eighteen", no "and" or commas). Digits one at a time and letter names are
kept here because num2words has no such reading.
"""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import num2words

__all__ = ["NumberWords"]

_NUMBER_INSIDE = re.compile(r"\d+(?:\.\d+)?")

#: beyond the trillions a number is read digit by digit
_MAX_CARDINAL = 10**15
#: a number written in comma groups is a quantity up to the quintillions ("124,444,234,854,823,834,553")
_MAX_GROUPED = 10**21
_EN_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


class NumberWords:
    """Number words in ``language`` (a num2words code such as "en", "de", "fr")."""

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self._english = language == "en"

    def _style(self, words: str) -> str:
        if self._english:
            return words.replace(",", "").replace(" and ", " ")
        return words

    @lru_cache(maxsize=4096)  # noqa: B019 - instances live as long as the process, one per language
    def cardinal(self, n: int) -> str:
        """42 -> "forty-two"; negatives take "minus"."""
        if n < 0:
            return "minus " + self.cardinal(-n)
        if n >= _MAX_CARDINAL:  # no one says "quinsexagintillion": an identifier, digit by digit
            return self.digit_groups(str(n))
        return self._style(num2words(n, lang=self.language))

    def grouped(self, n: int) -> str:
        """A number written in comma groups: a cardinal up to the quintillions, then digit groups."""
        if n < _MAX_CARDINAL or n >= _MAX_GROUPED:
            return self.cardinal(n)
        return self._style(num2words(n, lang=self.language))

    @lru_cache(maxsize=1024)  # noqa: B019
    def ordinal(self, n: int) -> str:
        """21 -> "twenty-first"."""
        if n >= _MAX_CARDINAL:
            return self.digit_groups(str(n))
        return self._style(num2words(n, lang=self.language, to="ordinal"))

    @lru_cache(maxsize=1024)  # noqa: B019
    def year(self, n: int) -> str:
        """1999 -> "nineteen ninety-nine", 2005 -> "two thousand five", 1900 -> "nineteen hundred"."""
        if not self._english:
            return self._style(num2words(n, lang=self.language, to="year"))
        high, low = divmod(n, 100)
        if n < 1000 or 2000 <= n <= 2009 or n % 1000 == 0:
            return self.cardinal(n)
        if low == 0:
            return self.cardinal(high) + " hundred"
        return self.cardinal(high) + " " + ("oh " + _EN_DIGITS[low] if low < 10 else self.cardinal(low))

    def digit_groups(self, digits: str) -> str:
        """An identifier too long to be a quantity, digit by digit in groups of four with a pause
        between them, as a person reads a long reference out ("seven seven seven seven, seven ...")."""
        plain = "".join(d for d in digits if d.isdecimal())
        return ", ".join(self.digits(plain[i : i + 4]) for i in range(0, len(plain), 4))

    def digits(self, digits: str, *, zero: str = "zero") -> str:
        """ "0091" -> "zero zero nine one": one word per digit."""
        names = _EN_DIGITS if self._english else tuple(self.cardinal(d) for d in range(10))
        return " ".join(zero if d == "0" else names[int(d)] for d in digits if d.isdecimal())

    def decimal(self, integer: str, fraction: str) -> str:
        """("3", "14") -> "three point one four"; ("", "5") -> "zero point five"."""
        plain = integer.replace(",", "")
        whole = (
            (self.digit_groups(plain) if len(plain) > 21 else self.cardinal(int(plain))) if plain else "zero"
        )
        return whole + " point " + self.digits(fraction)

    def numbers_in(self, text: str) -> str:
        """ "!1" -> "! one": the numbers inside a token no rule read, in words; the rest as written."""
        spaced = " ".join(_NUMBER_INSIDE.sub(lambda m: f" {self.number(m.group())} ", text).split())
        return re.sub(r" ([,.;:!?])", r"\1", spaced)  # "1,2,3": "one, two, three"

    def number(self, text: str) -> str:
        """A written number ("1,250", "3.5", "-2", ".5") in words; leading zeros read digit by digit."""
        neg = text[:1] in "-−"
        body = text.lstrip("-−+")
        integer, _, fraction = body.partition(".")
        plain = integer.replace(",", "")
        if fraction:
            words = self.decimal(plain, fraction)
        elif len(plain) > 1 and plain.startswith("0"):
            words = self.digits(plain)
        elif len(plain) > (21 if "," in integer else 15):  # no quantity: an identifier, in groups
            words = self.digit_groups(plain)
        else:
            words = self.grouped(int(plain)) if "," in integer else self.cardinal(int(plain))
        return ("minus " if neg else "") + words

    @staticmethod
    def letters(text: str) -> str:
        """ "AZ" -> "A. Z": letter names, upper case; "A" gets a period so no model reads the article."""
        return " ".join("A." if c in "Aa" else c.upper() for c in text if c.isalnum())
