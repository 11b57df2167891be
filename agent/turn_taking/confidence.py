"""How far a transcript's words can be trusted: the recognizer's own confidence, carried with them.

    heard = Heard.of([("we", 0.91), ("are", 0.88), ("looking", 0.7), ("for", 0.12)], duration_s=0.9)
    heard.last_confidence            # 0.12: the word the turn-end cues read is a guess
    heard.trusted(TRUST)             # False: decide on the audio and the pause instead

On 8 kHz phone audio pocketsphinx's general model gets a third to two thirds of the words wrong
(``benchmarks/stt_bench.py``), and a wrong last word decides a turn end ("for" heard as "four",
"near the" as "when"). The recognizer knows when it is guessing: each word's posterior
probability in the utterance's lattice is low where the acoustics matched several words. The
STT puts a ``Heard`` on each final ``TranscriptionFrame`` (``frame.result``); the turn end and the
barge-in read it, and take the words' cues only as far as they are trustworthy. A transcript
without one (an STT that reports no confidence, or an interim hypothesis) counts as ``unknown``:
the cues then act as they always did, since nothing says the words are wrong.

Pure values; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: the word posterior from which a word is taken as heard (``Heard.trusted``), chosen on the tuned
#: callers with pocketsphinx (``benchmarks/stt_bench.py``): 13 of their 23 utterances are trusted
#: at it, and every one of those had its last word right (at 0.4, 17 and 16). With whisper tiny.en
#: (the default) 21 of 23 are trusted, all 21 with the last word right; on the wide callers, which
#: it was not chosen on, 26 of 30, 22 of those with the last word right (pocketsphinx: 4, 2)
TRUST = 0.5


@dataclass(frozen=True, slots=True)
class Heard:
    """One final transcript's words, each with its posterior in [0, 1], and the speech's length."""

    words: tuple[tuple[str, float], ...] = ()
    #: the audio the recognizer decoded for it (the VAD's segment, pre-roll included)
    duration_s: float = 0.0
    #: the recognizer's probability that the last word is one a sentence cannot end on
    #: (``cues.unfinished``), weighing every word it considered in that place, not only the one
    #: it wrote: "a table near the" written "a table near them" still gave "the" its share. 0 from
    #: a recognizer that does not say
    unfinished: float = 0.0
    #: the recognizer writes fluent words where it could not hear (a decoder with a language
    #: model: whisper), so words it does not trust are a guess, and so is their number; a
    #: pocketsphinx lattice's words follow the audio's syllables even where they are wrong
    fluent: bool = False
    #: the recognizer's probability that the utterance ends after its last word, weighed by its
    #: own decoder on the audio and the words so far (whisper: the full stop, question or
    #: exclamation mark it would write there, against "...", a comma or another word); None from a
    #: recognizer that does not say. A caller who stops to think keeps the pitch of a sentence
    #: that goes on, and whisper hears it: it writes "I have a friend who..." and "The children are"
    ends: float | None = None
    #: how long the voice runs on after the last word the recognizer wrote ends (its word
    #: timestamps against the audio's level): a word it left out. None from a recognizer that
    #: does not say
    unheard_s: float | None = None

    @classmethod
    def of(
        cls,
        words: Iterable[tuple[str, float]],
        *,
        duration_s: float = 0.0,
        unfinished: float = 0.0,
        fluent: bool = False,
        ends: float | None = None,
        unheard_s: float | None = None,
    ) -> Heard:
        ps = tuple((w, _probability(p)) for w, p in words)
        scored = None if ends is None else _probability(ends)
        return cls(ps, duration_s, _probability(unfinished), fluent, scored, unheard_s)

    @property
    def text(self) -> str:
        return " ".join(w for w, _ in self.words)

    @property
    def last_confidence(self) -> float:
        """The last word's posterior (0 with no words): the word an ending's cue hinges on."""
        return self.words[-1][1] if self.words else 0.0

    @property
    def mean_confidence(self) -> float:
        """The words' mean posterior (0 with no words)."""
        return sum(p for _, p in self.words) / len(self.words) if self.words else 0.0

    def trusted(self, threshold: float = TRUST) -> bool:
        """Whether the words are more likely right than wrong where it matters: the last word, and
        the words as a whole."""
        return bool(self.words) and min(self.last_confidence, self.mean_confidence) >= threshold


def _probability(p: float) -> float:
    return min(1.0, max(0.0, float(p)))


def confidence_of(result: object) -> Heard | None:
    """The ``Heard`` a transcript frame's ``result`` carries, if its STT put one there."""
    return result if isinstance(result, Heard) else None


__all__ = ["TRUST", "Heard", "confidence_of"]
