"""Hostile text through a whole engine session: what reaches the model is bounded, and spoken.

The probe of issue 30: runs of a letter and a combining accent, unspaced capitals and long digit
runs, each inside the per-turn character limit, made memory and audio grow with the characters
(or failed a unit). Every unit the model is given now has at most ``max_unit_chars`` characters
and no word of more than ``MAX_WORD_GRAPHEMES`` clusters, and long digit runs are read.
"""

from __future__ import annotations

import pytest
from engine_helpers import events_of, frames_of, pump
from toy_backends import ToneBackend

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.graphemes import count
from tts_service.engine.runs import MAX_WORD_GRAPHEMES
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, ErrorEvent

MAX_UNIT_CHARS = 280  # the segmenter's default, which sessions use

HOSTILE = {
    "combining": "e\u0301" * 5000,
    "capitals": "ABC" * 3333,
    "digits": "7" * 10_000,
    "zalgo": "h" + "\u0301" * 9999,
    "long word": "supercalifragilistic" * 500,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_unit_of_a_hostile_text_is_bounded(name: str) -> None:
    """10,000 characters without a space reach the model in units of at most max_unit_chars
    clusters (besides the spaces and commas that group digits and cut words), their words at most
    MAX_WORD_GRAPHEMES clusters, and the turn ends with Done."""
    backend = ToneBackend()
    session = EngineSession(backend, SessionConfig(seed=0, max_text_chars=10_000))
    session.start(HOSTILE[name])
    session.flush()
    out = pump(session)
    assert isinstance(out[-1], Done)
    assert backend.calls
    assert all(count(text.replace(", ", "").replace(" ", "")) <= MAX_UNIT_CHARS for text in backend.calls)
    assert all(count(word) <= MAX_WORD_GRAPHEMES for text in backend.calls for word in text.split())


@pytest.mark.parametrize("digits", [36, 39, 60])
def test_a_long_digit_run_is_spoken_in_groups(hibari_backend: HibariBackend, digits: int) -> None:
    """Row 8: a run of 39 or more identical digits failed its unit (list index out of range in
    hibari's number words). It is read digit by digit in groups of four, and spoken."""
    session = EngineSession(hibari_backend, SessionConfig(seed=0))
    session.start("Your reference is " + "1" * digits + ". Thank you.")
    session.flush()
    out = pump(session)
    assert not [e for e in events_of(out) if isinstance(e, ErrorEvent)]
    words = [w.word.strip(",.") for f in frames_of(out) for w in f.words]
    assert words.count("1") == digits and "Thank" in words
    seconds = sum(f.num_samples for f in frames_of(out)) / 24000
    assert seconds < 0.5 * digits  # single digits with a pause per group, not decillions
