"""Shared pieces of the WebSocket server tests: a live server in the test's loop, turn collection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from websockets.asyncio.client import ClientConnection

from transports.drain import Drain
from transports.serve import USER_TIMEOUT_S, serving
from transports.ws.server import ServerState, create_app
from transports.ws.settings import ServerSettings
from tts_service import wire as wp
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime

#: the most messages one collected turn may take (a 30 s turn has 375 frames, plus words)
MAX_MESSAGES = 5000
#: bound on any single wait for the server (a safety net against hangs, not a timing assertion)
WAIT_S = 60.0


@dataclass(slots=True)
class LiveServer:
    """A running server: where it listens and its state (runtime, metrics, connection count)."""

    host: str
    port: int
    state: ServerState

    def url(self, path: str = "/ws", query: str = "") -> str:
        return f"ws://{self.host}:{self.port}{path}" + (f"?{query}" if query else "")

    def http(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    async def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """GET ``path``: (status, body), all of it on a thread (the server runs on this loop)."""

        def fetch() -> tuple[int, bytes]:
            request = urllib.request.Request(self.http(path), headers=headers or {})
            try:
                with urllib.request.urlopen(request, timeout=10) as resp:
                    return resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read()

        return await asyncio.to_thread(fetch)

    async def get_json(self, path: str) -> Any:
        status, body = await self.get(path)
        assert status == 200, (path, status)
        return json.loads(body)

    async def wait_sessions(self, count: int) -> int:
        """Poll /healthz until it reports ``count`` sessions (bounded); returns the last count."""
        sessions = -1
        for _ in range(600):
            sessions = int((await self.get_json("/healthz"))["sessions"])
            if sessions == count:
                break
            await asyncio.sleep(0.05)
        return sessions


@contextlib.asynccontextmanager
async def live_server(
    backend: Backend,
    settings: ServerSettings | None = None,
    *,
    drain: Drain | None = None,
    user_timeout_s: float = USER_TIMEOUT_S,
) -> AsyncIterator[LiveServer]:
    """A server on 127.0.0.1 and an ephemeral port, with its own runtime over ``backend``."""
    settings = settings or ServerSettings()
    async with EngineRuntime(backend, workers=2, max_sessions=256) as runtime:
        app = create_app(runtime, settings, drain=drain)
        async with serving(app, settings, host="127.0.0.1", port=0, user_timeout_s=user_timeout_s) as (
            host,
            port,
        ):
            yield LiveServer(host, port, app.state.warmline)


def run_with_server(
    backend: Backend, body: Callable[[LiveServer], Awaitable[None]], settings: ServerSettings | None = None
) -> None:
    """asyncio.run ``body`` against a fresh live server."""

    async def main() -> None:
        async with live_server(backend, settings) as server:
            await asyncio.wait_for(body(server), 300)

    asyncio.run(main())


@dataclass(slots=True)
class Turn:
    """What a client received up to (and including) an event it waited for."""

    frames: list[wp.AudioMessage] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    #: messages in arrival order: the event dict, or "frame"
    order: list[dict[str, Any] | str] = field(default_factory=list)

    def pcm(self) -> npt.NDArray[np.int16]:
        if not self.frames:
            return np.zeros(0, np.int16)
        return np.concatenate([wp.audio_to_pcm16(f) for f in self.frames])

    def names(self) -> list[str]:
        return [e["event"] for e in self.events]

    def words(self) -> list[str]:
        return [e["word"] for e in self.events if e["event"] == "word"]


async def receive_until(ws: ClientConnection, *events: str, turn: Turn | None = None) -> Turn:
    """Collect messages until one of ``events`` arrives (bounded in count and time)."""
    turn = turn or Turn()
    for _ in range(MAX_MESSAGES):
        message = await asyncio.wait_for(ws.recv(), WAIT_S)
        if isinstance(message, bytes):
            turn.frames.append(wp.decode_audio_frame(message))
            turn.order.append("frame")
            continue
        event = wp.decode_event(message)
        turn.events.append(event)
        turn.order.append(event)
        if event["event"] in events:
            return turn
    raise AssertionError(f"no {events} within {MAX_MESSAGES} messages")


async def send(ws: ClientConnection, **command: Any) -> None:
    await ws.send(json.dumps(command))


async def ready(ws: ClientConnection) -> dict[str, Any]:
    """The ready event every connection starts with."""
    event = wp.decode_event(str(await asyncio.wait_for(ws.recv(), WAIT_S)))
    assert event["event"] == "ready", event
    return event
