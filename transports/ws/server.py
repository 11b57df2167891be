"""The WebSocket server: a Starlette app over one warm ``EngineRuntime``, and how to run it.

    app = create_app(runtime, ServerSettings())     # routes below; starts the runtime on startup
    async with serving(app, settings) as (host, port):  # uvicorn in this loop, for tests and benches
        ...

Routes: ``/`` (the browser player; a WebSocket on ``/`` too), ``/ws`` (WebSocket), ``/static/*``,
``/healthz`` (JSON: status, sessions, model loaded) and ``/metrics`` (Prometheus text, behind the
token when one is set). Each WebSocket gets its own engine session on the shared runtime (see
``ws_connection`` for the protocol); over ``max_sessions`` the socket is accepted and closed with
1013. Origin and token are checked before the upgrade (403 / 401).

This module owns admission and wiring only; the protocol lives in ``ws_protocol`` (pure) and
``ws_connection`` (one client). The runtime belongs to the caller, who closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import re
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from transports.security import origin_ok, request_token, token_ok
from transports.ws.connection import WsConnection
from transports.ws.metrics import CONTENT_TYPE, ServerMetrics
from transports.ws.protocol import PROTOCOL_VERSION
from transports.ws.settings import ServerSettings
from tts_service.engine.session import SessionConfig
from tts_service.engine.types import SampleFormat
from tts_service.errors import CapacityError, WarmlineError
from tts_service.runtime import EngineRuntime

log = logging.getLogger("warmline.ws")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
#: kernel send buffer of every connection (Linux doubles it). Setting it turns off autotuning,
#: which on loopback grows to megabytes, so a client that stops reading would otherwise hide
#: half a minute of audio in the kernel before the send queue noticed. 64 KiB is still seconds of
#: audio at any rate the server sends.
SEND_BUFFER_BYTES = 64 * 1024
#: set in a connection's own task once the upgrade was answered with an HTTP denial (401 / 403)
_denied: contextvars.ContextVar[bool] = contextvars.ContextVar("warmline_ws_denied", default=False)


class BindError(WarmlineError):
    """The server's address could not be bound (in use, or not an address of this machine)."""

    code = "bind_failed"


@dataclass(slots=True)
class ServerState:
    """What one app knows about itself: its parts and its live connection count."""

    runtime: EngineRuntime
    settings: ServerSettings
    metrics: ServerMetrics
    connections: int = 0
    model_loaded: bool = False


def create_app(
    runtime: EngineRuntime, settings: ServerSettings | None = None, *, metrics: ServerMetrics | None = None
) -> Starlette:
    """The ASGI app serving protocol v1 on ``runtime``; ``app.state.warmline`` is its ServerState."""
    settings = settings or ServerSettings()
    state = ServerState(runtime, settings, metrics or ServerMetrics())
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
        return JSONResponse(
            {
                "status": "ok" if state.model_loaded else "starting",
                "sessions": runtime.session_count,
                "connections": state.connections,
                "max_sessions": settings.max_sessions,
                "model_loaded": state.model_loaded,
                "protocol": PROTOCOL_VERSION,
            }
        )

    async def metrics_endpoint(request: Request) -> Response:
        if not _authorized(request, settings):
            return _unauthorized()
        return Response(state.metrics.render(), media_type=CONTENT_TYPE)

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
        ],
        lifespan=lifespan,
    )
    app.state.warmline = state
    return app


