"""Telnyx's stream for ``media_stream.call.CarrierCall``: its parser and framer (see ``protocol``)."""

from __future__ import annotations

from transports.media_stream.stream import CarrierFramer, CarrierStream
from transports.telnyx.protocol import CARRIER, encode_outbound, parse_inbound
from transports.twilio import protocol as tp


class TelnyxStream(CarrierStream):
    carrier = CARRIER

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        return parse_inbound(data)


class TelnyxDialect:
    """What a Telnyx call is made of (``media_stream.stream.Dialect``)."""

    name: str = CARRIER
    ends_by_close: bool = False

    def stream(self) -> TelnyxStream:
        return TelnyxStream()

    def framer(self, start: tp.Start) -> CarrierFramer:
        return CarrierFramer(start.stream_sid, encode_outbound)


TELNYX = TelnyxDialect()

__all__ = ["TELNYX", "TelnyxDialect", "TelnyxStream"]
