"""``benchmarks/v2v_bench.py`` runs end to end on a short call and its figures add up.

Two questions per bot (one answered whole, one barged in on) over the simulated phone line. No
latency target is asserted here (targets live in the benchmark's table): the test checks that
every turn was understood and timed, that each stage split sums to the voice-to-voice figure it
explains, and that the table, the JSON and the PNG are all written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "v2v_bench.py"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], str, Path]:
    out = tmp_path_factory.mktemp("v2v")
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--turns", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "v2v_bench.json").read_text()), proc.stdout, out


def test_both_bots_understand_and_answer_every_turn(report: tuple[dict[str, object], str, Path]) -> None:
    data, _, _ = report
    summary = data["summary"]
    assert isinstance(summary, dict) and set(summary) == {"warmline", "stock"}
    for bot, s in summary.items():
        assert s["turns"] == 2 and s["timed"] == 2, bot
        assert s["answered_early"] == 0, bot
        assert s["right_answers"] == 2, bot
        assert s["barge_ins"] == 1 and s["barge_in_p50_s"] is not None, bot


def test_stages_add_up_to_voice_to_voice(report: tuple[dict[str, object], str, Path]) -> None:
    data, _, _ = report
    results = data["results"]
    assert isinstance(results, dict)
    for bot, turns in results.items():
        for turn in turns:
            stages = turn["stages_s"]
            assert all(v is not None for v in stages.values()), (bot, stages)
            assert all(v >= 0 for v in stages.values()), (bot, stages)
            assert sum(stages.values()) == pytest.approx(turn["v2v_s"], abs=1e-3), (bot, turn)
            if turn["barge_in"]:
                split = turn["barge_stages_s"]
                assert sum(split.values()) == pytest.approx(turn["barge_in_s"], abs=1e-3), (bot, turn)


def test_table_json_and_plot_are_written(report: tuple[dict[str, object], str, Path]) -> None:
    _, stdout, out = report
    assert "voice to voice" in stdout and "barge-in: speech start to silence" in stdout
    assert (out / "v2v_latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
