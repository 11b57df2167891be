"""Running a Warmline app with uvicorn: the one serve helper of ``warmline serve`` and ``warmline call``.

    await serve_app(lambda runtime, drain: create_app(runtime, settings, drain=drain), ServeOptions(...))
    async with serving(app) as (host, port):      # uvicorn in this loop, for tests and benchmarks
        ...

``serve_app`` binds the address first (a busy port fails before any model loads), loads the
backend once into an ``EngineRuntime`` (model compute on its worker threads), builds the app on
it, prints one line with the address, and serves until SIGINT or SIGTERM. The first signal drains
(``transports.drain``): the server takes nothing new and lets the work in progress finish, for
at most ``ServeOptions.drain_s``; a second signal (Ctrl-C twice) ends what is left at once. Then
uvicorn stops, the runtime closes every session and joins its workers, and the socket is closed.
uvicorn's own signal handling is off (``Server``): the owner decides when the server stops.

Every server gets the same log filters (``RedactTokens``; uvicorn's denial noise is silenced
by ``uvicorn_compat.QuietDenials``) and the same socket (``bind_socket``: a small send buffer so
a client that stops reading is noticed within seconds of audio, not half a minute).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette

from transports.drain import DEFAULT_DRAIN_S, Drain
from transports.http_body import REQUEST_TIMEOUT_S
from transports.uvicorn_compat import BadInputIsNoTraceback, QuietDenials, header_deadline_protocol
from transports.ws.settings import ServerSettings
from tts_service.backends import create_backend
from tts_service.errors import WarmlineError
from tts_service.runtime import EngineRuntime

log = logging.getLogger("warmline.serve")
#: kernel send buffer of every connection (Linux doubles it). Setting it turns off autotuning,
#: which on loopback grows to megabytes, so a client that stops reading would otherwise hide
#: half a minute of audio in the kernel before the send queue noticed. 64 KiB is still seconds of
#: audio at any rate the server sends.
SEND_BUFFER_BYTES = 64 * 1024
#: how long the kernel keeps a connection whose peer acknowledges nothing, its receive window
#: shut included (TCP_USER_TIMEOUT, Linux; accepted sockets inherit it). A client that stops
#: reading is dropped by its connection first (1008 after the send queue's stall), but that close
#: frame cannot reach a peer that reads nothing, and asyncio's close waits to flush what it holds:
#: without this the descriptor stayed open for as long as the peer held its end.
USER_TIMEOUT_S = 20.0
#: how long a connection may take to send a complete request (slowloris, idle sockets, stalled
#: bodies): its headers, then its body (``http_body.read_body``) within the same deadline
HEADER_TIMEOUT_S = REQUEST_TIMEOUT_S
#: the largest WebSocket message uvicorn takes when the app sets no limit of its own
DEFAULT_WS_MAX_BYTES = 4 * 65536


class BindError(WarmlineError):
    """The server's address could not be bound (in use, or not an address of this machine)."""

    code = "bind_failed"


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """Where to listen and what to run: the part of a CLI's arguments that ``serve_app`` needs."""

    host: str
    port: int
    backend: str = "hibari"
    #: keyword options of ``create_backend`` (piper: ``voices_dir``, ``default_voice``)
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    workers: int = 2
    #: sessions the runtime serves at most
    max_sessions: int = 256
    #: the largest WebSocket message uvicorn accepts (the app may refuse smaller ones itself)
    ws_max_bytes: int = DEFAULT_WS_MAX_BYTES
    #: the line printed once the server listens, given "host:port"
    banner: Callable[[str], str] = lambda address: f"warmline: serving on http://{address}/"
    #: after SIGTERM, how long the work in progress may take to finish (then 1012)
    drain_s: float = DEFAULT_DRAIN_S


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


