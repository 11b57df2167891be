"""Telnyx media streaming on the wire, as a sans-I/O codec onto Twilio's event types.

    event = parse_inbound(text)            # tp.Connected, Start, Media, Mark, Dtmf, Stop (or IGNORED)
    text = encode_outbound(tp.OutboundMark(stream_id, "f12"))

Message shapes (JSON text frames; Telnyx's AsyncAPI "Stream call media over WebSocket")::

    carrier -> bot   {"event": "connected", "version": "1.0.0"}
                     {"event": "start", "sequence_number": "1", "stream_id": S, "start": {"user_id",
                      "call_control_id", "call_session_id", "from", "to", "client_state",
                      "custom_parameters": {...}, "media_format": {"encoding": "PCMU",
                      "sample_rate": 8000, "channels": 1}}}
                     {"event": "media", "sequence_number", "stream_id", "media": {"track": "inbound",
                      "chunk": "2", "timestamp": "5", "payload": base64 RTP payload (no header)}}
                     {"event": "mark", "sequence_number", "stream_id", "mark": {"name": N}}
                     {"event": "dtmf", "sequence_number", "stream_id", "dtmf": {"digit": "1"}}
                     {"event": "error", "stream_id", "payload": {"code", "title", "detail"}}
                     {"event": "stop", "sequence_number", "stream_id", "stop": {"user_id", "call_control_id"}}
    bot -> carrier   {"event": "media", "media": {"payload": base64 PCMU}}      (RTP bidirectional mode)
                     {"event": "mark", "mark": {"name": N}}
                     {"event": "clear"}

Telnyx echoes a mark once the media before it has played (at once when nothing is queued), and a
``clear`` returns the marks it dropped: Twilio's semantics, so Twilio's mark ledger applies as is.
Media on the ``outbound`` track (``both_tracks``) and ``error`` frames carry nothing for the bot
and parse to ``IGNORED`` (the stream logs the error). The docs leave unstated whether the bot's
frames may carry ``stream_id``; they are sent without it, as the docs' examples are. Only PCMU at
8 kHz is spoken (the TeXML answer asks for it); any other format ends the call at its start.

Pure: no I/O, no clock, no state, no asyncio or Pipecat.
"""

from __future__ import annotations

import logging
from typing import Any

from transports.logsafe import loggable
from transports.media_stream import wire
from transports.media_stream.stream import IGNORED
from transports.twilio import protocol as tp

CARRIER = "telnyx"
ENCODING = "PCMU"
SAMPLE_RATE = 8000
EVENTS = ("connected", "start", "media", "mark", "dtmf", "error", "stop")

log = logging.getLogger("warmline.telnyx")


