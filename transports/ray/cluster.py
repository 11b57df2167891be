"""``warmline serve --ray``: the WebSocket server as a Ray Serve application, and its lifecycle.

    serve_on_ray(settings, RayOptions(replicas=2), backend="hibari", workers=2, drain_s=30)

Without ``address`` a Ray of this machine alone is started (on loopback, no dashboard) and stopped
with the server; with one, the application joins that cluster and only it is removed at the end.
Ray Serve's HTTP proxy listens on the server's host and port and sends each new session to the
replica with the fewest live sessions (``transports.ray.router``), each replica a warm model
serving up to ``--max-sessions`` (``transports.ray.replica``); a WebSocket stays on its replica.
``--replicas N`` fixes their number; ``--min-replicas`` and ``--max-replicas`` let Serve scale
on ongoing sessions (``target_sessions`` each).

SIGTERM (or Ctrl-C) drains every replica as the single server drains: ``/healthz`` 503, new
WebSockets 1013, turns in progress finish, then 1001; at the bound, 1012. A second signal cuts
the drain short. Then the application is deleted, a local Ray is shut down with every process it
started, and the process exits 0.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any, cast

from transports.ray_compat import LOCAL_ONLY_ENV
from transports.serve import host_port
from transports.ws.settings import ServerSettings
from tts_service.errors import InvalidInputError

log = logging.getLogger("warmline.ray")

#: Ray's HTTP requests beside the sessions a replica may hold at once (/healthz, /metrics, ...)
HTTP_HEADROOM = 8
#: after the drain's bound, how long Ray waits for a replica's requests before it kills it
STOP_GRACE_S = 5.0
#: the Ray Serve application's name (and its registry's)
APP_NAME = "warmline"


@dataclass(frozen=True, slots=True)
class RayOptions:
    """How many replicas, of what size, on which cluster."""

    #: a fixed number of replicas (None: autoscale between ``min_replicas`` and ``max_replicas``)
    replicas: int | None = 2
    min_replicas: int = 1
    max_replicas: int = 4
    #: autoscaling's target of ongoing sessions per replica (None: half of ``max_sessions``)
    target_sessions: int | None = None
    #: a running cluster to join (``ray://...`` or ``host:port``); None starts a local one
    address: str | None = None
    #: CPUs Ray reserves for each replica (fractions allowed: the model's threads are its own)
    replica_cpus: float = 0.5

    def __post_init__(self) -> None:
        if self.replicas is not None and self.replicas < 1:
            raise InvalidInputError(f"--replicas must be at least 1, not {self.replicas}")
        if not 0 <= self.min_replicas <= self.max_replicas or self.max_replicas < 1:
            raise InvalidInputError(
                f"need 0 <= --min-replicas <= --max-replicas and --max-replicas >= 1, "
                f"not {self.min_replicas} and {self.max_replicas}"
            )
        if self.target_sessions is not None and self.target_sessions < 1:
            raise InvalidInputError(f"--target-sessions must be at least 1, not {self.target_sessions}")
        if not self.replica_cpus > 0:
            raise InvalidInputError(f"--replica-cpus must be positive, not {self.replica_cpus}")

    def scaling(self, max_sessions: int) -> dict[str, Any]:
        """The deployment options that set how many replicas run."""
        if self.replicas is not None:
            return {"num_replicas": self.replicas}
        target = self.target_sessions or max(1, max_sessions // 2)
        return {
            "num_replicas": "auto",
            "autoscaling_config": {
                "min_replicas": self.min_replicas,
                "initial_replicas": max(1, self.min_replicas),
                "max_replicas": self.max_replicas,
                "target_ongoing_requests": target,
            },
        }


def free_port(host: str) -> int:
    """A TCP port free on ``host`` now (Ray's proxy binds by number, so 0 is chosen here)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class _Signals:
    """SIGINT and SIGTERM counted, for the main thread to act on."""

    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Event()

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        for sig in previous:
            signal.signal(sig, self._on_signal)
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        self.changed.set()


def serve_on_ray(
    settings: ServerSettings,
    options: RayOptions,
    *,
    backend: str = "hibari",
    backend_options: Mapping[str, Any] | None = None,
    workers: int = 2,
    drain_s: float = 30.0,
    banner: bool = True,
) -> None:
    """Run the application until SIGINT or SIGTERM, then drain and stop (the module doc)."""
    if options.address is None:
        os.environ.update(LOCAL_ONLY_ENV)  # read when ray is imported: keep a local Ray on loopback
    import ray
    from ray import serve
    from ray.serve.config import RequestRouterConfig
    from ray.serve.deployment import Deployment

    from transports.ray.registry import NAMESPACE, start_registry
    from transports.ray.replica import ReplicaConfig, WarmlineReplica
    from transports.ray.router import FewestSessionsRouter

    port = settings.port or free_port(settings.host)
    if options.address is None:
        ray.init(
            num_cpus=max(2, os.cpu_count() or 2),
            include_dashboard=False,
            namespace=NAMESPACE,
            object_store_memory=128 * 1024 * 1024,
        )
    else:
        ray.init(address=options.address, namespace=NAMESPACE)
    try:
        registry = start_registry(APP_NAME)
        serve.start(http_options={"host": settings.host, "port": port})
        router: dict[str, Any] = {"request_router_class": FewestSessionsRouter}
        deployment = cast("Deployment", WarmlineReplica).options(
            max_ongoing_requests=settings.max_sessions + HTTP_HEADROOM,
            graceful_shutdown_wait_loop_s=0.5,
            graceful_shutdown_timeout_s=drain_s + STOP_GRACE_S,
            health_check_period_s=2.0,
            ray_actor_options={"num_cpus": options.replica_cpus},
            # a new call goes to the replica with the fewest live sessions (transports.ray.router)
            request_router_config=RequestRouterConfig(**router),
            **options.scaling(settings.max_sessions),
        )
        config = ReplicaConfig(
            APP_NAME,
            settings,
            backend=backend,
            backend_options=dict(backend_options or {}),
            workers=workers,
            drain_s=drain_s,
        )
        signals = _Signals()
        with signals.installed():
            serve.run(deployment.bind(config), name=APP_NAME, route_prefix="/", blocking=False)
            if banner:
                where = host_port(settings.host, port)
                count = options.replicas or f"{options.min_replicas}-{options.max_replicas}"
                print(
                    f"warmline: serving on http://{where}/ (WebSocket ws://{where}/ws), "
                    f"{count} Ray Serve replicas",
                    flush=True,
                )
            signals.changed.wait()
            _drain(registry, signals, drain_s)
        log.info("warmline: removing the application")
        serve.delete(APP_NAME)
        if options.address is None:
            serve.shutdown()  # type: ignore[no-untyped-call]
    finally:
        ray.shutdown()


def _drain(registry: Any, signals: _Signals, drain_s: float) -> None:
    """Drain every replica: wait until none holds a connection, or the bound (then 1012)."""
    import ray

    log.info("warmline: draining (signal again to stop at once)")
    ray.get(registry.begin_drain.remote(drain_s))
    deadline = time.monotonic() + drain_s + STOP_GRACE_S
    expired = False
    while time.monotonic() < deadline:
        if signals.count > 1 and not expired:
            log.info("warmline: signal again: stopping now")
            ray.get(registry.expire.remote())
            expired = True
        reports = ray.get(registry.snapshot.remote()).values()
        # a replica's report from before it saw the drain may predate its newest connection
        seen = all(report["status"] == "draining" for report in reports)
        if seen and sum(int(report["connections"]) for report in reports) == 0:
            log.info("warmline: drained")
            return
        signals.changed.clear()
        signals.changed.wait(0.25)
    log.info("warmline: drain bound reached")


__all__ = ["APP_NAME", "RayOptions", "free_port", "serve_on_ray"]
