"""Model compute the session asks for, as values the caller runs wherever it likes.

The session never calls the model from its verbs: ``EngineSession.next_job()`` hands out a job,
the caller runs ``job.run()`` (inline, or on a worker thread: this is how the runtime keeps
model compute off the event loop), then passes the result to ``EngineSession.complete()``.
While a job is out, it owns the session's voice state; the session touches the model state
only through jobs, so a verb called meanwhile (pause, reset) never races the model.
A result whose ``epoch`` is older than the session's (the turn was discarded meanwhile) is
dropped on completion.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backends.base import FrameBackend, FrameStep, UnitAudio, UnitBackend, VoiceState
from ..errors import BackendError, SynthesisError
from .segmenter import Boundary


@dataclass(frozen=True, slots=True, eq=False)
class JobResult:
    """What a job produced: audio, or the error that replaced it."""

    job: Job
    unit_audio: UnitAudio | None = None
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

    def run(self) -> JobResult:
        """Run the model; never raises for model failures (they come back as ``error``)."""
        try:
            if self.reset_context:
                self.backend.reset_context(self.voice_state)
            audio = self.backend.synthesize(self.voice_state, self.text, speed=self.speed, seed=self.seed)
        except BackendError as exc:
            return JobResult(self, error=exc)
        except Exception as exc:  # a model bug must not kill the session: report it
            err = SynthesisError(f"{type(exc).__name__}: {exc}")
            err.__cause__ = exc
            return JobResult(self, error=err)
        return JobResult(self, unit_audio=audio)


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
            if self.reset_context:
                self.backend.reset_context(self.voice_state)
            if self.discard_first:
                self.backend.discard_text(self.voice_state)
            for text in self.feed:
                self.backend.feed_text(self.voice_state, text)
            if self.end_text:
                self.backend.end_text(self.voice_state)
            for _ in range(self.steps):
                step = self.backend.step(self.voice_state)
                out.append(step)
                if step.finished or len(step.audio) == 0:
                    break
        except BackendError as exc:
            return JobResult(self, frame_steps=tuple(out), error=exc)
        except Exception as exc:
            err = SynthesisError(f"{type(exc).__name__}: {exc}")
            err.__cause__ = exc
            return JobResult(self, frame_steps=tuple(out), error=err)
        return JobResult(self, frame_steps=tuple(out))


Job = UnitJob | FrameJob
