"""Twilio Media Streams as state machines: the order of a carrier's events, the bot's framing.

    stream = InboundStream()                  # one per call: checks the order of Twilio's events
    event = stream.receive(text)              # Connected, Start, Media, Mark, Dtmf or Stop
    framer = OutboundFramer(stream_sid)       # 80 ms engine frames -> 4 media messages and a mark
    messages, mark = framer.frame(mulaw_640)  # send ``messages`` in order, as one unit

Order (``InboundStream``): ``connected``, then one ``start``, then media/mark/dtmf, then ``stop``;
``sequenceNumber`` and ``media.chunk`` only grow; every message after ``start`` names its stream
and media comes on a track the stream announced. Anything else raises ``OutOfOrderError`` (or a
shape error from ``twilio_protocol``); the stream's state does not change on an error.

Sans-I/O: this module must never do I/O, read a clock, or import asyncio or Pipecat.
"""

from __future__ import annotations

import enum
import logging

import numpy as np
import numpy.typing as npt

from transports.logsafe import loggable
from transports.twilio.protocol import (
    CHUNK_BYTES,
    FRAME_BYTES,
    Clear,
    Connected,
    Dtmf,
    InboundEvent,
    Mark,
    Media,
    OutboundMark,
    OutboundMedia,
    OutOfOrderError,
    Start,
    Stop,
    encode_outbound,
    parse_inbound,
)

log = logging.getLogger("warmline.twilio")


# -- the inbound state machine ----------------------------------------------------------------


class StreamState(enum.Enum):
    """Where a stream is in Twilio's event order."""

    AWAIT_CONNECTED = "await_connected"
    AWAIT_START = "await_start"
    STREAMING = "streaming"
    STOPPED = "stopped"


class InboundStream:
    """The carrier side of one call: parses each message and checks it comes in order.

    After ``receive`` returns ``Start`` the stream's metadata is in ``start``; after ``Stop`` the
    stream is over and any further message raises ``OutOfOrderError``.
    """

    def __init__(self, *, chunk_bytes: int | None = CHUNK_BYTES) -> None:
        self._chunk_bytes = chunk_bytes
        self._state = StreamState.AWAIT_CONNECTED
        self._start: Start | None = None
        self._last_seq = 0
        self._last_chunk = 0

    @property
    def state(self) -> StreamState:
        return self._state

    @property
    def start(self) -> Start | None:
        """The ``start`` event once received."""
        return self._start

    def _set_state(self, state: StreamState) -> None:
        sid = loggable(self._start.stream_sid) if self._start else "-"
        log.debug("twilio stream %s: %s -> %s", sid, self._state, state)
        self._state = state

    def receive(self, data: str | bytes) -> InboundEvent:
        """Parse one message and check its place in the stream; raises a TwilioProtocolError."""
        return self.accept(parse_inbound(data, chunk_bytes=self._chunk_bytes))

    def accept(self, event: InboundEvent) -> InboundEvent:
        """Check the place of one parsed event (another carrier's codec may have parsed it)."""
        state = self._state
        if state is StreamState.STOPPED:
            raise OutOfOrderError(f"{_name(event)} after stop: the stream is over")
        if isinstance(event, Connected):
            if state is not StreamState.AWAIT_CONNECTED:
                raise OutOfOrderError("connected received twice")
            self._set_state(StreamState.AWAIT_START)
            return event
        if state is StreamState.AWAIT_CONNECTED:
            raise OutOfOrderError(f"{_name(event)} before connected")
        if isinstance(event, Start):
            if state is not StreamState.AWAIT_START:
                raise OutOfOrderError("start received twice")
            self._start = event
            self._last_seq = event.sequence_number
            self._set_state(StreamState.STREAMING)
            return event
        if state is StreamState.AWAIT_START or self._start is None:
            raise OutOfOrderError(f"{_name(event)} before start")
        self._check_in_stream(event, self._start)
        if isinstance(event, Stop):
            self._set_state(StreamState.STOPPED)
        return event

    def _check_in_stream(self, event: Media | Mark | Dtmf | Stop, start: Start) -> None:
        if event.stream_sid != start.stream_sid:
            raise OutOfOrderError(f"{_name(event)} for stream {event.stream_sid!r}, not {start.stream_sid!r}")
        if event.sequence_number <= self._last_seq:
            raise OutOfOrderError(
                f"{_name(event)} with sequenceNumber {event.sequence_number} after {self._last_seq}"
            )
        if isinstance(event, Media):
            if event.track not in start.tracks:
                raise OutOfOrderError(
                    f"media on track {event.track!r}; the stream carries {list(start.tracks)}"
                )
            if event.chunk <= self._last_chunk:
                raise OutOfOrderError(f"media chunk {event.chunk} after chunk {self._last_chunk}")
            self._last_chunk = event.chunk
        self._last_seq = event.sequence_number


def _name(event: InboundEvent) -> str:
    return type(event).__name__.lower()


# -- the outbound framer ----------------------------------------------------------------------


class OutboundFramer:
    """Bot side of one call: each 80 ms frame becomes four 160-byte media messages and a mark.

    Marks are named ``f<seq>``, ``seq`` counting every frame sent on the stream (it never restarts,
    across answers, pauses and clears), so a mark's name says which frame has been played.
    """

    def __init__(self, stream_sid: str, *, mark_prefix: str = "f") -> None:
        self.stream_sid = stream_sid
        self._prefix = mark_prefix
        self._next_seq = 0

    @property
    def frames_sent(self) -> int:
        """Frames framed so far: the ``seq`` of the next frame."""
        return self._next_seq

    def mark_name(self, seq: int) -> str:
        return f"{self._prefix}{seq}"

    def mark_seq(self, name: str) -> int | None:
        """The frame number a mark name carries, or None if the name is not one of ours."""
        digits = name[len(self._prefix) :] if name.startswith(self._prefix) else ""
        return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else None

    def frame(self, mulaw: bytes | npt.NDArray[np.uint8]) -> tuple[list[str], str]:
        """The messages of one 80 ms mu-law frame (640 bytes), in order, and the frame's mark name."""
        data = bytes(mulaw)
        if len(data) != FRAME_BYTES:
            raise ValueError(f"an 80 ms frame at 8 kHz is {FRAME_BYTES} mu-law bytes, not {len(data)}")
        name = self.mark_name(self._next_seq)
        self._next_seq += 1
        messages = [
            encode_outbound(OutboundMedia(self.stream_sid, data[i : i + CHUNK_BYTES]))
            for i in range(0, FRAME_BYTES, CHUNK_BYTES)
        ]
        messages.append(encode_outbound(OutboundMark(self.stream_sid, name)))
        return messages, name

    def clear(self) -> str:
        """The ``clear`` message for this stream."""
        return encode_outbound(Clear(self.stream_sid))


__all__ = ["InboundStream", "OutboundFramer", "StreamState"]
