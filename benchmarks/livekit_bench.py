"""The LiveKit plugin: first audio after the first token, streamed vs LiveKit's own ``StreamAdapter``.

    python benchmarks/livekit_bench.py [--repeats 5] [--tokens-per-s 30] [--fresh-runs 3] [--out bench-out]

An answer is pushed a word piece at a time at ``--tokens-per-s``, as an LLM streams it, into

* ``WarmlineTTS.stream()``: every token injected into the warm engine as it arrives;
* the baseline, ``livekit.agents.tts.StreamAdapter`` around the same ``WarmlineTTS``: LiveKit's
  way to stream a TTS that takes whole text, cutting the tokens into sentences (its blingfire
  tokenizer) and calling ``synthesize()`` for each.

Both run in one process on one warm hibari model. A real-time listener plays each frame as it
arrives, or right after what it already has. Figures: time from the first token to the first
audio; from the last token to the end of playback; the silence the listener hears mid-answer
because audio came late (a stall); each the median of ``--repeats``, at three answer lengths,
with the ratio baseline over streamed from the same run. (The plugin hands audio on at most
``max_lead_s`` ahead of real time, so its last frame arrives late by design: playback end is the
fair comparison.)

Those figures are warm. The first call of a fresh process is measured apart (``fresh_process``):
``--fresh-runs`` times, a new Python process builds ``WarmlineTTS(voice="heart")`` as the README
shows, calls ``prewarm()`` the way a LiveKit worker's prewarm function does (before the job's
event loop runs), then times its first stream of the one-sentence answer, first token to first
audio; the median is set against the warm one-sentence figure as a ratio (target: within 2x).
Prints a table and writes ``<out>/livekit_bench.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/livekit_bench.py``

from fresh_process import FLAG, compare, describe, first_calls, report_first_call  # noqa: E402
from livekit.agents import tts  # noqa: E402

from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.benchmark.texts import BOOKING_ANSWERS, word_pieces  # noqa: E402
from tts_service.livekit.tts import WarmlineTTS  # noqa: E402


async def one_answer(voice: tts.TTS, text: str, tokens_per_s: float) -> tuple[float, float, float]:
    """(first token to first audio, last token to end of playback, stalls), in seconds."""
    stream = voice.stream()
    pieces = word_pieces(text)
    first_token = last_token = first_audio = 0.0
    play_end = stalls = 0.0

    async def push() -> None:
        nonlocal first_token, last_token
        for i, piece in enumerate(pieces):
            if i:
                await asyncio.sleep(1 / tokens_per_s)
            else:
                first_token = time.perf_counter()
            stream.push_text(piece)
        last_token = time.perf_counter()
        stream.end_input()

    pusher = asyncio.create_task(push(), name="bench-llm-tokens")
    try:
        async for ev in stream:
            now = time.perf_counter()
            if not first_audio:
                first_audio = play_end = now
            stalls += max(0.0, now - play_end)
            play_end = max(play_end, now) + ev.frame.duration
        await pusher
    finally:
        await stream.aclose()
    return first_audio - first_token, play_end - last_token, stalls


async def run(repeats: int, tokens_per_s: float) -> dict[str, Any]:
    backend = HibariBackend()
    backend.load()
    rows = []
    async with WarmlineTTS(backend=backend) as voice:
        adapter = tts.StreamAdapter(tts=voice)
        await one_answer(voice, BOOKING_ANSWERS["one sentence"], tokens_per_s)  # warm both paths
        await one_answer(adapter, BOOKING_ANSWERS["one sentence"], tokens_per_s)
        for name, text in BOOKING_ANSWERS.items():
            streamed: list[tuple[float, float, float]] = []
            baseline: list[tuple[float, float, float]] = []
            for _ in range(repeats):  # interleaved, so both meet the same machine
                streamed.append(await one_answer(voice, text, tokens_per_s))
                baseline.append(await one_answer(adapter, text, tokens_per_s))
            row = {"answer": name, "tokens": len(word_pieces(text))}
            for key, index in (("first_audio", 0), ("playback_end", 1), ("stalls", 2)):
                ours = statistics.median(s[index] for s in streamed) * 1000
                theirs = statistics.median(b[index] for b in baseline) * 1000
                row[f"{key}_ms"] = round(ours, 1)
                row[f"{key}_stream_adapter_ms"] = round(theirs, 1)
                row[f"{key}_ratio"] = round(theirs / ours, 2) if ours > 0.0005 else None
            rows.append(row)
        await adapter.aclose()
    return {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "repeats": repeats,
        "tokens_per_s": tokens_per_s,
        "rows": rows,
    }


def first_call(tokens_per_s: float) -> dict[str, float]:
    """In a fresh process (``--first-call``): the docs' construction, prewarm, the first stream."""
    t0 = time.perf_counter()
    voice = WarmlineTTS(voice="heart")
    voice.prewarm()  # a worker's prewarm function: no event loop yet, so it loads right here
    prewarm_s = time.perf_counter() - t0

    async def first_stream() -> float:
        async with voice:
            first_audio_s, _, _ = await one_answer(voice, BOOKING_ANSWERS["one sentence"], tokens_per_s)
        return first_audio_s

    return {"first_audio_ms": asyncio.run(first_stream()) * 1000, "prewarm_s": prewarm_s}


def print_table(result: dict[str, Any]) -> None:
    print(
        f"LiveKit plugin at {result['tokens_per_s']:g} tokens/s, median of {result['repeats']}: "
        "WarmlineTTS.stream() vs StreamAdapter(WarmlineTTS) (same run)"
    )
    header = ("first audio ms", "x", "playback end after last token ms", "x", "stalls ms")
    print(
        f"{'answer':<16}{'tokens':>7}{header[0]:>18}{header[1]:>7}{header[2]:>36}{header[3]:>7}{header[4]:>16}"
    )
    for r in result["rows"]:
        first = f"{r['first_audio_ms']:.0f} vs {r['first_audio_stream_adapter_ms']:.0f}"
        end = f"{r['playback_end_ms']:.0f} vs {r['playback_end_stream_adapter_ms']:.0f}"
        stalls = f"{r['stalls_ms']:.0f} vs {r['stalls_stream_adapter_ms']:.0f}"
        print(
            f"{r['answer']:<16}{r['tokens']:>7}{first:>18}{r['first_audio_ratio']:>7}"
            f"{end:>36}{r['playback_end_ratio']:>7}{stalls:>16}"
        )
    if "first_call" in result:
        print(describe(result["first_call"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tokens-per-s", type=float, default=30.0)
    parser.add_argument("--fresh-runs", type=int, default=3, help="fresh processes timed (0: none)")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument(FLAG, action="store_true", help=argparse.SUPPRESS)  # the child of --fresh-runs
    args = parser.parse_args()
    if args.first_call:
        report_first_call(first_call(args.tokens_per_s))
        return 0
    result = asyncio.run(run(args.repeats, args.tokens_per_s))
    if args.fresh_runs > 0:
        samples = first_calls(Path(__file__), args.fresh_runs, "--tokens-per-s", str(args.tokens_per_s))
        warm = next(r for r in result["rows"] if r["answer"] == "one sentence")["first_audio_ms"]
        result["first_call"] = compare(samples, warm)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "livekit_bench.json").write_text(json.dumps(result, indent=1))
    print_table(result)
    print(f"\nwrote {out / 'livekit_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
