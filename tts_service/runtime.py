"""The only bridge between the synchronous engine and asyncio.

    async with EngineRuntime(create_backend("hibari")) as runtime:
        async with await runtime.open_session(SessionConfig(sample_rate=8000)) as call:
            call.inject("Hello there, ")
            call.flush()
            async for out in call:          # Frames and events, in order, until closed
                ...

One warm backend serves every session. Model compute never runs on the event loop: sessions
hand out jobs (see ``tts_service.engine.jobs``), worker threads run them in earliest-deadline-
first order, and results come back to the loop with ``call_soon_threadsafe``. A session's
deadline is the moment its listener would run out of audio (now, before its first frame), so a
call about to starve goes before a call with seconds buffered. Look-ahead is bounded by the
session config (``refill_below_ms``, ``lookahead_frames``): a consumer that stops reading stops
the compute for its session, and pause costs nothing.

Threads are owned by the runtime (its workers and the one thread that makes voice states): started
in ``start()``, stopped and joined in ``aclose()``; their number never grows with the load.
Verbs on ``RuntimeSession`` are plain methods for the event loop thread only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import TracebackType

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.jobs import FrameJob, Job, JobResult, run_frame_batch
from tts_service.engine.ports import Backend, BatchFrameBackend, VoiceState
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.types import Output, Paused, Reset, Resumed, SampleFormat
from tts_service.errors import CapacityError, InvalidStateError, SynthesisError

log = logging.getLogger("warmline.runtime")


@dataclass(frozen=True, slots=True, eq=False)
class _Work:
    """One job queued for a worker."""

    session: RuntimeSession
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


class EngineRuntime:
    """A warm backend, a pool of worker threads and the sessions sharing them."""

    def __init__(
        self,
        backend: Backend,
        *,
        workers: int = 2,
        max_sessions: int = 256,
        max_batch: int = 8,
        clock: Clock = monotonic,
    ) -> None:
        if workers < 1 or max_sessions < 1 or max_batch < 1:
            raise ValueError("workers, max_sessions and max_batch must be positive")
        self.max_batch = max_batch
        self.backend = backend
        self.max_sessions = max_sessions
        self.stats = RuntimeStats()
        self._clock = clock
        self._num_workers = workers
        self._queue: queue.PriorityQueue[tuple[float, int, _Work | _StopWorker]] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        #: the one thread that makes voice states (a new voice may load a model): a fixed thread of
        #: the runtime's own, where the loop's default executor would add threads, never to lose
        #: them, as concurrent sessions open
        self._voices: ThreadPoolExecutor | None = None
        self._sessions: set[RuntimeSession] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._closed = False
        self._stats_lock = threading.Lock()  # workers update the counters concurrently

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load and warm the model off the event loop, then start the workers."""
        if self._started:
            return
        if self._closed:
            raise InvalidStateError("the runtime is closed")
        self._loop = asyncio.get_running_loop()
        self._voices = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warmline-runtime-voices")
        await self._loop.run_in_executor(self._voices, self.backend.load)
        for i in range(self._num_workers):
            t = threading.Thread(target=self._worker, name=f"warmline-runtime-worker-{i}", daemon=True)
            t.start()
            self._threads.append(t)
        self._started = True

    async def aclose(self) -> None:
        """Close every session, stop the workers and wait for them."""
        if self._closed:
            return
        self._closed = True
        for s in list(self._sessions):
            await s.aclose()
        for _ in self._threads:
            self._queue.put((float("-inf"), next(self._seq), _StopWorker()))
        threads, self._threads = self._threads, []
        for t in threads:
            await asyncio.to_thread(t.join)
        if self._voices is not None:
            voices, self._voices = self._voices, None
            await asyncio.to_thread(voices.shutdown)

    async def __aenter__(self) -> EngineRuntime:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    @property
    def started(self) -> bool:
        """True once the model is loaded and the workers run, until ``aclose()``."""
        return self._started and not self._closed

    @property
    def live_workers(self) -> int:
        """Model worker threads running now (``workers`` while started: a dead one is replaced)."""
        return sum(t.is_alive() for t in self._threads)

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    # -- sessions -----------------------------------------------------------------------------

    async def voice_state(self, voice: str | None, seed: int | None = None) -> VoiceState:
        """A voice state, created off the loop (a new voice may load a model)."""
        if self._voices is None:
            raise InvalidStateError("start() the runtime before asking it for voices")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._voices, self.backend.new_voice_state, voice or self.backend.default_voice, seed
        )

    async def open_session(self, config: SessionConfig | None = None) -> RuntimeSession:
        """A new session; raises CapacityError beyond ``max_sessions``."""
        if not self._started or self._closed:
            raise InvalidStateError("start() the runtime before opening sessions")
        if len(self._sessions) >= self.max_sessions:
            raise CapacityError(f"this runtime already serves {self.max_sessions} sessions")
        config = config or SessionConfig()
        state = await self.voice_state(config.voice, config.seed)
        if len(self._sessions) >= self.max_sessions:  # re-check: others may have opened meanwhile
            raise CapacityError(f"this runtime already serves {self.max_sessions} sessions")
        engine = EngineSession(self.backend, config, clock=self._clock, voice_state=state)
        session = RuntimeSession(self, engine)
        self._sessions.add(session)
        self.stats.sessions_opened += 1
        return session

    def _forget(self, session: RuntimeSession) -> None:
        self._sessions.discard(session)

    # -- work ---------------------------------------------------------------------------------

    def _submit(self, session: RuntimeSession, job: Job, deadline_s: float) -> None:
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
            backend = live[0].job.backend
            assert isinstance(backend, BatchFrameBackend)
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


