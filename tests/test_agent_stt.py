"""The agent's pocketsphinx STT inside a real Pipecat pipeline: VAD -> STT, hibari speech in."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from engine_helpers import spoken_pcm
from pipecat.frames.frames import (
    Frame,
    InterimTranscriptionFrame,
    TranscriptionFrame,
)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat_helpers import feed_audio

from agent.responder import DEMO_PHRASES
from agent.stt import PocketsphinxSTTService, normalize_phrase
from agent.vad import silero_vad
from tts_service.backends.base import Backend


def spoken(backend: Backend, text: str, sample_rate: int) -> bytes:
    """``text`` spoken by hibari as int16 PCM, with half a second of silence before and after."""
    pcm = spoken_pcm(backend, text, sample_rate)
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
    asyncio.run(feed_audio([VADProcessor(vad_analyzer=silero_vad()), stt, collector], audio, sample_rate))
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
