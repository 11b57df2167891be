"""Warmline's WebSocket protocol v1 as pure functions: text in, commands out; events in, JSON out.

Compatible with the dia2stream client (JSON commands, ``{"event": "done"}``, binary frames with an
8-byte ``<If`` header) and extended with ``flush``, ``resume``, ``config`` and richer events.

Client to server, one JSON object per text message::

    {"cmd": "start",  "text": "..."}      text optional (default "")
    {"cmd": "inject", "text": "..."}      text required
    {"cmd": "flush"} {"cmd": "pause"} {"cmd": "resume"} {"cmd": "reset"}
    {"cmd": "config", "voice": str, "sample_rate": 8000|16000|24000|48000, "encoding": "pcm16"|"mulaw",
                      "speed": number, "word_timestamps": bool, "streaming": bool,
                      "lexicon": {"word": "respelling" or "/phonemes/", ...},
                      "language": str}   all optional; a language alone picks a voice that speaks it

Unknown fields are ignored (forward compatibility); a known field of the wrong type is not.
``parse_command`` raises ``ProtocolError`` (and nothing else, whatever it is given) with a stable
``code``: ``binary_not_accepted``, ``message_too_large``, ``bad_json``, ``unknown_command``,
``bad_type``, ``unsupported_sample_rate``, ``unsupported_format``, ``invalid_speed``.

Server to client: ``encode_*`` build the JSON events; ``encode_audio_frame`` builds the binary
audio message (``<If``: uint32 sample count, float32 ms since the command that began the turn,
then the samples: int16 little-endian, or one mu-law byte each) and ``decode_audio_frame`` reads
one back (for clients and tests).

No I/O, no asyncio, no clock: this module only converts values.
"""

from __future__ import annotations

import enum
import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from tts_service import jsonlimits
from tts_service.engine.types import FRAME_MS, SUPPORTED_SAMPLE_RATES
from tts_service.errors import WarmlineError
from tts_service.g711 import decode as mulaw_decode

T = TypeVar("T")

PROTOCOL_VERSION = 1
#: the binary audio header: uint32 sample count, float32 milliseconds
AUDIO_HEADER = struct.Struct("<If")
#: longest message an error reply quotes back, in characters
_QUOTE_CHARS = 40


class ProtocolError(WarmlineError):
    """A client message the protocol cannot accept; ``code`` says why, the connection stays open."""

    code = "protocol_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Encoding(enum.Enum):
    """How audio samples travel in binary messages."""

    PCM16 = "pcm16"
    MULAW = "mulaw"

    @property
    def bytes_per_sample(self) -> int:
        return 2 if self is Encoding.PCM16 else 1


# -- commands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartCommand:
    """Begin a new turn with ``text`` (may be empty); ``hold``: make it, send nothing until release."""

    text: str = ""
    hold: bool = False


@dataclass(frozen=True, slots=True)
class InjectCommand:
    """Add ``text`` to the turn (or begin one)."""

    text: str


@dataclass(frozen=True, slots=True)
class FlushCommand:
    """The streamed answer is complete: speak the rest, then ``done``."""


@dataclass(frozen=True, slots=True)
class PauseCommand:
    """Barge-in: stop the audio now."""


@dataclass(frozen=True, slots=True)
class ResumeCommand:
    """False barge-in: continue the paused remainder."""


@dataclass(frozen=True, slots=True)
class ReleaseCommand:
    """A held (speculative) turn is wanted: send its audio, the frames made already at once."""


@dataclass(frozen=True, slots=True)
class ResetCommand:
    """End of the bot's turn: drop everything unspoken and the conversation prefix."""


@dataclass(frozen=True, slots=True)
class ConfigureCommand:
    """Change settings between turns; None leaves a setting as it is."""

    voice: str | None = None
    sample_rate: int | None = None
    encoding: Encoding | None = None
    speed: float | None = None
    word_timestamps: bool | None = None
    streaming: bool | None = None
    #: words to respellings or "/phonemes/" for this session's next turns (checked by the server)
    lexicon: dict[str, str] | None = None
    #: BCP 47 (``de``, ``en-US``): the voice must speak it; without ``voice``, picks one that does
    language: str | None = None


Command = (
    StartCommand
    | InjectCommand
    | FlushCommand
    | PauseCommand
    | ResumeCommand
    | ReleaseCommand
    | ResetCommand
    | ConfigureCommand
)

_NO_ARGS: dict[str, Command] = {
    "flush": FlushCommand(),
    "pause": PauseCommand(),
    "resume": ResumeCommand(),
    "release": ReleaseCommand(),
    "reset": ResetCommand(),
}
COMMAND_NAMES: tuple[str, ...] = ("start", "inject", "flush", "pause", "resume", "release", "reset", "config")
_NO_ARGS_NAMES: dict[type[Command], str] = {type(command): name for name, command in _NO_ARGS.items()}


