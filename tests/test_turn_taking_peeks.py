"""The barge-in's peeks through Pipecat's user aggregator: speech over the bot that the recognizer
reads as it goes on ducks the answer (``BotOutputDuckFrame``) unless its words open a turn, and a
peek never ends the caller's turn (the stop strategy leaves it alone)."""

from __future__ import annotations

import asyncio

from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    Frame,
    VADUserStartedSpeakingFrame,
)
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from agent.sim import feed_frames
from agent.turn_taking.confidence import Heard
from agent.turn_taking.frames import PeeksDoneFrame, PeekTranscriptionFrame
from agent.turn_taking.strategies import TurnTaking, TurnTakingConfig
from tts_service.pipecat.frames import BotOutputDuckFrame, BotOutputPauseFrame


class Seen(FrameProcessor):
    """What the user aggregator pushed on: the bot's output frames downstream and the frames for
    the recognizer upstream, each in order."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[Frame] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, BotOutputPauseFrame | BotOutputDuckFrame | PeeksDoneFrame):
            self.frames.append(frame)
        await self.push_frame(frame, direction)


def peek(*words: tuple[str, float]) -> PeekTranscriptionFrame:
    heard = Heard.of(words, duration_s=0.35, fluent=True)
    frame = PeekTranscriptionFrame(heard.text, "caller", "2026-12-06T00:00:00Z")
    frame.result = heard
    return frame


def over_the_bot(*frames: Frame) -> tuple[list[str], TurnTaking]:
    """The bot speaking, the caller starting over it, then ``frames``: the output frames pushed
    (their class names) and the call's turn-taking."""
    taking = TurnTaking(TurnTakingConfig(smart_turn=False))
    aggregators = LLMContextAggregatorPair(
        LLMContext(), user_params=LLMUserAggregatorParams(user_turn_strategies=taking.strategies())
    )
    upstream, seen = Seen(), Seen()
    sent = [BotStartedSpeakingFrame(), VADUserStartedSpeakingFrame(), *frames]
    asyncio.run(feed_frames([upstream, aggregators.user(), seen], sent, 8000, pace_s=0.05))
    return [type(f).__name__ for f in upstream.frames + seen.frames], taking


def test_a_peek_that_opens_no_turn_ducks_the_paused_answer() -> None:
    pushed, taking = over_the_bot(peek(("mm", 0.3)))
    assert pushed == ["BotOutputPauseFrame", "BotOutputDuckFrame"]
    assert taking.barge_in.ducked
    assert not taking.end_of_turn.awaiting_end  # a peek is no pause: nothing to end


def test_a_peek_that_opens_a_turn_keeps_the_answer_paused_and_stops_the_peeks_once() -> None:
    """The recognizer is told, upstream and once, that more peeks would change nothing."""
    pushed, taking = over_the_bot(peek(("sorry", 0.8)), peek(("sorry", 0.8), ("i", 0.9)))
    assert pushed == ["PeeksDoneFrame", "BotOutputPauseFrame"]
    assert taking.barge_in.paused and not taking.barge_in.ducked
    assert taking.barge_in.turn_peeked
