"""Warmline in Pipecat against the way Pipecat's bundled local TTS services work, side by side.

    python benchmarks/pipecat_bench.py [--points 20] [--seed 0] [--fresh-runs 3] [--out bench-out]

The same scripted LLM (tokens at ``TOKENS_PER_S``) drives two real Pipecat pipelines, each
``TTS -> Probe -> Playback -> assistant context aggregator``, with the same hibari voice:

(a) ``WarmlineTTSService``: TOKEN aggregation, tokens injected at once, frames and word marks from
    the persistent engine;
(b) ``SentenceHibariTTSService`` (below): SENTENCE aggregation, each sentence synthesized whole and
    yielded inline from ``run_tts``, the sentence's text pushed after its audio, as Pipecat's
    Kokoro and Piper services do.

Measured per service: first token to the first audio frame out of the TTS; after a barge-in,
audio frames of the interrupted turn that still left the TTS, and how late the last one did;
and, at ``--points`` random barge-in points, whether the assistant context holds exactly the
words whose audio began before the cut (truth: word times recorded from each service's model
output). ``agent.sim.Playback`` stands in for the transport: it plays audio instantly but in
order, so only the order of frames decides what counts as heard.

Those first-audio figures are warm (one runtime started before the pipelines). The first turn of
a fresh process is measured apart (``fresh_process``): ``--fresh-runs`` times, a new Python
process builds ``WarmlineTTSService(voice="heart")`` as the README shows (it owns its runtime and
loads and warms the model at ``StartFrame``), starts the same pipeline and times its first turn,
first token to first audio; the median is set against Warmline's warm median as a ratio
(target: within 2x).

Prints a table and writes ``<out>/pipecat_bench.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fresh_process import FLAG, compare, describe, first_calls, report_first_call
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    StartFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TextAggregationMode, TTSService
from pipecat.workers.runner import WorkerRunner

from agent.sim import Playback
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.ports import UnitBackend
from tts_service.engine.turns import Turn
from tts_service.engine.types import SpeechFrame, float_to_pcm16
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

SAMPLE_RATE = 24000
TOKENS_PER_S = 30.0
ANSWERS = (
    "Sure, I can help you with that, let me pull up the schedule for tomorrow morning. The first "
    "train leaves at seven fifteen from platform two. After that they run every twenty minutes "
    "until noon. Would you like me to book a seat for you?",
    "Of course, your table for two is confirmed for eight tonight, near the window as you asked. "
    "Parking is free after six, right behind the building. If anything changes, just call us "
    "back and we will sort it out.",
    "Thanks for waiting, I have checked your account and everything looks fine on our side. The "
    "payment went through yesterday afternoon and the receipt is in your inbox. Is there anything "
    "else I can do for you today?",
)


def llm_tokens(text: str) -> list[str]:
    """Word-sized tokens with their leading space, as chat models stream them."""
    return re.findall(r"\s*\S+", text)


# -- the baseline ---------------------------------------------------------------------------


class SentenceHibariTTSService(TTSService):
    """hibari the way Pipecat's local services work: whole sentences, audio yielded in ``run_tts``."""

    def __init__(self, backend: UnitBackend, **kwargs: Any) -> None:
        super().__init__(
            text_aggregation_mode=TextAggregationMode.SENTENCE,
            push_start_frame=True,
            push_stop_frames=True,
            settings=TTSSettings(model=backend.name, voice=backend.default_voice, language=None),
            **kwargs,
        )
        self._backend = backend
        self._voice = backend.new_voice_state(backend.default_voice)
        #: per context: (start seconds in the context's audio, word), for the benchmark's truth
        self.word_log: dict[str, list[tuple[float, str]]] = {}
        self._offset_s: dict[str, float] = {}

    def can_generate_metrics(self) -> bool:
        return True

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        await self.start_tts_usage_metrics(text)
        unit = await asyncio.to_thread(self._backend.synthesize, self._voice, text, speed=1.0, seed=0)
        offset = self._offset_s.get(context_id, 0.0)
        self.word_log.setdefault(context_id, []).extend(
            (offset + w.start_sample / SAMPLE_RATE, w.word) for w in unit.words
        )
        self._offset_s[context_id] = offset + len(unit.samples) / SAMPLE_RATE
        await self.stop_ttfb_metrics()
        pcm = float_to_pcm16(unit.samples).astype("<i2").tobytes()
        yield TTSAudioRawFrame(pcm, SAMPLE_RATE, 1, context_id=context_id)


