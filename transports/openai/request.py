"""``POST /v1/audio/speech`` requests and errors as OpenAI defines them: pure, checked once.

    request = parse_speech_request(body, limits)    # a SpeechRequest, or raises ApiError

Every field OpenAI documents is read: ``model`` (one of ``SpeechLimits.models``: the backend's
name, ``warmline`` and OpenAI's TTS model names all mean this server's model), ``input``,
``voice`` (a name, or ``{"id": name}``; see ``voices``), ``response_format`` (default ``mp3``),
``speed`` (default 1.0; OpenAI allows 0.25-4.0, this server the backend's range),
``stream_format`` (``audio``, the default, or ``sse``) and ``instructions``, which is accepted
and has no effect: Warmline's voices take no style prompt.
Unknown fields are ignored, as OpenAI's clients may send newer ones.

Whatever the body holds, the answer is a ``SpeechRequest`` or an ``ApiError``, never another
exception: JSON nested too deep, an integer too long for Python to read, a ``speed`` too large
for a float (or ``NaN``, which Python's JSON reads), a field of the wrong type (even a deeply
nested one), a name holding a lone surrogate (no model, voice or format has one: a malformed
name, not an unknown one) are all 400s, and an error quotes at most a short, truncated piece of
what it was sent.

An ``ApiError`` carries the HTTP status and OpenAI's error body,
``{"error": {"message", "type", "param", "code"}}``; a client's text quoted in it may hold a lone
surrogate, so the body is to be written with JSON's ASCII escapes (``ApiError.json``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transports.openai.encoders import FORMATS
from transports.openai.voices import resolve_voice
from tts_service import jsonlimits

#: the product's name, accepted as a model name beside the backend's own (``hibari``, ...)
WARMLINE_MODEL = "warmline"
#: OpenAI's speech model names; each is served by this server's one model
OPENAI_SPEECH_MODELS = ("tts-1", "tts-1-hd", "gpt-4o-mini-tts", "gpt-4o-mini-tts-2025-12-15")
STREAM_FORMATS = ("audio", "sse")
#: the speed range OpenAI documents (this server may allow less: its backend's range)
OPENAI_SPEED_RANGE = (0.25, 4.0)
#: the most of a client's text an error message quotes, in characters
_QUOTE_CHARS = 60


class ApiError(Exception):
    """An error answered in OpenAI's shape with ``status``."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        #: headers the answer carries (``Connection: close`` after an unread body, say)
        self.headers = dict(headers or {})

    def body(self) -> dict[str, dict[str, str | None]]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def json(self) -> bytes:
        """``body()`` as JSON in ASCII: a lone surrogate a client sent is escaped, not unencodable."""
        return json.dumps(self.body(), ensure_ascii=True, separators=(",", ":")).encode("ascii")


@dataclass(frozen=True, slots=True)
class SpeechLimits:
    """What this server offers: the request is checked against it."""

    #: the model names accepted: the backend's own, ``warmline`` and OpenAI's
    models: tuple[str, ...]
    voices: tuple[str, ...]
    default_voice: str
    speed_range: tuple[float, float]
    max_input_chars: int


@dataclass(frozen=True, slots=True)
class SpeechRequest:
    model: str
    input: str
    #: the voice of ours that speaks (after the OpenAI name mapping)
    voice: str
    #: the voice as the client named it
    requested_voice: str
    response_format: str
    speed: float
    stream_format: str
    instructions: str | None


