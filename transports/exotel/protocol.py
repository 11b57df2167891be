"""Exotel's Voicebot (bidirectional stream) applet on the wire, as a sans-I/O codec onto Twilio's
event types.

    event = parse_inbound(text)            # tp.Connected, Start, Media, Mark, Dtmf, Stop
    text = encode_outbound(tp.OutboundMark(stream_sid, "f12"))

Message shapes (JSON text frames; Exotel's AgentStream "WebSocket protocol")::

    carrier -> bot   {"event": "connected"}
                     {"event": "start", "sequence_number": "1", "stream_sid": S, "start": {"stream_sid",
                      "call_sid", "account_sid", "from", "to", "custom_parameters": {...},
                      "media_format": {"encoding": "audio/x-raw", "sample_rate": "8000", "bit_rate": "16"}}}
                     {"event": "media", "sequence_number", "stream_sid", "media": {"chunk": "2",
                      "timestamp": "200", "payload": base64 of 16-bit little-endian PCM at 8 kHz}}
                     {"event": "dtmf", "sequence_number", "stream_sid", "dtmf": {"digit": "5", "duration"}}
                     {"event": "mark", "sequence_number", "stream_sid", "mark": {"name": N}}
                     {"event": "stop", "sequence_number", "stream_sid", "stop": {...}}
    bot -> carrier   {"event": "media", "stream_sid", "media": {"payload": base64 PCM}}
                     {"event": "mark", "stream_sid", "mark": {"name": N}}
                     {"event": "clear", "stream_sid"}

Exotel's audio is linear: the caller's reaches the bot as mu-law (the phone pipeline's format,
companded here: what G.711 costs, nothing more), and the bot's mu-law frames leave as linear PCM,
20 ms (320 bytes) a message, each a multiple of 320 bytes as Exotel requires. Exotel recommends
messages of at least 100 ms against network jitter; 20 ms ones keep a mark after each 80 ms
frame (so the words heard are known to the frame), and the bot keeps 240 ms queued at Exotel
(``lead_frames``), which is what covers the jitter. Only 8 kHz is spoken (the applet's default;
``?sample-rate=16000`` is refused at the start). The docs do not say whether a ``clear`` echoes
the marks it dropped; the mark ledger needs neither answer.

Pure: no I/O, no clock, no state, no asyncio or Pipecat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from transports.media_stream import wire
from transports.twilio import protocol as tp
from tts_service import g711

CARRIER = "exotel"
ENCODING = "audio/x-raw"
SAMPLE_RATE = 8000
EVENTS = ("connected", "start", "media", "mark", "dtmf", "stop")


def to_mulaw(pcm16: bytes) -> bytes:
    """16-bit little-endian PCM as mu-law bytes."""
    return g711.encode(np.frombuffer(pcm16, dtype="<i2").astype(np.int16)).tobytes()


def to_pcm16(mulaw: bytes) -> bytes:
    """Mu-law bytes as 16-bit little-endian PCM."""
    return g711.decode(mulaw).astype("<i2").tobytes()


def parse_inbound(data: str | bytes) -> tp.InboundEvent:
    """One Exotel message as Twilio's event type; raises a protocol error (``exotel_*`` codes)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if not isinstance(event, str) or event not in EVENTS:
        raise wire.CarrierMalformedError(CARRIER, f"unknown event {str(event)[:40]!r}")
    if event == "connected":
        return tp.Connected()
    seq = wire.integer(message, "sequence_number", event, CARRIER, default=0)
    sid = wire.string(message, "stream_sid", event, CARRIER)
    if event == "start":
        return _parse_start(message, seq, sid)
    if event == "media":
        return wire.media(wire.obj(message, "media", event, CARRIER), seq, sid, CARRIER, convert=to_mulaw)
    if event == "mark":
        mark = wire.obj(message, "mark", event, CARRIER)
        return tp.Mark(seq, sid, wire.mark_name(mark, "name", "mark", CARRIER))
    if event == "dtmf":
        digit = wire.dtmf_digit(wire.obj(message, "dtmf", event, CARRIER), "digit", "dtmf", CARRIER)
        return tp.Dtmf(seq, sid, "inbound", digit)
    return tp.Stop(seq, sid, "-", "-")


