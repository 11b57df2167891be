"""The parts of livekit-agents' plugin surface that carry a leading underscore, in one place.

A streaming TTS plugin for LiveKit Agents reads the text pushed into its ``SynthesizeStream``
from ``self._input_ch`` (flushes arrive as ``SynthesizeStream._FlushSentinel``) and marks when
its first text went to the model with ``self._mark_started()`` (LiveKit's time-to-first-byte
metric counts from it). Every LiveKit plugin does so; they are protected names all the same, so
``tts`` goes through here and a livekit-agents release that renames them breaks one
module. ``TESTED_LIVEKIT`` is the release line this was written against; the first stream on another
line logs one warning naming the test that tells whether it still holds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from livekit.agents.tts import SynthesizeStream

from tts_service.tested_version import TestedVersion

TESTED_LIVEKIT = TestedVersion("livekit-agents", "1.8", contract_test="tests/test_livekit_tts.py")

#: what ``pushed_input`` yields for ``SynthesizeStream.flush()``: the end of a segment
FLUSH = None


async def pushed_input(stream: SynthesizeStream) -> AsyncIterator[str | None]:
    """The text pushed into ``stream``, in order, with ``FLUSH`` for each flush; ends at
    ``end_input()``. Read ``_input_ch`` afresh per call: LiveKit replaces it on a retry."""
    TESTED_LIVEKIT.check()
    async for item in stream._input_ch:
        yield FLUSH if isinstance(item, SynthesizeStream._FlushSentinel) else item


def mark_started(stream: SynthesizeStream) -> None:
    """Tell LiveKit's metrics that text went to the model now (its TTFB counts from here)."""
    stream._mark_started()


__all__ = ["FLUSH", "TESTED_LIVEKIT", "mark_started", "pushed_input"]
