"""The runtime's scheduler: one earliest-deadline-first queue of jobs and the threads that run them.

    scheduler = Scheduler(max_batch=8)
    scheduler.start(loop, workers=2)        # the worker threads, named and owned here
    scheduler.submit(session, job, deadline_s)
    for t in scheduler.stop(): t.join()     # each worker told to exit; the threads to join

Jobs wait in a priority queue keyed by their session's deadline (``RuntimeSession`` says when
its listener runs dry), so a call about to starve goes first. A worker that takes a frame job of
a batch-capable model takes the other queued frame jobs of that model with it, up to
``max_batch``, and runs them as one forward pass (``jobs.run_frame_batch``). Results go back to
the event loop with ``call_soon_threadsafe``; a job whose session moved on is skipped, not run.
A failure past the model's own error handling fails the jobs of its batch (their sessions
report an error); a worker killed by it is replaced, so the number of workers never changes.

Threads only: no asyncio is imported here (the loop is only posted to). ``tts_service.runtime``
owns the scheduler and is the bridge to asyncio.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tts_service.engine.jobs import FrameJob, Job, JobResult, run_frame_batch
from tts_service.engine.ports import BatchFrameBackend
from tts_service.errors import SynthesisError

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("warmline.runtime")


class JobOwner(Protocol):
    """The session a job came from (``RuntimeSession``): asked from worker threads whether the
    job is still wanted; its result is delivered on the event loop."""

    def is_stale(self, job: Job) -> bool: ...

    def _deliver(self, result: JobResult) -> None: ...


@dataclass(frozen=True, slots=True, eq=False)
class _Work:
    """One job queued for a worker."""

    session: JobOwner
    job: Job


@dataclass(frozen=True, slots=True)
class _StopWorker:
    """Tells one worker thread to exit."""


@dataclass(slots=True)
class RuntimeStats:
    """Counters for benchmarks and metrics."""

    jobs_run: int = 0
    jobs_skipped_stale: int = 0
    compute_s: float = 0.0
    max_queue_depth: int = 0
    sessions_opened: int = 0
    #: batched frame steps: passes run and the largest number of sessions in one
    batches_run: int = 0
    max_batch_size: int = 0
    #: batches failed by an error past the model's own handling (the worker went on, or was replaced)
    worker_failures: int = 0


class Scheduler:
    """The job queue, earliest deadline first, and the worker threads that run it in batches."""

    def __init__(self, *, max_batch: int, stats: RuntimeStats | None = None) -> None:
        self.max_batch = max_batch
        self.stats = stats or RuntimeStats()
        self._queue: queue.PriorityQueue[tuple[float, int, _Work | _StopWorker]] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._stats_lock = threading.Lock()  # workers update the counters concurrently

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop, *, workers: int) -> None:
        """Start ``workers`` threads that deliver their results on ``loop``."""
        self._loop = loop
        for i in range(workers):
            t = threading.Thread(target=self._worker, name=f"warmline-runtime-worker-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def close(self) -> None:
        """From now on a worker that dies is not replaced (the runtime is closing)."""
        self._closed = True

    def stop(self) -> list[threading.Thread]:
        """Tell every worker to exit once it is free (before any queued job); the threads to join."""
        self.close()
        for _ in self._threads:
            self._queue.put((float("-inf"), next(self._seq), _StopWorker()))
        threads, self._threads = self._threads, []
        return threads

    @property
    def live_workers(self) -> int:
        """Worker threads running now (a dead one is replaced)."""
        return sum(t.is_alive() for t in self._threads)

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    # -- work ---------------------------------------------------------------------------------

    def submit(self, session: JobOwner, job: Job, deadline_s: float) -> None:
        """Queue ``job`` of ``session``, to run by ``deadline_s`` (clock seconds; earliest first)."""
        self._queue.put((deadline_s, next(self._seq), _Work(session, job)))
        depth = self._queue.qsize()
        if depth > self.stats.max_queue_depth:
            self.stats.max_queue_depth = depth

    def _worker(self) -> None:
        # No local names the item: nothing of a finished job (its session, its audio) may stay
        # referenced from the idle worker's frame while it waits for the next one.
        while self._run_item(self._queue.get()[2]):
            pass

    def _run_item(self, item: _Work | _StopWorker) -> bool:
        """Run one queued item; False when the worker should exit (told to, or the loop is gone)."""
        return not isinstance(item, _StopWorker) and self._run_batch(item)

    def _run_batch(self, first: _Work) -> bool:
        """Run ``first`` (batched with queued frame jobs) and deliver the results; False once the
        loop is gone. Whatever escapes the model's own error handling (a bug here, a model that
        raises past ``Exception``) fails the batch's jobs, which their sessions report as errors,
        instead of leaving them waiting for ever; a worker that must die is replaced first."""
        batch = [first]
        try:
            batch = self._batch_with(first)
            return self._compute_and_deliver(batch)
        except BaseException as exc:
            self._fail_batch(batch, exc)
            if isinstance(exc, Exception):
                return True  # the worker carries on
            self._replace_worker()
            raise

    def _fail_batch(self, batch: list[_Work], exc: BaseException) -> None:
        log.error("runtime: a model worker failed; failing its %d job(s)", len(batch), exc_info=exc)
        with self._stats_lock:
            self.stats.worker_failures += 1
        err = SynthesisError(f"the model worker failed: {type(exc).__name__}")
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            for w in batch:
                loop.call_soon_threadsafe(w.session._deliver, JobResult(w.job, error=err))

    def _replace_worker(self) -> None:
        """Start a worker in place of the current thread, which is about to end."""
        if self._closed:
            return
        current = threading.current_thread()
        t = threading.Thread(target=self._worker, name=current.name, daemon=True)
        t.start()
        self._threads = [t if w is current else w for w in self._threads]

    def _compute_and_deliver(self, batch: list[_Work]) -> bool:
        live = [w for w in batch if not w.session.is_stale(w.job)]
        results = {id(w): JobResult(w.job) for w in batch}
        t0 = time.perf_counter()
        if len(live) > 1:
            first = live[0].job  # only frame jobs of one batch-capable model are batched
            assert isinstance(first, FrameJob) and isinstance(first.backend, BatchFrameBackend)
            backend = first.backend
            frame_jobs = [w.job for w in live if isinstance(w.job, FrameJob)]
            for w, result in zip(live, run_frame_batch(backend, frame_jobs), strict=True):
                results[id(w)] = result
        elif live:
            results[id(live[0])] = live[0].job.run()
        spent = time.perf_counter() - t0
        with self._stats_lock:
            self.stats.compute_s += spent
            self.stats.jobs_run += len(live)
            self.stats.jobs_skipped_stale += len(batch) - len(live)
            if len(live) > 1:
                self.stats.batches_run += 1
                self.stats.max_batch_size = max(self.stats.max_batch_size, len(live))
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            for w in batch:
                loop.call_soon_threadsafe(w.session._deliver, results[id(w)])
        except RuntimeError:  # the loop closed between the check and the call
            return False
        return True

    def _batch_with(self, first: _Work) -> list[_Work]:
        """``first`` plus queued frame jobs for the same batch-capable model, up to ``max_batch``.

        Other queued items go back with their priority; one job per session is ever queued, so
        the voice states in a batch are distinct.
        """
        job = first.job
        if self.max_batch == 1 or not isinstance(job, FrameJob):
            return [first]
        if not isinstance(job.backend, BatchFrameBackend):
            return [first]
        batch = [first]
        others: list[tuple[float, int, _Work | _StopWorker]] = []
        while len(batch) < self.max_batch:
            try:
                entry = self._queue.get_nowait()
            except queue.Empty:
                break
            work = entry[2]
            if isinstance(work, _Work) and isinstance(work.job, FrameJob) and work.job.backend is job.backend:
                batch.append(work)
            else:
                others.append(entry)
        for entry in others:
            self._queue.put(entry)
        return batch


__all__ = ["JobOwner", "RuntimeStats", "Scheduler"]
