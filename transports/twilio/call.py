"""One Twilio media stream on a Starlette WebSocket: the thin I/O layer over the Twilio codec.

    call = await TwilioCall.accept(websocket, name="twilio-1")   # reads connected + start
    call.listener = my_listener                                   # audio, dtmf, marks, the end
    reader = asyncio.create_task(call.run_reader(), name=...)     # the owner runs and cancels it
    seq = await call.send_frame(mulaw_640, epoch=call.epoch)      # paced; None once interrupted
    await call.interrupt(clear=True)                              # barge-in

Sending. ``send_frame`` waits for the frame's slot (``engine.listener.ListenerClock``, one monotonic clock per
call: frame k of a stream leaves at ``t0 + (k - lead_frames) * 80 ms``), then writes the
frame's four media messages and its mark under one lock, so a ``clear`` never lands inside a
frame and nothing of an interrupted answer follows it: ``interrupt`` bumps ``epoch`` first, and
a frame whose epoch is stale when its slot comes is dropped whole. The listener hears of each
frame (``on_mark_sent``) before any of it is written, so the mark's echo can never arrive first
and a barge-in during the write knows the carrier is about to hold our audio.

Receiving. ``run_reader`` hands the caller's audio (int16 PCM at 8 kHz), DTMF digits and
returned marks to the listener until the stream ends: ``stop``, the socket closing, no message
for ``media_timeout_s`` (Twilio sends media every 20 ms for the whole call), a protocol error,
or a failure of the listener or of the reader itself. Each ending is logged once, in one line
(client strings escaped, a failure's traceback after it), and shows in ``ended`` /
``end_reason``; the owner
then calls ``report_end`` from its own task, so the listener never learns of the end inside a
send or a receive it might want to cancel.

This module never imports Pipecat, never runs model compute, never lets a socket error or a
malformed message escape as an exception, and never swallows ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from transports.logsafe import loggable
from transports.twilio import protocol as tp
from transports.twilio import stream as ts
from tts_service import g711
from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.listener import ListenerClock
from tts_service.engine.types import FRAME_S

log = logging.getLogger("warmline.twilio")

#: a socket write that takes longer than this means the carrier stopped reading
SEND_TIMEOUT_S = 5.0


class EndReason(enum.Enum):
    """Why a stream ended."""

    STOP = "stop"
    DISCONNECTED = "disconnected"
    MEDIA_TIMEOUT = "media_timeout"
    PROTOCOL_ERROR = "protocol_error"
    SEND_FAILED = "send_failed"
    LISTENER_FAILED = "listener_failed"
    READER_FAILED = "reader_failed"
    CLOSED = "closed"


class CallListener(Protocol):
    """What a bot hears from its call (every method runs on the event loop, in stream order)."""

    async def on_audio(self, pcm: npt.NDArray[np.int16]) -> None: ...

    async def on_dtmf(self, digit: str) -> None: ...

    def on_mark_sent(self, seq: int) -> None: ...

    async def on_mark(self, seq: int) -> None: ...

    async def on_end(self, reason: EndReason) -> None: ...


class HandshakeError(tp.TwilioProtocolError):
    """The stream did not begin with ``connected`` and ``start`` in time."""

    code = "twilio_handshake"


class TwilioCall:
    """A Twilio media stream after its ``start``; see the module docstring for the contract."""

    def __init__(
        self,
        websocket: WebSocket,
        stream: ts.InboundStream,
        *,
        name: str,
        clock: Clock = monotonic,
        lead_frames: int = 3,
        media_timeout_s: float = 10.0,
    ) -> None:
        start = stream.start
        if start is None:
            raise ValueError("a TwilioCall needs a stream that has received start")
        self.name = name
        self.start = start
        self.listener: CallListener | None = None
        self.clock = clock
        self._ws = websocket
        self._stream = stream
        self._framer = ts.OutboundFramer(start.stream_sid)
        self._pacer = ListenerClock(lead_frames * FRAME_S)
        self._media_timeout_s = media_timeout_s
        self._send_lock = asyncio.Lock()
        self._epoch = 0
        self._ended = asyncio.Event()
        self._end_reason: EndReason | None = None
        self._end_reported = False
        self._dropped_before_listener = 0
        self.frames_sent = 0
        self.late_frames = 0
        self.clears_sent = 0

    # -- setup --------------------------------------------------------------------------------

    @classmethod
    async def accept(
        cls,
        websocket: WebSocket,
        *,
        name: str,
        handshake_timeout_s: float = 10.0,
        clock: Clock = monotonic,
        lead_frames: int = 3,
        media_timeout_s: float = 10.0,
    ) -> TwilioCall:
        """Read ``connected`` and ``start`` from an accepted socket; raises a TwilioProtocolError."""
        stream = ts.InboundStream()
        await read_start(websocket, stream, timeout_s=handshake_timeout_s, refused=HandshakeError)
        return cls(
            websocket,
            stream,
            name=name,
            clock=clock,
            lead_frames=lead_frames,
            media_timeout_s=media_timeout_s,
        )

    # -- state --------------------------------------------------------------------------------

    @property
    def stream_sid(self) -> str:
        return self.start.stream_sid

    @property
    def custom_parameters(self) -> dict[str, str]:
        """The ``<Parameter>`` values of the TwiML that opened this stream."""
        return dict(self.start.custom_parameters)

    @property
    def epoch(self) -> int:
        """Bumped by every ``interrupt``: a frame sent with an older epoch is dropped."""
        return self._epoch

    @property
    def ended(self) -> asyncio.Event:
        """Set once the stream is over (see ``end_reason``)."""
        return self._ended

    @property
    def end_reason(self) -> EndReason | None:
        return self._end_reason

    def mark_seq(self, name: str) -> int | None:
        """The frame number a returned mark names (None for a name this call never sent)."""
        return self._framer.mark_seq(name)

    # -- sending ------------------------------------------------------------------------------

    async def send_frame(self, mulaw: bytes, *, epoch: int | None) -> int | None:
        """Send one 80 ms frame (640 mu-law bytes) at its slot; its seq, or None if not sent.

        ``epoch`` None sends the frame even after an interruption (uninterruptible audio).
        """
        delay_s = self._pacer.delay_s(self.clock())
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        async with self._send_lock:
            if self._ended.is_set() or (epoch is not None and epoch != self._epoch):
                return None
            messages, _ = self._framer.frame(mulaw)
            seq = self._framer.frames_sent - 1
            if self.listener is not None:
                self.listener.on_mark_sent(seq)
            for message in messages:
                if not await self._send(message):
                    return None
            self.frames_sent += 1
            if self._pacer.sent(self.clock(), FRAME_S):
                self.late_frames += 1
        return seq

    async def interrupt(self, *, clear: bool) -> None:
        """Drop every frame not yet sent; with ``clear``, tell the carrier to drop what it holds."""
        self._epoch += 1
        # The carrier holds none of our audio now (cleared, or all played): the next frame is the
        # start of a new stream, due at once rather than behind what was sent before.
        self._pacer.restart()
        if not clear:
            return
        async with self._send_lock:  # after the frame being written, never inside it
            if not self._ended.is_set() and await self._send(self._framer.clear()):
                self.clears_sent += 1

    def stream_break(self) -> None:
        """The bot stopped speaking on purpose: the next frame starts a new paced stream."""
        self._pacer.stream_break()

    async def _send(self, text: str) -> bool:
        return await self._write(lambda: self._ws.send_text(text))

    async def _write(self, send: Callable[[], Awaitable[None]]) -> bool:
        """One socket write within ``SEND_TIMEOUT_S``; False (the stream ended) if it failed."""
        try:
            async with asyncio.timeout(SEND_TIMEOUT_S):
                await send()
        except TimeoutError:
            self._end(EndReason.SEND_FAILED, f"a write took over {SEND_TIMEOUT_S:g} s")
            return False
        except (WebSocketDisconnect, OSError, RuntimeError) as exc:
            self._end(EndReason.SEND_FAILED, f"the socket is gone ({type(exc).__name__})")
            return False
        return True

    async def close(self, code: int = 1000, reason: str = "call over") -> None:
        """Close the socket (when the bot hangs up); never raises."""
        self._end(EndReason.CLOSED, reason)
        if self._ws.application_state is WebSocketState.DISCONNECTED:
            return
        try:
            async with asyncio.timeout(2.0):
                await self._ws.close(code, reason)
        except (TimeoutError, WebSocketDisconnect, OSError, RuntimeError):
            pass  # the carrier is gone already; uvicorn drops the transport when the endpoint returns

    # -- receiving ----------------------------------------------------------------------------

    async def run_reader(self) -> None:
        """Hand the carrier's messages to the listener until the stream ends (then return).

        Never raises but ``CancelledError``: whatever else goes wrong in reading ends the stream
        (``READER_FAILED``), logged once with its traceback, so the call and its slot end too.
        """
        try:
            await self._read()
        except Exception as exc:
            self._end(EndReason.READER_FAILED, f"{type(exc).__name__}: {exc}", error=exc)

    async def _read(self) -> None:
        while not self._ended.is_set():
            try:
                async with asyncio.timeout(self._media_timeout_s):
                    message = await self._ws.receive()
            except TimeoutError:
                self._end(EndReason.MEDIA_TIMEOUT, f"no message for {self._media_timeout_s:g} s")
                return
            except (WebSocketDisconnect, OSError, RuntimeError) as exc:
                self._end(EndReason.DISCONNECTED, f"receive failed ({type(exc).__name__})")
                return
            if message["type"] == "websocket.disconnect":
                self._end(EndReason.DISCONNECTED, "the carrier closed the socket without stop")
                return
            try:
                event = self._stream.receive(message_data(message))
            except tp.TwilioProtocolError as exc:
                self._end(EndReason.PROTOCOL_ERROR, f"{exc.code}: {exc}")
                return
            try:
                await self._dispatch(event)
            except Exception as exc:  # a listener bug ends this call, never the server
                why = f"the listener failed on {type(event).__name__}: {type(exc).__name__}"
                self._end(EndReason.LISTENER_FAILED, why, error=exc)
                return
            if isinstance(event, tp.Stop):
                self._end(EndReason.STOP, "the carrier sent stop")

    async def _dispatch(self, event: tp.InboundEvent) -> None:
        listener = self.listener
        if listener is None:
            self._dropped_before_listener += 1
            return
        if isinstance(event, tp.Media):
            await listener.on_audio(g711.decode(event.payload))
        elif isinstance(event, tp.Mark):
            seq = self._framer.mark_seq(event.name)
            if seq is None:
                log.debug("%s: ignoring mark %s that this call never sent", self.name, loggable(event.name))
            else:
                await listener.on_mark(seq)
        elif isinstance(event, tp.Dtmf):
            await listener.on_dtmf(event.digit)

    def _end(self, reason: EndReason, detail: str, *, error: BaseException | None = None) -> None:
        """Record the end once and log it in one line (with ``error``'s traceback, if given); the
        owner tells the listener (``report_end``)."""
        if self._ended.is_set():
            return
        self._end_reason = reason
        self._ended.set()
        self._epoch += 1
        level = logging.INFO if reason in (EndReason.STOP, EndReason.CLOSED) else logging.WARNING
        level = logging.ERROR if error is not None else level
        sid, why = loggable(self.stream_sid), loggable(detail)
        log.log(level, "%s: stream %s ended (%s): %s", self.name, sid, reason.value, why, exc_info=error)

    async def report_end(self) -> None:
        """Tell the listener the stream is over; for the call's owner, from its own task, once."""
        reason = self._end_reason
        listener = self.listener
        if reason is None or listener is None or self._end_reported:
            return
        self._end_reported = True
        try:
            await listener.on_end(reason)
        except Exception:
            log.exception("%s: the listener failed on the end of the stream", self.name)


async def read_start(
    websocket: WebSocket,
    stream: ts.InboundStream,
    *,
    timeout_s: float,
    refused: Callable[[str], HandshakeError],
    awaited: str = "connected/start",
) -> tp.Start:
    """Feed ``stream`` the socket's messages until it has started (``awaited`` within
    ``timeout_s``); its start, or ``refused(why)`` raised (a protocol error of ``stream``'s too)."""
    try:
        async with asyncio.timeout(timeout_s):
            while stream.state is not ts.StreamState.STREAMING:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    raise refused("the carrier closed the socket before start")
                stream.receive(message_data(message))
    except TimeoutError:
        raise refused(f"no {awaited} within {timeout_s:g} s") from None
    start = stream.start
    assert start is not None  # STREAMING is reached only through start
    return start


def message_data(message: Message) -> str | bytes:
    """A received WebSocket message's text, or its bytes."""
    text = message.get("text")
    if isinstance(text, str):
        return text
    data = message.get("bytes")
    return data if isinstance(data, bytes) else b""


__all__ = [
    "SEND_TIMEOUT_S",
    "CallListener",
    "EndReason",
    "HandshakeError",
    "TwilioCall",
    "message_data",
    "read_start",
]
