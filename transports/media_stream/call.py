"""One call on any carrier's media stream: Twilio's call I/O over that carrier's codec.

    call = await CarrierCall.open(websocket, TELNYX, name="telnyx-1")   # reads until start
    # then exactly as a ``transports.twilio.call.TwilioCall``: the same bot runs on it

``CarrierCall`` is a ``TwilioCall`` whose stream parses the carrier's messages
(``media_stream.stream.CarrierStream``) and whose framer writes them (``CarrierFramer``): pacing,
barge-in (``interrupt`` and the carrier's clear), the reader and its timeouts, and the one log
line of each ending are Twilio's, so a Pipecat bot written for Twilio
(``TwilioMediaStreamTransport``) answers any carrier's call and learns the words heard from the
carrier's own playback acknowledgements.
"""

from __future__ import annotations

import asyncio
import base64

from starlette.websockets import WebSocket

from transports.media_stream.stream import BINARY, CarrierStream, Dialect
from transports.twilio import protocol as tp
from transports.twilio import stream as ts
from transports.twilio.call import EndReason, HandshakeError, TwilioCall, read_start
from tts_service.engine.clock import Clock, monotonic


class CarrierHandshakeError(HandshakeError):
    """The stream did not begin (``connected`` and ``start``, or the carrier's equivalent) in time."""

    def __init__(self, carrier: str, message: str) -> None:
        super().__init__(message)
        self.code = f"{carrier}_handshake"


class CarrierCall(TwilioCall):
    """A started media stream of ``carrier`` (see the module doc)."""

    def __init__(
        self,
        websocket: WebSocket,
        stream: CarrierStream,
        framer: ts.OutboundFramer,
        *,
        carrier: str,
        ends_by_close: bool = False,
        name: str,
        clock: Clock = monotonic,
        lead_frames: int = 3,
        media_timeout_s: float = 10.0,
    ) -> None:
        super().__init__(
            websocket,
            stream,
            name=name,
            clock=clock,
            lead_frames=lead_frames,
            media_timeout_s=media_timeout_s,
        )
        self._framer = framer
        self.carrier = carrier
        self.ends_by_close = ends_by_close
        #: the stream URL's query parameters (a carrier that cannot carry a value in its start
        #: carries it there; they win over the start's own)
        self.url_parameters: dict[str, str] = {}
        self._carrier_stream = stream
        self._flowing = asyncio.Event()
        self._flowing.set()

    @property
    def custom_parameters(self) -> dict[str, str]:
        """The parameters the answer put in the stream: the start's, and the stream URL's query."""
        return {**self.start.custom_parameters, **self.url_parameters}

    @classmethod
    async def open(
        cls,
        websocket: WebSocket,
        dialect: Dialect,
        *,
        name: str,
        handshake_timeout_s: float = 10.0,
        clock: Clock = monotonic,
        lead_frames: int = 3,
        media_timeout_s: float = 10.0,
    ) -> CarrierCall:
        """Read an accepted socket until the stream has started; raises a TwilioProtocolError."""
        stream = dialect.stream()
        start = await read_start(
            websocket,
            stream,
            timeout_s=handshake_timeout_s,
            refused=lambda why: CarrierHandshakeError(dialect.name, why),
            awaited="start",
        )
        return cls(
            websocket,
            stream,
            dialect.framer(start),
            carrier=dialect.name,
            ends_by_close=dialect.ends_by_close,
            name=name,
            clock=clock,
            lead_frames=lead_frames,
            media_timeout_s=media_timeout_s,
        )

    async def send_frame(self, mulaw: bytes, *, epoch: int | None) -> int | None:
        """As ``TwilioCall.send_frame``, after the carrier's flow control lets audio through."""
        if not self._flowing.is_set():
            ended = asyncio.create_task(self.ended.wait(), name=f"{self.name}-xoff-ended")
            flowing = asyncio.create_task(self._flowing.wait(), name=f"{self.name}-xoff-xon")
            try:
                await asyncio.wait((ended, flowing), return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in (ended, flowing):
                    waiter.cancel()
                await asyncio.gather(ended, flowing, return_exceptions=True)
        return await super().send_frame(mulaw, epoch=epoch)

    async def _dispatch(self, event: tp.InboundEvent) -> None:
        await super()._dispatch(event)
        if self._carrier_stream.xoff:
            self._flowing.clear()
        else:
            self._flowing.set()

    async def _send(self, text: str) -> bool:
        """A text message, or a framer's binary one (``stream.BINARY``) as a binary frame."""
        if not text.startswith(BINARY):
            return await super()._send(text)
        data = base64.b64decode(text[len(BINARY) :])
        return await self._write(lambda: self._ws.send_bytes(data))

    def _end(self, reason: EndReason, detail: str, *, error: BaseException | None = None) -> None:
        if self.ends_by_close and reason is EndReason.DISCONNECTED:
            reason, detail = EndReason.STOP, f"{self.carrier} closed the socket (its end of a stream)"
        super()._end(reason, detail, error=error)


__all__ = ["CarrierCall", "CarrierHandshakeError"]
