"""Whole texts as audio, offline: a caller's voice for simulated calls, and a WAV writer.

    pcm = spoken_pcm(backend, "What time do you open?", 8000)  # int16 samples at 8 kHz
    write_wav(Path("question.wav"), pcm, 8000)                  # a fake microphone's input

``spoken_pcm`` runs one ``EngineSession`` to the end with a clock that never moves (no hold timer
ever fires, so the audio depends only on the text and the backend); ``write_wav`` writes mono
16-bit PCM. Tests, benchmarks and ``warmline speak`` share them.

Synchronous and sans-I/O but for the file ``write_wav`` writes: no event loop, no threads, no
sockets; it imports only the engine, numpy and ``wave``. Never loads a backend (the caller does).
"""

from __future__ import annotations

import os
import wave

import numpy as np

from tts_service.engine.ports import Backend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import SpeechFrame, WordMark


def spoken_pcm(
    backend: Backend, text: str, sample_rate: int, *, seed: int | None = None, speed: float = 1.0
) -> np.ndarray:
    """``text`` spoken whole by an engine session on ``backend``, as int16 samples (a caller's voice).

    With a ``seed`` the samples are the same on every call; without one the voice's own randomness
    (hibari's) makes each rendition a little different, as a caller's would be. ``speed`` is the
    session's (within the backend's range).
    """
    return spoken_marked(backend, text, sample_rate, seed=seed, speed=speed)[0]


def spoken_marked(
    backend: Backend, text: str, sample_rate: int, *, seed: int | None = None, speed: float = 1.0
) -> tuple[np.ndarray, tuple[WordMark, ...]]:
    """``spoken_pcm``'s samples and the word marks that came with them (samples at
    ``sample_rate`` from the start): where each word of ``text`` lies, to cut the audio at a word."""
    config = SessionConfig(sample_rate=sample_rate, seed=seed, speed=speed)
    session = EngineSession(backend, config, clock=lambda: 0.0)
    session.start(text)
    session.flush()
    chunks: list[np.ndarray] = []
    marks: list[WordMark] = []
    while True:
        frames = [o for o in session.drain() if isinstance(o, SpeechFrame)]
        more = session.step()
        if not more:
            frames += [o for o in session.drain() if isinstance(o, SpeechFrame)]
        for frame in frames:
            chunks.append(frame.samples)
            marks.extend(frame.words)
        if not more:
            break
    return np.concatenate(chunks).astype("<i2"), tuple(marks)


def write_wav(path: str | os.PathLike[str], pcm: np.ndarray | bytes, sample_rate: int) -> None:
    """Mono 16-bit ``pcm`` (int16 samples, or their little-endian bytes) as a WAV file."""
    data = pcm if isinstance(pcm, bytes) else np.asarray(pcm, dtype="<i2").tobytes()
    with wave.open(os.fspath(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(data)


__all__ = ["spoken_marked", "spoken_pcm", "write_wav"]
