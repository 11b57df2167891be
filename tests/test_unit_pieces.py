"""A turn's first unit from a ``StreamingUnitBackend`` comes in pieces (toy tones, no model): the
frames and marks are those of the unit made whole, the first frame needs only the first piece,
and pause, barge-in and a failing piece behave as for whole units."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import events_of, frames_of, pump, words_of
from toy_backends import PiecesToneBackend, ToneBackend

from tts_service.engine.clock import FakeClock
from tts_service.engine.jobs import PieceJob, UnitJob
from tts_service.engine.ports import StreamingUnitBackend, UnitBackend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, ErrorEvent, Output, SampleFormat, SpeechFrame

TEXT = "Hello there, the second sentence follows."


def run(backend: UnitBackend, rate: int = 24000, text: str = TEXT) -> list[Output]:
    s = EngineSession(
        backend, SessionConfig(sample_rate=rate, sample_format=SampleFormat.FLOAT32), clock=FakeClock()
    )
    s.start(text)
    s.flush()
    return pump(s)


def audio_of(out: list[Output]) -> np.ndarray:
    return np.concatenate([f.samples for f in frames_of(out)])


def test_the_toy_is_a_streaming_backend_and_the_plain_one_is_not() -> None:
    assert isinstance(PiecesToneBackend(), StreamingUnitBackend)
    assert not isinstance(ToneBackend(), StreamingUnitBackend)


@pytest.mark.parametrize("size", [1000, 4800, 100_000])
def test_pieces_give_the_frames_and_marks_of_the_whole_unit(size: int) -> None:
    """At the model's rate the frames are the whole unit's sample for sample, and every word is
    marked at the same sample, whatever the pieces' size."""
    whole = run(ToneBackend())
    backend = PiecesToneBackend(size=size)
    pieces = run(backend)
    assert len(backend.opened) == 1 and backend.opened[0].done  # the first unit only, all pulled
    np.testing.assert_array_equal(audio_of(pieces), audio_of(whole))
    assert [(w.word, w.start_sample) for f in frames_of(pieces) for w in f.words] == [
        (w.word, w.start_sample) for f in frames_of(whole) for w in f.words
    ]
    assert isinstance(events_of(pieces)[-1], Done)


def test_resampled_pieces_match_the_whole_unit_resampled() -> None:
    """At another rate the stream resampler gives the same audio (to float rounding) and marks."""
    whole, pieces = run(ToneBackend(), rate=8000), run(PiecesToneBackend(size=3000), rate=8000)
    a, b = audio_of(whole), audio_of(pieces)
    assert len(a) == len(b)
    assert float(np.max(np.abs(a - b))) < 1e-4
    assert words_of(pieces) == words_of(whole) == TEXT.split()


def test_the_first_frame_needs_only_the_first_piece() -> None:
    backend = PiecesToneBackend()
    s = EngineSession(backend, SessionConfig(sample_rate=24000), clock=FakeClock())
    s.start(TEXT)
    s.flush()
    job = s.next_job()
    assert isinstance(job, UnitJob) and job.streamed
    s.complete(job.run())
    assert isinstance(s.next_output(), SpeechFrame)
    assert backend.opened[0].pulled == 0
    assert isinstance(s.next_job(), PieceJob)


def test_a_failing_piece_ends_the_unit_and_the_turn_goes_on() -> None:
    """A piece that raises is reported; the unit ends where its audio got to, on a frame edge,
    and the next unit and ``Done`` follow."""
    out = run(PiecesToneBackend(size=2400, fail_at=2))
    errors = [e for e in events_of(out) if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and "decoder" in errors[0].message
    assert "follows." in words_of(out)
    assert isinstance(events_of(out)[-1], Done)


def test_a_barge_in_drops_the_pieces_still_to_come() -> None:
    backend = PiecesToneBackend(size=2400)
    s = EngineSession(backend, SessionConfig(sample_rate=24000), clock=FakeClock())
    s.start(TEXT)
    job = s.next_job()
    assert job is not None
    s.complete(job.run())
    s.drain()
    s.pause()
    assert s.next_job() is None
    s.inject("Okay then.")
    s.flush()
    out = pump(s)
    assert words_of(out) == ["Okay", "then."]
    assert backend.opened[0].pulled == 0
    assert len(backend.opened) == 2  # the new answer's first unit comes in pieces too
