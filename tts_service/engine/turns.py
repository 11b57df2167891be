"""One conversation's turns over one engine session: what waits, what runs, what was heard.

    turns = Conversation(session, max_waiting=16)
    turn = turns.open(key="ctx-1", now_s=clock())   # a new answer, queued behind the running one
    turns.add_text(turn, "Sure, ")                  # injected if running, else kept for its start
    turns.finish(turn)                              # no more text: flushed if running, else at start
    while (head := turns.startable()) is not None:  # the engine is free: the head may start
        turns.start(head)
    for out in session.drain():
        turn = turns.route(out)                     # the turn it belongs to; None: drop it
        if isinstance(out, SpeechFrame) and turn is not None:
            turns.heard(turn, out, now_s=clock())   # the adapter delivered it to the listener

Every adapter that speaks for a bot (the WebSocket connection, the Pipecat service, the LiveKit
plugin) is a loop around this one model. Turns run one at a time, in the order they were opened:
the head of the queue is the one the engine speaks (or holds paused); the rest wait. A turn's
text may arrive before or after it starts, and it may be marked complete (``finish``) at either
time. ``route`` tells which turn an engine output belongs to: a frame or event of a turn that was
dropped (a barge-in, a reset) belongs to none, so nothing of it reaches a listener. ``Done``
finishes the running turn (and with ``reset_after_done`` drops the conversation prefix: the
bot's turn is over). What each turn's listener was given (``heard``) is kept on the turn, so
a pause reports exactly the words that went out. Text for a paused turn waits on the turn and
is injected when it resumes (given to the engine while paused, it would discard the remainder,
as a new answer after a barge-in does), so an answer the LLM is still writing survives a
backchannel whole.

``start`` is separate from ``startable`` because some adapters prepare before a turn starts
(the Pipecat service applies a new voice off the event loop). ``pause`` and ``resume`` return
None when there is nothing to pause or resume: a barge-in may race the end of a turn, and the
wire protocols promise that such a pause is harmless. Misuse (starting a turn that is not the
head, or while the engine runs another) raises ``InvalidStateError``.

Sans-I/O and synchronous, like the session it drives (an ``EngineSession`` or the runtime's
``RuntimeSession``); never reads a clock (times come in as arguments), never runs the model.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

from tts_service.engine.session import RUNNING, SessionState
from tts_service.engine.types import Done, Output, Paused, Reset, Resumed, SpeechFrame, WordMark
from tts_service.errors import BusyError, InvalidStateError, TextTooLongError


class SessionVerbs(Protocol):
    """The verbs of an engine session (``EngineSession``, or ``RuntimeSession`` on the runtime)."""

    @property
    def state(self) -> SessionState: ...

    @property
    def held(self) -> bool: ...

    def start(self, text: str = "", *, held: bool = False) -> int: ...

    def inject(self, text: str) -> int: ...

    def flush(self) -> int: ...

    def pause(self) -> Paused: ...

    def resume(self) -> Resumed: ...

    def release(self) -> int: ...

    def reset(self) -> Reset: ...


@dataclass(eq=False)
class Turn:
    """One answer as an adapter sees it: its text, whether it is complete, what its listener got."""

    #: the adapter's name for it (the Pipecat audio context id); None when it needs none
    key: Hashable | None
    #: when it was asked for (clock seconds)
    asked_s: float
    #: text that has not reached the engine yet
    pending: list[str] = field(default_factory=list)
    #: no more text will come (the engine flushes it once it runs)
    complete: bool = False
    #: a speculative answer: its audio is made but withheld until ``Conversation.release``
    held: bool = False
    #: characters of text given so far (for per-turn limits)
    chars: int = 0
    #: the engine's turn id once started
    turn_id: int | None = None
    #: what the adapter delivered: samples, and the words whose audio starts in them
    heard_samples: int = 0
    heard_words: list[WordMark] = field(default_factory=list)
    #: when its first frame was delivered (clock seconds)
    first_audio_s: float | None = None

    @property
    def started(self) -> bool:
        return self.turn_id is not None

    @property
    def heard_text(self) -> str:
        return " ".join(w.word for w in self.heard_words)


class Conversation:
    """The turns of one conversation on one session; see the module docstring for the loop."""

    def __init__(
        self,
        session: SessionVerbs,
        *,
        max_waiting: int | None = None,
        max_turn_chars: int | None = None,
        reset_after_done: bool = False,
    ) -> None:
        self._session = session
        self._max_waiting = max_waiting
        self._max_turn_chars = max_turn_chars
        self._reset_after_done = reset_after_done
        self._turns: deque[Turn] = deque()

    # -- reading ------------------------------------------------------------------------------

    @property
    def running(self) -> Turn | None:
        """The turn the engine speaks or holds paused (the head, once started)."""
        head = self._turns[0] if self._turns else None
        return head if head is not None and head.started else None

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Every turn, the head first."""
        return tuple(self._turns)

    @property
    def waiting(self) -> int:
        """Turns not started yet."""
        return sum(1 for t in self._turns if not t.started)

    @property
    def speaking(self) -> bool:
        """The engine is handing out a turn's audio (not held, not paused, not idle)."""
        running = self.running
        return running is not None and not running.held and self._session.state in RUNNING

    @property
    def paused(self) -> bool:
        return self.running is not None and self._session.state is SessionState.PAUSED

    @property
    def idle(self) -> bool:
        """No turn at all: nothing spoken, paused or waiting."""
        return not self._turns

    @property
    def busy(self) -> bool:
        """A turn is speaking, held or waiting: new whole utterances queue behind it."""
        running = self.running
        return self.speaking or (running is not None and running.held) or self.waiting > 0

    def find(self, key: Hashable) -> Turn | None:
        """The newest turn called ``key`` that still takes text (not complete), if any."""
        for turn in reversed(self._turns):
            if turn.key == key and not turn.complete:
                return turn
        return None

    # -- text in ------------------------------------------------------------------------------

    def open(
        self,
        *,
        key: Hashable | None = None,
        now_s: float,
        text: str = "",
        complete: bool = False,
        held: bool = False,
    ) -> Turn:
        """A new turn with ``text`` at the end of the queue (``complete``: all its text; ``held``:
        a speculative answer, withheld until ``release``).

        Raises ``BusyError`` past ``max_waiting`` waiting turns and ``TextTooLongError`` past
        ``max_turn_chars``; nothing changes then.
        """
        if self._max_waiting is not None and self.waiting >= self._max_waiting:
            raise BusyError(f"{self.waiting} turns are already waiting: wait for done, or pause")
        turn = self._new_turn(key, now_s, text, complete)
        turn.held = held
        self._turns.append(turn)
        return turn

    def _new_turn(self, key: Hashable | None, now_s: float, text: str, complete: bool) -> Turn:
        self._check_length(0, text)
        return Turn(key, now_s, pending=[text] if text else [], complete=complete, chars=len(text))

    def _check_length(self, held: int, text: str) -> None:
        if self._max_turn_chars is not None and held + len(text) > self._max_turn_chars:
            raise TextTooLongError(f"a turn may hold at most {self._max_turn_chars} characters of text")

    def add_text(self, turn: Turn, text: str) -> None:
        """More text for ``turn``: injected at once if it runs, else kept until it starts."""
        self._check_open(turn)
        if turn.complete:
            raise InvalidStateError("the turn was flushed: wait for done, or pause, before more text")
        self._check_length(turn.chars, text)
        if turn is self.running and not self.paused:
            self._session.inject(text)
        else:
            # A paused turn takes it once resumed: an inject would discard its remainder.
            turn.pending.append(text)
        turn.chars += len(text)

    def finish(self, turn: Turn) -> None:
        """``turn``'s text is complete: the engine flushes it (now if it runs, else at its start)."""
        self._check_open(turn)
        if turn.complete:
            return
        turn.complete = True
        if turn is self.running and self._session.state is SessionState.SPEAKING:
            self._session.flush()
        elif turn is self.running and self._session.state is SessionState.PAUSED and not turn.pending:
            self._session.flush()  # the engine finishes it once resumed
        # (paused with text waiting: ``resume`` injects the text, then flushes)

    def finish_all(self) -> None:
        """Every turn is complete (the pipeline is ending): each is spoken to its end, in order."""
        for turn in list(self._turns):
            self.finish(turn)

    # -- starting -----------------------------------------------------------------------------

    def startable(self) -> Turn | None:
        """The head turn when it may start now: not started, and the engine not running a turn.

        Behind a paused turn nothing starts: it may yet resume (``replace_all`` drops it).
        """
        head = self._turns[0] if self._turns else None
        if head is None or head.started or self._session.state in RUNNING:
            return None
        return head

    def start(self, turn: Turn) -> int:
        """Start ``turn`` (the head, as ``startable`` gave it) with all its text; its turn id."""
        if turn is not self.startable():
            raise InvalidStateError("only the head turn starts, once the engine is free")
        text, turn.pending = "".join(turn.pending), []
        turn.turn_id = self._session.start(text, held=turn.held)
        if turn.complete:
            self._session.flush()
        return turn.turn_id

    def replace_all(
        self,
        *,
        key: Hashable | None = None,
        now_s: float,
        text: str = "",
        complete: bool = False,
        held: bool = False,
    ) -> Turn:
        """Drop every turn (a paused one's unheard rest too, once the new one starts) and open one.

        For a listener who asks for something new after a barge-in: the new turn is the head and
        ``startable``. Raises ``InvalidStateError`` while a turn runs (pause it, or wait for done).
        """
        if self._session.state in RUNNING:
            raise InvalidStateError("a turn is running: pause it, or wait for done, first")
        turn = self._new_turn(key, now_s, text, complete)
        turn.held = held
        self._turns.clear()
        self._turns.append(turn)
        return turn

    def release(self, turn: Turn) -> None:
        """A held turn is wanted: its audio goes out (the frames made already at once)."""
        self._check_open(turn)
        if not turn.held:
            return
        turn.held = False
        if turn is self.running:
            self._session.release()

    # -- barge-in -----------------------------------------------------------------------------

    def pause(self) -> Paused | None:
        """Stop the running turn's audio at once; None when nothing is being spoken."""
        if not self.speaking:
            return None
        return self._session.pause()

    def resume(self) -> Resumed | None:
        """Continue a paused turn from where it stopped; None when nothing is paused."""
        running = self.running
        if running is None or not self.paused:
            return None
        resumed = self._session.resume()
        if running.pending:  # what the bot's answer went on with while the caller spoke
            text, running.pending = "".join(running.pending), []
            self._session.inject(text)
            if running.complete:
                self._session.flush()
        return resumed

    def drop(self, doomed: Callable[[Turn], bool]) -> list[Turn]:
        """Forget the turns ``doomed`` picks; if the running one goes, its audio stops at once.

        The engine is paused (if speaking) and reset, so nothing of the dropped turn is made or
        handed out; the next turn, if any, is then ``startable``.
        """
        running = self.running
        gone = [t for t in self._turns if doomed(t)]
        self._turns = deque(t for t in self._turns if not doomed(t))
        if running is not None and running in gone:
            if self._session.state in RUNNING and not running.held:
                self._session.pause()
            self._session.reset()
        return gone

    def reset(self) -> Reset:
        """Drop every turn and the conversation prefix; returns the engine's ``Reset``."""
        self._turns.clear()
        return self._session.reset()

    # -- output -------------------------------------------------------------------------------

    def route(self, out: Output) -> Turn | None:
        """The turn an engine output belongs to, or None (a dropped turn's, or no turn's).

        ``Done`` of the running turn finishes it (it leaves the queue; with ``reset_after_done``
        the engine is reset) and is routed to it.
        """
        running = self.running
        if running is None or out.turn_id != running.turn_id:
            return None
        if isinstance(out, Done):
            self._turns.popleft()
            if self._reset_after_done:
                self._session.reset()
        return running

    def heard(self, turn: Turn, frame: SpeechFrame, *, now_s: float) -> None:
        """``frame`` of ``turn`` went out to its listener."""
        if turn.first_audio_s is None:
            turn.first_audio_s = now_s
        turn.heard_samples += frame.num_samples
        turn.heard_words.extend(frame.words)

    def _check_open(self, turn: Turn) -> None:
        if turn not in self._turns:
            raise InvalidStateError("the turn was dropped or is finished")


__all__ = ["Conversation", "SessionVerbs", "Turn"]
