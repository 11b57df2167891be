"""One replica of ``warmline serve --ray``: a warm model and many sessions, the single server's app.

Ray Serve builds ``WarmlineReplica`` in each replica's process. Its ``__init__`` loads the
backend into an ``EngineRuntime`` and builds the same Starlette app ``warmline serve`` runs
(``transports.ws.server.create_app``), with the replica's id in ``ServerSettings.replica`` (every
``ready`` names it) and a view of the whole application for ``/healthz`` and ``/metrics``. Ray's
HTTP proxy forwards each request and WebSocket to one replica, and a WebSocket stays on it for
its whole life: a call's affinity.

Every ``REPORT_EVERY_S`` the replica reports its counts and metrics to the application's
registry (``transports.ray.registry``), whose reply carries the server's drain. A replica drains
the way the single server does (``transports.drain``: new sessions 1013, each turn in progress
finishes with ``done``, then 1001; 1012 at the bound) when the server drains on SIGTERM, and also
when Ray stops the replica alone (a scale-down, a redeploy), which ``ray_compat`` makes visible.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ray import serve
from ray.actor import ActorHandle
from starlette.applications import Starlette

from transports.drain import Drain
from transports.ray.metrics import merge_metrics
from transports.ray.registry import REPORT_EVERY_S, Commands, Registry, find_registry
from transports.ray_compat import on_graceful_shutdown
from transports.ws.server import check_voice, create_app
from transports.ws.settings import ServerSettings
from transports.ws.state import ServerState
from tts_service.backends import create_backend
from tts_service.runtime import EngineRuntime

log = logging.getLogger("warmline.ray")


@dataclass(frozen=True, slots=True)
class ReplicaConfig:
    """What every replica of one application is built from (sent to each replica by Ray)."""

    app_name: str
    settings: ServerSettings
    backend: str = "hibari"
    #: keyword options of ``create_backend`` (piper: ``voices_dir``, ``default_voice``)
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    workers: int = 2
    #: how long a replica Ray stops alone lets its turns finish (the server's ``--drain-s``)
    drain_s: float = 30.0


class _RegistryView:
    """The application as this replica's app sees it (``transports.ws.state.ClusterView``)."""

    def __init__(self, registry: ActorHandle[Registry]) -> None:
        self._registry = registry

    async def _snapshot(self) -> dict[str, dict[str, Any]]:
        snapshot: dict[str, dict[str, Any]] = await self._registry.snapshot.remote()
        return snapshot

    async def replicas(self) -> list[dict[str, Any]]:
        snapshot = await self._snapshot()
        return [
            {key: value for key, value in report.items() if key not in ("metrics", "reported_at")}
            for _, report in sorted(snapshot.items())
        ]

    async def metrics(self) -> bytes:
        snapshot = await self._snapshot()
        return merge_metrics({replica: report["metrics"] for replica, report in snapshot.items()})


def _log_to_stderr() -> None:
    """Warmline's INFO lines (one per drained call) reach the replica's stderr, which Ray shows."""
    root = logging.getLogger("warmline")
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


@serve.deployment(name="WarmlineReplica")
@serve.ingress()
class WarmlineReplica:
    """The Ray Serve deployment class (see the module doc); its ASGI app is the single server's."""

    async def __init__(self, config: ReplicaConfig) -> None:  # type: ignore[misc]  # Ray awaits it
        _log_to_stderr()
        self.replica_id = serve.get_replica_context().replica_id.unique_id
        settings = dataclasses.replace(config.settings, replica=self.replica_id)
        backend = create_backend(config.backend, **config.backend_options)
        self._runtime = EngineRuntime(backend, workers=config.workers, max_sessions=settings.max_sessions)
        await self._runtime.start()
        await check_voice(settings, self._runtime)
        self._registry = find_registry(config.app_name)
        self._drain = Drain()
        self._app = create_app(
            self._runtime, settings, drain=self._drain, cluster=_RegistryView(self._registry)
        )
        self._state: ServerState = self._app.state.warmline
        loop = asyncio.get_running_loop()
        self._reporter = loop.create_task(self._report_forever(), name=f"warmline-{self.replica_id}-reporter")

        def stopping() -> None:  # called on Ray's loop, not this one
            loop.call_soon_threadsafe(self._begin_drain, config.drain_s, "Ray stops this replica")

        on_graceful_shutdown(stopping)
        log.info("warmline: replica %s ready (pid %d)", self.replica_id, os.getpid())

    def __serve_build_asgi_app__(self) -> Starlette:
        return self._app

    # -- the registry -------------------------------------------------------------------------

    def _report(self) -> dict[str, Any]:
        state = self._state
        return {
            "replica": self.replica_id,
            "pid": os.getpid(),
            "status": state.status,
            "sessions": self._runtime.session_count,
            "connections": state.connections,
            "max_sessions": state.settings.max_sessions,
            "workers": self._runtime.live_workers,
            "metrics": state.metrics.render().decode(),
        }

    async def _report_forever(self) -> None:
        while True:
            try:
                commands: Commands = await self._registry.report.remote(self.replica_id, self._report())
            except Exception as exc:  # the driver is going away; the replica goes with it
                log.warning("warmline: replica %s cannot report: %s", self.replica_id, exc)
            else:
                self._obey(commands)
            await asyncio.sleep(REPORT_EVERY_S)

    def _obey(self, commands: Commands) -> None:
        if commands.drain_deadline is not None:
            self._begin_drain(max(0.0, commands.drain_deadline - time.time()), "the server drains")
        if commands.expired and not self._drain.expired:
            log.info("warmline: replica %s: drain cut short", self.replica_id)
            self._drain.expire()

    def _begin_drain(self, drain_s: float, why: str) -> None:
        if self._drain.begin(drain_s):
            log.info(
                "warmline: replica %s: %s: draining %d connection(s) within %.0f s",
                self.replica_id,
                why,
                self._state.connections,
                drain_s,
            )

    async def __del__(self) -> None:
        """Ray calls this once the replica's requests are over (after its drain)."""
        self._reporter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reporter
        with contextlib.suppress(Exception):
            await self._registry.remove.remote(self.replica_id)
        await self._runtime.aclose()
        log.info("warmline: replica %s stopped", self.replica_id)


__all__ = ["ReplicaConfig", "WarmlineReplica"]
