"""Hostile text through a whole engine session: what reaches the model is bounded, and spoken.

The probe of issue 30: runs of a letter and a combining accent, unspaced capitals and long digit
runs, each inside the per-turn character limit, made memory and audio grow with the characters
(or failed a unit). Every unit the model is given now has at most ``max_unit_chars`` characters
and no word of more than ``MAX_WORD_GRAPHEMES`` clusters, and long digit runs are read; a turn
makes at most ``max_turn_audio_s`` of audio (and one unit), then reports ``audio_too_long``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import events_of, frames_of, pump
from toy_backends import ToneBackend, ToyFrameBackend

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.graphemes import count
from tts_service.engine.ports import Backend
from tts_service.engine.runs import MAX_WORD_GRAPHEMES
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, ErrorEvent, Output
from tts_service.errors import AudioTooLongError, InvalidInputError

MAX_UNIT_CHARS = 280  # the segmenter's default, which sessions use

HOSTILE = {
    "combining": "e\u0301" * 5000,
    "capitals": "ABC" * 3333,
    "digits": "7" * 10_000,
    "zalgo": "h" + "\u0301" * 9999,
    "long word": "supercalifragilistic" * 500,
}


#: the most letters one written character is read as ("7" is "seven")
READ_GROWTH = 5


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_unit_of_a_hostile_text_is_bounded(name: str) -> None:
    """10,000 characters without a space reach the model in units of at most max_unit_chars
    clusters as written, read out at most READ_GROWTH times as long (besides the spaces and commas
    that group digits and cut words: a digit is read as a word of up to five letters), their words
    at most MAX_WORD_GRAPHEMES clusters, and the turn ends with Done."""
    backend = ToneBackend()
    session = EngineSession(backend, SessionConfig(seed=0, max_text_chars=10_000))
    session.start(HOSTILE[name])
    session.flush()
    out = pump(session)
    assert isinstance(out[-1], Done)
    assert backend.calls
    spoken = [count(text.replace(", ", "").replace(" ", "")) for text in backend.calls]
    assert max(spoken) <= READ_GROWTH * MAX_UNIT_CHARS
    assert all(count(word) <= MAX_WORD_GRAPHEMES for text in backend.calls for word in text.split())


@pytest.mark.parametrize("digits", [36, 39, 60])
def test_a_long_digit_run_is_spoken_in_groups(hibari_backend: HibariBackend, digits: int) -> None:
    """Row 8: a run of 39 or more identical digits failed its unit (list index out of range in
    hibari's number words). It is read digit by digit in groups of four, and spoken; its mark names
    the number as written."""
    session = EngineSession(hibari_backend, SessionConfig(seed=0))
    session.start("Your reference is " + "1" * digits + ". Thank you.")
    session.flush()
    out = pump(session)
    assert not [e for e in events_of(out) if isinstance(e, ErrorEvent)]
    words = [w.word.strip(",.") for f in frames_of(out) for w in f.words]
    assert "1" * digits in words and "Thank" in words
    seconds = sum(f.num_samples for f in frames_of(out)) / 24000
    assert seconds < 0.5 * digits  # single digits with a pause per group, not decillions


SENTENCE = "This sentence is one unit of a long answer that goes on. "


def seconds(out: list[Output], rate: int = 24000) -> float:
    return sum(f.num_samples for f in frames_of(out)) / rate


def errors_of(out: list[Output]) -> list[ErrorEvent]:
    return [e for e in events_of(out) if isinstance(e, ErrorEvent)]


@pytest.mark.parametrize("backend", [ToneBackend(), ToyFrameBackend()], ids=["unit", "frame"])
def test_a_turn_stops_at_its_audio_budget_with_audio_too_long(backend: Backend) -> None:
    """Past max_turn_audio_s no more of the turn is synthesized: one audio_too_long error, the
    audio made still plays, and the turn ends with Done; the next turn has a fresh budget."""
    session = EngineSession(backend, SessionConfig(seed=0, max_turn_audio_s=3.0))
    session.start(SENTENCE * 40)
    session.flush()
    out = pump(session)
    (error,) = errors_of(out)
    assert error.code == AudioTooLongError.code == "audio_too_long"
    assert "3 s" in error.message
    assert isinstance(out[-1], Done)
    assert 3.0 <= seconds(out) < 3.0 + 3.0  # the budget, and at most one unit (under 3 s) past it
    session.start(SENTENCE)
    session.flush()
    again = pump(session)
    assert not errors_of(again) and isinstance(again[-1], Done) and seconds(again) > 0.5


def test_text_injected_after_the_budget_is_spent_is_dropped() -> None:
    """A streamed turn that spent its budget drops what the LLM still sends, reporting it once."""
    backend = ToneBackend()
    session = EngineSession(backend, SessionConfig(seed=0, max_turn_audio_s=2.0))
    session.start(SENTENCE * 10)
    out = pump(session)
    assert len(errors_of(out)) == 1
    calls = len(backend.calls)
    session.inject(SENTENCE * 10)
    session.flush()
    rest = pump(session)
    assert len(backend.calls) == calls and not errors_of(rest) and isinstance(rest[-1], Done)


def test_a_turn_under_its_budget_is_whole() -> None:
    """A turn that ends at or before the budget is spoken whole, with no error."""
    backend = ToneBackend()
    session = EngineSession(backend, SessionConfig(seed=0, max_turn_audio_s=600.0))
    session.start(SENTENCE * 40)
    session.flush()
    out = pump(session)
    assert not errors_of(out) and len(backend.calls) == 40


@pytest.mark.parametrize("limit", [0.0, -1.0, float("nan")])
def test_the_budget_must_be_positive(limit: float) -> None:
    with pytest.raises(InvalidInputError, match="max_turn_audio_s"):
        EngineSession(ToneBackend(), SessionConfig(max_turn_audio_s=limit))


def test_hostile_capitals_on_hibari_stop_at_the_budget(hibari_backend: HibariBackend) -> None:
    """Row 1 on the real model: 10,000 unspaced capitals (spelled: 0.16 s a letter, 27 minutes)
    stop at the turn's budget, overshooting it by at most one unit."""
    session = EngineSession(hibari_backend, SessionConfig(seed=0, max_turn_audio_s=20.0))
    session.start(HOSTILE["capitals"])
    session.flush()
    out = pump(session)
    assert [e.code for e in errors_of(out)] == ["audio_too_long"]
    assert isinstance(out[-1], Done)
    assert 20.0 <= seconds(out) < 20.0 + 60.0  # one unit of 280 capitals is under a minute


MEMORY_PROBE = """
import threading
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.session import EngineSession, SessionConfig

def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS:"))

backend = HibariBackend()
backend.load()

def turn(text):
    session = EngineSession(backend, SessionConfig(seed=0, max_turn_audio_s=120.0))
    session.start(text)
    session.flush()
    while session.drain() or session.step():
        pass

turn("Warming up, with a sentence or two.")
readings = [rss_mb()]
for text in ["ABC" * 3333, "e\\u0301" * 5000, "ABC" * 3333]:
    worker = threading.Thread(target=turn, args=(text,))  # a worker thread, as the runtime's
    worker.start()
    worker.join()
    readings.append(rss_mb())
print(*readings)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc (Linux)")
def test_memory_goes_back_after_hostile_turns() -> None:
    """Row 1's memory: after three hostile turns on a worker thread, a fresh process's RSS is within
    60 MB of where it started (it kept 250 MB and grew with each turn while hibari's buffers
    came from glibc's heap), and it does not grow from turn to turn."""
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE], capture_output=True, text=True, check=True, timeout=600
    )
    base, *after = (int(x) for x in out.stdout.split())
    assert max(after) - base < 60, (base, after)
    assert after[-1] - after[0] < 20, (base, after)
