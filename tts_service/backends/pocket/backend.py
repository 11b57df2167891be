"""The pocket backend: Kyutai Pocket TTS as a frame synthesizer that keeps its KV cache warm all call.

One step is one 80 ms frame (Mimi latents at 12.5 Hz, 24 kHz audio), computed in our own
synchronous loop: no background thread runs ahead, so when the session stops asking for steps
(``pause``) nothing more is generated. Per call (``PocketVoiceState``):

* the FlowLM KV cache, pre-allocated to ``context_limit`` positions and filled from the voice's
  snapshot (computed once per voice, shared by every call that uses it);
* a queue of units (``pocket_text``); each unit's tokens are appended to the *live* cache, then
  latents follow until EOS, so injected text continues the same stream instead of starting over;
* the Mimi decoder state (convolution buffers and a sliding attention window), kept across units,
  so there is no seam between them;
* a random generator, seeded per state, so a seed gives bit-identical audio.

``reset_context`` restores the voice snapshot; ``discard_text`` rolls the cache back to the end of
the last unit spoken whole. Before a unit would overflow the cache the stream rolls over: the
cache is refilled from the voice snapshot and the last whole unit is replayed into it (its text
and its latents, teacher-forced in one pass), so an hour-long call never fails and the voice
keeps its recent prosody. ``step_batch`` advances several calls in one forward pass.

This module must never download (see ``pocket_assets``), never load weights in a constructor,
and never touch asyncio.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tts_service.backends.pocket import assets
from tts_service.backends.pocket.model import FlowRunner, FlowSettings, KVCache, MimiRunner, MimiStream
from tts_service.backends.pocket.pocket_tts_compat import (
    DEFAULT_MIN_FRAMES_BEFORE_EOS,
    TESTED_POCKET_TTS,
    feed_forward_block,
    min_frames_before_eos,
)
from tts_service.backends.pocket.text import (
    INITIAL_FRAMES_PER_TOKEN,
    PocketUnit,
    WordClock,
    learn_rate,
    prepare_units,
)
from tts_service.engine.ports import Capabilities, FrameStep, VoiceState
from tts_service.errors import InvalidInputError, SynthesisError, UnknownVoiceError

SAMPLE_RATE = 24000
FRAME_SAMPLES = 1920
#: the library's longest chunk of text for one generation
MAX_TOKENS_PER_UNIT = 50
#: context positions a voice must leave free for speech (a long sentence and its audio)
MIN_ROOM = 160
#: voice prompts longer than this are cut (the library's own ``truncate`` length)
MAX_VOICE_SECONDS = 30.0
#: a fresh Mimi decoder state clicks in its first samples; the library fades in 5 ms
FADE_IN_SAMPLES = SAMPLE_RATE // 200
_EMPTY = np.zeros(0, np.float32)


@dataclass(slots=True, eq=False)
class _Run:
    """The unit being spoken."""

    unit: PocketUnit
    start_offset: int
    clock: WordClock
    max_frames: int
    #: inputs fed so far (BOS first, then each latent); the last one is the next step's input
    inputs: list[torch.Tensor] = field(default_factory=list)
    step: int = 0
    eos_step: int | None = None


@dataclass(frozen=True, slots=True, eq=False)
class _Spoken:
    """The last unit spoken whole: what a rollover replays."""

    tokens: torch.Tensor
    inputs: torch.Tensor


class PocketVoiceState(VoiceState):
    """One call's Pocket TTS state; only the backend that made it may use it."""

    def __init__(
        self, voice: str, seed: int | None, snapshot: assets.VoiceSnapshot, flow: KVCache, mimi: MimiStream
    ) -> None:
        super().__init__(voice)
        self.seed = seed
        self.snapshot = snapshot
        self.flow = flow
        self.mimi = mimi
        self.generator = torch.Generator(device=flow.layers[0].device)
        self.queue: deque[PocketUnit] = deque()
        self.run: _Run | None = None
        self.last: _Spoken | None = None
        self.ended = False
        self.frames_per_token = INITIAL_FRAMES_PER_TOKEN
        self.rollovers = 0
        self.frames = 0

    @property
    def kv_offset(self) -> int:
        """Positions filled in the FlowLM cache (voice prompt, then text tokens and latents)."""
        return self.flow.offset


