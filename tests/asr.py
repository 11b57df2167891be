"""The recognizer tests use to judge real audio: pocketsphinx with a closed grammar.

``recognize`` answers "which of these sentences was said, if any?", which is what a test of
synthesized speech needs: an open-vocabulary recognizer is too weak to be a fair judge of a tiny
TTS, while a closed grammar with plausible distractors still fails audio that says something else
or nothing. Pass ``DISTRACTORS`` along with the sentence under test.

This module never decides pass or fail itself and never reads wall-clock time.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
import soxr
from pocketsphinx import Decoder

#: pocketsphinx's bundled English model is trained on 16 kHz speech
ASR_SAMPLE_RATE = 16000

#: Plausible call-centre sentences every test grammar should include, so that recognising the
#: sentence under test is a choice among several rather than the only path through the grammar.
DISTRACTORS: tuple[str, ...] = (
    "the quick brown fox jumps over the lazy dog",
    "please call me back tomorrow morning",
    "i would like to book a table for two",
    "what time does the train leave",
    "the weather is lovely today",
    "can you hear me now",
    "thank you for calling",
    "my name is john and i live in london",
)

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def normalize(sentence: str) -> tuple[str, ...]:
    """Lowercase words without punctuation; raises ValueError on digits (spell numbers out)."""
    if any(c.isdigit() for c in sentence):
        raise ValueError(f"write numbers as words for the recognizer: {sentence!r}")
    words = tuple(_WORD.findall(sentence.lower()))
    if not words:
        raise ValueError(f"no words to recognize in {sentence!r}")
    return words


def heard(sentence: str) -> str:
    """``sentence`` as ``recognize`` spells it: lowercase words, apostrophes kept, nothing else."""
    return " ".join(re.findall(r"[a-z']+", sentence.lower()))


def recognize(
    samples: npt.NDArray[np.float32] | npt.NDArray[np.int16], sample_rate: int, sentences: Iterable[str]
) -> str | None:
    """The sentence of ``sentences`` (normalized) heard in ``samples``, or None if none was.

    ``samples`` is float in [-1, 1] or int16 PCM. Raises ValueError if a word is missing from
    pocketsphinx's dictionary.
    """
    grammar = tuple(sorted({" ".join(normalize(s)) for s in sentences}))
    decoder = _decoder(grammar)
    if np.asarray(samples).dtype == np.int16:
        audio = np.asarray(samples, np.float32) / 32768.0
    else:
        audio = np.asarray(samples, np.float32)
    if sample_rate != ASR_SAMPLE_RATE:
        audio = soxr.resample(audio, sample_rate, ASR_SAMPLE_RATE)
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")
    decoder.start_utt()
    decoder.process_raw(pcm.tobytes(), full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    text = None if hyp is None else str(hyp.hypstr).strip()
    return text or None


@functools.lru_cache(maxsize=32)
def _decoder(grammar: tuple[str, ...]) -> Any:
    """A decoder whose only search is the closed grammar of ``grammar``'s sentences."""
    decoder = Decoder(lm=None, logfn="/dev/null")
    missing = sorted({w for s in grammar for w in s.split() if decoder.lookup_word(w) is None})
    if missing:
        raise ValueError(f"not in pocketsphinx's dictionary: {', '.join(missing)}")
    jsgf = "#JSGF V1.0;\ngrammar warmline;\npublic <utterance> = " + " | ".join(grammar) + ";\n"
    decoder.add_jsgf_string("warmline", jsgf)
    decoder.activate_search("warmline")
    return decoder
