"""The Pipecat frames Warmline adds: pausing and ducking the bot's audio without dropping it, and
speculation.

* ``BotOutputPauseFrame`` / ``BotOutputResumeFrame`` (system frames, downstream): the caller
  started speaking over the bot. The TTS pauses its engine and the output transport stops
  playing at once, both keeping what is left, until a resume (it was a backchannel, or a noise)
  continues from exactly where the caller stopped hearing, or an ``InterruptionFrame`` (real
  words) drops it. Nothing of the paused audio is heard, and no word of it reaches the context.
* ``BotOutputDuckFrame`` (system frame, downstream): what the caller says over the bot reads as
  a backchannel so far ("mm hmm"): a paused answer goes on from where it stopped, and the output
  transport plays it ``gain_db`` quieter (a playing one just gets quieter) until a
  ``BotOutputResumeFrame`` brings it back to full level, a ``BotOutputPauseFrame`` silences it
  again, or an ``InterruptionFrame`` drops it. Its words are heard, and reach the context.
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


#: how much quieter a ducked answer plays: well under the caller's voice, still clearly there
DUCK_GAIN_DB = -15.0


@dataclass
class BotOutputDuckFrame(SystemFrame):
    """Play the bot's audio ``gain_db`` quieter, continuing it if it was paused."""

    gain_db: float = DUCK_GAIN_DB


@dataclass
class SpeculativeAnswerFrame(ControlFrame):
    """The next LLM answer is speculative: make its audio, hold it until the turn is confirmed."""


__all__ = [
    "DUCK_GAIN_DB",
    "BotOutputDuckFrame",
    "BotOutputPauseFrame",
    "BotOutputResumeFrame",
    "SpeculativeAnswerFrame",
]
