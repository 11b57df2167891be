"""Field readers and errors for carriers' JSON media-stream messages (Telnyx, Plivo, Exotel...).

    message = loads(data, "telnyx")                    # a dict, or CarrierMalformedError
    sid = string(message, "stream_id", "media", "telnyx")

Every carrier's errors are Twilio's error classes (``transports.twilio.protocol``) with the
carrier's name in their ``code`` (``telnyx_malformed``, ``plivo_bad_payload``...), so one call's
I/O (``transports.twilio.call``) ends a call on any of them the same way, in one log line.

Pure: no I/O, no clock, no asyncio.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from typing import Any

from transports.twilio import protocol as tp
from tts_service import jsonlimits

#: the longest text message accepted from a carrier
MAX_MESSAGE_CHARS = tp.MAX_MESSAGE_CHARS
#: the most audio one carrier message may carry, in bytes (one second of 16-bit audio at 16 kHz)
MAX_PAYLOAD_BYTES = 32000


class CarrierMalformedError(tp.MalformedMessageError):
    """Not JSON, an unknown event, a field missing or of the wrong type (``<carrier>_malformed``)."""

    def __init__(self, carrier: str, message: str) -> None:
        super().__init__(message)
        self.code = f"{carrier}_malformed"


class CarrierOutOfOrderError(tp.OutOfOrderError):
    """A well-formed message at the wrong time (``<carrier>_out_of_order``)."""

    def __init__(self, carrier: str, message: str) -> None:
        super().__init__(message)
        self.code = f"{carrier}_out_of_order"


class CarrierBadPayloadError(tp.BadPayloadError):
    """Audio that is not base64, or of a size the format cannot have (``<carrier>_bad_payload``)."""

    def __init__(self, carrier: str, message: str) -> None:
        super().__init__(message)
        self.code = f"{carrier}_bad_payload"


class CarrierMediaFormatError(tp.UnsupportedMediaFormatError):
    """A stream in an audio format this bridge does not speak (``<carrier>_media_format``)."""

    def __init__(self, carrier: str, message: str) -> None:
        super().__init__(message)
        self.code = f"{carrier}_media_format"


def loads(data: str | bytes, carrier: str) -> dict[str, Any]:
    """One JSON text message as a dict; raises CarrierMalformedError."""
    if isinstance(data, bytes):
        raise CarrierMalformedError(carrier, f"{carrier} sends JSON text messages here, not binary ones")
    if len(data) > MAX_MESSAGE_CHARS:
        raise CarrierMalformedError(
            carrier, f"message of {len(data)} characters (at most {MAX_MESSAGE_CHARS})"
        )
    try:
        message = jsonlimits.loads(data)
    except ValueError as exc:
        raise CarrierMalformedError(carrier, f"not JSON: {exc}") from exc
    except RecursionError:  # nested past the parser's depth, as Twilio's codec refuses it
        raise CarrierMalformedError(carrier, f"nested too deeply: no {carrier} message is") from None
    if not isinstance(message, dict):
        raise CarrierMalformedError(carrier, f"a message is a JSON object, not {type(message).__name__}")
    return message


def obj(message: Mapping[str, Any], key: str, where: str, carrier: str) -> Mapping[str, Any]:
    value = message.get(key)
    if not isinstance(value, dict):
        raise CarrierMalformedError(carrier, f"{where}: {key!r} must be an object")
    return value


def string(message: Mapping[str, Any], key: str, where: str, carrier: str, *, max_chars: int = 256) -> str:
    value = message.get(key)
    if not isinstance(value, str) or not value or len(value) > max_chars:
        raise CarrierMalformedError(
            carrier, f"{where}: {key!r} must be a non-empty string of at most {max_chars}"
        )
    return value


def integer(
    message: Mapping[str, Any], key: str, where: str, carrier: str, *, default: int | None = None
) -> int:
    """A non-negative integer, sent as a number or a string of digits; ``default`` when absent."""
    value = message.get(key)
    if value is None and default is not None:
        return default
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        value = int(value)
    if not isinstance(value, int) or value < 0:
        raise CarrierMalformedError(carrier, f"{where}: {key!r} must be a non-negative integer")
    return value


def optional_string(message: Mapping[str, Any], key: str) -> str:
    """A string the bridge passes on but does not need (an account id): ``-`` when absent or empty."""
    value = message.get(key)
    return value if isinstance(value, str) and value else "-"


def string_map(message: Mapping[str, Any], key: str, where: str, carrier: str) -> dict[str, str]:
    """An object of strings to strings (the start's custom parameters); ``{}`` when absent."""
    value = message.get(key) or {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise CarrierMalformedError(carrier, f"{where}: {key!r} must map strings to strings")
    return dict(value)


def mark_name(message: Mapping[str, Any], key: str, where: str, carrier: str) -> str:
    """The name of a mark (its echo, or the bot's own): a non-empty string of a mark name's size."""
    return string(message, key, where, carrier, max_chars=tp.MAX_MARK_NAME_CHARS)


def dtmf_digit(message: Mapping[str, Any], key: str, where: str, carrier: str) -> str:
    """One keypad digit (``0``-``9``, ``*``, ``#``, ``A``-``D``)."""
    digit = string(message, key, where, carrier, max_chars=1)
    if digit not in tp.DTMF_DIGITS:
        raise CarrierMalformedError(carrier, f"{where}: {digit!r} is not a keypad digit")
    return digit


def media(
    media: Mapping[str, Any],
    seq: int,
    sid: str,
    carrier: str,
    *,
    convert: Callable[[bytes], bytes] | None = None,
) -> tp.Media:
    """A ``media`` object (``chunk``, ``timestamp``, base64 ``payload``) as the caller's audio
    (``convert``: the carrier's 16-bit PCM to mu-law, where it sends that)."""
    chunk = integer(media, "chunk", "media", carrier)
    timestamp = integer(media, "timestamp", "media", carrier, default=0)
    audio = payload(media.get("payload"), carrier, sample_bytes=1 if convert is None else 2)
    return tp.Media(seq, sid, "inbound", chunk, timestamp, audio if convert is None else convert(audio))


def payload(text: object, carrier: str, *, sample_bytes: int = 1) -> bytes:
    """The bytes of a base64 audio payload: 1 to MAX_PAYLOAD_BYTES, whole samples."""
    if not isinstance(text, str) or not text:
        raise CarrierBadPayloadError(carrier, "media.payload must be a non-empty base64 string")
    if len(text) > MAX_PAYLOAD_BYTES * 4 // 3 + 4:
        raise CarrierBadPayloadError(carrier, f"media.payload of {len(text)} characters is too long")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CarrierBadPayloadError(carrier, f"media.payload is not base64: {exc}") from exc
    if not 0 < len(data) <= MAX_PAYLOAD_BYTES or len(data) % sample_bytes:
        raise CarrierBadPayloadError(
            carrier, f"media.payload holds {len(data)} bytes (whole {sample_bytes}-byte samples, at most 1 s)"
        )
    return data


def dumps(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


__all__ = [
    "MAX_PAYLOAD_BYTES",
    "CarrierBadPayloadError",
    "CarrierMalformedError",
    "CarrierMediaFormatError",
    "CarrierOutOfOrderError",
    "b64",
    "dtmf_digit",
    "dumps",
    "integer",
    "loads",
    "mark_name",
    "media",
    "obj",
    "optional_string",
    "payload",
    "string",
    "string_map",
]
