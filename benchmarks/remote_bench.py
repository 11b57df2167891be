"""The Pipecat service's remote mode: what the network hop to a ``warmline serve`` costs.

    python benchmarks/remote_bench.py [--repeats 5] [--tokens-per-s 30] [--out bench-out]

One Pipecat pipeline per answer (``WarmlineTTSService`` -> a real-time listener), the answer
streamed a word piece at a time at ``--tokens-per-s`` as an LLM would, with the service either

* local: a warm hibari runtime in this process (``runtime=``), the baseline; or
* remote: ``url=`` to ``warmline serve`` running as a process of its own on this machine
  (loopback WebSocket, protocol v1, its own warm hibari).

Figures, each the median of ``--repeats`` at three answer lengths, with the ratio remote over
local from the same run: time from the first token to the first audio frame; from the last token
to the end of playback (a listener plays each frame as it arrives, or right after what it has);
stalls (silence heard mid-answer because audio came late). Prints a table and writes
``<out>/remote_bench.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/remote_bench.py``

from pipecat.frames.frames import (  # noqa: E402
    EndFrame,
    Frame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline  # noqa: E402
from pipecat.pipeline.worker import PipelineParams, PipelineWorker  # noqa: E402
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor  # noqa: E402
from pipecat.workers.runner import WorkerRunner  # noqa: E402
from soak import server  # noqa: E402  (the servers as processes of their own, as deployed)

from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.benchmark.texts import BOOKING_ANSWERS, word_pieces  # noqa: E402
from tts_service.pipecat.service import WarmlineTTSService  # noqa: E402
from tts_service.runtime import EngineRuntime  # noqa: E402

SAMPLE_RATE = 16000
START_TIMEOUT_S = 60.0


class Listener(FrameProcessor):
    """Where the output transport would be: plays each frame on arrival or after what it has."""

    def __init__(self) -> None:
        super().__init__()
        self.first_audio_s: float | None = None
        self.playback_end_s = 0.0
        self.stalls_s = 0.0
        self.done = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            now = time.monotonic()
            if self.first_audio_s is None:
                self.first_audio_s = now
                self.playback_end_s = now
            elif now > self.playback_end_s:
                self.stalls_s += now - self.playback_end_s
                self.playback_end_s = now
            self.playback_end_s += len(frame.audio) / 2 / frame.sample_rate
        elif isinstance(frame, LLMFullResponseEndFrame):
            self.done.set()
        await self.push_frame(frame, direction)


async def one_answer(tts: WarmlineTTSService, text: str, tokens_per_s: float) -> dict[str, float]:
    listener = Listener()
    worker = PipelineWorker(
        Pipeline([tts, listener]),
        params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
        cancel_on_idle_timeout=False,
    )
    started = asyncio.Event()

    async def on_started(worker: PipelineWorker, frame: Frame) -> None:
        started.set()

    worker.add_event_handler("on_pipeline_started", on_started)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run(), name="bench-pipeline")
    try:
        await asyncio.wait_for(started.wait(), START_TIMEOUT_S)
        await asyncio.sleep(0.2)  # the session is open (a remote one has connected)
        tokens = word_pieces(text)
        await worker.queue_frame(LLMFullResponseStartFrame())
        first_token_s = time.monotonic()
        for token in tokens:
            await worker.queue_frame(LLMTextFrame(text=token))
            await asyncio.sleep(1 / tokens_per_s)
        last_token_s = time.monotonic()
        await worker.queue_frame(LLMFullResponseEndFrame())
        await asyncio.wait_for(listener.done.wait(), 60)
        await worker.queue_frame(EndFrame())
        await asyncio.wait_for(run, 60)
    finally:
        if not run.done():
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
    assert listener.first_audio_s is not None, "no audio"
    return {
        "first_audio_ms": 1000 * (listener.first_audio_s - first_token_s),
        "playback_end_after_last_token_ms": 1000 * (listener.playback_end_s - last_token_s),
        "stalls_ms": 1000 * listener.stalls_s,
    }


async def measure(
    url: str, repeats: int, tokens_per_s: float
) -> dict[str, dict[str, list[dict[str, float]]]]:
    runs: dict[str, dict[str, list[dict[str, float]]]] = {}
    async with EngineRuntime(HibariBackend(), workers=1) as runtime:
        for name, text in BOOKING_ANSWERS.items():
            runs[name] = {"local": [], "remote": []}
            for _ in range(repeats):  # interleaved, so drift on a shared machine hits both alike
                runs[name]["local"].append(
                    await one_answer(WarmlineTTSService(runtime=runtime), text, tokens_per_s)
                )
                runs[name]["remote"].append(await one_answer(WarmlineTTSService(url=url), text, tokens_per_s))
    return runs


def median(samples: list[dict[str, float]], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tokens-per-s", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with server("remote_bench_serve", args.out, "serve") as serve:  # its log: <out>/remote_bench_serve.log
        runs = asyncio.run(measure(f"ws://{serve.address}/", args.repeats, args.tokens_per_s))
    rows: list[dict[str, Any]] = []
    print(f"Pipecat service, remote (warmline serve, loopback) vs local, median of {args.repeats}")
    print(f"{'answer':16} {'first audio ms':>24} {'x':>6} {'playback end ms':>24} {'x':>6} {'stalls ms':>14}")
    for name, both in runs.items():
        row: dict[str, Any] = {"answer": name}
        for key in ("first_audio_ms", "playback_end_after_last_token_ms", "stalls_ms"):
            row[key] = {side: round(median(both[side], key), 1) for side in ("remote", "local")}
        fa, pe, st = row["first_audio_ms"], row["playback_end_after_last_token_ms"], row["stalls_ms"]
        row["first_audio_ratio"] = round(fa["remote"] / fa["local"], 2)
        row["playback_end_ratio"] = round(pe["remote"] / pe["local"], 2)
        rows.append(row)
        print(
            f"{name:16} {fa['remote']:>10.0f} vs {fa['local']:<10.0f} {row['first_audio_ratio']:>6.2f} "
            f"{pe['remote']:>10.0f} vs {pe['local']:<10.0f} {row['playback_end_ratio']:>6.2f} "
            f"{st['remote']:>6.0f} vs {st['local']:<6.0f}"
        )
    result = {
        "benchmark": "remote_bench",
        "repeats": args.repeats,
        "tokens_per_s": args.tokens_per_s,
        "sample_rate": SAMPLE_RATE,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "rows": rows,
        "runs": runs,
    }
    path = args.out / "remote_bench.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
