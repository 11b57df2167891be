"""Small deterministic backends for engine tests: exact, fast, and easy to reason about.

``ToneBackend`` is a unit synthesizer: each word becomes a tone burst whose length follows the
word's length, with model-like lead and tail silence and exact word times; ``PiecesToneBackend``
hands the same audio out in pieces (a ``StreamingUnitBackend``). ``ToyFrameBackend``
is an autoregressive-shaped model: it keeps a queue of fed words (its "KV cache" is the count of
frames it has generated) and emits one 80 ms frame per step. Neither is a mock of hibari: the
real model is tested in its own files; these let the state machine be tested fast and exactly.
"""

from __future__ import annotations

import numpy as np

from tts_service.engine.ports import Capabilities, FrameStep, UnitAudio, VoiceState
from tts_service.engine.types import WordMark
from tts_service.errors import SynthesisError, UnknownVoiceError

SR = 24000
LEAD = 7200  # 0.3 s, like hibari's lead pad
TAIL = 4800
SAMPLES_PER_CHAR = 1200  # 50 ms per character


def _burst(n: int, freq: float, amp: float) -> np.ndarray:
    t = np.arange(n, dtype=np.float64) / SR
    env = np.minimum(1.0, np.minimum(np.arange(n) + 1, n - np.arange(n)) / 240.0)
    return (amp * env * np.sin(2 * np.pi * freq * t)).astype(np.float32)


class ToneBackend:
    """Unit synthesizer: words to tone bursts with exact word times."""

    name = "tone"
    capabilities = Capabilities(
        sample_rate=SR,
        frame_native=False,
        incremental_text=False,
        word_times=True,
        context_limit=None,
        own_normalizer=True,
        speaker_tags=False,
    )
    default_voice = "a"

    def __init__(self, *, amp: float = 0.3, fail_on: str | None = None) -> None:
        self.amp = amp
        self.fail_on = fail_on
        self.loaded = False
        self.calls: list[str] = []
        self.context_resets = 0

    def load(self) -> None:
        self.loaded = True

    def voices(self) -> tuple[str, ...]:
        return ("a", "b")

    def new_voice_state(self, voice: str, seed: int | None = None) -> VoiceState:
        if voice not in self.voices():
            raise UnknownVoiceError(f"unknown voice {voice!r}; available: a, b")
        return VoiceState(voice)

    def reset_context(self, state: VoiceState) -> None:
        self.context_resets += 1

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        self.calls.append(text)
        if self.fail_on is not None and self.fail_on in text:
            raise SynthesisError(f"cannot say {self.fail_on!r}")
        words = text.split()
        parts = [np.zeros(LEAD, np.float32)]
        times = []
        pos = LEAD
        base = 220.0 if state.voice == "a" else 330.0
        for i, w in enumerate(words):
            n = int(len(w) * SAMPLES_PER_CHAR / speed)
            parts.append(_burst(n, base + 20 * (i % 5), self.amp))
            times.append(WordMark(w, pos, pos + n))
            pos += n
            gap = 600
            parts.append(np.zeros(gap, np.float32))
            pos += gap
        parts.append(np.zeros(TAIL, np.float32))
        audio = np.concatenate(parts)
        return UnitAudio(audio, tuple(times), speech_start=LEAD, speech_end=pos)


class TonePieces:
    """The rest of a tone unit, ``size`` samples a piece; ``fail_at`` makes that piece raise."""

    def __init__(self, audio: np.ndarray, size: int, fail_at: int | None) -> None:
        self._audio = audio
        self._size = size
        self._fail_at = fail_at
        self.pulled = 0

    @property
    def done(self) -> bool:
        return len(self._audio) == 0

    def next_piece(self) -> np.ndarray:
        self.pulled += 1
        if self.pulled == self._fail_at:
            raise SynthesisError("the decoder fell over")
        piece, self._audio = self._audio[: self._size], self._audio[self._size :]
        return piece


