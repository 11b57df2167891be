"""A server's graceful drain: stop taking work, let the work in progress finish, within a bound.

    drain = Drain()
    app = create_app(runtime, settings, drain=drain)    # admission asks ``drain.draining``
    with drain.job("ws-3") as job:                      # each connection or call, while it lives
        await drain.wait_begun()                        # ... in a task of its own
        ...finish the turn in progress...
        job.outcome = "turn finished, closed 1001"
    drain.begin(30.0)                                    # SIGTERM, or the first Ctrl-C
    await drain.wait_empty()                             # every job gone, or the bound passed

Once begun, a server refuses new work (a WebSocket gets 1013, an HTTP request 503, ``/healthz``
503 so a balancer takes the instance out) while each job winds itself down: a WebSocket closes
with 1001 after its turn's ``done``, a phone call runs to its end. ``expired`` is set at the
bound (or at once by ``expire()``, a second Ctrl-C): what is left closes with 1012. Every job that
ends while the drain runs logs one line, with how long it took and its ``outcome``.

The drain knows nothing of the protocols: each job decides what "finished" means. It lives on
one event loop; ``begin`` and ``expire`` are called from it (signal handlers run there).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass

from tts_service.engine.clock import Clock, monotonic
from tts_service.errors import InvalidInputError, WarmlineError

log = logging.getLogger("warmline.drain")

#: how long ``warmline serve`` and ``warmline call`` let work finish after SIGTERM (``--drain-s``)
DEFAULT_DRAIN_S = 30.0
#: close reasons of the two ways a drained WebSocket ends
GOING_AWAY = (1001, "server going away: the turn in progress is finished")
DRAIN_TIME_UP = (1012, "server restarting: drain time is up")
#: what a connection that arrives during a drain is told (WebSocket 1013, HTTP 503)
NOT_TAKING = "server draining: no new sessions here, reconnect to another instance"


class Draining(WarmlineError):
    """The server is draining: it finishes what it has and takes nothing new."""

    code = "draining"


@dataclass(slots=True)
class DrainJob:
    """One connection or call the drain waits for; its owner sets ``outcome`` before it ends."""

    name: str
    outcome: str = "ended"


class Drain:
    """The drain of one server (see the module doc)."""

    def __init__(self, *, clock: Clock = monotonic) -> None:
        self._clock = clock
        self._began_s: float | None = None
        self._deadline_s = math.inf
        self._begun = asyncio.Event()
        self._expired = asyncio.Event()
        self._empty = asyncio.Event()
        self._empty.set()
        self._jobs: dict[int, DrainJob] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._emptied_in_time = True  # whether the last job to end ended before the bound

    # -- state --------------------------------------------------------------------------------

    @property
    def draining(self) -> bool:
        """The drain has begun: take no new work."""
        return self._began_s is not None

    @property
    def expired(self) -> bool:
        """The bound has passed (or ``expire()`` was called): end what is left now."""
        return self._expired.is_set()

    @property
    def jobs(self) -> int:
        """Connections and calls still running."""
        return len(self._jobs)

    def remaining_s(self) -> float:
        """Seconds left before the bound (infinite before the drain begins, 0 once expired)."""
        if self.expired:
            return 0.0
        return max(0.0, self._deadline_s - self._clock())

    # -- the owner's verbs --------------------------------------------------------------------

    def begin(self, within_s: float = DEFAULT_DRAIN_S) -> bool:
        """Start draining, bounded by ``within_s``; False (and nothing changes) if already begun."""
        if not within_s >= 0:
            raise InvalidInputError(f"a drain bound must be zero or more seconds, not {within_s!r}")
        if self.draining:
            return False
        self._began_s = self._clock()
        self._deadline_s = self._began_s + within_s
        self._begun.set()
        log.info("draining: %d in progress, up to %.0f s; taking nothing new", self.jobs, within_s)
        self._timer = asyncio.get_running_loop().call_later(within_s, self.expire)
        return True

    def expire(self) -> None:
        """The bound is reached (or the owner will wait no longer): what is left ends now."""
        if self.expired:
            return
        if not self.draining:
            self.begin(0.0)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._expired.set()
        if self._jobs:
            log.info("drain: time is up; ending %d still in progress", self.jobs)

    # -- the jobs' side -----------------------------------------------------------------------

    @contextlib.contextmanager
    def job(self, name: str) -> Iterator[DrainJob]:
        """Count a connection or call as running for as long as the block runs."""
        job = DrainJob(name)
        key = id(job)
        self._jobs[key] = job
        self._empty.clear()
        try:
            yield job
        finally:
            del self._jobs[key]
            if not self._jobs:
                self._empty.set()
                self._emptied_in_time = not self.expired
            if self._began_s is not None:
                log.info("%s: drained in %.1f s (%s)", name, self._clock() - self._began_s, job.outcome)

    async def wait_begun(self) -> None:
        """Return once the drain has begun."""
        await self._begun.wait()

    async def wait_expired(self, timeout_s: float | None = None) -> bool:
        """Wait for the bound, at most ``timeout_s``; True once it has passed."""
        if timeout_s is None:
            await self._expired.wait()
            return True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._expired.wait()
        return self.expired

    async def wait_left(self, seconds: float) -> None:
        """Return once the drain has begun and at most ``seconds`` of it are left."""
        await self.wait_begun()
        await self.wait_expired(max(0.0, self.remaining_s() - seconds))

    async def wait_empty(self, grace_s: float = 5.0) -> bool:
        """Wait until every job has ended; True if they did before the bound.

        Past the bound, jobs are ending themselves (1012); this waits ``grace_s`` more for them.
        """
        await self.wait_begun()
        if not self._empty.is_set():
            waiter = asyncio.create_task(self._empty.wait(), name="warmline-drain-empty")
            expiry = asyncio.create_task(self._expired.wait(), name="warmline-drain-expiry")
            try:
                await asyncio.wait({waiter, expiry}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (waiter, expiry):
                    task.cancel()
                await asyncio.gather(waiter, expiry, return_exceptions=True)
        if not self._empty.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace_s):
                    await self._empty.wait()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return self._empty.is_set() and self._emptied_in_time


__all__ = [
    "DEFAULT_DRAIN_S",
    "DRAIN_TIME_UP",
    "GOING_AWAY",
    "NOT_TAKING",
    "Drain",
    "DrainJob",
    "Draining",
]
