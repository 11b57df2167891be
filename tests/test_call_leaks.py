"""A finished call leaves nothing behind: phone calls (Twilio) and browser calls (WebRTC) in a row.

Each scenario runs a handful of calls against ``warmline call``'s app with its default parts
(the pooled pocketsphinx decoders, the shared Silero model), ending them in the ways calls end:
a hang-up after the answer, a hang-up mid-answer, a barge-in, a socket dropped without ``stop``.
After the first call (which warms every lazily built part), each later call must bring threads,
descriptors, asyncio tasks and the objects a call is made of back to where they were, and
resident memory may not grow by more than a bound far below one leaked call (about 100 MB).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from agent.server import AgentSettings, AgentState, create_agent_app
from transports.serve import serving
from transports.twilio.carrier import Carrier
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.benchmark.census import Census, census
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm, write_wav

QUESTION = "What time do you open?"
BARGE_IN = "Wait, stop please."
#: resident memory the four calls after the first may add in all (one leaked call was ~100 MB)
RSS_GROWTH_BOUND_MB = 40.0
#: bounds on waits, in 20 ms carrier ticks (safety nets against hangs, not timing assertions)
MAX_TICKS = 1500
LEAK_SCENARIO = Path(__file__).resolve().parent / "webrtc_leak_scenario.py"
SCENARIO_TIMEOUT_S = 240


def mulaw(backend: Backend, text: str) -> bytes:
    return g711.encode(spoken_pcm(backend, text, 8000)).tobytes()


async def settled_census(state: AgentState, before: Census) -> Census:
    """The census once the call has wound down: its pipeline stopped, and the endpoint that ran it
    returned (bounded: a call that never lets go is reported by the assertions, not waited on)."""
    reading = census()
    for _ in range(20):
        idle = not any(state.calls.values()) and not state.live
        if idle and all(n <= before.objects.get(k, 0) for k, n in reading.objects.items()):
            break
        await asyncio.sleep(0.25)
        reading = census()
    return reading


def assert_nothing_left(before: Census, readings: list[Census], runtime_sessions: list[int]) -> None:
    """No call object outlives its call; every call after the first is back at the first's counts
    (the first builds what is shared: the decoder pool, the VAD model); memory within the bound."""
    first, *later = readings
    for number, reading in enumerate(readings, start=1):
        survivors = {k: v for k, v in reading.objects.items() if v > before.objects.get(k, 0)}
        assert survivors == {}, f"call {number} left {survivors}"
    for number, reading in enumerate(later, start=2):
        assert reading.leaks_against(first) == {}, f"call {number} left {reading.leaks_against(first)}"
        assert reading.pool_threads <= min(32, (os.cpu_count() or 1) + 4)  # asyncio's bound
    assert runtime_sessions == [0] * len(readings)
    growth = readings[-1].rss_mb - first.rss_mb
    assert growth < RSS_GROWTH_BOUND_MB, f"RSS grew {growth:.0f} MB over {len(later)} calls"


def test_phone_calls_in_a_row_leave_no_memory_tasks_threads_or_descriptors(hibari_backend: Backend) -> None:
    """Five Twilio calls, ended five ways: counts back to baseline, RSS growth far below one call."""
    question, barge_in = mulaw(hibari_backend, QUESTION), mulaw(hibari_backend, BARGE_IN)

    async def answered(carrier: Carrier) -> bool:
        carrier.say(question)
        return await carrier.wait_until(lambda c: c.idle_for(25), max_ticks=MAX_TICKS)

    async def mid_answer(carrier: Carrier) -> bool:
        carrier.say(question)
        return await carrier.wait_until(lambda c: len(c.log.echoed) >= 5, max_ticks=MAX_TICKS)

    async def barged_in(carrier: Carrier) -> bool:
        if not await mid_answer(carrier):
            return False
        carrier.say(barge_in, question=False)
        return await carrier.wait_until(lambda c: bool(c.log.clears), max_ticks=MAX_TICKS)

    # (how the caller behaves, whether the carrier sends stop or just drops the socket)
    calls: list[tuple[Callable[[Carrier], Awaitable[bool]], bool]] = [
        (answered, True),
        (mid_answer, True),
        (answered, False),
        (barged_in, True),
        (answered, True),
    ]
    readings: list[Census] = []
    sessions: list[int] = []
    before: list[Census] = []

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            app = create_agent_app(runtime, AgentSettings(demo_grammar=True))
            state: AgentState = app.state.agent
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                before.append(census())
                for behave, sends_stop in calls:
                    async with connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
                        carrier = Carrier(ws)
                        clock = asyncio.create_task(carrier.run(), name="test-carrier")
                        try:
                            await carrier.begin()
                            await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
                            assert await behave(carrier), f"{behave.__name__}: the bot did not answer"
                            if sends_stop:
                                await carrier.end()
                        finally:
                            clock.cancel()
                            await asyncio.gather(clock, return_exceptions=True)
                    readings.append(await settled_census(state, before[0]))
                    sessions.append(runtime.session_count)
            assert [r.transport for r in state.recent] == ["twilio"] * len(calls)

    asyncio.run(main())
    assert_nothing_left(before[0], readings, sessions)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
def test_browser_calls_in_a_row_leave_no_memory_tasks_threads_or_descriptors(
    hibari_backend: Backend, tmp_path: Path
) -> None:
    """Four aiortc calls to the agent in a network namespace: counts back to baseline after each."""
    question = tmp_path / "question.wav"
    write_wav(question, spoken_pcm(hibari_backend, QUESTION, 48000), 48000)
    proc = subprocess.run(
        ["unshare", "-rn", sys.executable, str(LEAK_SCENARIO), str(question), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT_S,
        cwd=LEAK_SCENARIO.parent.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, f"unshare -rn failed:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no result from the scenario:\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"
    assert all(result["answered"]), result
    readings = [from_json(r) for r in result["readings"]]
    assert_nothing_left(from_json(result["before"]), readings, result["runtime_sessions"])


def from_json(reading: dict[str, Any]) -> Census:
    return Census(**{**reading, "thread_names": tuple(reading["thread_names"])})
