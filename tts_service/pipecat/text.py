"""Which LLM text ``WarmlineTTSService`` passes on to Pipecat's aggregation, and in what pieces.

    text_in = AnswerText()
    for item in text_in.admit(frame):       # none, one or two frames in place of ``frame``
        await super().process_frame(item, direction)

Two rules, one class each, combined by ``AnswerText``:

* ``StaleAnswer``: LLM text that arrives after the ``InterruptionFrame`` that ended its answer is
  the rest of that answer, and is dropped (never spoken, never recorded in the context);
* ``WordTail``: LLM tokens reach Pipecat's word matcher only in whole words: the unfinished last
  word is held back until the next token completes it, or the answer (or the pipeline) ends.

Pure frame bookkeeping, no I/O. One of the Pipecat modules of
``tts_service`` (``docs/ARCHITECTURE.md`` lists them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipecat.frames.frames import (
    EndFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
)
from pipecat.frames.frames import Frame as PipecatFrame

#: the trailing run of non-space characters: the word an LLM may still be writing
_LAST_WORD = re.compile(r"\S*\Z")


@dataclass(slots=True)
class StaleAnswer:
    """Which LLM text belongs to an answer that an ``InterruptionFrame`` has already ended.

    Pipecat delivers system frames ahead of the data frames queued before them, so tokens the LLM
    pushed just before it was interrupted reach this service *after* the ``InterruptionFrame``.
    Spoken, they would open a new turn: a fragment of a dropped answer (a cancelled speculation's
    first words) heard and written into the context. They are the rest of the interrupted answer
    up to its ``LLMFullResponseEndFrame`` (a cancelled LLM may send none: the next answer's
    ``LLMFullResponseStartFrame`` ends it too). Text outside any answer is never held stale.
    """

    open: bool = False
    stale: bool = False

    def admits(self, frame: PipecatFrame) -> bool:
        """Note ``frame``; False when it is the rest of an interrupted answer, to be dropped."""
        if isinstance(frame, InterruptionFrame):
            self.stale, self.open = self.open, False
            return True
        if not isinstance(frame, LLMFullResponseStartFrame | LLMTextFrame | LLMFullResponseEndFrame):
            return True
        if frame.skip_tts:
            return True
        was_stale = self.stale
        if isinstance(frame, LLMFullResponseStartFrame):
            self.open, self.stale = True, False
            return True
        if isinstance(frame, LLMFullResponseEndFrame):
            self.open = self.stale = False
        return not was_stale


@dataclass(slots=True)
class WordTail:
    """The unfinished last word of the LLM text so far, held back from Pipecat.

    Pipecat matches reported words against the text it was given; text cut inside a word would
    split that word across two segments. The engine never speaks half a word either, so holding
    it costs no latency.
    """

    tail: str = ""

    def hold(self, frame: LLMTextFrame) -> bool:
        """Cut ``frame``'s text at its last whole word, keeping the rest back; False when
        nothing of ``frame`` is left to pass."""
        text = self.tail + frame.text
        match = _LAST_WORD.search(text)  # always matches, possibly the empty string at the end
        cut = match.start() if match else len(text)
        frame.text, self.tail = text[:cut], text[cut:]
        return bool(frame.text)

    def take(self) -> str:
        """The held word (the answer ended: it is complete), now no longer held."""
        tail, self.tail = self.tail, ""
        return tail


class AnswerText:
    """Both rules over the frames a ``WarmlineTTSService`` receives."""

    def __init__(self) -> None:
        self._stale = StaleAnswer()
        self._tail = WordTail()

    def admit(self, frame: PipecatFrame) -> list[PipecatFrame]:
        """What to process in place of ``frame``, in order.

        Nothing for the rest of an interrupted answer or for a token that is all unfinished
        word; the held word, then the frame, at the end of an answer or of the pipeline; else
        the frame itself (LLM text cut at its last whole word). An interruption forgets the
        held word: it belonged to the answer that ended.
        """
        if not self._stale.admits(frame):
            return []
        if isinstance(frame, LLMTextFrame) and not frame.skip_tts:
            return [frame] if self._tail.hold(frame) else []
        if isinstance(frame, LLMFullResponseEndFrame | EndFrame) and self._tail.tail:
            return [LLMTextFrame(text=self._tail.take()), frame]
        if isinstance(frame, InterruptionFrame):
            self.clear()
        return [frame]

    def clear(self) -> None:
        """Forget the held word (the interrupted answer's, or a closed session's)."""
        self._tail.take()


__all__ = ["AnswerText", "StaleAnswer", "WordTail"]
