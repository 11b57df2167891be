"""How big a benchmark run is: every size and duration in one frozen value.

``BenchPlan.from_args`` maps the CLI flags (``--quick``, ``--duration``, ``--sessions``) to a
plan; tests build tiny plans directly. Never runs anything.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Any

FULL_RAMP: tuple[int, ...] = (25, 50, 100, 150, 200, 260)
QUICK_RAMP: tuple[int, ...] = (5, 10)


@dataclass(frozen=True, slots=True)
class BenchPlan:
    """Sizes of each section of a run."""

    latency_turns: int = 200
    runtime_latency_turns: int = 200
    capacity_ramp: tuple[int, ...] = FULL_RAMP
    capacity_trial_s: float = 10.0
    capacity_confirm_s: float = 60.0
    #: calls start at random moments over this long before the measured window opens
    capacity_stagger_s: float = 6.0
    requested_sessions: int = 100
    memory_sessions: int = 100
    join_paragraphs: int = 6
    seed: int = 0
    quick: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> BenchPlan:
        """The plan for ``warmline bench`` flags; ``--quick`` is a smoke test of every section."""
        duration = float(getattr(args, "duration", 60.0))
        sessions = int(getattr(args, "sessions", 100))
        if getattr(args, "quick", False):
            return cls(
                latency_turns=30,
                runtime_latency_turns=30,
                capacity_ramp=QUICK_RAMP,
                capacity_trial_s=5.0,
                capacity_confirm_s=min(duration, 5.0),
                capacity_stagger_s=2.0,
                requested_sessions=min(sessions, max(QUICK_RAMP)),
                memory_sessions=20,
                join_paragraphs=2,
                quick=True,
            )
        return cls(capacity_confirm_s=duration, requested_sessions=sessions)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["capacity_ramp"] = list(self.capacity_ramp)
        return out
