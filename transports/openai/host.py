"""What the speech API needs from the server that hosts it (``transports.ws.state.ServerState``).

The routes plug into ``warmline serve`` without importing it: the server's state satisfies these
protocols, so the WebSocket server depends on the speech API and never the other way round.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from prometheus_client import Counter, Histogram

from transports.drain import Drain
from tts_service.runtime import EngineRuntime


class HostSettings(Protocol):
    @property
    def token(self) -> str | None: ...
    @property
    def voice(self) -> str | None: ...
    @property
    def max_sessions(self) -> int: ...
    @property
    def max_turn_chars(self) -> int: ...
    @property
    def max_turn_audio_s(self) -> float: ...


class HostMetrics(Protocol):
    @property
    def speech_requests(self) -> Counter: ...
    @property
    def first_frame_latency(self) -> Histogram: ...
    @property
    def frames_sent(self) -> Counter: ...
    @property
    def errors(self) -> Counter: ...
    @property
    def rejected(self) -> Counter: ...


class SpeechHost(Protocol):
    """The server's runtime, limits, metrics and drain, and its one count of sessions."""

    @property
    def runtime(self) -> EngineRuntime: ...
    @property
    def settings(self) -> HostSettings: ...
    @property
    def metrics(self) -> HostMetrics: ...
    @property
    def drain(self) -> Drain: ...
    @property
    def connections(self) -> int: ...

    def refusal(self) -> str | None:
        """Why a new session would be refused now (``"draining"``, ``"max_sessions"``), or None."""
        ...

    def seat(self) -> AbstractContextManager[None]:
        """Hold one of the server's ``max_sessions`` seats for a block."""
        ...


__all__ = ["HostMetrics", "HostSettings", "SpeechHost"]
