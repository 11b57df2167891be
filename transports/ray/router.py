"""Ray Serve's request router for ``warmline serve --ray``: a new call goes to the replica with the
fewest live sessions.

Serve's default router (power of two choices over a queue-length cache) spread a burst of
WebSockets opened at once badly: eight calls on two replicas landed eight and nought, or seven
and one (issue 34). Here each request is counted against the
replica it is routed to *when it is chosen* (``choose_replicas``), before the next request of the
burst is routed, corrected when the replica accepts it (``on_request_routed``) and forgotten when
it ends (``on_request_completed``): so a burst of calls spreads as evenly as the live sessions
allow, and a replica that is added (none live) takes the next calls. A replica Serve drains or
loses leaves the candidates and its entries are forgotten.

Each of Ray's HTTP proxies (one a node) counts the calls it routed itself, which on one node
are all of them. (A replica could report its sessions through ``record_routing_stats``, but
Serve's controller then logs a traceback each time it polls a replica that was just killed.)
Ties are broken at random.

Only Ray's public request-router API (``ray.serve.request_router``) is used.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ray.serve.request_router import PendingRequest, ReplicaID, RequestRouter, RunningReplica


@dataclass(slots=True)
class _Routed:
    replica: ReplicaID
    request: PendingRequest


class FewestSessionsRouter(RequestRouter):
    """Ranks the candidates by live sessions, fewest first (see the module doc)."""

    def initialize_state(self, **kwargs: Any) -> None:
        #: internal request id -> the replica it was routed to (chosen, then confirmed)
        self._routed: dict[str, _Routed] = {}

    def _own_counts(self) -> dict[ReplicaID, int]:
        counts: dict[ReplicaID, int] = {}
        for request_id, routed in list(self._routed.items()):
            if routed.request.future.cancelled():  # the caller left before a replica took it
                del self._routed[request_id]
                continue
            counts[routed.replica] = counts.get(routed.replica, 0) + 1
        return counts

    async def choose_replicas(
        self,
        candidate_replicas: list[RunningReplica],
        pending_request: PendingRequest | None = None,
    ) -> list[list[RunningReplica]]:
        candidates = self.select_available_replicas(candidate_replicas) or list(candidate_replicas)
        if not candidates:
            return []
        own = self._own_counts()
        random.shuffle(candidates)  # ties at random; the sort below is stable
        ranked = sorted(candidates, key=lambda replica: own.get(replica.replica_id, 0))
        if pending_request is not None:
            request_id = pending_request.metadata.internal_request_id
            self._routed[request_id] = _Routed(ranked[0].replica_id, pending_request)
        return [[replica] for replica in ranked]

    def on_request_routed(self, pending_request: PendingRequest, replica_id: ReplicaID, result: Any) -> None:
        request_id = pending_request.metadata.internal_request_id
        self._routed[request_id] = _Routed(replica_id, pending_request)

    def on_request_completed(self, replica_id: ReplicaID, internal_request_id: str) -> None:
        self._routed.pop(internal_request_id, None)

    def update_replicas(self, replicas: list[RunningReplica]) -> None:
        super().update_replicas(replicas)
        live = {replica.replica_id for replica in replicas}
        for request_id in [r for r, routed in self._routed.items() if routed.replica not in live]:
            del self._routed[request_id]


__all__ = ["FewestSessionsRouter"]
