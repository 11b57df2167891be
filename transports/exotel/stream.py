"""Exotel's stream for ``media_stream.call.CarrierCall``: its parser and framer (see ``protocol``)."""

from __future__ import annotations

from transports.exotel.protocol import CARRIER, encode_outbound, parse_inbound, to_pcm16
from transports.media_stream.stream import CarrierFramer, CarrierStream
from transports.twilio import protocol as tp


class ExotelStream(CarrierStream):
    carrier = CARRIER

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        return parse_inbound(data)


class ExotelDialect:
    """What an Exotel call is made of (``media_stream.stream.Dialect``)."""

    name: str = CARRIER
    ends_by_close: bool = False

    def stream(self) -> ExotelStream:
        return ExotelStream()

    def framer(self, start: tp.Start) -> CarrierFramer:
        return CarrierFramer(start.stream_sid, encode_outbound, convert=to_pcm16)


EXOTEL = ExotelDialect()

__all__ = ["EXOTEL", "ExotelDialect", "ExotelStream"]
