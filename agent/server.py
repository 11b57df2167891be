"""``warmline call``: one server that puts the voice agent on every transport at once.

    app = create_agent_app(runtime, AgentSettings())   # routes below; the runtime is the caller's

Routes: ``/`` (the browser call page) and ``POST /api/offer`` (WebRTC), ``POST /twiml`` (the
Twilio voice webhook) and WebSocket ``/twilio`` (its media stream), ``/healthz`` (JSON) and
``/metrics`` (Prometheus). Each call gets its own pipeline (``pipeline.build_pipeline``) on the
one shared ``EngineRuntime``: one warm model for every call.

With a token, every route but ``/healthz`` and ``/twilio`` wants it (``Authorization: Bearer``,
``?token=``, or the cookie the call page sets when opened with ``?token=``, since the page's
script cannot add a header). The TwiML hands the token to the stream as a ``<Parameter>``, and a
stream without it is closed: configure the Twilio webhook as ``https://HOST/twiml?token=...``.

Drain (``transports.drain``, SIGTERM): ``/healthz`` answers 503, ``/api/offer`` and ``/twiml``
503, a new ``/twilio`` stream 1013; calls in progress run on until the caller hangs up, and
``GOODBYE_LEAD_S`` before the drain's bound the bot says ``GOODBYE`` after what it is saying and
ends the call once it has been played; a call still up at the bound is ended there.

The settings and the parts they choose (STT, VAD, turn-taking, LLM) are ``agent.settings``'; this
module wires and serves; it never runs model compute and never loads a model on the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.blas import one_blas_thread
from agent.carriers import CARRIERS, carrier_routes
from agent.pipeline import AgentParts, AgentPipeline, TurnRecord, build_pipeline, run_agent
from agent.settings import TURN_TAKING, AgentSettings, default_parts, openai_llm
from transports import heap
from transports.asterisk.audiosocket_call import AudioSocketCall
from transports.asterisk.audiosocket_server import AudioSocketServer
from transports.call_slots import CallSlots
from transports.drain import DEFAULT_DRAIN_S, Drain, DrainJob
from transports.media_stream.call import CarrierCall
from transports.process_metrics import register_process_metrics
from transports.security import request_token, token_ok
from transports.serve import ServeOptions, serve_app
from transports.twilio.call import TwilioCall
from transports.twilio.pipecat_transport import TwilioMediaStreamTransport
from transports.twilio.protocol import SAMPLE_RATE as PHONE_SAMPLE_RATE
from transports.twilio.server import TwilioSettings, twilio_routes
from transports.webrtc.endpoint import OPUS_SAMPLE_RATE, WebRTCEndpoint, call_page_routes, webrtc_params
from transports.webrtc.pausable_output import PausableWebRTCOutput
from transports.ws.metrics import CONTENT_TYPE
from tts_service.pipecat.compat import silero_session, smallwebrtc_transport, smart_turn_session
from tts_service.runtime import EngineRuntime

log = logging.getLogger("warmline.agent")

#: the cookie the call page gets when opened with ?token= (its script then needs no header)
TOKEN_COOKIE = "warmline_token"
_LATENCY_BUCKETS_S = (0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
#: what the bot says to a caller still on the line when the server must end the call (a drain)
GOODBYE = "I am sorry, I have to end this call now. Please call again. Goodbye."
#: how long before the drain's bound the bot says goodbye: time for its sentence and the goodbye
GOODBYE_LEAD_S = 10.0
#: after the bot's last audio went out over WebRTC, how long before hanging up: the browser's jitter
#: buffer and audio output still hold the goodbye's last word, and a closed peer drops them. The
#: page played the last word 0.2 s after it went out on an idle machine; under load (packets that
#: came in bursts grow the jitter buffer) the end of "Goodbye." was lost 55 ms after the last
#: packet, then again 0.85 s after it: the grace is many times the idle lag, and a second and a
#: half of quiet after a goodbye is what a person leaves before putting the phone down
WEBRTC_PLAYOUT_GRACE_S = 1.5


class AgentMetrics:
    """Prometheus metrics of the agent server, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        register_process_metrics(self.registry)
        self.calls = Gauge("warmline_agent_calls", "Calls in progress", ["transport"], registry=self.registry)
        self.turns = Counter(
            "warmline_agent_turns", "Bot turns, by outcome", ["outcome"], registry=self.registry
        )
        self.first_audio = Histogram(
            "warmline_agent_first_audio_seconds",
            "From the caller's transcript to the bot's first audio",
            buckets=_LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.llm_requests = Histogram(
            "warmline_agent_llm_requests_per_turn",
            "LLM requests made for each answered caller turn (speculative ones included)",
            buckets=(1, 2, 3, 4, 6),
            registry=self.registry,
        )
        self.barge_ins = Counter(
            "warmline_agent_barge_ins",
            "Callers speaking over the bot, by outcome (resumed: a backchannel or a noise)",
            ["outcome"],
            registry=self.registry,
        )

    def observe_llm_requests(self, requests: int) -> None:
        self.llm_requests.observe(requests)

    def observe_barge_in(self, outcome: str) -> None:
        self.barge_ins.labels(outcome).inc()

    def observe_turn(self, turn: TurnRecord) -> None:
        self.turns.labels("interrupted" if turn.interrupted else "complete").inc()
        if turn.first_audio_s is not None:
            self.first_audio.observe(turn.first_audio_s)

    def render(self) -> bytes:
        return generate_latest(self.registry)


def create_agent_app(
    runtime: EngineRuntime,
    settings: AgentSettings | None = None,
    *,
    parts: AgentParts | None = None,
    metrics: AgentMetrics | None = None,
    drain: Drain | None = None,
) -> Starlette:
    """The ASGI app of ``warmline call``; ``app.state.agent`` is its AgentState."""
    settings = settings or AgentSettings()
    drain = drain or Drain()
    metrics = metrics or AgentMetrics()
    base = parts or default_parts(runtime, settings)
    call_parts = dataclasses.replace(
        base,
        on_turn=metrics.observe_turn,
        on_llm_requests=metrics.observe_llm_requests,
        on_barge_in=metrics.observe_barge_in,
    )
    # one call limit over every route (WebRTC, Twilio, each carrier): a call takes its slot before
    # any await and gives it back however it ends
    state = AgentState(settings, metrics, drain, slots=CallSlots(max_calls=settings.max_calls))

    async def twilio_bot(call: TwilioCall) -> None:
        # AudioSocket carries no parameters: its port is guarded by the PBX's network, not the token
        guarded = settings.token and not isinstance(call, AudioSocketCall)
        if guarded and not token_ok(settings.token, call.custom_parameters.get("token")):
            log.warning("%s: stream without the server's token; closing it", call.name)
            await call.close(1008, "token required")
            return
        transport = TwilioMediaStreamTransport(call)
        agent = build_pipeline(transport, call_parts, name=call.name)
        await state.run(
            call.carrier if isinstance(call, CarrierCall | AudioSocketCall) else "twilio",
            agent,
            run_agent(
                agent, in_sample_rate=PHONE_SAMPLE_RATE, out_sample_rate=PHONE_SAMPLE_RATE, name=call.name
            ),
        )

    async def webrtc_bot(connection: SmallWebRTCConnection) -> None:
        name = f"webrtc-{connection.pc_id[-8:]}"
        # its output pauses the bot on a barge-in not yet confirmed, keeping the rest of the answer
        transport = smallwebrtc_transport(connection, webrtc_params(), PausableWebRTCOutput)
        agent = build_pipeline(transport, call_parts, name=name)
        agent.ends_by_frame = False  # SmallWebRTC's input hangs up as an EndFrame passes it
        agent.playout_grace_s = WEBRTC_PLAYOUT_GRACE_S
        await state.run(
            "webrtc",
            agent,
            run_agent(agent, in_sample_rate=16000, out_sample_rate=OPUS_SAMPLE_RATE, name=name),
        )

    slots = state.slots
    endpoint = WebRTCEndpoint(webrtc_bot, slots=slots, drain=drain)
    twilio_params = {"token": settings.token} if settings.token else {}
    twilio = TwilioSettings(
        public_host=settings.public_host,
        parameters=twilio_params,
        auth_token=settings.twilio_auth_token,
    )

    # AudioSocket (TCP) takes its calls from the same slots as every other route
    audiosocket = AudioSocketServer(twilio_bot, slots=slots, drain=drain)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with one_blas_thread():  # numpy's products at each pause must not spin a core (agent.blas)
            await runtime.start()  # loads and warms the model unless the owner already did
            await asyncio.to_thread(silero_session)  # the models every call shares, off the loop
            await asyncio.to_thread(smart_turn_session)
            state.model_loaded = True
            if settings.audiosocket_port is not None:
                await audiosocket.start(settings.host, settings.audiosocket_port)
            app.state.audiosocket = audiosocket
            try:
                yield
            finally:
                await audiosocket.aclose()  # after the drain: its calls have ended or been hung up
                await endpoint.aclose()
                await state.trimmer.aclose()

    async def healthz(request: Request) -> Response:
        status = "draining" if drain.draining else "ok" if state.model_loaded else "starting"
        return JSONResponse(
            {
                "status": status,
                "model_loaded": state.model_loaded,
                "calls": dict(state.calls),
                "sessions": runtime.session_count,
                "llm": "openai-compatible" if settings.uses_llm else "demo",
                "stt": settings.stt,
            },
            status_code=200 if status == "ok" else 503,
        )

    async def metrics_endpoint(request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    app = Starlette(
        routes=[
            *call_page_routes("/"),
            *endpoint.routes(),
            *twilio_routes(twilio_bot, twilio, drain=drain, slots=slots),
            # the other carriers and Asterisk: the same bot, the same call slots
            *carrier_routes(twilio_bot, settings, slots=slots, drain=drain),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    if settings.token:
        app.add_middleware(TokenGuard, token=settings.token)
    app.state.agent = state
    return app


@dataclass(frozen=True, slots=True)
class CallRecord:
    """What a finished call leaves behind: its outcome, and none of its pipeline.

    A call's pipeline holds its STT decoder, VAD and engine session (tens of MB); keeping
    finished pipelines around is what made every call cost memory until the process died.
    """

    name: str
    transport: str
    #: the LLM context at the end of the call (system, user and assistant messages)
    messages: tuple[Any, ...]
    turns: tuple[TurnRecord, ...]
    #: every word the caller was confirmed to have heard, in order (Twilio's marks; else empty)
    heard_words: tuple[str, ...]
    #: the recognizer's final transcripts, in order
    transcripts: tuple[str, ...]

    @classmethod
    def of(cls, name: str, transport: str, agent: AgentPipeline) -> CallRecord:
        output = agent.transport.output()
        return cls(
            name=name,
            transport=transport,
            messages=tuple(copy.deepcopy(agent.context.get_messages())),
            turns=tuple(dataclasses.replace(t) for t in agent.turns.turns),
            heard_words=tuple(getattr(output, "heard_words", ())),
            transcripts=tuple(getattr(agent.stt, "transcripts", ())),
        )


@dataclass(slots=True)
class AgentState:
    """The live state of one agent app: calls per transport, whether the model is loaded."""

    settings: AgentSettings
    metrics: AgentMetrics
    drain: Drain = dataclasses.field(default_factory=Drain)
    model_loaded: bool = False
    #: the call slots every route takes from (``--max-calls`` over all of them together)
    slots: CallSlots = dataclasses.field(default_factory=CallSlots)
    calls: dict[str, int] = dataclasses.field(
        default_factory=lambda: {"twilio": 0, "webrtc": 0, **dict.fromkeys(CARRIERS, 0)}
    )
    #: the pipelines of the calls in progress, by call name (each leaves when its call ends)
    live: dict[str, AgentPipeline] = dataclasses.field(default_factory=dict)
    #: what the latest finished calls left behind, newest last (for logs, debugging and tests)
    recent: deque[CallRecord] = dataclasses.field(default_factory=lambda: deque(maxlen=16))
    #: gives the C heap that finished calls freed back to the system, on one thread of its own
    trimmer: heap.Trimmer = dataclasses.field(default_factory=heap.Trimmer)

    async def run(self, transport: str, agent: AgentPipeline, call: Awaitable[None]) -> None:
        """Run one call's pipeline, counted and listed in ``live`` while it runs."""
        name = agent.turns.name
        self.calls[transport] += 1
        self.metrics.calls.labels(transport).set(self.calls[transport])
        self.live[name] = agent
        try:
            with self.drain.job(name) as job:
                job.outcome = "the caller hung up"
                ender = asyncio.create_task(self._end_on_drain(agent, job), name=f"{name}-drainer")
                try:
                    await call
                finally:
                    ender.cancel()
                    await asyncio.gather(ender, return_exceptions=True)
        finally:
            del self.live[name]
            self.recent.append(CallRecord.of(name, transport, agent))
            self.calls[transport] -= 1
            self.metrics.calls.labels(transport).set(self.calls[transport])
        # what finished calls freed (this one's decoder and VAD as soon as its pipeline's cycles
        # are collected) goes back to the system, not kept in glibc's arenas (transports/heap.py)
        await self.trimmer.trim()

    async def _end_on_drain(self, agent: AgentPipeline, job: DrainJob) -> None:
        """While the server drains, let the call run; near the bound say goodbye; at it, hang up."""
        await self.drain.wait_left(GOODBYE_LEAD_S)
        if not self.drain.expired:
            log.info("%s: the server is draining: saying goodbye", agent.turns.name)
            job.outcome = "said goodbye"
            await agent.say_goodbye(GOODBYE)
        await self.drain.wait_expired()
        job.outcome = "hung up at the drain's bound"
        await agent.hang_up()


class TokenGuard:
    """ASGI middleware: HTTP routes other than /healthz want the token (header, query or cookie)."""

    OPEN_PATHS = ("/healthz",)

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.OPEN_PATHS:
            await self.app(scope, receive, send)  # /twilio checks the TwiML's token parameter itself
            return
        request = Request(scope)
        presented = request_token(request.headers, request.query_params)
        cookie = SimpleCookie(request.headers.get("cookie", "")).get(TOKEN_COOKIE)
        if not token_ok(self.token, presented) and not (cookie and token_ok(self.token, cookie.value)):
            denial = PlainTextResponse(
                "a token is required (Authorization: Bearer, or ?token=)\n",
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await denial(scope, receive, send)
            return
        if scope["path"] != "/" or presented is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: dict[str, object]) -> None:
            if message["type"] == "http.response.start":
                cookie_value = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                headers = list(message.get("headers", []))  # type: ignore[call-overload]
                headers.append((b"set-cookie", cookie_value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)  # type: ignore[arg-type]


async def serve_agent(
    settings: AgentSettings,
    *,
    backend: str,
    workers: int,
    drain_s: float = DEFAULT_DRAIN_S,
    backend_options: Mapping[str, Any] | None = None,
) -> None:
    """Serve ``create_agent_app`` until SIGINT/SIGTERM, then drain its calls and stop cleanly."""
    brain = "an OpenAI-compatible LLM" if settings.uses_llm else "the demo responder"
    options = ServeOptions(
        host=settings.host,
        port=settings.port,
        backend=backend,
        backend_options=dict(backend_options or {}),
        workers=workers,
        banner=lambda url: f"warmline: voice agent ({brain}) on http://{url}/ (Twilio: POST /twiml)",
        drain_s=drain_s,
    )
    await serve_app(lambda runtime, drain: create_agent_app(runtime, settings, drain=drain), options)


__all__ = [
    "GOODBYE",
    "GOODBYE_LEAD_S",
    "TOKEN_COOKIE",
    "TURN_TAKING",
    "AgentMetrics",
    "AgentSettings",
    "AgentState",
    "CallRecord",
    "TokenGuard",
    "create_agent_app",
    "default_parts",
    "openai_llm",
    "serve_agent",
]
