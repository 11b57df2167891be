"""Deprecated: ``tts_service.pipecat_frames`` moved to ``tts_service.pipecat.frames``.

Import from ``tts_service.pipecat`` instead; this module stays for code written before the move.
"""

import warnings

from tts_service.pipecat.frames import (
    BotOutputPauseFrame,
    BotOutputResumeFrame,
    SpeculativeAnswerFrame,
)

warnings.warn(
    "tts_service.pipecat_frames moved to tts_service.pipecat: import from there",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["BotOutputPauseFrame", "BotOutputResumeFrame", "SpeculativeAnswerFrame"]
