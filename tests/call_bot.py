"""A tiny voice bot for transport tests and benchmarks: an energy VAD in, fixed answers out, no STT.

``SpeechTrigger`` behaves like a stock Pipecat bot's turn logic: when the caller starts talking it
broadcasts an interruption (whether or not the bot is speaking, as Pipecat's VAD does), and when
the caller stops it asks the TTS to say the next answer from its list. ``run_bot`` runs
``input -> trigger -> WarmlineTTSService -> output`` with real Pipecat classes until the worker
ends or the transport reports the client gone.

Test scaffolding: never imported by the package.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    InputAudioRawFrame,
    OutputAudioRawFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transports.base_transport import BaseTransport
from pipecat.workers.runner import WorkerRunner

from tts_service.pipecat_service import WarmlineTTSService


class SpeechTrigger(FrameProcessor):
    """Energy VAD over the caller's audio: interrupt on speech start, answer on speech end."""

    def __init__(
        self,
        answers: Sequence[str],
        *,
        threshold: float = 0.02,
        start_ms: int = 100,
        end_ms: int = 600,
        interrupt_on_speech: bool = True,
    ) -> None:
        super().__init__()
        self.answers: deque[str] = deque(answers)
        self.threshold = threshold
        self.start_ms = start_ms
        self.end_ms = end_ms
        self.interrupt_on_speech = interrupt_on_speech
        self.in_speech = False
        self._loud_ms = 0.0
        self._quiet_ms = 0.0
        #: ("speech_start" | "speech_end" | "answer", loop time)
        self.events: list[tuple[str, float]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame) and direction is FrameDirection.DOWNSTREAM:
            await self._hear(frame)

    async def _hear(self, frame: InputAudioRawFrame) -> None:
        pcm = np.frombuffer(frame.audio, dtype="<i2").astype(np.float32) / 32768.0
        if pcm.size == 0:
            return
        chunk_ms = 1000.0 * pcm.size / frame.sample_rate / frame.num_channels
        loud = float(np.sqrt(np.mean(pcm * pcm))) > self.threshold
        now = asyncio.get_running_loop().time()
        if not self.in_speech:
            self._loud_ms = self._loud_ms + chunk_ms if loud else 0.0
            if self._loud_ms >= self.start_ms:
                self.in_speech, self._quiet_ms = True, 0.0
                self.events.append(("speech_start", now))
                if self.interrupt_on_speech:
                    await self.broadcast_interruption()
            return
        self._quiet_ms = 0.0 if loud else self._quiet_ms + chunk_ms
        if self._quiet_ms >= self.end_ms:
            self.in_speech, self._loud_ms = False, 0.0
            self.events.append(("speech_end", now))
            if self.answers:
                self.events.append(("answer", now))
                await self.push_frame(TTSSpeakFrame(self.answers.popleft()))


async def run_bot(
    transport: BaseTransport,
    tts: WarmlineTTSService,
    trigger: SpeechTrigger,
    *,
    sample_rate: int,
    in_sample_rate: int | None = None,
    before_output: Sequence[FrameProcessor] = (),
    extra: Sequence[FrameProcessor] = (),
) -> None:
    """Run the bot's pipeline until it ends or the transport's client goes away."""
    worker = PipelineWorker(
        Pipeline([transport.input(), trigger, tts, *before_output, transport.output(), *extra]),
        params=PipelineParams(
            audio_in_sample_rate=in_sample_rate or sample_rate, audio_out_sample_rate=sample_rate
        ),
        cancel_on_idle_timeout=False,
    )

    async def gone(*_: Any) -> None:
        await worker.cancel()

    transport.add_event_handler("on_client_disconnected", gone)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await runner.run()


class AudioProbe(FrameProcessor):
    """Between the TTS and the output: when each TTS audio frame left the TTS, by context."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[tuple[float, str | None]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.frames.append((asyncio.get_running_loop().time(), frame.context_id))
        await self.push_frame(frame, direction)


class SpeakingWatch(FrameProcessor):
    """After the output transport: when the bot started and stopped speaking, and the chunks it wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.stopped = asyncio.Event()
        self.events: list[tuple[str, float]] = []
        #: (bytes, sample rate) of every audio chunk the output wrote
        self.chunks: set[tuple[int, int]] = set()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        now = asyncio.get_running_loop().time()
        if isinstance(frame, OutputAudioRawFrame) and direction is FrameDirection.DOWNSTREAM:
            self.chunks.add((len(frame.audio), frame.sample_rate))
        elif isinstance(frame, BotStartedSpeakingFrame):
            self.events.append(("started", now))
            self.started.set()
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self.events.append(("stopped", now))
            self.stopped.set()
        await self.push_frame(frame, direction)