def _authorized(conn: HTTPConnection, settings: ServerSettings) -> bool:
    return token_ok(settings.token, request_token(conn.headers, conn.query_params))


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
        _denied.set(True)
        await websocket.send_denial_response(PlainTextResponse("origin not allowed\n", status_code=403))
        return
    if not _authorized(websocket, settings):
        metrics.rejected.labels("token").inc()
        _denied.set(True)
        await websocket.send_denial_response(_unauthorized())
        return
    if state.connections >= settings.max_sessions:
        metrics.rejected.labels("max_sessions").inc()
        await websocket.accept()
        await websocket.close(1013, f"server busy: all {settings.max_sessions} sessions in use, try later")
        return
    state.connections += 1  # reserved before any await, so concurrent upgrades cannot overshoot
    metrics.sessions.set(state.connections)
    try:
        await websocket.accept()
        try:
            session = await state.runtime.open_session(
                SessionConfig(
                    voice=settings.voice,
                    sample_rate=settings.sample_rate,
                    sample_format=SampleFormat.PCM16,
                    max_text_chars=settings.max_turn_chars,
                )
            )
        except CapacityError as exc:
            metrics.rejected.labels("max_sessions").inc()
            await websocket.close(1013, str(exc)[:120])
            return
        voice = settings.voice or state.runtime.backend.default_voice
        await WsConnection(websocket, session, settings, metrics, voice=voice, name=name).run()
    finally:
        state.connections -= 1
        metrics.sessions.set(state.connections)


# -- running ----------------------------------------------------------------------------------


class RedactTokens(logging.Filter):
    """Hide ``token=`` query values in log records (uvicorn logs each WebSocket path with its query)."""

    _TOKEN = re.compile(r"(token=)[^&\s\"']*", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self._TOKEN.sub(r"\1[redacted]", a) if isinstance(a, str) else a for a in record.args
            )
        if isinstance(record.msg, str):
            record.msg = self._TOKEN.sub(r"\1[redacted]", record.msg)
        return True


class QuietDenials(logging.Filter):
    """Drop uvicorn's "returned without completing handshake" error after an intended denial.

    uvicorn's websockets-sansio protocol logs it for every HTTP denial response (Kludex/uvicorn
    PR #3138); the record is logged in the connection's task, where ``_denied`` tells the two apart,
    so a real incomplete handshake still logs.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_denied.get() and str(record.msg).startswith("ASGI callable returned without completing"))


class Server(uvicorn.Server):
    """uvicorn's server without its own signal handling: its owner decides when it stops."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0: any free port); raises BindError.

    It listens at once, so clients that connect before the server is started wait in the backlog
    instead of being refused.
    """
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise BindError(f"cannot serve on {host}:{port}: {exc}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)  # accepted sockets inherit it
        sock.bind(addr)
        sock.listen(socket.SOMAXCONN)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def make_server(app: Starlette, settings: ServerSettings, *, log_level: str = "info") -> Server:
    """A uvicorn server for ``app`` with the WebSocket limits of ``settings``."""
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        ws_max_size=settings.hard_max_message_bytes,
        # PCM barely compresses: deflate would cost CPU on every frame for nothing
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
    )
    # after uvicorn.Config, which (re)configures its loggers; filters survive that
    for name in ("uvicorn.error", "uvicorn.access"):
        target = logging.getLogger(name)
        for kind in (RedactTokens, QuietDenials):
            if not any(isinstance(f, kind) for f in target.filters):
                target.addFilter(kind())
    return Server(config)


@contextlib.asynccontextmanager
async def serving(
    app: Starlette,
    settings: ServerSettings,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    log_level: str = "warning",
) -> AsyncIterator[tuple[str, int]]:
    """Run ``app`` with uvicorn in this event loop; yields the bound (host, port)."""
    sock = bind_socket(host, port)
    server = make_server(app, settings, log_level=log_level)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="warmline-uvicorn")
    try:
        while not server.started:
            if task.done():
                await task
                raise BindError("the server stopped while starting")
            await asyncio.sleep(0.01)
        bound = sock.getsockname()
        yield str(bound[0]), int(bound[1])
    finally:
        server.should_exit = True
        await task
        sock.close()


__all__ = [
    "BindError",
    "QuietDenials",
    "RedactTokens",
    "Server",
    "ServerState",
    "bind_socket",
    "create_app",
    "make_server",
    "serving",
]
