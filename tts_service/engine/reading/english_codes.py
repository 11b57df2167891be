"""Codes, acronyms, model names and runs of symbols: how letters, digits and marks that are no word are said.

Apart from ``english_tokens`` because they are one kind of decision (spell it, or say it as a word
or a number?) that several rules ask: a confirmation code is said letter by letter and digit by
digit; a model name is its letters and then a number a person would say ("RTX-6000": R T X six
thousand, "COVID-19": COVID nineteen), unless a word before it makes it an identifier ("code
ABC-1234"); a run of symbols is each symbol's name ("$€£": dollar euro pound), never nothing.
"""

from __future__ import annotations

import re

from tts_service.engine.reading import web
from tts_service.engine.reading.english_context import TAX_FORMS
from tts_service.engine.reading.english_roles import paired
from tts_service.engine.reading.english_tables import ACRONYM_WORDS, CODE_CONTEXT, DIGIT_CONTEXT
from tts_service.engine.reading.words import NumberWords

__all__ = [
    "model_number", "named_code", "over_letter", "read_acronym", "read_back", "retirement_plan", "shortcut",
    "spell_code", "symbol_run", "team_name",
]  # fmt: skip

_GROUP = re.compile(r"[A-Za-z]+|\d+")
_VOWELS = set("AEIOUYaeiouy")
_CONSONANT_RUN = re.compile(r"[^AEIOUY]{3}")
#: letters, a dash, a number that is no identifier: "RTX-6000", "COVID-19", "MIG-25", "GTX-980"
_MODEL = re.compile(r"^(?P<name>[A-Za-z]{3,6})-(?P<n>[1-9]\d{0,3})$")
#: "RTX 4090", "GTX 1080": capitals, then four digits written apart
_SPACED_MODEL = re.compile(r"^[A-Z]{2,5}$")
_OVER = re.compile(r"^(?P<a>\d{1,3}|[A-Za-z])/(?P<b>[A-Za-z]|\d{1,3})$")
_SYMBOL_NAMES = {
    "$": "dollar", "€": "euro", "£": "pound", "¥": "yen", "₩": "won", "₹": "rupee", "#": "hash",
    "%": "percent", "&": "and", "@": "at", "+": "plus", "=": "equals", "*": "star", "/": "slash",
    "\\": "backslash", "~": "tilde", "^": "caret", "|": "bar", "<": "less than", ">": "greater than",
    "§": "section", "©": "copyright", "®": "registered", "™": "trademark", "°": "degrees", "!": "",
    "?": "", "_": "underscore",
}  # fmt: skip


def spell_code(core: str, w: NumberWords) -> str:
    """ "4410-AZ" -> "four four one zero, A. Z"; "COVID-19" -> "COVID nineteen"."""
    groups: list[str] = []
    head = core.split("-")[0]
    parts = re.split(r"([-/])", core)
    for part in parts[::2]:
        pieces: list[str] = _GROUP.findall(part)
        out: list[str] = []
        for i, p in enumerate(pieces):
            if p.isdigit():
                after_word = i > 0 and len(pieces[i - 1]) >= 3 and _pronounceable(pieces[i - 1])
                after_word = after_word or (i == 0 and bool(groups) and head.isalpha() and len(head) >= 4)
                after_word = after_word or (
                    i == 0 and len(pieces) > 1 and _pronounceable(pieces[1])
                )  # "10OFF"
                small = len(p) <= 2 or (len(p) == 3 and len(pieces) == 2)  # "SAVE20", "HOLIDAY100"
                lettered = i > 0 and (after_word or (pieces[i - 1].isupper() and len(pieces[i - 1]) <= 2))
                if lettered and re.match(r"^(?:19|20)\d\d$", p):
                    out.append(w.year(int(p)))  # "SUMMER2024", "FY2024"
                    continue
                out.append(w.cardinal(int(p)) if after_word and small and p[0] != "0" else w.digits(p))
            elif _pronounceable(p):
                out.append(p)
            else:
                out.append(w.letters(p))
        groups.append(" ".join(out))
    said = groups[0]
    for mark, group in zip(parts[1::2], groups[1:], strict=True):  # a dash is a pause, a slash is said
        said += (" slash " if mark == "/" else ", ") + group  # "123/2617/2021"
    return said


def _pronounceable(p: str) -> bool:
    if p.upper() in ACRONYM_WORDS:
        return True
    return len(p) >= 3 and (not p.isupper() or len(p) >= 4) and any(c in _VOWELS for c in p)


