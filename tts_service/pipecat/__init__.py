"""The Pipecat integration: ``WarmlineTTSService`` and what it is made of.

    from tts_service.pipecat import WarmlineTTSService
    tts = WarmlineTTSService(voice="heart")   # where the pipeline had another TTS service

``service`` (the TTS service: Pipecat's frames onto the engine's verbs), ``text`` (which of the
LLM's text is spoken: stale answers, whole words), ``held`` (the turn-taking frames on its turns:
hold, release, pause, resume), ``settings`` (voice and speed), ``frames`` (the frames Warmline adds
to Pipecat's), ``compat`` (the only place that touches Pipecat's internals). Only this folder, the
Twilio and WebRTC transports' Pipecat halves and ``agent/`` import Pipecat.
"""

from tts_service.pipecat.service import DEFAULT_MAX_LEAD_S, WarmlineTTSService, WarmlineTTSSettings

__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineTTSService", "WarmlineTTSSettings"]
