"""``benchmarks/hostile_memory.py`` runs end to end against a real ``warmline serve``.

Two hostile texts, briefly, through both routes: the test checks that every row was measured
(RSS before, at the peak and after, with their ratios to the baseline), that each route answered
as it should (nothing to say: 400 ``empty_input`` on the speech API; a letter under 9,999 marks:
one letter spoken), and that the JSON is written. The memory bar itself is the benchmark's
figure, not asserted here (``--check`` asserts it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "hostile_memory.py"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc (Linux)")
def test_hostile_memory_measures_every_text_on_both_routes(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--texts", "emoji,zalgo", "--ws-listen-s", "2", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "hostile_memory.json").read_text())
    rows = {(r["text"], r["route"]): r for r in report["rows"]}
    assert set(rows) == {(t, r) for t in ("emoji", "zalgo") for r in ("openai", "ws")}
    baseline = report["rss_baseline_mb"]
    assert baseline > 0 and report["text_chars"] == 10_000
    for row in rows.values():
        assert 0 < row["rss_before_mb"] <= row["rss_peak_mb"]
        assert row["peak_ratio"] == round(row["rss_peak_mb"] / baseline, 3)
        assert row["after_ratio"] == round(row["rss_after_mb"] / baseline, 3)
    assert (rows["emoji", "openai"]["status"], rows["emoji", "openai"]["code"]) == (400, "empty_input")
    assert rows["zalgo", "openai"]["status"] == 200 and 0 < rows["zalgo", "openai"]["audio_s"] < 2
    assert "done" in rows["emoji", "ws"]["events"]
    assert "worst peak" in proc.stdout