def read_acronym(core: str, w: NumberWords) -> str | None:
    """All capitals: said as a word when it is one (NASA, PIN), else spelled (ATM, FBI)."""
    plural = len(core) > 2 and core.endswith("s") and core[:-1].isupper()
    stem = core[:-1] if plural else core
    if not (stem.isalpha() and stem.isupper() and 2 <= len(stem) <= 5):
        return None
    if stem in ACRONYM_WORDS:
        return stem.title() + ("s" if plural else "")
    if stem == "OK":
        return "okay"
    if len(stem) >= 4 and any(c in _VOWELS for c in stem) and not _CONSONANT_RUN.search(stem):
        return None  # a word in capitals for emphasis ("FREE", "HELP"); "USPS", "HTML" are spelled
    spelled = w.letters(stem)
    return spelled + "'s" if plural else spelled


def model_number(core: str, before: tuple[str, ...], w: NumberWords) -> str | None:
    """ "RTX-6000" -> "R T X six thousand", "COVID-19" -> "COVID nineteen": a model's number is said
    as a number (three digits in pairs, four as a year is, "4090": forty ninety; round ones whole);
    after an identifier word ("code", "order", "confirmation") None: the code is spelled."""
    m = _MODEL.match(core)
    if m is None or DIGIT_CONTEXT.intersection(before[-3:]) or CODE_CONTEXT.intersection(before[-3:]):
        return None
    number = m.group("n")
    if len(number) == 4 and not number.endswith("00"):
        return None  # "ABC-1234": more likely a reference than a model
    name = m.group("name")
    said = name if _pronounceable(name) else w.letters(name)
    return said + " " + spaced_model(number, w)


def spaced_model(number: str, w: NumberWords) -> str:
    """A model's number: "19", "300" and "6000" whole; "747" in pairs; "4090" as a year is said."""
    value = int(number)
    if len(number) <= 2 or (value % 100 == 0 and len(number) == 3) or value % 1000 == 0:
        return w.cardinal(value)
    return paired(number, w) if len(number) == 3 else w.year(value)


def is_model_name(prev_raw: str, before: tuple[str, ...]) -> bool:
    """ "RTX 4090": a word in capitals that is no acronym said as a word, and no identifier word."""
    return (
        _SPACED_MODEL.match(prev_raw) is not None
        and prev_raw not in ACRONYM_WORDS
        and not DIGIT_CONTEXT.intersection(before[-3:])
        and not CODE_CONTEXT.intersection(before[-3:])
    )


def over_letter(core: str, w: NumberWords) -> str | None:
    """ "1/f", "x/2": a number over a letter (or a letter over a number) is "one over F"."""
    m = _OVER.match(core)
    if m is None or m.group("a").isdigit() == m.group("b").isdigit():
        return None
    a, b = (w.cardinal(int(p)) if p.isdigit() else w.letters(p) for p in (m.group("a"), m.group("b")))
    return f"{a} over {b}"


def symbol_run(core: str) -> str | None:
    """ "$€£", "#%": a token of symbols alone is each one's name, never nothing."""
    if len(core) < 2 or any(c not in _SYMBOL_NAMES for c in core):
        return None
    said = " ".join(_SYMBOL_NAMES[c] for c in core if _SYMBOL_NAMES[c])
    return said or None


def retirement_plan(core: str, w: NumberWords) -> str | None:
    """ "a 401k plan", "403b": the plan's name, four oh one k, not four hundred one thousand."""
    if not re.match(r"^(?:401|403|457)[kKbB]$", core):
        return None
    return paired(core[:3], w) + " " + core[3].lower()


def team_name(core: str, w: NumberWords) -> str | None:
    """ "49ers", "76ers": a team named by its number, "forty-niners", "seventy-sixers"."""
    if not re.match(r"^[1-9]\d?ers$", core):
        return None
    said = w.cardinal(int(core[:-3]))
    return (said[:-4] + "niners") if said.endswith("nine") else said + "ers"


#: what a password's symbols are called when it is read back to a caller, one by one
_SECRET_SYMBOLS = {**_SYMBOL_NAMES, "!": "exclamation point", "?": "question mark", "#": "pound",
                   "$": "dollar sign", "&": "ampersand", "-": "dash", ".": "dot", ",": "comma", ":": "colon",
                   ";": "semicolon", "'": "apostrophe", "(": "open parenthesis",
                   ")": "close parenthesis"}  # fmt: skip
_SECRET_WORDS = frozenset(["password", "passphrase", "pw", "pwd"])


def read_back(core: str, before: tuple[str, ...], w: NumberWords) -> str | None:
    """ "the password is Blue42!Sky": Blue, four two, exclamation point, Sky. A secret read back to
    a caller is said piece by piece, its digits one by one and every symbol named; None when no
    password word is near or the token is a plain word."""
    last = before[-1] if before else ""
    named = last in _SECRET_WORDS or (last == "is" and bool(_SECRET_WORDS.intersection(before)))
    if not named or core.isalpha() or core.isdigit() or "://" in core or re.match(r"^\d+[-–]\d+$", core):
        return None  # "the password is X" or "password: X", not "a password of 8-16 characters"
    pieces = re.findall(r"[A-Za-z]+|\d|[^A-Za-z\d]", core)
    if any(len(p) == 1 and not p.isalnum() and p not in _SECRET_SYMBOLS for p in pieces):
        return None
    said = [w.digits(p) if p.isdigit() else (p if p.isalpha() else _SECRET_SYMBOLS[p]) for p in pieces]
    return " ".join(s for s in said if s)


