"""The turn model over a real engine session (tone backend, fake clock): queue, route, drop, heard."""

from __future__ import annotations

import pytest
from toy_backends import ToneBackend

from tts_service.engine.clock import FakeClock
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.turns import Conversation, Turn
from tts_service.engine.types import Done, Output, Paused, Reset, SpeechFrame
from tts_service.errors import BusyError, InvalidStateError, TextTooLongError


def make(**options: object) -> tuple[EngineSession, Conversation]:
    session = EngineSession(ToneBackend(), SessionConfig(sample_rate=8000), clock=FakeClock())
    return session, Conversation(session, **options)  # type: ignore[arg-type]


def deliver(
    session: EngineSession,
    turns: Conversation,
    *,
    frames: int | None = None,
    seen: list[Output] | None = None,
) -> list[Output]:
    """Run the engine and hand its outputs to the turn model, as an adapter does; what was delivered
    (``seen`` gets every output, routed or not)."""
    delivered: list[Output] = []
    while True:
        out = session.next_output()
        if out is None:
            if not session.step():
                return delivered
            continue
        if seen is not None:
            seen.append(out)
        turn = turns.route(out)
        if turn is not None:
            delivered.append(out)
            if isinstance(out, SpeechFrame):
                turns.heard(turn, out, now_s=0.0)
                if frames is not None and sum(isinstance(o, SpeechFrame) for o in delivered) >= frames:
                    return delivered
        if isinstance(out, Done):
            while (head := turns.startable()) is not None:
                turns.start(head)


def words(outputs: list[Output]) -> list[str]:
    return [w.word for o in outputs if isinstance(o, SpeechFrame) for w in o.words]


def test_turns_run_one_at_a_time_in_the_order_they_were_opened() -> None:
    """Three whole turns: each is spoken to its Done before the next starts, each gets its own id."""
    session, turns = make()
    opened = [
        turns.open(now_s=0.0, text=f"Answer number {n}.", complete=True) for n in ("one", "two", "three")
    ]
    head = turns.startable()
    assert head is opened[0]
    turns.start(head)
    assert turns.startable() is None  # the engine is busy
    out = deliver(session, turns)
    assert words(out) == [
        "Answer",
        "number",
        "one.",
        "Answer",
        "number",
        "two.",
        "Answer",
        "number",
        "three.",
    ]
    assert [o.turn_id for o in out if isinstance(o, Done)] == [t.turn_id for t in opened] == [1, 2, 3]
    assert turns.idle and session.state is SessionState.IDLE


def test_text_before_a_turn_starts_waits_and_text_after_is_injected() -> None:
    """A queued turn keeps its text until it starts; a running one gets it at once."""
    session, turns = make()
    turn = turns.open(key="ctx", now_s=0.0)
    turns.add_text(turn, "Hello there, ")
    assert turn.pending == ["Hello there, "] and session.state is SessionState.IDLE
    turns.start(turn)
    assert turn.pending == [] and session.state is SessionState.SPEAKING
    turns.add_text(turn, "my friend.")
    turns.finish(turn)
    assert session.state is SessionState.FLUSHING
    assert words(deliver(session, turns)) == ["Hello", "there,", "my", "friend."]
    assert turns.find("ctx") is None


def test_a_dropped_running_turn_stops_at_once_and_nothing_of_it_is_routed() -> None:
    """Dropping the running turn pauses and resets the engine; its later outputs route nowhere."""
    session, turns = make()
    first = turns.open(key="a", now_s=0.0, text="This answer will be cut off early on.", complete=True)
    second = turns.open(key="b", now_s=0.0, text="Then this one.", complete=True)
    turns.start(first)
    deliver(session, turns, frames=3)
    gone = turns.drop(lambda t: t.key == "a")
    assert gone == [first] and session.state is SessionState.IDLE
    stale = session.drain()  # the fade frame, Paused and Reset of the dropped turn
    assert any(isinstance(o, Paused) for o in stale) and any(isinstance(o, Reset) for o in stale)
    assert all(turns.route(o) is None for o in stale)
    assert turns.startable() is second
    turns.start(second)
    assert words(deliver(session, turns)) == ["Then", "this", "one."]


def test_pause_reports_the_words_the_adapter_delivered_and_resume_continues() -> None:
    """What the turn heard is what was delivered; pause and resume are None when there is nothing to do."""
    session, turns = make()
    assert turns.pause() is None and turns.resume() is None
    turn = turns.open(now_s=0.0, text="One two three four five six seven eight nine ten.", complete=True)
    turns.start(turn)
    delivered = deliver(session, turns, frames=4)
    paused = turns.pause()
    assert paused is not None and turns.paused and not turns.speaking
    assert turn.heard_text == " ".join(words(delivered))
    assert turn.heard_samples == 4 * 640
    assert turns.pause() is None
    assert turns.resume() is not None
    rest = deliver(session, turns)
    assert words(delivered) + words(rest) == [
        "One",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten.",
    ]


