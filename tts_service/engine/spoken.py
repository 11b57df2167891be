"""English spoken-form normalization for backends that have no text normalizer of their own.

Autoregressive voices read "$3.50", "7:05 pm" or "1999" unpredictably; ``to_spoken_form`` rewrites a
sentence so that every digit and read symbol is already words ("three dollars and fifty cents",
"seven oh five p m", "nineteen ninety-nine"). Ordinary words and punctuation, sentence-ending
periods included, pass through. The output contains no digits, so a second pass changes nothing.

The rules are a fixed cascade of precompiled regexes, most specific first (URLs before abbreviations
before phone numbers, times, money, percentages, ordinals, years and plain numbers), so a later rule
never sees the digits an earlier one consumed.

This module must never do I/O, hold state between calls, or raise on any ``str`` input; backends with
their own normalizer must not be fed its output (they would read "forty-two" fine, but lose prosody
cues their normalizer relies on).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["digits_to_words", "number_to_words", "ordinal_to_words", "to_spoken_form", "year_to_words"]

_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))
_ORDINAL_IRREGULAR = {
    "one": "first", "two": "second", "three": "third", "five": "fifth",
    "eight": "eighth", "nine": "ninth", "twelve": "twelfth",
}  # fmt: skip

# Longer digit strings are identifiers (card numbers, order ids), not quantities.
_MAX_CARDINAL_DIGITS = 15


def number_to_words(n: int) -> str:
    """Cardinal words for ``n``: 42 -> "forty-two", 1250 -> "one thousand two hundred fifty".

    American style, no "and"; negatives take "minus". Beyond the trillions the scale words repeat
    ("one thousand trillion") rather than failing.
    """
    if n < 0:
        return "minus " + number_to_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("-" + _ONES[ones] if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _ONES[hundreds] + " hundred" + (" " + number_to_words(rest) if rest else "")
    for value, name in _SCALES:
        if n >= value:
            high, rest = divmod(n, value)
            return number_to_words(high) + " " + name + (" " + number_to_words(rest) if rest else "")
    raise AssertionError("unreachable: every n >= 1000 has a scale")


def ordinal_to_words(n: int) -> str:
    """Ordinal words for ``n``: 1 -> "first", 22 -> "twenty-second", 103 -> "one hundred third"."""
    words = number_to_words(n)
    head, sep, last = words.rpartition(" ")
    prefix, hyphen, last = last.rpartition("-")
    if last in _ORDINAL_IRREGULAR:
        last = _ORDINAL_IRREGULAR[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + prefix + hyphen + last


def digits_to_words(digits: str) -> str:
    """Read a digit string one digit at a time: "5551234" -> "five five five one two three four"."""
    return " ".join(_ONES[int(d)] for d in digits if d.isdecimal())


def to_spoken_form(text: str) -> str:
    """Rewrite numbers, money, times, dates, symbols, abbreviations, URLs and e-mails as English words.

    Spaces are collapsed and the result stripped; everything else the rules do not match is returned
    unchanged. Speaker tags such as ``[S1]`` are markup for the model and pass through as they are.
    Idempotent: the output has no digits or rewritten symbols left outside speaker tags.
    """
    parts = _SPEAKER_TAG_SPLIT_RE.split(text)
    for i in range(0, len(parts), 2):  # even indexes are text, odd ones the tags themselves
        for pattern, replace in _RULES:
            parts[i] = pattern.sub(replace, parts[i])
    return _SPACES_RE.sub(" ", " ".join(p for p in parts if p.strip())).strip()


_SPEAKER_TAG_SPLIT_RE = re.compile(r"(\[S\d+\])")


# --- helpers --------------------------------------------------------------------------------------


def _int_words(digits: str) -> str:
    """Cardinal for a digit string that may carry thousands commas; identifiers are read digit by digit."""
    plain = digits.replace(",", "")
    if len(plain) > _MAX_CARDINAL_DIGITS or (len(plain) > 1 and plain[0] == "0"):
        return digits_to_words(plain)
    return number_to_words(int(plain))


def _decimal_words(integer: str, fraction: str | None) -> str:
    words = _int_words(integer) if integer else "zero"
    if fraction:
        words += " point " + digits_to_words(fraction)
    return words


def _ends_sentence(match: re.Match[str], *, before_capital: bool = True) -> bool:
    """Whether the period a match consumed also ended the sentence, so the expansion must keep one.

    True at the end of the text and, when ``before_capital``, before a capitalised word ("apples,
    etc. Then"); abbreviations that usually precede a name ("vs. Smith") pass False.
    """
    if not match.group().endswith("."):
        return False
    rest = match.string[match.end() :]
    return not rest.strip() or (before_capital and _CAPITAL_NEXT_RE.match(rest) is not None)


_CAPITAL_NEXT_RE = re.compile(r"\s+[A-Z]")


def _padded(match: re.Match[str], words: str) -> str:
    """``words`` with a space on each side where the match was glued to a neighbouring word character."""
    text, start, end = match.string, match.start(), match.end()
    left = " " if start > 0 and text[start - 1].isalnum() else ""
    right = " " if end < len(text) and text[end].isalnum() else ""
    return left + words + right


def _spell_address(address: str) -> str:
    """Read a URL or e-mail the way people dictate one: "jane.doe@x.com" -> "jane dot doe at x dot com"."""
    address = _SCHEME_RE.sub("", address).rstrip("/")
    out: list[str] = []
    for token in _ADDRESS_TOKEN_RE.findall(address):
        if token.isdigit():
            out.append(digits_to_words(token))
        elif token in _ADDRESS_SYMBOLS:
            out.append(_ADDRESS_SYMBOLS[token])
        elif not token.isspace():
            out.append(token)
    return " ".join(out)


_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^mailto:")
_ADDRESS_TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|.")
_ADDRESS_SYMBOLS = {
    ".": "dot", "/": "slash", "@": "at", "-": "dash", "_": "underscore", ":": "colon", "?": "question mark",
    "=": "equals", "&": "and", "#": "hash", "+": "plus", "%": "percent", "~": "tilde",
}  # fmt: skip


# --- rules ----------------------------------------------------------------------------------------

_TLDS = r"com|org|net|io|ai|dev|app|co|edu|gov|us|uk|ca|de|fr|info|biz|me|tv"
_URL_RE = re.compile(
    r"\b(?:(?:https?|ftp)://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]]"
    rf"|\b[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:{_TLDS})\b(?:/[^\s<>\"']*[^\s<>\"'.,;:!?)\]])?"
)
_EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")


def _address(match: re.Match[str]) -> str:
    return _padded(match, _spell_address(match.group()))


_TITLES = {"Dr": "Doctor", "Mr": "Mister", "Mrs": "Missus", "Ms": "Miz", "Prof": "Professor", "St": "Saint"}
_STREET_WORDS = {"Dr": "Drive", "St": "Street"}
_TITLE_RE = re.compile(
    r"\b(?:(?P<name>Dr|Mr|Mrs|Ms|Prof|St)\.(?=\s+[A-Z])|(?P<other>Dr|Mr|Mrs|Ms|Prof|St)\.)"
)


def _title(match: re.Match[str]) -> str:
    abbr = match.group("name") or match.group("other")
    before = match.string[: match.start()].split()
    # "42 Main St.", "on Oak Dr.": a street after a capitalised word that does not start the text
    # ("Visit St. Louis" is a saint). Without one it is a title: "Dr. Smith", "the Dr. said".
    street = abbr in _STREET_WORDS and bool(before) and before[-1][:1].isupper()
    if street and (len(before) >= 2 or match.group("other")):
        return _STREET_WORDS[abbr] + ("." if _ends_sentence(match) else "")
    if match.group("name"):
        return _TITLES[abbr]
    return _TITLES[abbr] + ("." if _ends_sentence(match) else "")


_ABBREVIATIONS = {
    "e.g.": "for example", "i.e.": "that is", "etc.": "et cetera", "vs.": "versus", "vs": "versus",
    "approx.": "approximately", "jr.": "Junior", "sr.": "Senior",
}  # fmt: skip
_ABBREVIATION_RE = re.compile(
    r"(?<![\w.])(?:e\.g\.|i\.e\.|etc\.|vs\.?|approx\.|jr\.|sr\.)(?![\w])", re.IGNORECASE
)


def _abbreviation(match: re.Match[str]) -> str:
    found = match.group()
    words = _ABBREVIATIONS[found.lower()]
    if found[0].isupper() and words[0].islower():
        words = words[0].upper() + words[1:]
    # "apples, pears, etc." ends the sentence with the abbreviation's own period: keep one.
    if _ends_sentence(match, before_capital=found.lower() in ("etc.", "jr.", "sr.")):
        words += "."
    return words


_NUMBER_ABBREVIATION_RE = re.compile(r"\b[Nn]o\.\s?(?=\d)")

# Phone-like groups: 555-1234, 555-123-4567, 555.123.4567, (555) 123-4567, +1 555 123 4567.
_PHONE_RE = re.compile(
    r"(?<![\w.+-])(?:(?:\+?\d{1,3}[\s.-])?(?:\(\d{3}\)\s?|\d{3}[.-])\d{3}[.-]\d{4}"
    r"|\+\d{1,3}\s\d{3}\s\d{3}\s\d{4}|\d{3}-\d{4})(?![\w-]|\.\d)"
)
_PHONE_GROUP_RE = re.compile(r"\+?\d+")


def _phone(match: re.Match[str]) -> str:
    groups = _PHONE_GROUP_RE.findall(match.group())
    spoken = [("plus " if g.startswith("+") else "") + digits_to_words(g) for g in groups]
    return ", ".join(spoken)


_AMPM = r"(?:\s?(?P<ampm>[AaPp])(?:\.\s?[Mm]\.|[Mm]\b))"
_CLOCK_RE = re.compile(rf"(?<![\w:.])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?(?!\d){_AMPM}?")
_HOUR_AMPM_RE = re.compile(rf"(?<![\w:.])(?P<h>1[0-2]|0?[1-9]){_AMPM}")


def _ampm(match: re.Match[str]) -> str:
    letter = match.group("ampm")
    if not letter:
        return ""
    words = " " + letter.lower() + " m"
    if _ends_sentence(match):
        words += "."
    return words


def _clock(match: re.Match[str]) -> str:
    hour, minute = int(match.group("h")), int(match.group("m"))
    words = number_to_words(hour)
    if minute == 0 and not match.group("ampm") and not match.group("s"):
        words += " o'clock" if 1 <= hour <= 12 else " hundred"
    elif minute or match.group("s"):
        words += " " + ("oh " + _ONES[minute] if minute < 10 else number_to_words(minute))
    if match.group("s"):
        words += " and " + number_to_words(int(match.group("s"))) + " seconds"
    return words + _ampm(match)


def _hour(match: re.Match[str]) -> str:
    return number_to_words(int(match.group("h"))) + _ampm(match)


_CURRENCIES = {
    # symbol: (singular, plural, minor singular, minor plural); no minor unit reads decimals as "point"
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", "", ""),
}
_SCALE_WORDS = {
    "k": "thousand", "m": "million", "mn": "million", "b": "billion", "bn": "billion", "t": "trillion",
    "thousand": "thousand", "million": "million", "billion": "billion", "trillion": "trillion",
}  # fmt: skip
_INT = r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)"
_FRAC = r"(?:\.(?P<frac>\d+))?"
_MONEY_RE = re.compile(
    rf"(?<![\w.])(?P<neg>-)?(?P<cur>[$€£¥])\s?(?=\.?\d){_INT}?{_FRAC}"
    r"(?:(?P<scale>[kKmMbBtT]|bn|mn)\b|\s(?P<scale_word>thousand|million|billion|trillion)\b)?"
)


def _money(match: re.Match[str]) -> str:
    one, many, minor_one, minor_many = _CURRENCIES[match.group("cur")]
    integer, fraction = match.group("int") or "0", match.group("frac")
    scale = match.group("scale") or match.group("scale_word")
    neg = "minus " if match.group("neg") else ""
    if scale:
        return f"{neg}{_decimal_words(integer, fraction)} {_SCALE_WORDS[scale.lower()]} {many}"
    if fraction and (not minor_many or len(fraction) > 2):
        return f"{neg}{_decimal_words(integer, fraction)} {many}"
    whole = int(integer.replace(",", ""))
    cents = int(fraction.ljust(2, "0")) if fraction else 0
    parts = []
    if whole or not cents:
        parts.append(f"{_int_words(integer)} {one if whole == 1 else many}")
    if cents:
        parts.append(f"{number_to_words(cents)} {minor_one if cents == 1 else minor_many}")
    return neg + " and ".join(parts)


_SIGNED_NUMBER = rf"(?<![\w.,])(?P<neg>-)?{_INT}{_FRAC}"
_PERCENT_RE = re.compile(rf"{_SIGNED_NUMBER}\s?%")
_DEGREE_RE = re.compile(rf"{_SIGNED_NUMBER}\s?°\s?(?P<unit>[CF](?![\w]))?")


def _signed(match: re.Match[str]) -> str:
    return ("minus " if match.group("neg") else "") + _decimal_words(match.group("int"), match.group("frac"))


def _percent(match: re.Match[str]) -> str:
    return _signed(match) + " percent"


def _degrees(match: re.Match[str]) -> str:
    number = _signed(match)
    unit = {"C": " Celsius", "F": " Fahrenheit", None: ""}[match.group("unit")]
    return number + (" degree" if number == "one" else " degrees") + unit


_HASH_NUMBER_RE = re.compile(r"(?<![\w&])#(?P<n>\d+)\b")
_ORDINAL_RE = re.compile(r"(?<![\w.,])(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DAY_OF_MONTH_RE = re.compile(rf"\b(?P<month>{_MONTHS})\s(?P<day>[12]\d|3[01]|0?[1-9])(?![\d:,.]\d|\w)")


def year_to_words(year: int) -> str:
    """Read a year the way people say it: 1999 -> "nineteen ninety-nine", 2005 -> "two thousand five"."""
    high, low = divmod(year, 100)
    if 2000 <= year <= 2009 or year % 1000 == 0:
        return number_to_words(year)
    if low == 0:
        return number_to_words(high) + " hundred"
    return number_to_words(high) + " " + ("oh " + _ONES[low] if low < 10 else number_to_words(low))


_YEAR = r"(?:1[1-9]\d\d|20\d\d)"
_DECADE_RE = re.compile(
    r"(?<![\w.,$€£¥#'’])(?P<y>1[1-9]\d0|20\d0)s\b|(?<![\w.,$€£¥#])['’]?(?P<short>[2-9])0s\b"
)
_YEAR_RANGE_RE = re.compile(rf"(?<![\w.,])(?P<a>{_YEAR})\s?[-–]\s?(?P<b>{_YEAR})(?![\w,.]\d|[\d%°])")
_YEAR_RE = re.compile(rf"(?<![\w.,-])(?P<y>{_YEAR})(?![\d%°]|[,.]\d|[\w])")
# Words after which a four-digit number is read as a year even when a noun follows ("in 1999 we").
_YEAR_CONTEXT = frozenset(
    (
        "in", "since", "of", "by", "year", "from", "until", "till", "to", "through", "before", "after",
        "during", "circa", "around", "early", "late", "mid", "the", "spring", "summer", "autumn", "fall",
        "winter", *_MONTHS.lower().split("|"),
    )
)  # fmt: skip


def _decade(match: re.Match[str]) -> str:
    if match.group("short"):
        return _TENS[int(match.group("short"))].replace("y", "ies")
    words = year_to_words(int(match.group("y")))
    return words[:-1] + "ies" if words.endswith("y") else words + "s"


def _year_range(match: re.Match[str]) -> str:
    return year_to_words(int(match.group("a"))) + " to " + year_to_words(int(match.group("b")))


def _year(match: re.Match[str]) -> str:
    digits = match.group("y")
    before = match.string[: match.start()]
    after = match.string[match.end() :]
    previous = before.split()[-1].lower().strip(",(") if before.split() else ""
    if not before.strip() or previous in _YEAR_CONTEXT or not after.strip() or after[0] in ",.;:!?)":
        return year_to_words(int(digits))
    return number_to_words(int(digits))  # "2048 bytes": a quantity that happens to look like a year


_VERSION_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w]|\.\d)")
# Only unambiguous operators: a hyphen between numbers is as often a range ("10-20") as a minus.
_ARITHMETIC_RE = re.compile(r"(?<=\d)\s*(?P<op>\*\*|\^|[+×*÷])\s*(?=-?\d)")
_ARITHMETIC_WORDS = {
    "+": "plus", "×": "times", "*": "times", "**": "to the power of", "^": "to the power of",
    "÷": "divided by",
}  # fmt: skip
_PLUS_SIGN_RE = re.compile(r"(?<![\w+])\+(?=\d)")
_EQUALS_RE = re.compile(r"\s*=\s*")
_AMPERSAND_RE = re.compile(r"\s*&\s*")
_AT_RE = re.compile(r"\s*@\s*")
_CARDINAL_RE = re.compile(rf"{_SIGNED_NUMBER}(?![\d,]\d)")
_DIGITS_RE = re.compile(r"\d+")
_SPACES_RE = re.compile(r"[ \t]{2,}")


def _digits(match: re.Match[str]) -> str:
    # Digits glued to letters ("MP3", "5G", "COVID-19"): keep them apart so both halves are read.
    text, start, end = match.string, match.start(), match.end()
    pad_left = " " if start > 0 and text[start - 1].isalpha() else ""
    pad_right = " " if end < len(text) and text[end].isalpha() else ""
    return pad_left + _int_words(match.group()) + pad_right


_RULES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (_EMAIL_RE, _address),
    (_URL_RE, _address),
    (_TITLE_RE, _title),
    (_ABBREVIATION_RE, _abbreviation),
    (_NUMBER_ABBREVIATION_RE, "number "),
    (_PHONE_RE, _phone),
    (_CLOCK_RE, _clock),
    (_HOUR_AMPM_RE, _hour),
    (_MONEY_RE, _money),
    (_PERCENT_RE, _percent),
    (_DEGREE_RE, _degrees),
    (_HASH_NUMBER_RE, lambda m: "number " + _int_words(m.group("n"))),
    (_ORDINAL_RE, lambda m: ordinal_to_words(int(m.group("n").replace(",", "")))),
    (_DAY_OF_MONTH_RE, lambda m: m.group("month") + " " + ordinal_to_words(int(m.group("day")))),
    (_DECADE_RE, _decade),
    (_YEAR_RANGE_RE, _year_range),
    (_YEAR_RE, _year),
    (_VERSION_RE, lambda m: " dot ".join(_int_words(part) for part in m.group().split("."))),
    (_ARITHMETIC_RE, lambda m: " " + _ARITHMETIC_WORDS[m.group("op")] + " "),
    (_PLUS_SIGN_RE, "plus "),
    (_EQUALS_RE, " equals "),
    (_AMPERSAND_RE, " and "),
    (_AT_RE, " at "),
    (_CARDINAL_RE, lambda m: _padded(m, _signed(m))),
    (_DIGITS_RE, _digits),
)
