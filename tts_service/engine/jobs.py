"""Model compute the session asks for, as values the caller runs wherever it likes.

The session never calls the model from its verbs: ``EngineSession.next_job()`` hands out a job,
the caller runs ``job.run()`` (inline, or on a worker thread: this is how the runtime keeps
model compute off the event loop), then passes the result to ``EngineSession.complete()``.
While a job is out, it owns the session's voice state; the session touches the model state
only through jobs, so a verb called meanwhile (pause, reset) never races the model.
A result whose ``epoch`` is older than the session's (the turn was discarded meanwhile) is
dropped on completion.

A turn's first unit may come in pieces (``UnitJob.streamed`` on a ``StreamingUnitBackend``): its
job runs the model as far as the unit's first piece, and one ``PieceJob`` per later piece pulls
the rest, so the first frame is out before the whole unit is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tts_service.engine.ports import (
    BatchFrameBackend,
    FrameBackend,
    FrameStep,
    StreamingUnitBackend,
    UnitAudio,
    UnitBackend,
    UnitPieces,
    VoiceState,
)
from tts_service.engine.segmenter import Boundary
from tts_service.errors import BackendError, SynthesisError


@dataclass(frozen=True, slots=True, eq=False)
class JobResult:
    """What a job produced: audio, or the error that replaced it."""

    job: Job
    unit_audio: UnitAudio | None = None
    #: the next piece of a unit that comes in pieces (``PieceJob``)
    piece: npt.NDArray[np.float32] | None = None
    frame_steps: tuple[FrameStep, ...] = ()
    error: BackendError | None = None


@dataclass(frozen=True, slots=True, eq=False)
class UnitJob:
    """Synthesize one speakable unit with a unit backend."""

    epoch: int
    turn_id: int
    backend: UnitBackend
    voice_state: VoiceState
    text: str
    boundary: Boundary
    speed: float
    seed: int | None
    reset_context: bool = False
    #: each written token of ``text`` and its count of spoken words (marks are given back to it)
    written: tuple[tuple[str, int], ...] = ()
    #: ask a ``StreamingUnitBackend`` for the first piece only (``UnitAudio.rest`` the others)
    streamed: bool = False

    def run(self) -> JobResult:
        """Run the model; never raises for model failures (they come back as ``error``)."""
        try:
            if self.reset_context:
                self.backend.reset_context(self.voice_state)
            if self.streamed and isinstance(self.backend, StreamingUnitBackend):
                audio = self.backend.synthesize_stream(
                    self.voice_state, self.text, speed=self.speed, seed=self.seed
                )
            else:
                audio = self.backend.synthesize(self.voice_state, self.text, speed=self.speed, seed=self.seed)
        except Exception as exc:
            return JobResult(self, error=_as_backend_error(exc))
        return JobResult(self, unit_audio=audio)


@dataclass(frozen=True, slots=True, eq=False)
class PieceJob:
    """Pull the next piece of a unit that comes in pieces (``UnitAudio.rest``)."""

    epoch: int
    turn_id: int
    #: the job whose unit this continues (its text, boundary and written words)
    unit: UnitJob
    pieces: UnitPieces

    def run(self) -> JobResult:
        """Run the model for one piece; never raises for model failures."""
        try:
            piece = self.pieces.next_piece()
        except Exception as exc:
            return JobResult(self, error=_as_backend_error(exc))
        return JobResult(self, piece=piece)


@dataclass(frozen=True, slots=True, eq=False)
class FrameJob:
    """Feed text to a frame backend and step it up to ``steps`` frames."""

    epoch: int
    turn_id: int
    backend: FrameBackend
    voice_state: VoiceState
    feed: tuple[str, ...]
    end_text: bool
    steps: int
    discard_first: bool = False
    reset_context: bool = False

    def run(self) -> JobResult:
        """Run the model; stops early when the model reports it has finished."""
        out: list[FrameStep] = []
        try:
            self.prepare()
            for _ in range(self.steps):
                step = self.backend.step(self.voice_state)
                out.append(step)
                if step.stops_job():
                    break
        except Exception as exc:
            return JobResult(self, frame_steps=tuple(out), error=_as_backend_error(exc))
        return JobResult(self, frame_steps=tuple(out))

    def prepare(self) -> None:
        """Everything before the steps: context reset, discard, text fed, end of text."""
        if self.reset_context:
            self.backend.reset_context(self.voice_state)
        if self.discard_first:
            self.backend.discard_text(self.voice_state)
        for text in self.feed:
            self.backend.feed_text(self.voice_state, text)
        if self.end_text:
            self.backend.end_text(self.voice_state)


def run_frame_batch(backend: BatchFrameBackend, jobs: Sequence[FrameJob]) -> list[JobResult]:
    """Run several sessions' frame jobs with one batched forward pass per step.

    Each job's own prelude runs first; then every job still stepping advances together until
    each has its ``steps`` or stops. Results are what each ``job.run()`` would return, to float
    rounding. A failure in the batched pass fails every job of that step (each gets the error).
    """
    out: dict[int, list[FrameStep]] = {id(j): [] for j in jobs}
    errors: dict[int, BackendError] = {}
    stepping: list[FrameJob] = []
    for job in jobs:
        try:
            job.prepare()
            stepping.append(job)
        except Exception as exc:
            errors[id(job)] = _as_backend_error(exc)
    k = 0
    while stepping:
        stepping = [j for j in stepping if k < j.steps]
        if not stepping:
            break
        try:
            steps = backend.step_batch([j.voice_state for j in stepping])
        except Exception as exc:
            err = _as_backend_error(exc)
            for j in stepping:
                errors[id(j)] = err
            break
        still = []
        for job, step in zip(stepping, steps, strict=True):
            out[id(job)].append(step)
            if not step.stops_job():
                still.append(job)
        stepping = still
        k += 1
    return [JobResult(j, frame_steps=tuple(out[id(j)]), error=errors.get(id(j))) for j in jobs]


def _as_backend_error(exc: Exception) -> BackendError:
    if isinstance(exc, BackendError):
        return exc
    err = SynthesisError(f"{type(exc).__name__}: {exc}")  # a model bug must not kill the session
    err.__cause__ = exc
    return err


Job = UnitJob | PieceJob | FrameJob
