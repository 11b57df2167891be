"""The dia2 backend: Nari Labs Dia2 driven step by step, its state machine and KV cache warm all call.

Dia2 is a streaming dialogue model: each step (80 ms) it emits a text action (pad or new word)
and Mimi codebook tokens; a state machine feeds the next word of a queue whenever the model asks
for one. So ``feed_text`` appends words to the *live* queue (no restart), word times are the steps
at which the machine consumed each word (its transcript), and ``[S1]``/``[S2]`` tags pass through
to the tokens. Codebook ``k`` is delayed by ``delay_pattern[k]`` steps, so a step makes one whole
frame ``max(delay)`` steps after its text; ``step`` advances the model until a frame is ready.

Dia2 is installed from its git repository by users with a GPU; it is imported lazily and a
missing install is a ``ModelNotAvailableError``. Weights come from the local Hugging Face cache
only. Known pitfalls of its current runtime handled here: its ``MimiCodec.decode`` unpacks two
values where recent transformers return one (we decode through ``dia2_model.decode_windows``);
its generation loop trims its audio buffer, so it runs once per state (we run our own loop); a
first delay of 0 reads an ungenerated token (we feed BOS for anything not generated yet).

This module must never download, never load weights in a constructor, never touch asyncio.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tts_service.backends.dia2.dia2_compat import TESTED_DIA2
from tts_service.backends.dia2.state import Dia2Engine, Dia2Options, Dia2Snapshot, Dia2Stream
from tts_service.engine.ports import Capabilities, FrameStep, VoiceState
from tts_service.engine.types import WordMark
from tts_service.errors import InvalidInputError, ModelNotAvailableError, SynthesisError

SAMPLE_RATE = 24000
FRAME_SAMPLES = 1920
INSTALL_HINT = "pip install git+https://github.com/nari-labs/dia2"
_EMPTY = np.zeros(0, np.float32)


def import_dia2() -> Any:
    """The ``dia2`` package, or ModelNotAvailableError saying how to install it."""
    try:
        import dia2
    except ImportError as exc:
        raise ModelNotAvailableError(
            f"Dia2 is not installed ({exc}); it is not on the package index. Install it on a machine with "
            f"a CUDA GPU: {INSTALL_HINT}"
        ) from exc
    return dia2


def load_local_runtime(repo: str, device: str, dtype: str) -> Any:
    """Dia2's ``RuntimeContext`` from the local Hugging Face cache only; ModelNotAvailableError if absent."""
    from huggingface_hub import hf_hub_download, snapshot_download

    import_dia2()
    from dia2.runtime.context import build_runtime

    try:
        config = hf_hub_download(repo, "config.json", local_files_only=True)
        weights = hf_hub_download(repo, "model.safetensors", local_files_only=True)
        manifest: dict[str, str] = {}
        with contextlib.suppress(FileNotFoundError):  # the manifest is optional
            manifest = json.loads(
                Path(hf_hub_download(repo, "dia2_assets.json", local_files_only=True)).read_text()
            )
        tokenizer = snapshot_download(manifest.get("tokenizer") or repo, local_files_only=True)
        mimi = snapshot_download(manifest.get("mimi") or "kyutai/mimi", local_files_only=True)
    except FileNotFoundError as exc:
        raise ModelNotAvailableError(
            f"Dia2 ({repo}) is not in the local Hugging Face cache and Warmline never downloads. On a "
            f"machine with internet access run `hf download {repo}` and `hf download kyutai/mimi`, then "
            f"copy the cache here or point HF_HOME at it ({exc})"
        ) from exc
    previous = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        runtime, _, _ = build_runtime(
            config_path=config,
            weights_path=weights,
            tokenizer_id=tokenizer,
            repo_id=None,
            mimi_id=mimi,
            device=device,
            dtype_pref=dtype,
        )
    except Exception as exc:
        raise ModelNotAvailableError(f"Dia2 could not be loaded from the local cache: {exc}") from exc
    finally:
        if previous is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = previous
    return runtime


class Dia2VoiceState(VoiceState):
    """One call's Dia2 state; only the backend that made it may use it."""

    def __init__(self, voice: str, seed: int | None, stream: Dia2Stream) -> None:
        super().__init__(voice)
        self.seed = seed
        self.stream = stream

    @property
    def kv_offset(self) -> int:
        """Positions filled in the transformer cache (voice prefix, then one per step)."""
        return self.stream.pos


