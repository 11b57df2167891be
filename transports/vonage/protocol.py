"""Vonage's Voice API WebSocket on the wire, as a sans-I/O codec onto Twilio's event types.

    event = parse_inbound(message)         # tp.Start, Media (16 kHz PCM bytes), Mark, Dtmf (or IGNORED)
    data = encode_outbound(tp.OutboundMark(uuid, "f12"))   # {"action": "notify", ...}

Message shapes (Vonage's "WebSockets" guide and NCCO reference)::

    carrier -> bot   text   {"event": "websocket:connected", "content-type": "audio/l16;rate=16000",
                             ...the NCCO endpoint's headers}
                     binary 20 ms of 16-bit little-endian PCM at 16 kHz (640 bytes)
                     text   {"event": "websocket:notify", "payload": {...}}    (the audio before it played)
                     text   {"event": "websocket:cleared"}
                     text   {"event": "websocket:dtmf", "digit": "5", "duration": 250}
    bot -> carrier   binary 20 ms of 16-bit little-endian PCM at 16 kHz (640 bytes)
                     text   {"action": "notify", "payload": {"name": N}}
                     text   {"action": "clear"}

``websocket:connected`` is the stream's start: it carries the headers the NCCO gave the
endpoint (``uuid``, ``from``, ``to``, and the server's token), which become the start's
parameters; the call's ``uuid`` names the stream. A ``notify`` is Twilio's mark: Vonage answers
``websocket:notify`` with the same payload once the audio sent before it has played. After
``clear``, the docs do not say whether queued notifies come back; ``websocket:cleared`` confirms
the clear, and the mark ledger needs neither (both parse to nothing for the bot). Vonage ends a
stream by closing the socket. The 16 kHz audio is converted by the stream (``stream``), not
here.

Pure: no I/O, no clock, no state, no asyncio or Pipecat.
"""

from __future__ import annotations

from typing import Any

from transports.media_stream import wire
from transports.media_stream.stream import IGNORED
from transports.twilio import protocol as tp

CARRIER = "vonage"
CONTENT_TYPE = "audio/l16;rate=16000"
SAMPLE_RATE = 16000
#: 20 ms of 16-bit audio at 16 kHz: the size of every binary frame either way
FRAME_BYTES = 640
#: the connected event's fields that are Vonage's own, not the NCCO's headers
OWN_FIELDS = ("event", "content-type")


def parse_inbound(data: str | bytes) -> tp.InboundEvent:
    """One Vonage message as Twilio's event type (binary: Media of raw 16 kHz PCM, unnumbered)."""
    if isinstance(data, bytes):
        if not data or len(data) % 2 or len(data) > wire.MAX_PAYLOAD_BYTES:
            raise wire.CarrierBadPayloadError(
                CARRIER, f"a binary frame of {len(data)} bytes is not 16-bit audio"
            )
        return tp.Media(0, "", "inbound", 0, 0, data)
    message = wire.loads(data, CARRIER)
    event = message.get("event")
    if event == "websocket:connected":
        return _parse_connected(message)
    if event == "websocket:notify":
        payload = wire.obj(message, "payload", event, CARRIER)
        return tp.Mark(0, "", wire.string(payload, "name", event, CARRIER, max_chars=tp.MAX_MARK_NAME_CHARS))
    if event == "websocket:cleared":
        return IGNORED
    if event == "websocket:dtmf":
        digit = message.get("digit")
        if not isinstance(digit, str) or len(digit) != 1 or digit not in tp.DTMF_DIGITS:
            raise wire.CarrierMalformedError(CARRIER, f"{event}: {str(digit)[:8]!r} is not a keypad digit")
        return tp.Dtmf(0, "", "inbound", digit)
    raise wire.CarrierMalformedError(CARRIER, f"unknown event {str(event)[:40]!r}")


def _parse_connected(message: dict[str, Any]) -> tp.Start:
    content_type = wire.string(message, "content-type", "websocket:connected", CARRIER)
    if content_type.replace(" ", "").lower() != CONTENT_TYPE:
        raise wire.CarrierMediaFormatError(
            CARRIER,
            f"the stream carries {content_type}; this bridge speaks {CONTENT_TYPE} (the NCCO asks for it)",
        )
    headers = {
        key: value
        for key, value in message.items()
        if key not in OWN_FIELDS and isinstance(key, str) and isinstance(value, str) and len(value) <= 256
    }
    uuid = headers.get("uuid") or "vonage-stream"
    return tp.Start(0, uuid, "-", uuid, ("inbound",), tp.MediaFormat(), headers)


def encode_outbound(message: tp.OutboundMessage) -> str | bytes:
    """A bot message to Vonage: media as a binary frame (already 16 kHz PCM), the rest as JSON."""
    if isinstance(message, tp.OutboundMedia):
        return message.payload
    if isinstance(message, tp.OutboundMark):
        return wire.dumps({"action": "notify", "payload": {"name": message.name}})
    return wire.dumps({"action": "clear"})


# -- the carrier's side (the simulated carrier, and golden tests) ------------------------------


def parse_outbound(data: str | bytes, uuid: str) -> tp.OutboundMessage:
    """A bot's message as Vonage reads it (binary: raw 16 kHz PCM)."""
    if isinstance(data, bytes):
        if len(data) != FRAME_BYTES:
            raise wire.CarrierBadPayloadError(
                CARRIER, f"a binary frame of {len(data)} bytes, not {FRAME_BYTES}"
            )
        return tp.OutboundMedia(uuid, data)
    message = wire.loads(data, CARRIER)
    action = message.get("action")
    if action == "clear":
        return tp.Clear(uuid)
    if action == "notify":
        payload = wire.obj(message, "payload", "notify", CARRIER)
        return tp.OutboundMark(
            uuid, wire.string(payload, "name", "notify", CARRIER, max_chars=tp.MAX_MARK_NAME_CHARS)
        )
    raise wire.CarrierMalformedError(CARRIER, f"a bot sends audio, notify or clear, not {str(action)[:40]!r}")


def encode_inbound(event: tp.InboundEvent) -> str | bytes | None:
    """A Vonage message carrying ``event`` (None where Vonage sends nothing: ``connected``, ``stop``)."""
    if isinstance(event, tp.Start):
        return wire.dumps(
            {
                "event": "websocket:connected",
                "content-type": CONTENT_TYPE,
                **event.custom_parameters,
                "uuid": event.stream_sid,
            }
        )
    if isinstance(event, tp.Media):
        return event.payload
    if isinstance(event, tp.Mark):
        return wire.dumps({"event": "websocket:notify", "payload": {"name": event.name}})
    if isinstance(event, tp.Dtmf):
        return wire.dumps({"event": "websocket:dtmf", "digit": event.digit, "duration": 250})
    return None


def cleared() -> str:
    return wire.dumps({"event": "websocket:cleared"})


__all__ = [
    "CARRIER",
    "CONTENT_TYPE",
    "FRAME_BYTES",
    "SAMPLE_RATE",
    "cleared",
    "encode_inbound",
    "encode_outbound",
    "parse_inbound",
    "parse_outbound",
]
