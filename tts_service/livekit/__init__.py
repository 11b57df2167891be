"""The LiveKit Agents integration: ``WarmlineTTS``, a TTS plugin on the warm engine.

    from tts_service.livekit import WarmlineTTS
    session = AgentSession(stt=..., llm=..., tts=WarmlineTTS(voice="heart"), vad=...)

``tts`` (the plugin, its streams and the speaker that drives one engine session per stream) and
``compat`` (the only place that touches livekit-agents' internals). Only this folder imports livekit.
"""

from tts_service.livekit.tts import DEFAULT_MAX_LEAD_S, WarmlineChunkedStream, WarmlineStream, WarmlineTTS

__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineChunkedStream", "WarmlineStream", "WarmlineTTS"]
