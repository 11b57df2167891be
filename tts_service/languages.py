"""Voices and their languages, for every transport: which language a voice speaks, which voice to
use for a language, and the list of voices a server offers.

A backend that serves voices in several languages (piper) says which with ``voice_language``;
the others (hibari, pocket, dia2) speak English only, so their voices are ``en``. Every
transport's ``language`` setting goes through ``choose_voice``: a voice named with a language it
does not speak, or a language no loaded voice speaks, is ``unsupported_language``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tts_service.engine.ports import Backend
from tts_service.errors import UnsupportedLanguageError

#: the language of backends that do not say (every one but piper speaks English only)
DEFAULT_LANGUAGE = "en"


@runtime_checkable
class MultilingualBackend(Protocol):
    """A backend whose voices speak different languages."""

    def voice_language(self, voice: str) -> str:
        """The BCP 47 language (``en-US``) ``voice`` speaks; raises UnknownVoiceError."""


def voice_language(backend: Backend, voice: str) -> str:
    """The language ``voice`` of ``backend`` speaks."""
    if isinstance(backend, MultilingualBackend):
        return backend.voice_language(voice)
    return DEFAULT_LANGUAGE


def speaks(language: str, voice_lang: str) -> bool:
    """Whether a voice of ``voice_lang`` (``en-US``) speaks ``language`` (``en``, ``en_us``, ``EN-US``)."""
    asked = language.strip().replace("_", "-").lower()
    have = voice_lang.lower()
    return bool(asked) and (have == asked or have.startswith(asked + "-") or asked.startswith(have + "-"))


def choose_voice(backend: Backend, *, current: str, voice: str | None, language: str | None) -> str:
    """The voice a session should use after asking for ``voice`` and/or ``language``.

    ``voice`` alone: that voice. ``language`` alone: the current voice if it speaks it, else the
    first loaded voice that does. Both: the voice, which must speak the language.
    """
    if language is None:
        return voice if voice is not None else current
    if voice is not None:
        have = voice_language(backend, voice)
        if not speaks(language, have):
            raise UnsupportedLanguageError(f"voice {voice!r} speaks {have}, not {language!r}")
        return voice
    if speaks(language, voice_language(backend, current)):
        return current
    catalog = voice_catalog(backend)
    for entry in catalog:
        if speaks(language, entry["language"]):
            return entry["id"]
    have = ", ".join(sorted({e["language"] for e in catalog}))
    raise UnsupportedLanguageError(f"no loaded voice speaks {language!r}; these speak {have}")


def voice_catalog(backend: Backend) -> list[dict[str, str]]:
    """``[{"id": voice, "language": language}, ...]`` for every voice ``backend`` serves."""
    return [{"id": v, "language": voice_language(backend, v)} for v in backend.voices()]


__all__ = [
    "DEFAULT_LANGUAGE",
    "MultilingualBackend",
    "choose_voice",
    "speaks",
    "voice_catalog",
    "voice_language",
]
