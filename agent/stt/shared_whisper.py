"""Pipecat's local Whisper STT for the agent: one model per process, shared by every call.

    model = load_whisper_model("base")                    # at startup; downloads on first use
    stt = SharedWhisperSTTService(whisper_model=model)    # per call: no load

Import it only with faster-whisper installed (``pip install 'pipecat-ai[whisper]'``): Pipecat's
whisper module imports it at once, so ``agent.stt.choice`` checks for it first.

Pipecat's ``WhisperSTTService`` loads its model in ``__init__``, synchronously, and the agent builds
one STT per call on the event loop: a load per call (seconds, and the download the first time)
would stall every call in progress. Here the model loads once, before serving, and each service
takes it; faster-whisper's models may transcribe from several threads at once (Pipecat runs each
transcription in a thread). The service also resamples each segment to 16 kHz, the only rate
faster-whisper reads raw PCM at, so 8 kHz phone calls are heard at the right speed.

This module never loads a model when a call starts.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncGenerator
from typing import Any

from pipecat.frames.frames import Frame
from pipecat.services.whisper.stt import Model, WhisperSTTService, language_to_whisper_language
from pipecat.transcriptions.language import Language

from tts_service.engine.resample import resample_pcm16

#: the rate faster-whisper assumes for raw PCM
WHISPER_SAMPLE_RATE = 16000
#: Pipecat's default: an English-only distilled model, about 800 MB
DEFAULT_WHISPER_MODEL = Model.DISTIL_MEDIUM_EN.value


@functools.cache
def load_whisper_model(name: str) -> Any:
    """faster-whisper's model ``name`` (a size such as ``base`` or a Hugging Face repo), loaded once.

    Downloads the weights on first use; blocks while it loads, so call it before serving.
    """
    whisper_model = importlib.import_module("faster_whisper").WhisperModel
    return whisper_model(name, device="auto", compute_type="default")  # Pipecat's defaults


def unsupported_language(model: Any, name: str, language: Language) -> str | None:
    """Why ``model`` cannot transcribe ``language`` (an English-only model, say), or None."""
    supported = getattr(model, "supported_languages", None)
    code = language_to_whisper_language(language)
    if not supported or code in supported:
        return None
    return f"whisper model {name!r} cannot transcribe {code!r}; it knows {', '.join(sorted(supported))}"


class SharedWhisperSTTService(WhisperSTTService):
    """``WhisperSTTService`` on a model loaded by ``load_whisper_model``, any input rate."""

    def __init__(self, *, whisper_model: Any, **kwargs: Any) -> None:
        self._shared_model = whisper_model  # before the base __init__, which calls _load
        super().__init__(**kwargs)

    def _load(self) -> None:
        """Take the shared model instead of loading a copy (the base class's ``_load``)."""
        self._model = self._shared_model
        unsupported = self._unsupported_language()
        if unsupported:
            raise ValueError(unsupported)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
        """Transcribe one segment of int16 PCM at the pipeline's rate, resampled to 16 kHz."""
        if self.sample_rate != WHISPER_SAMPLE_RATE:
            audio = resample_pcm16(audio, self.sample_rate, WHISPER_SAMPLE_RATE).astype("<i2").tobytes()
        async for frame in super().run_stt(audio):
            yield frame


__all__ = [
    "DEFAULT_WHISPER_MODEL",
    "WHISPER_SAMPLE_RATE",
    "SharedWhisperSTTService",
    "load_whisper_model",
    "unsupported_language",
]
