"""The context against the audio really written, on a machine other processes keep busy.

    python benchmarks/overload_bench.py [--busy 0,4,16] [--slowdown 1,1.5] [--points 3] [--out bench-out]

A real Pipecat pipeline: ``WarmlineTTSService`` (the hibari voice) -> ``SoundCard`` (a
``BaseOutputTransport`` that writes like a sound card: each chunk when the previous one has
played, late when the loop is late) -> the assistant context aggregator. The bot answers; the
caller barges in ``--points`` times at random moments. Truth: the words whose audio the card had
begun to write when the interruption reached it (each word's start sample, from the engine's
marks). Per barge-in the context is *exact* when it holds exactly those; words *ahead* are in
the context though their audio was never written (the promise broken), words *behind* were
written but not recorded (at most the 80 ms frame being written, by design).

Two services, the same run: ``words in audio order`` (Warmline: word frames without a pts,
queued behind their audio) and ``words on the clock`` (Pipecat's pts kept: how a TTS service
releases words by default, and how Warmline did before). For each ``--busy`` count, that many
processes spin on the CPU meanwhile (the machine has 2 cores); for each ``--slowdown`` the card
takes that many times each chunk's duration to write it (1: a sound card; above 1: an output
that cannot keep up, the state a starved machine puts a transport's audio task in, whatever
makes it so). Prints a table, writes ``<out>/overload_bench.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/overload_bench.py``

from pipecat.frames.frames import (  # noqa: E402
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    OutputAudioRawFrame,
    StartFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline  # noqa: E402
from pipecat.pipeline.worker import PipelineParams, PipelineWorker  # noqa: E402
from pipecat.processors.aggregators.llm_context import LLMContext  # noqa: E402
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair  # noqa: E402
from pipecat.processors.frame_processor import FrameDirection  # noqa: E402
from pipecat.transports.base_output import BaseOutputTransport  # noqa: E402
from pipecat.transports.base_transport import TransportParams  # noqa: E402
from pipecat.workers.runner import WorkerRunner  # noqa: E402

from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.engine.turns import Turn  # noqa: E402
from tts_service.engine.types import SpeechFrame  # noqa: E402
from tts_service.pipecat.service import WarmlineTTSService  # noqa: E402
from tts_service.runtime import EngineRuntime  # noqa: E402

RATE = 24000
ANSWER = (
    "Of course, I can book a table for two at eight tonight. We have a quiet corner by the window, "
    "or a table on the terrace if the evening stays warm. Shall I put it under the name on this "
    "phone number, and would you like me to send a reminder an hour before?"
)
TOKENS_PER_S = 40.0
TIMEOUT_S = 60.0


class MarkedWarmline(WarmlineTTSService):
    """Warmline, noting where each word starts in the audio it hands on (the benchmark's truth)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.appended = 0  # samples handed to Pipecat in this answer
        self.marks: list[tuple[str, int]] = []

    def new_answer(self) -> None:
        self.appended, self.marks = 0, []

    async def append_to_audio_context(self, context_id: str, frame: Frame) -> None:
        if isinstance(frame, TTSAudioRawFrame):
            self.appended += frame.num_frames
        await super().append_to_audio_context(context_id, frame)

    async def _deliver_frame(self, turn: Turn, frame: SpeechFrame) -> None:
        before = self.appended
        await super()._deliver_frame(turn, frame)
        if self.appended > before:
            self.marks += [(w.word, before + w.start_sample - frame.sample_offset) for w in frame.words]


class OnTheClock(MarkedWarmline):
    """The same service with Pipecat's word pts kept: words released on the output's clock."""

    release_words_on_clock = True


class SoundCard(BaseOutputTransport):
    """Writes each chunk once the previous one has played; counts the samples of this answer."""

    def __init__(self, slowdown: float = 1.0) -> None:
        super().__init__(TransportParams(audio_out_enabled=True, audio_out_sample_rate=RATE))
        self.slowdown = slowdown
        self.written = 0
        self.written_at_interruption: int | None = None
        self._due = 0.0

    def new_answer(self) -> None:
        self.written, self.written_at_interruption = 0, None

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, InterruptionFrame) and self.written_at_interruption is None:
            self.written_at_interruption = self.written
        await super().process_frame(frame, direction)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        now = time.perf_counter()
        self._due = max(self._due, now)  # after a gap (or a late loop) the card plays at once
        await asyncio.sleep(self._due - now)
        self.written += len(frame.audio) // 2
        self._due += self.slowdown * len(frame.audio) / 2 / RATE
        return True


