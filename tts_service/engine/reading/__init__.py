"""The reading stage: written text in, the words a person would say out, aligned token by token.

    reading = read("Call 415-555-0188 by 5pm.")
    reading.text       # "Call four one five, five five five, zero one eight eight by five PM."
    reading.written    # ("Call", "415-555-0188", "by", "5pm.")
    reading.counts     # spoken words per written token: (1, 11, 1, 2)

Pure, synchronous and deterministic; one unit at a time, so a unit reads the same however its
tokens were split. ``marks.to_written`` turns the model's marks on spoken words back into marks
on the written tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from tts_service.engine.reading.english import read_tokens
from tts_service.engine.reading.words import NumberWords

__all__ = ["LANGUAGES", "Reading", "read"]

#: languages with a reader; others pass through unchanged
LANGUAGES = ("en",)
_WORDS = {"en": NumberWords("en")}


@dataclass(frozen=True, slots=True)
class Reading:
    """One unit read: the spoken text and, per written token, how many spoken words it became."""

    text: str
    written: tuple[str, ...]
    counts: tuple[int, ...]


def read(text: str, language: str = "en") -> Reading:
    """Read ``text`` (one unit, cleaned) in ``language``; unknown languages pass through."""
    written = text.split()
    if language not in _WORDS:
        return Reading(" ".join(written), tuple(written), tuple(1 for _ in written))
    spoken = read_tokens(written, _WORDS[language])
    counts = tuple(len(s.split()) for s in spoken)
    return Reading(" ".join(s for s in spoken if s), tuple(written), counts)
