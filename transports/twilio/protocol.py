"""Twilio Media Streams on the wire: every message a carrier and a bot exchange, as a sans-I/O codec.

    event = parse_inbound(text)               # Connected, Start, Media, Mark, Dtmf or Stop
    text = encode_outbound(OutboundMark(stream_sid, "f12"))

The order of events and the framing of the bot's audio are ``twilio_stream``'s.

Message shapes (JSON text frames; Twilio sends numbers inside strings)::

    carrier -> bot   {"event": "connected", "protocol": "Call", "version": "1.0.0"}
                     {"event": "start", "sequenceNumber": "1", "streamSid": S, "start": {"streamSid": S,
                      "accountSid", "callSid", "tracks": ["inbound"], "customParameters": {...},
                      "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}}}
                     {"event": "media", "sequenceNumber", "streamSid", "media": {"track": "inbound",
                      "chunk": "1", "timestamp": "20", "payload": base64 of 160 mu-law bytes (20 ms)}}
                     {"event": "mark", "sequenceNumber", "streamSid", "mark": {"name": N}}  (played/cleared)
                     {"event": "dtmf", "sequenceNumber", "streamSid", "dtmf": {"track": "inbound_track",
                      "digit": "1"}}
                     {"event": "stop", "sequenceNumber", "streamSid", "stop": {"accountSid", "callSid"}}
    bot -> carrier   {"event": "media", "streamSid", "media": {"payload": base64 mu-law}}
                     {"event": "mark", "streamSid", "mark": {"name": N}}
                     {"event": "clear", "streamSid"}

A message of the wrong shape raises a ``TwilioProtocolError`` subclass whose message says what
was wrong. Both directions are encoded and parsed here, so a simulated carrier and the bot share
one definition of the format.

Pure functions and frozen values: this module must never do I/O, read a clock, hold state, or
import asyncio or Pipecat.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tts_service import jsonlimits
from tts_service.engine.types import FRAME_MS, frame_samples
from tts_service.errors import WarmlineError

#: the only rate and encoding Twilio Media Streams carry
SAMPLE_RATE = 8000
ENCODING = "audio/x-mulaw"
#: Twilio's inbound media: 20 ms of mu-law, one byte per sample
CHUNK_MS = 20
CHUNK_BYTES = SAMPLE_RATE * CHUNK_MS // 1000
#: an 80 ms engine frame leaves as this many 20 ms media messages, then one mark
CHUNKS_PER_FRAME = FRAME_MS // CHUNK_MS
#: one 80 ms engine frame at 8 kHz, in mu-law bytes (one per sample)
FRAME_BYTES = frame_samples(SAMPLE_RATE)
#: the longest text message accepted (a 20 ms media message is about 300 characters)
MAX_MESSAGE_CHARS = 64 * 1024
#: the longest mark name a bot sends or accepts back
MAX_MARK_NAME_CHARS = 128
DTMF_DIGITS = frozenset("0123456789*#")


# -- errors -----------------------------------------------------------------------------------


class TwilioProtocolError(WarmlineError):
    """A message that breaks the Twilio Media Streams protocol; the call cannot go on sanely."""

    code = "twilio_protocol"


class MalformedMessageError(TwilioProtocolError):
    """Not JSON, not an object, an unknown event, or a field missing or of the wrong type."""

    code = "twilio_malformed"


class OutOfOrderError(TwilioProtocolError):
    """A well-formed event at the wrong time (media before start, anything after stop...)."""

    code = "twilio_out_of_order"


class BadPayloadError(TwilioProtocolError):
    """A media payload that is not base64 of one 20 ms mu-law chunk."""

    code = "twilio_bad_payload"


class UnsupportedMediaFormatError(TwilioProtocolError):
    """A stream whose ``mediaFormat`` is not mu-law, 8 kHz, mono."""

    code = "twilio_media_format"


# -- messages ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MediaFormat:
    """The audio format of a stream (``start.mediaFormat``)."""

    encoding: str = ENCODING
    sample_rate: int = SAMPLE_RATE
    channels: int = 1


@dataclass(frozen=True, slots=True)
class Connected:
    """First message of every stream: the protocol it speaks."""

    protocol: str = "Call"
    version: str = "1.0.0"


@dataclass(frozen=True, slots=True)
class Start:
    """The stream's metadata, sent once after ``connected``."""

    sequence_number: int
    stream_sid: str
    account_sid: str
    call_sid: str
    tracks: tuple[str, ...] = ("inbound",)
    media_format: MediaFormat = MediaFormat()
    custom_parameters: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Media:
    """One chunk of the caller's audio: ``payload`` is mu-law bytes (already base64-decoded)."""

    sequence_number: int
    stream_sid: str
    track: str
    chunk: int
    timestamp_ms: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Mark:
    """A mark the bot sent has been reached: its audio was played (or cleared, after a ``clear``)."""

    sequence_number: int
    stream_sid: str
    name: str


