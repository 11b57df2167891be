"""The engine's port: the small protocol every speech model implements behind it.

Two shapes of model fit it:

* a **unit synthesizer** (hibari): text of one speakable unit in, its whole audio out; one that
  can also hand out a unit's audio in pieces (Piper: its words and span are known before its
  audio is decoded) is a ``StreamingUnitBackend``, and the engine takes the first unit of a turn
  that way, so its first frame goes out before the rest of the unit is decoded;
* a **frame synthesizer** (pocket, dia2): an autoregressive model that keeps a KV cache warm,
  takes text appended to the running utterance, and is stepped one 80 ms frame at a time.

The engine owns this protocol and backends implement it (``tts_service.backends.*`` import this
module, never the other way round). The engine reads ``capabilities`` to pick the path. Backends
are the only modules that may import torch or onnxruntime; they never touch asyncio. A backend
object is the warm model and may be shared by many sessions: everything per session lives in its
``VoiceState``. Calls for one ``VoiceState`` never overlap; calls for different states may run on
different threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from tts_service.engine.types import WordMark
from tts_service.errors import InvalidSpeedError


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the engine may rely on."""

    sample_rate: int
    #: one step yields one 80 ms frame (autoregressive, KV cache kept across injects)
    frame_native: bool
    #: text can be appended to an utterance that is already being spoken
    incremental_text: bool
    #: ``WordMark`` s come with the audio
    word_times: bool
    #: frames (or tokens) the model can keep in context before it must roll over; None: no limit
    context_limit: int | None
    #: the backend reads numbers, currency and times itself (informational: the engine's reading stage
    #: gives every backend words, see docs/READING.md)
    own_normalizer: bool
    #: ``[S1]``/``[S2]`` speaker tags are meaningful to the model and must be passed through
    speaker_tags: bool
    #: the speaking rates ``speed`` may take
    speed_range: tuple[float, float] = (0.5, 2.0)
    #: phoneme symbols the model takes inline as ``[word](/phonemes/)``; empty: no phonemes
    phoneme_symbols: frozenset[str] = frozenset()

    def checked_speed(self, speed: object) -> float:
        """``speed`` as a float within ``speed_range``; else ``InvalidSpeedError`` (NaN included)."""
        lo, hi = self.speed_range
        try:
            rate = float(speed)  # type: ignore[arg-type]  # anything a client sent; float() judges it
        except (TypeError, ValueError) as exc:
            raise InvalidSpeedError(f"speed must be a number between {lo} and {hi}, got {speed!r}") from exc
        if not lo <= rate <= hi:  # NaN fails this too
            raise InvalidSpeedError(f"speed must be between {lo} and {hi}, got {speed!r}")
        return rate


class UnitPieces(Protocol):
    """The rest of a unit's audio, pulled a piece at a time (``StreamingUnitBackend``).

    One piece per call, in order, at ``Capabilities.sample_rate``, until ``done``; a call may
    raise like ``synthesize``. Calls never overlap (the engine runs one job per session at once).
    """

    @property
    def done(self) -> bool:
        """Every piece has been handed out."""

    def next_piece(self) -> npt.NDArray[np.float32]:
        """The next piece of the unit's audio (it follows the previous one sample for sample)."""


@dataclass(frozen=True, slots=True, eq=False)
class UnitAudio:
    """The audio of one unit at ``Capabilities.sample_rate``: all of it, or its first piece.

    ``speech_start``/``speech_end`` bound the span the model meant as speech (for hibari, from
    its phoneme durations); the engine trims outside them. ``words`` are the source text's words
    in samples at the backend's rate from the unit's first sample, empty when the backend has no
    word times. ``rest`` is None for whole audio; from ``StreamingUnitBackend.synthesize_stream``
    it may hold the pieces that follow ``samples`` (words and span still count from the unit's
    first sample).
    """

    samples: npt.NDArray[np.float32]
    words: tuple[WordMark, ...]
    speech_start: int
    speech_end: int
    rest: UnitPieces | None = None


@dataclass(frozen=True, slots=True, eq=False)
class FrameStep:
    """One step of a frame synthesizer: at most one 80 ms frame of audio at the model's rate.

    ``audio`` may be empty while the model waits for text; ``finished`` is True once the model
    has spoken all text it was given and ``end_text`` was called. ``words`` start in this step,
    positioned in samples at the model's rate from the step's first sample.
    """

    audio: npt.NDArray[np.float32]
    words: tuple[WordMark, ...]
    finished: bool

    def stops_job(self) -> bool:
        """No further step is useful now: the model finished, or waits for text."""
        return self.finished or len(self.audio) == 0


class VoiceState:
    """Per-session model state: the voice, and for autoregressive models the KV cache.

    Subclassed by each backend; the engine only passes it back.
    """

    def __init__(self, voice: str) -> None:
        self.voice = voice


@runtime_checkable
class Backend(Protocol):
    """What every backend offers."""

    name: str
    capabilities: Capabilities
    default_voice: str

    def load(self) -> None:
        """Load weights and warm up (lexicons, first inference) so the first call is fast."""

    def voices(self) -> tuple[str, ...]:
        """Names accepted by ``new_voice_state``."""

    def new_voice_state(self, voice: str, seed: int | None = None) -> VoiceState:
        """A fresh per-session state for ``voice``; raises UnknownVoiceError.

        ``seed`` fixes the sampling of models whose noise lives in the state (autoregressive
        ones); models that take a seed per call may ignore it.
        """

    def reset_context(self, state: VoiceState) -> None:
        """Drop the conversation prefix, keep the voice (restore the voice snapshot)."""


@runtime_checkable
class UnitBackend(Backend, Protocol):
    """A model that synthesizes one unit of text at a time."""

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        """Audio of ``text`` (one speakable unit); raises SynthesisError."""


@runtime_checkable
class StreamingUnitBackend(UnitBackend, Protocol):
    """A unit synthesizer that can hand out a unit's audio in pieces, its words and span first."""

    def synthesize_stream(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        """Like ``synthesize``, but ``samples`` may be only the unit's first piece (enough for its
        first 80 ms of speech) and ``rest`` the pieces after it."""


@runtime_checkable
class FrameBackend(Backend, Protocol):
    """An autoregressive model stepped one 80 ms frame at a time."""

    def feed_text(self, state: VoiceState, text: str) -> None:
        """Append text to the utterance being spoken (never restarts it)."""

    def end_text(self, state: VoiceState) -> None:
        """No more text will come for this utterance: the model may finish."""

    def discard_text(self, state: VoiceState) -> None:
        """Forget text fed but not yet spoken (an interrupted answer), keep the prefix."""

    def step(self, state: VoiceState) -> FrameStep:
        """Advance one frame."""


@runtime_checkable
class BatchFrameBackend(FrameBackend, Protocol):
    """A frame backend that can advance several sessions' streams in one forward pass."""

    def step_batch(self, states: Sequence[VoiceState]) -> list[FrameStep]:
        """One step for each state (distinct states), equal to ``step`` on each to float rounding."""
