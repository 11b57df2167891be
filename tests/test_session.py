"""The engine session: state machine, framing, pause/resume, bad input (no threads, no sleeps)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from engine_helpers import events_of, frames_of, pump, pump_frames, words_of
from toy_backends import ToneBackend, ToyFrameBackend, ToyFrameState

from tts_service.engine.clock import FakeClock
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.types import (
    SUPPORTED_SAMPLE_RATES,
    Done,
    ErrorEvent,
    Paused,
    Reset,
    Resumed,
    SampleFormat,
    SpeechFrame,
    frame_samples,
)
from tts_service.errors import (
    InvalidInputError,
    InvalidSpeedError,
    InvalidStateError,
    SessionClosedError,
    TextTooLongError,
    UnknownVoiceError,
    UnsupportedSampleRateError,
)

TEXT = "Hello there, my friend. This is a longer sentence for the test. And a third one here."
WORDS = TEXT.split()


def make(
    backend: ToneBackend | ToyFrameBackend | None = None, clock: FakeClock | None = None, **config: object
) -> EngineSession:
    return EngineSession(
        backend or ToneBackend(),
        SessionConfig(**config),  # type: ignore[arg-type]
        clock=clock or FakeClock(),
    )


# -- every verb in every state --------------------------------------------------------------


def _in_state(state: SessionState) -> EngineSession:
    s = make()
    if state is SessionState.SPEAKING:
        s.start("Hello there, friend")
    elif state is SessionState.FLUSHING:
        s.start("Hello there, friend")
        s.flush()
    elif state is SessionState.PAUSED:
        s.start(TEXT)
        pump_frames(s, 2)
        s.pause()
    elif state is SessionState.CLOSED:
        s.close()
    assert s.state is state
    return s


VERBS: dict[str, Callable[[EngineSession], None]] = {
    "start": lambda s: s.start("New words here."),
    "inject": lambda s: s.inject(" more words"),
    "flush": lambda s: s.flush(),
    "pause": lambda s: s.pause(),
    "resume": lambda s: s.resume(),
    "release": lambda s: s.release(),
    "reset": lambda s: s.reset(),
    "close": lambda s: s.close(),
}

S = SessionState
# verb -> state before -> state after, or the exception raised (state then unchanged)
EXPECTED: dict[str, dict[SessionState, SessionState | type[Exception]]] = {
    "start": {
        S.IDLE: S.SPEAKING,
        S.SPEAKING: InvalidStateError,
        S.FLUSHING: InvalidStateError,
        S.PAUSED: S.SPEAKING,
        S.CLOSED: SessionClosedError,
    },
    "inject": {
        S.IDLE: S.SPEAKING,
        S.SPEAKING: S.SPEAKING,
        S.FLUSHING: InvalidStateError,
        S.PAUSED: S.SPEAKING,
        S.CLOSED: SessionClosedError,
    },
    "flush": {
        S.IDLE: InvalidStateError,
        S.SPEAKING: S.FLUSHING,
        S.FLUSHING: InvalidStateError,
        S.PAUSED: S.PAUSED,
        S.CLOSED: SessionClosedError,
    },
    "pause": {
        S.IDLE: InvalidStateError,
        S.SPEAKING: S.PAUSED,
        S.FLUSHING: S.PAUSED,
        S.PAUSED: InvalidStateError,
        S.CLOSED: SessionClosedError,
    },
    "resume": {
        S.IDLE: InvalidStateError,
        S.SPEAKING: InvalidStateError,
        S.FLUSHING: InvalidStateError,
        S.PAUSED: S.SPEAKING,
        S.CLOSED: SessionClosedError,
    },
    "release": {  # no turn here is held: see the held-turn tests
        S.IDLE: InvalidStateError,
        S.SPEAKING: InvalidStateError,
        S.FLUSHING: InvalidStateError,
        S.PAUSED: InvalidStateError,
        S.CLOSED: SessionClosedError,
    },
    "reset": {
        S.IDLE: S.IDLE,
        S.SPEAKING: S.IDLE,
        S.FLUSHING: S.IDLE,
        S.PAUSED: S.IDLE,
        S.CLOSED: SessionClosedError,
    },
    "close": {
        S.IDLE: S.CLOSED,
        S.SPEAKING: S.CLOSED,
        S.FLUSHING: S.CLOSED,
        S.PAUSED: S.CLOSED,
        S.CLOSED: S.CLOSED,
    },
}


@pytest.mark.parametrize("verb", list(VERBS))
@pytest.mark.parametrize("state", list(SessionState))
def test_every_verb_in_every_state(verb: str, state: SessionState) -> None:
    """Each verb moves each state where the table says, or raises the typed error and changes nothing."""
    s = _in_state(state)
    expected = EXPECTED[verb][state]
    if isinstance(expected, type):
        with pytest.raises(expected):
            VERBS[verb](s)
        assert s.state is state
    else:
        VERBS[verb](s)
        assert s.state is expected
    if s.state is not SessionState.CLOSED:  # the session still works afterwards
        if s.state in (S.SPEAKING, S.FLUSHING):
            s.pause()
        s.reset()
        s.start("Still working.")
        s.flush()
        assert isinstance(pump(s)[-1], Done)


# -- framing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", SUPPORTED_SAMPLE_RATES)
@pytest.mark.parametrize("fmt", list(SampleFormat))
def test_frames_are_exactly_80_ms_at_every_rate(rate: int, fmt: SampleFormat) -> None:
    """Every frame holds exactly 80 ms, numbered and offset contiguously, ending in Done."""
    s = make(sample_rate=rate, sample_format=fmt)
    s.start(TEXT)
    s.flush()
    out = pump(s)
    frames = frames_of(out)
    n = frame_samples(rate)
    assert frames and all(f.num_samples == n and f.sample_rate == rate for f in frames)
    assert [f.index for f in frames] == list(range(len(frames)))
    assert [f.sample_offset for f in frames] == [i * n for i in range(len(frames))]
    expected_dtype = np.int16 if fmt is SampleFormat.PCM16 else np.float32
    assert all(f.samples.dtype == expected_dtype for f in frames)
    assert isinstance(out[-1], Done) and out[-1].num_samples == len(frames) * n
    assert words_of(out) == WORDS


def test_first_frame_needs_only_the_first_clause() -> None:
    """A first clause is enough for frames: the rest of the sentence is not waited for."""
    s = make()
    s.start("Hello there,")
    assert frames_of(pump(s)) == []  # "there," is not followed by whitespace yet
    s.inject(" and then")
    out = pump(s)
    assert frames_of(out) and words_of(out) == ["Hello", "there,"]


def test_hold_timer_speaks_words_without_punctuation() -> None:
    """With no punctuation, the first words are spoken once the short hold expires."""
    clock = FakeClock()
    s = make(clock=clock, first_unit_hold_s=0.15)
    s.start("one two three four five")
    assert frames_of(pump(s)) == []
    due = s.next_deadline_s()
    assert due is not None and due == pytest.approx(0.15)
    clock.advance(0.15)
    assert words_of(pump(s)) == ["one", "two", "three", "four"]


def test_empty_and_whitespace_text_still_end_in_done() -> None:
    """start('') or whitespace then flush gives Done with zero samples, no frames."""
    for text in ("", "   \n\t "):
        s = make()
        s.start(text)
        s.flush()
        out = pump(s)
        assert out == [Done(s.turn_id, 0)]


def test_markdown_and_emoji_are_not_spoken() -> None:
    """Markdown markers and emoji never reach the model."""
    backend = ToneBackend()
    s = make(backend)
    s.start("**Great** news 🎉! Here is `code` and [a link](https://x.y).")
    s.flush()
    pump(s)
    said = " ".join(backend.calls)
    assert "*" not in said and "🎉" not in said and "`" not in said and "https" not in said
    assert "Great" in said and "link" in said


def test_fenced_code_blocks_are_not_read_aloud() -> None:
    """Lines inside a fenced code block never reach the model, even arriving line by line."""
    backend = ToneBackend()
    s = make(backend)
    for tok in ["Here you go:\n", "```py", "thon\n", "print('x')\n", "x = 1\n", "```", "\n", "That is all."]:
        s.inject(tok)
    s.flush()
    pump(s)
    assert backend.calls == ["Here you go:", "That is all."]


# -- pause / resume ----------------------------------------------------------------------------


@pytest.mark.parametrize("after_frames", [1, 3, 7, 12, 20])
def test_pause_lands_within_one_frame_and_emits_nothing_after(after_frames: int) -> None:
    """After pause: at most one faded frame, then Paused, then nothing whatever the engine does."""
    s = make()
    s.start(TEXT)
    s.flush()
    before = pump_frames(s, after_frames)
    s.pause()
    after = pump(s)
    frames = frames_of(after)
    assert len(frames) <= 1
    if frames:
        f = frames[0]
        assert f.last_in_pause
        fade = f.samples.astype(np.float64)
        assert np.all(fade[len(fade) // 4 :] == 0)  # silent after the short fade
    assert isinstance(after[-1], Paused)
    spoken = after[-1].spoken.split()
    assert spoken == words_of(before)
    assert pump(s) == []


@pytest.mark.parametrize("after_frames", [1, 4, 9, 15, 22])
def test_resume_continues_with_no_lost_or_repeated_words(after_frames: int) -> None:
    """Pause then resume: every word is marked exactly once, in order, and the turn ends in Done."""
    s = make()
    s.start(TEXT)
    s.flush()
    out = pump_frames(s, after_frames)
    s.pause()
    out += pump(s)
    s.resume()
    out += pump(s)
    assert words_of(out) == WORDS
    events = events_of(out)
    assert [type(e) for e in events] == [Paused, Resumed, Done]


def test_resume_fades_in_instead_of_clicking() -> None:
    """The first resumed frame starts near zero even when the cut fell mid-word."""
    s = make(sample_format=SampleFormat.FLOAT32)
    s.start(TEXT)
    s.flush()
    pump_frames(s, 10)
    s.pause()
    pump(s)
    s.resume()
    first = next(f for f in frames_of(pump(s)) if not f.last_in_pause)
    assert abs(float(first.samples[0])) < 0.01


def test_inject_after_pause_discards_the_rest_but_keeps_the_turn() -> None:
    """A new inject after pause drops the unheard remainder and speaks the new text in the same turn."""
    s = make()
    s.start(TEXT)
    s.flush()
    heard = words_of(pump_frames(s, 6))
    s.pause()
    pump(s)
    turn = s.turn_id
    s.inject("Sorry, go ahead.")
    s.flush()
    out = pump(s)
    assert s.turn_id == turn
    assert words_of(out) == ["Sorry,", "go", "ahead."]
    assert heard == WORDS[: len(heard)] and len(heard) < len(WORDS)
    assert isinstance(out[-1], Done)


def test_start_after_pause_begins_a_new_turn() -> None:
    """start() from PAUSED drops the remainder and numbers frames from zero in a new turn."""
    s = make()
    s.start(TEXT)
    pump_frames(s, 3)
    s.pause()
    pump(s)
    s.start("Next answer.")
    s.flush()
    frames = frames_of(pump(s))
    assert frames[0].index == 0 and frames[0].turn_id == s.turn_id == 2


def test_flush_while_paused_finishes_after_resume() -> None:
    """flush() during a pause is remembered: after resume the turn ends with Done."""
    s = make()
    s.start("Hello there, this keeps going")
    pump_frames(s, 2)
    s.pause()
    s.flush()
    assert s.state is SessionState.PAUSED
    s.resume()
    out = pump(s)
    assert isinstance(out[-1], Done)
    assert words_of(out)[-1] == "going"


def test_reset_drops_prefix_and_is_applied_before_the_next_synthesis() -> None:
    """reset() emits Reset, goes idle, and the backend's context is reset before its next use."""
    backend = ToneBackend()
    s = make(backend)
    s.start(TEXT)
    pump_frames(s, 2)
    s.reset()
    assert isinstance(pump(s)[-1], Reset) and s.state is SessionState.IDLE
    assert backend.context_resets == 0
    s.start("Again.")
    s.flush()
    pump(s)
    assert backend.context_resets == 1


