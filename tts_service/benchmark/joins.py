"""Join quality: clicks at unit edges and loudness steps between units, engine against naive.

The engine streams each paragraph token by token (virtual clock, 30 tokens/s); its unit edges
come from ``session.timeline.unit_spans``. The naive baseline synthesizes each whole sentence
with hibari and concatenates the arrays, either *raw* (each with its own lead and tail silence)
or *trimmed* (leading and trailing samples below ``TRIM_THRESHOLD`` cut, no fades), as a naive
streaming server does.

A join clicks when the largest sample-to-sample jump within 5 ms of either edge of the join
exceeds the largest jump inside continuous speech of the same turn (20 ms away from any edge).
Loudness spread is max minus min active level (dB) over the turn's units.
Never asserts a target.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tts_service.benchmark.texts import naive_sentences, tokenize
from tts_service.engine.clock import FakeClock
from tts_service.engine.ports import UnitBackend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Output, SampleFormat, SpeechFrame

F32 = npt.NDArray[np.float32]
Spans = list[tuple[int, int]]
TOKENS_PER_S = 30.0
#: the naive server's trim level (about -40 dBFS)
TRIM_THRESHOLD = 0.01


def max_jump(x: F32) -> float:
    """Largest absolute difference between neighbouring samples."""
    return float(np.max(np.abs(np.diff(x.astype(np.float64))))) if len(x) > 1 else 0.0


def active_level_db(x: F32, rate: int) -> float:
    """Loudness of the speech in ``x``: RMS of the 20 ms windows within 30 dB of the loudest."""
    n = rate // 50
    blocks = x[: len(x) // n * n].reshape(-1, n).astype(np.float64)
    if len(blocks) == 0:
        return float("-inf")
    rms = np.sqrt((blocks**2).mean(axis=1))
    if float(rms.max()) <= 0.0:
        return float("-inf")
    active = rms[rms > rms.max() * 10 ** (-30 / 20)]
    return float(20 * np.log10(np.sqrt(np.mean(active**2))))


@dataclass(frozen=True, slots=True)
class TurnJoins:
    """One turn's join analysis."""

    joins: int
    clicks: int
    max_join_jump: float
    max_inside_jump: float
    loudness_spread_db: float


def analyse(audio: F32, spans: Spans, rate: int) -> TurnJoins:
    """Clicks and loudness spread for ``audio`` made of units at ``spans`` (samples)."""
    w = rate // 200  # 5 ms
    inside = max((max_jump(audio[a + 4 * w : b - 4 * w]) for a, b in spans), default=0.0)
    edge_jumps = []
    for (_, end), (start, _) in itertools.pairwise(spans):
        around_end = audio[max(0, end - w) : end + w]
        around_start = audio[max(0, start - w) : start + w]
        edge_jumps.append(max(max_jump(around_end), max_jump(around_start)))
    levels = [active_level_db(audio[a:b], rate) for a, b in spans if b - a >= rate // 50]
    finite = [v for v in levels if np.isfinite(v)]
    return TurnJoins(
        joins=len(edge_jumps),
        clicks=sum(1 for j in edge_jumps if j > inside),
        max_join_jump=max(edge_jumps, default=0.0),
        max_inside_jump=inside,
        loudness_spread_db=(max(finite) - min(finite)) if finite else 0.0,
    )


def _frames(outputs: list[Output]) -> list[F32]:
    return [o.samples.astype(np.float32) for o in outputs if isinstance(o, SpeechFrame)]


def _pump(session: EngineSession) -> list[F32]:
    got: list[F32] = []
    while True:
        got += _frames(session.drain())
        job = session.next_job()
        if job is None:
            return got
        session.complete(job.run())


def stream_paragraph(backend: UnitBackend, text: str, seed: int) -> tuple[F32, Spans, int]:
    """(audio, unit spans, sample rate) of ``text`` streamed token by token through the engine."""
    clock = FakeClock()
    config = SessionConfig(sample_format=SampleFormat.FLOAT32, seed=seed)
    session = EngineSession(backend, config, clock=clock)
    pieces: list[F32] = []
    for token in tokenize(text, seed):
        session.inject(token)
        pieces += _pump(session)
        clock.advance(1.0 / TOKENS_PER_S)
    session.flush()
    pieces += _pump(session)
    spans = list(session.timeline.unit_spans)
    session.close()
    audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    return audio, spans, config.sample_rate


def _stitch(arrays: list[F32]) -> tuple[F32, Spans]:
    spans: Spans = []
    offset = 0
    for a in arrays:
        spans.append((offset, offset + len(a)))
        offset += len(a)
    return (np.concatenate(arrays) if arrays else np.zeros(0, np.float32)), spans


def _trim(x: F32) -> F32:
    loud = np.flatnonzero(np.abs(x) >= TRIM_THRESHOLD)
    return x[int(loud[0]) : int(loud[-1]) + 1] if len(loud) else x[:0]


def naive_paragraph(
    backend: UnitBackend, text: str, seed: int
) -> tuple[tuple[F32, Spans], tuple[F32, Spans]]:
    """(raw, trimmed) naive stitching of ``text``'s whole sentences: each (audio, spans)."""
    state = backend.new_voice_state(backend.default_voice)
    arrays = [
        backend.synthesize(state, s, speed=1.0, seed=seed + k).samples.astype(np.float32)
        for k, s in enumerate(naive_sentences(text))
    ]
    return _stitch(arrays), _stitch([_trim(a) for a in arrays])


@dataclass(slots=True)
class JoinsResult:
    """Per-paragraph analyses for the engine and both naive baselines."""

    engine: list[TurnJoins] = field(default_factory=list)
    naive_raw: list[TurnJoins] = field(default_factory=list)
    naive_trimmed: list[TurnJoins] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"paragraphs": len(self.engine), "naive_trim_threshold": TRIM_THRESHOLD}
        for name, turns in (
            ("engine", self.engine),
            ("naive_raw", self.naive_raw),
            ("naive_trimmed", self.naive_trimmed),
        ):
            out[f"{name}_joins"] = sum(t.joins for t in turns)
            out[f"{name}_clicks"] = sum(t.clicks for t in turns)
            out[f"{name}_loudness_spread_db_max"] = round(
                max((t.loudness_spread_db for t in turns), default=0.0), 2
            )
            out[f"{name}_loudness_spread_db_mean"] = round(
                float(np.mean([t.loudness_spread_db for t in turns])) if turns else 0.0, 2
            )
            out[f"{name}_max_join_jump"] = round(max((t.max_join_jump for t in turns), default=0.0), 4)
            out[f"{name}_max_inside_speech_jump_min"] = round(
                min((t.max_inside_jump for t in turns), default=0.0), 4
            )
        return out


def measure_joins(backend: UnitBackend, paragraphs: list[str], *, seed: int = 0) -> JoinsResult:
    """Analyse every paragraph streamed through the engine and stitched naively."""
    result = JoinsResult()
    for i, text in enumerate(paragraphs):
        audio, spans, rate = stream_paragraph(backend, text, seed + i)
        result.engine.append(analyse(audio, spans, rate))
        (raw, raw_spans), (trimmed, trimmed_spans) = naive_paragraph(backend, text, seed + i)
        sr = backend.capabilities.sample_rate
        result.naive_raw.append(analyse(raw, raw_spans, sr))
        result.naive_trimmed.append(analyse(trimmed, trimmed_spans, sr))
    return result
