"""What the model will be given for a text, without running it: ``warmline speak --dry-run``.

The text goes through the same segmenter and speakable stage a session uses (clock held still,
so the units depend only on the text), and the units' spoken text is joined by a space.
"""

from __future__ import annotations

from tts_service.engine.ports import Capabilities
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.segmenter import Segmenter
from tts_service.engine.speakable import SpeakableStage
from tts_service.engine.textclean import sanitize

__all__ = ["preview"]


def preview(
    text: str, capabilities: Capabilities, *, language: str = "en", lexicon: Lexicon | None = None
) -> str:
    """The exact text the model receives for ``text`` (one answer), units joined by a space."""
    segmenter = Segmenter(max_buffer_chars=max(1, len(text)))
    stage = SpeakableStage(capabilities, language=language, lexicon=lexicon)
    segmenter.feed(sanitize(text), 0.0)
    segmenter.flush()
    return " ".join(unit.text for unit in stage.take(segmenter.units_ready()))
