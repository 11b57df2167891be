"""The parts a turn's text flows through, in order: segmenter, speakable stage, producer, timeline.

    stream = TurnStream(backend, config, clock=clock)
    stream.new_turn(turn_id=1)
    stream.feed("Hello there, ")            # units are cut and queued for the model
    job = stream.next_job(ctx, flushing=False, job_in_flight=False)
    stream.place(job.run())                 # the audio lands on the turn's timeline
    frame = stream.pop_frame()              # exact 80 ms frames for the listener

The session (``session.EngineSession``) owns the state machine and decides which of these may
happen when; the stream only moves text and audio along, and keeps the listener's clock for the
frames it hands out (which sets when the listener runs dry: the jobs' deadlines and the starvation
guard), and the turn's audio budget: once a turn has made ``max_turn_audio_s`` of audio, the text
still waiting is dropped (``check_audio_budget``), so work follows what is spoken, not how many
characters were sent. Not thread-safe: the session's owner drives it. Never imports asyncio, sockets, torch or
onnxruntime; never runs the model.
"""

from __future__ import annotations

from tts_service.engine.clock import Clock
from tts_service.engine.conditioner import JoinPolicy
from tts_service.engine.config import SessionConfig
from tts_service.engine.jobs import Job, JobResult
from tts_service.engine.listener import ListenerClock
from tts_service.engine.ports import Backend
from tts_service.engine.producers import JobContext, Producer, make_producer
from tts_service.engine.segmenter import Segmenter
from tts_service.engine.speakable import SpeakableStage
from tts_service.engine.textclean import sanitize
from tts_service.engine.timeline import Timeline
from tts_service.engine.types import SpeechFrame
from tts_service.errors import AudioTooLongError, InvalidInputError, TextTooLongError


