"""A ``warmline serve`` anywhere as the engine: ``RemoteEngine`` opens sessions over protocol v1.

    engine = RemoteEngine("ws://tts.internal:8765/", token=os.environ["WARMLINE_TOKEN"])
    session = await engine.open_session(SessionConfig(sample_rate=8000))
    turn = session.start("Sure, ")      # the verbs of a local RuntimeSession, returning at once
    async for out in session: ...       # SpeechFrames and events, as a local session gives them
    await session.aclose()

One WebSocket per session (the server keeps one warm engine session per connection, and a
balancer or Ray Serve keeps a WebSocket on one replica for its life: a call's affinity). The
connection is configured for streaming, PCM16 at the session's rate and word timestamps; the
protocol itself is ``wire_session.WireSession``'s business, sans-I/O. This module owns the I/O:

* one task per session, ``<name>-link``, holds the connection: a reader (server messages into
  the wire state, stopping while ``max_buffered`` outputs wait unread, so a listener that does
  not read makes the server drop it rather than this process grow) and a writer (commands
  out, woken by every verb);
* a connection that drops ends the turn in progress (``ErrorEvent`` ``connection_lost``, then
  ``Done``) and is replaced with exponential backoff (a server that went away on purpose,
  1001 or 1012, is retried at once); a turn begun meanwhile waits for it, at most
  ``wait_for_connection_s``, and then ends the same way;
* ``aclose`` cancels and awaits every task and closes the socket.

Opening a session connects once and raises ``RemoteUnavailableError`` when that fails: a bot
should know at its start that its TTS is not there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from tts_service.engine.config import SessionConfig
from tts_service.engine.session import SessionState
from tts_service.engine.types import Output, Paused, Reset, Resumed
from tts_service.errors import InvalidInputError, RemoteUnavailableError, WarmlineError
from tts_service.remote.wire_session import CONNECTION_LOST, WireSession
from tts_service.wire import ProtocolError

log = logging.getLogger("warmline.remote")
_R = TypeVar("_R")

#: close codes of a server that left on purpose (drain, restart): reconnect without waiting
_PLANNED_CLOSES = (1001, 1012)


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before each reconnection attempt: doubling from ``first_s`` to ``max_s``,
    with up to ``jitter`` of it random (many calls of one dead replica must not retry in step)."""

    first_s: float = 0.1
    max_s: float = 5.0
    jitter: float = 0.2

    def delays(self) -> Iterator[float]:
        delay = self.first_s
        while True:
            yield delay * (1 - self.jitter * random.random())
            delay = min(self.max_s, delay * 2)