class RecordingWarmline(WarmlineTTSService):
    """WarmlineTTSService that notes the engine's word marks per frame, for the benchmark's truth."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: per context: the words of each frame handed on, in order
        self.frame_words: dict[str, list[list[str]]] = {}

    async def _deliver_frame(self, turn: Turn, frame: SpeechFrame) -> None:
        before = self._turns is not None and self._turns.running is turn
        await super()._deliver_frame(turn, frame)
        if before and self._turns is not None and self._turns.running is turn:
            self.frame_words.setdefault(str(turn.key), []).append([w.word for w in frame.words])


# -- stand-ins for the rest of a call -------------------------------------------------------


class Probe(FrameProcessor):
    """Right after the TTS: when each audio frame left it, and when the interruption passed."""

    def __init__(self) -> None:
        super().__init__()
        self.audio: list[tuple[float, str | None]] = []
        self.interruptions: list[float] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.audio.append((time.perf_counter(), frame.context_id))
        elif isinstance(frame, InterruptionFrame):
            self.interruptions.append(time.perf_counter())
        await self.push_frame(frame, direction)


# -- one service under test -----------------------------------------------------------------


@dataclass
class Results:
    """What one service achieved over the run."""

    name: str
    first_audio_ms: list[float] = field(default_factory=list)
    frames_after_interruption: list[int] = field(default_factory=list)
    last_audio_after_interruption_ms: list[float] = field(default_factory=list)
    exact_context: list[bool] = field(default_factory=list)
    missing_words: list[int] = field(default_factory=list)
    extra_words: list[int] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)


class Bench:
    """A running pipeline for one service, driven one LLM answer at a time."""

    def __init__(self, tts: TTSService) -> None:
        self.tts = tts
        self.context = LLMContext()
        self.probe = Probe()
        self.playback = Playback()
        assistant = LLMContextAggregatorPair(self.context).assistant()
        self.worker = PipelineWorker(
            Pipeline([tts, self.probe, self.playback, assistant]),
            params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
            cancel_on_idle_timeout=False,
            enable_rtvi=False,
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Bench]:
        started = asyncio.Event()

        async def _started(worker: PipelineWorker, frame: StartFrame) -> None:
            started.set()

        self.worker.add_event_handler("on_pipeline_started", _started)
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(self.worker)
        task = asyncio.create_task(runner.run(), name="pipecat-bench-runner")
        try:
            await asyncio.wait_for(started.wait(), 60)
            yield self
            await self.worker.queue_frame(EndFrame())
            await asyncio.wait_for(task, 60)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _stream(self, text: str) -> None:
        """The scripted LLM: start, tokens at TOKENS_PER_S, end."""
        await self.worker.queue_frame(LLMFullResponseStartFrame())
        for token in llm_tokens(text):
            await self.worker.queue_frame(LLMTextFrame(text=token))
            await asyncio.sleep(1 / TOKENS_PER_S)
        await self.worker.queue_frame(LLMFullResponseEndFrame())

    async def answer(self, text: str, cut_s: float | None) -> dict[str, Any]:
        """Stream one answer; play all of it, or up to ``cut_s`` and barge in there."""
        self.playback.new_turn()
        self.playback.hold = cut_s is not None
        first_audio_index = len(self.probe.audio)
        messages_before = len(self.context.messages)
        t0 = time.perf_counter()
        llm = asyncio.create_task(self._stream(text), name="pipecat-bench-llm")
        try:
            if cut_s is None:
                await asyncio.wait_for(self.playback.response_ended.wait(), 120)
                return self._turn_record(t0, first_audio_index, None, messages_before)
            await asyncio.wait_for(self.playback.play_until(cut_s), 120)
            cut_at_s = min(self.playback.played_s, cut_s)
            llm.cancel()  # a real LLM stops generating when the user barges in
            t_cut = time.perf_counter()
            await self.worker.queue_frame(InterruptionFrame())
            await asyncio.wait_for(self.playback.interruption_seen.wait(), 60)
            await asyncio.sleep(0.5)  # anything of the old turn still leaving the TTS would show now
            record = self._turn_record(t0, first_audio_index, t_cut, messages_before)
            return {**record, "cut_s": cut_at_s}
        finally:
            llm.cancel()
            await asyncio.gather(llm, return_exceptions=True)

    def _turn_record(
        self, t0: float, first_audio_index: int, t_cut: float | None, messages_before: int
    ) -> dict[str, Any]:
        audio = self.probe.audio[first_audio_index:]
        contexts = [ctx for _, ctx in audio]
        record: dict[str, Any] = {
            "first_audio_ms": (audio[0][0] - t0) * 1000 if audio else None,
            "context_id": contexts[0] if contexts else None,
            "played_s": self.playback.played_s,
            "played_chunks": len(self.playback.played_audio),
        }
        new = [m for m in self.context.messages[messages_before:] if isinstance(m, dict)]
        record["context"] = " ".join(str(m.get("content")) for m in new if m.get("role") == "assistant")
        if t_cut is not None:
            t_int = self.probe.interruptions[-1]
            old = record["context_id"]
            late = [t for t, ctx in audio if ctx == old and t > t_int]
            record["frames_after"] = len(late)
            last = max((t for t, ctx in audio if ctx == old), default=t_cut)
            record["last_audio_after_ms"] = max(0.0, (last - t_cut) * 1000)
        return record


def heard_words(tts: TTSService, record: dict[str, Any]) -> list[str]:
    """Truth: the words whose audio began before the cut, from the service's own model output."""
    ctx = record["context_id"]
    if ctx is None:
        return []
    if isinstance(tts, RecordingWarmline):
        frames = tts.frame_words.get(ctx, [])[: record["played_chunks"]]
        return [w for words in frames for w in words]
    assert isinstance(tts, SentenceHibariTTSService)
    return [w for start_s, w in tts.word_log.get(ctx, []) if start_s < record["cut_s"] - 1e-9]


