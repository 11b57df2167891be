"""One WebSocket connection speaking protocol v1 over one engine session, paced to real time.

Three tasks, named after the connection, started and cancelled-and-awaited by ``run()``::

    reader   client messages -> rate limit -> parse_command -> engine verbs; replies and errors
    writer   engine frames and Done -> pacing -> encoded messages
    sender   encoded messages (``ws_outbox.Outbox``: bounded, one item type) -> the socket
    drainer  (with a ``Drain``) once the server drains: close 1001 when no turn is left and
             everything queued is written, 1012 at the drain's bound

While the server drains, a command that would begin a new turn is answered ``draining``; the turn
in progress takes its injects, ``flush``, ``pause``/``resume`` and ends with its ``done``.

Turn semantics. By default (dia2stream compatible) every ``start``/``inject`` is a whole
utterance: the engine gets the text and a flush, and a ``done`` follows its audio. One arriving
while a turn is being spoken waits (at most ``max_queued_turns``, then ``busy``) and is spoken
after the current turn's ``done``, in order, each with its own ``done``. After
``{"cmd": "config", "streaming": true}`` the verbs map to the engine's one to one: ``start``
and ``inject`` add LLM tokens to the turn, ``flush`` ends it (then ``done``). In both modes
``pause`` stops the audio at once (the remainder and the waiting utterances are kept for
``resume``); a ``start``/``inject`` after a pause drops them and speaks the new text; ``reset``
drops everything (no ``done`` for what it drops). ``config`` is accepted between turns only.

Pause. Verbs that produce engine events (pause, resume, reset) are answered by the reader at once,
so ``paused`` follows the last frame sent. The writer never holds a frame across a wait: it sleeps
until the next frame is due, then takes it from the engine and queues it without yielding, so no
frame of a paused turn is sent after the pause is processed. The engine's faded
``last_in_pause`` frame is dropped: a player fades out by itself when it runs dry.
``paused.samples`` and ``spoken`` count what this connection sent of the turn.

Pacing (``engine.listener.ListenerClock``, one monotonic clock per connection): frame k of a stream leaves at
``t0 + (k - lead_frames) * 80 ms``, so a client never holds more than ``lead_frames`` of audio it
could not yet have played. The binary header's ms count from the command that began the turn
(for an utterance that waited in the queue, from when it arrived).

A client that stops reading fills the send queue and is dropped (close 1008) without touching
any other connection. However the connection ends, the engine session is closed at once. This
module never runs model compute and never blocks the event loop; errors a client can cause are
answered on the wire, anything else ends the connection with 1011 and is logged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import cast

import numpy as np
import numpy.typing as npt
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from transports.drain import DRAIN_TIME_UP, GOING_AWAY, Drain, Draining
from transports.logsafe import loggable
from transports.security import TokenBucket
from transports.ws.metrics import ServerMetrics
from transports.ws.outbox import CloseConnection, Outbox
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service import wire as wp
from tts_service.engine.listener import ListenerClock
from tts_service.engine.turns import Conversation, Turn
from tts_service.engine.types import FRAME_S, Done, ErrorEvent, Output, Paused, Reset, Resumed, SpeechFrame
from tts_service.errors import InvalidStateError, WarmlineError
from tts_service.languages import voice_catalog
from tts_service.runtime import RuntimeSession

log = logging.getLogger("warmline.ws")

#: a message this short might be a pause, which is never rate limited (a barge-in must land)
_PAUSE_MAX_CHARS = 64


class WsConnection:
    """Protocol v1 for one client over ``session``; call ``run()`` once, after accepting."""

    def __init__(
        self,
        websocket: WebSocket,
        session: RuntimeSession,
        settings: ServerSettings,
        metrics: ServerMetrics,
        *,
        voice: str,
        name: str,
        drain: Drain | None = None,
    ) -> None:
        self._ws = websocket
        self._drain = drain
        self._session = session
        self._settings = settings
        self._metrics = metrics
        self._clock = settings.clock
        self._name = name
        self._voice = voice
        self._encoding = settings.encoding
        self._streaming = False
        self._word_timestamps = False
        self._outbox = Outbox(
            settings.send_queue_messages, stall_timeout_s=settings.stall_timeout_s, metrics=metrics
        )
        #: the one turn model: the utterance being spoken, those waiting, what was sent of each
        self._turns = Conversation(
            session, max_waiting=settings.max_queued_turns, max_turn_chars=settings.max_turn_chars
        )
        self._pacer = ListenerClock(settings.lead_frames * FRAME_S)
        self._bucket = TokenBucket(settings.commands_per_s, settings.command_burst, clock=settings.clock)
        self._rate_limited = False
        self._ran = False
        #: the close this connection sent, once it has (None: the client left, or not yet)
        self.closed_with: tuple[int, str] | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve until the client leaves or is dropped; the session is closed when this returns."""
        if self._ran:
            raise InvalidStateError("a WsConnection runs once")
        self._ran = True
        self._send(
            wp.encode_ready(
                sample_rate=self._session.sample_rate,
                encoding=self._encoding,
                voice=self._voice,
                replica=self._settings.replica,
                language=self._session.language,
                voices=voice_catalog(self._session.runtime_backend),
            )
        )
        tasks = [
            asyncio.create_task(self._read_loop(), name=f"{self._name}-reader"),
            asyncio.create_task(self._write_loop(), name=f"{self._name}-writer"),
            asyncio.create_task(self._outbox.run(self._ws), name=f"{self._name}-sender"),
        ]
        if self._drain is not None:
            tasks.append(asyncio.create_task(self._leave_on_drain(self._drain), name=f"{self._name}-drainer"))
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            await self._session.aclose()
        close = self._close_request(tasks)
        if close is not None:
            await self._close(*close)

    def _close_request(self, tasks: list[asyncio.Task[None]]) -> tuple[int, str] | None:
        for task in tasks:
            if task.cancelled() or task.exception() is None:
                continue
            exc = task.exception()
            if isinstance(exc, CloseConnection):
                return exc.code, exc.reason
            log.error("%s: %s failed", self._name, task.get_name(), exc_info=exc)
            return 1011, "internal error"
        return None

    async def _leave_on_drain(self, drain: Drain) -> None:
        """Once the server drains: go when the turn in progress is done, or at the drain's bound."""
        await drain.wait_begun()
        while True:
            if self._turns.idle and self._outbox.idle:
                raise CloseConnection(*GOING_AWAY)
            if await drain.wait_expired(FRAME_S):
                raise CloseConnection(*DRAIN_TIME_UP)

    async def _close(self, code: int, reason: str) -> None:
        log.info("%s: closing (%d %s)", self._name, code, loggable(reason))
        self.closed_with = (code, reason)
        try:
            async with asyncio.timeout(self._settings.close_timeout_s):
                await self._ws.close(code, reason)
        except (TimeoutError, WebSocketDisconnect, OSError, RuntimeError):
            # The client is gone or not reading; uvicorn closes the transport when we return.
            pass

    # -- sending ------------------------------------------------------------------------------

    def _send(self, data: str | bytes) -> None:
        self._outbox.put(data)

    def _refuse(self, exc: WarmlineError) -> None:
        """Tell the client what went wrong; what only the operator should read goes to the log."""
        self._error(exc.code, str(exc))
        if exc.operator_hint:
            log.info("%s: %s", exc.code, loggable(exc.operator_hint, max_chars=1000))

    def _error(self, code: str, message: str) -> None:
        self._metrics.errors.labels(code).inc()
        self._send(wp.encode_error(code, message))

    # -- reading ------------------------------------------------------------------------------

    async def _receive(self) -> Message | None:
        """The next client message, None once the client has gone; closes an idle connection."""
        while True:
            try:
                async with asyncio.timeout(self._settings.idle_timeout_s):
                    message = await self._ws.receive()
            except TimeoutError:
                if self._turns.busy:
                    continue
                self._metrics.rejected.labels("idle").inc()
                raise CloseConnection(1000, "idle timeout") from None
            if message["type"] == "websocket.disconnect":
                return None
            return message

    async def _read_loop(self) -> None:
        while True:
            await self._outbox.wait_for_room()  # backpressure: replies first
            message = await self._receive()
            if message is None:
                return
            text = message.get("text")
            raw: str | bytes = text if isinstance(text, str) else (message.get("bytes") or b"")
            allowed = self._bucket.try_take()
            if not allowed and not self._is_pause(raw):
                if not self._rate_limited:  # one error per episode, not one per dropped command
                    self._rate_limited = True
                    self._error(
                        "rate_limited",
                        f"more than {self._settings.commands_per_s:g} commands a second: commands are "
                        "dropped until the rate falls (pause is never dropped)",
                    )
                continue
            if allowed:
                self._rate_limited = False
            try:
                await self._apply(wp.parse_command(raw, max_bytes=self._settings.max_message_bytes))
            except WarmlineError as exc:
                self._refuse(exc)

    @staticmethod
    def _is_pause(raw: str | bytes) -> bool:
        if not isinstance(raw, str) or len(raw) > _PAUSE_MAX_CHARS:
            return False
        try:
            return isinstance(wp.parse_command(raw), wp.PauseCommand)
        except wp.ProtocolError:
            return False

    async def _apply(self, command: wp.Command) -> None:
        turns = self._turns
        if isinstance(command, wp.StartCommand):
            self._speak(True, command.text, held=command.hold)
        elif isinstance(command, wp.InjectCommand):
            self._speak(False, command.text)
        elif isinstance(command, wp.ReleaseCommand):
            held = next((t for t in turns.turns if t.held), None)
            if held is not None:
                turns.release(held)
        elif isinstance(command, wp.FlushCommand):
            if turns.running is not None:
                turns.finish(turns.running)
        elif isinstance(command, wp.PauseCommand):
            if turns.pause() is not None:
                self._drain_until(Paused)
        elif isinstance(command, wp.ResumeCommand):
            if turns.resume() is not None:
                self._drain_until(Resumed)
        elif isinstance(command, wp.ResetCommand):
            turns.reset()
            self._drain_until(Reset)
        else:
            await self._configure(command)

    def _drain_until(self, kind: type[Paused | Resumed | Reset]) -> None:
        """Send the events a verb just produced (and any before them), up to the one of ``kind``."""
        while (out := self._session.next_output_nowait()) is not None:
            self._emit(out)
            if isinstance(out, kind):
                return

    def _speak(self, is_start: bool, text: str, *, held: bool = False) -> None:
        turns, now = self._turns, self._clock()
        running = turns.running
        taking_text = running is not None and (turns.speaking or running.held)
        if self._streaming:
            if taking_text and running is not None:
                if is_start:
                    raise InvalidStateError(
                        "a turn is already running: pause it or wait for done before start"
                    )
                turns.add_text(running, text)  # a streamed turn's injects add up (flushed: refused)
                return
            self._refuse_new_turn_if_draining()
            turns.start(turns.replace_all(now_s=now, text=text, held=held))
            return
        self._refuse_new_turn_if_draining()
        if taking_text:
            turns.open(now_s=now, text=text, complete=True, held=held)  # waits for the turn's done
            return
        # From a pause, the new text replaces the paused remainder and whatever was waiting.
        turns.start(turns.replace_all(now_s=now, text=text, complete=True, held=held))

    def _refuse_new_turn_if_draining(self) -> None:
        if self._drain is not None and self._drain.draining:
            raise Draining(
                "the server is draining: the turn in progress finishes, no new turn begins; "
                "reconnect to another instance"
            )

    async def _configure(self, command: wp.ConfigureCommand) -> None:
        if not self._turns.idle:
            raise InvalidStateError("config is accepted between turns only: wait for done, or reset first")
        changes = (command.voice, command.speed, command.sample_rate, command.language)
        if any(c is not None for c in changes):
            await self._session.configure(
                voice=command.voice,
                speed=command.speed,
                sample_rate=command.sample_rate,
                language=command.language,
            )
        self._voice = self._session.voice
        if command.encoding is not None:
            self._encoding = command.encoding
        if command.word_timestamps is not None:
            self._word_timestamps = command.word_timestamps
        if command.streaming is not None:
            self._streaming = command.streaming
        self._send(
            wp.encode_configured(
                sample_rate=self._session.sample_rate,
                encoding=self._encoding,
                voice=self._voice,
                speed=float(self._session.engine.config.speed),
                word_timestamps=self._word_timestamps,
                streaming=self._streaming,
                language=self._session.language,
            )
        )

    # -- writing ------------------------------------------------------------------------------

    async def _write_loop(self) -> None:
        while True:
            delay_s = self._pacer.delay_s(self._clock())
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            try:
                out = await self._session.next_output()
            except StopAsyncIteration:
                return
            # From here to the next await nothing else runs: the frame is queued before any pause.
            self._emit(out)

    def _emit(self, out: Output) -> None:
        turn = self._turns.route(out)  # None: no turn's (a reset) or a dropped turn's
        if isinstance(out, SpeechFrame):
            if turn is not None and not out.last_in_pause:
                self._send_frame(turn, out)
        elif isinstance(out, Done):
            if turn is not None:
                self._end_turn()
        elif isinstance(out, Paused):
            spoken, samples = (turn.heard_text, turn.heard_samples) if turn else ("", 0)
            self._send(wp.encode_paused(spoken=spoken, samples=samples))
            self._pacer.stream_break()
        elif isinstance(out, Resumed):
            self._send(wp.encode_resumed())
        elif isinstance(out, Reset):
            self._send(wp.encode_reset())
            self._pacer.stream_break()
        elif isinstance(out, ErrorEvent):
            self._error(out.code, out.message)

    def _send_frame(self, turn: Turn, frame: SpeechFrame) -> None:
        now = self._clock()
        rate = frame.sample_rate
        if self._word_timestamps:
            for w in frame.words:
                # Positions relative to this frame, placed on what this connection sent of the turn.
                start_ms = 1000 * (turn.heard_samples + w.start_sample - frame.sample_offset) / rate
                end_ms = 1000 * (turn.heard_samples + w.end_sample - frame.sample_offset) / rate
                self._send(wp.encode_word(word=w.word, start_ms=start_ms, end_ms=end_ms))
        pcm = cast("npt.NDArray[np.int16]", frame.samples)  # sessions are opened with PCM16
        payload = g711.encode(pcm) if self._encoding is wp.Encoding.MULAW else pcm
        self._send(wp.encode_audio_frame(payload, (now - turn.asked_s) * 1000))
        self._metrics.frames_sent.inc()
        if turn.first_audio_s is None:
            self._metrics.first_frame_latency.observe(now - turn.asked_s)
        self._turns.heard(turn, frame, now_s=now)
        if self._pacer.sent(now, FRAME_S):
            self._metrics.late_frames.inc()

    def _end_turn(self) -> None:
        self._send(wp.encode_done())
        self._pacer.stream_break()
        while (head := self._turns.startable()) is not None:
            try:
                self._turns.start(head)
                return
            except WarmlineError as exc:
                self._refuse(exc)
                self._turns.drop(lambda turn: turn is head)


__all__ = ["WsConnection"]
