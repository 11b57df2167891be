"""``WarmlineTTSSettings``: the voice, language and speed a ``WarmlineTTSService`` call speaks with.

    settings.voice_speed(default_voice, backend)             # what a new session opens with
    settings.changes_for(session.config, default, backend)   # what to reconfigure before the next turn

A ``language`` keeps the voice if it speaks it, else picks a loaded voice that does
(``tts_service.languages.choose_voice``; none is ``unsupported_language``). It needs the local
backend to know the voices' languages; a remote engine's session is told the voice only.

Pipecat's ``TTSUpdateSettingsFrame`` updates them at any time; the service applies them to its
session between turns, never inside one. One of the Pipecat modules of ``tts_service``
(``docs/ARCHITECTURE.md`` lists them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipecat.services.settings import TTSSettings
from pipecat.utils.types import NOT_GIVEN, NotGiven, is_given

from tts_service.engine.config import SessionConfig
from tts_service.engine.ports import Backend
from tts_service.languages import choose_voice


@dataclass
class WarmlineTTSSettings(TTSSettings):
    """Runtime-updatable settings: ``voice`` and ``language`` (from ``TTSSettings``) and ``speed``
    (0.5-2.0)."""

    speed: float | NotGiven | None = field(default_factory=lambda: NOT_GIVEN)

    def voice_speed(
        self, default_voice: str | None, backend: Backend | None = None
    ) -> tuple[str | None, float]:
        """The voice (``default_voice`` when none is set; with a ``language`` and the local
        ``backend``, one that speaks it) and the speed (1.0) to speak with."""
        voice = (self.voice if is_given(self.voice) else None) or default_voice
        speed = self.speed if is_given(self.speed) else None
        language = self.language if is_given(self.language) else None
        if language is not None and backend is not None:
            code = str(getattr(language, "value", language))
            voice = choose_voice(backend, current=voice or backend.default_voice, voice=None, language=code)
        return voice, float(speed) if speed is not None else 1.0

    def changes_for(
        self, config: SessionConfig, default_voice: str | None, backend: Backend | None = None
    ) -> tuple[str | None, float | None] | None:
        """(new voice, new speed) for a session at ``config``, None for what is already so; None
        when nothing changes."""
        voice, speed = self.voice_speed(default_voice, backend)
        new_voice = voice if voice is not None and voice != (config.voice or default_voice) else None
        new_speed = speed if speed != config.speed else None
        return None if new_voice is None and new_speed is None else (new_voice, new_speed)


__all__ = ["WarmlineTTSSettings"]
