"""Deprecated: ``tts_service.livekit_tts`` moved to ``tts_service.livekit.tts``.

Import from ``tts_service.livekit`` instead; this module stays for code written before the move.
"""

import warnings

from tts_service.livekit.tts import (
    DEFAULT_MAX_LEAD_S,
    WarmlineChunkedStream,
    WarmlineStream,
    WarmlineTTS,
)

warnings.warn(
    "tts_service.livekit_tts moved to tts_service.livekit: import from there",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineChunkedStream", "WarmlineStream", "WarmlineTTS"]