@dataclass(frozen=True, slots=True)
class Dtmf:
    """The caller pressed a key."""

    sequence_number: int
    stream_sid: str
    track: str
    digit: str


@dataclass(frozen=True, slots=True)
class Stop:
    """The stream is over (the call hung up, or the TwiML moved on)."""

    sequence_number: int
    stream_sid: str
    account_sid: str
    call_sid: str


InboundEvent = Connected | Start | Media | Mark | Dtmf | Stop


@dataclass(frozen=True, slots=True)
class OutboundMedia:
    """Audio for the carrier to play: mu-law bytes (base64 on the wire)."""

    stream_sid: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class OutboundMark:
    """Ask the carrier to echo ``name`` once the audio sent before it has played."""

    stream_sid: str
    name: str


@dataclass(frozen=True, slots=True)
class Clear:
    """Ask the carrier to drop the audio it holds (it echoes the marks it drops)."""

    stream_sid: str


OutboundMessage = OutboundMedia | OutboundMark | Clear


# -- field readers ----------------------------------------------------------------------------


def _loads(data: str | bytes) -> dict[str, Any]:
    if isinstance(data, bytes):
        raise MalformedMessageError("Twilio sends JSON text messages, not binary ones")
    if len(data) > MAX_MESSAGE_CHARS:
        raise MalformedMessageError(f"message of {len(data)} characters (at most {MAX_MESSAGE_CHARS})")
    try:
        message = jsonlimits.loads(data)
    except ValueError as exc:
        raise MalformedMessageError(f"not JSON: {exc}") from exc
    except RecursionError:  # nested past the parser's depth, as ``tts_service.wire`` refuses it
        raise MalformedMessageError("nested too deeply: no Twilio message is") from None
    if not isinstance(message, dict):
        raise MalformedMessageError(f"a message is a JSON object, not {type(message).__name__}")
    return message


