"""OpenAI's speech API on a live ``warmline serve``, driven by the real ``openai`` client.

Every ``response_format``, streamed and whole, is decoded (PyAV for the compressed ones) and
recognised (pocketsphinx, closed grammar); SSE events are parsed; each documented error comes
back with its status and OpenAI's error shape; a response streams before the input is all
synthesized and a client that leaves frees its session (``GatedTone``: the second unit waits for
the test). Pipecat's own ``OpenAITTSService`` is pointed at the server with ``base_url``.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import threading
import wave
from collections.abc import Awaitable, Callable
from typing import Any

import av
import httpx2
import numpy as np
import numpy.typing as npt
import openai
import pytest
from asr import DISTRACTORS, normalize, recognize
from openai import AsyncOpenAI
from toy_backends import ToneBackend
from ws_helpers import LiveServer, live_server

from transports.drain import Drain
from transports.serve import serving
from transports.ws.server import create_app
from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.ports import Backend, UnitAudio, VoiceState
from tts_service.runtime import EngineRuntime

SENTENCES = {
    "pcm": "Please call me back tomorrow morning.",
    "wav": "What time does the train leave?",
    "mp3": "Thank you for calling, have a nice day.",
    "opus": "The weather is lovely today.",
    "aac": "I would like to book a table for two.",
    "flac": "Can you hear me now?",
}
GRAMMAR = (*SENTENCES.values(), *DISTRACTORS, "have a nice day")
WAIT_S = 60.0


class GatedTone(ToneBackend):
    """The tone voice, whose units after the first wait for ``gate`` (bounded): the test decides
    when the rest of the input is synthesized."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        if self.calls:
            self.gate.wait(timeout=WAIT_S)
        return super().synthesize(state, text, speed=speed, seed=seed)


def run(
    body: Callable[[LiveServer, AsyncOpenAI], Awaitable[None]],
    backend: Backend | None = None,
    settings: ServerSettings | None = None,
    drain: Drain | None = None,
) -> None:
    async def main() -> None:
        async with live_server(backend or HibariBackend(), settings, drain=drain) as server:
            token = settings.token if settings and settings.token else "unused"
            client = AsyncOpenAI(base_url=server.http("/v1"), api_key=token, max_retries=0)
            try:
                await asyncio.wait_for(body(server, client), 240)
            finally:
                await client.close()
                if isinstance(backend, GatedTone):
                    backend.gate.set()

    asyncio.run(main())


def decode(data: bytes, response_format: str) -> tuple[npt.NDArray[np.float32], int]:
    """Mono float samples and their rate, decoded as a client would."""
    if response_format == "pcm":
        return np.frombuffer(data, "<i2").astype(np.float32) / 32768, 24000
    if response_format == "wav":
        with wave.open(io.BytesIO(data)) as w:
            assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
            # a streamed WAV says "unknown" for its sizes: read to the end of the data
            frames = w.readframes(len(data))
            return np.frombuffer(frames, "<i2").astype(np.float32) / 32768, w.getframerate()
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.audio[0]
        chunks = [f.to_ndarray() for f in container.decode(stream)]
        rate = stream.rate
    samples = np.concatenate([c.reshape(-1) for c in chunks])  # mono: one plane, or one channel
    if samples.dtype.kind == "i":  # FLAC decodes to integers
        return samples.astype(np.float32) / 32768, rate
    return samples.astype(np.float32), rate


def heard(data: bytes, response_format: str) -> str | None:
    samples, rate = decode(data, response_format)
    return recognize(samples, rate, GRAMMAR)


# -- every format -------------------------------------------------------------------------


@pytest.mark.parametrize("response_format", list(SENTENCES))
def test_every_format_streamed_and_whole_is_decoded_and_recognised(response_format: str) -> None:
    sentence = SENTENCES[response_format]
    media = {"pcm": "audio/pcm", "wav": "audio/wav", "mp3": "audio/mpeg", "opus": "audio/ogg"}

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        chunks: list[bytes] = []
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1",
            voice="alloy",
            input=sentence,
            response_format=response_format,  # type: ignore[arg-type]
        ) as response:
            assert response.headers["content-type"].startswith(
                media.get(response_format, f"audio/{response_format}")
            )
            assert "content-length" not in response.headers  # streamed as it is made
            async for chunk in response.iter_bytes():
                chunks.append(chunk)
        whole = await client.audio.speech.create(
            model="gpt-4o-mini-tts",
            voice="heart",
            input=sentence,
            response_format=response_format,  # type: ignore[arg-type]
        )
        for data in (b"".join(chunks), whole.content):
            assert heard(data, response_format) == " ".join(normalize(sentence))
        samples, rate = decode(whole.content, response_format)
        assert 1.0 < len(samples) / rate < 5.0
        assert await server.wait_sessions(0) == 0

    run(body)