class RemoteSession:
    """One remote engine session; drive it like ``RuntimeSession`` (see the module docstring)."""

    def __init__(
        self,
        url: str,
        config: SessionConfig,
        *,
        token: str | None = None,
        name: str = "remote",
        open_timeout_s: float = 5.0,
        wait_for_connection_s: float = 10.0,
        max_buffered: int = 256,
        backoff: Backoff | None = None,
        connector: Callable[..., Any] = connect,
        on_close: Callable[[RemoteSession], None] | None = None,
    ) -> None:
        _check_url(url)
        self._on_close = on_close
        self._url = url
        self._token = token
        self._name = name
        self._open_timeout_s = open_timeout_s
        self._wait_for_connection_s = wait_for_connection_s
        self._max_buffered = max_buffered
        self._backoff = backoff or Backoff()
        self._connector = connector
        self._wire = WireSession(config)
        self._wake = asyncio.Event()  # output to hand out, or the session closed
        self._to_send = asyncio.Event()  # commands to send
        self._room = asyncio.Event()  # the listener has read: the reader may read on
        self._room.set()
        self._configured: asyncio.Future[SessionConfig] | None = None
        self._link: asyncio.Task[None] | None = None
        self._ws: ClientConnection | None = None
        self._closed = False
        #: connections made (the first included), for logs and tests
        self.connections = 0
        #: the server's ``ready`` event on the current connection (``replica`` when Ray serves it)
        self.ready: dict[str, object] = {}

    # -- lifecycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect (raises ``RemoteUnavailableError``) and start the link task."""
        if self._link is not None:
            raise WarmlineError("a RemoteSession opens once")
        ws = await self._connect()
        self._link = asyncio.create_task(self._hold_link(ws), name=f"{self._name}-link")

    async def aclose(self) -> None:
        """Close the connection and end iteration; in-flight audio is dropped."""
        if self._closed:
            return
        self._closed = True
        self._wire.close()
        self._wake.set()
        if self._link is not None:
            self._link.cancel()
            await asyncio.gather(self._link, return_exceptions=True)
            self._link = None
        if self._configured is not None and not self._configured.done():
            self._configured.set_exception(RemoteUnavailableError("the session was closed"))
        if self._on_close is not None:
            self._on_close(self)

    async def __aenter__(self) -> RemoteSession:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- state --------------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        return self._wire.state

    @property
    def held(self) -> bool:
        return self._wire.held

    @property
    def config(self) -> SessionConfig:
        return self._wire.config

    @property
    def sample_rate(self) -> int:
        return self._wire.sample_rate

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._ws is not None

    # -- verbs (EngineSession's, at once; the commands leave on the writer) -------------------

    def start(self, text: str = "", *, held: bool = False) -> int:
        return self._sent(self._wire.start(text, held=held))

    def inject(self, text: str) -> int:
        return self._sent(self._wire.inject(text))

    def flush(self) -> int:
        return self._sent(self._wire.flush())

    def pause(self) -> Paused:
        return self._sent(self._wire.pause())

    def resume(self) -> Resumed:
        return self._sent(self._wire.resume())

    def release(self) -> int:
        return self._sent(self._wire.release())

    def reset(self) -> Reset:
        return self._sent(self._wire.reset())

    async def configure(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        sample_format: object | None = None,
        language: str | None = None,
    ) -> SessionConfig:
        """A new voice, speed or language between turns, confirmed by the server; the config in force."""
        if sample_rate is not None or sample_format is not None:
            raise InvalidInputError("a remote session keeps the rate and format it was opened with")
        if voice is None and speed is None and language is None:
            return self.config
        if self._configured is not None and not self._configured.done():
            raise WarmlineError("configure() is already waiting for the server")
        self._wire.configure(voice=voice, speed=speed, language=language)
        self._configured = asyncio.get_running_loop().create_future()
        self._to_send.set()
        try:
            async with asyncio.timeout(self._open_timeout_s):
                return await self._configured
        except TimeoutError:
            raise RemoteUnavailableError(f"{self._url} did not confirm the settings in time") from None
        finally:
            self._configured = None

    def _sent(self, result: _R) -> _R:
        self._to_send.set()
        self._wake.set()  # a verb's event (Paused, Reset...) is handed out next
        return result

    # -- output -------------------------------------------------------------------------------

    def next_output_nowait(self) -> Output | None:
        out = self._wire.next_output()
        if out is not None and self._wire.buffered < self._max_buffered:
            self._room.set()
        return out

    async def next_output(self) -> Output:
        """The next frame or event; raises StopAsyncIteration once closed."""
        while True:
            self._wake.clear()
            if self._closed:
                raise StopAsyncIteration
            out = self.next_output_nowait()
            if out is not None:
                return out
            await self._wake.wait()

    def __aiter__(self) -> AsyncIterator[Output]:
        return self

    async def __anext__(self) -> Output:
        return await self.next_output()

    # -- the connection -----------------------------------------------------------------------

    async def _connect(self) -> ClientConnection:
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else None
        try:
            ws: ClientConnection = await self._connector(
                self._url, additional_headers=headers, open_timeout=self._open_timeout_s, max_size=1 << 20
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            raise RemoteUnavailableError(f"cannot reach {self._url}: {exc}") from exc
        self.connections += 1
        self._ws = ws
        self._wire.connected()
        self._to_send.set()
        return ws

    async def _hold_link(self, ws: ClientConnection) -> None:
        """Serve the connection; when it drops, end the turn it carried and connect again."""
        while True:
            code = await self._serve(ws)
            self._ws = None
            self._wire.connection_lost(f"the connection to the TTS server closed ({code})")
            self._wake.set()
            log.info("%s: connection closed (%s); reconnecting", self._name, code)
            ws = await self._reconnect(immediately=code in _PLANNED_CLOSES)

    async def _reconnect(self, *, immediately: bool) -> ClientConnection:
        loop = asyncio.get_running_loop()
        waiting_since: float | None = None
        delays = self._backoff.delays()
        first = True
        while True:
            if not (first and immediately):
                await asyncio.sleep(next(delays))
            first = False
            if self._wire.waiting:
                waiting_since = waiting_since if waiting_since is not None else loop.time()
                if loop.time() - waiting_since > self._wait_for_connection_s:
                    self._wire.fail_waiting_turn(f"no connection to {self._url}")
                    self._wake.set()
                    waiting_since = None
            try:
                return await self._connect()
            except RemoteUnavailableError as exc:
                log.info("%s: %s", self._name, exc)

    async def _serve(self, ws: ClientConnection) -> int | None:
        """Run the reader and the writer until the connection ends; its close code."""
        reader = asyncio.create_task(self._read(ws), name=f"{self._name}-reader")
        writer = asyncio.create_task(self._write(ws), name=f"{self._name}-writer")
        try:
            await asyncio.wait((reader, writer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, writer):
                task.cancel()
            await asyncio.gather(reader, writer, return_exceptions=True)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await ws.close()
        for task in (reader, writer):
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                if not isinstance(exc, ConnectionClosed | OSError):
                    log.error("%s: %s failed", self._name, task.get_name(), exc_info=exc)
        return ws.close_code

    async def _read(self, ws: ClientConnection) -> None:
        async for message in ws:
            try:
                self._wire.receive(message)
            except ProtocolError as exc:
                log.warning("%s: not protocol v1 (%s); closing", self._name, exc)
                return
            leave = self._notices()
            self._wake.set()
            if leave:
                return
            if self._wire.buffered >= self._max_buffered:
                self._room.clear()
                await self._room.wait()

    async def _write(self, ws: ClientConnection) -> None:
        while True:
            await self._to_send.wait()
            self._to_send.clear()
            for text in self._wire.outgoing():
                await ws.send(text)

    def _notices(self) -> bool:
        """Act on what the server told the connection's owner; True: leave this connection."""
        leave = False
        for notice in self._wire.take_notices():
            if notice.event == "ready":
                self.ready = dict(notice.fields)
            elif notice.event == "configured":
                if self._configured is not None and not self._configured.done():
                    self._configured.set_result(self._wire.config)
            elif notice.event == "refused":
                # A draining server takes no new turn: leave it; the next connection will.
                log.info("%s: the server refused a turn (%s); reconnecting", self._name, notice.fields)
                leave = True
        return leave


class RemoteEngine:
    """A ``warmline serve`` (or the Ray deployment in front of many) as the engine of many sessions.

    The counterpart of ``EngineRuntime`` for a bot whose TTS runs elsewhere: ``start`` and
    ``aclose`` bracket it, ``open_session`` connects one session.
    """

    def __init__(self, url: str, *, token: str | None = None, **session_options: Any) -> None:
        _check_url(url)
        self.url = url
        self._token = token
        self._options = session_options
        self._sessions: set[RemoteSession] = set()
        self._names = 0

    async def start(self) -> None:
        """Nothing to load here: the model is warm on the server."""

    async def open_session(self, config: SessionConfig | None = None) -> RemoteSession:
        self._names += 1
        session = RemoteSession(
            self.url,
            replace(config or SessionConfig()),
            token=self._token,
            name=f"remote-{self._names}",
            on_close=self._sessions.discard,
            **self._options,
        )
        await session.open()
        self._sessions.add(session)
        return session

    async def aclose(self) -> None:
        sessions, self._sessions = self._sessions, set()
        await asyncio.gather(*(s.aclose() for s in sessions))

    async def __aenter__(self) -> RemoteEngine:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _check_url(url: str) -> None:
    if urlsplit(url).scheme not in ("ws", "wss"):
        raise InvalidInputError(f"a remote engine's url is ws:// or wss://, not {url!r}")


__all__ = ["CONNECTION_LOST", "Backoff", "RemoteEngine", "RemoteSession"]