class PiecesToneBackend(ToneBackend):
    """``ToneBackend`` whose units can come in pieces: the first to 0.1 s past the speech's start,
    then ``size`` samples a piece; ``opened`` keeps each unit's pieces."""

    name = "tone-pieces"

    def __init__(self, *, size: int = 4800, fail_at: int | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.size = size
        self.fail_at = fail_at
        self.opened: list[TonePieces] = []

    def synthesize_stream(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        unit = self.synthesize(state, text, speed=speed, seed=seed)
        first = unit.speech_start + SR // 10
        pieces = TonePieces(unit.samples[first:], self.size, self.fail_at)
        self.opened.append(pieces)
        return UnitAudio(unit.samples[:first], unit.words, unit.speech_start, unit.speech_end, pieces)


class ToyFrameState(VoiceState):
    def __init__(self, voice: str) -> None:
        super().__init__(voice)
        self.queue: list[str] = []
        self.current: tuple[str, int] | None = None  # word, frames left
        self.ended = False
        self.kv_frames = 0  # frames generated since the last reset: the "KV cache offset"
        self.phase = 0.0


class ToyFrameBackend:
    """Frame synthesizer: one 80 ms frame per step; each word lasts max(1, len // 3) frames."""

    name = "toyframe"
    capabilities = Capabilities(
        sample_rate=SR,
        frame_native=True,
        incremental_text=True,
        word_times=True,
        context_limit=10_000,
        own_normalizer=False,
        speaker_tags=True,
    )
    default_voice = "a"
    FRAME = 1920

    def load(self) -> None:
        pass

    def voices(self) -> tuple[str, ...]:
        return ("a",)

    def new_voice_state(self, voice: str, seed: int | None = None) -> VoiceState:
        if voice != "a":
            raise UnknownVoiceError(voice)
        return ToyFrameState(voice)

    def reset_context(self, state: VoiceState) -> None:
        assert isinstance(state, ToyFrameState)
        state.kv_frames = 0

    def feed_text(self, state: VoiceState, text: str) -> None:
        assert isinstance(state, ToyFrameState)
        state.queue.extend(text.split())
        state.ended = False

    def end_text(self, state: VoiceState) -> None:
        assert isinstance(state, ToyFrameState)
        state.ended = True

    def discard_text(self, state: VoiceState) -> None:
        assert isinstance(state, ToyFrameState)
        state.queue.clear()
        state.current = None
        state.ended = False

    def step(self, state: VoiceState) -> FrameStep:
        assert isinstance(state, ToyFrameState)
        words: tuple[WordMark, ...] = ()
        if state.current is None:
            if not state.queue:
                return FrameStep(np.zeros(0, np.float32), (), finished=state.ended)
            w = state.queue.pop(0)
            frames = max(1, len(w) // 3)
            state.current = (w, frames)
            words = (WordMark(w, 0, frames * self.FRAME),)
        w, left = state.current
        t = (np.arange(self.FRAME) + state.phase) / SR
        state.phase += self.FRAME
        audio = (0.2 * np.sin(2 * np.pi * 200.0 * t)).astype(np.float32)
        state.current = None if left == 1 else (w, left - 1)
        state.kv_frames += 1
        finished = state.current is None and not state.queue and state.ended
        return FrameStep(audio, words, finished=finished)


class BatchToyFrameBackend(ToyFrameBackend):
    """ToyFrameBackend with a batched step; records each batch's size. ``gate`` holds a step."""

    def __init__(self) -> None:
        import threading

        self.batch_sizes: list[int] = []
        self.gate = threading.Event()
        self.gate.set()

    def step_batch(self, states: list[VoiceState]) -> list[FrameStep]:
        self.gate.wait(timeout=10)
        self.batch_sizes.append(len(states))
        return [self.step(s) for s in states]

    def step(self, state: VoiceState) -> FrameStep:
        self.gate.wait(timeout=10)
        return super().step(state)
