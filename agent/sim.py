"""Pieces that play the other end of a call in a Pipecat pipeline: a toy bot, probes, a playback.

    trigger = SpeechTrigger(["Sure, the store opens at nine."])    # energy VAD in, fixed answers out
    await run_bot(transport, WarmlineTTSService(runtime=rt), trigger, sample_rate=8000)

    playback = Playback(hold=True)       # stands in for the output transport, plays on demand
    await playback.play(3)               # three audio frames, and the words that start in them
    await feed_audio([file_vad(silero_vad()), stt, sink], pcm, 16000)  # int16 audio, small pipeline

For tests and benchmarks of transports, the TTS service and the agent's parts, and for users who
test their own bots the same way. ``SpeechTrigger`` behaves like a stock Pipecat bot's turn logic:
when the caller starts talking it broadcasts an interruption (whether or not the bot is speaking,
as Pipecat's VAD does), and when the caller stops it asks the TTS to say the next answer from its
list; ``run_bot`` runs ``input -> trigger -> WarmlineTTSService -> output`` with real Pipecat
classes until the worker ends or the transport reports the client gone. ``AudioProbe`` and
``SpeakingWatch`` stamp what passes them; ``Playback`` holds what the TTS pushes and releases it
when told, so a barge-in lands after an exact amount of audio.

Simulation only: the agent's own pipeline (``agent.pipeline``, ``agent.server``) never imports
it, and nothing here recognizes speech, loads a model or touches the network itself.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import numpy as np
from pipecat.audio.vad.vad_analyzer import VADAnalyzer
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    OutputAudioRawFrame,
    StartFrame,
    SystemFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transports.base_transport import BaseTransport
from pipecat.workers.runner import WorkerRunner

from tts_service.pipecat.service import WarmlineTTSService

#: slack when comparing played seconds with a cut point (float sums of 80 ms frames)
_EPS_S = 1e-9


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
                    await cast(Callable[[], Awaitable[None]], self.broadcast_interruption)()
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


class Playback(FrameProcessor):
    """Stands in for the output transport: holds what the TTS pushes and plays it on demand.

    Playing an audio frame releases it and the frames that follow it up to the next audio frame
    (the words whose audio starts in it), so text that follows an audio frame counts as heard
    only once the whole frame has played. An interruption drops everything held, as a transport
    clears its queues. With ``hold=False`` (settable between turns) everything passes at once.
    Audio "plays" instantly but in order: only the order of frames decides what was heard.

    Records, since it was made or since ``new_turn``: every downstream frame (``received``), those
    after the first interruption (``after_interruption``), the audio frames released
    (``played_audio``) and their duration (``played_s``); ``interruption_seen`` and
    ``response_ended`` are set when an interruption passes and when an LLM response's end is
    played.
    """

    def __init__(self, *, hold: bool = True) -> None:
        super().__init__()
        self.hold = hold
        self._held: deque[Frame] = deque()
        self._arrived = asyncio.Event()
        self.received: list[Frame] = []
        self.played_audio: list[TTSAudioRawFrame] = []
        self.played_s = 0.0
        self.after_interruption: list[Frame] = []
        self.interrupted = False
        self.interruption_seen = asyncio.Event()
        self.response_ended = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction is FrameDirection.UPSTREAM or isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            return
        self.received.append(frame)
        if self.interrupted:
            self.after_interruption.append(frame)
        if isinstance(frame, InterruptionFrame):
            self.interrupted = True
            self._held.clear()
            await self.push_frame(frame, direction)
            self.interruption_seen.set()
        elif isinstance(frame, SystemFrame):
            await self.push_frame(frame, direction)
        elif isinstance(frame, EndFrame) or not self.hold:
            while self._held:
                await self._release(self._held.popleft())
            await self._release(frame)
        else:
            self._held.append(frame)
            self._arrived.set()

    async def _release(self, frame: Frame) -> None:
        if isinstance(frame, TTSAudioRawFrame):
            self.played_audio.append(frame)
            self.played_s += frame.num_frames / frame.sample_rate
        elif isinstance(frame, LLMFullResponseEndFrame):
            self.response_ended.set()
        await self.push_frame(frame)

    async def _next_held(self) -> Frame:
        while not self._held:
            self._arrived.clear()
            await self._arrived.wait()
        return self._held[0]

    async def play(self, num_frames: int) -> None:
        """Play ``num_frames`` more audio frames and the words that start in them."""
        played = 0
        while True:
            nxt = await self._next_held()
            if isinstance(nxt, TTSAudioRawFrame):
                if played == num_frames:
                    return
                played += 1
            await self._release(self._held.popleft())

    async def play_until(self, until_s: float) -> None:
        """Play held frames until the next audio would start at or after ``until_s`` of played audio.

        An audio frame that straddles ``until_s`` is played, but what follows it is not (it was
        not heard whole).
        """
        while True:
            nxt = await self._next_held()
            if isinstance(nxt, TTSAudioRawFrame) and self.played_s >= until_s - _EPS_S:
                return
            await self._release(self._held.popleft())
            if isinstance(nxt, TTSAudioRawFrame) and self.played_s > until_s + _EPS_S:
                return

    def new_turn(self) -> None:
        """Forget what was played and seen: the next turn is counted from zero."""
        self.received.clear()
        self.played_audio.clear()
        self.played_s = 0.0
        self.after_interruption.clear()
        self.interrupted = False
        self.interruption_seen.clear()
        self.response_ended.clear()


def file_vad(analyzer: VADAnalyzer) -> VADProcessor:
    """A VAD processor for audio fed from memory (``feed_audio``): without Pipecat's idle watchdog,
    which ends a caller's speech after a second of wall time with no audio (a muted microphone).
    Fed from memory, no audio means the machine stalled (a loaded CI runner): under it the watchdog
    split "what | is the weather like today" in two."""
    return VADProcessor(vad_analyzer=analyzer, audio_idle_timeout=0)


async def feed_audio(
    processors: Sequence[FrameProcessor],
    audio: bytes,
    sample_rate: int,
    *,
    timeout_s: float = 60.0,
    pace_s: float = 0.0,
) -> None:
    """Run int16 ``audio`` through ``processors`` in 20 ms input frames, then end the pipeline
    (``pace_s``: see ``feed_frames``)."""
    chunk = sample_rate // 50 * 2
    frames: list[Frame] = [
        InputAudioRawFrame(audio[i : i + chunk], sample_rate, 1) for i in range(0, len(audio), chunk)
    ]
    await feed_frames(processors, frames, sample_rate, timeout_s=timeout_s, pace_s=pace_s)


async def feed_frames(
    processors: Sequence[FrameProcessor],
    frames: Sequence[Frame],
    sample_rate: int,
    *,
    timeout_s: float = 60.0,
    pace_s: float = 0.0,
) -> None:
    """Run ``frames`` through ``processors``, then end the pipeline: as fast as they go, or one
    every ``pace_s`` as a line delivers them. Pacing matters behind a VAD: its start and stop are
    system frames, which overtake the audio still queued at a slower processor after it, as they
    never do on a live line; a recognizer fed faster than it reads can see the stop before the
    utterance's last words."""
    worker = PipelineWorker(
        Pipeline(list(processors)),
        params=PipelineParams(audio_in_sample_rate=sample_rate),
        cancel_on_idle_timeout=False,
    )
    if not pace_s:
        await worker.queue_frames([*frames, EndFrame()])
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    running = asyncio.create_task(runner.run(), name="feed-frames-runner")
    try:
        if pace_s:
            for frame in frames:
                await worker.queue_frame(frame)
                await asyncio.sleep(pace_s)
            await worker.queue_frame(EndFrame())
        await asyncio.wait_for(asyncio.shield(running), timeout_s)
    finally:
        if not running.done():
            running.cancel()
        await asyncio.gather(running, return_exceptions=True)


__all__ = [
    "AudioProbe",
    "Playback",
    "SpeakingWatch",
    "SpeechTrigger",
    "feed_audio",
    "feed_frames",
    "file_vad",
    "run_bot",
]
