"""The remote session's protocol half, sans-I/O: verbs to commands, server messages to outputs.

A scripted server answers as ``warmline serve`` does (``tts_service.wire``'s encoders): word
events before the frame a word starts in, ``done`` after a turn's audio, ``paused``/``resumed``/
``reset`` for the verbs it acted on, nothing for a pause that came after the turn's end.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tts_service import wire as wp
from tts_service.engine.config import SessionConfig
from tts_service.engine.session import SessionState
from tts_service.engine.types import Done, ErrorEvent, Output, Paused, Reset, Resumed, SpeechFrame
from tts_service.errors import InvalidStateError
from tts_service.remote.wire_session import CONNECTION_LOST, WireSession

RATE = 8000
N = 640  # samples in one 80 ms frame at 8 kHz


def frame(value: int) -> bytes:
    """One 80 ms frame whose samples all equal ``value`` (so a test can tell frames apart)."""
    return wp.encode_audio_frame(np.full(N, value, dtype=np.int16), 0.0)


def word(text: str, start_ms: float, end_ms: float) -> str:
    return wp.encode_word(word=text, start_ms=start_ms, end_ms=end_ms)


def connected() -> WireSession:
    wire = WireSession(SessionConfig(sample_rate=RATE))
    wire.connected()
    return wire


def sent(wire: WireSession) -> list[dict[str, object]]:
    return [json.loads(c) for c in wire.outgoing()]


def drain(wire: WireSession) -> list[Output]:
    out: list[Output] = []
    while (item := wire.next_output()) is not None:
        out.append(item)
    return out


def values(outputs: list[Output]) -> list[int]:
    return [int(o.samples[0]) for o in outputs if isinstance(o, SpeechFrame)]


def test_a_turn_is_configured_streamed_and_done_with_words_at_their_samples() -> None:
    """The connection is configured first; word events become marks in the frame they start in."""
    wire = connected()
    turn = wire.start("Hello there.")
    wire.flush()
    commands = sent(wire)
    assert commands[0] == {
        "cmd": "config",
        "sample_rate": RATE,
        "speed": 1.0,
        "word_timestamps": True,
        "streaming": True,
        "encoding": "pcm16",
    }
    assert commands[1:] == [{"cmd": "start", "text": "Hello there."}, {"cmd": "flush"}]
    for message in (word("Hello", 10.0, 70.0), frame(1), word("there.", 95.0, 150.0), frame(2), frame(3)):
        wire.receive(message)
    wire.receive(wp.encode_done())
    out = drain(wire)
    frames = [o for o in out if isinstance(o, SpeechFrame)]
    assert [f.sample_offset for f in frames] == [0, N, 2 * N] and values(out) == [1, 2, 3]
    assert [(w.word, w.start_sample) for f in frames for w in f.words] == [("Hello", 80), ("there.", 760)]
    assert all(f.turn_id == turn for f in frames)
    assert out[-1] == Done(turn, 3 * N) and wire.state is SessionState.IDLE


def test_frames_in_flight_at_a_pause_wait_for_the_resume_and_none_is_lost_or_repeated() -> None:
    """Pause after one frame: the two the server had sent already wait behind the gate."""
    wire = connected()
    turn = wire.start("One two three.")
    wire.receive(word("One", 0.0, 60.0))
    wire.receive(frame(1))
    assert values(drain(wire)) == [1]
    paused = wire.pause()
    assert paused == Paused(turn, "One", N, paused.words) and [w.word for w in paused.words] == ["One"]
    assert [c["cmd"] for c in sent(wire)] == ["config", "start", "pause"]
    wire.receive(word("two", 90.0, 150.0))
    wire.receive(frame(2))  # sent before the server saw the pause
    wire.receive(frame(3))
    wire.receive(wp.encode_paused(spoken="One two", samples=3 * N))
    assert drain(wire) == [paused]  # the event only: the gate is closed
    assert wire.resume() == Resumed(turn)
    wire.receive(wp.encode_resumed())
    wire.receive(frame(4))
    out = drain(wire)
    assert out[0] == Resumed(turn) and values(out) == [2, 3, 4]
    assert [f.sample_offset for f in out if isinstance(f, SpeechFrame)] == [N, 2 * N, 3 * N]


def test_a_pause_that_reaches_the_server_after_its_done_is_owed_no_answer() -> None:
    """The turn ended on the server first: its done settles the pause; the next turn is routed."""
    wire = connected()
    first = wire.start("Hi.")
    wire.flush()
    wire.receive(frame(1))
    assert values(drain(wire)) == [1]
    wire.pause()  # the server sends done and answers this pause with nothing
    wire.receive(frame(2))
    wire.receive(wp.encode_done())
    wire.resume()
    out = drain(wire)
    assert values(out) == [2] and out[-1] == Done(first, 2 * N)
    wire.reset()
    wire.receive(wp.encode_reset())
    second = wire.start("Again.")
    wire.receive(frame(5))
    out = drain(wire)
    assert [(f.turn_id, int(f.samples[0])) for f in out if isinstance(f, SpeechFrame)] == [(second, 5)]


def test_nothing_of_a_reset_turn_is_handed_out_and_the_next_turn_starts_after_the_reset() -> None:
    """A barge-in: pause and reset; frames the server sent before its reset are dropped."""
    wire = connected()
    first = wire.start("A long answer.")
    wire.receive(frame(1))
    drain(wire)
    wire.pause()
    assert wire.reset() == Reset(first)
    second = wire.start("Okay.")
    wire.flush()
    wire.receive(frame(2))  # the first turn's, sent before the pause
    wire.receive(wp.encode_paused(spoken="", samples=2 * N))
    wire.receive(wp.encode_reset())
    wire.receive(frame(7))
    wire.receive(wp.encode_done())
    out = drain(wire)
    assert [(f.turn_id, int(f.samples[0])) for f in out if isinstance(f, SpeechFrame)] == [(second, 7)]
    assert out[-1] == Done(second, N)


def test_a_new_turn_after_a_pause_replaces_the_paused_one_and_its_late_frames_are_dropped() -> None:
    """start() while paused (the wire replaces the paused turn): frames before ``paused`` are the
    old turn's; the new turn's come after it."""
    wire = connected()
    wire.start("First answer.")
    wire.receive(frame(1))
    drain(wire)
    wire.pause()
    second = wire.start("Second.")
    wire.receive(frame(2))
    wire.receive(wp.encode_paused(spoken="", samples=2 * N))
    wire.receive(frame(3))
    out = drain(wire)
    assert [(f.turn_id, int(f.samples[0]), f.sample_offset) for f in out if isinstance(f, SpeechFrame)] == [
        (second, 3, 0)
    ]


def test_an_inject_while_paused_discards_the_remainder_and_the_turn_goes_on() -> None:
    """EngineSession's inject in PAUSED: the same turn, continuing after what was handed out."""
    wire = connected()
    turn = wire.start("One")
    wire.receive(frame(1))
    drain(wire)
    wire.pause()
    wire.receive(frame(2))  # the remainder: discarded
    assert wire.inject(" two") == turn and wire.state is SessionState.SPEAKING
    wire.receive(wp.encode_paused(spoken="", samples=2 * N))
    wire.receive(frame(3))
    out = drain(wire)
    assert [(f.turn_id, int(f.samples[0]), f.sample_offset) for f in out if isinstance(f, SpeechFrame)] == [
        (turn, 3, N)
    ]


