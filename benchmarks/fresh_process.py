"""The first call of a fresh process: a benchmark's own script, run again as a child per sample.

    samples = first_calls(Path(__file__), runs=3)       # the parent: one child process per run
    summary = compare(samples, warm_first_audio_ms)     # ... against its warm figure
    report_first_call({"first_audio_ms": ...})          # the child (``--first-call``): one line

A warm figure (a benchmark that warms first, then measures) hides what the first caller of a new
worker pays. Each child constructs the service as its docs show, prewarms it the way its
framework does, and times its first stream or turn to first audio, then exits; the parent
compares the median with its warm figure (``compare``): the ratio is first call over warm.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the flag that makes a benchmark script the child
FLAG = "--first-call"
#: the child's one line of results: this tag, then JSON
TAG = "FIRST-CALL "
#: the goal: a fresh process's first call within this factor of a warm one
TARGET_RATIO = 2.0


def report_first_call(figures: dict[str, float]) -> None:
    """The child's output: one tagged JSON line on stdout."""
    print(TAG + json.dumps(figures), flush=True)


def first_calls(script: Path, runs: int, *args: str) -> list[dict[str, float]]:
    """Run ``script FLAG *args`` ``runs`` times, each a fresh Python process; their figures."""
    out: list[dict[str, float]] = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, str(script), FLAG, *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith(TAG)]
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"{script.name} {FLAG} failed ({done.returncode}):\n{done.stderr[-4000:]}")
        out.append(json.loads(lines[-1][len(TAG) :]))
    return out


def compare(samples: list[dict[str, float]], warm_first_audio_ms: float) -> dict[str, Any]:
    """The fresh processes' first audio (median, and each) against the warm figure."""
    firsts = [s["first_audio_ms"] for s in samples]
    median = statistics.median(firsts)
    summary: dict[str, Any] = {
        "runs": len(samples),
        "first_audio_ms": [round(f, 1) for f in firsts],
        "first_audio_ms_median": round(median, 1),
        "warm_first_audio_ms": round(warm_first_audio_ms, 1),
        "ratio": round(median / warm_first_audio_ms, 2) if warm_first_audio_ms > 0 else None,
        "target_ratio": TARGET_RATIO,
    }
    for key in sorted({k for s in samples for k in s} - {"first_audio_ms"}):
        summary[f"{key}_median"] = round(statistics.median(s[key] for s in samples if key in s), 3)
    return summary


def describe(summary: dict[str, Any]) -> str:
    """One line for the printed table."""
    ratio = summary["ratio"]
    verdict = "" if ratio is None else (" (within target)" if ratio <= TARGET_RATIO else " (over target)")
    return (
        f"first call in a fresh process: {summary['first_audio_ms_median']:.0f} ms to first audio "
        f"(median of {summary['runs']}: {', '.join(f'{f:.0f}' for f in summary['first_audio_ms'])}) "
        f"vs {summary['warm_first_audio_ms']:.0f} ms warm: {ratio}x, target <= {TARGET_RATIO:g}x{verdict}"
    )


__all__ = ["FLAG", "TAG", "TARGET_RATIO", "compare", "describe", "first_calls", "report_first_call"]
