"""Helpers shared by the agent's tests: feed audio through a small real Pipecat pipeline."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pipecat.frames.frames import EndFrame, Frame, InputAudioRawFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameProcessor
from pipecat.workers.runner import WorkerRunner


async def feed_audio(
    processors: Sequence[FrameProcessor], audio: bytes, sample_rate: int, *, timeout_s: float = 60.0
) -> None:
    """Run int16 ``audio`` through ``processors`` in 20 ms input frames, then end the pipeline."""
    worker = PipelineWorker(
        Pipeline(list(processors)),
        params=PipelineParams(audio_in_sample_rate=sample_rate),
        cancel_on_idle_timeout=False,
    )
    chunk = sample_rate // 50 * 2
    frames: list[Frame] = [
        InputAudioRawFrame(audio[i : i + chunk], sample_rate, 1) for i in range(0, len(audio), chunk)
    ]
    await worker.queue_frames([*frames, EndFrame()])
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await asyncio.wait_for(runner.run(), timeout_s)