def test_sse_streams_base64_deltas_then_done_with_usage() -> None:
    sentence = "Please call me back tomorrow morning."

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        events: list[dict[str, Any]] = []
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="nova", input=sentence, response_format="pcm", stream_format="sse"
        ) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[len("data: ") :]))
        kinds = [e["type"] for e in events]
        assert kinds[-1] == "speech.audio.done" and set(kinds[:-1]) == {"speech.audio.delta"}
        pcm = b"".join(base64.b64decode(e["audio"]) for e in events[:-1])
        assert heard(pcm, "pcm") == "please call me back tomorrow morning"
        usage = events[-1]["usage"]
        assert usage["input_tokens"] == len(sentence)
        assert usage["output_tokens"] == len(pcm) // (2 * 1920)  # 80 ms frames at 24 kHz
        assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]

    run(body)


def test_models_and_voices_are_listed_and_openai_voice_names_resolve() -> None:
    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        models = [m.id for m in (await client.models.list()).data]
        assert models[0] == "hibari" and {"tts-1", "tts-1-hd", "gpt-4o-mini-tts"} <= set(models)
        voices = await server.get_json("/v1/audio/voices")
        assert (
            voices["default"] == "heart"
            and {"id": "heart", "name": "heart", "language": "en"} in voices["voices"]
        )
        assert voices["aliases"]["alloy"] == "heart" and len(voices["aliases"]) == 13
        async with client.audio.speech.with_streaming_response.create(
            model="hibari", voice={"id": "onyx"}, input="Hello.", response_format="pcm"
        ) as response:
            assert response.headers["x-warmline-voice"] == "heart"  # no male voice cached here
            await response.read()

    run(body)


def test_warmline_and_the_backends_name_are_listed_models_that_speak() -> None:
    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        listed = await client.models.list()
        models = [m.id for m in listed.data]
        assert models[:2] == ["hibari", "warmline"] and len(models) == len(set(models))
        sentence = SENTENCES["pcm"]
        for model in ("warmline", "hibari"):
            whole = await client.audio.speech.create(
                model=model, voice="alloy", input=sentence, response_format="pcm"
            )
            assert heard(whole.content, "pcm") == " ".join(normalize(sentence)), model

    run(body)


def test_the_model_is_loaded_and_warm_before_the_server_takes_its_first_request() -> None:
    """``warmline serve`` starts its runtime before it serves (``transports.serve.serve_app``), and
    the app itself does in its lifespan: given a runtime nobody started, on a hibari model not
    yet loaded, the server is up only once the model is loaded and has run its warm-up
    inference (``HibariBackend.load``), and no request has been needed for it."""
    fresh = HibariBackend()

    async def main() -> None:
        runtime = EngineRuntime(fresh, workers=2)
        app = create_app(runtime, ServerSettings())
        try:
            assert not fresh.is_warm() and not runtime.started
            async with serving(app, host="127.0.0.1", port=0) as (host, port):
                assert fresh.is_warm() and runtime.started  # before any request
                assert runtime.stats.sessions_opened == 0
                client = AsyncOpenAI(base_url=f"http://{host}:{port}/v1", api_key="unused", max_retries=0)
                try:
                    whole = await client.audio.speech.create(
                        model="warmline", voice="alloy", input=SENTENCES["pcm"], response_format="pcm"
                    )
                finally:
                    await client.close()
                assert heard(whole.content, "pcm") == " ".join(normalize(SENTENCES["pcm"]))
        finally:
            await runtime.aclose()

    asyncio.run(main())


# -- errors, in OpenAI's shape ------------------------------------------------------------


def assert_openai_error(exc: openai.APIStatusError, status: int, param: str | None, code: str | None) -> None:
    assert exc.status_code == status
    error = exc.response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"] and error["type"]
    assert (error["param"], error["code"]) == (param, code)


