"""The engine session: the verbs of a voice call over one warm model, as a sans-I/O state machine.

    session = EngineSession(backend, SessionConfig(sample_rate=8000))
    session.start("Hello")          # verbs are cheap: they never run the model
    session.inject(" there, how")   # LLM tokens, as they arrive
    session.run_jobs()               # model compute: inline here, on a worker in the runtime
    for out in session.drain():      # Frames (exactly 80 ms) and events, in order
        ...

Verbs and states (``SessionState``)::

    verb      IDLE            SPEAKING         FLUSHING         PAUSED                    CLOSED
    start     -> SPEAKING     InvalidState     InvalidState     discard rest -> SPEAKING  SessionClosed
    inject    new turn        append           InvalidState     discard rest -> SPEAKING  SessionClosed
    flush     no-op           -> FLUSHING      no-op            flush after resume        SessionClosed
    pause     no-op           -> PAUSED        -> PAUSED        no-op                     SessionClosed
    resume    no-op           no-op            no-op            -> SPEAKING/FLUSHING      SessionClosed
    reset     -> IDLE         -> IDLE          -> IDLE          -> IDLE                   SessionClosed
    close     -> CLOSED       -> CLOSED        -> CLOSED        -> CLOSED                 no-op

A FLUSHING turn returns to IDLE by itself once its last frame is handed out (``Done``).
``start`` and ``inject`` keep the conversation prefix; only ``reset`` drops it.

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
from tts_service.engine.ports import Backend, FrameBackend, UnitBackend, VoiceState
from tts_service.engine.producers import FrameProducer, JobContext, UnitProducer
from tts_service.engine.segmenter import Segmenter
from tts_service.engine.spoken import to_spoken_form
from tts_service.engine.textclean import clean_for_speech, has_speakable, sanitize
from tts_service.engine.timeline import Timeline
from tts_service.engine.types import (
    Done,
    ErrorEvent,
    Output,
    Paused,
    Reset,
    Resumed,
    SampleFormat,
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
        self._state = SessionState.IDLE
        self._resume_to = SessionState.SPEAKING
        self._flush_on_resume = False
        self._turn_id = 0
        self._timeline = Timeline(0, config.sample_rate, config.sample_format, fade_ms=config.pause_fade_ms)
        self._outbox: deque[Output] = deque()
        self._epoch = 0
        self._in_flight: Job | None = None
        self._context_reset_pending = False
        self._in_code_block = False
        # the listener's clock: (clock time, listener sample) when playback (re)started
        self._listen_anchor: tuple[float, int] | None = None

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

    def _new_producer(self) -> UnitProducer | FrameProducer:
        c = self._config
        if self._caps.frame_native:
            assert isinstance(self._backend, FrameBackend)
            return FrameProducer(self._backend, c.sample_rate, lookahead_frames=c.lookahead_frames)
        assert isinstance(self._backend, UnitBackend)
        return UnitProducer(
            self._backend,
            c.sample_rate,
            refill_below_ms=c.refill_below_ms,
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
    ) -> None:
        """Change settings between turns (state IDLE); all are checked before any is applied."""
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

    # -- verbs --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._state is SessionState.CLOSED:
            raise SessionClosedError("the session is closed")

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

    def start(self, text: str = "") -> None:
        """Begin a new turn with ``text`` (may be empty); speaks as soon as a unit is ready.

        From PAUSED, the paused remainder is discarded first. Raises InvalidStateError while a
        turn is running: ``pause()`` it, or wait for ``Done``.
        """
        self._check_open()
        if self._state in (SessionState.SPEAKING, SessionState.FLUSHING):
            raise InvalidStateError("a turn is already running: pause() it or wait for done before start()")
        clean = self._prepare_text(text, appending=False)
        self._begin_turn()
        self._feed_text(clean)

    def inject(self, text: str) -> None:
        """Append LLM text (any token split) to the running turn; never restarts it.

        In IDLE this begins a new turn (the prefix is kept); in PAUSED the paused remainder is
        discarded and the turn continues with ``text``. Raises InvalidStateError after flush().
        """
        self._check_open()
        if self._state is SessionState.FLUSHING:
            raise InvalidStateError("the turn was flushed: wait for done, or pause() before injecting")
        appending = self._state is SessionState.SPEAKING
        clean = self._prepare_text(text, appending=appending)
        if self._state is SessionState.IDLE:
            self._begin_turn()
        elif self._state is SessionState.PAUSED:
            self._discard_remainder()
            self._set_state(SessionState.SPEAKING)
        self._feed_text(clean)

    def flush(self) -> None:
        """The answer is complete: speak what is held back, then emit ``Done``."""
        self._check_open()
        if self._state is SessionState.SPEAKING:
            self._segmenter.flush()
            self._take_units()
            self._set_state(SessionState.FLUSHING)
        elif self._state is SessionState.PAUSED:
            self._segmenter.flush()
            self._take_units()
            self._flush_on_resume = True

    def pause(self) -> None:
        """Barge-in: at most one more frame (a short fade), then nothing until resume.

        Emits the fade frame (if audio was pending) and ``Paused`` with the words heard.
        """
        self._check_open()
        if self._state not in (SessionState.SPEAKING, SessionState.FLUSHING):
            return
        self._resume_to = self._state
        self._listen_anchor = None
        fade = self._timeline.pop_fade_frame() if self._config.pause_fade_frame else None
        if fade is not None:
            self._outbox.append(fade)
        self._outbox.append(
            Paused(
                turn_id=self._turn_id,
                spoken=self._timeline.spoken_text,
                num_samples=self._timeline.emitted_samples,
                words=self._timeline.spoken_words,
            )
        )
        self._set_state(SessionState.PAUSED)

    def resume(self) -> None:
        """A false barge-in: continue the paused remainder from the next frame."""
        self._check_open()
        if self._state is not SessionState.PAUSED:
            return
        self._timeline.fade_in_remainder()
        target = SessionState.FLUSHING if self._flush_on_resume else self._resume_to
        self._flush_on_resume = False
        self._outbox.append(Resumed(self._turn_id))
        self._set_state(target)

    def reset(self) -> None:
        """The bot's turn is over: drop the prefix and anything unspoken; model and voice stay warm."""
        self._check_open()
        self._drop_work()
        self._context_reset_pending = True
        if isinstance(self._producer, UnitProducer):
            self._producer.restart_seeds()
        self._flush_on_resume = False
        self._outbox.append(Reset(self._turn_id))
        self._set_state(SessionState.IDLE)

    def close(self) -> None:
        """Release everything; every later verb raises SessionClosedError."""
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
        self._producer.new_turn()
        self._flush_on_resume = False
        self._in_code_block = False
        self._listen_anchor = None
        self._set_state(SessionState.SPEAKING)

    def _drop_work(self) -> None:
        """Forget unspoken text, unheard audio and in-flight results; keep the prefix."""
        self._epoch += 1
        self._in_flight = None
        self._segmenter.reset()
        self._in_code_block = False
        self._listen_anchor = None
        self._timeline.discard_pending()
        self._producer.discard(self._timeline)

    def _discard_remainder(self) -> None:
        """An interrupted answer is obsolete: drop what was not heard, keep the prefix and turn."""
        self._drop_work()
        self._flush_on_resume = False

    def _feed_text(self, text: str) -> None:
        if text:
            self._segmenter.feed(text, self._clock())
            self._take_units()

    def _take_units(self) -> None:
        for unit in self._segmenter.units_ready():
            # Units arrive a line at a time, so a fenced code block is tracked here, across units:
            # code is shown to readers, never read to callers.
            if unit.text.lstrip().startswith(("```", "~~~")):
                self._in_code_block = not self._in_code_block
                continue
            if self._in_code_block:
                continue
            spoken = clean_for_speech(unit.text, keep_speaker_tags=self._caps.speaker_tags)
            if not has_speakable(spoken):
                continue
            if not self._caps.own_normalizer:
                spoken = to_spoken_form(spoken)
            self._producer.add(replace(unit, text=spoken))

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
        if self._listen_anchor is None:
            return None
        anchor_s, anchor_sample = self._listen_anchor
        made = self._timeline.emitted_samples + self._timeline.pending_samples
        return anchor_s + (made - anchor_sample) / self.sample_rate

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
        if self._in_flight is not None or self._state not in (SessionState.SPEAKING, SessionState.FLUSHING):
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
        job = self._producer.next_job(ctx, self._timeline, flushing=self._state is SessionState.FLUSHING)
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
        self._producer.complete(result, self._timeline)

    # -- output -------------------------------------------------------------------------------

    def _turn_complete(self) -> bool:
        if self._in_flight is not None or self._segmenter.buffered_chars:
            return False
        return self._producer.finished()

    def next_output(self) -> Output | None:
        """The next frame or event, in order, or None when nothing is ready yet."""
        if self._outbox:
            return self._outbox.popleft()
        if self._state not in (SessionState.SPEAKING, SessionState.FLUSHING):
            return None
        frame = self._timeline.pop_frame()
        if frame is not None:
            self._track_listener(frame.sample_offset)
            return frame
        if self._state is SessionState.FLUSHING and self._turn_complete():
            tail = self._timeline.pop_frame(allow_partial=True)
            if tail is not None:
                return tail
            self._set_state(SessionState.IDLE)
            return Done(self._turn_id, self._timeline.emitted_samples)
        return None

    def _track_listener(self, sample_offset: int) -> None:
        """Re-anchor the listener's clock when this frame (re)starts playback."""
        now = self._clock()
        if self._listen_anchor is not None:
            anchor_s, anchor_sample = self._listen_anchor
            if now <= anchor_s + (sample_offset - anchor_sample) / self.sample_rate:
                return  # still playing earlier audio: this frame queues behind it
        self._listen_anchor = (now, sample_offset)

    def drain(self) -> list[Output]:
        """Every frame and event ready now, in order."""
        out: list[Output] = []
        while (item := self.next_output()) is not None:
            out.append(item)
        return out
