"""What the user or the LLM decided about a word: lexicon entries and inline tags, said as asked.

Each written token a lexicon entry or a tag covers gets a fixed spoken form that the reader does
not second-guess; ``PHONEME_MARKUP`` is how a model that takes phonemes is given them (misaki's
``[word](/phonemes/)``, which hibari reads).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tts_service.engine.reading import timedate as td
from tts_service.engine.reading.english import split_token
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.reading.tags import Tagged, placeholder_index
from tts_service.engine.reading.words import NumberWords

__all__ = ["PHONEME_MARKUP", "fixed_readings"]

PHONEME_MARKUP = "[{word}](/{phonemes}/)"


def _say_as(kind: str, body: str, w: NumberWords, read_plain: Callable[[str], str]) -> str:
    digits = re.sub(r"\D", "", body)
    kind = kind.lower()
    if kind in ("characters", "spell-out", "verbatim"):
        return " ".join(w.digits(c) if c.isdigit() else w.letters(c) for c in body if c.isalnum())
    if kind == "digits" and digits:
        return w.digits(digits)
    if kind == "telephone" and digits:
        groups = re.findall(r"\d+", body)
        return ("plus " if body.lstrip().startswith("+") else "") + ", ".join(w.digits(g) for g in groups)
    if kind == "cardinal" and re.fullmatch(r"[-−]?\d[\d,]*(?:\.\d+)?", body):
        return w.number(body.replace(",", ""))
    if kind == "ordinal" and digits:
        return w.ordinal(int(digits))
    if kind == "date":
        said = td.iso_date(body, w) or td.numeric_date(body, w)
        if said is not None:
            return said
    if kind == "time":
        said = td.read_time(body.replace(" ", ""), w)
        if said is not None:
            return said
    return read_plain(body)


def fixed_readings(
    tokens: Sequence[str],
    *,
    lexicon: Lexicon | None,
    tagged: Sequence[Tagged],
    words: NumberWords,
    phonemes_ok: bool,
    read_plain: Callable[[str], str],
) -> dict[int, str]:
    """Token index -> its spoken form, for tokens covered by a tag placeholder or a lexicon entry."""
    fixed: dict[int, str] = {}
    for i, token in enumerate(tokens):
        index = placeholder_index(token)
        if index is not None and index < len(tagged):
            tag = tagged[index]
            if tag.kind == "say-as":
                fixed[i] = _say_as(tag.value, tag.written, words, read_plain)
            elif tag.kind == "sub":
                fixed[i] = tag.value or read_plain(tag.written)
            elif tag.kind == "phoneme":
                one_word = len(tag.written.split()) == 1
                ok = phonemes_ok and one_word and tag.value and " " not in tag.value
                fixed[i] = (
                    PHONEME_MARKUP.format(word=tag.written, phonemes=tag.value)
                    if ok
                    else read_plain(tag.written)
                )
            else:
                fixed[i] = ""  # a break: its pause goes onto the word before it
            continue
        if lexicon:
            lead, core, trail = split_token(token)
            hit = lexicon.lookup(core)
            if hit is not None:
                kind, said = hit
                if kind == "phonemes":
                    said = PHONEME_MARKUP.format(word=core, phonemes=said) if phonemes_ok else core
                fixed[i] = lead + said + trail
    return fixed
