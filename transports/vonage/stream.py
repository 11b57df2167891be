"""Vonage's stream for ``media_stream.call.CarrierCall``: its parser, 16 kHz audio and framer.

The caller's 16 kHz frames reach the bot as 8 kHz mu-law (``media_stream.audio.Decimator``: a
low-pass, then every second sample), numbered as they come (binary frames carry no number); the
bot's 8 kHz mu-law leaves as 20 ms binary frames of 16 kHz PCM (``Upsampler``), each 80 ms frame
followed by a ``notify`` (Twilio's mark). ``websocket:connected`` opens the stream (Twilio's
``connected`` and ``start`` at once).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from transports.media_stream.audio import Decimator, Upsampler
from transports.media_stream.stream import CarrierFramer, CarrierStream
from transports.twilio import protocol as tp
from transports.vonage.protocol import CARRIER, encode_outbound, parse_inbound
from tts_service import g711


class VonageStream(CarrierStream):
    carrier = CARRIER
    implicit_connected = True

    def __init__(self) -> None:
        super().__init__()
        self._down = Decimator()
        self._frames = 0

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        event = parse_inbound(data)
        if isinstance(event, tp.Media):
            self._frames += 1
            pcm8k = self._down.process(np.frombuffer(event.payload, dtype="<i2").astype(np.int16))
            mulaw = g711.encode(pcm8k).tobytes()
            return dataclasses.replace(
                event, chunk=self._frames, timestamp_ms=20 * self._frames, payload=mulaw
            )
        return event


class _Widen:
    """20 ms of 8 kHz mu-law as 20 ms of 16 kHz little-endian PCM (one per call: it has state)."""

    def __init__(self) -> None:
        self._up = Upsampler()

    def __call__(self, mulaw: bytes) -> bytes:
        return self._up.process(g711.decode(mulaw)).astype("<i2").tobytes()


class VonageDialect:
    """What a Vonage call is made of (``media_stream.stream.Dialect``)."""

    name: str = CARRIER
    ends_by_close: bool = True

    def stream(self) -> VonageStream:
        return VonageStream()

    def framer(self, start: tp.Start) -> CarrierFramer:
        return CarrierFramer(start.stream_sid, encode_outbound, convert=_Widen(), binary_media=True)


VONAGE = VonageDialect()

__all__ = ["VONAGE", "VonageDialect", "VonageStream"]
