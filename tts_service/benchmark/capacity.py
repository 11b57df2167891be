"""Concurrent real-time calls on one runtime: how many play with zero late frames.

A trial opens N calls on ``EngineRuntime(backend, workers=2)`` (see ``calls``), starts them at
random moments over ``stagger_s`` (calls do not all begin in the same second; one answer lasts
about that long, so turns are spread as in steady state), measures for ``duration_s`` more, then
cancels and awaits every task it started. Only the measured window decides pass or fail; late
frames during the start are reported apart. The ramp tries growing N with short trials
and stops at the first one with a late frame; the best N (and the requested N) are then
confirmed with a long trial. Never asserts a target.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tts_service.benchmark.calls import CallState, listener, speaker
from tts_service.benchmark.stats import ms_summary
from tts_service.engine.ports import Backend
from tts_service.engine.session import SessionConfig
from tts_service.runtime import EngineRuntime

WORKERS = 2


@dataclass(frozen=True, slots=True)
class TrialResult:
    """One trial: N calls for ``duration_s``."""

    sessions: int
    duration_s: float
    stagger_s: float
    late_frames: int
    late_frames_text_starved: int
    late_frames_before_window: int
    sessions_with_late_frames: int
    frames_played: int
    turns_completed: int
    errors: int
    first_frame_s: list[float]
    jobs_run: int
    jobs_skipped_stale: int
    compute_s: float
    max_queue_depth: int

    @property
    def passed(self) -> bool:
        return self.late_frames == 0 and self.errors == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "duration_s": self.duration_s,
            "start_stagger_s": self.stagger_s,
            "late_frames": self.late_frames,
            "late_frames_text_starved": self.late_frames_text_starved,
            "late_frames_before_window": self.late_frames_before_window,
            "sessions_with_late_frames": self.sessions_with_late_frames,
            "frames_played": self.frames_played,
            "turns_completed": self.turns_completed,
            "errors": self.errors,
            "first_frame_under_load_turns": len(self.first_frame_s),
            **ms_summary("first_frame_under_load", self.first_frame_s),
            "runtime_jobs_run": self.jobs_run,
            "runtime_jobs_skipped_stale": self.jobs_skipped_stale,
            "runtime_compute_s": round(self.compute_s, 3),
            "runtime_worker_utilisation": round(
                self.compute_s / ((self.stagger_s + self.duration_s) * WORKERS), 4
            ),
            "runtime_max_queue_depth": self.max_queue_depth,
        }


async def _trial(
    backend: Backend, sessions: int, duration_s: float, stagger_s: float, seed: int
) -> TrialResult:
    rng = np.random.default_rng(seed)
    async with EngineRuntime(backend, workers=WORKERS, max_sessions=sessions) as runtime:
        calls = [
            CallState(
                index=i,
                session=await runtime.open_session(SessionConfig(seed=seed + i)),
                start_delay_s=float(rng.uniform(0.0, stagger_s)),
                seed=seed + 1000 * i,
                window_from=float("inf"),
            )
            for i in range(sessions)
        ]
        window_from = time.monotonic() + stagger_s
        for call in calls:
            call.window_from = window_from
        tasks: list[asyncio.Task[None]] = []
        try:
            for call in calls:
                tasks.append(asyncio.create_task(listener(call), name=f"bench-call-{call.index}-listener"))
                tasks.append(asyncio.create_task(speaker(call), name=f"bench-call-{call.index}-speaker"))
            # The tasks run forever; one that ends early has failed, and ends the trial.
            await asyncio.wait(tasks, timeout=stagger_s + duration_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        failures = [
            o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, asyncio.CancelledError)
        ]
        if failures:
            raise RuntimeError(f"{len(failures)} call task(s) failed during the trial") from failures[0]
        stats = runtime.stats
        return TrialResult(
            sessions=sessions,
            duration_s=duration_s,
            stagger_s=stagger_s,
            late_frames=sum(c.late_frames for c in calls),
            late_frames_text_starved=sum(c.late_frames_text_starved for c in calls),
            late_frames_before_window=sum(c.late_frames_before_window for c in calls),
            sessions_with_late_frames=sum(1 for c in calls if c.late_frames),
            frames_played=sum(c.frames for c in calls),
            turns_completed=sum(c.turns for c in calls),
            errors=sum(c.errors for c in calls),
            first_frame_s=[s for c in calls for s in c.first_frame_s],
            jobs_run=stats.jobs_run,
            jobs_skipped_stale=stats.jobs_skipped_stale,
            compute_s=stats.compute_s,
            max_queue_depth=stats.max_queue_depth,
        )


def run_trial(
    backend: Backend, sessions: int, duration_s: float, *, stagger_s: float = 0.0, seed: int = 0
) -> TrialResult:
    """Start ``sessions`` real-time calls over ``stagger_s``, then measure ``duration_s`` seconds."""
    return asyncio.run(_trial(backend, sessions, duration_s, stagger_s, seed))


@dataclass(slots=True)
class CapacityResult:
    """The ramp, the confirmations and the largest N that played without a late frame."""

    ramp: list[TrialResult] = field(default_factory=list)
    confirmations: list[TrialResult] = field(default_factory=list)
    max_sessions: int = 0
    requested_sessions: int = 0

    def to_json(self) -> dict[str, Any]:
        requested = next((t for t in self.confirmations if t.sessions == self.requested_sessions), None)
        return {
            "late_frames_definition": (
                "a frame not available one 80 ms frame after its real-time play time while its unit was "
                "queued or in synthesis; frames late because their text had not arrived yet are counted "
                "as late_frames_text_starved and do not fail a trial"
            ),
            "max_sessions_zero_late_frames": self.max_sessions,
            "ramp_exhausted_without_failure": bool(self.ramp) and all(t.passed for t in self.ramp),
            "requested_sessions": self.requested_sessions,
            "requested_sessions_result": requested.to_json() if requested else None,
            "ramp": [t.to_json() for t in self.ramp],
            "confirmations": [t.to_json() for t in self.confirmations],
        }


def _log(trial: TrialResult, kind: str) -> None:
    print(
        f"  capacity {kind}: {trial.sessions:4d} calls for {trial.duration_s:g} s: "
        f"{trial.late_frames} late frames ({trial.late_frames_text_starved} text-starved, "
        f"{trial.late_frames_before_window} while starting), {trial.frames_played} frames, "
        f"{trial.turns_completed} turns",
        file=sys.stderr,
        flush=True,
    )


def find_capacity(
    backend: Backend,
    ramp: tuple[int, ...],
    trial_s: float,
    confirm_s: float,
    requested: int,
    *,
    stagger_s: float,
    seed: int = 0,
) -> CapacityResult:
    """Ramp N until a trial has a late frame, then confirm the best N and ``requested``."""
    result = CapacityResult(requested_sessions=requested)
    best = 0
    for n in ramp:
        trial = run_trial(backend, n, trial_s, stagger_s=stagger_s, seed=seed)
        _log(trial, "ramp")
        result.ramp.append(trial)
        if not trial.passed:
            break
        best = n
    for n in sorted({best, requested} - {0}):
        trial = run_trial(backend, n, confirm_s, stagger_s=stagger_s, seed=seed + 1)
        _log(trial, "confirm")
        result.confirmations.append(trial)
    confirmed = [t.sessions for t in result.confirmations if t.passed and t.sessions <= max(best, 0)]
    result.max_sessions = max(confirmed, default=0)
    return result