class Dia2Backend:
    """Dia2 behind the ``FrameBackend`` protocol. Call ``load()`` once before serving."""

    name = "dia2"
    default_voice = "default"

    def __init__(
        self,
        *,
        repo: str = "nari-labs/Dia2-2B",
        device: str = "cuda",
        dtype: str = "auto",
        options: Dia2Options | None = None,
        runtime: Any = None,
        context_limit: int | None = None,
    ) -> None:
        import_dia2()
        self._repo = repo
        self._device = device
        self._dtype = dtype
        self._options = options or Dia2Options()
        self._runtime = runtime
        self._context_limit = context_limit
        self._lock = threading.Lock()
        self._engine: Dia2Engine | None = None
        self._voices: dict[str, Dia2Snapshot] = {}
        self.capabilities = Capabilities(
            sample_rate=SAMPLE_RATE,
            frame_native=True,
            incremental_text=True,
            word_times=True,
            context_limit=context_limit,
            own_normalizer=False,
            speaker_tags=True,
            speed_range=(1.0, 1.0),
        )

    @classmethod
    def from_runtime(cls, runtime: Any, **options: Any) -> Dia2Backend:
        """A backend over an already built ``dia2.runtime.context.RuntimeContext`` (tests, custom weights)."""
        return cls(runtime=runtime, **options)

    @property
    def runtime(self) -> Any:
        """Dia2's ``RuntimeContext`` behind this backend (loaded on first use)."""
        return self._eng().rt

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Build the runtime from local files (never downloads) and warm up one stream."""
        with self._lock:
            if self._engine is not None:
                return
            TESTED_DIA2.check()
            if self._runtime is None:
                self._runtime = load_local_runtime(self._repo, self._device, self._dtype)
            limit = self._context_limit or int(self._runtime.config.runtime.max_context_steps)
            self._engine = Dia2Engine(self._runtime, self._options, limit, self._options.compile_backend)
            self.capabilities = Capabilities(
                sample_rate=SAMPLE_RATE,
                frame_native=True,
                incremental_text=True,
                word_times=True,
                context_limit=limit,
                own_normalizer=False,
                speaker_tags=True,
                speed_range=(1.0, 1.0),
            )
        state = self.new_voice_state(self.default_voice, seed=0)
        self.feed_text(state, "[S1] Hello.")
        self.end_text(state)
        self.step(state)

    def _eng(self) -> Dia2Engine:
        if self._engine is None:
            self.load()
        assert self._engine is not None
        return self._engine

    # -- voices ----------------------------------------------------------------------------------

    def voices(self) -> tuple[str, ...]:
        """``default`` (no prefix) and the voice prompts already loaded (WAV paths)."""
        return tuple(dict.fromkeys([self.default_voice, *self._voices]))

    def new_voice_state(self, voice: str, seed: int | None = None) -> Dia2VoiceState:
        """A call's state: ``default``, or a WAV prompt (its transcript as ``.json`` words beside it)."""
        engine = self._eng()
        snap = self._voices.get(voice)
        if snap is None:
            with self._lock:
                snap = self._voices.get(voice)
                if snap is None:
                    snap = engine.snapshot(None if voice == self.default_voice else voice)
                    self._voices[voice] = snap
        stream = engine.new_stream(snap, seed)
        return Dia2VoiceState(voice, seed, stream)

    # -- the conversation ------------------------------------------------------------------------

    def _state(self, state: VoiceState) -> Dia2VoiceState:
        if not isinstance(state, Dia2VoiceState):
            raise InvalidInputError(f"not a dia2 voice state: {type(state).__name__}")
        return state

    def reset_context(self, state: VoiceState) -> None:
        """Back to the voice snapshot: cache, word queue, decoder window and seed as new."""
        s = self._state(state)
        self._eng().restore(s.stream)

    def feed_text(self, state: VoiceState, text: str) -> None:
        """Append words (speaker tags kept) to the live word queue."""
        s = self._state(state)
        try:
            self._eng().feed(s.stream, text)
        except (ValueError, KeyError, TypeError) as exc:
            raise SynthesisError(f"dia2 could not read the text: {exc}") from exc

    def end_text(self, state: VoiceState) -> None:
        """No more words: the model may finish once it asks for the next one."""
        self._state(state).stream.ended = True

    def discard_text(self, state: VoiceState) -> None:
        """Forget queued words; what was spoken stays in the cache."""
        self._eng().discard(self._state(state).stream)

    # -- stepping --------------------------------------------------------------------------------

    def step(self, state: VoiceState) -> FrameStep:
        """The next 80 ms frame (empty while waiting for words), with the words that start in it."""
        return self.step_batch([state])[0]

    def step_batch(self, states: Sequence[VoiceState]) -> list[FrameStep]:
        """One frame for each call, stepping all calls that need a step in one forward pass."""
        own = [self._state(s) for s in states]
        if len({id(s) for s in own}) != len(own):
            raise InvalidInputError("step_batch got the same voice state twice")
        engine = self._eng()
        streams = [s.stream for s in own]
        frames = engine.frames(streams)
        out = []
        for stream, frame in zip(streams, frames, strict=True):
            if frame is None:
                out.append(FrameStep(_EMPTY, (), finished=engine.finished(stream)))
                continue
            audio, words = frame
            marks = tuple(WordMark(w, a, b) for w, a, b in words)
            out.append(FrameStep(audio, marks, finished=engine.finished(stream)))
        return out