def parse_speech_request(body: bytes, limits: SpeechLimits) -> SpeechRequest:
    """The request in ``body``; raises ``ApiError`` (400, or 404 for an unknown model).

    The model is checked first, as OpenAI does: with a known one, the first bad field gets its
    own 400.
    """
    try:
        data = jsonlimits.loads(body)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ApiError(400, f"We could not parse the JSON body of your request: {_unparsable(exc)}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    model = _name(_string(data, "model", required=True), "model")
    if model not in limits.models:
        raise ApiError(
            404,
            f"The model '{model}' does not exist here; use one of: {', '.join(limits.models)}.",
            param="model",
            code="model_not_found",
        )
    text = _string(data, "input", required=True)
    if not text.strip():
        raise ApiError(400, "'input' is empty: there is nothing to say.", param="input", code="empty_input")
    if len(text) > limits.max_input_chars:
        raise ApiError(
            400,
            f"'input' holds {len(text)} characters; at most {limits.max_input_chars} are allowed.",
            param="input",
            code="string_above_max_length",
        )
    requested = _voice_name(data.get("voice"))
    voice = resolve_voice(requested, limits.voices, limits.default_voice)
    if voice is None:
        raise ApiError(
            400,
            f"Unknown voice '{_quote(requested)}'. Use one of {', '.join(limits.voices)}, or an OpenAI voice "
            f"name (see GET /v1/audio/voices).",
            param="voice",
            code="invalid_voice",
        )
    response_format = _choice(data, "response_format", tuple(FORMATS), default="mp3")
    stream_format = _choice(data, "stream_format", STREAM_FORMATS, default="audio")
    return SpeechRequest(
        model=model,
        input=text,
        voice=voice,
        requested_voice=requested,
        response_format=response_format,
        speed=_speed(data.get("speed", 1.0), limits.speed_range),
        stream_format=stream_format,
        instructions=_string(data, "instructions") or None,
    )


def _unparsable(exc: ValueError | RecursionError) -> str:
    """Why a body is not JSON this server reads, in words (Python's own only where they are JSON's)."""
    if isinstance(exc, RecursionError):
        return "it is nested too deeply."
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return str(exc)
    return "it holds an integer too long to read."  # int()'s limit: over 4,300 digits


def _quote(value: str) -> str:
    """At most ``_QUOTE_CHARS`` of a client's text, for an error message."""
    return value if len(value) <= _QUOTE_CHARS else value[: _QUOTE_CHARS - 3] + "..."


def _string(data: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = data.get(name)
    if value is None:
        if required:
            raise ApiError(400, f"'{name}' is required.", param=name, code="missing_required_parameter")
        return ""
    if not isinstance(value, str):
        raise ApiError(400, f"'{name}' must be a string.", param=name, code="invalid_type")
    return value


def _name(value: str, param: str) -> str:
    """``value``, a name (of a model, voice or format), when it is Unicode text: a lone surrogate
    (``"\\ud800"`` in JSON) names nothing and is a malformed field, not an unknown name (400)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(
            400, f"'{param}' is not valid Unicode text (a lone surrogate).", param=param, code="invalid_value"
        ) from None
    return value


def _voice_name(value: object) -> str:
    if isinstance(value, dict):
        value = value.get("id")
    if value is None:
        raise ApiError(400, "'voice' is required.", param="voice", code="missing_required_parameter")
    if not isinstance(value, str):
        message = "'voice' must be a string or {\"id\": string}."
        raise ApiError(400, message, param="voice", code="invalid_type")
    return _name(value, "voice")


def _choice(data: dict[str, Any], name: str, choices: Sequence[str], *, default: str) -> str:
    value = data.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"'{name}' must be a string.", param=name, code="invalid_type")
    if _name(value, name) not in choices:
        raise ApiError(
            400,
            f"'{_quote(value)}' is not a supported {name}; use one of: {', '.join(choices)}.",
            param=name,
            code="invalid_value",
        )
    return value


def _speed(value: object, allowed: tuple[float, float]) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, "'speed' must be a number.", param="speed", code="invalid_type")
    try:
        speed = float(value)
    except OverflowError:  # an integer of 309 digits or more
        speed = math.inf
    lo, hi = allowed
    if not lo <= speed <= hi:
        raise ApiError(
            400,
            f"'speed' {speed} is out of range: this server's voice speaks at {lo} to {hi} "
            f"(OpenAI allows {OPENAI_SPEED_RANGE[0]} to {OPENAI_SPEED_RANGE[1]}).",
            param="speed",
            code="invalid_value",
        )
    return speed


__all__ = [
    "OPENAI_SPEECH_MODELS",
    "OPENAI_SPEED_RANGE",
    "STREAM_FORMATS",
    "WARMLINE_MODEL",
    "ApiError",
    "SpeechLimits",
    "SpeechRequest",
    "parse_speech_request",
]