def parse_inbound(data: str | bytes) -> tp.InboundEvent:
    """One Telnyx message as Twilio's event type; raises a protocol error (``telnyx_*`` codes)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if not isinstance(event, str) or event not in EVENTS:
        raise wire.CarrierMalformedError(CARRIER, f"unknown event {str(event)[:40]!r}")
    if event == "connected":
        version = message.get("version", "1.0.0")
        return tp.Connected("Call", version if isinstance(version, str) and version else "1.0.0")
    if event == "error":
        detail = message.get("payload")
        log.warning("telnyx reports an error on the stream: %s", loggable(detail))
        return IGNORED
    seq = wire.integer(message, "sequence_number", event, CARRIER, default=0)
    sid = wire.string(message, "stream_id", event, CARRIER)
    if event == "start":
        return _parse_start(message, seq, sid)
    if event == "media":
        media = wire.obj(message, "media", event, CARRIER)
        track = media.get("track", "inbound")
        if track != "inbound":
            return IGNORED  # the bot's own audio, when both tracks are streamed
        return wire.media(media, seq, sid, CARRIER)
    if event == "mark":
        mark = wire.obj(message, "mark", event, CARRIER)
        return tp.Mark(seq, sid, wire.mark_name(mark, "name", "mark", CARRIER))
    if event == "dtmf":
        digit = wire.dtmf_digit(wire.obj(message, "dtmf", event, CARRIER), "digit", "dtmf", CARRIER)
        return tp.Dtmf(seq, sid, "inbound", digit)
    stop = message.get("stop")
    call = stop.get("call_control_id") if isinstance(stop, dict) else None
    return tp.Stop(seq, sid, "-", call if isinstance(call, str) and call else "-")


def _parse_start(message: dict[str, Any], seq: int, sid: str) -> tp.Start:
    start = wire.obj(message, "start", "start", CARRIER)
    fmt = wire.obj(start, "media_format", "start", CARRIER)
    encoding = wire.string(fmt, "encoding", "start.media_format", CARRIER)
    rate = wire.integer(fmt, "sample_rate", "start.media_format", CARRIER)
    channels = wire.integer(fmt, "channels", "start.media_format", CARRIER, default=1)
    if (encoding.upper(), rate, channels) != (ENCODING, SAMPLE_RATE, 1):
        raise wire.CarrierMediaFormatError(
            CARRIER,
            f"the stream carries {encoding} at {rate} Hz, {channels} channel(s); "
            f"this bridge speaks {ENCODING} at {SAMPLE_RATE} Hz, mono (bidirectionalCodec PCMU)",
        )
    return tp.Start(
        seq,
        sid,
        wire.optional_string(start, "user_id"),
        wire.string(start, "call_control_id", "start", CARRIER),
        ("inbound",),
        tp.MediaFormat(),
        wire.string_map(start, "custom_parameters", "start", CARRIER),
    )


def encode_outbound(message: tp.OutboundMessage) -> str:
    """The JSON text of a bot message to Telnyx."""
    if isinstance(message, tp.OutboundMedia):
        return wire.dumps({"event": "media", "media": {"payload": wire.b64(message.payload)}})
    if isinstance(message, tp.OutboundMark):
        return wire.dumps({"event": "mark", "mark": {"name": message.name}})
    return wire.dumps({"event": "clear"})


# -- the carrier's side (the simulated carrier, and golden tests) ------------------------------


def parse_outbound(data: str | bytes, stream_id: str) -> tp.OutboundMessage:
    """A bot's message as Telnyx reads it (``stream_id``: the stream it came on)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if event == "clear":
        return tp.Clear(stream_id)
    if event == "mark":
        mark = wire.obj(message, "mark", event, CARRIER)
        return tp.OutboundMark(stream_id, wire.mark_name(mark, "name", "mark", CARRIER))
    if event == "media":
        return tp.OutboundMedia(
            stream_id, wire.payload(wire.obj(message, "media", event, CARRIER).get("payload"), CARRIER)
        )
    raise wire.CarrierMalformedError(CARRIER, f"a bot sends media, mark or clear, not {str(event)[:40]!r}")


def encode_inbound(event: tp.InboundEvent, *, call_control_id: str = "v3:call", user_id: str = "user") -> str:
    """The JSON text of a Telnyx message carrying ``event`` (numbers as strings, as Telnyx sends them)."""
    if isinstance(event, tp.Connected):
        return wire.dumps({"event": "connected", "version": event.version})
    head = {"sequence_number": str(event.sequence_number), "stream_id": event.stream_sid}
    if isinstance(event, tp.Start):
        start = {
            "user_id": user_id,
            "call_control_id": event.call_sid,
            "call_session_id": "session",
            "from": "+15550100",
            "to": "+15550199",
            "custom_parameters": dict(event.custom_parameters),
            "media_format": {"encoding": ENCODING, "sample_rate": SAMPLE_RATE, "channels": 1},
        }
        return wire.dumps({"event": "start", **head, "start": start})
    if isinstance(event, tp.Media):
        media = {
            "track": event.track,
            "chunk": str(event.chunk),
            "timestamp": str(event.timestamp_ms),
            "payload": wire.b64(event.payload),
        }
        return wire.dumps({"event": "media", **head, "media": media})
    if isinstance(event, tp.Mark):
        return wire.dumps({"event": "mark", **head, "mark": {"name": event.name}})
    if isinstance(event, tp.Dtmf):
        return wire.dumps({"event": "dtmf", **head, "dtmf": {"digit": event.digit}})
    return wire.dumps(
        {"event": "stop", **head, "stop": {"user_id": user_id, "call_control_id": call_control_id}}
    )


__all__ = [
    "CARRIER",
    "ENCODING",
    "SAMPLE_RATE",
    "encode_inbound",
    "encode_outbound",
    "parse_inbound",
    "parse_outbound",
]
