"""The registry of one ``warmline serve --ray`` application: what each replica last reported,
and what the server asks of them all.

    registry = start_registry("warmline")            # the driver, before the replicas start
    commands = await registry.report.remote(replica_id, report)   # each replica, every REPORT_EVERY_S
    await registry.snapshot.remote()                 # any replica's /healthz and /metrics

Replicas push (they know when they change); a report older than ``STALE_S`` is a replica that
died, and is left out of every snapshot. The reply to a report carries the server's commands: a
drain begun by SIGTERM (its deadline, wall-clock) and its expiry (a second signal). The actor
takes no CPU of its own and is owned by the driver, so it ends with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import ray
from ray.actor import ActorHandle

#: how often each replica reports (and so how soon it sees a drain begin)
REPORT_EVERY_S = 0.5
#: a replica not heard from for this long is gone (killed, or its node lost)
STALE_S = 5.0
#: the Ray namespace of every Warmline actor
NAMESPACE = "warmline"


def registry_name(app_name: str) -> str:
    return f"{app_name}-registry"


@dataclass(slots=True)
class Commands:
    """What the server asks of every replica now (the reply to a report)."""

    #: wall-clock time (``time.time()``) by which a drain must be done; None: no drain
    drain_deadline: float | None = None
    #: the drain's bound was cut short: close what is left now
    expired: bool = False


class Registry:
    """The actor's class (``start_registry`` makes it a Ray actor); see the module doc."""

    def __init__(self) -> None:
        self._reports: dict[str, dict[str, Any]] = {}
        self._commands = Commands()

    def report(self, replica: str, report: dict[str, Any]) -> Commands:
        self._reports[replica] = {**report, "reported_at": time.time()}
        return self._commands

    def remove(self, replica: str) -> None:
        self._reports.pop(replica, None)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        now = time.time()
        for replica in [r for r, rep in self._reports.items() if now - rep["reported_at"] > STALE_S]:
            del self._reports[replica]
        return dict(self._reports)

    def begin_drain(self, drain_s: float) -> None:
        if self._commands.drain_deadline is None:
            self._commands.drain_deadline = time.time() + drain_s

    def expire(self) -> None:
        self._commands.expired = True


def start_registry(app_name: str) -> ActorHandle[Registry]:
    """Start the application's registry (in the driver, after ``ray.init``)."""
    actor = ray.remote(num_cpus=0)(Registry)
    handle = actor.options(name=registry_name(app_name), namespace=NAMESPACE).remote()
    return cast("ActorHandle[Registry]", handle)


def find_registry(app_name: str) -> ActorHandle[Registry]:
    """The application's registry, from inside one of its replicas."""
    return cast("ActorHandle[Registry]", ray.get_actor(registry_name(app_name), namespace=NAMESPACE))


__all__ = [
    "NAMESPACE",
    "REPORT_EVERY_S",
    "STALE_S",
    "Commands",
    "Registry",
    "find_registry",
    "start_registry",
]