def _obj(message: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = message.get(key)
    if not isinstance(value, dict):
        raise MalformedMessageError(f"{where}: {key!r} must be an object")
    return value


def _str(message: Mapping[str, Any], key: str, where: str, *, max_chars: int = 256) -> str:
    value = message.get(key)
    if not isinstance(value, str) or not value or len(value) > max_chars:
        raise MalformedMessageError(f"{where}: {key!r} must be a non-empty string of at most {max_chars}")
    return value


def _int(message: Mapping[str, Any], key: str, where: str) -> int:
    """A non-negative integer that Twilio may send as a string of digits."""
    value = message.get(key)
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        value = int(value)
    if not isinstance(value, int) or value < 0:
        raise MalformedMessageError(f"{where}: {key!r} must be a non-negative integer")
    return value


def decode_payload(text: object, *, chunk_bytes: int | None = CHUNK_BYTES) -> bytes:
    """Mu-law bytes of a base64 ``payload``; ``chunk_bytes`` None accepts any length up to 1 s."""
    if not isinstance(text, str) or not text:
        raise BadPayloadError("media.payload must be a non-empty base64 string")
    try:
        payload = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BadPayloadError(f"media.payload is not base64: {exc}") from exc
    if chunk_bytes is not None and len(payload) != chunk_bytes:
        raise BadPayloadError(
            f"media.payload holds {len(payload)} bytes; 20 ms of 8 kHz mu-law is {chunk_bytes} bytes"
        )
    if not 0 < len(payload) <= SAMPLE_RATE:
        raise BadPayloadError(f"media.payload holds {len(payload)} bytes (1 to {SAMPLE_RATE})")
    return payload


def parse_inbound(data: str | bytes, *, chunk_bytes: int | None = CHUNK_BYTES) -> InboundEvent:
    """One carrier message, shape-checked; raises a TwilioProtocolError subclass.

    The order of events is ``InboundStream``'s business, not this function's.
    """
    message = _loads(data)
    event = message.get("event")
    if event == "connected":
        return Connected(_str(message, "protocol", "connected"), _str(message, "version", "connected"))
    if not isinstance(event, str):
        raise MalformedMessageError("a message needs an 'event' string")
    where = event
    if event not in ("start", "media", "mark", "dtmf", "stop"):
        raise MalformedMessageError(f"unknown event {event[:40]!r}")
    seq = _int(message, "sequenceNumber", where)
    sid = _str(message, "streamSid", where)
    if event == "start":
        return _parse_start(message, seq, sid)
    if event == "media":
        media = _obj(message, "media", where)
        return Media(
            seq,
            sid,
            _str(media, "track", "media"),
            _int(media, "chunk", "media"),
            _int(media, "timestamp", "media"),
            decode_payload(media.get("payload"), chunk_bytes=chunk_bytes),
        )
    if event == "mark":
        return Mark(
            seq, sid, _str(_obj(message, "mark", where), "name", "mark", max_chars=MAX_MARK_NAME_CHARS)
        )
    if event == "dtmf":
        dtmf = _obj(message, "dtmf", where)
        digit = _str(dtmf, "digit", "dtmf", max_chars=1)
        if digit not in DTMF_DIGITS:
            raise MalformedMessageError(f"dtmf: {digit!r} is not a keypad digit")
        return Dtmf(seq, sid, _str(dtmf, "track", "dtmf"), digit)
    stop = _obj(message, "stop", where)
    return Stop(seq, sid, _str(stop, "accountSid", "stop"), _str(stop, "callSid", "stop"))


def _parse_start(message: Mapping[str, Any], seq: int, sid: str) -> Start:
    start = _obj(message, "start", "start")
    if _str(start, "streamSid", "start") != sid:
        raise MalformedMessageError("start: start.streamSid differs from streamSid")
    tracks = start.get("tracks", ["inbound"])
    if not isinstance(tracks, list) or not tracks or not all(isinstance(t, str) and t for t in tracks):
        raise MalformedMessageError("start: 'tracks' must be a non-empty list of strings")
    fmt = _obj(start, "mediaFormat", "start")
    media_format = MediaFormat(
        _str(fmt, "encoding", "start.mediaFormat"),
        _int(fmt, "sampleRate", "start.mediaFormat"),
        _int(fmt, "channels", "start.mediaFormat"),
    )
    if media_format != MediaFormat():
        raise UnsupportedMediaFormatError(
            f"the stream carries {media_format.encoding} at {media_format.sample_rate} Hz, "
            f"{media_format.channels} channel(s); this bridge speaks {ENCODING} at {SAMPLE_RATE} Hz, mono"
        )
    params = start.get("customParameters", {})
    if not isinstance(params, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in params.items()
    ):
        raise MalformedMessageError("start: 'customParameters' must map strings to strings")
    return Start(
        seq,
        sid,
        _str(start, "accountSid", "start"),
        _str(start, "callSid", "start"),
        tuple(tracks),
        media_format,
        dict(params),
    )


def parse_outbound(data: str | bytes) -> OutboundMessage:
    """One bot message, as a carrier reads it; raises a TwilioProtocolError subclass."""
    message = _loads(data)
    event = message.get("event")
    if not isinstance(event, str) or event not in ("media", "mark", "clear"):
        raise MalformedMessageError(f"a bot sends media, mark or clear, not {str(event)[:40]!r}")
    sid = _str(message, "streamSid", event)
    if event == "clear":
        return Clear(sid)
    if event == "mark":
        return OutboundMark(
            sid, _str(_obj(message, "mark", event), "name", "mark", max_chars=MAX_MARK_NAME_CHARS)
        )
    payload = decode_payload(_obj(message, "media", event).get("payload"), chunk_bytes=None)
    return OutboundMedia(sid, payload)


# -- encoders ---------------------------------------------------------------------------------


def _dumps(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def _b64(payload: bytes) -> str:
    return base64.b64encode(payload).decode("ascii")


def encode_outbound(message: OutboundMessage) -> str:
    """The JSON text of a bot message."""
    if isinstance(message, OutboundMedia):
        return _dumps(
            {"event": "media", "streamSid": message.stream_sid, "media": {"payload": _b64(message.payload)}}
        )
    if isinstance(message, OutboundMark):
        return _dumps({"event": "mark", "streamSid": message.stream_sid, "mark": {"name": message.name}})
    return _dumps({"event": "clear", "streamSid": message.stream_sid})


def encode_inbound(event: InboundEvent) -> str:
    """The JSON text of a carrier message, exactly as Twilio shapes it (numbers as strings)."""
    if isinstance(event, Connected):
        return _dumps({"event": "connected", "protocol": event.protocol, "version": event.version})
    head: dict[str, Any] = {"sequenceNumber": str(event.sequence_number), "streamSid": event.stream_sid}
    if isinstance(event, Start):
        fmt = event.media_format
        start = {
            "accountSid": event.account_sid,
            "streamSid": event.stream_sid,
            "callSid": event.call_sid,
            "tracks": list(event.tracks),
            "mediaFormat": {
                "encoding": fmt.encoding,
                "sampleRate": fmt.sample_rate,
                "channels": fmt.channels,
            },
            "customParameters": dict(event.custom_parameters),
        }
        return _dumps({"event": "start", **head, "start": start})
    if isinstance(event, Media):
        media = {
            "track": event.track,
            "chunk": str(event.chunk),
            "timestamp": str(event.timestamp_ms),
            "payload": _b64(event.payload),
        }
        return _dumps({"event": "media", **head, "media": media})
    if isinstance(event, Mark):
        return _dumps({"event": "mark", **head, "mark": {"name": event.name}})
    if isinstance(event, Dtmf):
        return _dumps({"event": "dtmf", **head, "dtmf": {"track": event.track, "digit": event.digit}})
    return _dumps(
        {"event": "stop", **head, "stop": {"accountSid": event.account_sid, "callSid": event.call_sid}}
    )


__all__ = [
    "CHUNKS_PER_FRAME",
    "CHUNK_BYTES",
    "CHUNK_MS",
    "ENCODING",
    "FRAME_BYTES",
    "SAMPLE_RATE",
    "BadPayloadError",
    "Clear",
    "Connected",
    "Dtmf",
    "InboundEvent",
    "MalformedMessageError",
    "Mark",
    "Media",
    "MediaFormat",
    "OutOfOrderError",
    "OutboundMark",
    "OutboundMedia",
    "OutboundMessage",
    "Start",
    "Stop",
    "TwilioProtocolError",
    "UnsupportedMediaFormatError",
    "decode_payload",
    "encode_inbound",
    "encode_outbound",
    "parse_inbound",
    "parse_outbound",
]
