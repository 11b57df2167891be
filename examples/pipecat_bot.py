"""Switching a Pipecat bot to Warmline: the lines you write, and a pipeline that runs them locally.

In a bot you already have, the change is the TTS line::

    from tts_service.pipecat.service import WarmlineTTSService

    tts = WarmlineTTSService(voice="heart")  # was e.g. CartesiaTTSService(api_key=..., voice_id=...)

    context = LLMContext(messages)
    aggregators = LLMContextAggregatorPair(context)
    pipeline = Pipeline([
        transport.input(), stt, aggregators.user(), llm,
        tts,                                   # tokens in as they stream, 80 ms frames out
        transport.output(), aggregators.assistant(),
    ])

Many calls can share one warm model: start one ``EngineRuntime`` and pass ``runtime=`` to each
call's service. When the TTS runs elsewhere (a ``warmline serve`` on a GPU box, or the Ray
deployment), only the arguments change::

    tts = WarmlineTTSService(url="ws://tts.internal:8765/", token=os.environ["WARMLINE_TOKEN"])
 This script needs no transport, keys or network: a scripted LLM streams an
answer at 30 tokens a second, a small sink stands where ``transport.output()`` would be and
writes the audio to a WAV, and the assistant context is printed at the end. With
``--barge-in-s`` the sink interrupts once that much audio has arrived, and the context shows
exactly the words that had begun::

    python examples/pipecat_bot.py out.wav [--barge-in-s 2.0] [--sample-rate 16000]
    python examples/pipecat_bot.py out.wav --url ws://127.0.0.1:8765/   # a running warmline serve
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import wave

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    SystemFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from tts_service.pipecat.service import WarmlineTTSService

ANSWER = (
    "Sure, I can help with that. Your table for two is booked for seven thirty tonight, "
    "by the window. Parking is free after six, right behind the building."
)
TOKENS_PER_S = 30.0


class WavSink(FrameProcessor):
    """Where transport.output() would be: plays (keeps) the audio, and can stop as a caller barges in.

    Once ``barge_in_s`` of audio has played the sink goes quiet, as a transport does when the
    caller starts talking, and sets ``barged_in``; the InterruptionFrame that follows clears it.
    """

    def __init__(self, barge_in_s: float | None) -> None:
        super().__init__()
        self.pcm: list[bytes] = []
        self.audio_s = 0.0
        self.barge_in_s = barge_in_s
        self.quiet = False
        self.barged_in = False
        #: the answer has been played out, or the caller barged in
        self.turn_over = asyncio.Event()
        self.interrupted = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InterruptionFrame):
            self.quiet = False
            self.interrupted.set()
        elif (
            isinstance(frame, TTSAudioRawFrame)
            and self.barge_in_s is not None
            and self.audio_s >= self.barge_in_s
        ):
            self.quiet = self.barged_in = True
            self.barge_in_s = None
            self.turn_over.set()
        if self.quiet and not isinstance(frame, SystemFrame):
            return
        if isinstance(frame, TTSAudioRawFrame):
            self.pcm.append(frame.audio)
            self.audio_s += frame.num_frames / frame.sample_rate
        elif isinstance(frame, LLMFullResponseEndFrame):
            self.turn_over.set()
        await self.push_frame(frame, direction)


async def scripted_llm(worker: PipelineWorker) -> None:
    """An LLM answer: word-sized tokens with their leading space, at TOKENS_PER_S."""
    await worker.queue_frame(LLMFullResponseStartFrame())
    for token in re.findall(r"\s*\S+", ANSWER):
        await worker.queue_frame(LLMTextFrame(text=token))
        await asyncio.sleep(1 / TOKENS_PER_S)
    await worker.queue_frame(LLMFullResponseEndFrame())


async def main(path: str, sample_rate: int, barge_in_s: float | None, url: str | None) -> None:
    if url:  # remote mode: the same service, the engine on a warmline serve
        tts = WarmlineTTSService(url=url, token=os.environ.get("WARMLINE_TOKEN"))
    else:
        tts = WarmlineTTSService(voice="heart")
    context = LLMContext([{"role": "user", "content": "Can you book a table for two tonight?"}])
    aggregators = LLMContextAggregatorPair(context)
    sink = WavSink(barge_in_s)
    pipeline = Pipeline([tts, sink, aggregators.assistant()])
    worker = PipelineWorker(pipeline, params=PipelineParams(audio_out_sample_rate=sample_rate))

    async def converse(worker: PipelineWorker, frame: Frame) -> None:
        llm = asyncio.create_task(scripted_llm(worker), name="example-scripted-llm")
        try:
            await sink.turn_over.wait()
            if sink.barged_in:
                llm.cancel()  # a real LLM is cancelled when the caller barges in
                await worker.queue_frame(InterruptionFrame())
                await sink.interrupted.wait()
        finally:
            llm.cancel()
            await asyncio.gather(llm, return_exceptions=True)
        await worker.queue_frame(EndFrame())

    worker.add_event_handler("on_pipeline_started", converse)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await runner.run()

    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(b"".join(sink.pcm))
    print(f"wrote {path}: {sink.audio_s:.2f} s at {sample_rate} Hz")
    for message in context.messages:
        print(message)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A scripted Pipecat pipeline speaking through Warmline.")
    parser.add_argument("path", help="WAV file to write")
    parser.add_argument("--sample-rate", type=int, default=16000, help="8000, 16000, 24000 or 48000")
    parser.add_argument("--barge-in-s", type=float, default=None, help="interrupt after this much audio")
    parser.add_argument("--url", default=None, help="a warmline serve to speak through ($WARMLINE_TOKEN)")
    args = parser.parse_args()
    asyncio.run(main(args.path, args.sample_rate, args.barge_in_s, args.url))
