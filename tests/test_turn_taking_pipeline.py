"""Speculation and pause in a real Pipecat pipeline: relay -> demo LLM -> WarmlineTTSService -> playback.

What the turn-taking asks of the bot's side, each on its own: a speculative answer is made but
not heard until the caller's turn is confirmed; a cancelled one is never heard, its LLM stream
stops, and the context records nothing; a pause keeps the rest of an answer, and a resume goes
on with exactly the next word; a pause that becomes an interruption leaves the heard words in
the context. An interruption is followed from the relay to the pipeline's end, where the interrupted answer's
heard words are in the context. The tone backend
speaks (exact, fast); waits are bounded by ``TIMEOUT_S``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from pipecat.frames.frames import (
    EagerEndOfTurnCancelFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner
from toy_backends import ToneBackend

from agent.responder import DemoResponder, pick_intent
from agent.sim import Playback
from agent.turn_taking.speculation import InterruptionsInFlight, InterruptionSink, SpeculationRelay
from tts_service.engine.session import SessionState
from tts_service.pipecat.frames import (
    BotOutputDuckFrame,
    BotOutputPauseFrame,
    BotOutputResumeFrame,
    SpeculativeAnswerFrame,
)
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime
from tts_service.sessions import AdapterSession

TIMEOUT_S = 30.0
QUESTION = "Can I book a table?"
ANSWER = pick_intent(QUESTION).answer


class Errors(FrameProcessor):
    """The first processor: keeps every error that comes back up the pipeline."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, ErrorFrame):
            self.seen.append(frame.error)
        await self.push_frame(frame, direction)


