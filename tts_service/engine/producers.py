"""How a session turns speakable text into audio on its timeline, one per kind of backend.

* ``UnitProducer`` (hibari): one job per unit; each unit's audio is shaped (trimmed, faded,
  levelled, spaced), resampled whole and appended, ending on a frame edge so all of it can go
  out before the next unit arrives.
* ``FrameProducer`` (autoregressive models): text is fed to the live model as units arrive and
  the model is stepped at most ``lookahead_frames`` ahead of the listener; audio is resampled
  as a stream.

The session owns the state machine and decides *when* to ask; a producer knows *what* job to
hand out and how to take its result. Producers never run the model themselves.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from tts_service.engine.conditioner import JoinPolicy, UnitConditioner
from tts_service.engine.jobs import FrameJob, JobResult, UnitJob
from tts_service.engine.ports import FrameBackend, UnitBackend, VoiceState, WordTime
from tts_service.engine.resample import StreamResampler
from tts_service.engine.segmenter import Unit
from tts_service.engine.timeline import Timeline


@dataclass(frozen=True, slots=True)
class JobContext:
    """What every job carries from the session."""

    epoch: int
    turn_id: int
    voice_state: VoiceState
    speed: float
    reset_context: bool


def estimate_words(text: str, num_samples: int) -> list[WordTime]:
    """Word spans for backends without word times: proportional to word length."""
    words = text.split()
    if not words:
        return []
    weights = np.array([len(w) + 1 for w in words], dtype=np.float64)
    edges = np.concatenate([[0.0], np.cumsum(weights)]) / weights.sum() * num_samples
    return [WordTime(w, int(edges[i]), int(edges[i + 1])) for i, w in enumerate(words)]


class UnitProducer:
    """Units in, shaped whole-unit audio out."""

    def __init__(
        self,
        backend: UnitBackend,
        out_rate: int,
        *,
        refill_below_ms: int,
        seed: int | None,
        join_policy: JoinPolicy | None = None,
    ) -> None:
        self._backend = backend
        self._refill = refill_below_ms * out_rate // 1000
        self._seed = seed
        self._conditioner = UnitConditioner(backend.capabilities.sample_rate, join_policy)
        self._resampler = StreamResampler(backend.capabilities.sample_rate, out_rate)
        self._units: deque[Unit] = deque()
        self._synthesized = 0
        self._last_pad = 0

    @property
    def held_chars(self) -> int:
        return sum(len(u.text) for u in self._units)

    def add(self, unit: Unit) -> None:
        self._units.append(unit)

    def new_turn(self) -> None:
        self._conditioner.new_turn()
        self._units.clear()
        self._last_pad = 0

    def discard(self, timeline: Timeline) -> None:
        """Drop queued units; the next unit follows the cut with no pause but the turn's level."""
        self._units.clear()
        self._conditioner.restart_joins()
        self._last_pad = 0

    def restart_seeds(self) -> None:
        """After reset, the same text gives the same samples again."""
        self._synthesized = 0

    def finished(self) -> bool:
        return not self._units

    def next_job(self, ctx: JobContext, timeline: Timeline, *, flushing: bool) -> UnitJob | None:
        if not self._units or timeline.pending_samples >= self._refill:
            return None
        unit = self._units.popleft()
        seed = None if self._seed is None else self._seed + self._synthesized
        self._synthesized += 1
        return UnitJob(
            epoch=ctx.epoch,
            turn_id=ctx.turn_id,
            backend=self._backend,
            voice_state=ctx.voice_state,
            text=unit.text,
            boundary=unit.boundary,
            speed=ctx.speed,
            seed=seed,
            reset_context=ctx.reset_context,
        )

    def complete(self, result: JobResult, timeline: Timeline) -> None:
        job = result.job
        if result.unit_audio is None or not isinstance(job, UnitJob):
            return
        shaped = self._conditioner.shape(result.unit_audio, job.boundary)
        if len(shaped.samples) == 0:
            return
        rs = self._resampler
        timeline.append_silence(max(0, rs.to_output_position(shaped.lead_silence) - self._last_pad))
        audio = rs.finish(shaped.samples)
        words = [
            WordTime(w.word, rs.to_output_position(w.start_sample), rs.to_output_position(w.end_sample))
            for w in (shaped.words or estimate_words(job.text, len(shaped.samples)))
        ]
        start = timeline.content_end
        timeline.append(audio, words)
        timeline.unit_spans.append((start, timeline.content_end))
        # Units end on a frame edge so all of a unit's audio can go out before the next arrives;
        # the padding counts toward the pause before the next unit.
        self._last_pad = timeline.pad_to_frame()


class FrameProducer:
    """Text fed to a live autoregressive model, stepped a few frames ahead of the listener."""

    def __init__(self, backend: FrameBackend, out_rate: int, *, lookahead_frames: int) -> None:
        self._backend = backend
        self._lookahead = lookahead_frames
        self._resampler = StreamResampler(backend.capabilities.sample_rate, out_rate)
        self._feed: list[str] = []
        self._discard_first = False
        self._waiting = False  # the model said it has nothing to say until it gets text
        self._model_done = False
        self._end_sent = False
        self._in_total = 0  # model-rate samples since the resampler stream began
        self._origin = 0  # timeline content position where that stream began

    @property
    def held_chars(self) -> int:
        return sum(len(t) for t in self._feed)

    def add(self, unit: Unit) -> None:
        self._feed.append(unit.text)
        self._waiting = False

    def new_turn(self) -> None:
        self._feed.clear()
        self._resampler.reset()
        self._waiting = self._model_done = self._end_sent = False
        self._in_total = self._origin = 0

    def discard(self, timeline: Timeline) -> None:
        """Forget fed text (the model is told on its next job) and restart the audio stream."""
        self._feed.clear()
        self._discard_first = True
        self._resampler.reset()
        self._waiting = self._model_done = self._end_sent = False
        self._in_total = 0
        self._origin = timeline.content_end

    def finished(self) -> bool:
        return self._model_done or (self._end_sent and self._waiting)

    def next_job(self, ctx: JobContext, timeline: Timeline, *, flushing: bool) -> FrameJob | None:
        if self._model_done:
            return None
        steps = self._lookahead - timeline.pending_frames
        end_text = flushing and not self._end_sent
        if steps <= 0 or (self._waiting and not self._feed and not end_text):
            return None
        job = FrameJob(
            epoch=ctx.epoch,
            turn_id=ctx.turn_id,
            backend=self._backend,
            voice_state=ctx.voice_state,
            feed=tuple(self._feed),
            end_text=end_text,
            steps=steps,
            discard_first=self._discard_first,
            reset_context=ctx.reset_context,
        )
        self._feed.clear()
        self._discard_first = False
        self._waiting = False
        self._end_sent = self._end_sent or end_text
        return job

    def complete(self, result: JobResult, timeline: Timeline) -> None:
        rs = self._resampler
        for step in result.frame_steps:
            base = self._in_total
            self._in_total += len(step.audio)
            out = rs.process(step.audio)
            # Marks map by input position (soxr keeps positions linear and only holds back a
            # filter tail), then are rebased on the chunk being appended.
            rebase = self._origin - timeline.content_end
            marks = [
                WordTime(
                    w.word,
                    rebase + rs.to_output_position(base + w.start_sample),
                    rebase + rs.to_output_position(base + w.end_sample),
                )
                for w in step.words
            ]
            timeline.append(out, marks)
            if len(step.audio) == 0 and not step.finished:
                self._waiting = True
            if step.finished:
                self._model_done = True
                timeline.append(rs.finish())
        if result.error is not None:
            self._waiting = True