def score(results: Results, tts: TTSService, record: dict[str, Any]) -> None:
    truth = heard_words(tts, record)
    got = str(record["context"]).split()
    results.exact_context.append(got == truth)
    results.missing_words.append(max(0, len(truth) - len(got)))
    results.extra_words.append(max(0, len(got) - len(truth)))
    results.frames_after_interruption.append(int(record["frames_after"]))
    results.last_audio_after_interruption_ms.append(float(record["last_audio_after_ms"]))
    results.samples.append({**record, "truth": " ".join(truth)})


async def measure(name: str, tts: TTSService, cuts: Sequence[tuple[str, float]]) -> Results:
    results = Results(name)
    bench = Bench(tts)
    async with bench.running():
        for text in ANSWERS:  # warm turns: played whole; their first-audio times count too
            record = await bench.answer(text, None)
            results.first_audio_ms.append(record["first_audio_ms"])
        for text, cut_s in cuts:
            record = await bench.answer(text, cut_s)
            if record["first_audio_ms"] is not None:
                results.first_audio_ms.append(record["first_audio_ms"])
            score(results, tts, record)
    return results


# -- report ---------------------------------------------------------------------------------


def summary(r: Results) -> dict[str, Any]:
    return {
        "first_audio_ms_median": statistics.median(r.first_audio_ms),
        "first_audio_ms_p90": sorted(r.first_audio_ms)[int(0.9 * (len(r.first_audio_ms) - 1))],
        "frames_after_interruption_max": max(r.frames_after_interruption),
        "last_audio_after_interruption_ms_max": max(r.last_audio_after_interruption_ms),
        "context_exact": f"{sum(r.exact_context)}/{len(r.exact_context)}",
        "missing_words_total": sum(r.missing_words),
        "extra_words_total": sum(r.extra_words),
    }