# -- errors and bad input ------------------------------------------------------------------------


def test_backend_failure_is_an_error_event_and_the_session_goes_on() -> None:
    """A unit the model fails on becomes an error event; the other units are still spoken."""
    s = make(ToneBackend(fail_on="broken"))
    s.start("First part, then a broken sentence. And the end.")
    s.flush()
    out = pump(s)
    errors = [e for e in out if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].code == "synthesis_failed"
    assert words_of(out) == ["First", "part,", "And", "the", "end."]
    assert isinstance(out[-1], Done)


def test_bad_inputs_raise_typed_errors_and_leave_the_session_usable() -> None:
    """Non-str text, over-long text, unknown voice, bad rate, bad speed: typed errors."""
    s = make(max_text_chars=1000)
    with pytest.raises(InvalidInputError):
        s.start(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TextTooLongError):
        s.start("x " * 1000)
    assert s.state is SessionState.IDLE
    s.start("a " * 400)
    with pytest.raises(TextTooLongError):
        s.inject("b " * 200)
    s.pause()
    s.reset()
    with pytest.raises(UnknownVoiceError):
        make(voice="nobody")
    with pytest.raises(UnsupportedSampleRateError):
        make(sample_rate=44100)
    with pytest.raises(InvalidSpeedError):
        make(speed=9.0)
    with pytest.raises(UnknownVoiceError):
        s.configure(voice="nobody")
    s.start("Still fine.")
    s.flush()
    assert isinstance(pump(s)[-1], Done)