class Bot:
    """The bot's side of a call: speculation relay, the demo LLM, the TTS, a playback, the context."""

    def __init__(
        self,
        runtime: EngineRuntime,
        *,
        hold: bool = False,
        max_lead_s: float | None = None,
        quiet_context_s: float = 3.0,
    ) -> None:
        self.context = LLMContext(messages=[{"role": "user", "content": QUESTION}])
        in_flight = InterruptionsInFlight()
        self.relay = SpeculationRelay(in_flight=in_flight)
        self.in_flight = in_flight
        self.llm = DemoResponder(first_token_s=0.0, tokens_per_s=400.0)
        self.tts = WarmlineTTSService(
            runtime=runtime, max_lead_s=max_lead_s, stop_frame_timeout_s=quiet_context_s
        )
        self.playback = Playback(hold=hold)
        self.errors = Errors()
        aggregators = LLMContextAggregatorPair(self.context)
        pipeline = Pipeline(
            [
                self.errors,
                self.relay,
                self.llm,
                self.tts,
                self.playback,
                aggregators.assistant(),
                InterruptionSink(in_flight),
            ]
        )
        self.worker = PipelineWorker(
            pipeline, params=PipelineParams(audio_out_sample_rate=8000), cancel_on_idle_timeout=False
        )

    async def send(self, *frames: Frame) -> None:
        await self.worker.queue_frames(list(frames))

    def audio(self) -> list[TTSAudioRawFrame]:
        return [f for f in self.playback.received if isinstance(f, TTSAudioRawFrame)]

    def words(self) -> list[str]:
        return [f.text for f in self.playback.received if isinstance(f, TTSTextFrame)]

    def assistant(self) -> list[str]:
        return [str(m["content"]) for m in self.context.messages if m.get("role") == "assistant"]


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(int(TIMEOUT_S / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def run(
    body: Callable[[Bot], Coroutine[Any, Any, None]],
    *,
    hold: bool = False,
    max_lead_s: float | None = None,
    quiet_context_s: float = 3.0,
) -> None:
    async def main() -> None:
        async with EngineRuntime(ToneBackend(), workers=1) as runtime:
            bot = Bot(runtime, hold=hold, max_lead_s=max_lead_s, quiet_context_s=quiet_context_s)
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(bot.worker)
            task = asyncio.create_task(runner.run(), name="test-bot")
            try:
                await until(lambda: bot.tts.session is not None, "the TTS session")
                await body(bot)
                await bot.send(EndFrame())
                await asyncio.wait_for(task, TIMEOUT_S)
            finally:
                if not task.done():
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())


def test_a_confirmed_speculation_releases_the_held_answer_at_once_and_whole() -> None:
    """Held: audio made, none heard; UserStoppedSpeakingFrame: the whole answer plays and is recorded."""

    async def body(bot: Bot) -> None:
        await bot.send(LLMContextFrame(context=bot.context, speculation=True))
        session = bot.tts.session
        assert session is not None
        await until(lambda: session.held and session.engine.pending_samples >= 4 * 640, "held audio")
        await asyncio.sleep(0.2)
        assert bot.audio() == [], "a held answer was heard"
        await bot.send(UserStoppedSpeakingFrame())
        await until(lambda: bot.playback.response_ended.is_set(), "the released answer to end")
        assert bot.relay.stats.requests == 1 and bot.relay.stats.speculations == 1

    run(body)


def test_an_answer_held_longer_than_pipecats_quiet_context_timeout_is_still_heard_whole() -> None:
    """Pipecat closes an audio context that gets no audio for ``stop_frame_timeout_s`` and reports
    it as one that "completed with no audio"; a held answer gets none until its release, so a
    turn end later than that left the question unanswered (issue 33). Held contexts are kept
    open: the release plays the whole answer, and the relay does not take the TTS's report for
    its speculation failing."""

    async def body(bot: Bot) -> None:
        await bot.send(LLMContextFrame(context=bot.context, speculation=True))
        session = bot.tts.session
        assert session is not None
        await until(lambda: session.held and session.engine.pending_samples >= 4 * 640, "held audio")
        await asyncio.sleep(0.8)  # longer than the TTS's quiet-context timeout (0.2 s here)
        assert bot.audio() == [], "a held answer was heard"
        await bot.send(UserStoppedSpeakingFrame())
        await until(lambda: bot.playback.response_ended.is_set(), "the released answer to end")
        assert bot.relay.stats.failed == 0
        assert bot.errors.seen == []  # no context closed for want of audio

    run(body, quiet_context_s=0.2)


def test_a_confirmation_that_overtakes_its_speculation_still_plays_the_answer() -> None:
    """``UserStoppedSpeakingFrame`` is a system frame: it overtakes the speculative request (at the
    relay) or its announcement (at the TTS, behind the LLM's frames) when the turn ends a moment
    after the speculation began. Held then, the answer was never released and the question was
    never answered (issue 33); it plays at once instead, both ways."""

    async def body(bot: Bot) -> None:
        await bot.send(UserStartedSpeakingFrame(), UserStoppedSpeakingFrame())
        await asyncio.sleep(0.05)
        await bot.send(LLMContextFrame(context=bot.context, speculation=True))  # overtaken at the relay
        await until(lambda: len(bot.audio()) >= 4, "the answer to play")
        await until(lambda: bot.playback.response_ended.is_set(), "the answer to end")
        first = len(bot.audio())
        await bot.send(UserStartedSpeakingFrame(), UserStoppedSpeakingFrame())
        await asyncio.sleep(0.05)
        await bot.send(SpeculativeAnswerFrame(), LLMContextFrame(context=bot.context))  # at the TTS
        await until(lambda: len(bot.audio()) >= first + 4, "the second answer to play")

    run(body)


def test_a_cancelled_speculation_is_never_heard_stops_its_llm_and_leaves_the_context_clean() -> None:
    """EagerEndOfTurnCancelFrame: no audio ever, the LLM stream stops, no assistant message."""
    bot_ref: list[Bot] = []

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        await bot.send(LLMContextFrame(context=bot.context, speculation=True))
        session = bot.tts.session
        assert session is not None
        await until(lambda: session.held, "the held turn")
        await bot.send(EagerEndOfTurnCancelFrame())
        await until(lambda: not session.held and session.engine.pending_samples == 0, "the drop")
        await asyncio.sleep(0.3)
        assert bot.relay.stats.cancelled == 1
        assert not bot.llm.streaming, "the LLM kept streaming"

    run(body)
    bot = bot_ref[0]
    assert bot.audio() == [] and bot.words() == []
    assert bot.assistant() == []


async def answer_then_pause(bot: Bot) -> AdapterSession:
    """The whole answer written, four frames of it played, then a pause: the paused session."""
    session = bot.tts.session
    assert session is not None
    await bot.send(LLMFullResponseStartFrame(), *(LLMTextFrame(text=t + " ") for t in ANSWER.split(" ")))
    await bot.send(LLMFullResponseEndFrame())
    await bot.playback.play(4)
    await bot.send(BotOutputPauseFrame())
    await until(lambda: session.state is SessionState.PAUSED, "the pause")
    return session


def assert_heard_whole(bot: Bot) -> None:
    """Every word of the answer once, in order, and the context whole."""
    assert " ".join(bot.words()).split() == ANSWER.split()
    assert [a.split() for a in bot.assistant()] == [ANSWER.split()]


def test_a_resumed_pause_goes_on_with_exactly_the_next_word() -> None:
    """Pause mid-answer, resume: every word of the answer once, in order, and the context whole."""
    bot_ref: list[Bot] = []

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        session = await answer_then_pause(bot)
        await asyncio.sleep(0.3)
        await bot.send(BotOutputResumeFrame())
        await until(lambda: session.state is SessionState.IDLE, "the answer's end")

    # paced one second ahead of real time, so the pause lands while the engine is still speaking
    run(body, hold=True, max_lead_s=1.0)
    assert_heard_whole(bot_ref[0])


def test_a_ducked_pause_goes_on_at_once_and_a_second_pause_and_resume_lose_no_word() -> None:
    """ "Okay, ... sure" over the answer: pause, duck (the engine speaks on), pause again, resume:
    every word of the answer once, in order, and the context whole."""
    bot_ref: list[Bot] = []

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        session = await answer_then_pause(bot)
        await bot.send(BotOutputDuckFrame())
        await until(lambda: session.state is not SessionState.PAUSED, "the ducked answer to go on")
        await bot.playback.play(2)
        await bot.send(BotOutputPauseFrame())
        await until(lambda: session.state is SessionState.PAUSED, "the second pause")
        await asyncio.sleep(0.2)
        await bot.send(BotOutputResumeFrame())
        await until(lambda: session.state is SessionState.IDLE, "the answer's end")

    run(body, hold=True, max_lead_s=1.0)
    assert_heard_whole(bot_ref[0])


def test_tokens_the_llm_writes_during_a_pause_keep_the_bot_silent_and_follow_the_remainder() -> None:
    """ "Uh huh" while the LLM is still writing: its next tokens do not unpause the bot or drop
    what it had not said; after the resume every word is heard once, in order."""
    bot_ref: list[Bot] = []
    tokens = [t + " " for t in ANSWER.split(" ")]
    half = len(tokens) // 2

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        session = bot.tts.session
        assert session is not None
        await bot.send(LLMFullResponseStartFrame(), *(LLMTextFrame(text=t) for t in tokens[:half]))
        await bot.playback.play(4)
        await bot.send(BotOutputPauseFrame())
        await until(lambda: session.state is SessionState.PAUSED, "the pause")
        heard = len(bot.audio())
        await bot.send(*(LLMTextFrame(text=t) for t in tokens[half:]), LLMFullResponseEndFrame())
        await asyncio.sleep(0.3)
        assert session.state is SessionState.PAUSED, "a token unpaused the bot"
        assert len(bot.audio()) <= heard + 1, "audio went out during the pause"
        await bot.send(BotOutputResumeFrame())
        await until(lambda: session.state is SessionState.IDLE, "the answer's end")

    run(body, hold=True, max_lead_s=1.0)
    bot = bot_ref[0]
    assert " ".join(bot.words()).split() == ANSWER.split()
    assert [a.split() for a in bot.assistant()] == [ANSWER.split()]


def test_a_pause_that_becomes_an_interruption_keeps_only_the_heard_words() -> None:
    """Pause, then an InterruptionFrame: the context holds the words played before the pause."""
    bot_ref: list[Bot] = []

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        bot.playback.hold = True
        await bot.send(LLMFullResponseStartFrame(), *(LLMTextFrame(text=t + " ") for t in ANSWER.split(" ")))
        await bot.playback.play(8)
        await bot.send(BotOutputPauseFrame())
        await asyncio.sleep(0.2)
        await bot.send(InterruptionFrame())
        await asyncio.wait_for(bot.playback.interruption_seen.wait(), TIMEOUT_S)

    run(body, hold=True)
    bot = bot_ref[0]
    heard = bot.assistant()
    assert len(heard) == 1 and heard[0], heard
    assert ANSWER.startswith(heard[0].rstrip(". ")), heard
    assert len(heard[0].split()) < len(ANSWER.split())


def test_an_interruption_is_followed_until_the_interrupted_words_are_in_the_context() -> None:
    """As the user aggregator pushes an interruption (a barge-in's words, which may end the turn
    at once) the relay notes it; it is pending until the sink, after the assistant aggregator,
    sees it, and by then the heard words are in the context: a speculation copied after that
    gives the LLM the two questions with the bot's words between them."""
    follow_up = "When do you close?"
    bot_ref: list[Bot] = []

    async def body(bot: Bot) -> None:
        bot_ref.append(bot)
        bot.playback.hold = True
        await bot.send(LLMContextFrame(context=bot.context))
        await bot.playback.play(8)
        await bot.send(BotOutputPauseFrame())
        await asyncio.sleep(0.2)
        await bot.relay.queue_frame(InterruptionFrame())  # as the user aggregator pushes it
        assert bot.in_flight.pending == 1 and bot.assistant() == []
        assert await bot.in_flight.written(timeout_s=TIMEOUT_S)
        assert len(bot.assistant()) == 1  # written by the time the sink saw it
        copy = LLMContext(messages=[*bot.context.messages, {"role": "user", "content": follow_up}])
        await bot.send(LLMContextFrame(context=copy, speculation=True))
        await until(lambda: len(bot.llm.answers) == 2, "the speculative request")
        await bot.send(EagerEndOfTurnCancelFrame())  # the caller went on: nothing more is made

    run(body, hold=True)
    bot = bot_ref[0]
    assert [said for said, _ in bot.llm.answers] == [QUESTION, follow_up]
    heard = bot.assistant()
    assert len(heard) == 1 and ANSWER.startswith(heard[0].rstrip(". ")), heard


def test_an_interruption_lost_on_the_way_holds_requests_only_once_and_briefly() -> None:
    """One that never reaches the sink costs one turn end its bound, then is forgotten; with no
    sink in the pipeline none is followed."""

    async def main() -> None:
        in_flight = InterruptionsInFlight()
        lost, seen = InterruptionFrame(), InterruptionFrame()
        in_flight.passed(lost)
        assert in_flight.pending == 0  # no sink to report it: not followed
        InterruptionSink(in_flight)
        in_flight.passed(lost)
        assert not await in_flight.written(timeout_s=0.05)
        assert in_flight.pending == 0
        in_flight.passed(seen)
        asyncio.get_running_loop().call_later(0.01, in_flight.arrived, seen)
        assert await asyncio.wait_for(in_flight.written(timeout_s=TIMEOUT_S), 1.0)

    asyncio.run(main())
