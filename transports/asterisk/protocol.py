"""Asterisk's WebSocket channel driver (``chan_websocket``, JSON control messages) on the wire,
as a sans-I/O codec onto Twilio's event types.

    event = parse_inbound(message)         # tp.Start, Media, Mark, Dtmf (or IGNORED / flow control)
    data = encode_outbound(tp.OutboundMark(channel_id, "f12"))   # MARK_MEDIA

Message shapes (Asterisk's "WebSocket" channel driver page; ``control_message_format = json``)::

    asterisk -> bot  text   {"event": "MEDIA_START", "connection_id", "channel", "channel_id",
                             "format": "ulaw", "optimal_frame_size": 160, "ptime": 20,
                             "channel_variables": {...}}
                     binary the caller's audio in the channel's format (ulaw: 8 kHz mu-law)
                     text   {"event": "MEDIA_MARK_PROCESSED", "channel_id", "correlation_id": N}
                     text   {"event": "MEDIA_XOFF" | "MEDIA_XON" | "QUEUE_DRAINED" | "STATUS" |
                             "MEDIA_BUFFERING_COMPLETED", "channel_id", ...}
                     text   {"event": "DTMF_END", "channel_id", "digit": "5"}
    bot -> asterisk  binary the bot's audio (ulaw), any length: Asterisk reframes and queues it
                     text   {"command": "MARK_MEDIA", "correlation_id": N}
                     text   {"command": "FLUSH_MEDIA"}

A mark is Twilio's: ``MEDIA_MARK_PROCESSED`` comes back when the mark reaches the front of
Asterisk's frame queue, that is once Asterisk has taken every frame queued before it for the
caller, so the words heard are those of the frames Asterisk actually took. ``FLUSH_MEDIA`` is the
clear; the docs do not say whether the marks it drops are reported, and the mark ledger needs
neither. ``MEDIA_XOFF``/``MEDIA_XON`` are Asterisk's flow control: ``xoff(event)`` tells the
stream to hold the bot's audio until XON (the bot keeps only 240 ms queued, far below the high
water mark, so it rarely comes). Asterisk ends the call by closing the socket. Only ``ulaw`` is
spoken (the dialstring's ``c(ulaw)``).

Pure: no I/O, no clock, no state, no asyncio or Pipecat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transports.media_stream import wire
from transports.media_stream.stream import IGNORED
from transports.twilio import protocol as tp

CARRIER = "asterisk"
FORMAT = "ulaw"
#: Asterisk's own events that carry nothing for the bot
QUIET_EVENTS = ("QUEUE_DRAINED", "STATUS", "MEDIA_BUFFERING_COMPLETED", "DTMF_BEGIN")


@dataclass(frozen=True, slots=True)
class FlowControl:
    """``MEDIA_XOFF`` (``paused``) or ``MEDIA_XON``: hold, or resume, the bot's audio."""

    paused: bool


def parse_inbound(data: str | bytes) -> tp.InboundEvent | FlowControl:
    """One Asterisk message as Twilio's event type (binary: Media, unnumbered), or flow control."""
    if isinstance(data, bytes):
        if not data or len(data) > wire.MAX_PAYLOAD_BYTES:
            raise wire.CarrierBadPayloadError(CARRIER, f"a binary frame of {len(data)} bytes")
        return tp.Media(0, "", "inbound", 0, 0, data)
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if event == "MEDIA_START":
        return _parse_start(message)
    if event == "MEDIA_MARK_PROCESSED":
        name = wire.mark_name(message, "correlation_id", event, CARRIER)
        return tp.Mark(0, "", name)
    if event in ("MEDIA_XOFF", "MEDIA_XON"):
        return FlowControl(paused=event == "MEDIA_XOFF")
    if event == "DTMF_END":
        return tp.Dtmf(0, "", "inbound", wire.dtmf_digit(message, "digit", event, CARRIER))
    if event in QUIET_EVENTS:
        return IGNORED
    raise wire.CarrierMalformedError(CARRIER, f"unknown event {str(event)[:40]!r}")


