"""Asterisk's stream for ``media_stream.call.CarrierCall``: its parser, flow control and framer.

``MEDIA_START`` opens the stream (Twilio's ``connected`` and ``start`` at once); binary frames
are numbered as they come (they carry no number); ``MEDIA_XOFF`` and ``MEDIA_XON`` set ``xoff``,
which the call obeys before its next frame. The bot's audio leaves as binary mu-law frames of
20 ms (``optimal_frame_size``), each 80 ms followed by ``MARK_MEDIA``.
"""

from __future__ import annotations

import dataclasses

from transports.asterisk.protocol import CARRIER, FlowControl, encode_outbound, parse_inbound
from transports.media_stream.stream import IGNORED, CarrierFramer, CarrierStream
from transports.twilio import protocol as tp


class AsteriskStream(CarrierStream):
    carrier = CARRIER
    implicit_connected = True

    def __init__(self) -> None:
        super().__init__()
        self._frames = 0

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        event = parse_inbound(data)
        if isinstance(event, FlowControl):
            self.xoff = event.paused
            return IGNORED
        if isinstance(event, tp.Media):
            self._frames += 1
            return dataclasses.replace(event, chunk=self._frames, timestamp_ms=20 * self._frames)
        return event


class AsteriskDialect:
    """What an Asterisk call is made of (``media_stream.stream.Dialect``)."""

    name: str = CARRIER
    ends_by_close: bool = True

    def stream(self) -> AsteriskStream:
        return AsteriskStream()

    def framer(self, start: tp.Start) -> CarrierFramer:
        return CarrierFramer(start.stream_sid, encode_outbound, binary_media=True)


ASTERISK = AsteriskDialect()

__all__ = ["ASTERISK", "AsteriskDialect", "AsteriskStream"]
