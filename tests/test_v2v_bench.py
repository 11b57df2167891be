"""``benchmarks/v2v_bench.py`` runs end to end on a short call and its figures add up.

Four acts per bot over the simulated phone line, from the wide caller set (voices and sentences
the turn-taking was not tuned on) and the default open-vocabulary recognizer: a question in one
breath, a barge-in with a new question, a backchannel over that answer, a question with a
hesitation in it. No latency or accuracy target is asserted here (targets live in the
benchmark's table): the test checks that every act was played and judged, that the plain
question and the barge-in were answered and timed, that each stage split sums to the figure it
explains, and that the table, the JSON and the PNG are written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "v2v_bench.py"
BOTS = {"warmline", "stock"}
SET = "wide"


def run_bench(out: Path, *args: str) -> tuple[dict[str, Any], str]:
    """The bench with ``args``, writing to ``out``: its JSON report and what it printed."""
    proc = subprocess.run(
        [sys.executable, str(BENCH), *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "v2v_bench.json").read_text()), proc.stdout


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], str, Path]:
    out = tmp_path_factory.mktemp("v2v")
    data, stdout = run_bench(out, "--turns", "4", "--sets", SET, "--bots", ",".join(sorted(BOTS)))
    return data, stdout, out


def test_every_act_is_played_and_judged_and_questions_are_answered(
    report: tuple[dict[str, object], str, Path],
) -> None:
    data, _, _ = report
    assert isinstance(data["sets"], dict) and set(data["sets"]) == {SET}
    run = data["sets"][SET]
    acts = run["acts"]
    assert isinstance(acts, list) and [a["kind"] for a in acts] == ["ask", "barge", "backchannel", "hesitate"]
    summary, results = run["summary"], run["results"]
    assert isinstance(summary, dict) and isinstance(results, dict) and set(summary) == BOTS
    for bot, s in summary.items():
        assert (s["acts"], s["turns"], s["barge_ins"], s["backchannels"], s["hesitations"]) == (4, 3, 1, 1, 1)
        ask, barge, backchannel, _ = results[bot]
        for turn in (ask, barge):
            assert turn["v2v_s"] is not None and turn["heard"], (bot, turn)
        assert barge["barge_in_s"] is not None, bot
        assert backchannel["kept"] in (True, False), bot  # judged either way
        assert s["llm_requests"] >= 3 and s["llm_requests_per_turn"] >= 1.0, bot


def test_stages_add_up_to_the_figures_they_split(report: tuple[dict[str, object], str, Path]) -> None:
    data, _, _ = report
    results = data["sets"][SET]["results"]
    assert isinstance(results, dict)
    for bot, acts in results.items():
        for act in acts:
            if act["v2v_s"] is not None:
                stages = act["stages_s"]
                # a stage the observer could not see in stock Pipecat's frames (its VAD stop went
                # to an answer it cancelled) is None, and the next stage holds its time
                timed = [v for v in stages.values() if v is not None or bot.startswith("warmline")]
                assert all(v is not None and v >= 0 for v in timed), (bot, stages)
                assert sum(timed) == pytest.approx(act["v2v_s"], abs=1e-3), (bot, act)
            if act["barge_in_s"] is not None:
                split = act["barge_stages_s"]
                assert all(v is not None and v >= 0 for v in split.values()), (bot, split)
                assert sum(split.values()) == pytest.approx(act["barge_in_s"], abs=1e-3), (bot, act)


def test_table_json_and_plot_are_written(report: tuple[dict[str, object], str, Path]) -> None:
    _, stdout, out = report
    assert f"{SET}/warmline" in stdout and f"{SET}/stock" in stdout
    for row in ("voice to voice", "barge-in: speech start to silence", "cut-ins", "LLM requests per turn"):
        assert row in stdout, row
    assert "backchannels that kept the answer" in stdout
    assert (out / "v2v_latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_passes_play_the_set_again_and_pool_the_figures(tmp_path: Path) -> None:
    """``--passes 2``: every act played twice, the figures of both passes pooled, and each pass's
    voice-to-voice p50 kept beside them (the spread a single pass cannot show), and the machine's
    speed probed before each pass."""
    args = ("--turns", "2", "--sets", "tuned", "--bots", "warmline", "--passes", "2")
    data, stdout = run_bench(tmp_path, *args)
    assert data["passes"] == 2
    run = data["sets"]["tuned"]
    summary, results = run["summary"]["warmline"], run["results"]["warmline"]
    assert len(run["acts"]) == 2 and len(results) == 4
    assert [r["text"] for r in results] == [a["text"] for a in run["acts"]] * 2
    assert summary["passes"] == 2 and summary["acts"] == 4
    by_pass = summary["v2v_p50_s_by_pass"]
    assert len(by_pass) == 2
    timed = sorted(r["v2v_s"] for r in results if r["v2v_s"] is not None)
    assert summary["v2v_p50_s"] == pytest.approx(float(np.median(timed)))
    assert "each pass" in stdout
    # the machine's speed before each pass: whisper alone, a measured time (bounded loosely: CI is slow)
    probes = summary["machine_probe_s_by_pass"]
    assert len(probes) == 2 and all(0 < p < 10.0 for p in probes), probes
    assert "machine: whisper alone, ms" in stdout