class TurnStream:
    """One session's text-to-frames path; a new ``Timeline`` per turn, the other parts kept warm."""

    def __init__(
        self, backend: Backend, config: SessionConfig, *, clock: Clock, join_policy: JoinPolicy | None = None
    ) -> None:
        self._backend = backend
        self._clock = clock
        self._join_policy = join_policy
        self._config = config
        self._segmenter = Segmenter(
            first_unit_hold_s=config.first_unit_hold_s,
            tail_hold_s=config.tail_hold_s,
            max_buffer_chars=config.max_text_chars,
        )
        self._speakable = SpeakableStage(
            backend.capabilities, language=config.language, lexicon=config.lexicon
        )
        self._producer = self._new_producer()
        self._timeline = self._new_timeline(0)
        #: the real-time listener of the frames handed out (when it runs dry sets the deadlines)
        self._listener = ListenerClock()
        #: the turn made max_turn_audio_s of audio: its text is dropped from then on
        self._audio_spent = False

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

    def _new_timeline(self, turn_id: int) -> Timeline:
        c = self._config
        return Timeline(turn_id, c.sample_rate, c.sample_format, fade_ms=c.pause_fade_ms)

    # -- reading ------------------------------------------------------------------------------

    @property
    def timeline(self) -> Timeline:
        """The current turn's timeline."""
        return self._timeline

    @property
    def held_chars(self) -> int:
        """Text accepted and not yet handed to the model (the bounded text buffer)."""
        return self._segmenter.buffered_chars + self._producer.held_chars

    def finished(self, *, job_in_flight: bool) -> bool:
        """Every piece of text given (and flushed) has become audio on the timeline."""
        if job_in_flight or self._segmenter.buffered_chars:
            return False
        return self._producer.finished()

    # -- the turn -----------------------------------------------------------------------------

    def reconfigure(self, config: SessionConfig) -> None:
        """New settings from the next turn on (a new rate or speed needs a new producer)."""
        self._config = config
        self._producer = self._new_producer()
        self._speakable.set_reading(language=config.language, lexicon=config.lexicon)

    def new_turn(self, turn_id: int) -> None:
        """A fresh timeline and empty stages; the listener starts over."""
        self._timeline = self._new_timeline(turn_id)
        self._segmenter.reset()
        self._speakable.reset()
        self._producer.new_turn()
        self._listener.restart()
        self._audio_spent = False

    def drop_unheard(self) -> None:
        """Forget text not yet spoken and audio not yet handed out (the turn's timeline stays)."""
        self._segmenter.reset()
        self._speakable.reset()
        self._listener.restart()
        self._timeline.discard_pending()
        self._producer.discard()

    def restart_context(self) -> None:
        """The conversation prefix was dropped (the model is told on the next job)."""
        self._producer.restart_context()

    # -- text in ------------------------------------------------------------------------------

    def accept(self, text: str, *, appending: bool) -> str:
        """``text`` as the turn takes it (sanitized), if the bounded text buffer has room for it.

        Raises InvalidInputError for a non-str and TextTooLongError past ``max_text_chars``
        (``appending``: counting what the turn already holds).
        """
        if not isinstance(text, str):
            raise InvalidInputError(f"text must be a str, not {type(text).__name__}")
        clean = sanitize(text)
        held = self.held_chars if appending else 0
        limit = self._config.max_text_chars
        if held + len(clean) > limit:
            raise TextTooLongError(
                f"{held + len(clean)} characters would be waiting to be spoken; the limit is {limit} "
                "(inject text as it is generated, or raise max_text_chars)"
            )
        return clean

    def feed(self, text: str) -> None:
        """Append text to the turn (sanitized already); units it completes are queued for the model.

        Text for a turn that has spent its audio budget is dropped.
        """
        if text and not self._audio_spent:
            self._segmenter.feed(text, self._clock())
            self._take_units()

    def check_audio_budget(self) -> AudioTooLongError | None:
        """Once the turn has made ``max_turn_audio_s`` of audio with text still to speak: drop that
        text (and any fed later in the turn) and return the error to report, once per turn.

        Checked before each job, so no model runs for a turn past its budget; the audio already
        made still plays. Each unit's audio is bounded (the segmenter bounds a unit), so a turn
        overshoots the budget by at most one unit.
        """
        limit = self._config.max_turn_audio_s
        made_s = self._timeline.content_end / self._config.sample_rate
        if self._audio_spent or made_s < limit or self.finished(job_in_flight=False):
            return None
        self._audio_spent = True
        self._segmenter.reset()
        self._speakable.reset()
        self._producer.discard()
        return AudioTooLongError(
            f"the turn has made {made_s:.0f} s of audio, the most one turn may make is {limit:g} s "
            "(max_turn_audio_s): the rest of its text is not spoken"
        )

    def flush_text(self) -> None:
        """The text is complete: the held-back tail becomes units too."""
        self._segmenter.flush()
        self._take_units()

    def _take_units(self) -> None:
        for unit in self._speakable.take(self._segmenter.units_ready()):
            self._producer.add(unit)

    # -- compute ------------------------------------------------------------------------------

    def listener_runs_dry_at_s(self) -> float | None:
        """When a real-time listener will have played all audio made so far (clock seconds).

        The listener is assumed to play in real time from the frame that (re)started playback;
        that is what the audio is for, whether or not the caller pulls frames ahead. None before
        the turn's first frame (and after a pause) until playback restarts.
        """
        play_end = self._listener.play_end_s
        if play_end is None:
            return None
        return play_end + self._timeline.pending_samples / self._config.sample_rate

    def starvation_due_s(self, *, job_in_flight: bool) -> float | None:
        """When to speak the held complete words so the listener does not run dry, if that helps."""
        dry = self.listener_runs_dry_at_s()
        if dry is None or job_in_flight or self._producer.held_chars or not self._segmenter.complete_words:
            return None
        return dry - self._config.starve_guard_ms / 1000

    def next_deadline_s(self, *, job_in_flight: bool) -> float | None:
        """When a hold timer fires or the listener is about to run dry (clock seconds), if ever."""
        held = self._segmenter.next_deadline_s()
        starve = self.starvation_due_s(job_in_flight=job_in_flight)
        if held is None or starve is None:
            return held if starve is None else starve
        return min(held, starve)

    def next_job(self, ctx: JobContext, *, flushing: bool, job_in_flight: bool) -> Job | None:
        """The producer's next job, after the hold timers and the starvation guard had their say."""
        if not flushing:
            now = self._clock()
            self._segmenter.poll(now)
            due = self.starvation_due_s(job_in_flight=job_in_flight)
            if due is not None and now >= due:
                self._segmenter.cut_words()
            self._take_units()
        return self._producer.next_job(ctx, pending_samples=self._timeline.pending_samples, flushing=flushing)

    def place(self, result: JobResult) -> None:
        """A job's audio, placed at the end of the turn's timeline."""
        for chunk in self._producer.complete(result):
            self._timeline.place(chunk)

    # -- frames out ---------------------------------------------------------------------------

    def pop_frame(self) -> SpeechFrame | None:
        """The next whole frame; the listener plays it after what it holds, or from now if it ran dry."""
        frame = self._timeline.pop_frame()
        if frame is not None:
            self._listener.sent(self._clock(), frame.num_samples / self._config.sample_rate)
        return frame

    def pop_tail(self) -> SpeechFrame | None:
        """The turn's last, partial frame padded with silence (only once the turn is finished)."""
        return self._timeline.pop_frame(allow_partial=True)

    def pause(self, *, fade_frame: bool) -> SpeechFrame | None:
        """Output stops here: the listener stops, and (``fade_frame``) the faded frame that ends the
        audio, None when nothing is pending or no fade frame is wanted."""
        self._listener.restart()
        return self._timeline.pop_fade_frame() if fade_frame else None

    def fade_in_remainder(self) -> None:
        """The paused remainder restarts mid-speech: fade it in."""
        self._timeline.fade_in_remainder()


__all__ = ["TurnStream"]
