"""The engine session: the verbs of a voice call over one warm model, as a sans-I/O state machine.

    session = EngineSession(backend, SessionConfig(sample_rate=8000))
    turn = session.start("Hello")   # verbs are cheap: they never run the model
    session.inject(" there, how")   # LLM tokens, as they arrive
    session.run_jobs()               # model compute: inline here, on a worker in the runtime
    for out in session.drain():      # SpeechFrames (exactly 80 ms) and events, in order
        ...

Verbs and states (``SessionState``); each verb returns what it did, and raises
``InvalidStateError`` where the table says so (the state is then unchanged)::

    verb      IDLE            SPEAKING         FLUSHING         PAUSED                    CLOSED
    start     -> SPEAKING     InvalidState     InvalidState     discard rest -> SPEAKING  SessionClosed
    inject    new turn        append           InvalidState     discard rest -> SPEAKING  SessionClosed
    flush     InvalidState    -> FLUSHING      InvalidState     flush after resume        SessionClosed
    pause     InvalidState    -> PAUSED        -> PAUSED        InvalidState              SessionClosed
    resume    InvalidState    InvalidState     InvalidState     -> SPEAKING/FLUSHING      SessionClosed
    reset     -> IDLE         -> IDLE          -> IDLE          -> IDLE                   SessionClosed
    close     -> CLOSED       -> CLOSED        -> CLOSED        -> CLOSED                 no-op

``start``, ``inject`` and ``flush`` return the turn id; ``pause``, ``resume`` and ``reset``
return the event they queued (``Paused``, ``Resumed``, ``Reset``), which also comes out of
``next_output`` in order with the frames. A FLUSHING turn returns to IDLE by itself once its
last frame is handed out (``Done``). ``start`` and ``inject`` keep the conversation prefix; only
``reset`` drops it.

The session keeps to the state machine; the parts it drives each have one job: the segmenter
cuts tokens into units, the speakable stage (``speakable``) makes their text readable, a
producer (``producers``) turns units into jobs and job results into audio chunks, the timeline
frames the audio, and the listener clock (``listener``) says when the listener runs dry.

After calling a verb you must call ``next_job()`` / ``complete()`` until no job is left, and
``next_output()`` or ``drain()`` to collect frames and events; ``next_deadline_s()`` says when
a hold timer next needs ``next_job()`` called even if nothing else happened.

Never imports asyncio, sockets, torch or onnxruntime; never runs the model inside a verb.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from dataclasses import dataclass, replace

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.conditioner import JoinPolicy
from tts_service.engine.jobs import Job, JobResult
from tts_service.engine.listener import ListenerClock
from tts_service.engine.ports import Backend, VoiceState
from tts_service.engine.producers import JobContext, Producer, make_producer
from tts_service.engine.segmenter import Segmenter
from tts_service.engine.speakable import SpeakableStage
from tts_service.engine.textclean import sanitize
from tts_service.engine.timeline import Timeline
from tts_service.engine.types import (
    Done,
    ErrorEvent,
    Output,
    Paused,
    Reset,
    Resumed,
    SampleFormat,
    SpeechFrame,
    check_sample_rate,
)
from tts_service.errors import (
    InvalidInputError,
    InvalidSpeedError,
    InvalidStateError,
    SessionClosedError,
    TextTooLongError,
)

log = logging.getLogger("warmline.engine")


class SessionState(enum.Enum):
    """Where a session is in its call."""

    IDLE = "idle"
    SPEAKING = "speaking"
    FLUSHING = "flushing"
    PAUSED = "paused"
    CLOSED = "closed"


#: the states in which a turn's audio is being made and handed out
RUNNING = (SessionState.SPEAKING, SessionState.FLUSHING)


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Per-session settings; ``voice`` None means the backend's default."""

    voice: str | None = None
    sample_rate: int = 24000
    sample_format: SampleFormat = SampleFormat.PCM16
    speed: float = 1.0
    #: fixes the model's noise so the same text gives the same samples
    seed: int | None = None
    first_unit_hold_s: float = 0.15
    tail_hold_s: float = 0.6
    #: the bounded text buffer: text accepted but not yet spoken
    max_text_chars: int = 100_000
    #: unit backends: synthesize the next unit once less than this much audio is pending
    refill_below_ms: int = 1200
    #: frame backends: step at most this many frames ahead of the listener
    lookahead_frames: int = 3
    pause_fade_ms: float = 10.0
    #: pause emits one last faded frame (True), or nothing, for transports that fade out
    #: themselves; either way ``Paused.num_samples`` counts exactly the samples handed out
    pause_fade_frame: bool = True
    #: when a real-time listener would run dry within this long and no unit is queued, speak the
    #: complete words held (a cut at a word beats a gap in the audio)
    starve_guard_ms: int = 250


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
        self._check_config(config)
        self._config = config
        voice = config.voice or backend.default_voice
        self._voice_state = (
            voice_state if voice_state is not None else backend.new_voice_state(voice, seed=config.seed)
        )
        self._join_policy = join_policy
        self._producer = self._new_producer()
        self._segmenter = self._new_segmenter()
        self._speakable = SpeakableStage(self._caps)
        self._state = SessionState.IDLE
        self._resume_to = SessionState.SPEAKING
        self._flush_on_resume = False
        self._turn_id = 0
        self._timeline = Timeline(0, config.sample_rate, config.sample_format, fade_ms=config.pause_fade_ms)
        self._outbox: deque[Output] = deque()
        self._epoch = 0
        self._in_flight: Job | None = None
        self._context_reset_pending = False
        #: the real-time listener of the frames handed out (when it runs dry sets the deadlines)
        self._listener = ListenerClock()

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
    def sample_rate(self) -> int:
        return self._config.sample_rate

    @property
    def pending_samples(self) -> int:
        """Audio made and not yet handed out, in output samples."""
        return self._timeline.pending_samples

    @property
    def held_chars(self) -> int:
        """Text accepted and not yet handed to the model (the bounded text buffer)."""
        return self._segmenter.buffered_chars + self._producer.held_chars

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
        return self._timeline

    @property
    def spoken_text(self) -> str:
        """The words of the current (or last) turn whose audio has been handed out."""
        return self._timeline.spoken_text

    def _set_state(self, new: SessionState) -> None:
        if new is not self._state:
            log.debug("session turn %d: %s -> %s", self._turn_id, self._state.value, new.value)
            self._state = new

    # -- configuration ------------------------------------------------------------------------

    def _check_config(self, config: SessionConfig) -> None:
        check_sample_rate(config.sample_rate)
        if not isinstance(config.sample_format, SampleFormat):
            raise InvalidInputError("sample_format must be a SampleFormat (use SampleFormat.parse)")
        lo, hi = self._caps.speed_range
        if not isinstance(config.speed, int | float) or not lo <= float(config.speed) <= hi:
            raise InvalidSpeedError(f"speed {config.speed!r} is outside {lo}..{hi}")
        if config.max_text_chars < 1 or config.lookahead_frames < 1:
            raise InvalidInputError("max_text_chars and lookahead_frames must be positive")

    def _new_producer(self) -> Producer:
        c = self._config
        return make_producer(
            self._backend,
            c.sample_rate,
            refill_below_ms=c.refill_below_ms,
            lookahead_frames=c.lookahead_frames,
            seed=c.seed,
            join_policy=self._join_policy,
        )

    def _new_segmenter(self) -> Segmenter:
        c = self._config
        return Segmenter(
            first_unit_hold_s=c.first_unit_hold_s,
            tail_hold_s=c.tail_hold_s,
            max_buffer_chars=c.max_text_chars,
        )

    def configure(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        sample_rate: int | None = None,
        sample_format: SampleFormat | str | None = None,
        voice_state: VoiceState | None = None,
    ) -> SessionConfig:
        """Change settings between turns (state IDLE); all are checked before any is applied.

        Returns the configuration now in force.
        """
        self._check_open()
        if self._state is not SessionState.IDLE:
            raise InvalidStateError(f"configure() needs an idle session, not {self._state.value}")
        new = self._config
        if speed is not None:
            new = replace(new, speed=speed)
        if sample_rate is not None:
            new = replace(new, sample_rate=sample_rate)
        if sample_format is not None:
            new = replace(new, sample_format=SampleFormat.parse(sample_format))
        if voice is not None:
            new = replace(new, voice=voice)
        self._check_config(new)
        if voice_state is None and voice is not None and voice != (self._config.voice or ""):
            voice_state = self._backend.new_voice_state(voice, seed=new.seed)
        if voice_state is not None:
            self._voice_state = voice_state
        self._config = new
        self._producer = self._new_producer()
        return new

    # -- verbs --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._state is SessionState.CLOSED:
            raise SessionClosedError("the session is closed")

    def _refuse(self, verb: str, why: str) -> InvalidStateError:
        return InvalidStateError(f"{verb}() in state {self._state.value}: {why}")

    def _prepare_text(self, text: str, *, appending: bool) -> str:
        if not isinstance(text, str):
            raise InvalidInputError(f"text must be a str, not {type(text).__name__}")
        clean = sanitize(text)
        held = self.held_chars if appending else 0
        if held + len(clean) > self._config.max_text_chars:
            raise TextTooLongError(
                f"{held + len(clean)} characters would be waiting to be spoken; the limit is "
                f"{self._config.max_text_chars} (inject text as it is generated, or raise max_text_chars)"
            )
        return clean

    def start(self, text: str = "") -> int:
        """Begin a new turn with ``text`` (may be empty); returns its turn id.

        Speaks as soon as a unit is ready. From PAUSED, the paused remainder is discarded first.
        Raises InvalidStateError while a turn is running: ``pause()`` it, or wait for ``Done``.
        """
        self._check_open()
        if self._state in RUNNING:
            raise self._refuse("start", "a turn is running: pause() it or wait for done")
        clean = self._prepare_text(text, appending=False)
        self._begin_turn()
        self._feed_text(clean)
        return self._turn_id

    def inject(self, text: str) -> int:
        """Append LLM text (any token split) to the running turn; returns the turn id it joined.

        Never restarts a turn. In IDLE this begins a new turn (the prefix is kept); in PAUSED the
        paused remainder is discarded and the turn continues with ``text``. Raises
        InvalidStateError after flush().
        """
        self._check_open()
        if self._state is SessionState.FLUSHING:
            raise self._refuse("inject", "the turn was flushed: wait for done, or pause() first")
        appending = self._state is SessionState.SPEAKING
        clean = self._prepare_text(text, appending=appending)
        if self._state is SessionState.IDLE:
            self._begin_turn()
        elif self._state is SessionState.PAUSED:
            self._discard_remainder()
            self._set_state(SessionState.SPEAKING)
        self._feed_text(clean)
        return self._turn_id

    def flush(self) -> int:
        """The answer is complete: speak what is held back, then emit ``Done``; returns the turn id.

        From PAUSED the turn finishes once resumed. Raises InvalidStateError with no turn to
        flush (IDLE) or one already flushed (FLUSHING).
        """
        self._check_open()
        if self._state is SessionState.SPEAKING:
            self._segmenter.flush()
            self._take_units()
            self._set_state(SessionState.FLUSHING)
        elif self._state is SessionState.PAUSED:
            self._segmenter.flush()
            self._take_units()
            self._flush_on_resume = True
        else:
            raise self._refuse("flush", "no running turn to flush")
        return self._turn_id

    def pause(self) -> Paused:
        """Barge-in: at most one more frame (a short fade), then nothing until resume.

        Queues the fade frame (if audio was pending) and returns the ``Paused`` event (also
        queued) with the words heard. Raises InvalidStateError unless a turn is running.
        """
        self._check_open()
        if self._state not in RUNNING:
            raise self._refuse("pause", "no turn is being spoken")
        self._resume_to = self._state
        self._listener.restart()
        fade = self._timeline.pop_fade_frame() if self._config.pause_fade_frame else None
        if fade is not None:
            self._outbox.append(fade)
        paused = Paused(
            turn_id=self._turn_id,
            spoken=self._timeline.spoken_text,
            num_samples=self._timeline.emitted_samples,
            words=self._timeline.spoken_words,
        )
        self._outbox.append(paused)
        self._set_state(SessionState.PAUSED)
        return paused

    def resume(self) -> Resumed:
        """A false barge-in: continue the paused remainder from the next frame.

        Returns the ``Resumed`` event (also queued). Raises InvalidStateError unless paused.
        """
        self._check_open()
        if self._state is not SessionState.PAUSED:
            raise self._refuse("resume", "only a paused turn resumes")
        self._timeline.fade_in_remainder()
        target = SessionState.FLUSHING if self._flush_on_resume else self._resume_to
        self._flush_on_resume = False
        resumed = Resumed(self._turn_id)
        self._outbox.append(resumed)
        self._set_state(target)
        return resumed

    def reset(self) -> Reset:
        """The bot's turn is over: drop the prefix and anything unspoken; model and voice stay warm.

        Returns the ``Reset`` event (also queued).
        """
        self._check_open()
        self._drop_work()
        self._context_reset_pending = True
        self._producer.restart_context()
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
        c = self._config
        self._timeline = Timeline(self._turn_id, c.sample_rate, c.sample_format, fade_ms=c.pause_fade_ms)
        self._segmenter.reset()
        self._speakable.reset()
        self._producer.new_turn()
        self._flush_on_resume = False
        self._listener.restart()
        self._set_state(SessionState.SPEAKING)

    def _drop_work(self) -> None:
        """Forget unspoken text, unheard audio and in-flight results; keep the prefix."""
        self._epoch += 1
        self._in_flight = None
        self._segmenter.reset()
        self._speakable.reset()
        self._listener.restart()
        self._timeline.discard_pending()
        self._producer.discard()

    def _discard_remainder(self) -> None:
        """An interrupted answer is obsolete: drop what was not heard, keep the prefix and turn."""
        self._drop_work()
        self._flush_on_resume = False

    def _feed_text(self, text: str) -> None:
        if text:
            self._segmenter.feed(text, self._clock())
            self._take_units()

    def _take_units(self) -> None:
        for unit in self._speakable.take(self._segmenter.units_ready()):
            self._producer.add(unit)

    # -- compute ------------------------------------------------------------------------------

    def next_deadline_s(self) -> float | None:
        """When a hold timer fires or the listener is about to run dry (clock seconds), if ever."""
        if self._state is not SessionState.SPEAKING:
            return None
        held = self._segmenter.next_deadline_s()
        starve = self._starvation_due_s()
        if held is None or starve is None:
            return held if starve is None else starve
        return min(held, starve)

    def listener_runs_dry_at_s(self) -> float | None:
        """When a real-time listener will have played all audio made so far (clock seconds).

        The listener is assumed to play in real time from the frame that (re)started playback;
        that is what the audio is for, whether or not the caller pulls frames ahead. None before
        the turn's first frame (and after a pause) until playback restarts.
        """
        play_end = self._listener.play_end_s
        if play_end is None:
            return None
        return play_end + self._timeline.pending_samples / self.sample_rate

    def _starvation_due_s(self) -> float | None:
        """When to speak the held complete words so the listener does not run dry, if that helps."""
        dry = self.listener_runs_dry_at_s()
        if (
            dry is None
            or self._in_flight is not None
            or self._producer.held_chars
            or not self._segmenter.complete_words
        ):
            return None
        return dry - self._config.starve_guard_ms / 1000

    def next_job(self) -> Job | None:
        """The next piece of model compute this session wants now, or None.

        Run it (any thread), then pass its result to ``complete()``. At most one job is out at
        a time; none is handed out while paused or further ahead than the look-ahead allows.
        """
        if self._in_flight is not None or self._state not in RUNNING:
            return None
        if self._state is SessionState.SPEAKING:
            now = self._clock()
            self._segmenter.poll(now)
            due = self._starvation_due_s()
            if due is not None and now >= due:
                self._segmenter.cut_words()
            self._take_units()
        ctx = JobContext(
            epoch=self._epoch,
            turn_id=self._turn_id,
            voice_state=self._voice_state,
            speed=float(self._config.speed),
            reset_context=self._context_reset_pending,
        )
        job = self._producer.next_job(
            ctx,
            pending_samples=self._timeline.pending_samples,
            flushing=self._state is SessionState.FLUSHING,
        )
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
        for chunk in self._producer.complete(result):
            self._timeline.place(chunk)

    # -- output -------------------------------------------------------------------------------

    def _turn_complete(self) -> bool:
        if self._in_flight is not None or self._segmenter.buffered_chars:
            return False
        return self._producer.finished()

    def next_output(self) -> Output | None:
        """The next frame or event, in order, or None when nothing is ready yet."""
        if self._outbox:
            return self._outbox.popleft()
        if self._state not in RUNNING:
            return None
        frame = self._timeline.pop_frame()
        if frame is not None:
            self._handed_out(frame)
            return frame
        if self._state is SessionState.FLUSHING and self._turn_complete():
            tail = self._timeline.pop_frame(allow_partial=True)
            if tail is not None:
                return tail
            self._set_state(SessionState.IDLE)
            return Done(self._turn_id, self._timeline.emitted_samples)
        return None

    def _handed_out(self, frame: SpeechFrame) -> None:
        """The listener gets ``frame``: it plays after what it holds, or from now if it ran dry."""
        self._listener.sent(self._clock(), frame.num_samples / self.sample_rate)

    def drain(self) -> list[Output]:
        """Every frame and event ready now, in order."""
        out: list[Output] = []
        while (item := self.next_output()) is not None:
            out.append(item)
        return out


__all__ = ["RUNNING", "EngineSession", "SessionConfig", "SessionState"]
