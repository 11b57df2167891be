"""The Pipecat frames Warmline adds: pausing the bot's audio without dropping it, and speculation.

* ``BotOutputPauseFrame`` / ``BotOutputResumeFrame`` (system frames, downstream): the caller
  started speaking over the bot. The TTS pauses its engine and the output transport stops
  playing at once, both keeping what is left, until a resume (it was a backchannel, or a noise)
  continues from exactly where the caller stopped hearing, or an ``InterruptionFrame`` (real
  words) drops it. Nothing of the paused audio is heard, and no word of it reaches the context.
* ``SpeculativeAnswerFrame`` (downstream, in order before the LLM response it marks): the next
  LLM answer is speculative. The TTS makes its audio but holds it until the user's turn is
  confirmed (``UserStoppedSpeakingFrame``); an ``InterruptionFrame`` drops it unheard.

A processor that does not know these frames passes them on, so a pipeline without Warmline's
TTS or transports behaves as before. This module only defines frames.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipecat.frames.frames import ControlFrame, SystemFrame


@dataclass
class BotOutputPauseFrame(SystemFrame):
    """Stop the bot's audio now, keeping the rest for a resume."""


@dataclass
class BotOutputResumeFrame(SystemFrame):
    """Continue the bot's paused audio from where it stopped."""


@dataclass
class SpeculativeAnswerFrame(ControlFrame):
    """The next LLM answer is speculative: make its audio, hold it until the turn is confirmed."""


__all__ = ["BotOutputPauseFrame", "BotOutputResumeFrame", "SpeculativeAnswerFrame"]