@pytest.mark.parametrize(
    ("fields", "status", "param", "code"),
    [
        ({"input": ""}, 400, "input", "empty_input"),
        ({"input": "   "}, 400, "input", "empty_input"),
        ({"input": "word " * 2500}, 400, "input", "string_above_max_length"),
        ({"voice": "nobody"}, 400, "voice", "invalid_voice"),
        ({"response_format": "ogg"}, 400, "response_format", "invalid_value"),
        ({"stream_format": "chunks"}, 400, "stream_format", "invalid_value"),
        ({"speed": 3.0}, 400, "speed", "invalid_value"),
        ({"speed": 0.25}, 400, "speed", "invalid_value"),
        ({"speed": "fast"}, 400, "speed", "invalid_type"),
        ({"model": "tts-9"}, 404, "model", "model_not_found"),
        # the product's name and the backend's are models: the bad field is what gets answered
        ({"model": "warmline", "speed": 9.0}, 400, "speed", "invalid_value"),
        ({"model": "warmline", "voice": "nobody"}, 400, "voice", "invalid_voice"),
        ({"model": "warmline", "input": ""}, 400, "input", "empty_input"),
        ({"model": "tone", "response_format": "ogg"}, 400, "response_format", "invalid_value"),
    ],
    ids=lambda v: json.dumps(v)[:30] if isinstance(v, dict) else str(v),
)
def test_a_bad_request_gets_its_status_and_openai_error_shape(
    fields: dict[str, Any], status: int, param: str, code: str
) -> None:
    request: dict[str, Any] = {"model": "tts-1", "voice": "alloy", "input": "Hello.", **fields}

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        with pytest.raises(openai.APIStatusError) as caught:
            await client.audio.speech.create(**request)
        assert_openai_error(caught.value, status, param, code)
        assert server.state.metrics.speech_requests.labels("refused", str(status))._value.get() == 1

    run(body, ToneBackend())


@pytest.mark.parametrize("text", ["...", "🙂 🙂", "```\ncode only\n```"])
def test_input_with_nothing_to_say_is_a_short_valid_file_not_an_error(text: str) -> None:
    """Punctuation, emoji or a code block alone: 200 with a valid (silent or empty) WAV, session freed."""

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        whole = await client.audio.speech.create(
            model="tts-1", voice="alloy", input=text, response_format="wav"
        )
        samples, rate = decode(whole.content, "wav")
        assert rate == 24000 and len(samples) / rate < 1.0
        assert await server.wait_sessions(0) == 0

    run(body, ToneBackend())


def test_bad_json_a_wrong_token_and_a_full_server_get_their_statuses() -> None:
    settings = ServerSettings(token="sesame", max_sessions=1)
    backend = GatedTone()

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        async with httpx2.AsyncClient(base_url=server.http("/v1")) as http:
            bad = await http.post(
                "/audio/speech", content=b"{not json", headers={"Authorization": "Bearer sesame"}
            )
            assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
            listed = await http.post(
                "/audio/speech", content=b"[1]", headers={"Authorization": "Bearer sesame"}
            )
            assert listed.status_code == 400
        wrong = AsyncOpenAI(base_url=server.http("/v1"), api_key="guess", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as caught:
            await wrong.audio.speech.create(model="tts-1", voice="alloy", input="Hello.")
        assert_openai_error(caught.value, 401, None, "invalid_api_key")
        with pytest.raises(openai.AuthenticationError):
            await wrong.models.list()
        await wrong.close()
        # one long answer holds the only session: the next request is told to come back later
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1",
            voice="alloy",
            input="First part. " + "More words follow here. " * 5,
            response_format="pcm",
        ) as held:
            held_chunks = held.iter_bytes()
            await anext(held_chunks)
            with pytest.raises(openai.RateLimitError) as full:
                await client.audio.speech.create(model="tts-1", voice="alloy", input="Hello.")
            assert_openai_error(full.value, 429, None, "rate_limit_exceeded")
            backend.gate.set()
            assert [chunk async for chunk in held_chunks]

    run(body, backend, settings)


# -- streaming, leaving, draining -----------------------------------------------------------


def test_the_first_bytes_leave_before_the_rest_of_the_input_is_synthesized() -> None:
    backend = GatedTone()

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        text = "First clause here, " + "and then many more words that are not yet made. " * 4
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input=text, response_format="mp3"
        ) as response:
            chunks = response.iter_bytes()
            first = await anext(chunks)
            assert first and backend.calls == ["First clause here,"]  # the rest waits at the gate
            backend.gate.set()
            rest = b"".join([chunk async for chunk in chunks])
        samples, rate = decode(first + rest, "mp3")
        assert len(samples) / rate > 5.0  # all of it came, after the first bytes
        assert len(backend.calls) > 1

    run(body, backend)


