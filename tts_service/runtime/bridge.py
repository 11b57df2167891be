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

This module is the asyncio side: the runtime's lifecycle, its sessions and their verbs. The
queue, the worker threads and the batching are ``tts_service.runtime.scheduler``'s.

Threads are owned by the runtime (its workers and the one thread that makes voice states): started
in ``start()``, stopped and joined in ``aclose()``; their number never grows with the load.
Verbs on ``RuntimeSession`` are plain methods for the event loop thread only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.jobs import Job, JobResult
from tts_service.engine.ports import Backend, VoiceState
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.types import Output, Paused, Reset, Resumed, SampleFormat
from tts_service.errors import CapacityError, InvalidStateError
from tts_service.languages import choose_voice, voice_language
from tts_service.runtime.scheduler import RuntimeStats, Scheduler


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
        self._scheduler = Scheduler(max_batch=max_batch, stats=self.stats)
        #: the one thread that makes voice states (a new voice may load a model): a fixed thread of
        #: the runtime's own, where the loop's default executor would add threads, never to lose
        #: them, as concurrent sessions open
        self._voices: ThreadPoolExecutor | None = None
        self._sessions: set[RuntimeSession] = set()
        self._started = False
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load and warm the model off the event loop, then start the workers."""
        if self._started:
            return
        if self._closed:
            raise InvalidStateError("the runtime is closed")
        loop = asyncio.get_running_loop()
        self._voices = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warmline-runtime-voices")
        await loop.run_in_executor(self._voices, self.backend.load)
        self._scheduler.start(loop, workers=self._num_workers)
        self._started = True

    async def aclose(self) -> None:
        """Close every session, stop the workers and wait for them."""
        if self._closed:
            return
        self._closed = True
        self._scheduler.close()
        for s in list(self._sessions):
            await s.aclose()
        for t in self._scheduler.stop():
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
        return self._scheduler.live_workers

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    @property
    def queue_depth(self) -> int:
        return self._scheduler.queue_depth

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

    def _submit(self, session: RuntimeSession, job: Job, deadline_s: float) -> None:
        self._scheduler.submit(session, job, deadline_s)


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
    def voice(self) -> str:
        """The voice in force."""
        return self._engine.config.voice or self._runtime.backend.default_voice

    @property
    def runtime_backend(self) -> Backend:
        """The warm backend this session's runtime shares with every other session."""
        return self._runtime.backend

    @property
    def language(self) -> str:
        """The language the voice in force speaks (BCP 47)."""
        return voice_language(self._runtime.backend, self.voice)

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
        language: str | None = None,
    ) -> SessionConfig:
        """Change settings between turns (a new voice is loaded off the loop); the new config.

        ``language`` (BCP 47) keeps the voice if it speaks it, else switches to a loaded voice
        that does (``tts_service.languages.choose_voice``); raises UnsupportedLanguageError.
        """
        if language is not None:
            voice = choose_voice(self._runtime.backend, current=self.voice, voice=voice, language=language)
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
