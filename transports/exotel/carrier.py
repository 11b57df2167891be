"""A simulated Exotel carrier: ``transports.twilio.carrier.Carrier`` speaking Exotel's messages.

    async with connect(f"ws://{host}:{port}/exotel") as ws:
        carrier = ExotelCarrier(ws)          # then exactly as Twilio's simulated carrier

Real time; the caller's audio leaves as 16-bit linear PCM every 20 ms, the bot's plays 20 ms a
tick (read back to mu-law for the log) and each mark is echoed once the media before it has
played. A ``clear`` drops what is buffered; since Exotel's docs do not say that it echoes the
dropped marks, this carrier does not (the stricter case for the bot). The caller's side only.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection

from transports.exotel import protocol
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier


class ExotelCarrier(Carrier):
    def __init__(self, ws: ClientConnection, *, parameters: dict[str, str] | None = None) -> None:
        super().__init__(
            ws,
            stream_sid="MZ0000000000000000000000000000ex",
            call_sid="CA0000000000000000000000000000ex",
            account_sid="exotel-account",
            parameters=parameters,
        )

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        return protocol.encode_inbound(event)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        return protocol.parse_outbound(data)

    async def cleared(self, dropped: list[str]) -> None:
        return None


__all__ = ["ExotelCarrier"]