def test_control_characters_and_lone_surrogates_are_dropped() -> None:
    """Control characters and invalid surrogates never crash the engine or reach the model."""
    backend = ToneBackend()
    s = make(backend)
    s.start("Hel\x00lo\ud800 the\x1bre.")
    s.flush()
    out = pump(s)
    assert isinstance(out[-1], Done)
    assert backend.calls == ["Hello there."]


def test_megabyte_of_text_is_refused_cleanly() -> None:
    """1 MB in one inject raises TextTooLongError at once and the session stays idle."""
    s = make()
    with pytest.raises(TextTooLongError):
        s.inject("word " * 200_000)
    assert s.state is SessionState.IDLE and s.held_chars == 0


def test_configure_needs_idle_and_changes_the_next_turn() -> None:
    """configure() mid-turn raises; between turns it changes rate and voice for the next turn."""
    s = make()
    s.start("Hi.")
    with pytest.raises(InvalidStateError):
        s.configure(sample_rate=8000)
    s.flush()
    pump(s)
    s.configure(sample_rate=8000, voice="b", sample_format="float32")
    s.start("Hello again.")
    s.flush()
    frames = frames_of(pump(s))
    assert frames[0].sample_rate == 8000 and frames[0].num_samples == 640
    assert frames[0].sample_format is SampleFormat.FLOAT32