class Server(uvicorn.Server):
    """uvicorn's server without its own signal handling: its owner decides when it stops."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def bind_socket(host: str, port: int, *, user_timeout_s: float = USER_TIMEOUT_S) -> socket.socket:
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
        if hasattr(socket, "TCP_USER_TIMEOUT") and kind == socket.SOCK_STREAM:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(user_timeout_s * 1000))
        sock.bind(addr)
        sock.listen(socket.SOMAXCONN)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def make_server(
    app: Starlette,
    *,
    ws_max_bytes: int = DEFAULT_WS_MAX_BYTES,
    log_level: str = "info",
    header_timeout_s: float = HEADER_TIMEOUT_S,
) -> Server:
    """A uvicorn server for ``app``, with the log filters and request deadline every Warmline
    server has."""
    config = uvicorn.Config(
        app,
        http=header_deadline_protocol(header_timeout_s),
        log_level=log_level,
        access_log=False,
        lifespan="on",
        ws_max_size=ws_max_bytes,
        # PCM barely compresses: deflate would cost CPU on every frame for nothing
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
    )
    # after uvicorn.Config, which (re)configures its loggers; filters survive that
    for name in ("uvicorn.error", "uvicorn.access"):
        target = logging.getLogger(name)
        for kind in (RedactTokens, QuietDenials, BadInputIsNoTraceback):
            if not any(isinstance(f, kind) for f in target.filters):
                target.addFilter(kind())
    return Server(config)


def host_port(host: str, port: int) -> str:
    """``host:port``, with an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def address_of(sock: socket.socket) -> str:
    """``host:port`` of a bound socket (``host_port``)."""
    host, port = sock.getsockname()[:2]
    return host_port(host, port)


async def serve_app(
    build: Callable[[EngineRuntime, Drain], Starlette],
    options: ServeOptions,
    *,
    prepare: Callable[[EngineRuntime], Awaitable[object]] | None = None,
) -> None:
    """Serve ``build(runtime, drain)`` until SIGINT or SIGTERM, then drain and stop (module doc).

    ``prepare`` runs once the model is loaded, before the app is built (a check that should fail
    the start, not the first call: an unknown voice, say).
    """
    sock = bind_socket(options.host, options.port)
    try:
        backend = create_backend(options.backend, **options.backend_options)
        runtime = EngineRuntime(backend, workers=options.workers, max_sessions=options.max_sessions)
        async with runtime:
            if prepare is not None:
                await prepare(runtime)
            drain = Drain()
            server = make_server(build(runtime, drain), ws_max_bytes=options.ws_max_bytes)
            stopper = _Stopper(server, drain, options.drain_s)
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stopper.on_signal, sig)
            print(options.banner(address_of(sock)), flush=True)
            try:
                await server.serve(sockets=[sock])
            finally:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.remove_signal_handler(sig)
                await stopper.aclose()
    finally:
        sock.close()


class _Stopper:
    """What SIGINT and SIGTERM do to a served app: drain on the first, end at once on the second."""

    def __init__(self, server: Server, drain: Drain, drain_s: float) -> None:
        self._server = server
        self._drain = drain
        self._drain_s = drain_s
        self._task: asyncio.Task[None] | None = None

    def on_signal(self, sig: signal.Signals) -> None:
        if self._task is None:
            log.info("warmline: %s: draining (signal again to stop at once)", sig.name)
            self._drain.begin(self._drain_s)
            loop = asyncio.get_running_loop()
            self._task = loop.create_task(self._drain_then_stop(), name="warmline-drain")
        else:
            log.info("warmline: %s again: stopping now", sig.name)
            self._drain.expire()

    async def _drain_then_stop(self) -> None:
        finished = await self._drain.wait_empty()
        log.info("warmline: %s; stopping", "drained" if finished else "drain bound reached")
        self._server.should_exit = True

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@contextlib.asynccontextmanager
async def serving(
    app: Starlette,
    settings: ServerSettings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    ws_max_bytes: int = DEFAULT_WS_MAX_BYTES,
    log_level: str = "warning",
    user_timeout_s: float = USER_TIMEOUT_S,
    header_timeout_s: float = HEADER_TIMEOUT_S,
) -> AsyncIterator[tuple[str, int]]:
    """Run ``app`` with uvicorn in this event loop; yields the bound (host, port).

    ``settings`` (a ``ServerSettings``) sets the WebSocket message limit its app expects.
    """
    limit = settings.hard_max_message_bytes if settings is not None else ws_max_bytes
    sock = bind_socket(host, port, user_timeout_s=user_timeout_s)
    server = make_server(app, ws_max_bytes=limit, log_level=log_level, header_timeout_s=header_timeout_s)
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
    "DEFAULT_WS_MAX_BYTES",
    "HEADER_TIMEOUT_S",
    "SEND_BUFFER_BYTES",
    "USER_TIMEOUT_S",
    "BindError",
    "RedactTokens",
    "ServeOptions",
    "Server",
    "address_of",
    "bind_socket",
    "host_port",
    "make_server",
    "serve_app",
    "serving",
]
