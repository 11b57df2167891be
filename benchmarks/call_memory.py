"""Memory per phone call: what a live call costs, and what a finished one leaves behind.

    python benchmarks/call_memory.py [--concurrent 4] [--sequential 8] [--grammar] [--out bench-out]

Runs ``warmline call``'s app (``agent.server.create_agent_app`` with its default parts: Silero on
the shared model, pocketsphinx from the decoder pool, the demo responder) and calls its real
``/twilio`` endpoint with the simulated carrier (``transports.twilio.carrier``); every call asks
one spoken question, hears the answer and hangs up.

* per concurrent call: ``--concurrent`` calls at once, each mid-answer when the process is read;
  (RSS then - RSS with no call) / calls, after one warm-up call;
* per finished call: ``--sequential`` calls one after another; (RSS after the last - RSS after
  the first) / (calls - 1), with threads, descriptors, tasks and call objects counted after each.

The baseline of the same run is the idle server: figures are also given as a share of its RSS,
and the finished call as a share of a live one. Prints a table and writes
``<out>/call_memory.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/call_memory.py``

from websockets.asyncio.client import connect  # noqa: E402

from agent.server import AgentSettings, AgentState, create_agent_app  # noqa: E402
from transports.serve import serving  # noqa: E402
from transports.twilio.carrier import Carrier  # noqa: E402
from transports.ws.settings import ServerSettings  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.benchmark.census import Census, census  # noqa: E402
from tts_service.runtime import EngineRuntime  # noqa: E402
from tts_service.speech import spoken_pcm  # noqa: E402

QUESTION = "What time do you open?"
MAX_TICKS = 1500  # 30 s of carrier ticks: a bound against hangs


async def call(url: str, question: bytes, *, mid_answer: asyncio.Event | None = None) -> None:
    """One call: the question, the whole answer, then ``stop``; ``mid_answer`` set while it plays."""
    async with connect(url, max_size=None) as ws:
        carrier = Carrier(ws)
        clock = asyncio.create_task(carrier.run(), name="bench-carrier")
        try:
            await carrier.begin()
            await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
            carrier.say(question)
            await carrier.wait_until(lambda c: len(c.log.echoed) >= 3, max_ticks=MAX_TICKS)
            if mid_answer is not None:
                mid_answer.set()
            await carrier.wait_until(lambda c: c.idle_for(25), max_ticks=MAX_TICKS)
            await carrier.end()
        finally:
            clock.cancel()
            await asyncio.gather(clock, return_exceptions=True)


async def settle(state: AgentState) -> None:
    for _ in range(500):
        if not any(state.calls.values()) and not state.live:
            return
        await asyncio.sleep(0.01)


async def run(concurrent: int, sequential: int, grammar: bool) -> dict[str, Any]:
    backend = HibariBackend()
    backend.load()
    question = g711.encode(spoken_pcm(backend, QUESTION, 8000)).tobytes()
    async with EngineRuntime(backend, workers=2) as runtime:
        app = create_agent_app(runtime, AgentSettings(demo_grammar=grammar))
        state: AgentState = app.state.agent
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"ws://{host}:{port}/twilio"
            idle = census()
            await call(url, question)  # warm-up: lazily built parts, the first decoder
            await settle(state)
            warm = census()

            playing = [asyncio.Event() for _ in range(concurrent)]
            calls = [
                asyncio.create_task(call(url, question, mid_answer=e), name=f"bench-call-{i}")
                for i, e in enumerate(playing)
            ]
            await asyncio.gather(*(e.wait() for e in playing))
            live = census()
            await asyncio.gather(*calls)
            await settle(state)

            readings: list[Census] = []
            for _ in range(sequential):
                await call(url, question)
                await settle(state)
                readings.append(census())
    per_live = (live.rss_mb - warm.rss_mb) / concurrent
    per_finished = (readings[-1].rss_mb - readings[0].rss_mb) / max(1, len(readings) - 1)
    leaks = [r.leaks_against(readings[0]) for r in readings[1:]]
    return {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "stt": "pocketsphinx demo grammar" if grammar else "pocketsphinx general model",
        "rss_idle_mb": round(idle.rss_mb, 1),
        "rss_after_warmup_mb": round(warm.rss_mb, 1),
        "concurrent_calls": concurrent,
        "rss_with_concurrent_calls_mb": round(live.rss_mb, 1),
        "rss_per_concurrent_call_mb": round(per_live, 1),
        "sequential_calls": sequential,
        "rss_per_finished_call_mb": round(per_finished, 2),
        "finished_vs_live_call": round(per_finished / per_live, 3) if per_live > 0 else None,
        "finished_calls_leaks": leaks,
        "readings": [r.to_json() for r in readings],
    }


def print_table(r: dict[str, Any]) -> None:
    idle = r["rss_idle_mb"]
    rows = [
        ("RSS, idle server (baseline)", f"{idle:.0f} MB", "1.00x"),
        (
            "RSS after one warm-up call",
            f"{r['rss_after_warmup_mb']:.0f} MB",
            f"{r['rss_after_warmup_mb'] / idle:.2f}x",
        ),
        (
            f"per concurrent call ({r['concurrent_calls']} at once)",
            f"{r['rss_per_concurrent_call_mb']:.1f} MB",
            f"{r['rss_per_concurrent_call_mb'] / idle:.3f}x",
        ),
        (
            f"per finished call ({r['sequential_calls']} in a row)",
            f"{r['rss_per_finished_call_mb']:.2f} MB",
            f"{r['rss_per_finished_call_mb'] / idle:.3f}x",
        ),
        ("finished call / live call", "", f"{r['finished_vs_live_call']}"),
        ("calls with counts above the first", "", str(sum(1 for leak in r["finished_calls_leaks"] if leak))),
    ]
    print(f"call memory ({r['stt']})")
    for name, value, ratio in rows:
        print(f"  {name:<44} {value:>10} {ratio:>8}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrent", type=int, default=4)
    parser.add_argument("--sequential", type=int, default=8)
    parser.add_argument("--grammar", action="store_true", help="the demo's closed grammar, not open English")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    if args.concurrent < 1 or args.sequential < 2:
        parser.error("--concurrent must be >= 1 and --sequential >= 2")
    result = asyncio.run(run(args.concurrent, args.sequential, args.grammar))
    print_table(result)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "call_memory.json").write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out / 'call_memory.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
