"""How a session turns speakable units into audio, one producer per kind of backend.

* ``UnitProducer`` (hibari): one job per unit; each unit's audio is shaped (trimmed, faded,
  levelled, spaced), resampled whole and handed back ending on a frame edge, so all of it can go
  out before the next unit arrives.
* ``FrameProducer`` (autoregressive models): text is fed to the live model as units arrive and
  the model is stepped at most ``lookahead_frames`` ahead of the listener; audio is resampled
  as a stream and handed back step by step.

Both follow one ``Producer`` protocol: the session decides *when* to ask (its state machine),
a producer knows *what* job to hand out and turns the job's result into ``AudioChunk`` s, which
the session places on its timeline. Producers never run the model and never see the timeline.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tts_service.engine.conditioner import JoinPolicy, UnitConditioner
from tts_service.engine.jobs import FrameJob, Job, JobResult, UnitJob
from tts_service.engine.ports import Backend, FrameBackend, UnitBackend, VoiceState
from tts_service.engine.reading.marks import WrittenMarks, to_written
from tts_service.engine.resample import StreamResampler
from tts_service.engine.segmenter import Unit
from tts_service.engine.timeline import AudioChunk
from tts_service.engine.types import WordMark, frame_samples


@dataclass(frozen=True, slots=True)
class JobContext:
    """What every job carries from the session."""

    epoch: int
    turn_id: int
    voice_state: VoiceState
    speed: float
    reset_context: bool


class Producer(Protocol):
    """What the session asks of a producer, whatever the backend."""

    @property
    def held_chars(self) -> int:
        """Text accepted and not yet handed to the model."""

    def add(self, unit: Unit) -> None:
        """A speakable unit of the running turn."""

    def new_turn(self) -> None:
        """A new turn begins: forget the last one's units and joins."""

    def discard(self) -> None:
        """The rest of the turn is dropped (a barge-in): forget queued text, restart the audio."""

    def restart_context(self) -> None:
        """The conversation prefix was dropped: the same text gives the same audio again."""

    def finished(self) -> bool:
        """True once everything added has been handed back (given the turn was flushed)."""

    def next_job(self, ctx: JobContext, *, pending_samples: int, flushing: bool) -> Job | None:
        """The next piece of compute, given how much audio waits unheard; None when none is due."""

    def complete(self, result: JobResult) -> list[AudioChunk]:
        """The audio of a finished job, in order, for the session to place."""


def make_producer(
    backend: Backend,
    out_rate: int,
    *,
    refill_below_ms: int,
    lookahead_frames: int,
    seed: int | None,
    join_policy: JoinPolicy | None = None,
) -> Producer:
    """The producer for ``backend``'s shape (frame-native or unit), at the session's output rate."""
    if backend.capabilities.frame_native:
        assert isinstance(backend, FrameBackend)
        return FrameProducer(backend, out_rate, lookahead_frames=lookahead_frames)
    assert isinstance(backend, UnitBackend)
    return UnitProducer(
        backend, out_rate, refill_below_ms=refill_below_ms, seed=seed, join_policy=join_policy
    )


def estimate_words(text: str, num_samples: int) -> list[WordMark]:
    """Word spans for backends without word times: proportional to word length."""
    words = text.split()
    if not words:
        return []
    weights = np.array([len(w) + 1 for w in words], dtype=np.float64)
    edges = np.concatenate([[0.0], np.cumsum(weights)]) / weights.sum() * num_samples
    return [WordMark(w, int(edges[i]), int(edges[i + 1])) for i, w in enumerate(words)]


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
        self._frame_len = frame_samples(out_rate)
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

    def discard(self) -> None:
        """Drop queued units; the next unit follows the cut with no pause but the turn's level."""
        self._units.clear()
        self._conditioner.restart_joins()
        self._last_pad = 0

    def restart_context(self) -> None:
        """After reset, the same text gives the same samples again."""
        self._synthesized = 0

    def finished(self) -> bool:
        return not self._units

    def next_job(self, ctx: JobContext, *, pending_samples: int, flushing: bool) -> UnitJob | None:
        if not self._units or pending_samples >= self._refill:
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
            written=unit.written,
        )

    def complete(self, result: JobResult) -> list[AudioChunk]:
        job = result.job
        if result.unit_audio is None or not isinstance(job, UnitJob):
            return []
        shaped = self._conditioner.shape(result.unit_audio, job.boundary)
        if len(shaped.samples) == 0:
            return []
        rs = self._resampler
        lead = max(0, rs.to_output_position(shaped.lead_silence) - self._last_pad)
        audio = rs.finish(shaped.samples)
        spoken = shaped.words or estimate_words(job.text, len(shaped.samples))
        words = tuple(
            WordMark(w.word, rs.to_output_position(w.start_sample), rs.to_output_position(w.end_sample))
            for w in to_written(spoken, job.written)
        )
        # Units end on a frame edge (every unit before this one did, so the turn's audio starts
        # this unit on one) so all of a unit's audio can go out before the next arrives; the
        # padding counts toward the pause before the next unit.
        self._last_pad = (-(lead + len(audio))) % self._frame_len
        return [AudioChunk(audio, words, lead_silence=lead, tail_silence=self._last_pad, unit=True)]


