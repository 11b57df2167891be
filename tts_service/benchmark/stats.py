"""Small numeric helpers shared by the benchmark sections: percentiles and resident memory.

Pure functions over lists of floats; nothing here times or runs anything.
"""

from __future__ import annotations

import os

import numpy as np


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values``, or 0.0 for an empty list."""
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values, np.float64), q))


def ms_summary(prefix: str, seconds: list[float]) -> dict[str, float]:
    """``{prefix}_ms_p50``, ``_p99`` and ``_mean`` of durations given in seconds."""
    ms = [s * 1000.0 for s in seconds]
    return {
        f"{prefix}_ms_p50": round(percentile(ms, 50), 3),
        f"{prefix}_ms_p99": round(percentile(ms, 99), 3),
        f"{prefix}_ms_mean": round(float(np.mean(ms)) if ms else 0.0, 3),
    }


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` rounded for reports; 0.0 when the denominator is not positive."""
    return round(numerator / denominator, 3) if denominator > 0 else 0.0


def rss_mb() -> float:
    """Resident set size of this process in MiB, from /proc/self/statm (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
