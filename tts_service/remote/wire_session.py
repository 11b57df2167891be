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

This module keeps the session's state: the verbs, the pause gate and what was handed out. The
segment ledger (which server turn a frame belongs to) is ``wire_segments``'; the translations
of server messages into frames and marks, and of settings into commands, are ``wire_codec``'s.

Sans-I/O and synchronous: no sockets, no asyncio, no clock.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field

from tts_service import wire as wp
from tts_service.engine.config import SessionConfig
from tts_service.engine.states import (
    SessionState,
    check_configure,
    check_flush,
    check_inject,
    check_open,
    check_pause,
    check_release,
    check_resume,
    check_start,
)
from tts_service.engine.types import Done, ErrorEvent, Output, Paused, Reset, Resumed, SpeechFrame, WordMark
from tts_service.remote.wire_codec import coalesce, config_command, configured, speech_frame, word_mark
from tts_service.remote.wire_segments import Ack, Segment, SegmentLedger

log = logging.getLogger("warmline.remote")

#: the error code of a turn whose connection dropped
CONNECTION_LOST = "connection_lost"


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
        #: segments begun and acknowledgements owed, and the segment the server speaks for
        self._segments = SegmentLedger()
        #: the segment whose frames are wanted (the current turn's latest)
        self._live: Segment | None = None
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
        check_open(self._state)
        self._connected = True
        self._commands.insert(0, config_command(self._config))
        self._segments.fresh_server()
        self._segments.advance()

    def connection_lost(self, reason: str) -> None:
        """The connection dropped: the turn in progress ends with what was received (see above)."""
        self._connected = False
        self._commands.clear()
        self._segments.clear()
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
        return [wp.encode_command(c) for c in coalesce(commands)]

    def take_notices(self) -> list[Notice]:
        notices, self._notices = self._notices, []
        return notices

    def configure(
        self, *, voice: str | None = None, speed: float | None = None, language: str | None = None
    ) -> None:
        """Queue a ``config`` with a new voice, speed or language (between turns); ``configured``
        confirms it (the server picks the voice a language asks for)."""
        check_configure(self._state)
        self._send(wp.ConfigureCommand(voice=voice, speed=speed, language=language))

    # -- verbs (EngineSession's table) ---------------------------------------------------------

    def start(self, text: str = "", *, held: bool = False) -> int:
        check_start(self._state)
        self._new_turn(held=held)
        self._begin_segment(wp.StartCommand(text, hold=held))
        return self._turn_id

    def inject(self, text: str) -> int:
        check_inject(self._state)
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
        check_flush(self._state)
        if self._state is SessionState.SPEAKING:
            self._state = SessionState.FLUSHING
        else:  # PAUSED
            self._flush_on_resume = True
        self._send_for_turn(wp.FlushCommand())
        return self._turn_id

    def pause(self) -> Paused:
        check_pause(self._state, held=self._held)
        self._resume_to = self._state
        self._state = SessionState.PAUSED
        self._send_for_turn(wp.PauseCommand(), owed=Ack.PAUSED if self._segments.server_speaks else None)
        paused = Paused(
            self._turn_id,
            " ".join(w.word for w in self._handed_words),
            self._handed_samples,
            tuple(self._handed_words),
        )
        self._events.append(paused)
        return paused

    def resume(self) -> Resumed:
        check_resume(self._state)
        self._state = SessionState.FLUSHING if self._flush_on_resume else self._resume_to
        self._flush_on_resume = False
        self._send_for_turn(wp.ResumeCommand(), owed=Ack.RESUMED if self._segments.server_speaks else None)
        resumed = Resumed(self._turn_id)
        self._events.append(resumed)
        return resumed

    def release(self) -> int:
        check_release(self._state, held=self._held)
        self._held = False
        self._send_for_turn(wp.ReleaseCommand())
        return self._turn_id

    def reset(self) -> Reset:
        check_open(self._state)
        self._stream.clear()
        self._live = None
        self._held = False
        self._flush_on_resume = False
        self._state = SessionState.IDLE
        self._send(wp.ResetCommand(), owed=Ack.RESET)
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
            segment = self._segments.server
            base = segment.base_samples if segment is not None else 0
            self._segments.add_word(word_mark(event, base_samples=base, sample_rate=self.sample_rate))
        elif name == "done":
            self._done()
        elif name in ("paused", "resumed", "reset"):
            self._segments.acknowledged(Ack(name))
        elif name == "error":
            self._error(str(event.get("code", "error")), str(event.get("message", "")))
        elif name in ("ready", "configured"):
            if name == "configured":
                self._config = configured(self._config, event)
            self._notices.append(Notice(name, event))
        else:
            log.debug("remote: ignoring a %r event", name)

    # -- inside -------------------------------------------------------------------------------

    def _send(self, command: wp.Command, *, owed: Ack | Segment | None = None) -> None:
        """Queue ``command`` (sent once connected) and what the server will owe for it."""
        self._commands.append(command)
        if owed is not None:
            self._segments.owe(owed)
            if self._connected:
                self._segments.advance()

    def _send_for_turn(self, command: wp.Command, *, owed: Ack | None = None) -> None:
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
        segment = Segment(self._turn_id, self._handed_samples)
        self._live = segment
        self._send(command, owed=segment)

    def _done(self) -> None:
        segment = self._segments.done()
        if segment is not None and segment is self._live:
            self._stream.append(Done(segment.turn_id, segment.base_samples + segment.received_samples))
            self._live = None

    def _error(self, code: str, message: str) -> None:
        if code in ("draining", "unauthorized"):
            self._notices.append(Notice("refused", {"code": code, "message": message}))
        self._events.append(ErrorEvent(self._turn_id, code, message))

    def _audio(self, message: wp.AudioMessage) -> None:
        segment = self._segments.server
        words = self._segments.take_words()
        if segment is None:
            log.debug("remote: audio outside any turn dropped")
            return
        samples = wp.audio_to_pcm16(message)
        offset = segment.base_samples + segment.received_samples
        segment.received_samples += len(samples)
        if segment is not self._live:
            return  # a turn reset, or replaced after a pause: nothing of it is handed out
        frame = speech_frame(
            samples,
            words,
            turn_id=segment.turn_id,
            index=self._frame_index,
            offset=offset,
            sample_rate=self._config.sample_rate,
        )
        self._frame_index += 1
        self._stream.append(frame)

    def _stream_samples(self) -> int:
        return sum(o.num_samples for o in self._stream if isinstance(o, SpeechFrame))


__all__ = ["CONNECTION_LOST", "Notice", "WireSession"]