async def barge_ins(service: MarkedWarmline, points: list[float], slowdown: float) -> list[dict[str, Any]]:
    """Answer, barge in ``point`` s after the first written audio, for each point; the records."""
    card = SoundCard(slowdown)
    context = LLMContext()
    pipeline = Pipeline([service, card, LLMContextAggregatorPair(context).assistant()])
    worker = PipelineWorker(
        pipeline, params=PipelineParams(audio_out_sample_rate=RATE), cancel_on_idle_timeout=False
    )
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run(), name="bench-runner")
    records = []
    try:
        for point in points:
            service.new_answer()
            card.new_answer()
            before = len([m for m in context.messages if m.get("role") == "assistant"])
            await worker.queue_frame(LLMFullResponseStartFrame())
            for i in range(0, len(ANSWER), 4):
                await worker.queue_frame(LLMTextFrame(ANSWER[i : i + 4]))
                await asyncio.sleep(4 / TOKENS_PER_S / 4)
            await worker.queue_frame(LLMFullResponseEndFrame())
            deadline = time.monotonic() + TIMEOUT_S
            while card.written == 0 and time.monotonic() < deadline:  # noqa: ASYNC110 (polls the card)
                await asyncio.sleep(0.01)
            await asyncio.sleep(point)
            await worker.queue_frame(InterruptionFrame())
            while time.monotonic() < deadline:
                assistant = [m for m in context.messages if m.get("role") == "assistant"]
                if len(assistant) > before and card.written_at_interruption is not None:
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)
            assistant = [m for m in context.messages if m.get("role") == "assistant"]
            recorded = str(assistant[-1]["content"]).split() if len(assistant) > before else []
            written = card.written_at_interruption or 0
            truth = [word for word, start in service.marks if start < written]
            records.append(
                {
                    "cut_s": round(point, 2),
                    "written_s": round(written / RATE, 2),
                    "recorded": len(recorded),
                    "truth": len(truth),
                    "exact": recorded == truth,
                    "ahead": max(0, len(recorded) - len(truth)),
                    "behind": max(0, len(truth) - len(recorded)),
                }
            )
            await asyncio.sleep(0.5)
        await worker.queue_frame(EndFrame())
        await asyncio.wait_for(run, TIMEOUT_S)
    finally:
        if not run.done():
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)
    return records


def spin(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


async def run_bench(busy_levels: list[int], slowdowns: list[float], points: int, seed: int) -> dict[str, Any]:
    backend = HibariBackend()
    backend.load()
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    async with EngineRuntime(backend, workers=2) as runtime:
        for busy, slowdown in [(b, s) for s in slowdowns for b in busy_levels]:
            cuts = [rng.uniform(0.5, 3.0) for _ in range(points)]
            spinners = spin(busy)
            try:
                for name, kind in (
                    ("words in audio order", MarkedWarmline),
                    ("words on the clock", OnTheClock),
                ):
                    records = await barge_ins(kind(runtime=runtime), cuts, slowdown)
                    rows.append(
                        {
                            "service": name,
                            "busy_processes": busy,
                            "slowdown": slowdown,
                            "exact": f"{sum(r['exact'] for r in records)}/{len(records)}",
                            "words_ahead": [r["ahead"] for r in records],
                            "words_behind": [r["behind"] for r in records],
                            "records": records,
                        }
                    )
            finally:
                for p in spinners:
                    p.kill()
                    p.wait()
    return {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "points": points,
        "seed": seed,
        "rows": rows,
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"\n{'service':22} {'busy':>4} {'slow':>5} {'exact':>6}  words ahead of their audio / not recorded")
    for row in result["rows"]:
        print(
            f"{row['service']:22} {row['busy_processes']:>4} {row['slowdown']:>5g} {row['exact']:>6}  "
            f"{row['words_ahead']} / {row['words_behind']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", default="0,4,16", help="busy processes, per level (default 0,4,16)")
    parser.add_argument("--slowdown", default="1,1.5", help="the card's write time per chunk duration")
    parser.add_argument("--points", type=int, default=3, help="barge-ins per service and level (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="bench-out")
    args = parser.parse_args()
    levels = [int(b) for b in args.busy.split(",")]
    slowdowns = [float(x) for x in args.slowdown.split(",")]
    result = asyncio.run(run_bench(levels, slowdowns, args.points, args.seed))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "overload_bench.json").write_text(json.dumps(result, indent=1))
    print_table(result)
    print(f"\nwrote {out / 'overload_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