def _parse_start(message: Mapping[str, Any], seq: int, sid: str) -> tp.Start:
    start = wire.obj(message, "start", "start", CARRIER)
    fmt = wire.obj(start, "media_format", "start", CARRIER)
    encoding = wire.string(fmt, "encoding", "start.media_format", CARRIER)
    rate = wire.integer(fmt, "sample_rate", "start.media_format", CARRIER)
    bits = wire.integer(fmt, "bit_rate", "start.media_format", CARRIER, default=16)
    if (encoding, rate, bits) != (ENCODING, SAMPLE_RATE, 16):
        raise wire.CarrierMediaFormatError(
            CARRIER,
            f"the stream carries {encoding} at {rate} Hz, {bits} bits; this bridge speaks 16-bit "
            f"{ENCODING} at {SAMPLE_RATE} Hz (the applet's default sample rate)",
        )
    return tp.Start(
        seq,
        sid,
        wire.optional_string(start, "account_sid"),
        wire.string(start, "call_sid", "start", CARRIER),
        ("inbound",),
        tp.MediaFormat(),
        wire.string_map(start, "custom_parameters", "start", CARRIER),
    )


def encode_outbound(message: tp.OutboundMessage) -> str:
    """The JSON text of a bot message to Exotel (media: the payload is already linear PCM)."""
    if isinstance(message, tp.OutboundMedia):
        return wire.dumps(
            {
                "event": "media",
                "stream_sid": message.stream_sid,
                "media": {"payload": wire.b64(message.payload)},
            }
        )
    if isinstance(message, tp.OutboundMark):
        return wire.dumps({"event": "mark", "stream_sid": message.stream_sid, "mark": {"name": message.name}})
    return wire.dumps({"event": "clear", "stream_sid": message.stream_sid})


# -- the carrier's side (the simulated carrier, and golden tests) ------------------------------


def parse_outbound(data: str | bytes) -> tp.OutboundMessage:
    """A bot's message as Exotel reads it (media back to mu-law, for the simulated caller's ear)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if not isinstance(event, str) or event not in ("media", "mark", "clear"):
        raise wire.CarrierMalformedError(
            CARRIER, f"a bot sends media, mark or clear, not {str(event)[:40]!r}"
        )
    sid = wire.string(message, "stream_sid", event, CARRIER)
    if event == "clear":
        return tp.Clear(sid)
    if event == "mark":
        mark = wire.obj(message, "mark", event, CARRIER)
        return tp.OutboundMark(sid, wire.mark_name(mark, "name", "mark", CARRIER))
    pcm = wire.payload(wire.obj(message, "media", event, CARRIER).get("payload"), CARRIER, sample_bytes=2)
    if len(pcm) % 320:
        raise wire.CarrierBadPayloadError(
            CARRIER, f"media of {len(pcm)} bytes: Exotel wants multiples of 320"
        )
    return tp.OutboundMedia(sid, to_mulaw(pcm))


def encode_inbound(event: tp.InboundEvent) -> str:
    """The JSON text of an Exotel message carrying ``event`` (media: mu-law in, linear PCM out)."""
    if isinstance(event, tp.Connected):
        return wire.dumps({"event": "connected"})
    head = {"sequence_number": str(event.sequence_number), "stream_sid": event.stream_sid}
    if isinstance(event, tp.Start):
        start = {
            "stream_sid": event.stream_sid,
            "call_sid": event.call_sid,
            "account_sid": event.account_sid,
            "from": "+919876543210",
            "to": "+918047491899",
            "custom_parameters": dict(event.custom_parameters),
            "media_format": {"encoding": ENCODING, "sample_rate": str(SAMPLE_RATE), "bit_rate": "16"},
        }
        return wire.dumps({"event": "start", **head, "start": start})
    if isinstance(event, tp.Media):
        media = {
            "chunk": str(event.chunk),
            "timestamp": str(event.timestamp_ms),
            "payload": wire.b64(to_pcm16(event.payload)),
        }
        return wire.dumps({"event": "media", **head, "media": media})
    if isinstance(event, tp.Mark):
        return wire.dumps({"event": "mark", **head, "mark": {"name": event.name}})
    if isinstance(event, tp.Dtmf):
        return wire.dumps({"event": "dtmf", **head, "dtmf": {"digit": event.digit, "duration": "100"}})
    return wire.dumps({"event": "stop", **head, "stop": {"call_sid": event.call_sid, "reason": "callended"}})


__all__ = [
    "CARRIER",
    "ENCODING",
    "SAMPLE_RATE",
    "encode_inbound",
    "encode_outbound",
    "parse_inbound",
    "parse_outbound",
    "to_mulaw",
    "to_pcm16",
]
