"""Plivo's stream for ``media_stream.call.CarrierCall``: its parser and framer (see ``protocol``)."""

from __future__ import annotations

from transports.media_stream.stream import CarrierFramer, CarrierStream
from transports.plivo.protocol import CARRIER, encode_outbound, parse_inbound
from transports.twilio import protocol as tp


class PlivoStream(CarrierStream):
    carrier = CARRIER
    implicit_connected = True  # Plivo's start is its first message

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        return parse_inbound(data)


class PlivoDialect:
    """What a Plivo call is made of (``media_stream.stream.Dialect``)."""

    name: str = CARRIER
    ends_by_close: bool = True

    def stream(self) -> PlivoStream:
        return PlivoStream()

    def framer(self, start: tp.Start) -> CarrierFramer:
        return CarrierFramer(start.stream_sid, encode_outbound)


PLIVO = PlivoDialect()

__all__ = ["PLIVO", "PlivoDialect", "PlivoStream"]