def _quote(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "..."


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_command(message: str | bytes, *, max_bytes: int = 65536) -> Command:
    """The command in one client message; raises ProtocolError (only) when there is none."""
    if not isinstance(message, str):
        raise ProtocolError("binary_not_accepted", "commands are JSON text messages; binary is not accepted")
    if len(message) > max_bytes or len(message.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ProtocolError("message_too_large", f"a message may hold at most {max_bytes} bytes")
    try:
        obj = jsonlimits.loads(message, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise ProtocolError("bad_json", f"not a JSON object: {type(exc).__name__}") from exc
    if not isinstance(obj, dict):
        raise ProtocolError("bad_json", f"a command is a JSON object, not {type(obj).__name__}")
    return _command(obj)


def _command(obj: dict[str, Any]) -> Command:
    if "cmd" not in obj:
        raise ProtocolError("unknown_command", 'missing "cmd"; one of ' + ", ".join(COMMAND_NAMES))
    name = obj["cmd"]
    if not isinstance(name, str):
        raise ProtocolError("bad_type", f'"cmd" must be a string, not {type(name).__name__}')
    if name in _NO_ARGS:
        return _NO_ARGS[name]
    if name == "start":
        return StartCommand(_optional(obj, "text", str) or "", bool(_optional(obj, "hold", bool)))
    if name == "inject":
        text = _optional(obj, "text", str)
        if text is None:
            raise ProtocolError("bad_type", 'inject needs "text" (a string)')
        return InjectCommand(text)
    if name == "config":
        return _configure(obj)
    raise ProtocolError("unknown_command", f"unknown cmd {_quote(name)}; one of " + ", ".join(COMMAND_NAMES))


def _optional(obj: dict[str, Any], key: str, kind: type[T]) -> T | None:
    if key not in obj:
        return None
    value = obj[key]
    # bool is an int in Python, never in this protocol
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ProtocolError("bad_type", f'"{key}" must be {kind.__name__}, not {type(value).__name__}')
    return value


def _configure(obj: dict[str, Any]) -> ConfigureCommand:
    sample_rate = _optional(obj, "sample_rate", int)
    if sample_rate is not None and sample_rate not in SUPPORTED_SAMPLE_RATES:
        raise ProtocolError(
            "unsupported_sample_rate",
            f"sample_rate {_quote(sample_rate)} is not one of "
            + ", ".join(str(r) for r in SUPPORTED_SAMPLE_RATES),
        )
    encoding_name = _optional(obj, "encoding", str)
    encoding = None
    if encoding_name is not None:
        try:
            encoding = Encoding(encoding_name)
        except ValueError:
            raise ProtocolError(
                "unsupported_format", f"encoding {_quote(encoding_name)} is not one of pcm16, mulaw"
            ) from None
    speed: float | None = None
    if "speed" in obj:
        raw = obj["speed"]
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise ProtocolError("bad_type", f'"speed" must be a number, not {type(raw).__name__}')
        try:
            speed = float(raw)
        except OverflowError:  # an integer of 309 digits or more
            speed = math.inf
        if not math.isfinite(speed) or speed <= 0:
            raise ProtocolError("invalid_speed", f"speed {_quote(raw)} must be a positive number")
    return ConfigureCommand(
        voice=_optional(obj, "voice", str),
        sample_rate=sample_rate,
        encoding=encoding,
        speed=speed,
        word_timestamps=_optional(obj, "word_timestamps", bool),
        streaming=_optional(obj, "streaming", bool),
        lexicon=_optional(obj, "lexicon", dict),
        language=_optional(obj, "language", str),
    )


def encode_command(command: Command) -> str:
    """The JSON text of ``command`` (for clients and tests): the inverse of ``parse_command``."""
    if isinstance(command, StartCommand):
        return _dumps({"cmd": "start", "text": command.text, **({"hold": True} if command.hold else {})})
    if isinstance(command, InjectCommand):
        return _dumps({"cmd": "inject", "text": command.text})
    if isinstance(command, ConfigureCommand):
        fields: dict[str, Any] = {"cmd": "config"}
        for key in ("voice", "sample_rate", "speed", "word_timestamps", "streaming", "lexicon", "language"):
            value = getattr(command, key)
            if value is not None:
                fields[key] = value
        if command.encoding is not None:
            fields["encoding"] = command.encoding.value
        return _dumps(fields)
    return _dumps({"cmd": _NO_ARGS_NAMES[type(command)]})


# -- events -----------------------------------------------------------------------------------


def _dumps(obj: dict[str, Any]) -> str:
    # ASCII escapes keep any text (even a lone surrogate) sendable as a WebSocket text message.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def encode_ready(
    *,
    sample_rate: int,
    encoding: Encoding,
    voice: str,
    replica: str | None = None,
    language: str | None = None,
    voices: Sequence[Mapping[str, str]] | None = None,
) -> str:
    """Sent once on connect; ``replica`` names the server replica that took the session, when
    the server is one of several (``warmline serve --ray``); ``language`` is the voice's and
    ``voices`` every voice the server offers (``{"id", "language"}``), when given."""
    fields: dict[str, Any] = {
        "event": "ready",
        "sample_rate": sample_rate,
        "frame_ms": FRAME_MS,
        "encoding": encoding.value,
        "voice": voice,
        "protocol": PROTOCOL_VERSION,
    }
    if replica is not None:
        fields["replica"] = replica
    if language is not None:
        fields["language"] = language
    if voices is not None:
        fields["voices"] = [dict(v) for v in voices]
    return _dumps(fields)


def encode_configured(
    *,
    sample_rate: int,
    encoding: Encoding,
    voice: str,
    speed: float,
    word_timestamps: bool,
    streaming: bool,
    language: str | None = None,
) -> str:
    """The settings in force after a ``config`` command (every field, changed or not)."""
    fields: dict[str, Any] = {
        "event": "configured",
        "sample_rate": sample_rate,
        "frame_ms": FRAME_MS,
        "encoding": encoding.value,
        "voice": voice,
        "speed": speed,
        "word_timestamps": word_timestamps,
        "streaming": streaming,
    }
    if language is not None:
        fields["language"] = language
    return _dumps(fields)


def encode_done() -> str:
    """All audio of the turn has been sent."""
    return _dumps({"event": "done"})


def encode_paused(*, spoken: str, samples: int) -> str:
    """Audio stopped; ``spoken`` is the text of the turn's audio sent so far, ``samples`` its length."""
    return _dumps({"event": "paused", "spoken": spoken, "samples": samples})


def encode_resumed() -> str:
    return _dumps({"event": "resumed"})


def encode_reset() -> str:
    return _dumps({"event": "reset"})


def encode_word(*, word: str, start_ms: float, end_ms: float) -> str:
    """One word of the turn and where its audio lies, in ms from the turn's first sample."""
    return _dumps({"event": "word", "word": word, "start_ms": round(start_ms, 1), "end_ms": round(end_ms, 1)})


def encode_error(code: str, message: str) -> str:
    return _dumps({"event": "error", "code": code, "message": message})


def decode_event(message: str) -> dict[str, Any]:
    """A server event as a dict (for clients and tests); raises ProtocolError if it is not one."""
    try:
        obj = jsonlimits.loads(message)
    except ValueError as exc:
        raise ProtocolError("bad_json", "not a JSON event") from exc
    if not isinstance(obj, dict) or not isinstance(obj.get("event"), str):
        raise ProtocolError("bad_json", 'an event is a JSON object with a string "event"')
    return obj


# -- audio ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AudioMessage:
    """One decoded binary message: the header's figures and the raw sample bytes."""

    num_samples: int
    ms: float
    payload: bytes

    @property
    def encoding(self) -> Encoding:
        """PCM16 or mu-law, told apart by the payload's length."""
        return Encoding.MULAW if len(self.payload) == self.num_samples else Encoding.PCM16


def encode_audio_frame(samples: npt.NDArray[np.int16] | npt.NDArray[np.uint8], ms: float) -> bytes:
    """The binary message for one frame: int16 samples, or uint8 mu-law codes, after the header."""
    arr = np.asarray(samples)
    if arr.dtype == np.int16:
        payload = arr.astype("<i2", copy=False).tobytes()
    elif arr.dtype == np.uint8:
        payload = arr.tobytes()
    else:
        raise TypeError(f"audio frames carry int16 or uint8 (mu-law) samples, not {arr.dtype}")
    return AUDIO_HEADER.pack(len(arr), float(ms)) + payload


def decode_audio_frame(data: bytes) -> AudioMessage:
    """The header and samples of one binary message; raises ProtocolError if it is malformed."""
    if len(data) < AUDIO_HEADER.size:
        raise ProtocolError("bad_audio", f"an audio message is at least {AUDIO_HEADER.size} bytes")
    num_samples, ms = AUDIO_HEADER.unpack_from(data)
    payload = bytes(data[AUDIO_HEADER.size :])
    if len(payload) not in (num_samples, 2 * num_samples) or num_samples == 0:
        raise ProtocolError("bad_audio", f"{len(payload)} payload bytes for {num_samples} samples")
    return AudioMessage(num_samples, float(ms), payload)


def audio_to_pcm16(message: AudioMessage) -> npt.NDArray[np.int16]:
    """The message's samples as int16, decoding mu-law when that is what it carries."""
    if message.encoding is Encoding.MULAW:
        return mulaw_decode(message.payload)
    return np.frombuffer(message.payload, dtype="<i2").astype(np.int16)
