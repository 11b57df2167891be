"""Turn-taking in a Pipecat pipeline: user-turn strategies around the sans-I/O decisions.

    taking = TurnTaking()                                   # one per call
    aggregators = LLMContextAggregatorPair(
        context,
        user_params=LLMUserAggregatorParams(
            user_turn_strategies=taking.strategies(), empty_user_turn=None
        ),
    )
    pipeline = [input, vad, stt, aggregators.user(), taking.relay(), llm, tts, output, assistant,
                taking.sink()]

* ``TakeBackStartStrategy`` (``barge_in.BargeIn``): speech over the bot pushes a
  ``BotOutputPauseFrame`` (the TTS and the output transport go silent at once, keeping the rest);
  real words start the caller's turn (Pipecat's interruption: the heard words stay in the
  context); a backchannel's words, or the words so far of speech over the bot that open no turn
  (``PeekTranscriptionFrame``), push a ``BotOutputDuckFrame`` at once (the answer goes on,
  quieter) and, once the caller stays quiet, a ``BotOutputResumeFrame`` (full level; a noise's
  too), dropping its transcript; the caller's level heard again pauses a ducked answer (unless
  peeks follow the speech: the next one decides). Speech while the bot is silent starts an
  ordinary turn.
* ``SmartTurnStopStrategy`` (``end_of_turn.EndOfTurn`` with ``policy.TurnEndPolicy``): the
  caller's level (``pause.PauseDetector``) shows a pause some 60 ms in, before the VAD confirms
  it; then Smart Turn v3.2 (its model ships in the pipecat wheel; one ONNX session per process)
  scores the caller's audio in its own thread while the words (the recognizer's running
  hypothesis, then its final transcript) are read; a turn that reads complete is answered
  speculatively at once (``SpeculationRelay`` lets the answer reach the TTS, which holds its
  audio) and confirmed after the policy's gap, or cancelled when the caller goes on. A turn end
  or a speculation waits for the interruptions on their way down (``speculation``): a barge-in's
  words may confirm it and end the turn at once, and the bot's interrupted words must be in the
  context before the caller's.

Both strategies share one ``TurnTaking`` (the trackers and the stats); each owns one timer task
and the Smart Turn scoring task, on the pipeline's task manager, cancelled and awaited at cleanup.
This module is the only place where the decisions meet Pipecat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger
from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    InputAudioRawFrame,
    InterimTranscriptionFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.metrics.metrics import TurnMetricsData
from pipecat.processors.frame_processor import FrameDirection, FrameProcessorSetup
from pipecat.turns.types import ProcessFrameResult, UserTurnSpeculation
from pipecat.turns.user_start.base_user_turn_start_strategy import BaseUserTurnStartStrategy
from pipecat.turns.user_stop.base_user_turn_stop_strategy import BaseUserTurnStopStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.base_object import BaseObject

from agent.turn_taking.barge_in import (
    BargeIn,
    BargeInAction,
    DuckBot,
    Interrupt,
    PauseBot,
    ResumeBot,
    StartTurn,
)
from agent.turn_taking.confidence import confidence_of
from agent.turn_taking.end_of_turn import Answer, Cancel, Confirm, EndOfTurn, EndOfTurnAction, Speculate
from agent.turn_taking.frames import PeeksDoneFrame, PeekTranscriptionFrame
from agent.turn_taking.pause import PauseBegan, PauseDetector, PauseSettings, SpeechResumed
from agent.turn_taking.policy import TurnEndPolicy
from agent.turn_taking.speculation import (
    InterruptionsInFlight,
    InterruptionSink,
    SpeculationRelay,
    SpeculationStats,
)
from tts_service.pipecat.compat import shared_smart_turn_analyzer
from tts_service.pipecat.frames import BotOutputDuckFrame, BotOutputPauseFrame, BotOutputResumeFrame


@dataclass(frozen=True, slots=True)
class TurnTakingConfig:
    """What the agent's turn-taking does; every part can be switched off."""

    policy: TurnEndPolicy = field(default_factory=TurnEndPolicy)
    #: score each pause with Smart Turn v3.2 (else the words and the silence decide alone)
    smart_turn: bool = True
    #: answer speculatively at the first pause, holding the audio until the turn is confirmed
    speculate: bool = True
    #: pause (not drop) the bot when the caller speaks over it; resume after a backchannel
    take_back_barge_in: bool = True
    barge_in: Callable[[], BargeIn] = BargeIn
    #: what the caller's level must do to show a pause before the VAD confirms it (None: wait
    #: for the VAD's stop, about 160 ms later, to speculate)
    pause: PauseSettings | None = field(default_factory=PauseSettings)


