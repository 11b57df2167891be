"""``warmline bench``: the engine measured side by side with naive sentence stitching.

    warmline bench --out bench-out            # a few minutes; 60 s capacity confirmations
    warmline bench --quick --out /tmp/bq      # a smoke test of every section

Sections, each in its own module: first-frame latency (``latency``, ``runtime_latency``),
real-time factor (``rtf``), concurrent real-time calls (``capacity`` over ``calls``), memory per
session (``memory``), join quality (``joins``) and a timeline PNG of one turn (``simulate``,
``plot``). ``report`` prints the table and writes ``engine_bench.json``. Every figure is paired
with the naive baseline measured in the same run, because the machine is shared and noisy.
Targets are printed beside figures and never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.benchmark.capacity import WORKERS, find_capacity
from tts_service.benchmark.joins import measure_joins
from tts_service.benchmark.latency import measure_first_frame
from tts_service.benchmark.memory import measure_memory
from tts_service.benchmark.plan import BenchPlan
from tts_service.benchmark.report import Report, machine_info, print_table, targets, timestamp_utc, write_json
from tts_service.benchmark.rtf import measure_rtf
from tts_service.benchmark.runtime_latency import measure_runtime_first_frame
from tts_service.benchmark.simulate import simulate_turn
from tts_service.benchmark.stats import ms_summary, rss_mb
from tts_service.benchmark.texts import LONG_TEXT, PARAGRAPHS
from tts_service.engine.ports import Backend, UnitBackend

__all__ = ["BenchPlan", "run_benchmark", "run_plan"]

JSON_NAME = "engine_bench.json"
PNG_NAME = "engine_timeline.png"


def _say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _timeline(backend: Backend, png: Path, seed: int) -> dict[str, Any]:
    # Imported here so matplotlib is not resident while the memory section measures RSS.
    from tts_service.benchmark.plot import plot_turn

    trace = simulate_turn(backend, PARAGRAPHS[0], seed=seed)
    plot_turn(trace, png)
    return {
        "png_path": str(png),
        "tokens": len(trace.token_times_s),
        "units": len(trace.unit_spans),
        "frames": len(trace.frame_times_s),
        "underruns": trace.underruns,
        "first_frame_ms": round(trace.frame_times_s[0] * 1000, 2) if trace.frame_times_s else 0.0,
        "naive_first_audio_ms": round(trace.naive_first_audio_s * 1000, 2),
    }


def run_plan(plan: BenchPlan, out_dir: Path, *, backend: UnitBackend | None = None) -> Report:
    """Run every section of ``plan``, write the JSON and the PNG into ``out_dir``, return the report."""
    t_start = time.perf_counter()
    report: Report = {
        "benchmark": "warmline engine vs naive sentence stitching (hibari)",
        "timestamp_utc": timestamp_utc(),
        "machine": machine_info(),
        "plan": plan.to_json(),
    }
    if backend is None:
        _say("loading hibari")
        t0 = time.perf_counter()
        backend = HibariBackend()
        backend.load()
        report["model_load_s"] = round(time.perf_counter() - t0, 3)
    rss_loaded = rss_mb()

    _say(f"memory: {plan.memory_sessions} sessions open mid-turn")
    report["memory"] = measure_memory(backend, plan.memory_sessions, rss_loaded).to_json()

    _say(f"first-frame latency: {plan.latency_turns} turns (sync engine and naive)")
    first_audio = measure_first_frame(backend, plan.latency_turns, seed=plan.seed).to_json()
    _say(f"first-frame latency: {plan.runtime_latency_turns} turns through the async runtime")
    runtime = measure_runtime_first_frame(backend, plan.runtime_latency_turns, seed=plan.seed)
    first_audio.update({"runtime_turns": len(runtime), **ms_summary("runtime_first_frame", runtime)})
    report["first_audio"] = first_audio

    _say("real-time factor")
    report["real_time_factor"] = measure_rtf(backend, LONG_TEXT, seed=plan.seed).to_json()

    _say(f"joins: {plan.join_paragraphs} paragraphs")
    paragraphs = [PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(plan.join_paragraphs)]
    report["joins"] = measure_joins(backend, paragraphs, seed=plan.seed).to_json()

    _say("timeline plot")
    report["timeline_plot"] = _timeline(backend, out_dir / PNG_NAME, plan.seed)

    _say(f"capacity: ramp {list(plan.capacity_ramp)} at {plan.capacity_trial_s:g} s, then confirm")
    capacity = find_capacity(
        backend,
        plan.capacity_ramp,
        plan.capacity_trial_s,
        plan.capacity_confirm_s,
        plan.requested_sessions,
        stagger_s=plan.capacity_stagger_s,
        seed=plan.seed,
    )
    report["capacity"] = {"workers": WORKERS, **capacity.to_json()}

    report["targets"] = [t.to_json() for t in targets(report)]
    report["run_wall_s"] = round(time.perf_counter() - t_start, 1)
    json_path = out_dir / JSON_NAME
    report["json_path"] = str(json_path)
    write_json(report, json_path)
    return report


def run_benchmark(args: argparse.Namespace) -> int:
    """The ``warmline bench`` command: run, print the table, write JSON and PNG; returns 0."""
    plan = BenchPlan.from_args(args)
    report = run_plan(plan, Path(args.out))
    print_table(report)
    return 0
