"""Plivo audio streams on the wire, as a sans-I/O codec onto Twilio's event types.

    event = parse_inbound(text)            # tp.Start, Media, Mark, Dtmf (or IGNORED)
    text = encode_outbound(tp.OutboundMark(stream_id, "f12"))     # a checkpoint

Message shapes (JSON text frames; Plivo's "Stream Event Protocol")::

    carrier -> bot   {"event": "start", "sequenceNumber": 1, "start": {"callId", "streamId",
                      "accountId", "tracks": ["inbound"], "mediaFormat": {"encoding": "audio/x-mulaw",
                      "sampleRate": 8000}}, "extra_headers": "k1=v1;k2=v2"}
                     {"event": "media", "sequenceNumber", "streamId", "media": {"track": "inbound",
                      "timestamp": "1705312200000", "chunk": 41, "payload": base64 mu-law}}
                     {"event": "dtmf", "sequenceNumber", "streamId", "dtmf": {"track", "digit": "5"}}
                     {"event": "playedStream", "sequenceNumber", "streamId", "name": N}
                     {"event": "clearedAudio", "sequenceNumber", "streamId"}
    bot -> carrier   {"event": "playAudio", "media": {"contentType": "audio/x-mulaw",
                      "sampleRate": 8000, "payload": base64}}
                     {"event": "checkpoint", "streamId", "name": N}
                     {"event": "clearAudio", "streamId"}

A checkpoint is Twilio's mark: Plivo answers ``playedStream`` once the audio queued before it has
played. Unlike Twilio, Plivo sends ``playedStream`` only for audio that played, so after
``clearAudio`` the dropped checkpoints are never echoed; ``clearedAudio`` confirms the clear. The
mark ledger freezes what was heard when the clear is sent, so it needs neither: ``clearedAudio``
parses to ``IGNORED``. Plivo opens with ``start`` (no ``connected``) and ends a stream by closing
the socket (it documents no ``stop``; one is accepted all the same). The docs show
``extra_headers`` both as ``a=1;b=2`` and as ``a=1,b=2``: both separators are read.

Pure: no I/O, no clock, no state, no asyncio or Pipecat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from transports.media_stream import wire
from transports.media_stream.stream import IGNORED
from transports.twilio import protocol as tp

CARRIER = "plivo"
ENCODING = "audio/x-mulaw"
SAMPLE_RATE = 8000
EVENTS = ("start", "media", "dtmf", "playedStream", "clearedAudio", "stop")
_HEADER = re.compile(r"[A-Za-z0-9]{1,64}")


def extra_headers(text: object) -> dict[str, str]:
    """The ``extra_headers`` string as a dict (pairs ``k=v`` split on ``;`` or ``,``)."""
    if not isinstance(text, str):
        return {}
    found: dict[str, str] = {}
    for pair in re.split(r"[;,]", text[:512]):
        key, sep, value = pair.strip().partition("=")
        if sep and _HEADER.fullmatch(key):
            found[key] = value[:256]
    return found


def parse_inbound(data: str | bytes) -> tp.InboundEvent:
    """One Plivo message as Twilio's event type; raises a protocol error (``plivo_*`` codes)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if not isinstance(event, str) or event not in EVENTS:
        raise wire.CarrierMalformedError(CARRIER, f"unknown event {str(event)[:40]!r}")
    seq = wire.integer(message, "sequenceNumber", event, CARRIER, default=0)
    if event == "start":
        return _parse_start(message, seq)
    if event == "clearedAudio":
        return IGNORED
    sid = message.get("streamId")
    sid = sid if isinstance(sid, str) and 0 < len(sid) <= 256 else ""  # the stream's own, when absent
    if event == "media":
        media = wire.obj(message, "media", event, CARRIER)
        track = media.get("track", "inbound")
        if track != "inbound":
            return IGNORED
        return wire.media(media, seq, sid, CARRIER)
    if event == "playedStream":
        return tp.Mark(seq, sid, wire.mark_name(message, "name", event, CARRIER))
    if event == "dtmf":
        digit = wire.dtmf_digit(wire.obj(message, "dtmf", event, CARRIER), "digit", "dtmf", CARRIER)
        return tp.Dtmf(seq, sid, "inbound", digit)
    return tp.Stop(seq, sid, "-", "-")


