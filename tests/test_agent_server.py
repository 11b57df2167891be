"""The agent server's routes and token guard, over real HTTP and WebSocket on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pipecat.frames.frames import EndFrame, Frame, LLMContextFrame, LLMTextFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from websockets.asyncio.client import connect

from agent.cli import main
from agent.pipeline import AgentParts
from agent.server import TOKEN_COOKIE, AgentSettings, create_agent_app, default_parts
from transports.asterisk.audiosocket_carrier import AudioSocketPbx
from transports.serve import serving
from transports.twilio.carrier import Carrier
from transports.ws.settings import ServerSettings
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime


def fetch(
    url: str, *, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request; HTTP errors are answers too."""
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return int(resp.status), dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), dict(exc.headers), exc.read()


def test_every_transport_is_routed_on_one_server(hibari_backend: Backend) -> None:
    """/, /api/offer, /twiml, /healthz and /metrics answer on the same app (no token set), and
    ``--audiosocket-port`` listens beside it (a connection that is no call gets a hangup)."""
    results: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            settings = AgentSettings(audiosocket_port=0)
            app = create_agent_app(runtime, settings, parts=AgentParts(runtime=runtime))
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                reader, writer = await asyncio.open_connection(host, app.state.audiosocket.port)
                writer.write(b"\x10\x00\x00")  # audio before the call's UUID
                async with asyncio.timeout(5):
                    results["audiosocket"] = await reader.read()
                writer.close()
                base = f"http://{host}:{port}"
                results["page"] = await asyncio.to_thread(fetch, f"{base}/")
                results["offer"] = await asyncio.to_thread(fetch, f"{base}/api/offer", data=b"{}")
                results["twiml"] = await asyncio.to_thread(fetch, f"{base}/twiml", data=b"CallSid=CA1")
                results["health"] = await asyncio.to_thread(fetch, f"{base}/healthz")
                results["metrics"] = await asyncio.to_thread(fetch, f"{base}/metrics")

    asyncio.run(main())
    assert results["page"][0] == 200 and b"<html" in results["page"][2].lower()
    assert results["offer"][0] == 400  # routed, and the empty offer refused with its reason
    assert results["twiml"][0] == 200 and b"/twilio" in results["twiml"][2]
    health = json.loads(results["health"][2])
    assert health["status"] == "ok" and health["calls"] == {
        "twilio": 0,
        "webrtc": 0,
        "telnyx": 0,
        "plivo": 0,
        "exotel": 0,
        "vonage": 0,
        "asterisk": 0,
        "audiosocket": 0,
    }
    assert results["audiosocket"] == b"\x00\x00\x00"
    assert results["metrics"][0] == 200 and b"warmline_agent_turns" in results["metrics"][2]


def test_with_a_token_every_route_but_healthz_wants_it(hibari_backend: Backend) -> None:
    """401 without the token; the page opened with ?token= sets a cookie the offer route accepts;
    an AudioSocket call, which cannot carry the token (its port is guarded by the network), is
    answered."""
    results: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            settings = AgentSettings(token="s3cret", audiosocket_port=0)
            app = create_agent_app(runtime, settings, parts=AgentParts(runtime=runtime))
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                pbx = await AudioSocketPbx.connect(host, app.state.audiosocket.port)
                for _ in range(500):  # the bot takes the call (bounded wait)
                    if app.state.agent.calls["audiosocket"] == 1:
                        break
                    await asyncio.sleep(0.01)
                results["audiosocket_calls"] = app.state.agent.calls["audiosocket"]
                await pbx.hang_up()
                base = f"http://{host}:{port}"
                for name, path in (("health", "/healthz"), ("metrics", "/metrics"), ("page", "/")):
                    results[name] = await asyncio.to_thread(fetch, f"{base}{path}")
                results["twiml"] = await asyncio.to_thread(fetch, f"{base}/twiml?token=s3cret", data=b"")
                results["page_ok"] = await asyncio.to_thread(fetch, f"{base}/?token=s3cret")
                cookie = results["page_ok"][1].get("set-cookie", "").split(";")[0]
                headers = {"Cookie": cookie}
                results["offer"] = await asyncio.to_thread(
                    fetch, f"{base}/api/offer", data=b"{}", headers=headers
                )
                async with connect(f"ws://{host}:{port}/twilio") as ws:  # no token parameter
                    carrier = Carrier(ws)
                    await carrier.begin()
                    await asyncio.wait_for(ws.wait_closed(), 10)
                    results["stream_close"] = ws.close_code

    asyncio.run(main())
    assert results["health"][0] == 200
    assert results["metrics"][0] == 401 and results["page"][0] == 401
    assert results["twiml"][0] == 200 and b'name="token" value="s3cret"' in results["twiml"][2]
    assert results["page_ok"][0] == 200
    assert results["page_ok"][1]["set-cookie"].startswith(f"{TOKEN_COOKIE}=s3cret;")
    assert results["offer"][0] == 400  # past the guard: the empty offer itself is refused
    assert results["stream_close"] == 1008
    assert results["audiosocket_calls"] == 1


def test_warmline_call_refuses_a_public_address_without_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    """``warmline call --host 0.0.0.0`` exits 2 with one line, before loading anything."""
    assert main(["call", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "insecure_bind" in err[0]


ANSWER_TOKENS = ["We ", "open ", "at ", "nine."]


def chat_completions_app(requests: list[dict[str, Any]]) -> Starlette:
    """A fake OpenAI-compatible server: streams ``ANSWER_TOKENS`` as chat completion chunks."""

    async def completions(request: Request) -> Response:
        requests.append(await request.json())

        def chunk(delta: dict[str, str], finish: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            body = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            return "data: " + json.dumps({**body, "choices": [choice]}) + "\n\n"

        async def events() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            for token in ANSWER_TOKENS:
                yield chunk({"content": token})
            yield chunk({}, "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def test_an_openai_compatible_llm_replaces_the_demo_responder(hibari_backend: Backend) -> None:
    """With --llm-base-url/--llm-model the LLM part streams the endpoint's answer for the user turn."""
    pytest.importorskip("openai")
    requests: list[dict[str, Any]] = []
    texts: list[str] = []

    class Sink(FrameProcessor):
        async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
            await super().process_frame(frame, direction)
            if isinstance(frame, LLMTextFrame):
                texts.append(frame.text)
            await self.push_frame(frame, direction)

    async def main() -> None:
        async with serving(chat_completions_app(requests), ServerSettings()) as (host, port):
            settings = AgentSettings(llm_base_url=f"http://{host}:{port}/v1", llm_model="llama3")
            llm = default_parts(EngineRuntime(hibari_backend), settings).llm()
            worker = PipelineWorker(Pipeline([llm, Sink()]), cancel_on_idle_timeout=False)
            context = LLMContext(messages=[{"role": "user", "content": "when do you open"}])
            await worker.queue_frames([LLMContextFrame(context), EndFrame()])
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(worker)
            await asyncio.wait_for(runner.run(), 30)

    asyncio.run(main())
    assert requests and requests[0]["model"] == "llama3"
    assert requests[0]["messages"][-1]["content"] == "when do you open"
    assert "".join(texts) == "".join(ANSWER_TOKENS)
