"""The dia2 backend's per-call streams and the loop that steps them (see ``tts_service.backends.dia2``).

A ``Dia2Stream`` is one call: the transformer KV cache (the library's ``KVCache``, batch 2 for the
guidance branches), the delayed audio-token buffer, the state machine's ``State`` (word queue,
transcript) and a window of recent frames for the Mimi decoder. ``Dia2Engine.frames`` advances
streams until each has one frame: the transformer and depformer run batched over the streams that
need a step; sampling and the state machine run per stream.

Positions are capped by the model's RoPE table (``max_context_steps``). Before a stream reaches
the cap it rolls over: the cache is refilled from the voice snapshot and the most recent steps are
replayed into it (their text and audio tokens, teacher-forced), so a call can run for an hour.
Word and frame times use an absolute step count that never rolls over.

This module must never download and never touch asyncio.
"""

from __future__ import annotations

import copy
import json
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tts_service.backends.dia2.model import WINDOW_FRAMES, decode_windows, sample_token, transformer_step
from tts_service.errors import UnknownVoiceError

Tensor = torch.Tensor
#: steps replayed into the cache after a rollover (12 s of recent speech)
REPLAY_STEPS = 150
FRAME_SAMPLES = 1920
#: speaker tags, also as a spoken-form normalizer may have rewritten them ("[S one]")
_SPEAKER = re.compile(r"\[\s*S\s*(1|2|one|two)\s*\]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Dia2Options:
    """Sampling settings (the defaults of Dia2's ``GenerationConfig``)."""

    cfg_scale: float = 2.0
    cfg_filter_k: int = 50
    text_temperature: float = 0.6
    text_top_k: int = 50
    audio_temperature: float = 0.8
    audio_top_k: int = 50
    initial_padding: int = 2
    #: ``torch.compile`` the transformer MLPs with this backend ("inductor" on GPU); None: eager
    compile_backend: str | None = None
    compile_mode: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Dia2Snapshot:
    """Everything a call restores on reset: the cache and machine state after the voice prefix."""

    keys: tuple[Tensor, ...]
    values: tuple[Tensor, ...]
    length: int
    step_tokens: Tensor
    audio: Tensor
    machine: Any


@dataclass(slots=True, eq=False)
class Dia2Stream:
    """One call's Dia2 state."""

    snapshot: Dia2Snapshot
    seed: int | None
    cache: Any
    audio_buf: Tensor
    step_tokens: Tensor
    generator: torch.Generator
    machine: Any = None
    pos: int = 0
    base: int = 0
    next_frame: int = 0
    first_word: int | None = None
    window: deque[Tensor] = field(default_factory=lambda: deque(maxlen=WINDOW_FRAMES))
    inputs: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=REPLAY_STEPS))
    words_sent: int = 0
    ended: bool = False
    has_text: bool = False
    speaker_set: bool = False
    cutoff: int | None = None
    frames: int = 0
    rollovers: int = 0

    @property
    def step(self) -> int:
        """Absolute step (never rolls over)."""
        return self.pos + self.base


