"""The engine session: the verbs of a voice call over one warm model, as a sans-I/O state machine.

    session = EngineSession(backend, SessionConfig(sample_rate=8000))
    turn = session.start("Hello")   # verbs are cheap: they never run the model
    session.inject(" there, how")   # LLM tokens, as they arrive
    session.run_jobs()               # model compute: inline here, on a worker in the runtime
    for out in session.drain():      # SpeechFrames (exactly 80 ms) and events, in order
        ...

Verbs and states (``SessionState``) follow the table in ``states``: each verb returns what it
did (the turn id, or the event it queued), and raises ``InvalidStateError`` where the table says
so (the state is then unchanged). ``start(text, held=True)`` makes a speculative answer, its
frames withheld until ``release()``.

The session keeps to the state machine. The text and audio move through a ``stream.TurnStream``
whose parts each have one job: the segmenter cuts tokens into units, the speakable stage makes
their text readable, a producer turns units into jobs and job results into audio chunks, the
timeline frames the audio, and the listener clock says when the listener runs dry.

After calling a verb you must call ``next_job()`` / ``complete()`` until no job is left, and
``next_output()`` or ``drain()`` to collect frames and events; ``next_deadline_s()`` says when
a hold timer next needs ``next_job()`` called even if nothing else happened.

Never imports asyncio, sockets, torch or onnxruntime; never runs the model inside a verb.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import replace

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.conditioner import JoinPolicy
from tts_service.engine.config import SessionConfig, check_config
from tts_service.engine.jobs import Job, JobResult
from tts_service.engine.ports import Backend, VoiceState
from tts_service.engine.producers import JobContext
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.states import (
    RUNNING,
    SessionState,
    check_configure,
    check_flush,
    check_inject,
    check_open,
    check_pause,
    check_release,
    check_resume,
    check_start,
)
from tts_service.engine.stream import TurnStream
from tts_service.engine.timeline import Timeline
from tts_service.engine.types import (
    Done,
    ErrorEvent,
    Output,
    Paused,
    Reset,
    Resumed,
    SampleFormat,
)

log = logging.getLogger("warmline.engine")


class EngineSession:
    """One call's speech stream over a shared, warm backend. Not thread-safe: one owner."""

    def __init__(
        self,
        backend: Backend,
        config: SessionConfig | None = None,
        *,
        clock: Clock = monotonic,
        voice_state: VoiceState | None = None,
        join_policy: JoinPolicy | None = None,
    ) -> None:
        config = config or SessionConfig()
        self._backend = backend
        self._caps = backend.capabilities
        self._clock = clock
        check_config(config, self._caps)
        self._config = config
        voice = config.voice or backend.default_voice
        self._voice_state = (
            voice_state if voice_state is not None else backend.new_voice_state(voice, seed=config.seed)
        )
        self._stream = TurnStream(backend, config, clock=clock, join_policy=join_policy)
        self._state = SessionState.IDLE
        self._resume_to = SessionState.SPEAKING
        self._flush_on_resume = False
        self._held = False
        self._turn_id = 0
        self._outbox: deque[Output] = deque()
        self._epoch = 0
        self._in_flight: Job | None = None
        self._context_reset_pending = False

    # -- properties ---------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        return self._state

    @property
    def config(self) -> SessionConfig:
        return self._config

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def turn_id(self) -> int:
        return self._turn_id

    @property
    def held(self) -> bool:
        """True while the running turn's audio is withheld (see ``release``)."""
        return self._held

    @property
    def sample_rate(self) -> int:
        return self._config.sample_rate

    @property
    def pending_samples(self) -> int:
        """Audio made and not yet handed out, in output samples."""
        return self._stream.timeline.pending_samples

    @property
    def held_chars(self) -> int:
        """Text accepted and not yet handed to the model (the bounded text buffer)."""
        return self._stream.held_chars

    @property
    def epoch(self) -> int:
        """Bumped whenever pending work is discarded; jobs from an older epoch are dropped."""
        return self._epoch

    @property
    def job_in_flight(self) -> bool:
        return self._in_flight is not None

    @property
    def timeline(self) -> Timeline:
        """The current turn's timeline (read-only use: unit spans, spoken words)."""
        return self._stream.timeline

    def _set_state(self, new: SessionState) -> None:
        if new is not self._state:
            log.debug("session turn %d: %s -> %s", self._turn_id, self._state.value, new.value)
            self._state = new

    # -- configuration ------------------------------------------------------------------------

    def configure(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        sample_format: SampleFormat | str | None = None,
        voice_state: VoiceState | None = None,
        lexicon: Lexicon | None = None,
        language: str | None = None,
    ) -> SessionConfig:
        """Change settings between turns (state IDLE); all are checked before any is applied.

        Returns the configuration now in force.
        """
        check_configure(self._state)
        new = self._config
        if speed is not None:
            new = replace(new, speed=speed)
        if sample_rate is not None:
            new = replace(new, sample_rate=sample_rate)
        if sample_format is not None:
            new = replace(new, sample_format=SampleFormat.parse(sample_format))
        if voice is not None:
            new = replace(new, voice=voice)
        if lexicon is not None:
            new = replace(new, lexicon=lexicon)
        if language is not None:
            new = replace(new, language=language)
        check_config(new, self._caps)
        if voice_state is None and voice is not None and voice != (self._config.voice or ""):
            voice_state = self._backend.new_voice_state(voice, seed=new.seed)
        if voice_state is not None:
            self._voice_state = voice_state
        self._config = new
        self._stream.reconfigure(new)
        return new

    # -- verbs --------------------------------------------------------------------------------

    def start(self, text: str = "", *, held: bool = False) -> int:
        """Begin a new turn with ``text`` (may be empty); returns its turn id.

        Speaks as soon as a unit is ready; with ``held`` its audio is made but withheld until
        ``release()``. From PAUSED, the paused remainder is discarded first. Raises
        InvalidStateError while a turn is running: ``pause()`` it, or wait for ``Done``.
        """
        check_start(self._state)
        clean = self._stream.accept(text, appending=False)
        self._begin_turn()
        self._held = held
        self._stream.feed(clean)
        return self._turn_id

    def inject(self, text: str) -> int:
        """Append LLM text (any token split) to the running turn; returns the turn id it joined.

        Never restarts a turn. In IDLE this begins a new turn (the prefix is kept); in PAUSED the
        paused remainder is discarded and the turn continues with ``text``. Raises
        InvalidStateError after flush().
        """
        check_inject(self._state)
        appending = self._state is SessionState.SPEAKING
        clean = self._stream.accept(text, appending=appending)
        if self._state is SessionState.IDLE:
            self._begin_turn()
        elif self._state is SessionState.PAUSED:
            self._discard_remainder()
            self._set_state(SessionState.SPEAKING)
        self._stream.feed(clean)
        return self._turn_id

    def flush(self) -> int:
        """The answer is complete: speak what is held back, then emit ``Done``; returns the turn id.

        From PAUSED the turn finishes once resumed. Raises InvalidStateError with no turn to
        flush (IDLE) or one already flushed (FLUSHING).
        """
        check_flush(self._state)
        self._stream.flush_text()
        if self._state is SessionState.SPEAKING:
            self._set_state(SessionState.FLUSHING)
        else:  # PAUSED
            self._flush_on_resume = True
        return self._turn_id

    def pause(self) -> Paused:
        """Barge-in: at most one more frame (a short fade), then nothing until resume.

        Queues the fade frame (if audio was pending) and returns the ``Paused`` event (also
        queued) with the words heard. Raises InvalidStateError unless a turn is running.
        """
        check_pause(self._state, held=self._held)
        self._resume_to = self._state
        fade = self._stream.pause(fade_frame=self._config.pause_fade_frame)
        if fade is not None:
            self._outbox.append(fade)
        timeline = self._stream.timeline
        paused = Paused(
            turn_id=self._turn_id,
            spoken=timeline.spoken_text,
            num_samples=timeline.emitted_samples,
            words=timeline.spoken_words,
        )
        self._outbox.append(paused)
        self._set_state(SessionState.PAUSED)
        return paused

    def resume(self) -> Resumed:
        """A false barge-in: continue the paused remainder from the next frame.

        Returns the ``Resumed`` event (also queued). Raises InvalidStateError unless paused.
        """
        check_resume(self._state)
        self._stream.fade_in_remainder()
        target = SessionState.FLUSHING if self._flush_on_resume else self._resume_to
        self._flush_on_resume = False
        resumed = Resumed(self._turn_id)
        self._outbox.append(resumed)
        self._set_state(target)
        return resumed

    def release(self) -> int:
        """A held turn is wanted: its frames go out from now on (those made already at once).

        Returns the turn id. Raises InvalidStateError unless a held turn is running.
        """
        check_release(self._state, held=self._held)
        self._held = False
        return self._turn_id

    def reset(self) -> Reset:
        """The bot's turn is over: drop the prefix and anything unspoken; model and voice stay warm.

        Returns the ``Reset`` event (also queued).
        """
        check_open(self._state)
        self._drop_work()
        self._context_reset_pending = True
        self._stream.restart_context()
        self._flush_on_resume = False
        event = Reset(self._turn_id)
        self._outbox.append(event)
        self._set_state(SessionState.IDLE)
        return event

    def close(self) -> None:
        """Release everything; every later verb raises SessionClosedError (closing again is a no-op)."""
        if self._state is SessionState.CLOSED:
            return
        self._drop_work()
        self._outbox.clear()
        self._set_state(SessionState.CLOSED)

    # -- turn bookkeeping ---------------------------------------------------------------------

    def _begin_turn(self) -> None:
        if self._state is SessionState.PAUSED:
            self._discard_remainder()
        self._turn_id += 1
        self._stream.new_turn(self._turn_id)
        self._flush_on_resume = False
        self._held = False
        self._set_state(SessionState.SPEAKING)

    def _drop_work(self) -> None:
        """Forget unspoken text, unheard audio and in-flight results; keep the prefix."""
        self._held = False
        self._epoch += 1
        self._in_flight = None
        self._stream.drop_unheard()

    def _discard_remainder(self) -> None:
        """An interrupted answer is obsolete: drop what was not heard, keep the prefix and turn."""
        self._drop_work()
        self._flush_on_resume = False

    # -- compute ------------------------------------------------------------------------------

    def next_deadline_s(self) -> float | None:
        """When a hold timer fires or the listener is about to run dry (clock seconds), if ever."""
        if self._state is not SessionState.SPEAKING:
            return None
        return self._stream.next_deadline_s(job_in_flight=self.job_in_flight)

    def listener_runs_dry_at_s(self) -> float | None:
        """When a real-time listener will have played all audio made so far (``TurnStream``'s)."""
        return self._stream.listener_runs_dry_at_s()

    def next_job(self) -> Job | None:
        """The next piece of model compute this session wants now, or None.

        Run it (any thread), then pass its result to ``complete()``. At most one job is out at
        a time; none is handed out while paused or further ahead than the look-ahead allows.
        """
        if self._in_flight is not None or self._state not in RUNNING:
            return None
        ctx = JobContext(
            epoch=self._epoch,
            turn_id=self._turn_id,
            voice_state=self._voice_state,
            speed=float(self._config.speed),
            reset_context=self._context_reset_pending,
        )
        over = self._stream.check_audio_budget()
        if over is not None:
            log.warning("turn %d: %s", self._turn_id, over)
            self._outbox.append(ErrorEvent(self._turn_id, over.code, str(over)))
        flushing = self._state is SessionState.FLUSHING
        job = self._stream.next_job(ctx, flushing=flushing, job_in_flight=False)
        if job is not None:
            self._in_flight = job
            self._context_reset_pending = False
        return job

    def step(self) -> bool:
        """Run the next job inline, if there is one; returns whether one ran.

        For callers without worker threads (a script, a test); the runtime never calls this.
        """
        job = self.next_job()
        if job is None:
            return False
        self.complete(job.run())
        return True

    def run_jobs(self) -> int:
        """Run inline every job the session wants now; returns how many ran."""
        ran = 0
        while self.step():
            ran += 1
        return ran

    def complete(self, result: JobResult) -> None:
        """Take a finished job's output; a result from before a discard or reset is dropped."""
        if self._in_flight is result.job:
            self._in_flight = None
        if self._state is SessionState.CLOSED or result.job.epoch != self._epoch:
            return
        if result.error is not None:
            log.warning("turn %d: %s", self._turn_id, result.error)
            self._outbox.append(ErrorEvent(self._turn_id, result.error.code, str(result.error)))
        self._stream.place(result)

    # -- output -------------------------------------------------------------------------------

    def next_output(self) -> Output | None:
        """The next frame or event, in order, or None when nothing is ready yet."""
        if self._outbox:
            return self._outbox.popleft()
        if self._state not in RUNNING or self._held:
            return None
        frame = self._stream.pop_frame()
        if frame is not None:
            return frame
        if self._state is SessionState.FLUSHING and self._stream.finished(job_in_flight=self.job_in_flight):
            tail = self._stream.pop_tail()
            if tail is not None:
                return tail
            self._set_state(SessionState.IDLE)
            return Done(self._turn_id, self._stream.timeline.emitted_samples)
        return None

    def drain(self) -> list[Output]:
        """Every frame and event ready now, in order."""
        out: list[Output] = []
        while (item := self.next_output()) is not None:
            out.append(item)
        return out


__all__ = ["RUNNING", "EngineSession", "SessionConfig", "SessionState"]
