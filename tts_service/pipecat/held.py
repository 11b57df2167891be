"""The turn-taking frames on ``WarmlineTTSService``'s turns: hold, release, pause and resume.

    held = HeldAnswers()
    if held.handles(frame):
        paused = held.apply(frame, turns, verb)      # before the base class processes the frame
    turn = turns.open(key=..., held=held.take_next_held())   # run_tts: a new answer's turn

=============================  ===================================================================
frame                          on the turns
=============================  ===================================================================
``SpeculativeAnswerFrame``     the next answer is opened held: made up to the look-ahead, unheard
                               (not after the turn was confirmed: the confirmation overtook it)
``UserStartedSpeakingFrame``   a caller's turn begins
``UserStoppedSpeakingFrame``   the caller's turn is confirmed: every held answer is released
``BotOutputPauseFrame``        speech over the bot, not yet judged: ``pause``, the rest kept
``BotOutputResumeFrame``       a backchannel or a noise: ``resume`` from the next word
``BotOutputDuckFrame``         a backchannel so far: ``resume`` too (the transport plays it quieter)
``InterruptionFrame``          a speculation that is not coming any more: the next answer is not held
=============================  ===================================================================

``agent.turn_taking`` sends them (``tts_service.pipecat.frames`` defines Warmline's); without them
nothing here ever acts. One of the Pipecat modules of ``tts_service``
(``docs/ARCHITECTURE.md`` lists them).
"""

from __future__ import annotations

from collections.abc import Callable

from pipecat.frames.frames import Frame as PipecatFrame
from pipecat.frames.frames import InterruptionFrame, UserStartedSpeakingFrame, UserStoppedSpeakingFrame

from tts_service.engine.turns import Conversation
from tts_service.pipecat.frames import (
    BotOutputDuckFrame,
    BotOutputPauseFrame,
    BotOutputResumeFrame,
    SpeculativeAnswerFrame,
)

#: calls one turn-model verb and says whether the engine took it (the service logs a refusal)
Verb = Callable[..., bool]

_FRAMES = (
    SpeculativeAnswerFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
    BotOutputPauseFrame,
    BotOutputResumeFrame,
    BotOutputDuckFrame,
    InterruptionFrame,
)


class HeldAnswers:
    """Whether the next answer is speculative, and what each turn-taking frame does to the turns."""

    def __init__(self) -> None:
        #: the next answer is speculative: its turn is opened held
        self.next_held = False
        #: the caller's turn is over (``UserStoppedSpeakingFrame``, until the next one starts): a
        #: speculation announced now was confirmed already. The confirmation is a system frame and
        #: overtakes the announcement, which waits in order behind the LLM's frames; held, its
        #: answer was never released and the question never answered (issue 33)
        self.turn_over = False

    @staticmethod
    def handles(frame: PipecatFrame) -> bool:
        return isinstance(frame, _FRAMES)

    def apply(self, frame: PipecatFrame, turns: Conversation | None, verb: Verb) -> bool:
        """Act on ``frame`` (see the module's table); True when the engine was asked to pause."""
        if isinstance(frame, SpeculativeAnswerFrame):
            self.next_held = not self.turn_over
        elif isinstance(frame, InterruptionFrame):
            self.next_held = False
        elif isinstance(frame, UserStartedSpeakingFrame):
            self.turn_over = False
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self.turn_over = True
            self.next_held = False
            if turns is not None:
                for turn in turns.turns:
                    if turn.held:
                        verb(turns.release, turn)
        elif turns is None:
            return False
        elif isinstance(frame, BotOutputResumeFrame | BotOutputDuckFrame):
            verb(turns.resume)  # nothing to do for a turn that is not paused (ducked already)
        elif isinstance(frame, BotOutputPauseFrame):
            verb(turns.pause)
            return True
        return False

    @staticmethod
    def silent_keys(turns: Conversation | None) -> list[str]:
        """The audio contexts that wait for audio without being done: each held answer's, and
        the paused turn's. Pipecat closes a context that gets nothing for ``stop_frame_timeout_s``
        and reports it "completed with no audio"; a held answer's release then went nowhere and
        its question was never answered (issue 33), so the service keeps these open."""
        if turns is None:
            return []
        keys = [str(turn.key) for turn in turns.turns if turn.held]
        if turns.paused and turns.running is not None:
            keys.append(str(turns.running.key))
        return keys

    def take_next_held(self) -> bool:
        """For a new answer's turn: whether to open it held (only the one answer announced)."""
        held, self.next_held = self.next_held, False
        return held


__all__ = ["HeldAnswers", "Verb"]