class FrameProducer:
    """Text fed to a live autoregressive model, stepped a few frames ahead of the listener."""

    def __init__(self, backend: FrameBackend, out_rate: int, *, lookahead_frames: int) -> None:
        self._backend = backend
        self._lookahead = lookahead_frames
        self._frame_len = frame_samples(out_rate)
        self._resampler = StreamResampler(backend.capabilities.sample_rate, out_rate)
        self._feed: list[str] = []
        self._discard_first = False
        self._waiting = False  # the model said it has nothing to say until it gets text
        self._model_done = False
        self._end_sent = False
        self._in_total = 0  # model-rate samples since the resampler stream began
        self._out_total = 0  # output samples handed back since then
        self._written = WrittenMarks()  # the model marks spoken words; listeners get written ones

    @property
    def held_chars(self) -> int:
        return sum(len(t) for t in self._feed)

    def add(self, unit: Unit) -> None:
        self._feed.append(unit.text)
        self._written.add(unit.written or ((w, 1) for w in unit.text.split()))
        self._waiting = False

    def new_turn(self) -> None:
        self._feed.clear()
        self._written.clear()
        self._restart_stream()

    def discard(self) -> None:
        """Forget fed text (the model is told on its next job) and restart the audio stream."""
        self._feed.clear()
        self._written.clear()
        self._discard_first = True
        self._restart_stream()

    def restart_context(self) -> None:
        """Nothing to do here: the next job carries the reset to the model's own state."""

    def _restart_stream(self) -> None:
        self._resampler.reset()
        self._waiting = self._model_done = self._end_sent = False
        self._in_total = self._out_total = 0

    def finished(self) -> bool:
        return self._model_done or (self._end_sent and self._waiting)

    def next_job(self, ctx: JobContext, *, pending_samples: int, flushing: bool) -> FrameJob | None:
        if self._model_done:
            return None
        steps = self._lookahead - pending_samples // self._frame_len
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

    def complete(self, result: JobResult) -> list[AudioChunk]:
        rs = self._resampler
        chunks: list[AudioChunk] = []
        for step in result.frame_steps:
            base = self._in_total
            self._in_total += len(step.audio)
            out = rs.process(step.audio)
            # Marks map by input position (soxr keeps positions linear and only holds back a
            # filter tail), counted from this chunk's first output sample.
            marks = tuple(
                WordMark(
                    w.word,
                    rs.to_output_position(base + w.start_sample) - self._out_total,
                    rs.to_output_position(base + w.end_sample) - self._out_total,
                )
                for w in self._written.relabel(step.words)
            )
            chunks.append(AudioChunk(out, marks))
            self._out_total += len(out)
            if len(step.audio) == 0 and not step.finished:
                self._waiting = True
            if step.finished:
                self._model_done = True
                tail = rs.finish()
                chunks.append(AudioChunk(tail))
                self._out_total += len(tail)
        if result.error is not None:
            self._waiting = True
        return chunks


__all__ = [
    "FrameProducer",
    "JobContext",
    "Producer",
    "UnitProducer",
    "estimate_words",
    "make_producer",
]
