"""Piper voices on disk: finding ``NAME.onnx`` + ``NAME.onnx.json`` and reading the config.

A voice is the user's two files. It is named by its path (``/x/en_US-joe-medium.onnx``) or by
its name (``en_US-joe-medium``) in a voices folder: ``--voices-dir``, else ``$WARMLINE_VOICES``
(several folders joined with ``os.pathsep``). Nothing is ever downloaded: a name found nowhere is
an ``UnknownVoiceError`` that lists where it looked.

The config keys read here are Piper's voice format (``audio.sample_rate``, ``espeak.voice``,
``language.code``, ``inference``, ``phoneme_id_map``, ``num_speakers``, ``speaker_id_map``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tts_service.errors import InvalidInputError, UnknownVoiceError

#: where voices are looked for when no folder is given
VOICES_ENV = "WARMLINE_VOICES"
MODEL_SUFFIX = ".onnx"
CONFIG_SUFFIX = ".onnx.json"


class VoiceConfigError(InvalidInputError):
    """A voice's ``.onnx.json`` is missing, unreadable or not a Piper voice config."""


@dataclass(frozen=True, slots=True)
class VoiceConfig:
    """What the backend needs from a Piper voice config."""

    sample_rate: int
    #: espeak-ng's voice for the phonemes (``en-us``, ``de``, ``cmn``)
    espeak_voice: str
    #: the voice's language as a BCP 47 tag (``en-US``)
    language: str
    noise_scale: float
    length_scale: float
    noise_w: float
    phoneme_ids: Mapping[str, tuple[int, ...]]
    num_speakers: int = 1
    speakers: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VoiceFiles:
    """A voice's name and its two files."""

    name: str
    model: Path
    config: Path


def voice_dirs(voices_dir: str | os.PathLike[str] | None, env: Mapping[str, str] = os.environ) -> list[Path]:
    """The folders to look in: ``voices_dir``, else those in ``$WARMLINE_VOICES``."""
    if voices_dir is not None:
        return [Path(voices_dir)]
    return [Path(p) for p in env.get(VOICES_ENV, "").split(os.pathsep) if p]


def scan(dirs: Iterable[Path]) -> list[VoiceFiles]:
    """Every ``NAME.onnx`` in ``dirs`` (not recursive), sorted by name; the first folder wins a name."""
    found: dict[str, VoiceFiles] = {}
    for folder in dirs:
        if not folder.is_dir():
            continue
        for model in sorted(folder.glob(f"*{MODEL_SUFFIX}")):
            name = model.name[: -len(MODEL_SUFFIX)]
            found.setdefault(name, VoiceFiles(name, model, model.with_name(model.name + ".json")))
    return [found[k] for k in sorted(found)]


def locate(spec: str, dirs: Sequence[Path]) -> VoiceFiles:
    """The files of ``spec``: a path to a ``.onnx`` (or its ``.onnx.json``), or a name in ``dirs``."""
    path = Path(spec)
    if spec.endswith(CONFIG_SUFFIX):
        path = Path(spec[: -len(".json")])
    if path.suffix == MODEL_SUFFIX or os.sep in spec:
        if path.suffix != MODEL_SUFFIX:
            path = path.with_name(path.name + MODEL_SUFFIX)
        if not path.is_file():
            raise UnknownVoiceError(f"no Piper voice at {path}")
        return VoiceFiles(path.name[: -len(MODEL_SUFFIX)], path, path.with_name(path.name + ".json"))
    for folder in dirs:
        model = folder / f"{spec}{MODEL_SUFFIX}"
        if model.is_file():
            return VoiceFiles(spec, model, model.with_name(model.name + ".json"))
    where = ", ".join(str(d) for d in dirs) or f"nowhere (no --voices-dir, ${VOICES_ENV} unset)"
    raise UnknownVoiceError(
        f"Piper voice {spec!r} not found: looked for {spec}{MODEL_SUFFIX} in {where}; Warmline never "
        f"downloads voices: put NAME.onnx and NAME.onnx.json there, or give the path"
    )


def read_config(files: VoiceFiles) -> VoiceConfig:
    """Parse ``files.config``; raises VoiceConfigError naming the voice and what is wrong."""
    try:
        with open(files.config, encoding="utf-8") as f:
            raw = json.load(f)
    except FileNotFoundError as exc:
        raise VoiceConfigError(f"voice {files.name!r}: its config {files.config} is missing") from exc
    except (OSError, ValueError) as exc:
        raise VoiceConfigError(f"voice {files.name!r}: cannot read {files.config} ({exc})") from exc
    try:
        return _parse(raw)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        message = f"voice {files.name!r}: {files.config} is not a Piper voice config ({exc})"
        raise VoiceConfigError(message) from exc


def _parse(raw: Any) -> VoiceConfig:
    if raw.get("phoneme_type", "espeak") != "espeak":
        raise ValueError(f"phoneme_type {raw['phoneme_type']!r}: only espeak voices are supported")
    inference = raw.get("inference", {})
    ids = {str(k): tuple(int(i) for i in v) for k, v in raw["phoneme_id_map"].items()}
    for needed in ("_", "^", "$"):
        if needed not in ids:
            raise ValueError(f"phoneme_id_map lacks {needed!r}")
    espeak_voice = str(raw["espeak"]["voice"])
    code = str(raw.get("language", {}).get("code") or espeak_voice)
    rate = int(raw["audio"]["sample_rate"])
    if not 8000 <= rate <= 48000:
        raise ValueError(f"sample_rate {rate}")
    return VoiceConfig(
        sample_rate=rate,
        espeak_voice=espeak_voice,
        language=code.replace("_", "-"),
        noise_scale=float(inference.get("noise_scale", 0.667)),
        length_scale=float(inference.get("length_scale", 1.0)),
        noise_w=float(inference.get("noise_w", 0.8)),
        phoneme_ids=ids,
        num_speakers=int(raw.get("num_speakers", 1)),
        speakers={str(k): int(v) for k, v in (raw.get("speaker_id_map") or {}).items()},
    )


__all__ = [
    "VOICES_ENV",
    "VoiceConfig",
    "VoiceConfigError",
    "VoiceFiles",
    "locate",
    "read_config",
    "scan",
    "voice_dirs",
]
