"""A simulated Asterisk (``chan_websocket``, JSON control messages) for tests and benchmarks.

    async with connect(f"ws://{host}:{port}/asterisk") as ws:
        pbx = AsteriskPbx(ws)                # then exactly as Twilio's simulated carrier

Real time: ``MEDIA_START`` opens the channel; the caller's audio leaves every 20 ms as a binary
frame of 160 mu-law bytes; the bot's binary audio is queued and taken 20 ms a tick, and each
``MARK_MEDIA`` is answered with ``MEDIA_MARK_PROCESSED`` once every frame queued before it has
been taken. ``FLUSH_MEDIA`` drops the queue (no report for the dropped marks: the docs promise
none). Above ``high_water`` queued frames it sends ``MEDIA_XOFF``, and ``MEDIA_XON`` once the
queue is back under ``low_water``, as the driver does. Asterisk ends a call by closing the
socket. The PBX's side only.
"""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection

from transports.asterisk import protocol
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier


class AsteriskPbx(Carrier):
    def __init__(
        self,
        ws: ClientConnection,
        *,
        parameters: dict[str, str] | None = None,
        high_water: int = 250,
        low_water: int = 50,
    ) -> None:
        super().__init__(
            ws,
            stream_sid="1761245643.1",
            call_sid="1761245643.1",
            account_sid="warmline",
            parameters=parameters,
        )
        self.high_water = high_water
        self.low_water = low_water
        self.xoff = False
        #: (tick, paused) each time flow control was sent
        self.flow_log: list[tuple[int, bool]] = []

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        return protocol.encode_inbound(event)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        return protocol.parse_outbound(data, self.stream_sid)

    async def cleared(self, dropped: list[str]) -> None:
        await self._flow()

    async def _play_one(self) -> None:
        await super()._play_one()
        await self._flow()

    async def _flow(self) -> None:
        queued = len([item for item in self._buffer if isinstance(item, bytes)])
        if not self.xoff and queued > self.high_water:
            self.xoff = True
        elif self.xoff and queued < self.low_water:
            self.xoff = False
        else:
            return
        self.flow_log.append((self.tick, self.xoff))
        await self.ws.send(protocol.flow(self.xoff, self.stream_sid))

    async def end(self) -> None:
        await self.ws.close()


__all__ = ["AsteriskPbx"]
