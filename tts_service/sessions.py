"""What an adapter needs of an engine session, local or remote: the port both kinds implement.

    source: SessionSource = EngineRuntime(backend)       # the model in this process
    source: SessionSource = RemoteEngine("ws://tts:8765/")  # a warmline serve anywhere
    await source.start()
    session = await source.open_session(SessionConfig(sample_rate=8000))
    turns = Conversation(session)                        # the verbs, returning at once
    async for out in session: ...                        # SpeechFrames and events, in order

``runtime.RuntimeSession`` and ``remote.RemoteSession`` both satisfy ``AdapterSession``; an
adapter written against it (the Pipecat service) runs unchanged on either.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from tts_service.engine.config import SessionConfig
from tts_service.engine.turns import SessionVerbs
from tts_service.engine.types import Output


class AdapterSession(SessionVerbs, Protocol):
    """An engine session driven from asyncio: the verbs, its settings, its output, its close."""

    @property
    def config(self) -> SessionConfig: ...

    @property
    def sample_rate(self) -> int: ...

    async def configure(
        self, *, voice: str | None = None, speed: float | None = None, language: str | None = None
    ) -> SessionConfig: ...

    async def aclose(self) -> None: ...

    def __aiter__(self) -> AsyncIterator[Output]: ...


class SessionSource(Protocol):
    """Where sessions come from: started once, then one session per call, closed at the end."""

    async def start(self) -> None: ...

    async def open_session(self, config: SessionConfig | None = None) -> AdapterSession: ...

    async def aclose(self) -> None: ...


__all__ = ["AdapterSession", "SessionSource"]
