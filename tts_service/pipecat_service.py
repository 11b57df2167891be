"""Deprecated: ``tts_service.pipecat_service`` moved to ``tts_service.pipecat.service``.

Import from ``tts_service.pipecat`` instead; this module stays for code written before the move.
"""

import warnings

from tts_service.pipecat.service import (
    DEFAULT_MAX_LEAD_S,
    WarmlineTTSService,
    WarmlineTTSSettings,
)

warnings.warn(
    "tts_service.pipecat_service moved to tts_service.pipecat: import from there",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineTTSService", "WarmlineTTSSettings"]