class PocketBackend:
    """Pocket TTS behind the ``FrameBackend`` protocol. Call ``load()`` once before serving."""

    name = "pocket"
    default_voice = "alba"

    def __init__(
        self,
        *,
        language: str = "english",
        config_path: str | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        compile: bool = False,
        compile_mode: str | None = None,
        compile_backend: str = "inductor",
        context_limit: int = 1024,
        temperature: float | None = None,
        eos_threshold: float | None = None,
        quantize: bool = False,
        warmup: bool = True,
        model: Any = None,
    ) -> None:
        if dtype not in ("float32", "bfloat16"):
            raise InvalidInputError(f"dtype must be float32 or bfloat16, not {dtype!r}")
        if context_limit < 256:
            raise InvalidInputError(f"context_limit must be at least 256 positions, got {context_limit}")
        self.capabilities = Capabilities(
            sample_rate=SAMPLE_RATE,
            frame_native=True,
            incremental_text=True,
            word_times=True,
            context_limit=context_limit,
            own_normalizer=False,
            speaker_tags=False,
            speed_range=(1.0, 1.0),
        )
        self._language = language
        self._config_path = config_path
        self._device = torch.device(device)
        self._dtype = torch.bfloat16 if dtype == "bfloat16" else torch.float32
        self._compile = (compile, compile_mode, compile_backend)
        self._context_limit = context_limit
        self._temperature = temperature
        self._eos_threshold = eos_threshold
        self._quantize = quantize
        self._warmup = warmup
        self._lock = threading.Lock()
        self._model: Any = model
        self._flow: FlowRunner | None = None
        self._mimi: MimiRunner | None = None
        self._voices: dict[str, assets.VoiceSnapshot] = {}
        self._min_frames_before_eos = DEFAULT_MIN_FRAMES_BEFORE_EOS

    @classmethod
    def from_model(cls, model: Any, **options: Any) -> PocketBackend:
        """A backend over an already built ``pocket_tts.TTSModel`` (tests, benchmarks, custom weights)."""
        return cls(model=model, **options)

    @property
    def model(self) -> Any:
        """The ``pocket_tts.TTSModel`` behind this backend (loaded on first use)."""
        return self._runners()[0]

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Load weights from the local cache (never downloads), prepare them, warm up one stream."""
        with self._lock:
            if self._flow is not None:
                return
            if self._model is None:
                self._model, _ = assets.load_local_model(
                    self._language,
                    config_path=self._config_path,
                    temp=self._temperature,
                    eos_threshold=self._eos_threshold,
                    quantize=self._quantize,
                )
            self._setup(self._model)
        if self._warmup:
            self._warm_up()

    def _setup(self, model: Any) -> None:
        TESTED_POCKET_TTS.check()
        model.to(self._device).eval()
        flow_lm = model.flow_lm
        if self._dtype != torch.float32:
            flow_lm.transformer.to(self._dtype)
            flow_lm.input_linear.to(self._dtype)
        settings = FlowSettings(
            temp=float(model.temp if self._temperature is None else self._temperature),
            decode_steps=int(model.sampler_decode_steps),
            noise_clamp=model.noise_clamp,
            eos_threshold=float(model.eos_threshold if self._eos_threshold is None else self._eos_threshold),
        )
        flow = FlowRunner(flow_lm, settings, self._dtype)
        enabled, mode, backend = self._compile
        if enabled:
            # fixed shapes per batch size: with mode="reduce-overhead" on CUDA these become CUDA graphs
            flow.ff_blocks = [
                torch.compile(feed_forward_block(layer), dynamic=False, mode=mode, backend=backend)
                for layer in flow_lm.transformer.layers
            ]
            flow.head = torch.compile(flow.sample, dynamic=False, mode=mode, backend=backend)
        self._min_frames_before_eos = min_frames_before_eos(model)
        self._mimi = MimiRunner(model.mimi, flow_lm.emb_mean, flow_lm.emb_std)
        self._flow = flow

    def _warm_up(self) -> None:
        """Pay lazy initialisation (and compilation) now: one stream, then a batch of two."""
        states = [self._new_state("", None, assets.VoiceSnapshot((), 0)) for _ in range(2)]
        for s in states:
            self.feed_text(s, "Hello there.")
        for _ in range(2):
            self.step(states[0])
        for _ in range(2):
            self.step_batch(states)

    def _runners(self) -> tuple[Any, FlowRunner, MimiRunner]:
        if self._flow is None or self._mimi is None:
            self.load()
        assert self._flow is not None and self._mimi is not None
        return self._model, self._flow, self._mimi

    # -- voices ----------------------------------------------------------------------------------

    def voices(self) -> tuple[str, ...]:
        """Named voices whose state is in the local cache, plus voices already loaded (WAV paths)."""
        usable = []
        for name in assets.named_voices():
            ref = assets.named_voice_ref(self._language, name)
            try:
                if ref is not None:
                    assets.resolve_local(ref)
            except FileNotFoundError:
                continue
            usable.append(name)
        return tuple(dict.fromkeys([*usable, *self._voices]))

    def new_voice_state(self, voice: str, seed: int | None = None) -> PocketVoiceState:
        """A call's state for ``voice`` (a named voice, a .wav to clone, or a saved .safetensors state).

        ``seed`` fixes the sampling noise: the same seed and text give the same samples.
        Raises UnknownVoiceError.
        """
        return self._new_state(voice, seed, self._snapshot(voice))

    def _new_state(self, voice: str, seed: int | None, snapshot: assets.VoiceSnapshot) -> PocketVoiceState:
        _, flow, mimi = self._runners()
        cache = flow.new_cache(self._context_limit, self._device)
        state = PocketVoiceState(voice, seed, snapshot, cache, mimi.new_stream(self._device))
        self._restore(state)
        return state

    def save_voice(self, voice: str, path: str | Path) -> None:
        """Write ``voice``'s snapshot as a ``.safetensors`` state, loadable as a voice name later."""
        model, _, _ = self._runners()
        assets.write_voice(model.flow_lm, self._snapshot(voice), Path(path))

    def _snapshot(self, voice: str) -> assets.VoiceSnapshot:
        snap = self._voices.get(voice)
        if snap is not None:
            return snap
        model, flow, _ = self._runners()
        with self._lock, torch.no_grad():
            snap = self._voices.get(voice)
            if snap is None:
                snap = assets.load_voice(model, flow, self._language, voice, MAX_VOICE_SECONDS)
                if snap.length + MIN_ROOM > self._context_limit:
                    raise UnknownVoiceError(
                        f"voice {voice!r} fills {snap.length} of {self._context_limit} context positions; "
                        f"use a shorter prompt or a larger context_limit"
                    )
                self._voices[voice] = snap
        return snap

    # -- the conversation ------------------------------------------------------------------------

    def _state(self, state: VoiceState) -> PocketVoiceState:
        if not isinstance(state, PocketVoiceState):
            raise InvalidInputError(f"not a pocket voice state: {type(state).__name__}")
        return state

    def reset_context(self, state: VoiceState) -> None:
        """Back to the voice snapshot: cache, decoder, queue, seed and speaking rate as new."""
        self._restore(self._state(state))

    def _restore(self, s: PocketVoiceState) -> None:
        _, _, mimi = self._runners()
        s.flow.load(s.snapshot.layers, s.snapshot.length)
        s.mimi = mimi.new_stream(self._device)
        if s.seed is None:
            s.generator.seed()
        else:
            s.generator.manual_seed(s.seed)
        s.queue.clear()
        s.run = s.last = None
        s.ended = False
        s.frames_per_token = INITIAL_FRAMES_PER_TOKEN

    def feed_text(self, state: VoiceState, text: str) -> None:
        """Queue ``text`` after what is already queued; it continues the live stream."""
        s = self._state(state)
        model, _, _ = self._runners()
        try:
            units = prepare_units(model, text, max_tokens=MAX_TOKENS_PER_UNIT)
        except Exception as exc:
            raise SynthesisError(f"pocket could not read the text: {exc}") from exc
        s.queue.extend(units)
        s.ended = False

    def end_text(self, state: VoiceState) -> None:
        """No more text for this utterance: ``finished`` comes with the last frame."""
        self._state(state).ended = True

    def discard_text(self, state: VoiceState) -> None:
        """Drop queued text and the unit being spoken; the cache goes back to the last whole unit."""
        s = self._state(state)
        if s.run is not None:
            s.flow.offset = s.run.start_offset
            s.run = None
        s.queue.clear()
        s.ended = False

    # -- stepping --------------------------------------------------------------------------------

    def step(self, state: VoiceState) -> FrameStep:
        """One frame of audio (empty while there is no text), with the words that start in it."""
        return self.step_batch([state])[0]

    def step_batch(self, states: Sequence[VoiceState]) -> list[FrameStep]:
        """One frame for each call, in one forward pass; equal to ``step`` on each, to float rounding.

        Text prefills (a unit's first step) run per call; the latent step, the flow head and the
        Mimi decoder run batched. Each call draws its noise from its own generator.
        """
        own = [self._state(s) for s in states]
        if len({id(s) for s in own}) != len(own):
            raise InvalidInputError("step_batch got the same voice state twice")
        _, flow, mimi = self._runners()
        out: dict[int, FrameStep] = {}
        with torch.no_grad():
            active = [s for s in own if self._begin_unit(s, flow)]
            if active:
                inputs = torch.cat([s.run.inputs[-1] for s in active if s.run is not None])
                noise = torch.cat([flow.draw_noise(s.generator, self._device) for s in active])
                latents, eos = flow.step([s.flow for s in active], inputs, noise)
                audio = mimi.decode([s.mimi for s in active], latents)
                self._fade_in(active, audio)
                samples = audio.to(torch.float32).cpu().numpy()
                for r, (s, is_eos) in enumerate(zip(active, eos.tolist(), strict=True)):
                    out[id(s)] = self._advance(s, latents[r : r + 1], bool(is_eos), samples[r])
        return [out.get(id(s)) or FrameStep(_EMPTY, (), finished=s.ended) for s in own]

    def _begin_unit(self, s: PocketVoiceState, flow: FlowRunner) -> bool:
        """Make sure ``s`` has a unit to speak (prefilling the next one); False when it has none."""
        if s.run is not None:
            return True
        if not s.queue:
            return False
        unit = s.queue.popleft()
        tokens = torch.tensor([unit.tokens], dtype=torch.long, device=self._device)
        max_frames = self._make_room(s, flow, len(unit.tokens), unit.max_frames)
        start = s.flow.offset
        flow.prefill(s.flow, tokens)
        # the library samples (and discards) a latent after each text prompt: draw the same noise
        flow.draw_noise(s.generator, self._device)
        bos = torch.full((1, 1, flow.ldim), float("nan"), device=self._device)
        clock = WordClock(unit.words, unit.word_tokens, s.frames_per_token, FRAME_SAMPLES)
        s.run = _Run(unit, start, clock, max_frames, [bos])
        return True

    def _make_room(self, s: PocketVoiceState, flow: FlowRunner, tokens: int, frames: int) -> int:
        """Roll over if the unit may not fit; returns the unit's frame budget."""
        cache = s.flow
        if cache.offset + tokens + frames <= cache.capacity:
            return frames
        s.rollovers += 1
        cache.load(s.snapshot.layers, s.snapshot.length)
        last = s.last
        if last is not None:
            replay = last.tokens.shape[1] + last.inputs.shape[1]
            if cache.offset + replay + tokens + frames <= cache.capacity:
                flow.prefill(cache, last.tokens, last.inputs)
        room = cache.capacity - cache.offset - tokens
        if room < self._min_frames_before_eos + 2:
            raise SynthesisError(f"a unit of {tokens} tokens does not fit the pocket context")
        return min(frames, room)

    def _advance(self, s: PocketVoiceState, latent: torch.Tensor, eos: bool, audio: np.ndarray) -> FrameStep:
        run = s.run
        assert run is not None
        g = run.step
        if eos and run.eos_step is None and g >= self._min_frames_before_eos:
            run.eos_step = g
            run.clock.end_speech(g)
        run.inputs.append(latent)
        run.step += 1
        s.frames += 1
        after = run.unit.frames_after_eos
        done = (run.eos_step is not None and run.step >= run.eos_step + after) or run.step >= run.max_frames
        words = run.clock.marks(g, flush=done)
        if done:
            if run.eos_step is not None:
                s.frames_per_token = learn_rate(s.frames_per_token, run.eos_step, len(run.unit.tokens))
            tokens = torch.tensor([run.unit.tokens], dtype=torch.long, device=self._device)
            s.last = _Spoken(tokens, torch.cat(run.inputs[:-1], dim=1))
            s.run = None
        finished = done and not s.queue and s.ended
        return FrameStep(np.ascontiguousarray(audio, dtype=np.float32), words, finished=finished)

    def _fade_in(self, states: Sequence[PocketVoiceState], audio: torch.Tensor) -> None:
        for r, s in enumerate(states):
            if s.mimi.fresh:
                n = min(FADE_IN_SAMPLES, audio.shape[-1])
                audio[r, :n] *= torch.linspace(0, 1, FADE_IN_SAMPLES)[:n].to(audio)
                s.mimi.fresh = False
