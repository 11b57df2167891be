"""What one ``warmline serve`` app knows about itself, and who may take an engine session now.

Every way in (a WebSocket, a ``POST /v1/audio/speech``) takes a seat before it opens an engine
session and gives it back when done, so ``max_sessions`` bounds them together and ``/healthz``
and the ``warmline_ws_sessions`` gauge count them all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from transports.drain import Drain
from transports.ws.metrics import ServerMetrics
from transports.ws.settings import ServerSettings
from tts_service.runtime import EngineRuntime


class ClusterView(Protocol):
    """What one replica of a server knows of all of them (``warmline serve --ray``).

    The app of a replica serves it on ``/healthz`` (``replicas``) and ``/metrics`` (every
    replica's metrics, each sample labelled with its ``replica``).
    """

    async def replicas(self) -> list[dict[str, Any]]:
        """One entry per live replica: its ``replica`` id, ``status``, ``sessions``, ..."""
        ...

    async def metrics(self) -> bytes:
        """Every live replica's metrics in the text exposition format."""
        ...


@dataclass(slots=True)
class ServerState:
    """One app's parts and its live session count."""

    runtime: EngineRuntime
    settings: ServerSettings
    metrics: ServerMetrics
    #: the server's drain (one that never begins when the app was given none)
    drain: Drain
    connections: int = 0
    model_loaded: bool = False

    @property
    def status(self) -> str:
        if self.drain.draining:
            return "draining"
        return "ok" if self.model_loaded else "starting"

    def refusal(self) -> str | None:
        """Why a new session would be refused now (``"draining"``, ``"max_sessions"``), or None."""
        if self.drain.draining:
            return "draining"
        if self.connections >= self.settings.max_sessions:
            return "max_sessions"
        return None

    @contextlib.contextmanager
    def seat(self) -> Iterator[None]:
        """Hold one of the ``max_sessions`` seats for the block (check ``refusal()`` first).

        Taken before any await, so concurrent arrivals cannot overshoot the limit.
        """
        self.connections += 1
        self.metrics.sessions.set(self.connections)
        try:
            yield
        finally:
            self.connections -= 1
            self.metrics.sessions.set(self.connections)


__all__ = ["ClusterView", "ServerState"]