def test_stale_results_after_a_discard_are_dropped() -> None:
    """A job that finishes after pause+inject (a newer epoch) does not leak old audio."""
    s = make()
    s.start("Old answer one. Old answer two.")
    job = s.next_job()
    assert job is not None
    s.pause()
    s.inject("New.")
    s.complete(job.run())
    s.flush()
    assert words_of(pump(s)) == ["New."]


def test_same_seed_same_frames() -> None:
    """Sessions with the same seed and text produce identical frames."""

    def run() -> list[bytes]:
        s = make(seed=7)
        s.start(TEXT)
        s.flush()
        return [f.pcm16_bytes() for f in frames_of(pump(s))]

    assert run() == run()


# -- frame-native (autoregressive-shaped) backends ------------------------------------------------


def test_frame_backend_streams_exact_frames_and_keeps_its_cache_across_injects() -> None:
    """Frame backends: exact frames, look-ahead bounded, KV offset grows across injects, reset restores it."""
    backend = ToyFrameBackend()
    s = make(backend, lookahead_frames=2)
    s.start("Hello there, friend")
    job = s.next_job()
    assert job is not None and job.steps == 2  # never further ahead than the look-ahead
    s.complete(job.run())
    assert s.next_job() is None  # two frames pending: the model waits for the listener
    out = pump(s)
    s.inject(" and more words here")
    s.flush()
    out += pump(s)
    frames = frames_of(out)
    assert all(f.num_samples == 1920 for f in frames)
    assert words_of(out) == ["Hello", "there,", "friend", "and", "more", "words", "here"]
    assert isinstance(out[-1], Done)
    state = s._voice_state
    assert isinstance(state, ToyFrameState) and state.kv_frames == len(frames)
    s.reset()
    s.start("x")
    s.flush()
    pump(s)
    assert state.kv_frames == 1