class Dia2Engine:
    """A loaded Dia2 runtime and the loop over its streams. Shared; streams are per call."""

    def __init__(
        self, runtime: Any, options: Any, context_limit: int, compile_backend: str | None = None
    ) -> None:
        self.rt = runtime
        self.opts = options
        model = runtime.model
        #: compiled MLPs (fixed shapes per batch size; CUDA graphs with mode="reduce-overhead")
        self.mlps = (
            None
            if compile_backend is None
            else [
                torch.compile(layer.mlp, dynamic=False, backend=compile_backend, mode=options.compile_mode)
                for layer in model.transformer.layers
            ]
        )
        rope_len = int(model.transformer.layers[0].attn.rotary.max_seq_len)
        self.limit = min(context_limit, rope_len)
        self.delays = [int(d) for d in runtime.audio_delays]
        self.max_delay = max(self.delays) if self.delays else 0
        self.delay_tensor = torch.tensor(self.delays, dtype=torch.long, device=runtime.device)
        self.flush_tail = self.max_delay + int(getattr(runtime.machine, "max_padding", 0))
        self.depth = int(model.depformer.num_depth)
        self.channels = 2 + int(model.depformer.num_audio_channels)

    # -- streams -------------------------------------------------------------------------------

    def snapshot(self, voice: str | None) -> Dia2Snapshot:
        """The state after ``voice``'s prefix (a WAV file with its word times in a ``.json`` beside it)."""
        from dia2.generation import PrefixConfig
        from dia2.runtime.generator import build_initial_state, warmup_with_prefix
        from dia2.runtime.voice_clone import WhisperWord, build_prefix_plan

        rt = self.rt
        plan = None
        if voice is not None:
            path = Path(voice)
            words_file = path.with_suffix(".json")
            if not path.is_file() or not words_file.is_file():
                raise UnknownVoiceError(
                    f"dia2 voice {voice!r}: give a WAV prompt with its transcript beside it as "
                    f"{words_file.name} ([{{'text', 'start', 'end'}}, ...] in seconds)"
                )
            words = [
                WhisperWord(w["text"], float(w["start"]), float(w["end"]))
                for w in json.loads(words_file.read_text())
            ]
            try:
                plan = build_prefix_plan(
                    rt, PrefixConfig(speaker_1=str(path)), transcribe_fn=lambda *_: words
                )
            except (OSError, ValueError, RuntimeError) as exc:
                raise UnknownVoiceError(f"dia2 cannot use {voice!r} as a prefix: {exc}") from exc
        with torch.inference_mode():
            gen = build_initial_state(rt, prefix=plan)
            machine = self._new_machine_state()
            length = 0
            if plan is not None:
                machine.entries.extend(plan.entries)
                warmup_with_prefix(rt, plan, machine, gen)
                length = int(plan.aligned_frames)
            cache = gen.decode.transformer
            keys = tuple(slot.keys[:, :, :length].clone() for slot in cache.slots)
            values = tuple(slot.values[:, :, :length].clone() for slot in cache.slots)
            audio = gen.audio_buf[:, :, : length + self.max_delay + 1].clone()
        return Dia2Snapshot(keys, values, length, gen.step_tokens.clone(), audio, copy.deepcopy(machine))

    def _new_machine_state(self) -> Any:
        from dia2.runtime.state_machine import State

        pad = int(self.opts.initial_padding)
        return State(entries=deque(), padding_budget=pad, forced_padding=pad)

    def new_stream(self, snap: Dia2Snapshot, seed: int | None) -> Dia2Stream:
        rt = self.rt
        capacity = self.limit + 1
        with torch.inference_mode():
            cache = rt.model.transformer.init_cache(2, rt.device, capacity)
            audio = torch.full(
                (2, self.channels - 2, capacity + self.max_delay + 2),
                rt.constants.ungenerated,
                dtype=torch.long,
                device=rt.device,
            )
        stream = Dia2Stream(
            snap, seed, cache, audio, snap.step_tokens.clone(), torch.Generator(device=rt.device)
        )
        self.restore(stream)
        return stream

    def restore(self, s: Dia2Stream) -> None:
        """Back to the snapshot: cache, buffer, machine, decoder window and generator."""
        snap = s.snapshot
        with torch.inference_mode():
            for slot, k, v in zip(s.cache.slots, snap.keys, snap.values, strict=True):
                slot.keys[:, :, : snap.length] = k
                slot.values[:, :, : snap.length] = v
                slot.length.fill_(snap.length)
            s.audio_buf.fill_(self.rt.constants.ungenerated)
            s.audio_buf[:, :, : snap.audio.shape[-1]] = snap.audio
            s.step_tokens.copy_(snap.step_tokens)
        s.machine = copy.deepcopy(snap.machine)
        s.pos = s.next_frame = snap.length
        s.base = 0
        s.first_word = s.cutoff = None
        s.window.clear()
        s.inputs.clear()
        s.words_sent = len(s.machine.transcript)
        s.ended = s.has_text = s.speaker_set = False
        if s.seed is None:
            s.generator.seed()
        else:
            s.generator.manual_seed(s.seed)

    def feed(self, s: Dia2Stream, text: str) -> None:
        """Append ``text``'s words to the queue (``[S1]``/``[S2]`` become the next word's prefix)."""
        from dia2.runtime.state_machine import Entry

        tokenizer, constants = self.rt.tokenizer, self.rt.constants
        pending: str | None = None
        text = _SPEAKER.sub(lambda m: " [S1] " if m.group(1).lower() in ("1", "one") else " [S2] ", text)
        for word in text.replace("’", "'").replace(":", " ").split():
            if word in ("[S1]", "[S2]"):
                pending = word
                continue
            tokens = list(
                tokenizer.encode(f"{pending} {word}" if pending else word, add_special_tokens=False)
            )
            if not s.speaker_set and pending is None and (not tokens or tokens[0] != constants.spk1):
                tokens.insert(0, constants.spk1)  # Dia2 expects a speaker at the start of a conversation
            s.speaker_set = True
            pending = None
            s.machine.entries.append(Entry(tokens=tokens, text=word, padding=max(0, len(tokens))))
        s.has_text = s.has_text or bool(s.machine.entries)
        s.ended = False
        if s.machine.entries and s.machine.end_step is not None:
            s.machine.end_step = None  # more words came: the model goes on instead of ending
            s.cutoff = None

    def discard(self, s: Dia2Stream) -> None:
        """Drop queued words (the word being spoken finishes)."""
        s.machine.entries.clear()
        s.machine.lookahead_tokens.clear()
        s.ended = False

    # -- stepping --------------------------------------------------------------------------------

    def finished(self, s: Dia2Stream) -> bool:
        """All text spoken, ``end_text`` called and every frame handed out."""
        done = s.ended and s.cutoff is not None and s.step >= s.cutoff
        return done and s.next_frame > s.pos - self.max_delay

    def _can_step(self, s: Dia2Stream) -> bool:
        if not s.has_text:
            return False
        end = s.machine.end_step
        return end is None or s.step < end + self.flush_tail

    def frames(
        self, streams: Sequence[Dia2Stream]
    ) -> list[tuple[np.ndarray, list[tuple[str, int, int]]] | None]:
        """One frame (audio, word marks) for each stream that has one to give, stepping as needed."""
        ready: dict[int, tuple[Tensor, list[tuple[str, int, int]]]] = {}
        need = [s for s in streams if self._can_step(s)]
        while need:
            self._step(need)
            for s in need:
                frame = self._take_frame(s)
                if frame is not None:
                    ready[id(s)] = frame
            need = [s for s in need if id(s) not in ready and self._can_step(s)]
        order = [s for s in streams if id(s) in ready]
        audio = decode_windows(self.rt.mimi.model, [torch.stack(list(s.window), dim=-1) for s in order])
        out: dict[int, tuple[np.ndarray, list[tuple[str, int, int]]]] = {}
        for s, samples in zip(order, audio, strict=True):
            s.frames += 1
            out[id(s)] = (samples.to(torch.float32).cpu().numpy(), ready[id(s)][1])
        return [out.get(id(s)) for s in streams]

    def _take_frame(self, s: Dia2Stream) -> tuple[Tensor, list[tuple[str, int, int]]] | None:
        newest = s.pos - self.max_delay  # aligned frame completed by the step just taken
        while s.next_frame <= newest:
            frame = s.next_frame
            s.next_frame += 1
            absolute = frame + s.base
            if s.first_word is None or absolute < s.first_word:
                continue  # before the first word (or the prefix): the library crops it too
            codes = torch.stack([s.audio_buf[0, cb, frame + d] for cb, d in enumerate(self.delays)])
            if bool(((codes < 0) | (codes >= self.rt.constants.audio_bos)).any()):
                continue  # a slot never generated (a first delay of 0 at step 0): no audio frame there
            s.window.append(codes)
            return codes, self._words(s, absolute)
        return None

    def _words(self, s: Dia2Stream, frame: int) -> list[tuple[str, int, int]]:
        transcript = s.machine.transcript
        out = []
        while s.words_sent < len(transcript) and transcript[s.words_sent][1] <= frame:
            word, step = transcript[s.words_sent]
            following = transcript[s.words_sent + 1][1] if s.words_sent + 1 < len(transcript) else None
            start = max(0, step - frame) * FRAME_SAMPLES
            length = (following - step) if following is not None else 2
            out.append((word, start, start + max(1, length) * FRAME_SAMPLES))
            s.words_sent += 1
        return out

    def _fill_audio(self, s: Dia2Stream) -> None:
        """The step's audio inputs: each codebook's token ``delay`` steps back, BOS where none exists."""
        bos = self.rt.constants.audio_bos
        target = s.step_tokens[:, 2:, 0]
        target.copy_(s.audio_buf[:, :, s.pos])
        late = (self.delay_tensor > s.pos).unsqueeze(0).expand_as(target) | (target < 0)
        target.copy_(torch.where(late, torch.full_like(target, bos), target))

    def _step(self, streams: Sequence[Dia2Stream]) -> None:
        rt, opts, constants = self.rt, self.opts, self.rt.constants
        from dia2.audio.grid import mask_audio_logits
        from dia2.runtime.guidance import apply_classifier_guidance

        cfg_on = opts.cfg_scale != 1.0
        with torch.inference_mode():
            for s in streams:
                if s.pos + 1 >= self.limit:
                    self._rollover(s)
                self._fill_audio(s)
                s.step_tokens[1:, 0, 0] = constants.zero
                s.step_tokens[1:, 1, 0] = constants.pad
                s.inputs.append((int(s.step_tokens[0, 0, 0]), int(s.step_tokens[0, 1, 0])))
            tokens = torch.cat([s.step_tokens for s in streams])
            positions = torch.tensor([[s.pos] for s in streams for _ in range(2)], device=rt.device)
            hidden, text_logits, cb0_logits = transformer_step(
                rt.model, tokens, positions, [s.cache for s in streams], self.mlps
            )
            n = len(streams)
            prev = torch.empty(2 * n, dtype=torch.long, device=rt.device)
            main = torch.empty_like(prev)
            aux = torch.empty_like(prev)
            for i, s in enumerate(streams):
                rows = slice(2 * i, 2 * i + 2)
                guided = apply_classifier_guidance(
                    text_logits[rows], cfg_on, opts.cfg_scale, opts.cfg_filter_k
                )[:1]
                text_token = int(
                    sample_token(guided, opts.text_temperature, opts.text_top_k, s.generator).item()
                )
                m, a, _ = rt.machine.process(s.step, s.machine, text_token)
                second = a if a != -1 else constants.pad
                if s.first_word is None and m == constants.new_word:
                    s.first_word = s.step - opts.initial_padding
                s.step_tokens[:, 0, 0] = m
                s.step_tokens[:, 1, 0] = second
                guided_cb0 = apply_classifier_guidance(
                    cb0_logits[rows], cfg_on, opts.cfg_scale, opts.cfg_filter_k
                )[:1]
                masked = mask_audio_logits(guided_cb0, constants.audio_pad, constants.audio_bos)
                token = sample_token(masked, opts.audio_temperature, opts.audio_top_k, s.generator).view(1)
                s.audio_buf[:, 0, s.pos + 1] = token
                prev[rows] = token
                main[rows] = m
                aux[rows] = second
            dep_cache = rt.model.depformer.init_cache(2 * n, rt.device, self.depth)
            for stage in range(self.depth):
                logits, _ = rt.model.depformer.forward_step(
                    prev, hidden, stage, dep_cache, main if stage == 0 else None, aux if stage == 0 else None
                )
                for i, s in enumerate(streams):
                    rows = slice(2 * i, 2 * i + 2)
                    guided = apply_classifier_guidance(
                        logits[rows], cfg_on, opts.cfg_scale, opts.cfg_filter_k
                    )[:1]
                    token = sample_token(guided, opts.audio_temperature, opts.audio_top_k, s.generator).view(
                        1
                    )
                    s.audio_buf[:, stage + 1, s.pos + 1] = token
                    prev[rows] = token
            for s in streams:
                s.pos += 1
                end = s.machine.end_step
                if end is not None and s.ended and s.cutoff is None:
                    s.cutoff = end + self.flush_tail

    def _rollover(self, s: Dia2Stream) -> None:
        """Refill the cache from the voice snapshot and replay the most recent steps into it."""
        snap = s.snapshot
        room = self.limit - snap.length - 2 * self.max_delay - 2
        replay = max(0, min(len(s.inputs), s.pos - snap.length, room // 2))
        start = s.pos - replay
        columns = s.audio_buf[:, :, start : s.pos + self.max_delay + 1].clone()
        recent = list(s.inputs)[len(s.inputs) - replay :]
        saved_tokens = s.step_tokens.clone()
        for slot, k, v in zip(s.cache.slots, snap.keys, snap.values, strict=True):
            slot.keys[:, :, : snap.length] = k
            slot.values[:, :, : snap.length] = v
            slot.length.fill_(snap.length)
        s.audio_buf.fill_(self.rt.constants.ungenerated)
        s.audio_buf[:, :, : snap.audio.shape[-1]] = snap.audio
        s.audio_buf[:, :, snap.length : snap.length + columns.shape[-1]] = columns
        shift = start - snap.length
        s.pos = snap.length
        for main, second in recent:
            self._fill_audio(s)
            s.step_tokens[0, 0, 0], s.step_tokens[0, 1, 0] = main, second
            s.step_tokens[1:, 0, 0] = self.rt.constants.zero
            s.step_tokens[1:, 1, 0] = self.rt.constants.pad
            positions = torch.full((2, 1), s.pos, dtype=torch.long, device=self.rt.device)
            transformer_step(self.rt.model, s.step_tokens, positions, [s.cache], self.mlps)
            s.pos += 1
        s.step_tokens.copy_(saved_tokens)
        s.base += shift
        s.next_frame -= shift
        s.rollovers += 1