#: keys as they are said ("Ctrl+Alt+Del": control alt delete)
_KEY_NAMES = {"ctrl": "control", "control": "control", "alt": "alt", "shift": "shift", "cmd": "command",
              "command": "command", "opt": "option", "option": "option", "win": "Windows", "fn": "function",
              "esc": "escape", "tab": "tab", "del": "delete", "delete": "delete", "enter": "enter",
              "return": "return", "space": "space", "home": "home", "end": "end",
              "ins": "insert"}  # fmt: skip
_MODIFIERS = frozenset(["ctrl", "control", "alt", "shift", "cmd", "command", "opt", "option", "win", "fn"])
_KEY = r"(?:[A-Za-z]+|F\d{1,2}|\d)"
_SHORTCUT = re.compile(rf"^{_KEY}(?:\+{_KEY})+$")


def shortcut(core: str, w: NumberWords) -> str | None:
    """ "Ctrl+Alt+Del" -> "control alt delete", "Cmd+R" -> "command R", "Ctrl+F5": keys pressed
    together, each by its name; None unless the first key is a modifier."""
    if _SHORTCUT.match(core) is None:
        return None
    keys = core.split("+")
    if keys[0].lower() not in (
        "ctrl",
        "control",
        "alt",
        "shift",
        "cmd",
        "command",
        "opt",
        "option",
        "win",
        "fn",
    ):
        return None  # "C+D" or "A+B" is no shortcut
    said = []
    for key in keys:
        if key.lower() in _KEY_NAMES:
            said.append(_KEY_NAMES[key.lower()])
        elif len(key) == 1:
            said.append(w.digits(key) if key.isdigit() else w.letters(key))
        elif re.match(r"^F\d{1,2}$", key):
            said.append("F " + w.cardinal(int(key[1:])))
        else:
            return None
    return " ".join(said)


_VISCOSITY = re.compile(r"^(\d{1,2})W-(\d{2})$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_SNAKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$")
_HEX = re.compile(r"^0[xX][0-9A-Fa-f]{2,16}$")


def named_code(core: str, w: NumberWords) -> str | None:
    """Codes that are said their own way, whatever their neighbours: a keyboard shortcut, a tax
    form with its suffix ("1099-NEC"), grades ("K-5": K through five), a bike tire ("700x32c"), an
    oil grade ("5W-30"), a name with underscores ("Harborview_Guest", a year in it as a year), an
    acronym with a letter ("USB-C"), a hex code ("0x80070005"). None: no such code."""
    if (keys := shortcut(core, w)) is not None:
        return keys
    if (form := re.match(r"^(\d{4})-([A-Z]{1,4})$", core)) and form.group(1) in TAX_FORMS:
        return f"{paired(form.group(1), w)} {w.letters(form.group(2))}"
    if (forms := re.match(r"^(\d{4})s$", core)) and forms.group(1) in TAX_FORMS:  # "your 1099s"
        said = paired(forms.group(1), w)
        return said[:-1] + "ies" if said.endswith("y") else said + "s"
    if (forms := re.match(r"^W-(\d)s$", core)) is not None:  # "W-2s": W twos
        return f"W {w.cardinal(int(forms.group(1)))}s"
    if (charity := re.match(r"^501\(c\)\((\d{1,2})\)?$", core)) is not None:  # "a 501(c)(3) nonprofit"
        return f"five oh one C {w.cardinal(int(charity.group(1)))}"
    if (grades := re.match(r"^(K|Pre-?K)[-–](\d{1,2})$", core)) is not None:
        first = "K" if grades.group(1) == "K" else "pre K"
        return f"{first} through {w.cardinal(int(grades.group(2)))}"
    if (tire := re.match(r"^(\d{3})x(\d{2})c$", core)) is not None:
        return f"{w.cardinal(int(tire.group(1)))} by {w.cardinal(int(tire.group(2)))} C"
    if (oil := _VISCOSITY.match(core)) is not None:
        return f"{w.cardinal(int(oil.group(1)))} W {w.cardinal(int(oil.group(2)))}"
    if _SNAKE.match(core) and not web.is_domain(core):
        parts = core.split("_")
        return " underscore ".join(w.year(int(p)) if _YEAR.match(p) else w.numbers_in(p) for p in parts)
    if re.match(r"^[A-Z]{2,5}-[A-Z]$", core) and (stem := read_acronym(core[:-2], w)) is not None:
        return f"{stem} {w.letters(core[-1])}"
    if _HEX.match(core):
        return "zero x " + " ".join(w.digits(c) if c.isdigit() else w.letters(c) for c in core[2:])
    return None
