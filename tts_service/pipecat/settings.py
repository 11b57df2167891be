"""``WarmlineTTSSettings``: the voice and speed a ``WarmlineTTSService`` call speaks with.

    settings.voice_speed(default_voice)             # what a new session opens with
    settings.changes_for(session.config, default)   # what to reconfigure before the next turn

Pipecat's ``TTSUpdateSettingsFrame`` updates them at any time; the service applies them to its
session between turns, never inside one. One of the Pipecat modules of ``tts_service``
(``docs/ARCHITECTURE.md`` lists them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipecat.services.settings import TTSSettings
from pipecat.utils.types import NOT_GIVEN, NotGiven, is_given

from tts_service.engine.config import SessionConfig


@dataclass
class WarmlineTTSSettings(TTSSettings):
    """Runtime-updatable settings: ``voice`` (from ``TTSSettings``) and ``speed`` (0.5-2.0)."""

    speed: float | NotGiven | None = field(default_factory=lambda: NOT_GIVEN)

    def voice_speed(self, default_voice: str | None) -> tuple[str | None, float]:
        """The voice (``default_voice`` when none is set) and the speed (1.0) to speak with."""
        voice = self.voice if is_given(self.voice) else None
        speed = self.speed if is_given(self.speed) else None
        return voice or default_voice, float(speed) if speed is not None else 1.0

    def changes_for(
        self, config: SessionConfig, default_voice: str | None
    ) -> tuple[str | None, float | None] | None:
        """(new voice, new speed) for a session at ``config``, None for what is already so; None
        when nothing changes."""
        voice, speed = self.voice_speed(default_voice)
        new_voice = voice if voice is not None and voice != (config.voice or default_voice) else None
        new_speed = speed if speed != config.speed else None
        return None if new_voice is None and new_speed is None else (new_voice, new_speed)


__all__ = ["WarmlineTTSSettings"]
