"""Addresses people dictate: e-mails, URLs and domains, file names, handles and hashtags.

Read the way a person says them on the phone: "jane.doe@mail.org" -> "jane dot doe at mail dot
org"; "https://www.acme.com/help" -> "w w w dot acme dot com slash help" (the scheme is never
read). Pieces that are words stay words, digit runs are read digit by digit, and pieces no one
can pronounce (no vowel: "jd", "xkcd") are spelled.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import FILE_EXTENSIONS, TLDS
from tts_service.engine.reading.words import NumberWords

__all__ = ["is_domain", "is_email", "is_file_name", "is_url", "read_address", "read_tag"]

_EMAIL = re.compile(r"^(?:mailto:)?[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_DOMAIN = re.compile(r"^(?:www\.)?(?:[a-zA-Z0-9-]+\.)+(?P<tld>[a-zA-Z]{2,})(?::\d+)?(?:[/?#]\S*)?$")
_FILE = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.(?P<ext>[A-Za-z0-9]{1,5})$")
_PIECE = re.compile(r"[A-Za-z]+|\d+|.")
_SYMBOLS = {
    ".": "dot", "/": "slash", "@": "at", "-": "dash", "_": "underscore", ":": "colon", "?": "question mark",
    "=": "equals", "&": "and", "#": "hash", "+": "plus", "%": "percent", "~": "tilde",
}  # fmt: skip
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
#: short pieces said as a word although they look like letters
_SAID = frozenset(
    [
        "com",
        "org",
        "net",
        "gov",
        "edu",
        "info",
        "io",
        "co",
        "me",
        "us",
        "uk",
        "tv",
        "app",
        "dev",
        "help",
        "login",
        "www",
    ]
)


def is_email(core: str) -> bool:
    return _EMAIL.match(core) is not None


def is_url(core: str) -> bool:
    return _SCHEME.match(core) is not None or core.lower().startswith("www.")


def is_domain(core: str) -> bool:
    m = _DOMAIN.match(core)
    return m is not None and m.group("tld").lower() in TLDS and not core[0].isdigit()


def is_file_name(core: str) -> bool:
    m = _FILE.match(core)
    return m is not None and m.group("ext").lower() in FILE_EXTENSIONS


def _piece(piece: str, words: NumberWords, *, file: bool = False) -> str:
    if piece.isdigit() and file and re.match(r"^(?:19|20)\d\d$", piece):
        return words.year(int(piece))  # "invoice_2024.pdf": a year in a file name
    if piece.isdigit():
        return words.digits(piece)
    if piece in _SYMBOLS:
        return _SYMBOLS[piece]
    if not piece.isalpha():
        return ""
    low = piece.lower()
    if low == "www":
        return "w w w"
    if low in _SAID:
        return low
    if len(piece) > 1 and (_VOWEL.search(piece) is None or (piece.isupper() and len(piece) <= 3)):
        return words.letters(piece)
    if len(piece) == 1:
        return words.letters(piece)
    return piece


def read_address(core: str, words: NumberWords) -> str:
    """An e-mail, URL, domain or file name as dictated; the scheme and a final slash are left out."""
    core = _SCHEME.sub("", core)
    if core.startswith("mailto:"):
        core = core[len("mailto:") :]
    core = core.rstrip("/")
    file = is_file_name(core) and "@" not in core and not is_domain(core)
    out = [_piece(p, words, file=file) for p in _PIECE.findall(core)]
    return " ".join(p for p in out if p)


def read_tag(core: str, words: NumberWords) -> str:
    """ "@warmline_ai" -> "at warmline underscore ai"; "#VoiceAI" -> "hashtag Voice AI"."""
    head = "at" if core[0] == "@" else "hashtag"
    body = core[1:]
    parts = re.findall(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|\d+|_", body)
    spoken = []
    for p in parts:
        if p == "_":
            spoken.append("underscore")
        elif p.isdigit():
            spoken.append(words.number(p) if len(p) <= 4 else words.digits(p))
        elif p.isupper() and len(p) <= 4:
            spoken.append(words.letters(p))
        else:
            spoken.append(p)
    return " ".join([head, *spoken])