def test_text_that_arrives_while_paused_waits_for_the_resume_and_nothing_is_lost() -> None:
    """The LLM still writes while the caller says "uh huh": its tokens keep the bot paused, and
    the resumed answer is the paused remainder, then the new text, then its Done."""
    session, turns = make()
    turn = turns.open(now_s=0.0, text="One two three four five six. Seven")
    turns.start(turn)
    delivered = deliver(session, turns, frames=4)
    assert len(delivered) == 4 and turns.pause() is not None
    turns.add_text(turn, " eight")
    turns.add_text(turn, " nine ten.")
    turns.finish(turn)
    assert turns.paused and session.state is SessionState.PAUSED
    assert not [o for o in deliver(session, turns) if isinstance(o, SpeechFrame) and not o.last_in_pause]
    assert turns.resume() is not None
    rest = deliver(session, turns)
    assert words(delivered) + words(rest) == [
        "One", "two", "three", "four", "five", "six.", "Seven", "eight", "nine", "ten.",
    ]  # fmt: skip
    assert isinstance(rest[-1], Done) and turns.idle


def test_nothing_starts_behind_a_paused_turn_until_it_is_replaced() -> None:
    """A waiting turn waits while the head is paused; replace_all drops both and starts anew."""
    session, turns = make()
    turns.start(turns.open(now_s=0.0, text="A long first answer that gets paused.", complete=True))
    turns.open(now_s=0.0, text="Waiting.", complete=True)
    deliver(session, turns, frames=2)
    turns.pause()
    assert turns.startable() is None and turns.busy
    new = turns.replace_all(now_s=1.0, text="Something else.", complete=True)
    assert turns.turns == (new,)
    turns.start(new)
    assert words(deliver(session, turns)) == ["Something", "else."]


def test_reset_after_done_drops_the_prefix_of_each_finished_turn() -> None:
    """With reset_after_done, every Done is followed by an engine reset (the bot's turn is over)."""
    session, turns = make(reset_after_done=True)
    turns.start(turns.open(now_s=0.0, text="Hi.", complete=True))
    seen: list[Output] = []
    deliver(session, turns, seen=seen)
    kinds = [type(o) for o in seen if not isinstance(o, SpeechFrame)]
    assert kinds == [Done, Reset]


def test_limits_and_misuse_raise_typed_errors_and_change_nothing() -> None:
    """Past max_waiting: BusyError; past max_turn_chars: TextTooLongError; misuse: InvalidStateError."""
    session, turns = make(max_waiting=1, max_turn_chars=20)
    running = turns.open(now_s=0.0, text="Short one.", complete=True)
    turns.start(running)
    turns.open(now_s=0.0, text="Waits.")
    with pytest.raises(BusyError):
        turns.open(now_s=0.0, text="One too many.")
    with pytest.raises(TextTooLongError):
        turns.add_text(turns.turns[1], "y" * 20)  # 6 + 20 characters
    with pytest.raises(InvalidStateError):
        turns.add_text(running, "more")  # complete
    with pytest.raises(InvalidStateError):
        turns.start(turns.turns[1])  # not startable while the engine runs a turn
    with pytest.raises(InvalidStateError):
        turns.replace_all(now_s=0.0, text="no")  # a turn is running
    with pytest.raises(InvalidStateError):
        turns.add_text(Turn(None, 0.0), "a turn this model never opened")
    assert len(turns.turns) == 2 and session.state is SessionState.FLUSHING


def test_a_held_turn_gives_no_audio_until_released_and_drops_without_a_pause() -> None:
    """A speculative answer: held until release(); dropping it resets the engine, nothing was heard."""
    session, turns = make()
    spec = turns.open(key="spec", now_s=0.0, text="A speculative answer.", complete=True, held=True)
    turns.start(spec)
    assert not turns.speaking and turns.pause() is None
    assert deliver(session, turns) == []  # made, not handed out
    turns.drop(lambda t: t is spec)
    assert session.state is SessionState.IDLE and turns.idle
    real = turns.open(now_s=0.0, text="Held, then wanted.", complete=True, held=True)
    turns.start(real)
    deliver(session, turns)
    turns.release(real)
    assert words(deliver(session, turns)) == ["Held,", "then", "wanted."]
