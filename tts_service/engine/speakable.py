"""The stage between the segmenter and the producers: units as written in, units as read out.

    stage = SpeakableStage(backend.capabilities)
    for unit in stage.take(segmenter.units_ready()):   # cleaned, spoken forms, code left out
        producer.add(unit)

Per unit, in order: a fenced code block (```` ``` ```` or ``~~~`` lines) is tracked across units,
since units arrive a line at a time, and everything inside it is left out (code is shown to
readers, never read to callers); markdown, emoji and speaker tags are cleaned
(``textclean.clean_for_speech``; tags are kept for models that speak them); a unit with nothing
speakable left is dropped; combining marks are folded (``graphemes.fold_marks``); the unit is read
as a person would (``reading.read``: numbers, money, times, dates, phone numbers, e-mails, codes...
become words) for every backend, and the unit keeps each written token with its count of spoken
words so marks can name what was written; last, words too long for a model are cut in pieces
(``runs.cut_long_words``, the counts following). In a language without a reader, numbers too long
to be quantities are read in digit groups (``runs.group_long_numbers``). With the segmenter's bound
on a unit, what one unit gives the model is bounded however hostile the text. A reader that fails
on a unit (a bug: text nobody foresaw) never loses the turn: the failure is logged with the unit,
and the unit goes to the model as written (tags and lexicon still applied), as in a language
without a reader.

Synchronous and pure but for the code-block flag and that log line; never reads a clock, never
runs the model.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace

from tts_service.engine.graphemes import fold_marks
from tts_service.engine.ports import Capabilities
from tts_service.engine.reading import LANGUAGES, Reading, read
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.reading.tags import extract
from tts_service.engine.runs import cut_long_words, group_long_numbers
from tts_service.engine.segmenter import Boundary, Unit
from tts_service.engine.textclean import clean_for_speech, has_speakable

log = logging.getLogger("warmline.engine")

_FENCES = ("```", "~~~")
#: how many of the sentence's earlier words the next unit is read after: the last three are its
#: first token's neighbours ("Friday, | 7/10"), the rest say what the sentence is about ("gold ... | 14K")
_BEFORE_WORDS = 12
#: what a unit is read as when the reader fails on it: a language with no reader (as written)
_AS_WRITTEN = "und"
#: a quote left open never reaches past these (an LLM that forgets to close one)
_SENTENCE_ENDS = frozenset([Boundary.SENTENCE, Boundary.PARAGRAPH, Boundary.FLUSH])


class SpeakableStage:
    """Turns segmenter units into the text a model should read; ``reset`` between answers."""

    def __init__(
        self, capabilities: Capabilities, *, language: str = "en", lexicon: Lexicon | None = None
    ) -> None:
        self._keep_speaker_tags = capabilities.speaker_tags
        self._phonemes_ok = bool(capabilities.phoneme_symbols)
        self._language = _primary(language)
        self._lexicon = lexicon or Lexicon()
        self._in_code_block = False
        self._quote_open = False  # a double quote opened in an earlier unit of this sentence
        self._before: tuple[str, ...] = ()  # the last words of the earlier units of this sentence

    def set_reading(self, *, language: str, lexicon: Lexicon) -> None:
        """Read the next units in ``language`` with ``lexicon`` (between turns)."""
        self._language = _primary(language)
        self._lexicon = lexicon

    @property
    def in_code_block(self) -> bool:
        """True between an opening fence and its closing one."""
        return self._in_code_block

    def take(self, units: Iterable[Unit]) -> list[Unit]:
        """The speakable units among ``units``, in order, their text as the model should read it."""
        out: list[Unit] = []
        for unit in units:
            if unit.text.lstrip().startswith(_FENCES):
                self._in_code_block = not self._in_code_block
                continue
            if self._in_code_block:
                continue
            text, tagged = extract(unit.text)
            spoken = clean_for_speech(text, keep_speaker_tags=self._keep_speaker_tags)
            if not has_speakable(spoken):
                continue
            spoken = fold_marks(spoken)
            if self._language not in LANGUAGES:
                spoken = group_long_numbers(spoken)
            try:
                reading = read(
                    spoken, self._language, lexicon=self._lexicon, tagged=tagged,
                    phonemes_ok=self._phonemes_ok, quote_open=self._quote_open, before=self._before,
                )  # fmt: skip
            except Exception:  # a reader bug must not cost the caller the turn
                log.exception("the %s reader failed on %r: read as written", self._language, spoken)
                spoken = group_long_numbers(spoken)
                reading = read(
                    spoken, _AS_WRITTEN, lexicon=self._lexicon, tagged=tagged, phonemes_ok=self._phonemes_ok
                )
            self._quote_open = reading.quote_open and unit.boundary not in _SENTENCE_ENDS
            ended = unit.boundary in _SENTENCE_ENDS
            self._before = () if ended else (*self._before, *spoken.split())[-_BEFORE_WORDS:]
            if not reading.text:
                continue
            text, counts = _cut_long_words(reading)
            written = tuple(zip(reading.written, counts, strict=True))
            out.append(replace(unit, text=text, written=written))
        return out

    def reset(self) -> None:
        """A new answer (or the rest of one dropped): outside any code block again."""
        self._in_code_block = False
        self._quote_open = False
        self._before = ()


def _primary(language: str) -> str:
    """The reader's name for a BCP 47 language: its primary subtag ("en-US", "en_gb" -> "en")."""
    return language.strip().replace("_", "-").split("-")[0].lower()


def _cut_long_words(reading: Reading) -> tuple[str, tuple[int, ...]]:
    """The reading's text with every word too long for a model in pieces, and each written token's
    count of spoken words grown by the pieces its words were cut into."""
    words = reading.text.split()
    cut = [cut_long_words(word).split() for word in words]
    if all(len(pieces) == 1 for pieces in cut):
        return reading.text, reading.counts
    counts: list[int] = []
    start = 0
    for count in reading.counts:
        counts.append(sum(len(pieces) for pieces in cut[start : start + count]))
        start += count
    return " ".join(piece for pieces in cut for piece in pieces), tuple(counts)


__all__ = ["SpeakableStage"]