class RuntimeSession:
    """An engine session driven by the runtime; iterate it for frames and events.

    The verbs mirror ``EngineSession`` and return at once. Iteration ends after ``aclose()``.
    """

    def __init__(self, runtime: EngineRuntime, engine: EngineSession) -> None:
        self._runtime = runtime
        self._engine = engine
        self._wake = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    # -- state --------------------------------------------------------------------------------

    @property
    def engine(self) -> EngineSession:
        """The underlying engine session (read its state; drive it through this object)."""
        return self._engine

    @property
    def state(self) -> SessionState:
        return self._engine.state

    @property
    def config(self) -> SessionConfig:
        """The settings in force."""
        return self._engine.config

    @property
    def sample_rate(self) -> int:
        return self._engine.sample_rate

    @property
    def closed(self) -> bool:
        return self._closed

    def is_stale(self, job: Job) -> bool:
        """True when the job's result would be dropped (read from worker threads)."""
        return self._closed or job.epoch != self._engine.epoch

    # -- verbs --------------------------------------------------------------------------------

    @property
    def held(self) -> bool:
        return self._engine.held

    def start(self, text: str = "", *, held: bool = False) -> int:
        """``EngineSession.start``: a new turn (``held``: its audio withheld); its turn id."""
        turn_id = self._engine.start(text, held=held)
        self._pump()
        return turn_id

    def inject(self, text: str) -> int:
        """``EngineSession.inject``: text for the running turn (or a new one); the turn id."""
        turn_id = self._engine.inject(text)
        self._pump()
        return turn_id

    def flush(self) -> int:
        """``EngineSession.flush``: the turn's text is complete; the turn id."""
        turn_id = self._engine.flush()
        self._pump()
        return turn_id

    def pause(self) -> Paused:
        """``EngineSession.pause``: barge-in; the ``Paused`` event (also queued in order)."""
        paused = self._engine.pause()
        self._pump()
        return paused

    def resume(self) -> Resumed:
        """``EngineSession.resume``: continue the paused turn; the ``Resumed`` event."""
        resumed = self._engine.resume()
        self._pump()
        return resumed

    def release(self) -> int:
        """``EngineSession.release``: a held turn's frames go out from now on; the turn id."""
        turn_id = self._engine.release()
        self._pump()
        return turn_id

    def reset(self) -> Reset:
        """``EngineSession.reset``: drop the prefix and anything unspoken; the ``Reset`` event."""
        event = self._engine.reset()
        self._pump()
        return event

    async def configure(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        sample_format: SampleFormat | str | None = None,
    ) -> SessionConfig:
        """Change settings between turns (a new voice is loaded off the loop); the new config."""
        seed = self._engine.config.seed
        state = await self._runtime.voice_state(voice, seed) if voice is not None else None
        return self._engine.configure(
            voice=voice, speed=speed, sample_rate=sample_rate, sample_format=sample_format, voice_state=state
        )

    async def aclose(self) -> None:
        """Close the session; in-flight compute is dropped and iteration ends."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._engine.close()
        self._runtime._forget(self)
        self._wake.set()

    async def __aenter__(self) -> RuntimeSession:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- output -------------------------------------------------------------------------------

    def next_output_nowait(self) -> Output | None:
        """The next frame or event if one is ready now."""
        if self._closed:
            return None
        item = self._engine.next_output()
        if item is not None:
            self._pump()
        return item

    async def next_output(self) -> Output:
        """Wait for the next frame or event; raises StopAsyncIteration once closed."""
        while True:
            self._wake.clear()
            item = self.next_output_nowait()
            if item is not None:
                return item
            if self._closed:
                raise StopAsyncIteration
            await self._wake.wait()

    def __aiter__(self) -> AsyncIterator[Output]:
        return self

    async def __anext__(self) -> Output:
        return await self.next_output()

    # -- scheduling ---------------------------------------------------------------------------

    def _deadline_s(self) -> float:
        """When this session's listener runs out of audio: now, before its first frame."""
        now = self._runtime._clock()
        dry = self._engine.listener_runs_dry_at_s()
        return now if dry is None else dry

    def _pump(self) -> None:
        """Hand the engine's next job to the workers, arm its hold timer, wake the reader."""
        if self._closed:
            return
        job = self._engine.next_job()
        if job is not None:
            self._runtime._submit(self, job, self._deadline_s())
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self._engine.next_deadline_s()
        if due is not None and not self._engine.job_in_flight:
            delay = max(0.0, due - self._runtime._clock())
            self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)
        self._wake.set()

    def _on_timer(self) -> None:
        self._timer = None
        self._pump()

    def _deliver(self, result: JobResult) -> None:
        if self._closed:
            return
        self._engine.complete(result)
        self._pump()


__all__ = ["EngineRuntime", "RuntimeSession", "RuntimeStats", "SessionConfig"]
