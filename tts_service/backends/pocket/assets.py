"""Pocket TTS weights, tokenizer and voices, from the local Hugging Face cache only.

The library resolves ``hf://repo/file@revision`` references by downloading them. Warmline never
downloads: every reference here is resolved with ``local_files_only=True`` (stricter than
``HF_HUB_OFFLINE``, and it holds whatever the environment says), the config is rewritten with the
local paths and only then handed to ``TTSModel.load_model``. A missing file becomes a
``ModelNotAvailableError`` whose message lists the exact ``hf download`` commands to run on a
machine with internet access.

Voices are snapshots of the FlowLM KV cache after the voice prompt (``VoiceSnapshot``): computed
once per voice from a WAV file (voice cloning), or read from a ``.safetensors`` state in the
library's own export format (the packaged named voices, or one written by ``write_voice``).

This module must never download, and never run on the event loop.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import safetensors
import safetensors.torch
import torch

from tts_service.backends.pocket.model import FlowRunner
from tts_service.backends.pocket.pocket_tts_compat import predefined_voice_names
from tts_service.errors import ModelNotAvailableError, UnknownVoiceError

Tensor = torch.Tensor
AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg")
INSTALL_HINT = "pip install pocket-tts==4.0.1"


@dataclass(frozen=True, slots=True, eq=False)
class VoiceSnapshot:
    """The FlowLM keys and values after a voice prompt: ``layers[i]`` is ``[2, length, heads, dim]``."""

    layers: tuple[Tensor, ...]
    length: int


def _split_hf(ref: str) -> tuple[str, str, str | None]:
    path = ref.removeprefix("hf://")
    parts = path.split("/")
    repo_id = "/".join(parts[:2])
    filename = "/".join(parts[2:])
    revision = None
    if "@" in filename:
        filename, revision = filename.split("@", 1)
    return repo_id, filename, revision


def resolve_local(ref: str) -> Path:
    """The local file behind ``ref`` (``hf://``, ``https://`` or a path); raises FileNotFoundError."""
    if ref.startswith("hf://"):
        from huggingface_hub import hf_hub_download

        repo_id, filename, revision = _split_hf(ref)
        return Path(hf_hub_download(repo_id, filename, revision=revision, local_files_only=True))
    if ref.startswith(("http://", "https://")):
        # the library's own cache layout for URLs (pocket_tts.utils.utils.download_if_necessary)
        suffix = Path(ref.split("?")[0]).suffix
        cached = Path.home() / ".cache" / "pocket_tts" / (hashlib.sha256(ref.encode()).hexdigest() + suffix)
        if not cached.exists():
            raise FileNotFoundError(cached)
        return cached
    path = Path(ref)
    if not path.exists():
        raise FileNotFoundError(path)
    return path


def fetch_command(ref: str) -> str:
    """How to put ``ref`` into the local cache, for error messages."""
    if ref.startswith("hf://"):
        repo_id, filename, revision = _split_hf(ref)
        rev = f" --revision {revision}" if revision else ""
        return f"hf download {repo_id} {filename}{rev}"
    return f"copy {ref} to this machine"


def _hf_home() -> str:
    from huggingface_hub import constants

    return str(constants.HF_HUB_CACHE)


def load_local_model(
    language: str,
    *,
    config_path: str | None = None,
    temp: float | None = None,
    eos_threshold: float | None = None,
    quantize: bool = False,
) -> tuple[Any, bool]:
    """``(TTSModel, has_voice_cloning)`` from local files only; raises ModelNotAvailableError."""
    try:
        from pocket_tts import TTSModel
        from pocket_tts.utils.config import CONFIGS_DIR, load_config
    except ImportError as exc:
        raise ModelNotAvailableError(f"pocket-tts is not installed: {INSTALL_HINT}") from exc
    source = Path(config_path) if config_path else CONFIGS_DIR / f"{language}.yaml"
    if not source.exists():
        known = ", ".join(sorted(p.stem for p in CONFIGS_DIR.glob("*.yaml")))
        raise ModelNotAvailableError(f"no Pocket TTS config {source}; packaged languages: {known}")
    config = load_config(source).model_dump()
    missing: list[str] = []
    has_cloning = True

    def local(ref: str | None, *, required: bool = True) -> str | None:
        if ref is None:
            return None
        try:
            return str(resolve_local(ref))
        except FileNotFoundError:
            if required:
                missing.append(ref)
            return None

    bundle, fallback = config.get("weights_path"), config.get("weights_path_without_voice_cloning")
    if bundle is not None:
        resolved = local(bundle, required=fallback is None)
        if resolved is None and fallback is not None:
            has_cloning = False
            resolved = local(fallback)
        config["weights_path"] = resolved
        config["weights_path_without_voice_cloning"] = None
    for section in ("flow_lm", "mimi"):
        if config[section].get("weights_path") is not None:
            config[section]["weights_path"] = local(config[section]["weights_path"])
    table = config["flow_lm"]["lookup_table"]
    table["tokenizer_path"] = local(table["tokenizer_path"])
    if missing:
        commands = "; ".join(fetch_command(ref) for ref in missing)
        cloning = (
            f" For voice cloning also run `{fetch_command(bundle)}` after accepting the terms on the "
            f"kyutai/pocket-tts model page and `hf auth login`."
            if bundle is not None and fallback is not None
            else ""
        )
        raise ModelNotAvailableError(
            f"Pocket TTS ({source.stem}) is not in the local Hugging Face cache ({_hf_home()}) and "
            f"Warmline never downloads. On a machine with internet access run: {commands}.{cloning} "
            f"Then copy the cache here, or point HF_HOME at a copy of it."
        )
    with tempfile.TemporaryDirectory(prefix="warmline-pocket-") as tmp:
        resolved_config = Path(tmp) / f"{source.stem}.yaml"
        resolved_config.write_text(json.dumps(config), encoding="utf-8")
        try:
            model = TTSModel.load_model(
                config=str(resolved_config), temp=temp, eos_threshold=eos_threshold, quantize=quantize
            )
        except Exception as exc:
            raise ModelNotAvailableError(f"Pocket TTS weights could not be loaded: {exc}") from exc
    model.has_voice_cloning = has_cloning
    return model, has_cloning


# -- voices --------------------------------------------------------------------------------------


def named_voice_ref(language: str, name: str) -> str | None:
    """The ``hf://`` reference of a packaged voice state, or None when ``name`` is not one."""
    from pocket_tts.utils.utils import get_predefined_voice

    if name not in predefined_voice_names():
        return None
    return str(get_predefined_voice(language=language, name=name))


def named_voices() -> tuple[str, ...]:
    """The names of the packaged voices."""
    return predefined_voice_names()


def flow_attention_names(flow_lm: Any) -> list[str]:
    """Module names of the FlowLM attention layers, in order (the state-file keys)."""
    from pocket_tts.modules.attention import StreamingMultiheadAttention

    return [n for n, m in flow_lm.named_modules() if isinstance(m, StreamingMultiheadAttention)]


def snapshot_from_state(flow_lm: Any, state: dict[str, dict[str, Tensor]]) -> VoiceSnapshot:
    """A ``VoiceSnapshot`` from a library model state (``get_state_for_audio_prompt`` or a file)."""
    layers: list[Tensor] = []
    length = -1
    for name in flow_attention_names(flow_lm):
        module_state = state.get(name)
        if module_state is None or "cache" not in module_state:
            raise UnknownVoiceError(f"voice state has no cache for {name}")
        cache = module_state["cache"]
        if "offset" in module_state:
            n = int(module_state["offset"].view(-1)[0].item())
        elif "current_end" in module_state:
            n = int(module_state["current_end"].shape[0])
        else:
            n = int(cache.shape[2])
        if length not in (-1, n):
            raise UnknownVoiceError("voice state layers disagree on the prompt length")
        length = n
        layers.append(cache[:, 0, :n].detach().clone())
    return VoiceSnapshot(tuple(layers), max(length, 0))


def read_voice_file(flow_lm: Any, path: Path) -> VoiceSnapshot:
    """A voice state saved by ``write_voice`` or ``pocket-tts export-voice``."""
    state: dict[str, dict[str, Tensor]] = {}
    try:
        with safetensors.safe_open(str(path), framework="pt") as f:
            for key in f.keys():  # noqa: SIM118 - safe_open is not a mapping
                module_name, tensor_key = key.rsplit("/", 1)
                state.setdefault(module_name, {})[tensor_key] = f.get_tensor(key)
    except (OSError, ValueError, safetensors.SafetensorError) as exc:
        raise UnknownVoiceError(f"cannot read voice state {path}: {exc}") from exc
    return snapshot_from_state(flow_lm, state)


def write_voice(flow_lm: Any, snapshot: VoiceSnapshot, path: Path) -> None:
    """Save ``snapshot`` in the library's export format (``pocket-tts`` can load it too)."""
    tensors: dict[str, Tensor] = {}
    for name, kv in zip(flow_attention_names(flow_lm), snapshot.layers, strict=True):
        tensors[f"{name}/cache"] = kv.unsqueeze(1).contiguous().cpu()
        tensors[f"{name}/offset"] = torch.tensor([snapshot.length], dtype=torch.long)
        tensors[f"{name}/pad"] = torch.zeros(1, dtype=torch.long)
    safetensors.torch.save_file(tensors, str(path))


def voice_conditioning(model: Any, path: Path, max_seconds: float) -> Tensor:
    """The voice-prompt conditioning ``[1, T, dim]`` of an audio file, as the library builds it.

    Same steps as ``TTSModel.get_state_for_audio_prompt`` (read, resample, end on a pause, Mimi
    encode, speaker projection, BOS) without its forward pass, which draws from the global RNG.
    """
    from pocket_tts.data.audio import audio_read
    from pocket_tts.data.audio_utils import convert_audio, end_on_pause

    if not model.has_voice_cloning:
        raise UnknownVoiceError(
            f"cannot clone {path}: the weights here are kyutai/pocket-tts-without-voice-cloning; fetch "
            f"kyutai/pocket-tts (accept its terms first) to clone voices from audio"
        )
    try:
        audio, rate = audio_read(path)
    except (OSError, ValueError, RuntimeError, ImportError, EOFError) as exc:
        raise UnknownVoiceError(f"cannot read voice prompt {path}: {exc}") from exc
    if audio.shape[-1] == 0:
        raise UnknownVoiceError(f"voice prompt {path} is empty")
    audio = audio[..., : int(max_seconds * rate)]
    sample_rate = int(model.config.mimi.sample_rate)
    audio = end_on_pause(convert_audio(audio, rate, sample_rate, 1), sample_rate)
    flow_lm = model.flow_lm
    device = flow_lm.speaker_proj_weight.device
    latents = model.mimi.encode_to_latent(audio.unsqueeze(0).to(device)).to(torch.float32)
    prompt = torch.nn.functional.linear(latents, flow_lm.speaker_proj_weight)
    if flow_lm.insert_bos_before_voice:
        prompt = torch.cat([flow_lm.bos_before_voice, prompt], dim=1)
    return prompt


def load_voice(model: Any, flow: FlowRunner, language: str, voice: str, max_seconds: float) -> VoiceSnapshot:
    """A voice's snapshot: clone a WAV, read a saved state, or a named voice from the local cache."""
    lower = voice.lower()
    if lower.endswith(AUDIO_SUFFIXES):
        path = Path(voice)
        if not path.is_file():
            raise UnknownVoiceError(f"voice prompt {voice!r} is not a file")
        conditioning = voice_conditioning(model, path, max_seconds)
        cache = flow.new_cache(conditioning.shape[1], conditioning.device)
        flow.prefill_conditioning(cache, conditioning)
        return VoiceSnapshot(tuple(kv.clone() for kv in cache.layers), cache.offset)
    if lower.endswith(".safetensors"):
        if not Path(voice).is_file():
            raise UnknownVoiceError(f"voice state {voice!r} is not a file")
        return read_voice_file(model.flow_lm, Path(voice))
    ref = named_voice_ref(language, voice)
    if ref is None:
        raise UnknownVoiceError(
            f"pocket voice {voice!r} is unknown: use a named voice ({', '.join(named_voices())}), "
            f"a .wav file to clone, or a .safetensors voice state"
        )
    try:
        path = resolve_local(ref)
    except FileNotFoundError as exc:
        raise UnknownVoiceError(
            f"pocket voice {voice!r} is not in the local cache and Warmline never downloads; on a "
            f"machine with internet access run `{fetch_command(ref)}` and copy the cache here"
        ) from exc
    return read_voice_file(model.flow_lm, path)
