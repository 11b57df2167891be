"""A simulated Telnyx carrier: ``transports.twilio.carrier.Carrier`` speaking Telnyx's messages.

    async with connect(f"ws://{host}:{port}/telnyx") as ws:
        carrier = TelnyxCarrier(ws)          # then exactly as Twilio's simulated carrier

Real time, one inbound media message every 20 ms; the bot's audio plays 20 ms a tick and each
mark is echoed once the media before it has played; ``clear`` drops what is buffered and echoes
its marks, as Telnyx documents. Built from Telnyx's published message shapes
(``transports.telnyx.protocol``). The caller's side only: the endpoints never import it.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection

from transports.telnyx import protocol
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier


class TelnyxCarrier(Carrier):
    def __init__(self, ws: ClientConnection, *, parameters: dict[str, str] | None = None) -> None:
        super().__init__(
            ws,
            stream_sid="32de0dea-53cb-4b21-89a4-9e1819c043bc",
            call_sid="v3:telnyx-call-1",
            account_sid="3e6f995f-85f7-4705-9741-53b116d28237",
            parameters=parameters,
        )

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        return protocol.encode_inbound(event, call_control_id=self.call_sid, user_id=self.account_sid)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        return protocol.parse_outbound(data, self.stream_sid)


__all__ = ["TelnyxCarrier"]