@pytest.mark.parametrize("stream_format", ["audio", "sse"])
def test_a_client_that_leaves_mid_stream_frees_its_session_at_once(stream_format: str) -> None:
    backend = GatedTone()

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1",
            voice="alloy",
            input="A first clause, then a long rest. " * 10,
            response_format="opus",
            stream_format=stream_format,  # type: ignore[arg-type]
        ) as response:
            await anext(response.iter_bytes())
            assert server.state.connections == 1
        # gone mid-answer, with the model still blocked on the rest: the session is freed now
        assert await server.wait_sessions(0) == 0
        assert server.state.connections == 0
        assert server.state.metrics.speech_requests.labels("cut", "200")._value.get() == 1

    run(body, backend)


def test_a_drain_finishes_the_response_in_progress_and_refuses_new_ones() -> None:
    backend = GatedTone()
    drain = Drain()

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input="First part. And the rest of it.", response_format="wav"
        ) as response:
            chunks = response.iter_bytes()
            first = await anext(chunks)
            drain.begin(30.0)
            with pytest.raises(openai.InternalServerError) as refused:
                await client.audio.speech.create(model="tts-1", voice="alloy", input="Hello.")
            assert_openai_error(refused.value, 503, None, "server_draining")
            backend.gate.set()
            data = first + b"".join([chunk async for chunk in chunks])
        samples, _ = decode(data, "wav")
        assert len(backend.calls) == 2 and len(samples) > 0
        assert await drain.wait_empty()

    run(body, backend, drain=drain)


def test_a_drain_whose_time_is_up_ends_the_response_and_frees_its_session() -> None:
    backend = GatedTone()
    drain = Drain()

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        with pytest.raises(httpx2.RemoteProtocolError):  # cut: the body never ends
            async with client.audio.speech.with_streaming_response.create(
                model="tts-1",
                voice="alloy",
                input="First part. And a rest that never comes.",
                response_format="pcm",
            ) as response:
                chunks = response.iter_bytes()
                await anext(chunks)
                drain.begin(0.2)  # the gate stays shut: the answer cannot finish within the bound
                async for _ in chunks:
                    pass
        for _ in range(500):  # /healthz says 503 now: read the runtime itself (bounded)
            if server.state.runtime.session_count == 0:
                break
            await asyncio.sleep(0.01)
        assert server.state.runtime.session_count == 0 and server.state.connections == 0
        assert not await drain.wait_empty() and drain.jobs == 0  # ended by the bound, not before it

    run(body, backend, drain=drain)


def test_a_failure_before_any_audio_is_an_http_error_and_after_it_cuts_the_response() -> None:
    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        with pytest.raises(openai.InternalServerError) as caught:
            await client.audio.speech.create(model="tts-1", voice="alloy", input="A broken start.")
        assert_openai_error(caught.value, 500, None, "synthesis_failed")
        with pytest.raises(httpx2.RemoteProtocolError):  # the body never ends: the audio is not whole
            async with client.audio.speech.with_streaming_response.create(
                model="tts-1",
                voice="alloy",
                input="This part is fine. This one is broken.",
                response_format="pcm",
            ) as response:
                await response.read()
        events: list[dict[str, Any]] = []
        async with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input="Fine first. Broken then.", stream_format="sse"
        ) as response:
            events = [
                json.loads(line[6:]) async for line in response.iter_lines() if line.startswith("data: ")
            ]
        assert events[0]["type"] == "speech.audio.delta"
        assert events[-1]["type"] == "error" and events[-1]["error"]["code"] == "synthesis_failed"
        assert await server.wait_sessions(0) == 0

    run(body, ToneBackend(fail_on="roken"))


# -- Pipecat's own OpenAI TTS service -----------------------------------------------------


def test_pipecats_openai_tts_service_speaks_through_warmline_serve() -> None:
    from pipecat.frames.frames import EndFrame, TTSAudioRawFrame, TTSSpeakFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.services.openai.tts import OpenAITTSService
    from pipecat.workers.runner import WorkerRunner

    from agent.sim import Playback

    sentence = "What time does the train leave?"

    async def body(server: LiveServer, client: AsyncOpenAI) -> None:
        tts = OpenAITTSService(api_key="unused", base_url=server.http("/v1"))
        playback = Playback()
        worker = PipelineWorker(
            Pipeline([tts, playback]),
            params=PipelineParams(audio_out_sample_rate=24000),
            cancel_on_idle_timeout=False,
        )
        await worker.queue_frames([TTSSpeakFrame(sentence), EndFrame()])
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        await runner.run()
        audio = [f for f in playback.received if isinstance(f, TTSAudioRawFrame)]
        pcm = b"".join(f.audio for f in audio)
        assert {f.sample_rate for f in audio} == {24000}
        assert heard(pcm, "pcm") == "what time does the train leave"

    run(body)
