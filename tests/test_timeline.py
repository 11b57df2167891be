"""The turn timeline: whole frames, pause fade frames, listener versus content positions."""

from __future__ import annotations

import numpy as np

from tts_service.engine.timeline import AudioChunk, Timeline
from tts_service.engine.types import SampleFormat, WordMark


def _timeline() -> Timeline:
    return Timeline(1, 8000, SampleFormat.FLOAT32)


def test_only_whole_frames_unless_the_turn_ends() -> None:
    """A partial frame waits; allow_partial pads it with silence to exactly 80 ms."""
    t = _timeline()
    t.place(AudioChunk(np.ones(1000, np.float32)))
    a = t.pop_frame()
    assert a is not None and a.num_samples == 640
    assert t.pop_frame() is None
    b = t.pop_frame(allow_partial=True)
    assert b is not None and b.num_samples == 640 and b.samples[359] == 1 and b.samples[360] == 0
    assert t.pop_frame(allow_partial=True) is None


def test_a_chunk_is_placed_with_its_silences_and_a_unit_keeps_its_span() -> None:
    """Lead silence, audio (its words placed after the lead), tail silence; a unit's span is kept."""
    t = _timeline()
    t.place(
        AudioChunk(np.ones(700, np.float32), (WordMark("w", 0, 700),), lead_silence=100, tail_silence=480)
    )
    t.place(AudioChunk(np.ones(640, np.float32)))
    assert t.pending_samples == 1920 and t.unit_spans == ()
    t.place(AudioChunk(np.ones(10, np.float32), unit=True))
    assert t.unit_spans == ((1920, 1930),)
    first = t.pop_frame()
    assert first is not None and first.samples[99] == 0 and first.samples[100] == 1
    assert [(w.word, w.start_sample) for w in first.words] == [("w", 100)]


def test_fade_frame_does_not_consume_content_and_shifts_marks() -> None:
    """The pause frame fades then is silent; content resumes at the cut; marks move by one frame."""
    t = _timeline()
    t.place(AudioChunk(np.ones(640 * 3, np.float32), (WordMark("a", 0, 100), WordMark("b", 700, 900))))
    first = t.pop_frame()
    assert first is not None and [w.word for w in first.words] == ["a"]
    fade = t.pop_fade_frame()
    assert fade is not None and fade.last_in_pause and fade.words == ()
    assert fade.samples[0] > 0.9 and np.all(fade.samples[80:] == 0)
    t.fade_in_remainder()
    resumed = t.pop_frame()
    assert resumed is not None and resumed.sample_offset == 1280
    assert resumed.samples[0] < 0.01
    assert [(w.word, w.start_sample) for w in resumed.words] == [("b", 700 + 640)]
    assert t.spoken_text == "a b"


def test_discard_drops_unheard_audio_and_words() -> None:
    """discard_pending forgets audio and marks that were never handed out."""
    t = _timeline()
    t.place(AudioChunk(np.ones(640 * 2, np.float32), (WordMark("x", 10, 20), WordMark("y", 700, 800))))
    t.pop_frame()
    t.discard_pending()
    assert t.pending_samples == 0 and t.pop_frame(allow_partial=True) is None
    assert t.spoken_text == "x"