def _parse_start(message: Mapping[str, Any], seq: int) -> tp.Start:
    start = wire.obj(message, "start", "start", CARRIER)
    fmt = wire.obj(start, "mediaFormat", "start", CARRIER)
    encoding = wire.string(fmt, "encoding", "start.mediaFormat", CARRIER)
    rate = wire.integer(fmt, "sampleRate", "start.mediaFormat", CARRIER)
    if (encoding.split(";")[0].strip().lower(), rate) != (ENCODING, SAMPLE_RATE):
        raise wire.CarrierMediaFormatError(
            CARRIER,
            f"the stream carries {encoding} at {rate} Hz; this bridge speaks {ENCODING} at {SAMPLE_RATE} Hz "
            '(contentType="audio/x-mulaw;rate=8000")',
        )
    tracks = start.get("tracks", ["inbound"])
    if not isinstance(tracks, list) or not tracks or not all(isinstance(t, str) and t for t in tracks):
        raise wire.CarrierMalformedError(CARRIER, "start: 'tracks' must be a non-empty list of strings")
    return tp.Start(
        seq,
        wire.string(start, "streamId", "start", CARRIER),
        wire.optional_string(start, "accountId"),
        wire.string(start, "callId", "start", CARRIER),
        tuple(tracks),
        tp.MediaFormat(),
        extra_headers(message.get("extra_headers")),
    )


def encode_outbound(message: tp.OutboundMessage) -> str:
    """The JSON text of a bot message to Plivo."""
    if isinstance(message, tp.OutboundMedia):
        media = {"contentType": ENCODING, "sampleRate": SAMPLE_RATE, "payload": wire.b64(message.payload)}
        return wire.dumps({"event": "playAudio", "media": media})
    if isinstance(message, tp.OutboundMark):
        return wire.dumps({"event": "checkpoint", "streamId": message.stream_sid, "name": message.name})
    return wire.dumps({"event": "clearAudio", "streamId": message.stream_sid})


# -- the carrier's side (the simulated carrier, and golden tests) ------------------------------


def parse_outbound(data: str | bytes, stream_id: str) -> tp.OutboundMessage:
    """A bot's message as Plivo reads it (``stream_id``: the stream it came on)."""
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if event == "clearAudio":
        return tp.Clear(wire.string(message, "streamId", event, CARRIER))
    if event == "checkpoint":
        return tp.OutboundMark(
            wire.string(message, "streamId", event, CARRIER),
            wire.mark_name(message, "name", event, CARRIER),
        )
    if event == "playAudio":
        media = wire.obj(message, "media", event, CARRIER)
        if (media.get("contentType"), media.get("sampleRate")) != (ENCODING, SAMPLE_RATE):
            raise wire.CarrierMediaFormatError(CARRIER, "playAudio: not audio/x-mulaw at 8000 Hz")
        return tp.OutboundMedia(stream_id, wire.payload(media.get("payload"), CARRIER))
    raise wire.CarrierMalformedError(
        CARRIER, f"a bot sends playAudio, checkpoint or clearAudio, not {str(event)[:40]!r}"
    )


def encode_inbound(event: tp.InboundEvent) -> str | None:
    """The JSON text of a Plivo message carrying ``event`` (None for ``connected``: Plivo sends none)."""
    if isinstance(event, tp.Connected):
        return None
    if isinstance(event, tp.Start):
        start = {
            "callId": event.call_sid,
            "streamId": event.stream_sid,
            "accountId": event.account_sid,
            "tracks": list(event.tracks),
            "mediaFormat": {"encoding": ENCODING, "sampleRate": SAMPLE_RATE},
        }
        headers = ";".join(f"{k}={v}" for k, v in event.custom_parameters.items())
        return wire.dumps(
            {
                "event": "start",
                "sequenceNumber": event.sequence_number,
                "start": start,
                "extra_headers": headers,
            }
        )
    head = {"sequenceNumber": event.sequence_number, "streamId": event.stream_sid}
    if isinstance(event, tp.Media):
        media = {
            "track": event.track,
            "timestamp": str(event.timestamp_ms),
            "chunk": event.chunk,
            "payload": wire.b64(event.payload),
        }
        return wire.dumps({"event": "media", **head, "media": media})
    if isinstance(event, tp.Mark):
        return wire.dumps({"event": "playedStream", **head, "name": event.name})
    if isinstance(event, tp.Dtmf):
        return wire.dumps({"event": "dtmf", **head, "dtmf": {"track": "inbound", "digit": event.digit}})
    return None  # Plivo ends a stream by closing the socket


def cleared(sequence_number: int, stream_id: str) -> str:
    """Plivo's confirmation of a ``clearAudio``."""
    return wire.dumps({"event": "clearedAudio", "sequenceNumber": sequence_number, "streamId": stream_id})


__all__ = [
    "CARRIER",
    "ENCODING",
    "SAMPLE_RATE",
    "cleared",
    "encode_inbound",
    "encode_outbound",
    "extra_headers",
    "parse_inbound",
    "parse_outbound",
]
