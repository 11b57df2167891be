"""Helpers shared by the engine tests: run a session to quiescence and sort its outputs."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

from tts_service.engine.ports import Backend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Event, Output, SpeechFrame


def pump(session: EngineSession) -> list[Output]:
    """Run every job the session wants and collect every output, until nothing moves."""
    outputs: list[Output] = []
    while True:
        outputs.extend(session.drain())
        if not session.step():
            outputs.extend(session.drain())
            return outputs


def pump_frames(session: EngineSession, max_frames: int) -> list[Output]:
    """Like ``pump`` but hand out at most ``max_frames`` frames (a listener that is behind)."""
    outputs: list[Output] = []
    frames = 0
    while frames < max_frames:
        item = session.next_output()
        if item is None:
            if not session.step():
                break
            continue
        outputs.append(item)
        if isinstance(item, SpeechFrame):
            frames += 1
    return outputs


def frames_of(outputs: list[Output]) -> list[SpeechFrame]:
    return [o for o in outputs if isinstance(o, SpeechFrame)]


def events_of(outputs: list[Output]) -> list[Event]:
    return [o for o in outputs if not isinstance(o, SpeechFrame)]


def words_of(outputs: list[Output]) -> list[str]:
    return [w.word for f in frames_of(outputs) for w in f.words]


def spoken_pcm(backend: Backend, text: str, sample_rate: int) -> np.ndarray:
    """``text`` spoken whole by an engine session on ``backend``, as int16 samples (a caller's voice)."""
    session = EngineSession(backend, SessionConfig(sample_rate=sample_rate), clock=lambda: 0.0)
    session.start(text)
    session.flush()
    return np.concatenate([f.samples for f in frames_of(pump(session))]).astype("<i2")


def write_wav(path: Path, pcm: np.ndarray, sample_rate: int) -> None:
    """Mono int16 ``pcm`` as a WAV file (a fake microphone's input)."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(np.asarray(pcm, dtype="<i2").tobytes())
