"""Another carrier's media stream as Twilio's state machine: one order, one framing, one ledger.

    class TelnyxStream(CarrierStream):                   # a carrier parses its own messages
        carrier = "telnyx"
        def parse(self, data): return telnyx_protocol.parse_inbound(data)
    event = stream.receive(text)                         # Connected, Start, Media, Mark, Dtmf, Stop
    framer = CarrierFramer(start.stream_sid, telnyx_protocol.encode_outbound)

Every carrier's messages are parsed into Twilio's event types (``transports.twilio.protocol``)
and checked by Twilio's ``InboundStream``: ``connected``, one ``start``, then media, marks and
keys, then ``stop``; anything else ends the call (one log line). Numbering is the carrier's own
business, so ``CarrierStream`` numbers the events itself; a media chunk that arrives after a later
one (Telnyx says its media order is not guaranteed) is dropped, not fatal, and counted in
``late_media``. A message that carries nothing for the bot (a playback confirmation the ledger
does not need, a carrier's own error report) parses to ``IGNORED``.

The bot's audio leaves as Twilio's does: each 80 ms frame as four 20 ms media messages and a
mark named ``f<seq>`` (``CarrierFramer``, in the carrier's message shapes; ``convert`` turns each
20 ms of mu-law into the carrier's encoding), so ``marks.MarkLedger`` and the Pipecat transport
know which words were heard on every carrier alike.

Sans-I/O: no I/O, no clock, no asyncio, no Pipecat.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

from transports.media_stream import wire
from transports.twilio import protocol as tp
from transports.twilio import stream as ts

log = logging.getLogger("warmline.carriers")

#: what a message that carries nothing for the bot parses to (the call's reader skips it)
IGNORED = tp.Connected("ignored", "0")
#: a framer's binary message travels to ``CarrierCall`` as this prefix and its bytes in base64
#: (the framer's contract with Twilio's call is a list of text messages); the call sends bytes
BINARY = "\x00binary:"


class CarrierStream(ts.InboundStream):
    """One carrier's stream, checked in Twilio's order (see the module doc); subclass and ``parse``."""

    carrier = "carrier"
    #: the carrier sends no ``connected``: its ``start`` opens the stream (Plivo)
    implicit_connected = False

    def __init__(self) -> None:
        super().__init__(chunk_bytes=None)
        self._seq = 0
        self._chunk = 0
        self._carrier_chunk = -1
        self.late_media = 0
        #: the carrier asked the bot to hold its audio (Asterisk's MEDIA_XOFF, until MEDIA_XON)
        self.xoff = False

    def parse(self, data: str | bytes) -> tp.InboundEvent:
        """One carrier message as Twilio's event (``IGNORED`` for nothing); raises a protocol error."""
        raise NotImplementedError

    def receive(self, data: str | bytes) -> tp.InboundEvent:
        event = self.parse(data)
        if event is IGNORED:
            return event
        if (
            self.implicit_connected
            and isinstance(event, tp.Start)
            and self.state is ts.StreamState.AWAIT_CONNECTED
        ):
            self.accept(tp.Connected())
        late = isinstance(event, tp.Media) and event.chunk <= self._carrier_chunk
        if late and self.state is ts.StreamState.STREAMING:
            self.late_media += 1
            if self.late_media == 1:
                log.info("%s stream: a media chunk came late and was dropped", self.carrier)
            return IGNORED
        try:
            accepted = self.accept(self._numbered(event))  # changes nothing when it raises
        except tp.OutOfOrderError as exc:
            raise wire.CarrierOutOfOrderError(self.carrier, str(exc)) from None
        if not isinstance(event, tp.Connected):
            self._seq += 1
        if isinstance(event, tp.Media):
            self._chunk += 1
            self._carrier_chunk = event.chunk
        return accepted

    def _numbered(self, event: tp.InboundEvent) -> tp.InboundEvent:
        """The event with this stream's next numbers (and the stream's id where it had none)."""
        if isinstance(event, tp.Connected):
            return event
        start = self.start
        sid = event.stream_sid or (start.stream_sid if start is not None else "")
        if isinstance(event, tp.Media):
            return dataclasses.replace(
                event, sequence_number=self._seq + 1, stream_sid=sid, chunk=self._chunk + 1
            )
        return dataclasses.replace(event, sequence_number=self._seq + 1, stream_sid=sid)


class CarrierFramer(ts.OutboundFramer):
    """The bot's 80 ms mu-law frames as four 20 ms media messages and a mark, in a carrier's shapes."""

    def __init__(
        self,
        stream_sid: str,
        encode: Callable[[tp.OutboundMessage], str | bytes],
        *,
        convert: Callable[[bytes], bytes] | None = None,
        binary_media: bool = False,
    ) -> None:
        super().__init__(stream_sid)
        self._encode = encode
        self._convert = convert
        self._binary_media = binary_media

    def frame(self, mulaw: bytes | npt.NDArray[np.uint8]) -> tuple[list[str], str]:
        data = bytes(mulaw)
        if len(data) != tp.FRAME_BYTES:
            raise ValueError(f"an 80 ms frame at 8 kHz is {tp.FRAME_BYTES} mu-law bytes, not {len(data)}")
        name = self.mark_name(self.frames_sent)
        self._next_seq += 1
        messages = [
            self._text(tp.OutboundMedia(self.stream_sid, self._audio(data[i : i + tp.CHUNK_BYTES])))
            for i in range(0, tp.FRAME_BYTES, tp.CHUNK_BYTES)
        ]
        messages.append(self._text(tp.OutboundMark(self.stream_sid, name)))
        return messages, name

    def clear(self) -> str:
        return self._text(tp.Clear(self.stream_sid))

    def _audio(self, chunk: bytes) -> bytes:
        return self._convert(chunk) if self._convert is not None else chunk

    def _text(self, message: tp.OutboundMessage) -> str:
        encoded = self._encode(message)
        if isinstance(encoded, bytes):
            if not self._binary_media:
                raise TypeError("this framer sends text messages")
            return BINARY + base64.b64encode(encoded).decode("ascii")
        return encoded


class Dialect(Protocol):
    """What one carrier's call needs: its name, a fresh stream, a framer for a started stream."""

    name: str
    #: the carrier ends a stream by closing the socket, not with ``stop`` (Plivo): a close is
    #: then the call's normal end
    ends_by_close: bool

    def stream(self) -> CarrierStream: ...

    def framer(self, start: tp.Start) -> ts.OutboundFramer: ...


__all__ = ["BINARY", "IGNORED", "CarrierFramer", "CarrierStream", "Dialect"]