class _Deadline:
    """One timer task of a strategy, on the pipeline's task manager: ``fire`` at the deadline it
    was last armed for. Re-arming cancels and awaits the previous task; so does ``aclose``, and
    after ``close`` (the strategy's cleanup) nothing arms it again: a frame still on its way
    through a pipeline that is ending must not leave a timer behind it."""

    def __init__(self, owner: BaseObject, name: str) -> None:
        self._owner = owner
        self._name = name
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def arm(self, due_s: float | None, fire: Callable[[], Awaitable[None]]) -> None:
        await self.aclose()
        if due_s is None or self._closed:
            return

        async def wait() -> None:
            await asyncio.sleep(max(0.0, due_s - _now()))
            self._task = None  # firing: a re-arm from inside ``fire`` must not cancel this task
            await fire()

        self._task = self._owner.create_task(wait(), self._name)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            await self._owner.cancel_task(task)

    async def close(self) -> None:
        """Cancel the timer for good (the strategy is cleaned up)."""
        self._closed = True
        await self.aclose()

    @property
    def armed(self) -> bool:
        return self._task is not None


class TurnTaking:
    """One call's turn-taking: the two strategies, the relay, and what they measured."""

    def __init__(
        self,
        config: TurnTakingConfig | None = None,
        *,
        name: str = "call",
        on_llm_requests: Callable[[int], None] | None = None,
        on_barge_in: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config or TurnTakingConfig()
        self.name = name
        #: called with the LLM requests of each answered caller turn, and with "resumed" or
        #: "interrupted" for each barge-in decided (metrics)
        self.on_llm_requests = on_llm_requests
        self.on_barge_in = on_barge_in
        self.end_of_turn = EndOfTurn(self.config.policy, speculate=self.config.speculate)
        self.barge_in = self.config.barge_in()
        self.stats = SpeculationStats()
        self._start: TakeBackStartStrategy | None = None
        self._stop: SmartTurnStopStrategy | None = None
        self._relay: SpeculationRelay | None = None
        #: interruptions the user aggregator sent down that the assistant aggregator has not
        #: written yet (the relay and the sink follow them); with no sink, none are followed
        self.interruptions = InterruptionsInFlight()

    def strategies(self) -> UserTurnStrategies:
        """The user-turn strategies for this call's ``LLMUserAggregatorParams``."""
        self._start = TakeBackStartStrategy(self)
        self._stop = SmartTurnStopStrategy(self)
        return UserTurnStrategies(start=[self._start], stop=[self._stop])

    def relay(self) -> SpeculationRelay:
        """The processor right after the user aggregator, before the LLM (see ``speculation``)."""
        if self._relay is None:
            self._relay = SpeculationRelay(
                stats=self.stats,
                on_failed=self._speculation_failed,
                on_turn_requests=self.on_llm_requests,
                in_flight=self.interruptions,
            )
        return self._relay

    def sink(self) -> InterruptionSink:
        """The pipeline's last processor, after the assistant aggregator: the turn end waits for
        the interruptions on their way to it (see ``speculation``)."""
        return InterruptionSink(self.interruptions)

    async def _speculation_failed(self) -> None:
        if self._stop is not None:
            await self._stop.speculation_failed()

    async def caller_went_on(self) -> None:
        """The caller's level (the stop strategy follows it) hears them again after a pause."""
        if self._start is not None:
            await self._start.caller_went_on()


def _now() -> float:
    return asyncio.get_running_loop().time()


def _duration_s(frame: InputAudioRawFrame) -> float:
    """Seconds of 16-bit audio in ``frame``."""
    return len(frame.audio) / (2 * frame.sample_rate * frame.num_channels)


class TakeBackStartStrategy(BaseUserTurnStartStrategy):
    """Pause the bot when the caller speaks over it; interrupt or resume by what they said."""

    def __init__(self, taking: TurnTaking, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._taking = taking
        self._barge = taking.barge_in
        self._timer = _Deadline(self, "barge-in-timer")

    async def cleanup(self) -> None:
        await self._timer.close()
        await super().cleanup()

    async def process_frame(self, frame: Frame) -> ProcessFrameResult | None:
        now = _now()
        acts: list[BargeInAction] = []
        if isinstance(frame, InputAudioRawFrame):
            # the waits after the caller's stop count their audio: read late, it still holds the
            # VAD's start for the rest of "Actually, | can we ..." before the wait runs out
            if self._barge.counting_quiet and (acts := self._barge.audio_read(_duration_s(frame), now)):
                await self._act(acts)
            return ProcessFrameResult.CONTINUE
        if isinstance(frame, BotStartedSpeakingFrame):
            acts = self._barge.bot_started(now)
        elif isinstance(frame, BotStoppedSpeakingFrame):
            acts = self._barge.bot_stopped(now)
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            if not self._taking.config.take_back_barge_in:
                acts = [StartTurn()]
            else:
                acts = self._barge.speech_started(now)
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            acts = self._barge.speech_stopped(now)
        elif isinstance(frame, PeekTranscriptionFrame):
            if (heard := confidence_of(frame.result)) is not None:
                was_turn = self._barge.turn_peeked
                acts = self._barge.peek(frame.text, now, heard)
                if self._barge.turn_peeked and not was_turn:
                    await self.push_frame(PeeksDoneFrame(), FrameDirection.UPSTREAM)
                said = " ".join(f"{w} {p:.2f}" for w, p in heard.words)
                verdict = "a turn" if self._barge.turn_peeked else "no turn so far"
                logger.debug(f"{self}: over the bot so far [{said}]: {verdict}")
        elif isinstance(frame, InterimTranscriptionFrame):
            acts = self._barge.words(frame.text, now, final=False, heard=confidence_of(frame.result))
        elif isinstance(frame, TranscriptionFrame):
            acts = self._barge.words(frame.text, now, final=True, heard=confidence_of(frame.result))
        else:
            return ProcessFrameResult.CONTINUE
        await self._act(acts)
        return ProcessFrameResult.CONTINUE

    async def _act(self, acts: list[BargeInAction]) -> None:
        for act in acts:
            if isinstance(act, PauseBot):
                logger.debug(f"{self}: the caller speaks over the bot: pausing it")
                await self.push_frame(BotOutputPauseFrame())
            elif isinstance(act, DuckBot):
                logger.debug(f"{self}: a backchannel's words: the answer goes on, ducked")
                await self.push_frame(BotOutputDuckFrame())
            elif isinstance(act, ResumeBot):
                logger.debug(f"{self}: not an interruption ({act.dropped or 'no words'!r}): resuming")
                self._report("resumed")
                await self.push_frame(BotOutputResumeFrame())
                if act.dropped:  # the backchannel never reaches the LLM, nor the next turn's words
                    self._taking.end_of_turn.dropped()
                    await self.trigger_reset_aggregation()
            elif isinstance(act, Interrupt | StartTurn):
                if isinstance(act, Interrupt):
                    logger.debug(f"{self}: the caller takes the turn ({act.words!r})")
                    self._report("interrupted")
                    self._taking.end_of_turn.over_the_bot()
                await self.trigger_user_turn_started()
        await self._timer.arm(self._barge.next_deadline_s(), self._tick)

    async def _tick(self) -> None:
        await self._act(self._barge.tick(_now()))

    async def caller_went_on(self) -> None:
        """The caller's level hears them again: a ducked answer pauses (nothing else to do)."""
        if self._taking.config.take_back_barge_in and (acts := self._barge.speech_resumed(_now())):
            await self._act(acts)

    def _report(self, outcome: str) -> None:
        if self._taking.on_barge_in is not None:
            self._taking.on_barge_in(outcome)


class SmartTurnStopStrategy(BaseUserTurnStopStrategy):
    """End the caller's turn by silence, Smart Turn and the words; answer it speculatively."""

    def __init__(self, taking: TurnTaking, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._taking = taking
        self._turn = taking.end_of_turn
        self._analyzer: LocalSmartTurnAnalyzerV3 | None = (
            shared_smart_turn_analyzer() if taking.config.smart_turn else None
        )
        self._speaking = False
        self._pauses = PauseDetector(taking.config.pause) if taking.config.pause is not None else None
        self._timer = _Deadline(self, "turn-end-timer")
        self._scoring: asyncio.Task[None] | None = None
        self._scored = False  # Smart Turn scored (or is scoring) the current pause
        self._closed = False  # cleaned up: no new scoring task

    async def setup(self, setup: FrameProcessorSetup) -> None:  # type: ignore[override]
        await super().setup(setup)
        if self._analyzer is not None:
            self._analyzer.set_sample_rate(setup.audio_in_sample_rate)

    async def cleanup(self) -> None:
        self._closed = True
        await self._stop_scoring()
        await self._timer.close()
        if self._analyzer is not None:
            await self._analyzer.cleanup()
        await super().cleanup()

    async def handle_user_turn_started(self) -> None:
        await super().handle_user_turn_started()
        if self._analyzer is not None:
            self._analyzer.clear()
        await self._act(self._turn.opened(_now()))

    async def handle_user_turn_stopped(self) -> None:
        await super().handle_user_turn_stopped()
        await self._stop_scoring()
        await self._act(self._turn.closed())

    async def speculation_failed(self) -> None:
        await self._act(self._turn.speculation_failed(_now()))

    async def process_frame(self, frame: Frame) -> ProcessFrameResult | None:
        now = _now()
        if isinstance(frame, InputAudioRawFrame):
            if self._analyzer is not None:
                self._analyzer.append_audio(frame.audio, self._speaking)
            if self._pauses is not None and (self._speaking or self._turn.awaiting_end):
                await self._level(frame, now)  # after the VAD's stop too: the caller may go on
            return ProcessFrameResult.CONTINUE
        if isinstance(frame, VADUserStartedSpeakingFrame):
            self._speaking = True
            if self._pauses is not None:
                self._pauses.speech_started()
            await self._stop_scoring()
            await self._act(self._turn.speech_started(now))
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self._speaking = False
            await self._act(self._turn.speech_stopped(now, silence_began_s=now - frame.stop_secs))
            self._start_scoring()
        elif isinstance(frame, PeekTranscriptionFrame):
            pass  # speech still going on over the bot: the barge-in's, no pause to end a turn on
        elif isinstance(frame, InterimTranscriptionFrame):
            await self._act(self._turn.interim(frame.text, now, confidence_of(frame.result)))
        elif isinstance(frame, TranscriptionFrame):
            await self._act(self._turn.transcript(frame.text, now, confidence_of(frame.result)))
        return ProcessFrameResult.CONTINUE

    async def _level(self, frame: InputAudioRawFrame, now: float) -> None:
        """Follow the caller's level: a pause before the VAD's stop, or speech again."""
        assert self._pauses is not None
        duration_s = _duration_s(frame)
        if self._turn.holding:  # a resumption waits on the VAD: for so much audio, not time
            await self._act(self._turn.audio_read(duration_s, now))
        event = self._pauses.feed(frame.audio, now, duration_s)
        if isinstance(event, PauseBegan):
            logger.debug(f"{self}: quiet for {now - event.silence_began_s:.2f} s [{self._turn.heard_so_far}]")
            await self._act(self._turn.pause_began(now, silence_began_s=event.silence_began_s))
            self._start_scoring()
        elif isinstance(event, SpeechResumed):
            logger.debug(f"{self}: the caller goes on")
            await self._taking.caller_went_on()
            if self._speaking:  # the pause is taken back; after the VAD's stop the verdict stands
                await self._stop_scoring()
                self._scored = False
            await self._act(self._turn.speech_resumed(now))

    def _start_scoring(self) -> None:
        """Score the current pause once (at its first sight: the level's, else the VAD's)."""
        if self._analyzer is None or self._scored or self._closed or not self._analyzer.speech_triggered:
            return
        self._scored = True
        self._scoring = self.create_task(self._score(self._analyzer), "smart-turn")

    async def _score(self, analyzer: LocalSmartTurnAnalyzerV3) -> None:
        _, metrics = await analyzer.analyze_end_of_turn()  # on the analyzer's own thread
        self._scoring = None
        if isinstance(metrics, TurnMetricsData):
            logger.debug(f"{self}: Smart Turn: {metrics.probability:.2f} complete")
            await self._act(self._turn.smart_turn(metrics.probability, _now()))

    async def _stop_scoring(self) -> None:
        self._scored = False
        task, self._scoring = self._scoring, None
        if task is not None and task is not asyncio.current_task():
            await self.cancel_task(task)

    async def _act(self, acts: list[EndOfTurnAction]) -> None:
        for act in acts:
            asks = isinstance(act, Speculate | Confirm | Answer)
            # the bot's interrupted words go in the context before the caller's
            if asks and not await self._taking.interruptions.written():
                logger.warning(f"{self}: an interruption did not reach the pipeline's end")
            if isinstance(act, Speculate):
                logger.debug(f"{self}: speculating on [{act.text}]")
                await self.trigger_user_turn_inference_triggered(
                    speculation=UserTurnSpeculation(text=act.text)
                )
            elif isinstance(act, Cancel):
                await self.trigger_user_turn_speculation_cancelled()
            elif isinstance(act, Confirm):
                logger.debug(f"{self}: turn over ({self._turn.last_reason}); releasing the held answer")
                await self.trigger_user_turn_finalized(confirms_speculation=True)
            elif isinstance(act, Answer):
                logger.debug(f"{self}: turn over ({self._turn.last_reason}); answering [{act.text}]")
                await self.trigger_user_turn_stopped()
        await self._timer.arm(self._turn.next_deadline_s(), self._tick)

    async def _tick(self) -> None:
        await self._act(self._turn.tick(_now()))


__all__ = [
    "SmartTurnStopStrategy",
    "TakeBackStartStrategy",
    "TurnTaking",
    "TurnTakingConfig",
]