def _parse_start(message: dict[str, Any]) -> tp.Start:
    fmt = wire.string(message, "format", "MEDIA_START", CARRIER)
    if fmt != FORMAT:
        raise wire.CarrierMediaFormatError(
            CARRIER, f"the channel carries {fmt}; this bridge speaks {FORMAT} (dial with c(ulaw))"
        )
    channel_id = wire.string(message, "channel_id", "MEDIA_START", CARRIER)
    variables = message.get("channel_variables") or {}
    if not isinstance(variables, dict):
        raise wire.CarrierMalformedError(CARRIER, "MEDIA_START: 'channel_variables' must be an object")
    params = {k: v[:256] for k, v in variables.items() if isinstance(k, str) and isinstance(v, str)}
    connection = message.get("connection_id")
    account = connection if isinstance(connection, str) and connection else "-"
    return tp.Start(0, channel_id, account, channel_id, ("inbound",), tp.MediaFormat(), params)


def encode_outbound(message: tp.OutboundMessage) -> str | bytes:
    """A bot message to Asterisk: audio as a binary frame, marks and the clear as JSON commands."""
    if isinstance(message, tp.OutboundMedia):
        return message.payload
    if isinstance(message, tp.OutboundMark):
        return wire.dumps({"command": "MARK_MEDIA", "correlation_id": message.name})
    return wire.dumps({"command": "FLUSH_MEDIA"})


# -- the PBX's side (the simulated Asterisk, and golden tests) ----------------------------------


def parse_outbound(data: str | bytes, channel_id: str) -> tp.OutboundMessage:
    """A bot's message as Asterisk reads it."""
    if isinstance(data, bytes):
        return tp.OutboundMedia(channel_id, wire.payload(wire.b64(data), CARRIER))
    message = wire.loads(data, CARRIER)
    command = message.get("command")
    if command == "FLUSH_MEDIA":
        return tp.Clear(channel_id)
    if command == "MARK_MEDIA":
        name = wire.mark_name(message, "correlation_id", "MARK_MEDIA", CARRIER)
        return tp.OutboundMark(channel_id, name)
    raise wire.CarrierMalformedError(
        CARRIER, f"a bot sends audio, MARK_MEDIA or FLUSH_MEDIA, not {str(command)[:40]!r}"
    )


def encode_inbound(event: tp.InboundEvent) -> str | bytes | None:
    """An Asterisk message carrying ``event`` (None where Asterisk sends nothing)."""
    if isinstance(event, tp.Start):
        start = {
            "event": "MEDIA_START",
            "connection_id": event.account_sid,
            "channel": f"WebSocket/{event.account_sid}/0x0001",
            "channel_id": event.stream_sid,
            "format": FORMAT,
            "optimal_frame_size": tp.CHUNK_BYTES,
            "ptime": tp.CHUNK_MS,
            "channel_variables": dict(event.custom_parameters),
        }
        return wire.dumps(start)
    if isinstance(event, tp.Media):
        return event.payload
    if isinstance(event, tp.Mark):
        return wire.dumps(
            {"event": "MEDIA_MARK_PROCESSED", "channel_id": event.stream_sid, "correlation_id": event.name}
        )
    if isinstance(event, tp.Dtmf):
        return wire.dumps({"event": "DTMF_END", "channel_id": event.stream_sid, "digit": event.digit})
    return None


def flow(paused: bool, channel_id: str) -> str:
    return wire.dumps({"event": "MEDIA_XOFF" if paused else "MEDIA_XON", "channel_id": channel_id})


__all__ = [
    "CARRIER",
    "FORMAT",
    "FlowControl",
    "encode_inbound",
    "encode_outbound",
    "flow",
    "parse_inbound",
    "parse_outbound",
]
