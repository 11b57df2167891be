"""A simulated Vonage carrier: ``transports.twilio.carrier.Carrier`` speaking Vonage's WebSocket.

    async with connect(f"ws://{host}:{port}/vonage") as ws:
        carrier = VonageCarrier(ws)          # then exactly as Twilio's simulated carrier

Real time: ``websocket:connected`` with the NCCO's headers opens the stream; the caller's audio
leaves every 20 ms as a 640-byte binary frame of 16 kHz PCM (widened from the caller's 8 kHz);
the bot's binary frames play 20 ms a tick (narrowed back to 8 kHz mu-law for the log) and each
``notify`` is answered with ``websocket:notify`` once the audio before it has played. A
``clear`` drops what is buffered and answers ``websocket:cleared`` (no notify for the dropped
audio: the docs do not promise one). Vonage ends a stream by closing the socket. The caller's
side only.
"""

from __future__ import annotations

import numpy as np
from websockets.asyncio.client import ClientConnection

from transports.media_stream.audio import Decimator, Upsampler
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier
from transports.vonage import protocol
from tts_service import g711


class VonageCarrier(Carrier):
    def __init__(self, ws: ClientConnection, *, parameters: dict[str, str] | None = None) -> None:
        super().__init__(
            ws,
            stream_sid="aaaaaaaa-bbbb-cccc-dddd-0123456789ab",
            call_sid="aaaaaaaa-bbbb-cccc-dddd-0123456789ab",
            account_sid="-",
            parameters=parameters,
        )
        self._up = Upsampler()
        self._down = Decimator()

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        if isinstance(event, tp.Media):  # the caller's 8 kHz mu-law, as Vonage's 16 kHz PCM
            return self._up.process(g711.decode(event.payload)).astype("<i2").tobytes()
        return protocol.encode_inbound(event)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        message = protocol.parse_outbound(data, self.stream_sid)
        if isinstance(message, tp.OutboundMedia):
            pcm8k = self._down.process(np.frombuffer(message.payload, dtype="<i2").astype(np.int16))
            return tp.OutboundMedia(message.stream_sid, g711.encode(pcm8k).tobytes())
        return message

    async def cleared(self, dropped: list[str]) -> None:
        await self.ws.send(protocol.cleared())

    async def end(self) -> None:
        await self.ws.close()


__all__ = ["VonageCarrier"]
