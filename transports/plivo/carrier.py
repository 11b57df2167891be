"""A simulated Plivo carrier: ``transports.twilio.carrier.Carrier`` speaking Plivo's messages.

    async with connect(f"ws://{host}:{port}/plivo") as ws:
        carrier = PlivoCarrier(ws)           # then exactly as Twilio's simulated carrier

Real time, one inbound ``media`` every 20 ms; the bot's ``playAudio`` plays 20 ms a tick and each
``checkpoint`` is answered with ``playedStream`` once the audio before it has played. A
``clearAudio`` drops what is buffered and answers ``clearedAudio``, never ``playedStream`` for
the dropped checkpoints, as Plivo documents. It opens with ``start`` (no ``connected``) and its
``end`` sends nothing: Plivo ends a stream by closing the socket. The caller's side only.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection

from transports.plivo import protocol
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier


class PlivoCarrier(Carrier):
    def __init__(self, ws: ClientConnection, *, parameters: dict[str, str] | None = None) -> None:
        super().__init__(
            ws,
            stream_sid="87654321-4321-4321-4321-cba987654321",
            call_sid="12345678-1234-1234-1234-123456789abc",
            account_sid="MA00000000000000000000",
            parameters=parameters,
        )

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        return protocol.encode_inbound(event)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        return protocol.parse_outbound(data, self.stream_sid)

    async def cleared(self, dropped: list[str]) -> None:
        await self.ws.send(protocol.cleared(next(self._seq), self.stream_sid))

    async def end(self) -> None:
        await self.ws.close()


__all__ = ["PlivoCarrier"]
