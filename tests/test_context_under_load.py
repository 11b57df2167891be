"""The context holds only words whose audio was written, even when the output falls behind.

A machine too busy to keep up is an output transport whose audio task writes slower than real
time. Here that transport is a real Pipecat ``BaseOutputTransport`` whose ``write_audio_frame``
takes twice each chunk's duration; Pipecat's clock meanwhile runs on. The pipeline is Pipecat's
own (``WarmlineTTSService``, the output, the assistant aggregator); the caller barges in
mid-answer. Every word frame must leave the output after the audio its word starts in has been
written, and the context must hold exactly the words that left: never a word ahead of its audio.

The truth is the engine itself run offline (the tone backend with a frozen clock makes the same
frames with the same word marks as the service's session).
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine_helpers import frames_of, pump
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    OutputAudioRawFrame,
    StartFrame,
    TTSTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import TransportParams
from pipecat.workers.runner import WorkerRunner
from toy_backends import ToneBackend

from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

ANSWER = "Sure, I can help with that. The store opens at nine tomorrow morning. See you there!"
RATE = 24000
#: how much slower than real time the starved output writes its audio
SLOWDOWN = 2.0
TIMEOUT_S = 60.0


def frozen_clock() -> float:
    return 0.0


class StarvedOutput(BaseOutputTransport):
    """An output whose writes take ``SLOWDOWN`` times the audio's duration; counts what it wrote."""

    def __init__(self) -> None:
        super().__init__(TransportParams(audio_out_enabled=True, audio_out_sample_rate=RATE))
        self.written_samples = 0

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        samples = len(frame.audio) // 2
        await asyncio.sleep(SLOWDOWN * samples / RATE)
        self.written_samples += samples
        return True


class Ledger(FrameProcessor):
    """After the output: each word frame, with the samples the output had written when it came."""

    def __init__(self, output: StarvedOutput) -> None:
        super().__init__()
        self.output = output
        self.words: list[tuple[str, int]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction is FrameDirection.DOWNSTREAM and isinstance(frame, TTSTextFrame):
            self.words.append((frame.text, self.output.written_samples))
        await self.push_frame(frame, direction)


def test_words_never_leave_ahead_of_their_audio_when_the_output_falls_behind() -> None:
    truth_session = EngineSession(ToneBackend(), SessionConfig(), clock=frozen_clock)
    truth_session.start(ANSWER)
    truth_session.flush()
    marks = [w for f in frames_of(pump(truth_session)) for w in f.words]
    starts = {m.word: m.start_sample for m in marks}  # the answer's words are distinct
    assert len(starts) == len(marks)
    result: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(ToneBackend(), workers=1, clock=frozen_clock) as runtime:
            output = StarvedOutput()
            ledger = Ledger(output)
            context = LLMContext()
            aggregators = LLMContextAggregatorPair(context)
            service = WarmlineTTSService(runtime=runtime)
            pipeline = Pipeline([service, output, ledger, aggregators.assistant()])
            worker = PipelineWorker(
                pipeline, params=PipelineParams(audio_out_sample_rate=RATE), cancel_on_idle_timeout=False
            )
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(worker)
            run = asyncio.create_task(runner.run(), name="test-runner")
            try:
                text = [ANSWER[i : i + 3] for i in range(0, len(ANSWER), 3)]
                await worker.queue_frames(
                    [LLMFullResponseStartFrame(), *(LLMTextFrame(t) for t in text), LLMFullResponseEndFrame()]
                )
                for _ in range(int(TIMEOUT_S / 0.01)):  # until half the answer's audio is written
                    if output.written_samples >= marks[len(marks) // 2].start_sample:
                        break
                    await asyncio.sleep(0.01)
                await worker.queue_frame(InterruptionFrame())
                await asyncio.sleep(0.3)
                result["written_at_barge_in"] = output.written_samples
                await worker.queue_frame(EndFrame())
                await asyncio.wait_for(run, TIMEOUT_S)
            finally:
                if not run.done():
                    run.cancel()
                    await asyncio.gather(run, return_exceptions=True)
            result["words"] = ledger.words
            result["context"] = [m["content"] for m in context.messages if m.get("role") == "assistant"]

    asyncio.run(main())
    words = result["words"]
    ahead = [(w, written, starts[w]) for w, written in words if starts[w] >= written]
    assert words and not ahead, f"words released before their audio was written: {ahead}"
    assert 0 < len(words) < len(marks)  # the barge-in cut the answer
    assert result["context"] == [" ".join(w for w, _ in words)]
    heard = [m.word for m in marks if m.start_sample < result["written_at_barge_in"]]
    assert len(heard) - len(words) <= 2, (heard, words)  # at most the frame being written is missing
