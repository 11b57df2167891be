"""First-frame latency of the sync engine against naive sentence stitching, warm, over many turns.

Each turn streams an answer token by token on a virtual clock at ``TOKENS_PER_S``. Two figures
come out of it:

* *compute*: measured wall time (``perf_counter``) from the call that makes the first unit ready
  (the ``inject`` that completes the first clause, or the ``next_job`` whose poll fires the
  first-unit hold) to the first 80 ms frame out of ``next_output``;
* *end to end*: virtual arrival of that token (counted from the first token) plus the compute.

The naive baseline waits for the first whole sentence, then synthesizes it whole with hibari.
A turn is reset once its first frame is out: the rest of the answer cannot change that frame.
Never asserts a target; never touches asyncio.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tts_service.benchmark.stats import ms_summary, ratio
from tts_service.benchmark.texts import first_sentence_token, tokenize, turn_text
from tts_service.engine.clock import FakeClock
from tts_service.engine.jobs import Job, PieceJob, UnitJob
from tts_service.engine.ports import UnitBackend
from tts_service.engine.segmenter import Boundary
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import SpeechFrame

TOKENS_PER_S = 30.0
WARMUP_TURNS = 3


@dataclass(slots=True)
class LatencyResult:
    """Per-turn seconds for the engine and the naive baseline."""

    engine_compute_s: list[float] = field(default_factory=list)
    engine_e2e_s: list[float] = field(default_factory=list)
    #: the part of engine_compute_s spent inside the model (job.run)
    engine_model_s: list[float] = field(default_factory=list)
    naive_compute_s: list[float] = field(default_factory=list)
    naive_e2e_s: list[float] = field(default_factory=list)
    first_unit_chars: list[int] = field(default_factory=list)
    first_units_cut_by_hold: int = 0

    def to_json(self) -> dict[str, Any]:
        engine_p50 = ms_summary("engine_first_frame", self.engine_compute_s)
        naive_p50 = ms_summary("naive_first_audio", self.naive_compute_s)
        e2e = ms_summary("engine_e2e_first_audio", self.engine_e2e_s)
        naive_e2e = ms_summary("naive_e2e_first_audio", self.naive_e2e_s)
        return {
            "turns": len(self.engine_compute_s),
            "tokens_per_s": TOKENS_PER_S,
            **engine_p50,
            **naive_p50,
            **ms_summary("engine_first_frame_model", self.engine_model_s),
            **e2e,
            **naive_e2e,
            "naive_over_engine_first_audio_p50_ratio": ratio(
                naive_p50["naive_first_audio_ms_p50"], engine_p50["engine_first_frame_ms_p50"]
            ),
            "naive_over_engine_e2e_first_audio_p50_ratio": ratio(
                naive_e2e["naive_e2e_first_audio_ms_p50"], e2e["engine_e2e_first_audio_ms_p50"]
            ),
            "first_unit_chars_mean": round(
                sum(self.first_unit_chars) / max(1, len(self.first_unit_chars)), 1
            ),
            "first_units_cut_by_hold_count": self.first_units_cut_by_hold,
        }


def _first_frame(session: EngineSession, job: UnitJob | PieceJob) -> tuple[bool, float]:
    """Run ``job`` and whatever follows until the first frame is out.

    Returns (a frame came, seconds spent inside ``job.run()``).
    """
    model_s = 0.0
    while True:
        t0 = time.perf_counter()
        result = job.run()
        model_s += time.perf_counter() - t0
        session.complete(result)
        while (item := session.next_output()) is not None:
            if isinstance(item, SpeechFrame):
                return True, model_s
        nxt = session.next_job()
        if not isinstance(nxt, UnitJob | PieceJob):  # a unit's later piece, or the next unit
            return False, model_s
        job = nxt


def _engine_turn(
    session: EngineSession, clock: FakeClock, tokens: list[str], result: LatencyResult | None
) -> None:
    """Stream ``tokens`` until the first frame is out, recording into ``result`` if given."""
    origin = clock.now_s
    for i, token in enumerate(tokens):
        arrival = origin + i / TOKENS_PER_S
        due = session.next_deadline_s()
        t0 = time.perf_counter()
        if due is not None and due <= arrival:  # the first-unit hold fires before this token
            clock.advance(max(0.0, due - clock.now_s))
            job = session.next_job()
            if job is not None:
                _record(session, job, t0, clock.now_s - origin, result)
                return
        clock.advance(max(0.0, arrival - clock.now_s))
        t0 = time.perf_counter()
        session.inject(token)
        job = session.next_job()
        if job is not None:
            _record(session, job, t0, clock.now_s - origin, result)
            return
    t0 = time.perf_counter()
    session.flush()
    job = session.next_job()
    if job is not None:
        _record(session, job, t0, clock.now_s - origin, result)


def _record(
    session: EngineSession, job: Job, t0: float, virtual_s: float, result: LatencyResult | None
) -> None:
    assert isinstance(job, UnitJob), "the latency bench drives a unit backend (hibari)"
    got, model_s = _first_frame(session, job)
    spent = time.perf_counter() - t0
    if result is None or not got:
        return
    result.engine_compute_s.append(spent)
    result.engine_model_s.append(model_s)
    result.engine_e2e_s.append(virtual_s + spent)
    result.first_unit_chars.append(len(job.text))
    if job.boundary is Boundary.HOLD:
        result.first_units_cut_by_hold += 1


def _naive_turn(backend: UnitBackend, tokens: list[str], seed: int, result: LatencyResult | None) -> None:
    index, sentence = first_sentence_token(tokens)
    state = backend.new_voice_state(backend.default_voice)
    t0 = time.perf_counter()
    backend.synthesize(state, sentence, speed=1.0, seed=seed)
    spent = time.perf_counter() - t0
    if result is not None:
        result.naive_compute_s.append(spent)
        result.naive_e2e_s.append(index / TOKENS_PER_S + spent)


def measure_first_frame(backend: UnitBackend, turns: int, *, seed: int = 0) -> LatencyResult:
    """``turns`` warm turns (after a few unrecorded ones) on one reused session."""
    clock = FakeClock()
    session = EngineSession(backend, SessionConfig(seed=seed), clock=clock)
    result = LatencyResult()
    try:
        for i in range(WARMUP_TURNS + turns):
            record = result if i >= WARMUP_TURNS else None
            tokens = tokenize(turn_text(i), seed + i)
            _engine_turn(session, clock, tokens, record)
            session.reset()
            session.drain()
            clock.advance(1.0)
            _naive_turn(backend, tokens, seed + i, record)
    finally:
        session.close()
    return result
