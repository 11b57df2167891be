"""First-frame latency through the async runtime: ``inject`` to the first SpeechFrame from the iterator.

One warm session on an ``EngineRuntime`` (hibari, two workers). Each turn's tokens are injected
back to back until the first unit is handed to the workers (so the first unit is always the
first clause: no hold timer can fire), then the clock runs until the first SpeechFrame arrives; the
turn is reset after it. This adds the worker hand-off and the loop wake-up to the sync figure.
Never asserts a target.
"""

from __future__ import annotations

import asyncio
import time

from tts_service.benchmark.texts import tokenize, turn_text
from tts_service.engine.ports import Backend
from tts_service.engine.types import Done, SpeechFrame
from tts_service.runtime import EngineRuntime, RuntimeSession

WARMUP_TURNS = 3


async def _turn(call: RuntimeSession, tokens: list[str]) -> float | None:
    """Seconds from the unit-completing inject to the first SpeechFrame, or None if none came."""
    t0: float | None = None
    for token in tokens:
        t = time.perf_counter()
        call.inject(token)
        if call.engine.job_in_flight or call.engine.timeline.unit_spans:
            t0 = t
            break
    if t0 is None:
        t0 = time.perf_counter()
        call.flush()
    async for item in call:
        if isinstance(item, SpeechFrame):
            return time.perf_counter() - t0
        if isinstance(item, Done):
            return None
    return None


async def _measure(backend: Backend, turns: int, seed: int) -> list[float]:
    out: list[float] = []
    async with EngineRuntime(backend, workers=2) as runtime, await runtime.open_session() as call:
        for i in range(WARMUP_TURNS + turns):
            spent = await _turn(call, tokenize(turn_text(i), seed + i))
            call.reset()
            while call.next_output_nowait() is not None:
                pass
            if spent is not None and i >= WARMUP_TURNS:
                out.append(spent)
    return out


def measure_runtime_first_frame(backend: Backend, turns: int, *, seed: int = 0) -> list[float]:
    """Per-turn seconds from the first-clause inject to the first SpeechFrame through the runtime."""
    return asyncio.run(_measure(backend, turns, seed))
