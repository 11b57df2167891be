"""Speculative answers that reach the TTS: the relay between the user aggregator and the LLM.

    pipeline = [..., user_aggregator, SpeculationRelay(stats), llm, WarmlineTTSService(...), ...]

Pipecat's user aggregator answers a speculation (``trigger_user_turn_inference_triggered`` with a
``UserTurnSpeculation``) with an ``LLMContextFrame(speculation=True)`` on a provisional copy of
the context; Pipecat's LLM services then hold the whole answer inside themselves until the turn is
confirmed, so the TTS starts only then. For a warm local TTS that is the expensive part to wait
for. The relay passes the request on as an ordinary one, announced by a
``SpeculativeAnswerFrame``: the answer streams into ``WarmlineTTSService``, which makes its audio
and holds it; the ``UserStoppedSpeakingFrame`` of the confirmed turn releases it at once.

Cancelling (``EagerEndOfTurnCancelFrame``, which the aggregator broadcasts when a speculation is
withdrawn, or a second speculation replacing the first) sends an ``InterruptionFrame`` downstream
only: the LLM request is cancelled (its stream closed), the TTS drops the held turn, nothing is
heard, and the user's side (the aggregator, the STT) keeps the caller's words. The real context
is never written by a speculation: the aggregator ran it on a copy and writes the turn only when
it is confirmed.

The relay also follows the interruptions the aggregator sends down (``InterruptionsInFlight``):
it notes each one as the aggregator pushes it, and ``InterruptionSink``, the pipeline's last
processor, notes it arriving, once the assistant aggregator before it has written the interrupted
answer (the words the caller heard). A barge-in confirmed by its final words interrupts the bot
and may end the caller's turn, or start its speculation, in the same moment; the aggregator then
wrote the caller's new words, or copied the context, before the interrupted answer was written:
the LLM got the caller's last two questions in a row (and answered the old one again) and the
context kept the bot's words after the question that cut them off. The turn end waits for them
first (``SmartTurnStopStrategy``; ``WRITE_WAIT_S`` at most).

Every LLM request is counted per caller turn (``SpeculationStats``): doubled LLM cost is what
preemptive generation is blamed for, so the agent reports requests per answered turn. A failed
speculative request (an ``ErrorFrame`` coming back up from the LLM, the processor the relay
feeds; not one from further down, such as a TTS's report of a context that completed with no
audio) is reported to ``on_failed`` so the turn end answers afresh instead of releasing nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger
from pipecat.frames.frames import (
    EagerEndOfTurnCancelFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    LLMContextFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from tts_service.pipecat.frames import SpeculativeAnswerFrame

#: the longest a turn end or a speculation waits for the interruptions ahead of it to reach the
#: pipeline's end (they take 10-20 ms; one lost on the way must not hold every later turn)
WRITE_WAIT_S = 0.5


class InterruptionsInFlight:
    """The interruptions sent down past the relay that have not reached the pipeline's end yet."""

    def __init__(self) -> None:
        self._ids: set[int] = set()
        self._arrival = asyncio.Event()
        #: an ``InterruptionSink`` reports arrivals: without one, nothing is followed
        self.has_sink = False

    @property
    def pending(self) -> int:
        return len(self._ids)

    def passed(self, frame: InterruptionFrame) -> None:
        if self.has_sink:
            self._ids.add(frame.id)

    def arrived(self, frame: InterruptionFrame) -> None:
        self._ids.discard(frame.id)
        self._arrival.set()

    async def written(self, timeout_s: float = WRITE_WAIT_S) -> bool:
        """Wait until every interruption that passed has arrived (False: ``timeout_s`` ran out,
        and those still pending are forgotten, so that no later request waits for them)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while self._ids:
            self._arrival.clear()
            try:
                await asyncio.wait_for(self._arrival.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                self._ids.clear()
                return False
        return True


class InterruptionSink(FrameProcessor):
    """The pipeline's last processor: notes each interruption that reached the end, where the
    assistant aggregator before it has written the interrupted answer to the context."""

    def __init__(self, in_flight: InterruptionsInFlight, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._in_flight = in_flight
        in_flight.has_sink = True

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InterruptionFrame) and direction is FrameDirection.DOWNSTREAM:
            self._in_flight.arrived(frame)
        await self.push_frame(frame, direction)


@dataclass(slots=True)
class SpeculationStats:
    """LLM requests and speculations of one call (for metrics and the benchmark)."""

    #: LLM requests made, speculative ones included
    requests: int = 0
    speculations: int = 0
    cancelled: int = 0
    failed: int = 0
    #: requests made for each caller turn that was answered, in order
    requests_per_turn: list[int] = field(default_factory=list)

    @property
    def mean_requests_per_turn(self) -> float | None:
        turns = self.requests_per_turn
        return sum(turns) / len(turns) if turns else None


class SpeculationRelay(FrameProcessor):
    """Speculative contexts on to the LLM as ordinary requests the TTS holds; see the module doc."""

    def __init__(
        self,
        *,
        stats: SpeculationStats | None = None,
        on_failed: Callable[[], Any] | None = None,
        on_turn_requests: Callable[[int], None] | None = None,
        in_flight: InterruptionsInFlight | None = None,
        **kwargs: Any,
    ) -> None:
        """``in_flight``: shared with the ``InterruptionSink`` at the pipeline's end, with the relay
        right after the user aggregator."""
        super().__init__(**kwargs)
        self.stats = stats or SpeculationStats()
        self._in_flight = in_flight
        self._on_failed = on_failed
        self._on_turn_requests = on_turn_requests
        self._speculating = False
        self._turn_requests = 0
        #: the caller's turn was confirmed: a speculative request still on its way is the answer
        #: (the confirmation, a system frame, overtook it), so it goes on as an ordinary one
        self._turn_over = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction is FrameDirection.DOWNSTREAM:
            if isinstance(frame, LLMContextFrame):
                await self._request(frame)
                return
            if isinstance(frame, EagerEndOfTurnCancelFrame):
                await self._cancel()
            elif isinstance(frame, UserStoppedSpeakingFrame):
                self._speculating = False  # confirmed: the TTS releases what it holds
                self._turn_over = True
            elif isinstance(frame, UserStartedSpeakingFrame | EndFrame):
                self._turn_over = False
                self._close_turn()
        elif isinstance(frame, ErrorFrame) and self._speculating and frame.processor is self.next:
            self.stats.failed += 1
            logger.warning(
                f"{self}: the speculative answer failed ({frame.error}); the turn end answers afresh"
            )
            self._speculating = False
            if self._on_failed is not None:
                await self._on_failed()
        await self.push_frame(frame, direction)

    async def queue_frame(
        self,
        frame: Frame,
        direction: FrameDirection = FrameDirection.DOWNSTREAM,
        callback: Any = None,
    ) -> None:
        # noted as the aggregator pushes it, before it acts again (ends the turn, copies the context)
        downstream = direction is FrameDirection.DOWNSTREAM
        if isinstance(frame, InterruptionFrame) and downstream and self._in_flight is not None:
            self._in_flight.passed(frame)
        await super().queue_frame(frame, direction, callback)

    async def _request(self, frame: LLMContextFrame) -> None:
        self.stats.requests += 1
        self._turn_requests += 1
        if not frame.speculation or self._turn_over:
            self._speculating = False
            await self.push_frame(LLMContextFrame(context=frame.context) if frame.speculation else frame)
            return
        if self._speculating:  # a newer speculation replaces the one in flight
            await self._cancel()
        self._speculating = True
        self.stats.speculations += 1
        await self.push_frame(SpeculativeAnswerFrame())
        await self.push_frame(LLMContextFrame(context=frame.context))

    async def _cancel(self) -> None:
        if not self._speculating:
            return
        self._speculating = False
        self.stats.cancelled += 1
        await self.push_frame(InterruptionFrame(), FrameDirection.DOWNSTREAM)

    def _close_turn(self) -> None:
        if self._turn_requests:
            self.stats.requests_per_turn.append(self._turn_requests)
            if self._on_turn_requests is not None:
                self._on_turn_requests(self._turn_requests)
        self._turn_requests = 0


__all__ = [
    "WRITE_WAIT_S",
    "InterruptionSink",
    "InterruptionsInFlight",
    "SpeculationRelay",
    "SpeculationStats",
]
