"""A census of what a process holds: memory, threads, descriptors, asyncio tasks, live objects.

    before = census(track=("AgentPipeline", "RuntimeSession"))
    ...                                               # run a call, let it end
    after = census(track=before.tracked_names)
    assert after.leaks_against(before) == {}          # counts back to where they were

Used by the leak tests, the call-memory benchmark and the soak: a finished call must leave all
of these where they were. The event loop's default executor (``asyncio.to_thread``, DNS lookups)
is a pool that grows to its bound, ``min(32, CPUs + 4)`` threads, and keeps them for every later
call: its threads are counted apart (``pool_threads``), not as a call's. Objects are counted by
class name through the garbage collector (after a collection), so a test can name classes of any
layer without importing them. Reads ``/proc`` (Linux); never changes what it measures, except
that it runs ``gc.collect()``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

#: the classes that make up a call, from the engine to the agent (what a leak test tracks)
CALL_CLASSES = (
    "EngineSession",
    "RuntimeSession",
    "WarmlineTTSService",
    "PocketsphinxSTTService",
    "SileroVADAnalyzer",
    "VADProcessor",
    "Pipeline",
    "PipelineWorker",
    "AgentPipeline",
    "TwilioCall",
    "TwilioMediaStreamTransport",
    "SmallWebRTCConnection",
    "SmallWebRTCTransport",
    "RTCPeerConnection",
    "WsConnection",
)


#: the name prefix asyncio gives its default executor's threads
DEFAULT_EXECUTOR_PREFIX = "asyncio_"


@dataclass(frozen=True, slots=True)
class Census:
    """One reading; ``tasks`` is None outside a running event loop."""

    rss_mb: float
    #: threads outside the event loop's default executor
    threads: int
    fds: int
    tasks: int | None
    objects: dict[str, int] = field(default_factory=dict)
    #: the names of those threads, sorted (for the report when the count grew)
    thread_names: tuple[str, ...] = ()
    #: threads of the event loop's default executor (a bounded pool shared by every call)
    pool_threads: int = 0

    @property
    def tracked_names(self) -> tuple[str, ...]:
        return tuple(self.objects)

    def leaks_against(self, baseline: Census) -> dict[str, tuple[int, int]]:
        """Every count (threads, fds, tasks, tracked objects) above ``baseline``: name -> (then, now)."""
        grew: dict[str, tuple[int, int]] = {}
        pairs = [("threads", baseline.threads, self.threads), ("fds", baseline.fds, self.fds)]
        if baseline.tasks is not None and self.tasks is not None:
            pairs.append(("tasks", baseline.tasks, self.tasks))
        pairs += [(name, baseline.objects.get(name, 0), n) for name, n in self.objects.items()]
        for name, then, now in pairs:
            if now > then:
                grew[name] = (then, now)
        return grew

    def to_json(self) -> dict[str, object]:
        return {
            "rss_mb": round(self.rss_mb, 1),
            "threads": self.threads,
            "fds": self.fds,
            "tasks": self.tasks,
            "objects": dict(self.objects),
            "thread_names": list(self.thread_names),
            "pool_threads": self.pool_threads,
        }


def rss_mb() -> float:
    """Resident memory of this process in MiB (from /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def count_objects(names: Iterable[str]) -> dict[str, int]:
    """Live objects whose class is called one of ``names`` (after a full collection)."""
    wanted = set(names)
    gc.collect()
    counts = Counter(type(o).__name__ for o in gc.get_objects() if type(o).__name__ in wanted)
    return {name: counts.get(name, 0) for name in sorted(wanted)}


def census(track: Iterable[str] = CALL_CLASSES) -> Census:
    """Read the process now (collects garbage first, so only what is referenced counts)."""
    objects = count_objects(track)
    try:
        tasks: int | None = len(asyncio.all_tasks())
    except RuntimeError:
        tasks = None
    names = sorted(t.name for t in threading.enumerate())
    own = tuple(n for n in names if not n.startswith(DEFAULT_EXECUTOR_PREFIX))
    pool = len(names) - len(own)
    return Census(rss_mb(), len(own), open_fds(), tasks, objects, own, pool)


__all__ = [
    "CALL_CLASSES",
    "DEFAULT_EXECUTOR_PREFIX",
    "Census",
    "census",
    "count_objects",
    "open_fds",
    "rss_mb",
]
