"""A minute of the soak in CI: after mixed traffic both servers are back to their baseline.

``benchmarks/soak.py`` runs ``warmline serve`` and ``warmline call`` as processes and drives them
with WebSocket clients (every mode, encoding, barge-in, abrupt disconnects) and simulated phone
callers. This asserts behaviour only: no client saw an error, neither server logged one, and once
idle again each server has
exactly the threads, descriptors and asyncio tasks it had idle after the warm-up. Memory growth
and late frames are timing and load: they are the hour-long run's figures, not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_short_soak_leaves_both_servers_as_it_found_them(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "soak.py"),
            "--minutes", "1", "--warmup-s", "10", "--ws-clients", "4", "--calls", "1",
            "--out", str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "soak.json").read_text())
    assert result["errors"] == [] and result["warmup_errors"] == [], proc.stdout[-3000:]
    assert {name: e["count"] for name, e in result["log_errors"].items()} == {"serve": 0, "call": 0}, result[
        "log_errors"
    ]
    assert result["calls"] > 0 and result["connections"] > 0
    assert {"ws whole", "ws barge_resume", "ws barge_reset"} <= set(result["turns"]), result["turns"]
    for name, figures in result["servers"].items():
        assert figures["counts_back_to_baseline"], (name, figures)
    assert (tmp_path / "soak.png").stat().st_size > 0
