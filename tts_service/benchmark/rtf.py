"""Real-time factor: compute seconds per audio second for a long answer, engine against naive.

The engine gets the whole multi-paragraph text (in 2 kB pieces, as ``warmline speak`` does)
and is pumped to the end; ``job.run()`` is timed alone (the model) and together with the
engine's own work (``complete``, framing, draining). The naive baseline synthesizes each whole
sentence with hibari and concatenates the arrays.
Never asserts a target.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tts_service.benchmark.stats import ratio
from tts_service.benchmark.texts import naive_sentences
from tts_service.engine.ports import UnitBackend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Output, SpeechFrame

_PIECE_CHARS = 2048


@dataclass(frozen=True, slots=True)
class RtfResult:
    """Seconds of compute and of audio for both ways of speaking the same text."""

    text_chars: int
    engine_model_s: float
    engine_total_s: float
    engine_audio_s: float
    engine_units: int
    naive_model_s: float
    naive_audio_s: float
    naive_sentences: int

    def to_json(self) -> dict[str, Any]:
        engine_rtf = self.engine_model_s / self.engine_audio_s if self.engine_audio_s else 0.0
        naive_rtf = self.naive_model_s / self.naive_audio_s if self.naive_audio_s else 0.0
        return {
            "text_chars": self.text_chars,
            "engine_units": self.engine_units,
            "naive_sentences": self.naive_sentences,
            "engine_model_compute_s": round(self.engine_model_s, 4),
            "engine_total_compute_s": round(self.engine_total_s, 4),
            "engine_audio_s": round(self.engine_audio_s, 3),
            "engine_rtf": round(engine_rtf, 5),
            "engine_rtf_with_engine_overhead": (
                round(self.engine_total_s / self.engine_audio_s, 5) if self.engine_audio_s else 0.0
            ),
            "engine_x_real_time": ratio(self.engine_audio_s, self.engine_model_s),
            "naive_model_compute_s": round(self.naive_model_s, 4),
            "naive_audio_s": round(self.naive_audio_s, 3),
            "naive_rtf": round(naive_rtf, 5),
            "naive_x_real_time": ratio(self.naive_audio_s, self.naive_model_s),
            "engine_over_naive_rtf_ratio": ratio(engine_rtf, naive_rtf),
        }


def _frame_samples(outputs: list[Output]) -> int:
    return sum(o.num_samples for o in outputs if isinstance(o, SpeechFrame))


def _engine(backend: UnitBackend, text: str, seed: int) -> tuple[float, float, float, int]:
    """(model seconds, total seconds, audio seconds, units) for the engine speaking ``text``."""
    session = EngineSession(backend, SessionConfig(seed=seed))
    model_s = 0.0
    samples = 0
    units = 0
    t_start = time.perf_counter()
    try:
        for i in range(0, len(text), _PIECE_CHARS):
            session.inject(text[i : i + _PIECE_CHARS])
        session.flush()
        while True:
            samples += _frame_samples(session.drain())
            job = session.next_job()
            if job is None:
                samples += _frame_samples(session.drain())
                break
            t0 = time.perf_counter()
            result = job.run()
            model_s += time.perf_counter() - t0
            units += 1
            session.complete(result)
        total_s = time.perf_counter() - t_start
    finally:
        session.close()
    return model_s, total_s, samples / session.sample_rate, units


def _naive(backend: UnitBackend, text: str, seed: int) -> tuple[float, float, int]:
    """(model seconds, audio seconds, sentences) for hibari speaking each whole sentence."""
    state = backend.new_voice_state(backend.default_voice)
    sentences = naive_sentences(text)
    model_s = 0.0
    samples = 0
    for k, sentence in enumerate(sentences):
        t0 = time.perf_counter()
        audio = backend.synthesize(state, sentence, speed=1.0, seed=seed + k)
        model_s += time.perf_counter() - t0
        samples += len(audio.samples)
    return model_s, samples / backend.capabilities.sample_rate, len(sentences)


def measure_rtf(backend: UnitBackend, text: str, *, seed: int = 0) -> RtfResult:
    """Speak ``text`` both ways, engine first, and time them."""
    e_model, e_total, e_audio, units = _engine(backend, text, seed)
    n_model, n_audio, sentences = _naive(backend, text, seed)
    return RtfResult(len(text), e_model, e_total, e_audio, units, n_model, n_audio, sentences)
