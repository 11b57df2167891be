"""How a session turns speakable units into audio, one producer per kind of backend.

* ``UnitProducer`` (hibari, piper): one job per unit; each unit's audio is shaped (trimmed,
  faded, levelled, spaced), resampled whole and handed back ending on a frame edge, so all of it
  can go out before the next unit arrives. On a ``StreamingUnitBackend`` a turn's first unit
  comes in pieces: its job makes the first piece, which is shaped and handed back at once (the
  first frame), and a ``PieceJob`` per later piece follows straight away (the unit is committed,
  like a whole one), the last one ending the unit on a frame edge.
* ``FrameProducer`` (autoregressive models): text is fed to the live model as units arrive and
  the model is stepped at most ``lookahead_frames`` ahead of the listener; audio is resampled
  as a stream and handed back step by step.

Both follow one ``Producer`` protocol: the session decides *when* to ask (its state machine),
a producer knows *what* job to hand out and turns the job's result into ``AudioChunk`` s, which
the session places on its timeline. Producers never run the model and never see the timeline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tts_service.engine.conditioner import JoinPolicy, ShapedUnit, UnitConditioner
from tts_service.engine.jobs import FrameJob, Job, JobResult, PieceJob, UnitJob
from tts_service.engine.ports import (
    Backend,
    FrameBackend,
    StreamingUnitBackend,
    UnitBackend,
    UnitPieces,
    VoiceState,
)
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


@dataclass(slots=True)
class _Pieces:
    """A unit that comes in pieces, while its pieces are pulled."""

    job: UnitJob
    pieces: UnitPieces
    #: its audio has started on the timeline (its pause and words are placed)
    started: bool = False
    #: the pause placed before it, and the output samples of it placed so far
    lead: int = 0
    placed: int = 0


class UnitProducer:
    """Units in, shaped whole-unit audio out (a turn's first unit in pieces, where it can)."""

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
        self._streams = isinstance(backend, StreamingUnitBackend)
        self._open: _Pieces | None = None

    @property
    def held_chars(self) -> int:
        return sum(len(u.text) for u in self._units)

    def add(self, unit: Unit) -> None:
        self._units.append(unit)

    def new_turn(self) -> None:
        self._conditioner.new_turn()
        self._units.clear()
        self._last_pad = 0
        self._close_pieces()

    def discard(self) -> None:
        """Drop queued units; the next unit follows the cut with no pause but the turn's level."""
        self._units.clear()
        self._conditioner.restart_joins()
        self._last_pad = 0
        self._close_pieces()

    def _close_pieces(self) -> None:
        """Forget a unit still coming in pieces (its later pieces are never pulled)."""
        if self._open is not None:
            self._open = None
            self._resampler.reset()

    def restart_context(self) -> None:
        """After reset, the same text gives the same samples again."""
        self._synthesized = 0

    def finished(self) -> bool:
        return not self._units and self._open is None

    def next_job(self, ctx: JobContext, *, pending_samples: int, flushing: bool) -> UnitJob | PieceJob | None:
        if self._open is not None:  # the rest of a unit already begun: no waiting for the listener
            return PieceJob(
                epoch=ctx.epoch, turn_id=ctx.turn_id, unit=self._open.job, pieces=self._open.pieces
            )
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
            streamed=self._streams and self._conditioner.at_turn_start,
        )

    def complete(self, result: JobResult) -> list[AudioChunk]:
        job = result.job
        if isinstance(job, PieceJob):
            return self._complete_piece(job, result)
        if result.unit_audio is None or not isinstance(job, UnitJob):
            return []
        rest = result.unit_audio.rest
        if rest is not None and not rest.done:
            self._open = _Pieces(job, rest)
            return self._place_piece(self._conditioner.open(result.unit_audio, job.boundary), last=False)
        shaped = self._conditioner.shape(result.unit_audio, job.boundary)
        if len(shaped.samples) == 0:
            return []
        lead, words = self._placed(shaped, shaped.words or estimate_words(job.text, len(shaped.samples)), job)
        audio = self._resampler.finish(shaped.samples)
        # Units end on a frame edge (every unit before this one did, so the turn's audio starts
        # this unit on one) so all of a unit's audio can go out before the next arrives; the
        # padding counts toward the pause before the next unit.
        self._last_pad = (-(lead + len(audio))) % self._frame_len
        return [AudioChunk(audio, words, lead_silence=lead, tail_silence=self._last_pad, unit=True)]

    def _placed(
        self, shaped: ShapedUnit, spoken: Sequence[WordMark], job: UnitJob
    ) -> tuple[int, tuple[WordMark, ...]]:
        """A unit's pause before it and its words on the written tokens, at the output rate."""
        rs = self._resampler
        lead = max(0, rs.to_output_position(shaped.lead_silence) - self._last_pad)
        words = tuple(
            WordMark(w.word, rs.to_output_position(w.start_sample), rs.to_output_position(w.end_sample))
            for w in to_written(spoken, job.written)
        )
        return lead, words

    def _complete_piece(self, job: PieceJob, result: JobResult) -> list[AudioChunk]:
        """A later piece of the open unit; on an error the unit ends where its audio got to."""
        opened = self._open
        if opened is None or job.pieces is not opened.pieces:
            return []
        if result.piece is None:  # the model failed (the session reports it): end the unit here
            self._open = None
            self._conditioner.abandon()
            self._resampler.reset()
            self._last_pad = (-(opened.lead + opened.placed)) % self._frame_len
            return (
                [AudioChunk(np.zeros(0, np.float32), tail_silence=self._last_pad)] if opened.started else []
            )
        last = opened.pieces.done
        return self._place_piece(self._conditioner.more(result.piece, last=last), last=last)

    def _place_piece(self, shaped: ShapedUnit | None, *, last: bool) -> list[AudioChunk]:
        """The audio of one piece of the open unit, resampled as a stream."""
        opened = self._open
        if last:
            self._open = None
        assert opened is not None
        rs = self._resampler
        if shaped is None:
            return []
        if last and not opened.started and len(shaped.samples) == 0:  # no speech in the whole unit
            rs.reset()
            return []
        audio = rs.finish(shaped.samples) if last else rs.process(shaped.samples)
        first = not opened.started
        opened.started = True
        words: tuple[WordMark, ...] = ()
        lead = 0
        if first:  # a streaming backend gives the unit's words with its first piece
            lead, words = self._placed(shaped, shaped.words, opened.job)
            opened.lead = lead
        opened.placed += len(audio)
        tail = 0
        if last:
            tail = self._last_pad = (-(opened.lead + opened.placed)) % self._frame_len
        return [
            AudioChunk(
                audio, words, lead_silence=lead, tail_silence=tail, unit=True, continues_unit=not first
            )
        ]


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
