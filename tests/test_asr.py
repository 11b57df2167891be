"""The test recognizer hears hibari's speech and rejects what is not speech."""

from __future__ import annotations

import numpy as np
import pytest
from asr import DISTRACTORS, normalize, recognize
from hibari import Hibari

SENTENCE = "Please send the blue folder to the front desk."
SENTENCE_WORDS = "please send the blue folder to the front desk"


@pytest.fixture(scope="module")
def sentence_audio() -> np.ndarray:
    return np.asarray(Hibari()(SENTENCE, seed=7), np.float32)


def test_hibari_sentence_is_recognised_among_distractors(sentence_audio: np.ndarray) -> None:
    """hibari's own audio of a sentence is recognised as that sentence, not a distractor."""
    assert recognize(sentence_audio, 24000, [SENTENCE_WORDS, *DISTRACTORS]) == SENTENCE_WORDS


def test_distractor_speech_is_not_taken_for_the_sentence() -> None:
    """Audio of a distractor sentence is recognised as that distractor."""
    audio = np.asarray(Hibari()("Thank you for calling.", seed=1), np.float32)
    assert recognize(audio, 24000, [SENTENCE_WORDS, *DISTRACTORS]) == "thank you for calling"


@pytest.mark.parametrize("kind", ["silence", "noise"])
def test_silence_and_noise_are_not_the_sentence(kind: str) -> None:
    """Two seconds of silence or white noise are not recognised as the sentence."""
    rng = np.random.default_rng(0)
    audio = np.zeros(48000, np.float32) if kind == "silence" else 0.2 * rng.standard_normal(48000)
    assert recognize(audio.astype(np.float32), 24000, [SENTENCE_WORDS, *DISTRACTORS]) != SENTENCE_WORDS


def test_normalize_strips_punctuation_and_case() -> None:
    """Sentences are compared as lowercase words without punctuation; apostrophes stay inside words."""
    assert normalize("Don't SHOUT, please!") == ("don't", "shout", "please")


def test_digits_must_be_spelled_out() -> None:
    """A grammar sentence with digits is refused: the caller writes numbers as words."""
    with pytest.raises(ValueError, match="numbers as words"):
        normalize("call me at 5")


def test_unknown_word_is_a_clear_error() -> None:
    """A word missing from pocketsphinx's dictionary raises ValueError naming it."""
    with pytest.raises(ValueError, match="zorblaxian"):
        recognize(np.zeros(16000, np.float32), 16000, ["the zorblaxian fleet", *DISTRACTORS])
