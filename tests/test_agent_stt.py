"""The agent's pocketsphinx STT inside a real Pipecat pipeline: VAD -> STT, hibari speech in."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from engine_helpers import frames_of, pump
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InterimTranscriptionFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from agent.responder import DEMO_PHRASES
from agent.stt import PocketsphinxSTTService, normalize_phrase
from agent.vad import silero_vad
from tts_service.backends.base import Backend
from tts_service.engine.session import EngineSession, SessionConfig


def frozen_clock() -> float:
    return 0.0


def spoken(backend: Backend, text: str, sample_rate: int) -> bytes:
    """``text`` spoken by hibari as int16 PCM, with half a second of silence before and after."""
    session = EngineSession(backend, SessionConfig(sample_rate=sample_rate), clock=frozen_clock)
    session.start(text)
    session.flush()
    pcm = np.concatenate([f.samples for f in frames_of(pump(session))]).astype("<i2")
    pad = np.zeros(sample_rate // 2, dtype="<i2")
    return np.concatenate([pad, pcm, pad, pad]).tobytes()


class Collector(FrameProcessor):
    """At the end of the pipeline: transcripts, interim ones, and the order they came in."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, str]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame):
            self.events.append(("final", frame.text))
        elif isinstance(frame, InterimTranscriptionFrame):
            self.events.append(("interim", frame.text))
        await self.push_frame(frame, direction)


def transcribe(audio: bytes, sample_rate: int, stt: PocketsphinxSTTService) -> list[tuple[str, str]]:
    """Run ``audio`` in 20 ms frames through VAD -> STT -> Collector; the collector's events."""
    collector = Collector()

    async def main() -> None:
        worker = PipelineWorker(
            Pipeline([VADProcessor(vad_analyzer=silero_vad()), stt, collector]),
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
        await asyncio.wait_for(runner.run(), 60)

    asyncio.run(main())
    return collector.events


@pytest.mark.parametrize("question", ["What time do you open?", "What is the weather like today?"])
def test_a_question_is_transcribed_with_the_general_model_while_it_streams_in(
    hibari_backend: Backend, question: str
) -> None:
    """Open vocabulary at 16 kHz (WebRTC): interim transcripts while speaking, then the whole question."""
    events = transcribe(spoken(hibari_backend, question, 16000), 16000, stt())
    finals = [text for kind, text in events if kind == "final"]
    assert finals == [normalize_phrase(question)], events
    assert any(kind == "interim" for kind, _ in events), "no interim transcript while speaking"


def stt(**kwargs: object) -> PocketsphinxSTTService:
    return PocketsphinxSTTService(**kwargs)  # type: ignore[arg-type]


def test_a_closed_grammar_recognises_the_demo_question_exactly(hibari_backend: Backend) -> None:
    """With the demo phrases as grammar, 8 kHz phone audio of a demo question comes out word for word."""
    question = "Can I book a table for two?"
    events = transcribe(spoken(hibari_backend, question, 8000), 8000, stt(phrases=DEMO_PHRASES))
    finals = [text for kind, text in events if kind == "final"]
    assert finals == [normalize_phrase(question)]


def test_silence_gives_no_transcript(hibari_backend: Backend) -> None:
    """Two seconds of silence: the VAD never opens an utterance, so nothing is transcribed."""
    del hibari_backend
    events = transcribe(bytes(2 * 16000 * 2), 16000, stt())
    assert events == []