def test_frame_backend_pause_emits_nothing_after_one_frame() -> None:
    """Frame backends stop within one frame on pause and resume without losing words."""
    s = make(ToyFrameBackend(), lookahead_frames=3)
    s.start("alpha beta gamma delta epsilon zeta eta theta")
    s.flush()
    out = pump_frames(s, 3)
    s.pause()
    tail = pump(s)
    assert len(frames_of(tail)) <= 1 and isinstance(tail[-1], Paused)
    assert pump(s) == []
    s.resume()
    out += tail + pump(s)
    assert words_of(out) == ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def test_closed_session_refuses_everything() -> None:
    """After close, verbs raise SessionClosedError and no job or output appears."""
    s = make()
    s.start(TEXT)
    s.close()
    s.close()
    assert s.next_job() is None and s.next_output() is None
    with pytest.raises(SessionClosedError):
        s.inject("x")


def test_frames_are_frozen_values() -> None:
    """Frames are immutable records (fields cannot be reassigned)."""
    s = make()
    s.start("Hi.")
    s.flush()
    frame = frames_of(pump(s))[0]
    assert isinstance(frame, SpeechFrame)
    with pytest.raises(AttributeError):
        frame.index = 5  # type: ignore[misc]


def test_a_listener_about_to_run_dry_gets_the_complete_words() -> None:
    """When real-time playback would run dry, held complete words are spoken rather than a gap."""
    clock = FakeClock()
    backend = ToneBackend()
    s = make(backend, clock=clock, starve_guard_ms=250)
    s.start("Right, ")
    first = frames_of(pump(s))
    played_s = len(first) * 0.08
    s.inject("the train leaves at seven from platf")
    assert frames_of(pump(s)) == []  # no boundary yet, and the listener still has audio
    due = s.next_deadline_s()
    assert due is not None and due == pytest.approx(played_s - 0.25)
    clock.advance(due)
    out = pump(s)
    assert backend.calls == ["Right,", "the train leaves at seven from"]
    assert words_of(out) == ["the", "train", "leaves", "at", "seven", "from"]


def test_pause_without_a_fade_frame_hands_out_nothing_more() -> None:
    """With pause_fade_frame=False, pause emits only Paused and resume continues seamlessly."""
    s = make(pause_fade_frame=False)
    s.start(TEXT)
    s.flush()
    before = pump_frames(s, 4)
    s.pause()
    after = pump(s)
    assert frames_of(after) == [] and isinstance(after[-1], Paused)
    assert after[-1].num_samples == 4 * 1920
    s.resume()
    rest = pump(s)
    assert frames_of(rest)[0].sample_offset == 4 * 1920
    assert words_of(before + rest) == WORDS


# -- held (speculative) turns ---------------------------------------------------------------------


def test_a_held_turn_is_made_but_not_handed_out_until_released() -> None:
    """held=True: jobs run, no frame comes out; release() hands out what was made at once, in order."""
    s = make(sample_rate=8000)
    turn = s.start("Hello there, my friend.", held=True)
    s.flush()
    assert s.held and s.state is SessionState.FLUSHING
    s.run_jobs()
    assert s.pending_samples > 0, "the held answer's audio was not made"
    assert [o for o in s.drain() if isinstance(o, SpeechFrame)] == []
    assert s.release() == turn and not s.held
    outputs = pump(s)
    assert words_of(outputs) == ["Hello", "there,", "my", "friend."]
    assert isinstance(outputs[-1], Done) and s.state is SessionState.IDLE


def test_a_held_turn_dropped_by_reset_is_never_heard_and_cannot_be_paused() -> None:
    """A cancelled speculation: reset drops it unheard; pause refuses a held turn; the next turn is normal."""
    s = make(sample_rate=8000)
    s.start("This answer was never wanted.", held=True)
    s.run_jobs()
    with pytest.raises(InvalidStateError):
        s.pause()
    s.reset()
    assert not s.held and s.state is SessionState.IDLE
    assert frames_of(s.drain()) == []
    s.start("The real answer.")
    s.flush()
    assert words_of(pump(s)) == ["The", "real", "answer."]
