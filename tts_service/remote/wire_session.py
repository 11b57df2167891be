"""An engine session's verbs spoken over protocol v1, sans-I/O: the remote half of ``RemoteSession``.

    wire = WireSession(SessionConfig(sample_rate=8000))
    wire.connected()                    # a new connection: its config command is queued first
    turn = wire.start("Sure, ")         # the engine's verbs, the engine's answers, at once
    for text in wire.outgoing(): ...    # the commands to send, in order
    wire.receive(message)               # each server message, text or binary, in order
    while (out := wire.next_output()) is not None: ...   # SpeechFrames and events, as a local
                                                          # session hands them out

A ``warmline serve`` speaks for one session per connection, so a remote session behaves as a
local one would: ``start``/``inject``/``flush``/``pause``/``resume``/``release``/``reset``
follow ``EngineSession``'s state table (and raise ``InvalidStateError`` where it does), return
at once, and produce ``SpeechFrame``s of 80 ms with the ``WordMark``s of the words whose audio
starts in them, then ``Done``. What the wire lacks, this class keeps:

* **Turn ids.** The wire has none; frames belong to the server turn in effect when they were
  sent. Every command that begins a server turn (``start``, an ``inject`` with no turn running)
  is a *segment* on a queue with the acknowledgements the server still owes (``paused``,
  ``resumed``, ``reset``); a segment takes over once the server is quiet (after ``done``, a
  ``paused`` or a ``reset``). Frames of a segment that is no longer wanted (a turn reset, or
  replaced after a pause) are dropped: nothing of a dropped turn is handed out.
* **Pause.** ``pause()`` closes a gate at once: frames already received or still on their way
  (sent before the server saw the pause) wait behind it, and ``resume()`` hands them out first,
  then what the server sends after its ``resumed``; nothing lost, nothing twice. ``Paused``
  reports what this side handed out, exactly as a local session reports what it emitted.
  A pause that reaches the server after the turn's ``done`` is harmless there and answered with
  nothing, so a ``done`` also settles the acknowledgements of its turn still owed.
* **Positions.** Word marks arrive as ``word`` events (ms from the server turn's first sample)
  before the frame their audio starts in; they become sample positions in the local turn.
* **A lost connection.** ``connection_lost()`` ends the turn in progress: what was received is
  still handed out, then an ``ErrorEvent`` (``connection_lost``) and ``Done``; words never
  received were never handed out, so no listener records them. The turn's later verbs are taken
  locally (its text goes nowhere). The next connection starts a fresh server session.

Sans-I/O and synchronous: no sockets, no asyncio, no clock.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from dataclasses import dataclass, field, replace

import numpy as np

from tts_service import wire as wp
from tts_service.engine.config import SessionConfig
from tts_service.engine.session import RUNNING, SessionState
from tts_service.engine.types import (
    Done,
    ErrorEvent,
    Output,
    Paused,
    Reset,
    Resumed,
    SampleFormat,
    SpeechFrame,
    WordMark,
)
from tts_service.errors import InvalidStateError, SessionClosedError

log = logging.getLogger("warmline.remote")

#: the error code of a turn whose connection dropped
CONNECTION_LOST = "connection_lost"


class _Ack(enum.Enum):
    """An answer the server owes for a command sent."""

    PAUSED = "paused"
    RESUMED = "resumed"
    RESET = "reset"


@dataclass(eq=False, slots=True)
class _Segment:
    """One server turn, begun by one command: the local turn it speaks for, and where it starts."""

    turn_id: int
    #: samples of the local turn handed out before this segment began
    base_samples: int
    received_samples: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    """A server message for the connection's owner, not for the listener (``ready``,
    ``configured``, or a refusal such as ``draining``)."""

    event: str
    fields: dict[str, object] = field(default_factory=dict)


class WireSession:
    """One remote engine session's state, commands and outputs; see the module docstring."""

    def __init__(self, config: SessionConfig | None = None) -> None:
        self._config = config or SessionConfig()
        self._state = SessionState.IDLE
        self._held = False
        self._flush_on_resume = False
        self._resume_to = SessionState.SPEAKING
        self._turn_id = 0
        #: the local turn whose commands cannot reach a server any more (its connection dropped)
        self._lost_turn: int | None = None
        self._connected = False
        self._commands: list[wp.Command] = []
        self._notices: list[Notice] = []
        #: events the verbs produced, handed out before anything else (as a local session does)
        self._events: deque[Output] = deque()
        #: what the server sent for the current turn: frames, Done, errors (behind the pause gate)
        self._stream: deque[Output] = deque()
        #: segments begun and acknowledgements owed, in the order their commands were sent
        self._owed: deque[_Segment | _Ack] = deque()
        self._server: _Segment | None = None
        self._quiet = True
        #: the segment whose frames are wanted (the current turn's latest)
        self._live: _Segment | None = None
        self._words: list[WordMark] = []
        self._handed_samples = 0
        self._handed_words: list[WordMark] = []
        self._frame_index = 0

    # -- state --------------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        return self._state

    @property
    def held(self) -> bool:
        return self._held

    @property
    def turn_id(self) -> int:
        return self._turn_id

    @property
    def config(self) -> SessionConfig:
        """The settings in force (as the server confirmed them)."""
        return self._config

    @property
    def sample_rate(self) -> int:
        return self._config.sample_rate

    @property
    def buffered(self) -> int:
        """Outputs received and not handed out yet (a bounded reader stops reading past its limit)."""
        return len(self._stream)

    # -- the connection -----------------------------------------------------------------------

    def connected(self) -> None:
        """A new connection (a fresh server session): its ``config`` goes first, then whatever
        was asked while there was none."""
        self._check_open()
        self._connected = True
        self._commands.insert(0, self._config_command(self._config))
        self._server, self._quiet, self._words = None, True, []
        self._advance()

    def connection_lost(self, reason: str) -> None:
        """The connection dropped: the turn in progress ends with what was received (see above)."""
        self._connected = False
        self._commands.clear()
        self._owed.clear()
        self._server, self._quiet, self._words = None, True, []
        if self._state in (SessionState.IDLE, SessionState.CLOSED) or self._lost_turn == self._turn_id:
            return
        self._lost_turn = self._turn_id
        self._live = None
        self._stream.append(ErrorEvent(self._turn_id, CONNECTION_LOST, reason))
        self._stream.append(Done(self._turn_id, self._handed_samples + self._stream_samples()))
        self._held = False  # nobody will release it now: hand out what came, then the end

    def fail_waiting_turn(self, reason: str) -> None:
        """No connection came in time for the turn begun while there was none: end it as lost."""
        if not self._connected:
            self.connection_lost(reason)

    @property
    def waiting(self) -> bool:
        """Commands wait for a connection (a turn was begun while there was none)."""
        return not self._connected and bool(self._commands)

    def outgoing(self) -> list[str]:
        """The commands to send now, in order, as text messages (none while there is no connection)."""
        if not self._connected:
            return []
        commands, self._commands = self._commands, []
        return [wp.encode_command(c) for c in _coalesce(commands)]

    def take_notices(self) -> list[Notice]:
        notices, self._notices = self._notices, []
        return notices

    def configure(self, *, voice: str | None = None, speed: float | None = None) -> None:
        """Queue a ``config`` with a new voice or speed (between turns); ``configured`` confirms it."""
        self._check_open()
        if self._state is not SessionState.IDLE:
            raise InvalidStateError(f"configure() needs an idle session, not {self._state.value}")
        self._send(wp.ConfigureCommand(voice=voice, speed=speed))

    # -- verbs (EngineSession's table) ---------------------------------------------------------

    def start(self, text: str = "", *, held: bool = False) -> int:
        self._check_open()
        if self._state in RUNNING:
            raise self._refuse("start", "a turn is running: pause() it or wait for done")
        self._new_turn(held=held)
        self._begin_segment(wp.StartCommand(text, hold=held))
        return self._turn_id

    def inject(self, text: str) -> int:
        self._check_open()
        if self._state is SessionState.FLUSHING:
            raise self._refuse("inject", "the turn was flushed: wait for done, or pause() first")
        if self._state is SessionState.SPEAKING:
            self._send_for_turn(wp.InjectCommand(text))
            return self._turn_id
        if self._state is SessionState.IDLE:
            self._new_turn(held=False)
        else:  # PAUSED: the remainder is discarded and the turn goes on with ``text``
            self._stream.clear()
            self._flush_on_resume = False
            self._state = SessionState.SPEAKING
        self._begin_segment(wp.InjectCommand(text))
        return self._turn_id

    def flush(self) -> int:
        self._check_open()
        if self._state is SessionState.SPEAKING:
            self._state = SessionState.FLUSHING
        elif self._state is SessionState.PAUSED:
            self._flush_on_resume = True
        else:
            raise self._refuse("flush", "no running turn to flush")
        self._send_for_turn(wp.FlushCommand())
        return self._turn_id

    def pause(self) -> Paused:
        self._check_open()
        if self._state not in RUNNING or self._held:
            raise self._refuse("pause", "no turn is being heard (a held one is reset, not paused)")
        self._resume_to = self._state
        self._state = SessionState.PAUSED
        self._send_for_turn(wp.PauseCommand(), owed=_Ack.PAUSED if self._server_speaks else None)
        paused = Paused(
            self._turn_id,
            " ".join(w.word for w in self._handed_words),
            self._handed_samples,
            tuple(self._handed_words),
        )
        self._events.append(paused)
        return paused

    def resume(self) -> Resumed:
        self._check_open()
        if self._state is not SessionState.PAUSED:
            raise self._refuse("resume", "only a paused turn resumes")
        self._state = SessionState.FLUSHING if self._flush_on_resume else self._resume_to
        self._flush_on_resume = False
        self._send_for_turn(wp.ResumeCommand(), owed=_Ack.RESUMED if self._server_speaks else None)
        resumed = Resumed(self._turn_id)
        self._events.append(resumed)
        return resumed

    def release(self) -> int:
        self._check_open()
        if self._state not in RUNNING or not self._held:
            raise self._refuse("release", "no held turn")
        self._held = False
        self._send_for_turn(wp.ReleaseCommand())
        return self._turn_id

    def reset(self) -> Reset:
        self._check_open()
        self._stream.clear()
        self._live = None
        self._held = False
        self._flush_on_resume = False
        self._state = SessionState.IDLE
        self._send(wp.ResetCommand(), owed=_Ack.RESET)
        event = Reset(self._turn_id)
        self._events.append(event)
        return event

    def close(self) -> None:
        """Every later verb raises SessionClosedError; nothing more is handed out."""
        self._state = SessionState.CLOSED
        self._events.clear()
        self._stream.clear()
        self._commands.clear()
        self._connected = False

    # -- output -------------------------------------------------------------------------------

    def next_output(self) -> Output | None:
        """The next frame or event, in order, or None (nothing yet, or paused, or held)."""
        if self._events:
            return self._events.popleft()
        if self._state is SessionState.PAUSED or self._held or not self._stream:
            return None
        out = self._stream.popleft()
        if isinstance(out, SpeechFrame):
            self._handed_samples += out.num_samples
            self._handed_words.extend(out.words)
        elif isinstance(out, Done) and out.turn_id == self._turn_id:
            self._state = SessionState.IDLE
        return out

    # -- server messages ----------------------------------------------------------------------

    def receive(self, message: str | bytes) -> None:
        """One server message, in order. Raises ``wire.ProtocolError`` for one that is not v1."""
        if isinstance(message, bytes):
            self._audio(wp.decode_audio_frame(message))
            return
        event = wp.decode_event(message)
        name = event["event"]
        if name == "word":
            self._words.append(self._word(event))
        elif name == "done":
            self._done()
        elif name in ("paused", "resumed", "reset"):
            self._acknowledged(_Ack(name))
        elif name == "error":
            self._error(str(event.get("code", "error")), str(event.get("message", "")))
        elif name in ("ready", "configured"):
            if name == "configured":
                self._configured(event)
            self._notices.append(Notice(name, event))
        else:
            log.debug("remote: ignoring a %r event", name)

    # -- inside -------------------------------------------------------------------------------

    @property
    def _server_speaks(self) -> bool:
        """The server still has a turn of ours that may be paused or resumed (no done yet)."""
        return self._server is not None or any(isinstance(o, _Segment) for o in self._owed)

    def _send(self, command: wp.Command, *, owed: _Ack | _Segment | None = None) -> None:
        """Queue ``command`` (sent once connected) and what the server will owe for it."""
        self._commands.append(command)
        if owed is not None:
            self._owed.append(owed)
            if self._connected:
                self._advance()

    def _send_for_turn(self, command: wp.Command, *, owed: _Ack | None = None) -> None:
        """``_send`` a verb of the current turn, unless its connection was lost (no server has it)."""
        if self._lost_turn != self._turn_id:
            self._send(command, owed=owed)

    def _new_turn(self, *, held: bool) -> None:
        self._turn_id += 1
        self._state = SessionState.SPEAKING
        self._held = held
        self._flush_on_resume = False
        self._stream.clear()
        self._handed_samples = 0
        self._handed_words = []
        self._frame_index = 0

    def _begin_segment(self, command: wp.StartCommand | wp.InjectCommand) -> None:
        segment = _Segment(self._turn_id, self._handed_samples)
        self._live = segment
        self._send(command, owed=segment)

    def _advance(self) -> None:
        """Once the server is quiet, the next segment begun is the one its frames belong to."""
        while self._quiet and self._owed and isinstance(self._owed[0], _Segment):
            segment = self._owed.popleft()
            assert isinstance(segment, _Segment)
            self._server, self._quiet = segment, False

    def _acknowledged(self, ack: _Ack) -> None:
        while self._owed:
            item = self._owed.popleft()
            if isinstance(item, _Segment):  # begun behind an earlier answer: it takes over now
                self._server, self._quiet = item, False
            elif item is ack:
                break
        else:
            log.debug("remote: an unexpected %s", ack.value)
        if ack is _Ack.RESUMED:
            self._quiet = self._server is None
        else:
            self._quiet = True
            if ack is _Ack.RESET:
                self._server = None
        self._words = []
        self._advance()

    def _done(self) -> None:
        segment, self._server, self._quiet = self._server, None, True
        # A pause or resume that reached the server after this done is answered with nothing.
        while self._owed and self._owed[0] in (_Ack.PAUSED, _Ack.RESUMED):
            self._owed.popleft()
        self._words = []
        if segment is not None and segment is self._live:
            self._stream.append(Done(segment.turn_id, segment.base_samples + segment.received_samples))
            self._live = None
        self._advance()

    def _error(self, code: str, message: str) -> None:
        if code in ("draining", "unauthorized"):
            self._notices.append(Notice("refused", {"code": code, "message": message}))
        self._events.append(ErrorEvent(self._turn_id, code, message))

    def _configured(self, event: dict[str, object]) -> None:
        voice, speed, rate = event.get("voice"), event.get("speed"), event.get("sample_rate")
        self._config = replace(
            self._config,
            voice=voice if isinstance(voice, str) else self._config.voice,
            speed=float(speed) if isinstance(speed, int | float) else self._config.speed,
            sample_rate=rate if isinstance(rate, int) else self._config.sample_rate,
        )

    def _word(self, event: dict[str, object]) -> WordMark:
        segment = self._server
        base = segment.base_samples if segment is not None else 0
        rate = self._config.sample_rate
        start_ms, end_ms = event.get("start_ms"), event.get("end_ms")
        if not isinstance(start_ms, int | float) or not isinstance(end_ms, int | float):
            raise wp.ProtocolError("bad_json", "a word event needs start_ms and end_ms")
        start = base + round(float(start_ms) * rate / 1000)
        end = base + round(float(end_ms) * rate / 1000)
        return WordMark(str(event.get("word", "")), start, max(start, end))

    def _audio(self, message: wp.AudioMessage) -> None:
        segment = self._server
        words, self._words = self._words, []
        if segment is None:
            log.debug("remote: audio outside any turn dropped")
            return
        samples = wp.audio_to_pcm16(message)
        offset = segment.base_samples + segment.received_samples
        segment.received_samples += len(samples)
        if segment is not self._live:
            return  # a turn reset, or replaced after a pause: nothing of it is handed out
        end = offset + len(samples)
        # ms in the word events are rounded to 0.1: keep each start inside the frame it came with
        marks = tuple(
            WordMark(w.word, min(max(w.start_sample, offset), end - 1), w.end_sample) for w in words
        )
        frame = SpeechFrame(
            turn_id=segment.turn_id,
            index=self._frame_index,
            sample_offset=offset,
            sample_rate=self._config.sample_rate,
            sample_format=SampleFormat.PCM16,
            samples=np.asarray(samples, dtype=np.int16),
            words=marks,
        )
        self._frame_index += 1
        self._stream.append(frame)

    def _stream_samples(self) -> int:
        return sum(o.num_samples for o in self._stream if isinstance(o, SpeechFrame))

    def _config_command(self, config: SessionConfig) -> wp.ConfigureCommand:
        return wp.ConfigureCommand(
            voice=config.voice,
            sample_rate=config.sample_rate,
            encoding=wp.Encoding.PCM16,
            speed=config.speed,
            word_timestamps=True,
            streaming=True,
        )

    def _refuse(self, verb: str, why: str) -> InvalidStateError:
        return InvalidStateError(f"{verb}() in state {self._state.value}: {why}")

    def _check_open(self) -> None:
        if self._state is SessionState.CLOSED:
            raise SessionClosedError("the session is closed")


def _coalesce(commands: list[wp.Command]) -> list[wp.Command]:
    """Consecutive injects as one (an LLM's tokens arrive faster than a frame): fewer messages,
    the same text, well under the server's command rate."""
    out: list[wp.Command] = []
    for command in commands:
        last = out[-1] if out else None
        if isinstance(command, wp.InjectCommand) and isinstance(last, wp.InjectCommand):
            out[-1] = wp.InjectCommand(last.text + command.text)
        else:
            out.append(command)
    return out


__all__ = ["CONNECTION_LOST", "Notice", "WireSession"]