def test_an_llms_tokens_leave_as_one_inject_per_send() -> None:
    """Tokens queued between two sends go out as one message, the same text."""
    wire = connected()
    wire.start("")
    for token in ("Sure", ", I", " can", " help."):
        wire.inject(token)
    wire.flush()
    assert sent(wire)[1:] == [
        {"cmd": "start", "text": ""},
        {"cmd": "inject", "text": "Sure, I can help."},
        {"cmd": "flush"},
    ]


def test_a_lost_connection_ends_the_turn_with_what_arrived_then_an_error_and_done() -> None:
    """Received audio is still handed out; then connection_lost and Done. The turn's later
    verbs go nowhere; the next connection configures first, then the next turn."""
    wire = connected()
    turn = wire.start("A long answer.")
    sent(wire)
    wire.receive(word("A", 0.0, 40.0))
    wire.receive(frame(1))
    wire.receive(frame(2))
    wire.connection_lost("closed (1006)")
    wire.inject(" more")  # the LLM goes on meanwhile
    wire.flush()
    out = drain(wire)
    assert values(out) == [1, 2]
    assert isinstance(out[-2], ErrorEvent) and out[-2].code == CONNECTION_LOST
    assert out[-1] == Done(turn, 2 * N) and wire.state is SessionState.IDLE
    assert wire.outgoing() == []
    wire.reset()
    wire.start("Next.")
    wire.connected()
    assert [c["cmd"] for c in sent(wire)] == ["config", "reset", "start"]


def test_a_turn_begun_with_no_connection_waits_for_it_or_fails_as_lost() -> None:
    wire = WireSession(SessionConfig(sample_rate=RATE))
    turn = wire.start("Hello.")
    assert wire.waiting and wire.outgoing() == []
    wire.fail_waiting_turn("no connection")
    out = drain(wire)
    assert [type(o) for o in out] == [ErrorEvent, Done] and out[-1] == Done(turn, 0)
    again = wire.start("Hello again.")
    wire.connected()
    assert [c["cmd"] for c in sent(wire)] == ["config", "start"]
    wire.receive(frame(4))
    assert [(f.turn_id, int(f.samples[0])) for f in drain(wire) if isinstance(f, SpeechFrame)] == [(again, 4)]


def test_verbs_keep_the_engines_state_table() -> None:
    """Misuse raises InvalidStateError, as a local session does; nothing is sent for it."""
    wire = connected()
    sent(wire)
    with pytest.raises(InvalidStateError):
        wire.flush()
    with pytest.raises(InvalidStateError):
        wire.pause()
    wire.start("Held.", held=True)
    with pytest.raises(InvalidStateError):
        wire.pause()  # a held turn is reset, not paused
    with pytest.raises(InvalidStateError):
        wire.start("Again.")
    wire.receive(frame(1))
    assert drain(wire) == []  # nothing of a held turn until release (the server sends none either)
    wire.release()
    assert [c["cmd"] for c in sent(wire)] == ["start", "release"]
    wire.flush()
    with pytest.raises(InvalidStateError):
        wire.inject("more")


def test_a_server_error_reaches_the_turn_and_a_draining_refusal_tells_the_owner() -> None:
    wire = connected()
    turn = wire.start("Hello.")
    wire.receive(wp.encode_error("draining", "the server is draining"))
    out = drain(wire)
    assert out == [ErrorEvent(turn, "draining", "the server is draining")]
    assert [n.event for n in wire.take_notices()] == ["refused"]
    with pytest.raises(wp.ProtocolError):
        wire.receive("not json")
