"""Prometheus metrics of one WebSocket server, in a registry of its own.

A registry per app (not the process-wide default) lets tests and benchmarks run several servers
in one process. Names carry their units. This module never starts an HTTP server of its own: the
app serves ``render()`` on ``/metrics``.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from transports.process_metrics import register_process_metrics

#: first-frame latency buckets, seconds: a good turn is under 0.1 s, a bad one over 1 s
_LATENCY_BUCKETS_S = (0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0)

CONTENT_TYPE = CONTENT_TYPE_LATEST


class ServerMetrics:
    """The counters the server updates; read them with ``render()`` or the attributes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        register_process_metrics(self.registry)
        self.sessions = Gauge(
            "warmline_ws_sessions",
            "Engine sessions open now (WebSockets and speech requests)",
            registry=self.registry,
        )
        self.frames_sent = Counter(
            "warmline_ws_frames_sent", "80 ms audio frames sent", registry=self.registry
        )
        self.first_frame_latency = Histogram(
            "warmline_ws_first_frame_latency_seconds",
            "From the command that began a turn to its first frame leaving the server",
            buckets=_LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.late_frames = Counter(
            "warmline_ws_late_frames",
            "Frames sent after the listener would have run out of audio (mid-turn)",
            registry=self.registry,
        )
        self.errors = Counter(
            "warmline_ws_errors", "Error events sent, by code", ["code"], registry=self.registry
        )
        self.rejected = Counter(
            "warmline_ws_rejected_connections",
            "Connections refused or dropped by the server, by reason",
            ["reason"],
            registry=self.registry,
        )

        self.speech_requests = Counter(
            "warmline_http_speech_requests",
            "POST /v1/audio/speech requests, by outcome (ok, cut, refused, failed) and HTTP status",
            ["outcome", "status"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        """The text exposition format of every metric."""
        return generate_latest(self.registry)


__all__ = ["CONTENT_TYPE", "ServerMetrics"]
