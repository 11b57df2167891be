"""Hostile bodies on ``POST /v1/audio/speech`` (issue 30): every one a 4xx in OpenAI's error shape.

Row 5: a lone surrogate in a name (``model``, ``voice``, ``voice.id``, ``response_format``,
``stream_format``), an integer ``speed`` of 400 or 5,000 digits, JSON 5,000 deep inside an unknown
field: each is a 400 with OpenAI's error body (ASCII JSON, whatever it quotes), never a 500 or an
ERROR logged. ``parse_speech_request`` raises nothing but ``ApiError`` for any JSON value in any
field (a property test).

Row 10: the input limit counts characters, as the README says (10,000), whatever their JSON
escaping: the byte cap admits the worst escaping of a text at the limit, and the count is taken
on the decoded text.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai import AsyncOpenAI
from toy_backends import ToneBackend
from ws_helpers import LiveServer, live_server

from transports.openai.request import ApiError, SpeechLimits, parse_speech_request

HELLO = {"model": "tts-1", "voice": "alloy", "input": "Hello."}
LONE = "\ud800"


def body(**fields: Any) -> bytes:
    """A request body with ``fields`` over a good request, JSON-escaped as Python does by default."""
    return json.dumps({**HELLO, **fields}).encode()


def with_raw(name: str, value: bytes) -> bytes:
    """A good request with ``"name": value`` spliced in as raw JSON text (what json.dumps won't write)."""
    return body()[:-1] + b', "' + name.encode() + b'": ' + value + b"}"


ROW_5: dict[str, tuple[bytes, str | None, str | None]] = {
    "model": (body(model=LONE), "model", "invalid_value"),
    "voice": (body(voice=LONE), "voice", "invalid_value"),
    "voice.id": (body(voice={"id": LONE}), "voice", "invalid_value"),
    "response_format": (body(response_format=LONE), "response_format", "invalid_value"),
    "stream_format": (body(stream_format=LONE), "stream_format", "invalid_value"),
    "speed of 400 digits": (with_raw("speed", b"9" * 400), "speed", "invalid_value"),
    "speed of 5,000 digits": (with_raw("speed", b"9" * 5000), None, None),  # past int()'s digit limit
    "5,000 deep in an unknown field": (with_raw("x", b"[" * 5000 + b"]" * 5000), None, None),
    "speed NaN": (with_raw("speed", b"NaN"), "speed", "invalid_value"),
    "response_format 50 deep": (  # within the nesting bound (tts_service.jsonlimits): a wrong type
        with_raw("response_format", b"[" * 50 + b"]" * 50),
        "response_format",
        "invalid_type",
    ),
}


class Records(logging.Handler):
    """Records at ERROR or with a traceback, from uvicorn's logger and Warmline's."""

    LOGGERS = ("uvicorn.error", "warmline")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.errors.append(record.getMessage())

    def __enter__(self) -> Records:
        for name in self.LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        for name in self.LOGGERS:
            logging.getLogger(name).removeHandler(self)


def assert_openai_error(status: int, raw: bytes, expected: tuple[int, str | None, str | None]) -> None:
    """``raw`` is OpenAI's error body, in ASCII, with the status, param and code expected."""
    raw.decode("ascii")  # a lone surrogate quoted back is escaped, not unencodable
    error = json.loads(raw)["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    assert (status, error["param"], error["code"]) == expected, error


def run(check: Any) -> list[str]:
    """Run ``check(server, http, client)`` against a live ``warmline serve`` app (the tone voice);
    the ERROR records logged meanwhile."""

    async def main() -> list[str]:
        async with live_server(ToneBackend()) as server:
            with Records() as records:  # after uvicorn configured its loggers (that drops handlers)
                client = AsyncOpenAI(base_url=server.http("/v1"), api_key="unused", max_retries=0)
                async with httpx2.AsyncClient(base_url=server.http("/v1"), timeout=60) as http:
                    try:
                        await asyncio.wait_for(check(server, http, client), 120)
                    finally:
                        await client.close()
                await asyncio.sleep(0.1)  # anything the server logs after its last answer
                return records.errors

    return asyncio.run(main())


def test_row_5_each_hostile_body_is_a_400_in_openais_shape_and_logs_no_error() -> None:
    answers: dict[str, tuple[int, bytes]] = {}

    async def check(server: LiveServer, http: httpx2.AsyncClient, client: AsyncOpenAI) -> None:
        for name, (raw, _, _) in ROW_5.items():
            response = await http.post("/audio/speech", content=raw)
            answers[name] = (response.status_code, response.content)
        # the real client sends the 400-digit speed itself (it writes any int JSON can hold)
        with pytest.raises(openai.BadRequestError) as caught:
            await client.audio.speech.create(**HELLO, speed=10**400)
        answers["speed of 400 digits, from openai"] = (
            caught.value.status_code,
            caught.value.response.content,
        )

    errors = run(check)
    for name, (status, raw) in answers.items():
        _, param, code = ROW_5[name.removesuffix(", from openai")]
        assert_openai_error(status, raw, (400, param, code))
    assert errors == []


LIMITS = SpeechLimits(("tts-1",), ("a", "b"), "a", (0.5, 2.0), 100)
JSON_VALUES = st.recursive(
    # lone surrogates included (text() leaves them out by default)
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
FIELDS = ("model", "input", "voice", "response_format", "speed", "stream_format", "instructions", "x")


@given(st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=7), st.booleans())
def test_any_json_in_any_field_is_a_request_or_an_api_error_written_in_ascii(
    fields: dict[str, Any], over_a_good_request: bool
) -> None:
    data = {**HELLO, "model": "tts-1", "voice": "a", **fields} if over_a_good_request else fields
    try:
        parse_speech_request(json.dumps(data).encode(), LIMITS)
    except ApiError as exc:
        assert 400 <= exc.status < 500
        exc.json().decode("ascii")


# -- row 10: the input limit counts characters, however they are escaped --------------------

MAX_CHARS = 10_000  # ServerSettings' default, the README's figure


def test_row_10_the_limit_counts_characters_whatever_their_json_escaping() -> None:
    """10,000 characters are taken JSON-escaped ("é" as \\u00e9, 60 KB; an astral character as a
    surrogate pair, 12 bytes: 120 KB) as they are in raw UTF-8; 10,001 are refused for their
    count (400), not for their bytes; only a body past what any 10,000 characters escape to is 413,
    and its connection is closed."""
    e_text = "Hello. " + "é" * (MAX_CHARS - 7)
    astral_text = "Hello. " + "\U0001f642" * (MAX_CHARS - 7)
    statuses: dict[str, Any] = {}

    async def first_audio(server: LiveServer, http: httpx2.AsyncClient, raw: bytes) -> tuple[int, int]:
        """(status, how many bytes the first chunk held), then the client leaves."""
        async with http.stream("POST", "/audio/speech", content=raw) as response:
            chunk = await anext(response.aiter_bytes()) if response.status_code == 200 else b""
        assert await server.wait_sessions(0) == 0
        return response.status_code, len(chunk)

    async def check(server: LiveServer, http: httpx2.AsyncClient, client: AsyncOpenAI) -> None:
        for name, text in (("é escaped", e_text), ("astral escaped", astral_text)):
            raw = body(input=text, response_format="pcm")
            assert len(raw) > 4 * MAX_CHARS + 16 * 1024, len(raw)  # past the old byte cap
            statuses[name] = await first_audio(server, http, raw)
        async with client.audio.speech.with_streaming_response.create(
            **{**HELLO, "input": e_text}, response_format="pcm"
        ) as raw_utf8:  # the openai client writes it as UTF-8
            statuses["é as UTF-8"] = (raw_utf8.status_code, len(await anext(raw_utf8.iter_bytes())))
        too_many = await http.post("/audio/speech", content=body(input=astral_text + "é"))
        statuses["10,001 escaped"] = (too_many.status_code, too_many.content)
        padding = "x" * (12 * MAX_CHARS + 16 * 1024)
        too_large = await http.post("/audio/speech", content=body(x=padding))
        statuses["past the byte cap"] = (too_large.status_code, too_large.content)
        statuses["closed"] = too_large.headers.get("connection")

    assert run(check) == []
    for name in ("é escaped", "astral escaped", "é as UTF-8"):
        status, first = statuses[name]
        assert status == 200 and first > 0, (name, statuses[name])
    assert_openai_error(*statuses["10,001 escaped"], (400, "input", "string_above_max_length"))
    assert_openai_error(*statuses["past the byte cap"], (413, None, "body_too_large"))
    assert statuses["closed"] == "close"
