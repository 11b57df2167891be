"""OpenAI's speech API on ``warmline serve``: ``POST /v1/audio/speech``, ``GET /v1/models``, voices.

    client = OpenAI(base_url="http://127.0.0.1:8765/v1", api_key=token or "unused")
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="alloy", input="Hello!", response_format="pcm"
    ) as response:
        for chunk in response.iter_bytes(): ...

One request is one engine session on the server's shared runtime, counted against
``max_sessions`` with the WebSocket sessions (429 beyond). The whole input is given to the engine
at once; the body streams as the engine makes the audio, so the first bytes leave after the first
clause, not after the whole input, and a request that is not listened to in real time is served
as fast as the model runs (the runtime serves live calls first: their listeners run dry sooner).
The status line waits for the first audio frame, so a request that fails before any audio gets
an ordinary HTTP error; one that fails later is cut short (the connection closes without the
body's end; with ``stream_format=sse`` an ``error`` event is sent first).

A client that goes away, or a drain whose time is up, ends the response at once and frees its
session; a drain that begins lets a response in progress finish and refuses new ones (503).
The server's token, when set, is the API key (``Authorization: Bearer``).

Routes: ``POST /v1/audio/speech``; ``GET /v1/models`` (OpenAI's list shape: this server's model,
``warmline`` and the OpenAI names it answers to); ``GET /v1/audio/voices`` (``{"voices": [...], "aliases":
{openai name: voice}}``, the shape OpenAI-compatible servers use). Errors are OpenAI's shape
(``request.ApiError``). Usage in the SSE ``done`` event: Warmline has no tokenizer, so
``input_tokens`` counts the input's characters and ``output_tokens`` the 80 ms frames made.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import itertools
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from transports.drain import NOT_TAKING
from transports.http_body import BodyRefused, read_body
from transports.logsafe import loggable
from transports.openai.encoders import FORMATS, AudioEncoder, new_encoder
from transports.openai.host import SpeechHost
from transports.openai.request import (
    OPENAI_SPEECH_MODELS,
    WARMLINE_MODEL,
    ApiError,
    SpeechLimits,
    SpeechRequest,
    parse_speech_request,
)
from transports.openai.voices import aliases
from transports.security import authorized
from tts_service.engine.session import SessionConfig
from tts_service.engine.types import Done, ErrorEvent, SampleFormat, SpeechFrame
from tts_service.errors import CapacityError, InvalidInputError, WarmlineError
from tts_service.languages import voice_language
from tts_service.runtime import RuntimeSession

log = logging.getLogger("warmline.openai")

#: OpenAI's speech API speaks at 24 kHz in every format
SAMPLE_RATE = 24000
#: JSON around the input text a request body may carry beyond the text itself
_BODY_OVERHEAD_BYTES = 16 * 1024
#: the most bytes one character of the input can take in the body: JSON's ASCII escape of a
#: character outside the BMP is a surrogate pair, ``\ud83d\ude42`` (the limit counts characters)
_MAX_BYTES_PER_CHAR = 12


def openai_routes(state: SpeechHost) -> list[Route]:
    """The speech API's routes on ``state``'s runtime, limits and metrics."""
    names = itertools.count(1)

    async def speech(request: Request) -> Response:
        return await _speech(request, state, f"speech-{next(names)}")

    async def models(request: Request) -> Response:
        if (denied := _denied(request, state)) is not None:
            return denied
        own = state.runtime.backend.name
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "warmline"} for m in _models(state)]
        return JSONResponse({"object": "list", "data": data, "served_by": own})

    async def voices(request: Request) -> Response:
        if (denied := _denied(request, state)) is not None:
            return denied
        usable, default = _voices(state)
        return JSONResponse(
            {
                "voices": [
                    {"id": v, "name": v, "language": voice_language(state.runtime.backend, v)} for v in usable
                ],
                "default": default,
                "aliases": aliases(usable, default),
            }
        )

    return [
        Route("/v1/audio/speech", speech, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/audio/models", models, methods=["GET"]),
        Route("/v1/audio/voices", voices, methods=["GET"]),
    ]


async def _speech(request: Request, state: SpeechHost, name: str) -> Response:
    metrics = state.metrics
    started = time.monotonic()
    try:
        speech, session = await _admit(request, state)
    except ApiError as exc:
        metrics.speech_requests.labels("refused", str(exc.status)).inc()
        if exc.status >= 500:
            log.warning("%s: %s", name, loggable(exc.message))
        return _error(exc)
    try:
        response = SpeechResponse(speech, session, state, name, started=started)
    except BaseException:
        await session.aclose()
        raise
    try:
        await response.prime()
    except ApiError as exc:
        await response.aclose()
        metrics.speech_requests.labels("failed", str(exc.status)).inc()
        log.warning("%s: no audio: %s", name, loggable(exc.message))
        return _error(exc)
    except BaseException:
        await response.aclose()
        raise
    return response


async def _admit(request: Request, state: SpeechHost) -> tuple[SpeechRequest, RuntimeSession]:
    """Check the request, take a seat and open its session; raises ``ApiError``."""
    settings = state.settings
    if not authorized(settings.token, request.headers, request.query_params):
        state.metrics.rejected.labels("token").inc()
        raise _bad_key()
    max_chars = settings.max_turn_chars
    try:
        body = await read_body(request, max_bytes=_MAX_BYTES_PER_CHAR * max_chars + _BODY_OVERHEAD_BYTES)
    except BodyRefused as exc:  # too large (413), not complete in time (408), or the client left
        raise ApiError(exc.status, str(exc), code=exc.code, headers=exc.headers) from None
    usable, default = _voices(state)
    backend = state.runtime.backend
    limits = SpeechLimits(_models(state), usable, default, backend.capabilities.speed_range, max_chars)
    speech = parse_speech_request(body, limits)
    refusal = state.refusal()
    if refusal == "draining":
        state.metrics.rejected.labels("draining").inc()
        raise ApiError(503, NOT_TAKING, type="server_error", code="server_draining")
    if refusal is not None:
        state.metrics.rejected.labels(refusal).inc()
        raise _too_many(settings.max_sessions)
    config = SessionConfig(
        voice=speech.voice,
        speed=speech.speed,
        sample_rate=SAMPLE_RATE,
        sample_format=SampleFormat.PCM16,
        max_text_chars=max_chars,
    )
    with state.seat():  # held across the await, so concurrent requests cannot overshoot
        try:
            session = await state.runtime.open_session(config)
        except CapacityError:
            state.metrics.rejected.labels("max_sessions").inc()
            raise _too_many(settings.max_sessions) from None
        except WarmlineError as exc:
            raise ApiError(500, f"The voice could not be loaded: {exc}", type="server_error") from None
    return speech, session


class SpeechResponse(Response):
    """One request's audio, streamed from its engine session as it is made (see the module doc).

    ``prime()`` waits for the first audio (errors before it become HTTP errors); the ASGI call
    then owns the session, its seat and its drain job until the body ends, the client leaves or
    the drain's time is up, and closes all three however it ends.
    """

    def __init__(
        self,
        speech: SpeechRequest,
        session: RuntimeSession,
        state: SpeechHost,
        name: str,
        *,
        started: float,
    ) -> None:
        fmt = FORMATS[speech.response_format]
        sse = speech.stream_format == "sse"
        # as Starlette's StreamingResponse does: no body attribute, so no Content-Length header
        self.status_code = 200
        self.media_type = "text/event-stream" if sse else fmt.media_type
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Warmline-Voice": speech.voice})
        self._speech = speech
        self._session = session
        self._state = state
        self._name = name
        self._started = started
        self._encoder: AudioEncoder = new_encoder(speech.response_format, SAMPLE_RATE)
        self._frames = 0
        #: the encoded audio, read by ``prime`` up to its first bytes and by the body after
        self._chunks = self._audio()
        self._first: bytes = b""
        self._seat = contextlib.ExitStack()
        self._seat.enter_context(state.seat())
        self._closed = False
        self._closed_why = ""
        #: why an SSE response ended with an ``error`` event
        self._failure: str | None = None

    async def prime(self) -> None:
        """Give the engine the input; return once the first audio is encoded (raises ApiError)."""
        try:
            self._session.start(self._speech.input)
            self._session.flush()
        except InvalidInputError as exc:  # e.g. text the engine finds nothing to say in
            raise ApiError(400, f"'input' was refused: {exc}", param="input", code=exc.code) from None
        while not self._first:
            try:
                self._first = await anext(self._chunks)
            except StopAsyncIteration:
                return

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = self._state
        left = functools.partial(_disconnected, receive)
        watchers = [
            asyncio.create_task(self._abort_when(left, "the client left"), name=f"{self._name}-client"),
            asyncio.create_task(
                self._abort_when(state.drain.wait_expired, "drain time is up"), name=f"{self._name}-drain"
            ),
        ]
        outcome = "cut short"
        try:
            with state.drain.job(self._name) as job:
                outcome = job.outcome = await self._stream_to(send)
        finally:
            for task in watchers:
                task.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            await self._chunks.aclose()
            await self.aclose()
            label = "ok" if outcome == "finished" else "cut"
            self._state.metrics.speech_requests.labels(label, "200").inc()

    async def _stream_to(self, send: Send) -> str:
        """Send the whole response; how it ended (``"finished"``, or why not)."""
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async for chunk in self._body():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if self._closed:
                return self._closed_why
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            return "the client left"
        except ApiError as exc:
            # the status is long sent: the body is left unfinished, so the client knows its audio
            # is not whole
            self._failure = exc.message
        if self._failure is None:
            return "finished"
        log.warning("%s: cut short: %s", self._name, loggable(self._failure))
        return f"cut short: {self._failure}"

    async def aclose(self, why: str = "closed") -> None:
        """End the response: close the session, free the encoder and the seat (idempotent).

        Safe from another task while the body is being read: the session's iteration ends.
        """
        if self._closed:
            return
        self._closed = True
        self._closed_why = why
        await self._session.aclose()
        self._encoder.close()
        self._seat.close()

    async def _abort_when(self, event: Callable[[], Awaitable[object]], why: str) -> None:
        """End the response once ``event()`` returns (the client left, the drain's time is up)."""
        await event()
        await self.aclose(why)

    async def _body(self) -> AsyncIterator[bytes]:
        """The response body: audio bytes, or each chunk as an SSE ``speech.audio.delta``."""
        sse = self._speech.stream_format == "sse"
        wrap: Callable[[bytes], bytes] = _sse_delta if sse else (lambda chunk: chunk)
        try:
            if self._first:
                yield wrap(self._first)
            async for chunk in self._chunks:
                if chunk:
                    yield wrap(chunk)
        except ApiError as exc:
            if not sse:
                raise
            self._failure = exc.message
            yield _sse_event({"type": "error", **exc.body()})
            return
        if sse and not self._closed:
            usage = {"input_tokens": len(self._speech.input), "output_tokens": self._frames}
            usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
            yield _sse_event({"type": "speech.audio.done", "usage": usage})

    async def _audio(self) -> AsyncGenerator[bytes, None]:
        """Encoded bytes as the engine's frames arrive, the encoder's tail at ``Done``."""
        async for out in self._session:
            if isinstance(out, SpeechFrame):
                if self._frames == 0:
                    self._state.metrics.first_frame_latency.observe(time.monotonic() - self._started)
                self._frames += 1
                self._state.metrics.frames_sent.inc()
                yield self._encoder.encode(out.samples.astype("int16", copy=False))
            elif isinstance(out, ErrorEvent):
                self._state.metrics.errors.labels(out.code).inc()
                raise ApiError(500, f"The speech failed: {out.message}", type="server_error", code=out.code)
            elif isinstance(out, Done):
                yield self._encoder.finish()
                await self._session.aclose()
                return


async def _disconnected(receive: Receive) -> None:
    """Return once the client has gone (ASGI ``http.disconnect``)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _sse_event(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


def _sse_delta(chunk: bytes) -> bytes:
    return _sse_event({"type": "speech.audio.delta", "audio": base64.b64encode(chunk).decode("ascii")})


def _models(state: SpeechHost) -> tuple[str, ...]:
    """The model names accepted and listed: the backend's, the product's, then OpenAI's."""
    return tuple(dict.fromkeys((state.runtime.backend.name, WARMLINE_MODEL, *OPENAI_SPEECH_MODELS)))


def _voices(state: SpeechHost) -> tuple[tuple[str, ...], str]:
    backend = state.runtime.backend
    default = state.settings.voice or backend.default_voice
    return tuple(backend.voices()), default


def _denied(request: Request, state: SpeechHost) -> Response | None:
    if authorized(state.settings.token, request.headers, request.query_params):
        return None
    return _error(_bad_key())


def _bad_key() -> ApiError:
    return ApiError(401, "Incorrect API key provided: use this server's token.", code="invalid_api_key")


def _too_many(max_sessions: int) -> ApiError:
    return ApiError(
        429,
        f"Server busy: all {max_sessions} sessions are in use; try again shortly.",
        type="requests",
        code="rate_limit_exceeded",
    )


def _error(exc: ApiError) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
    headers.update(exc.headers)
    return Response(exc.json(), status_code=exc.status, headers=headers, media_type="application/json")


__all__ = ["SAMPLE_RATE", "SpeechResponse", "openai_routes"]
