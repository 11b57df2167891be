"""The demo responder: intent picking, token streaming in a real Pipecat pipeline, barge-in."""

from __future__ import annotations

import asyncio

import pytest
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from agent.responder import DEMO_INTENTS, FALLBACK, DemoResponder, last_user_text, pick_intent, tokens_of

#: bounds on waits (safety nets against hangs, not timing assertions)
MAX_WAIT_S = 20.0


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("hello there", "greeting"),
        ("can i book a table for two", "booking"),
        ("what time do you open", "hours"),
        ("what is the weather like", "weather"),
        ("thank you goodbye", "goodbye"),
        ("the quick brown fox", "fallback"),
        ("", "fallback"),
    ],
)
def test_intents_are_picked_by_keywords(text: str, intent: str) -> None:
    """Each scripted intent answers its keywords; anything else gets the fallback."""
    assert pick_intent(text).name == intent


def test_tokens_rejoin_to_the_answer_and_answers_have_no_digits() -> None:
    """Tokens are words with their trailing space; answers spell numbers (the TTS speaks them)."""
    for intent in (*DEMO_INTENTS, FALLBACK):
        assert "".join(tokens_of(intent.answer)) == intent.answer
        assert not any(c.isdigit() for c in intent.answer)


def test_last_user_text_reads_strings_and_text_parts() -> None:
    """The last user message counts, whether its content is a string or a list of text parts."""
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": [{"type": "text", "text": "book a table"}]},
    ]
    assert last_user_text(messages) == "book a table"
    assert last_user_text([{"role": "system", "content": "x"}]) == ""


def test_last_user_text_joins_what_the_caller_said_since_the_bot_spoke() -> None:
    """A turn that ended at a pause and went on (no answer heard between) is read as one sentence."""
    messages = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hello, how can I help?"},
        {"role": "user", "content": "i would like to"},
        {"role": "user", "content": [{"type": "text", "text": "book a table"}]},
    ]
    assert last_user_text(messages) == "i would like to book a table"
    assert pick_intent(last_user_text(messages)).name == "booking"
    assert last_user_text([*messages, {"role": "assistant", "content": "Of course."}]) == ""


class Sink(FrameProcessor):
    """After the responder: every LLM frame in order; ``got`` is set after ``wanted`` tokens."""

    def __init__(self, wanted: int = 0) -> None:
        super().__init__()
        self.frames: list[Frame] = []
        self.wanted = wanted
        self.got = asyncio.Event()
        self.ended = asyncio.Event()
        self.interrupted = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, (LLMFullResponseStartFrame, LLMTextFrame, LLMFullResponseEndFrame)):
            self.frames.append(frame)
            if self.wanted and sum(isinstance(f, LLMTextFrame) for f in self.frames) >= self.wanted:
                self.got.set()
            if isinstance(frame, LLMFullResponseEndFrame):
                self.ended.set()
        elif isinstance(frame, InterruptionFrame):
            self.interrupted.set()
        await self.push_frame(frame, direction)


def context_frame(user_text: str) -> LLMContextFrame:
    return LLMContextFrame(LLMContext(messages=[{"role": "user", "content": user_text}]))


async def run_pipeline(responder: DemoResponder, sink: Sink, scenario: object) -> None:
    worker = PipelineWorker(
        Pipeline([responder, sink]), params=PipelineParams(), cancel_on_idle_timeout=False
    )
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run(), name="test-runner")
    try:
        assert callable(scenario)
        await asyncio.wait_for(scenario(worker), MAX_WAIT_S)
        await worker.queue_frame(EndFrame())
        await asyncio.wait_for(asyncio.shield(run), MAX_WAIT_S)
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)


def test_an_answer_streams_as_start_tokens_end() -> None:
    """A user turn gets LLMFullResponseStart, one LLMTextFrame per token of the answer, then End."""
    responder = DemoResponder(tokens_per_s=200.0, first_token_s=0.0)
    sink = Sink()

    async def scenario(worker: PipelineWorker) -> None:
        await worker.queue_frame(context_frame("what time do you open"))
        await sink.ended.wait()

    asyncio.run(run_pipeline(responder, sink, scenario))
    answer = pick_intent("what time do you open").answer
    assert isinstance(sink.frames[0], LLMFullResponseStartFrame)
    assert isinstance(sink.frames[-1], LLMFullResponseEndFrame)
    assert [f.text for f in sink.frames[1:-1] if isinstance(f, LLMTextFrame)] == tokens_of(answer)
    assert responder.answers == [("what time do you open", "hours")]


def test_an_interruption_stops_the_stream_at_once() -> None:
    """After an InterruptionFrame no further token and no end frame of that answer are pushed."""
    responder = DemoResponder(tokens_per_s=50.0, first_token_s=0.0)
    sink = Sink(wanted=3)
    seen_at_interrupt: list[int] = []

    async def scenario(worker: PipelineWorker) -> None:
        await worker.queue_frame(context_frame("can i book a table"))
        await sink.got.wait()
        await worker.queue_frame(InterruptionFrame())
        await sink.interrupted.wait()  # the responder stops its stream before passing the frame on
        assert not responder.streaming
        seen_at_interrupt.append(len(sink.frames))
        await asyncio.sleep(0.3)  # room for tokens that must not come (15 at this pace)

    asyncio.run(run_pipeline(responder, sink, scenario))
    tokens = [f for f in sink.frames if isinstance(f, LLMTextFrame)]
    assert 3 <= len(tokens) < len(tokens_of(pick_intent("book").answer))
    assert not any(isinstance(f, LLMFullResponseEndFrame) for f in sink.frames)
    assert len(sink.frames) == seen_at_interrupt[0]
