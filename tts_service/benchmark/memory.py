"""Resident memory per open session: many sync sessions, each paused mid-turn holding its audio.

Each session starts a paragraph, runs the jobs its look-ahead allows and hands out a few frames,
so it holds what a live call holds: pending audio, word marks, text not yet spoken. RSS comes
from /proc/self/statm. One session is run and closed first so lazily grown arenas (onnxruntime,
numpy) are not billed to the sessions.
Never asserts a target.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from tts_service.benchmark.stats import rss_mb
from tts_service.benchmark.texts import PARAGRAPHS, tokenize
from tts_service.engine.ports import UnitBackend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import SpeechFrame

FRAMES_PULLED = 3


@dataclass(frozen=True, slots=True)
class MemoryResult:
    """RSS in MiB at each step, and what the open sessions held."""

    rss_model_loaded_mb: float
    rss_before_sessions_mb: float
    rss_with_sessions_mb: float
    sessions: int
    pending_audio_s_mean: float

    def to_json(self) -> dict[str, Any]:
        delta = self.rss_with_sessions_mb - self.rss_before_sessions_mb
        return {
            "rss_model_loaded_mb": round(self.rss_model_loaded_mb, 2),
            "rss_before_sessions_mb": round(self.rss_before_sessions_mb, 2),
            "rss_with_sessions_mb": round(self.rss_with_sessions_mb, 2),
            "sessions_open": self.sessions,
            "rss_sessions_delta_mb": round(delta, 2),
            "rss_per_session_mb": round(delta / self.sessions, 4) if self.sessions else 0.0,
            "pending_audio_per_session_s_mean": round(self.pending_audio_s_mean, 3),
        }


def _mid_turn(backend: UnitBackend, index: int) -> EngineSession:
    """A session with a paragraph started, its look-ahead synthesized and a few frames pulled."""
    session = EngineSession(backend, SessionConfig(seed=index))
    for token in tokenize(PARAGRAPHS[index % len(PARAGRAPHS)], index):
        session.inject(token)
    pulled = 0
    while pulled < FRAMES_PULLED:
        item = session.next_output()
        if item is None:
            if not session.step():
                break
        elif isinstance(item, SpeechFrame):
            pulled += 1
    while (job := session.next_job()) is not None:  # refill the look-ahead after the pulls
        session.complete(job.run())
    return session


def measure_memory(backend: UnitBackend, sessions: int, rss_model_loaded_mb: float) -> MemoryResult:
    """Open ``sessions`` mid-turn sessions and read RSS before and after."""
    _mid_turn(backend, 0).close()
    gc.collect()
    before = rss_mb()
    held = [_mid_turn(backend, i) for i in range(sessions)]
    gc.collect()
    after = rss_mb()
    pending = sum(s.pending_samples / s.sample_rate for s in held) / max(1, len(held))
    for s in held:
        s.close()
    return MemoryResult(rss_model_loaded_mb, before, after, sessions, pending)
