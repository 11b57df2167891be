"""The reading stage: written text in, the words a person would say out, aligned token by token.

    reading = read("Call 415-555-0188 by 5pm.")
    reading.text       # "Call four one five, five five five, zero one eight eight by five PM."
    reading.written    # ("Call", "415-555-0188", "by", "5pm.")
    reading.counts     # spoken words per written token: (1, 10, 1, 2)

Pure, synchronous and deterministic; one unit at a time, so a unit reads the same however its
tokens were split. A lexicon and inline tags (``tags.extract``) fix the reading of the words they
cover. ``marks.to_written`` turns the model's marks on spoken words back into marks on the
written tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tts_service.engine.reading.english import read_tokens, read_unit_tokens
from tts_service.engine.reading.general import general_reader
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.reading.overrides import fixed_readings
from tts_service.engine.reading.tags import Tagged, placeholder_index
from tts_service.engine.reading.words import NumberWords

__all__ = ["LANGUAGES", "Reading", "read"]

#: languages with a full reader; the others num2words knows have their plain numbers read
#: (``general``), the rest pass through unchanged (lexicon and tags still apply)
LANGUAGES = ("en",)
_WORDS = {"en": NumberWords("en")}
_PAUSES = ",.;:!?…"


@dataclass(frozen=True, slots=True)
class Reading:
    """One unit read: the spoken text and, per written token, how many spoken words it became."""

    text: str
    written: tuple[str, ...]
    counts: tuple[int, ...]
    #: a double quote is left open at the unit's end (pass it to the next unit of the sentence)
    quote_open: bool = False


def read(
    text: str,
    language: str = "en",
    *,
    lexicon: Lexicon | None = None,
    tagged: Sequence[Tagged] = (),
    phonemes_ok: bool = False,
    quote_open: bool = False,
    before: Sequence[str] = (),
) -> Reading:
    """Read ``text`` (one unit, cleaned; tags already replaced by ``tags.extract``'s placeholders).

    ``phonemes_ok``: the model takes phonemes (``overrides.PHONEME_MARKUP``); otherwise phoneme
    entries and tags read the word as written. ``quote_open``: an earlier unit of the sentence
    left a double quote open (the previous unit's ``Reading.quote_open``), so a ``"`` after a
    number closes it ('"Iowa St 74, Texas A&M 50".') instead of meaning inches.
    """
    written = text.split()
    words = _WORDS.get(language)

    def read_plain(part: str) -> str:
        tokens = part.split()
        if words:
            return " ".join(s for s in read_tokens(tokens, words) if s)
        general = general_reader(language)
        return " ".join(s for s in (general.read(tokens) if general else tokens) if s)

    fixed = fixed_readings(
        written, lexicon=lexicon, tagged=tagged, words=words or _WORDS["en"], phonemes_ok=phonemes_ok,
        read_plain=read_plain,
    )  # fmt: skip
    if words:
        spoken, quote_open = read_unit_tokens(written, words, fixed, quote_open, before)
    else:
        general = general_reader(language)
        plain = general.read(written) if general else written
        spoken = [fixed.get(i, t) for i, t in enumerate(plain)]
    shown = list(written)
    for i, token in enumerate(written):
        index = placeholder_index(token)
        if index is None or index >= len(tagged):
            continue
        tag = tagged[index]
        shown[i] = tag.written
        if tag.kind == "break":  # the pause goes onto the spoken word before it
            said_last = next((k for k in range(i - 1, -1, -1) if spoken[k]), None)
            if said_last is not None and spoken[said_last][-1] not in _PAUSES:
                spoken[said_last] += tag.value
    keep = [i for i in range(len(written)) if shown[i]]
    counts = tuple(len(spoken[i].split()) for i in keep)
    return Reading(" ".join(s for s in spoken if s), tuple(shown[i] for i in keep), counts, quote_open)
