"""The reader of the languages without one of their own: plain numbers in the language's words.

    reader = general_reader("de")
    reader.read(["Es", "kostet", "3,5", "%", "von", "1.200", "Euro."])
    # ["Es", "kostet", "drei Komma fünf", "Prozent", "von", "eintausendzweihundert", "Euro."]

For every language num2words knows but English (whose reader is ``english``), a token that is
only a number, between opening brackets or quotes and closing punctuation, is read: a cardinal
("21", "1.200" where a dot groups thousands, "1,200" where a comma does), a decimal with the
language's word for the separator and its digits one by one, a percent ("50%", "50 %", Turkish
"%50"), and an ordinal where the language marks it without ambiguity (French "1er", "2e";
Spanish, Italian, Portuguese "3º", "3ª"; Dutch "3e"; Swedish "3:e"). Everything else (a German
"3." that may end a sentence, a sign, a currency, a leading zero, a code) is left as written, for
the voice's own phonemizer. One spoken string per written token: the marks contract holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from num2words import CONVERTER_CLASSES

from tts_service.engine.reading.words import NumberWords

__all__ = ["GeneralReader", "general_reader"]

#: the longest integer read as a quantity (longer ones are identifiers: left to the digit groups)
_MAX_DIGITS = 12
#: languages that write a decimal point and group thousands with commas (others: the reverse)
_DECIMAL_POINT = frozenset({"ja", "ko", "zh", "th", "he", "ar", "fa", "hi", "bn", "te", "kn", "am"})
#: the word for the decimal separator, by language: (for ",", for ".")
_SEPARATOR = {
    "de": ("Komma", "Komma"), "fr": ("virgule", "virgule"), "es": ("coma", "punto"),
    "it": ("virgola", "virgola"), "pt": ("vírgula", "vírgula"), "nl": ("komma", "komma"),
    "pl": ("przecinek", "przecinek"), "ru": ("запятая", "запятая"), "uk": ("кома", "кома"),
    "tr": ("virgül", "virgül"), "sv": ("komma", "komma"), "da": ("komma", "komma"),
    "no": ("komma", "komma"), "fi": ("pilkku", "pilkku"), "cs": ("celá", "celá"),
    "ar": ("فاصلة", "فاصلة"), "ja": ("点", "点"), "ko": ("점", "점"), "id": ("koma", "koma"),
}  # fmt: skip
#: the word for "percent" (after the number; Turkish says it before)
_PERCENT = {
    "de": "Prozent", "fr": "pour cent", "es": "por ciento", "it": "per cento", "pt": "por cento",
    "nl": "procent", "pl": "procent", "tr": "yüzde", "sv": "procent", "da": "procent",
    "no": "prosent", "fi": "prosenttia", "cs": "procent", "ar": "بالمائة", "ja": "パーセント",
    "ko": "퍼센트", "id": "persen", "uk": "відсотків", "ru": "процентов",
}  # fmt: skip
#: how each language marks an ordinal unambiguously: the pattern and whether it is feminine
_ORDINAL = {
    "fr": re.compile(r"([0-9]+)(?:er|re|e|ème|è)"),
    "es": re.compile(r"([0-9]+)\.?([ºª°])"),
    "it": re.compile(r"([0-9]+)([ºª°])"),
    "pt": re.compile(r"([0-9]+)\.?([ºª°])"),
    "nl": re.compile(r"([0-9]+)(?:e|ste|de)"),
    "sv": re.compile(r"([0-9]+):(?:e|a)"),
}
_OPEN = "([{\"'«„“‘¿¡"
_CLOSE = ".,;:!?…)]}\"'»”’"
_SPLIT = re.compile(rf"^([{re.escape(_OPEN)}]*)(.*?)([{re.escape(_CLOSE)}]*)$", re.DOTALL)
_INTEGER = re.compile(r"0|[1-9][0-9]*")
_POINT_GROUPS = re.compile(r"[1-9][0-9]{0,2}(?:\.[0-9]{3})+")
_COMMA_GROUPS = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+")
_DECIMAL = re.compile(r"(0|[1-9][0-9]*)([.,])([0-9]+)")
#: languages that write an ordinal as a number and a period ("3. Mai"): "3." is left as written
_DOT_ORDINAL = frozenset({"de", "pl", "tr", "cs", "sk", "sl", "da", "no", "fi", "hu", "is", "lv", "lt", "sr"})


class GeneralReader:
    """Reads the plain numbers of one num2words language (see the module doc)."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._words = NumberWords(language)
        self._comma_decimal = language not in _DECIMAL_POINT
        self._percent = _PERCENT.get(language)

    def read(self, tokens: Sequence[str]) -> list[str]:
        """One spoken string per token of ``tokens`` (a token read as itself when not a number)."""
        out: list[str] = []
        after_number = False
        for token in tokens:
            spoken = self._token(token, after_number=after_number)
            after_number = spoken != token  # only numbers are read
            out.append(spoken)
        return out

    def _token(self, token: str, *, after_number: bool) -> str:
        match = _SPLIT.match(token)
        if match is None:  # pragma: no cover - the pattern matches every string
            return token
        opening, core, closing = match.groups()
        core = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in core)  # "٢١": 21
        if self.language in _DOT_ORDINAL and closing[:1] == "." and closing[1:2] != ".":
            return token  # "3." may be "third" (German "3. Mai"): the phonemizer decides
        if core == "%" and after_number and self._percent and self.language != "tr":
            return opening + self._percent + closing  # "50 %"
        spoken = self._core(core)
        return token if spoken is None else opening + spoken + closing

    def _core(self, core: str) -> str | None:
        try:
            if self._percent and self.language == "tr" and core.startswith("%"):
                number = self._number(core[1:])
                return None if number is None else f"{self._percent} {number}"
            if self._percent and core.endswith("%"):
                number = self._number(core[:-1])
                return None if number is None else f"{number} {self._percent_word(core[:-1])}"
            number = self._number(core)
            return number if number is not None else self._ordinal(core)
        except (NotImplementedError, OverflowError, ValueError, TypeError, IndexError, KeyError):
            return None  # num2words cannot say it: the phonemizer reads it as written

    def _percent_word(self, number: str) -> str:
        if self.language != "ru":
            return self._percent or ""
        if not number.isdecimal():
            return "процента"
        n = int(number)
        if n % 10 == 1 and n % 100 != 11:
            return "процент"
        return "процента" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "процентов"

    def _number(self, core: str) -> str | None:
        grouped = _POINT_GROUPS if self._comma_decimal else _COMMA_GROUPS
        if _INTEGER.fullmatch(core) or grouped.fullmatch(core):
            digits = core.replace(".", "").replace(",", "")
            return self._words.cardinal(int(digits)) if len(digits) <= _MAX_DIGITS else None
        decimal = _DECIMAL.fullmatch(core)
        if decimal is None or (not self._comma_decimal and decimal[2] == ","):
            return None  # "1,5" where a comma groups thousands: ambiguous, left as written
        whole, separator, fraction = decimal.groups()
        words = _SEPARATOR.get(self.language)
        if words is None or len(whole) > _MAX_DIGITS:
            return None
        said = [self._words.cardinal(int(whole)), words[0] if separator == "," else words[1]]
        said += [self._words.cardinal(int(d)) for d in fraction]
        return " ".join(said)

    def _ordinal(self, core: str) -> str | None:
        pattern = _ORDINAL.get(self.language)
        found = pattern.fullmatch(core) if pattern else None
        if found is None or len(found[1]) > _MAX_DIGITS or found[1].startswith("0"):
            return None
        n = int(found[1])
        if self.language == "fr" and n == 1 and core.endswith("re"):
            return "première"
        words = self._words.ordinal(n)
        if found.lastindex == 2 and found[2] == "ª":  # feminine: primero -> primera, terzo -> terza
            words = " ".join(w[:-1] + "a" if w.endswith("o") else w for w in words.split())
        return words


@lru_cache(maxsize=64)
def general_reader(language: str) -> GeneralReader | None:
    """The reader of ``language`` (a primary subtag: "de"), or None where num2words has no words."""
    if language == "en" or language not in CONVERTER_CLASSES:
        return None
    return GeneralReader(language)