def print_table(rows: dict[str, dict[str, Any]], speedup: float) -> None:
    names = list(rows)
    keys = list(next(iter(rows.values())))
    width = max(len(k) for k in keys) + 2
    print(f"{'':{width}}" + "".join(f"{n:>28}" for n in names))
    for k in keys:
        cells = "".join(
            f"{v:>28.1f}" if isinstance(v, float) else f"{v!s:>28}" for v in (rows[n][k] for n in names)
        )
        print(f"{k:{width}}{cells}")
    print(f"first audio: Warmline {speedup:.1f}x sooner (target >= 3x)")


async def first_turn() -> dict[str, float]:
    """In a fresh process (``--first-call``): the README's service, its pipeline, the first turn."""
    t0 = time.perf_counter()
    bench = Bench(WarmlineTTSService(voice="heart"))
    async with bench.running():  # the StartFrame has passed: the model is loaded and warm
        start_s = time.perf_counter() - t0
        record = await bench.answer(FIRST_TURN, None)
    return {"first_audio_ms": float(record["first_audio_ms"]), "pipeline_start_s": start_s}


#: what a fresh process's first turn says: the first sentence of the first answer
FIRST_TURN = ANSWERS[0].split(". ")[0] + "."


async def run_bench(points: int, seed: int) -> dict[str, Any]:
    backend = HibariBackend()
    rng = random.Random(seed)
    # Cuts between 0.3 s and 6 s: inside every answer for both services (each is 9 s or longer).
    cuts = [(ANSWERS[i % len(ANSWERS)], round(rng.uniform(0.3, 6.0) / 0.08) * 0.08) for i in range(points)]
    async with EngineRuntime(backend, workers=1) as runtime:
        warmline = await measure("warmline", RecordingWarmline(runtime=runtime), cuts)
    baseline = await measure("sentence baseline", SentenceHibariTTSService(backend), cuts)
    rows = {r.name: summary(r) for r in (warmline, baseline)}
    speedup = rows["sentence baseline"]["first_audio_ms_median"] / rows["warmline"]["first_audio_ms_median"]
    print_table(rows, speedup)
    return {
        "tokens_per_s": TOKENS_PER_S,
        "sample_rate": SAMPLE_RATE,
        "points": points,
        "seed": seed,
        "first_audio_speedup": speedup,
        "summary": rows,
        "runs": {r.name: asdict(r) for r in (warmline, baseline)},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="WarmlineTTSService vs a sentence-aggregating service.")
    parser.add_argument("--points", type=int, default=20, help="random barge-in points (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the barge-in points (default 0)")
    parser.add_argument("--fresh-runs", type=int, default=3, help="fresh processes timed (0: none)")
    parser.add_argument(
        "--out", type=Path, default=Path("bench-out"), help="output folder (default bench-out)"
    )
    parser.add_argument(FLAG, action="store_true", help=argparse.SUPPRESS)  # the child of --fresh-runs
    args = parser.parse_args()
    if args.first_call:
        report_first_call(asyncio.run(first_turn()))
        return 0
    report = asyncio.run(run_bench(args.points, args.seed))
    if args.fresh_runs > 0:
        samples = first_calls(Path(__file__), args.fresh_runs)
        report["first_call"] = compare(samples, report["summary"]["warmline"]["first_audio_ms_median"])
        print(describe(report["first_call"]))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "pipecat_bench.json"
    path.write_text(json.dumps(report, indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
