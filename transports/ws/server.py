"""The WebSocket server: a Starlette app over one warm ``EngineRuntime``, and how to run it.

    app = create_app(runtime, ServerSettings())     # routes below; starts the runtime on startup
    async with serving(app, settings) as (host, port):  # transports.serve: uvicorn in this loop
        ...

Routes: ``/`` (the browser player; a WebSocket on ``/`` too), ``/ws`` (WebSocket), ``/static/*``,
``/healthz`` (JSON: status, sessions, model loaded; every replica's too, behind Ray) and
``/metrics`` (Prometheus text, behind the token when one is set). Each WebSocket gets its own
engine session on the shared runtime (see ``ws_connection`` for the protocol); over
``max_sessions`` the socket is accepted and closed with 1013. Origin and token are checked
before the upgrade (403 / 401).

With a ``Drain`` (``transports.drain``), once it begins ``/healthz`` answers 503 ``"draining"``,
new WebSockets are closed with 1013, and each connection closes itself once its turn is done.

This module owns admission and wiring only; the protocol lives in ``protocol`` (pure) and
``connection`` (one client), and ``transports.serve`` runs the app. The runtime belongs to the
caller, who closes it.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from transports.drain import NOT_TAKING, Drain
from transports.openai.speech import openai_routes
from transports.security import authorized, origin_ok
from transports.uvicorn_compat import mark_denied
from transports.ws.connection import WsConnection
from transports.ws.metrics import CONTENT_TYPE, ServerMetrics
from transports.ws.settings import ServerSettings
from transports.ws.state import ClusterView, ServerState
from tts_service.engine.session import SessionConfig
from tts_service.engine.types import SampleFormat
from tts_service.errors import CapacityError
from tts_service.runtime import EngineRuntime
from tts_service.wire import PROTOCOL_VERSION

log = logging.getLogger("warmline.ws")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


def create_app(
    runtime: EngineRuntime,
    settings: ServerSettings | None = None,
    *,
    metrics: ServerMetrics | None = None,
    drain: Drain | None = None,
    cluster: ClusterView | None = None,
) -> Starlette:
    """The ASGI app serving protocol v1 on ``runtime``; ``app.state.warmline`` is its ServerState.

    With a ``cluster`` (the app is one replica of several) ``/healthz`` also lists every replica
    and ``/metrics`` covers them all.
    """
    settings = settings or ServerSettings()
    state = ServerState(runtime, settings, metrics or ServerMetrics(), drain or Drain())
    conn_ids = itertools.count(1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await runtime.start()  # loads and warms the model unless the owner already did
        state.model_loaded = True
        yield

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    async def healthz(request: Request) -> Response:
        health: dict[str, object] = {
            "status": state.status,
            "sessions": runtime.session_count,
            "connections": state.connections,
            "max_sessions": settings.max_sessions,
            "model_loaded": state.model_loaded,
            "workers": runtime.live_workers,
            "protocol": PROTOCOL_VERSION,
        }
        if cluster is not None:
            health["replica"] = settings.replica
            health["replicas"] = await cluster.replicas()
        return JSONResponse(health, status_code=200 if state.status == "ok" else 503)

    async def metrics_endpoint(request: Request) -> Response:
        if not _authorized(request, settings):
            return _unauthorized()
        text = state.metrics.render() if cluster is None else await cluster.metrics()
        return Response(text, media_type=CONTENT_TYPE)

    async def websocket_endpoint(websocket: WebSocket) -> None:
        await _serve_websocket(websocket, state, f"ws-{next(conn_ids)}")

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/favicon.ico", favicon, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
            WebSocketRoute("/", websocket_endpoint),
            WebSocketRoute("/ws", websocket_endpoint),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
            *openai_routes(state),
        ],
        lifespan=lifespan,
    )
    app.state.warmline = state
    return app


async def check_voice(settings: ServerSettings, runtime: EngineRuntime) -> None:
    """Load the settings' voice now (raises on an unknown one): a server fails at its start, not
    at its first call."""
    if settings.voice is not None:
        await runtime.voice_state(settings.voice)


def _authorized(conn: HTTPConnection, settings: ServerSettings) -> bool:
    return authorized(settings.token, conn.headers, conn.query_params)


def _unauthorized() -> Response:
    return PlainTextResponse(
        "a token is required (Authorization: Bearer, or ?token=)\n",
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


async def _serve_websocket(websocket: WebSocket, state: ServerState, name: str) -> None:
    settings, metrics = state.settings, state.metrics
    if not origin_ok(websocket.headers.get("origin"), websocket.headers.get("host"), settings.allow_origins):
        metrics.rejected.labels("origin").inc()
        mark_denied()
        await websocket.send_denial_response(PlainTextResponse("origin not allowed\n", status_code=403))
        return
    if not _authorized(websocket, settings):
        metrics.rejected.labels("token").inc()
        mark_denied()
        await websocket.send_denial_response(_unauthorized())
        return
    refusal = state.refusal()
    if refusal is not None:
        metrics.rejected.labels(refusal).inc()
        await websocket.accept()
        busy = f"server busy: all {settings.max_sessions} sessions in use, try later"
        await websocket.close(1013, NOT_TAKING if refusal == "draining" else busy)
        return
    with state.seat():
        await websocket.accept()
        try:
            session = await state.runtime.open_session(
                SessionConfig(
                    voice=settings.voice,
                    lexicon=settings.lexicon,
                    sample_rate=settings.sample_rate,
                    sample_format=SampleFormat.PCM16,
                    max_text_chars=settings.max_turn_chars,
                    max_turn_audio_s=settings.max_turn_audio_s,
                )
            )
        except CapacityError as exc:
            metrics.rejected.labels("max_sessions").inc()
            await websocket.close(1013, str(exc)[:120])
            return
        voice = settings.voice or state.runtime.backend.default_voice
        connection = WsConnection(
            websocket, session, settings, metrics, voice=voice, name=name, drain=state.drain
        )
        with state.drain.job(name) as job:
            await connection.run()
            closed = connection.closed_with
            job.outcome = "the client left" if closed is None else f"closed {closed[0]}: {closed[1]}"


__all__ = ["ServerState", "check_voice", "create_app"]
