"""Asterisk's AudioSocket protocol, sans-I/O: the bytes of a call a PBX bridges over plain TCP.

    stream = AudioSocketStream()                  # one per connection: frames, checks order
    for message in stream.feed(data):             # Uuid first, then Audio, Dtmf, Hangup, Error
        ...
    data = encode_audio(pcm_320)                  # 20 ms of signed linear 8 kHz, little-endian
    data = encode_hangup()

Every message is a kind byte, a 2-byte big-endian payload length, then the payload: 0x00 hangup
(empty), 0x01 the call's UUID (16 bytes, always first), 0x03 a DTMF digit (one ASCII byte),
0x10 audio (signed 16-bit little-endian mono at 8 kHz; Asterisk sends 20 ms, 320 bytes), 0xff
an error (a one-byte code, if any). Anything else (a kind this bot does not take, such as
another sample rate's audio; a UUID that is not 16 bytes or comes twice; audio before the UUID;
odd-length audio; a digit outside 0-9*#A-D) raises ``AudioSocketError`` and the stream's state
does not change. The length field bounds a message to 65 538 bytes, so ``feed`` never holds
more than that plus one read.

Sans-I/O: no sockets, no clock, no asyncio.
"""

from __future__ import annotations

import enum
import struct
import uuid
from dataclasses import dataclass

from transports.twilio.protocol import TwilioProtocolError

#: Asterisk's AudioSocket rate and the size of one 20 ms audio payload
SAMPLE_RATE = 8000
CHUNK_BYTES = 320
_HEADER = struct.Struct(">BH")
DTMF_DIGITS = frozenset("0123456789*#ABCD")


class Kind(enum.IntEnum):
    HANGUP = 0x00
    UUID = 0x01
    DTMF = 0x03
    AUDIO = 0x10
    ERROR = 0xFF


class AudioSocketError(TwilioProtocolError):
    """Bytes that are not an AudioSocket call this bot can take."""

    code = "audiosocket_protocol"


@dataclass(frozen=True, slots=True)
class Uuid:
    value: uuid.UUID


@dataclass(frozen=True, slots=True)
class Audio:
    """Signed 16-bit little-endian samples at 8 kHz."""

    pcm: bytes


@dataclass(frozen=True, slots=True)
class Dtmf:
    digit: str


@dataclass(frozen=True, slots=True)
class Hangup:
    pass


@dataclass(frozen=True, slots=True)
class Error:
    """Asterisk reports an error (``code`` its one-byte reason, None if it sent none)."""

    code: int | None


Message = Uuid | Audio | Dtmf | Hangup | Error


def encode(kind: Kind, payload: bytes = b"") -> bytes:
    if len(payload) > 0xFFFF:
        raise ValueError("an AudioSocket payload is at most 65535 bytes")
    return _HEADER.pack(kind, len(payload)) + payload


def encode_audio(pcm: bytes) -> bytes:
    if len(pcm) % 2:
        raise ValueError("audio must be whole 16-bit samples")
    return encode(Kind.AUDIO, pcm)


def encode_hangup() -> bytes:
    return encode(Kind.HANGUP)


def encode_uuid(value: uuid.UUID) -> bytes:
    return encode(Kind.UUID, value.bytes)


def encode_dtmf(digit: str) -> bytes:
    if digit not in DTMF_DIGITS:
        raise ValueError(f"not a DTMF digit: {digit!r}")
    return encode(Kind.DTMF, digit.encode("ascii"))


class AudioSocketStream:
    """One connection's bytes in, messages out, in AudioSocket's order (see the module doc)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.call_id: uuid.UUID | None = None
        self.hung_up = False

    def feed(self, data: bytes) -> list[Message]:
        """The whole messages ``data`` completes; raises ``AudioSocketError`` on the first bad one
        (the messages before it in the same call are lost with the stream, which ends)."""
        self._buffer += data
        messages: list[Message] = []
        while len(self._buffer) >= _HEADER.size:
            kind, length = _HEADER.unpack_from(self._buffer)
            end = _HEADER.size + length
            if len(self._buffer) < end:
                break
            message = self._parse(kind, bytes(self._buffer[_HEADER.size : end]))
            del self._buffer[:end]
            messages.append(message)
        return messages

    def _parse(self, kind: int, payload: bytes) -> Message:
        if self.hung_up:
            raise AudioSocketError(f"kind 0x{kind:02x} after the hangup")
        if kind == Kind.UUID:
            if self.call_id is not None:
                raise AudioSocketError("a second UUID")
            if len(payload) != 16:
                raise AudioSocketError(f"a UUID of {len(payload)} bytes, not 16")
            self.call_id = uuid.UUID(bytes=payload)
            return Uuid(self.call_id)
        if kind == Kind.ERROR:
            return Error(payload[0] if payload else None)
        if self.call_id is None:
            raise AudioSocketError(f"kind 0x{kind:02x} before the UUID")
        if kind == Kind.AUDIO:
            if len(payload) % 2:
                raise AudioSocketError(f"audio of {len(payload)} bytes: not whole 16-bit samples")
            return Audio(payload)
        if kind == Kind.DTMF:
            digit = payload.decode("ascii", "replace")
            if digit not in DTMF_DIGITS:
                raise AudioSocketError(f"DTMF payload {payload[:8]!r} is not one digit")
            return Dtmf(digit)
        if kind == Kind.HANGUP:
            self.hung_up = True
            return Hangup()
        raise AudioSocketError(f"kind 0x{kind:02x} is not one this bot takes (signed linear 8 kHz only)")


__all__ = [
    "CHUNK_BYTES",
    "DTMF_DIGITS",
    "SAMPLE_RATE",
    "Audio",
    "AudioSocketError",
    "AudioSocketStream",
    "Dtmf",
    "Error",
    "Hangup",
    "Kind",
    "Message",
    "Uuid",
    "encode",
    "encode_audio",
    "encode_dtmf",
    "encode_hangup",
    "encode_uuid",
]
