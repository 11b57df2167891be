"""The benchmark runs end to end at tiny sizes and writes a well-formed JSON report and a PNG.

Never asserts on timing values: only on keys, types, counts and file formats.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.benchmark import JSON_NAME, PNG_NAME, BenchPlan, run_plan
from tts_service.benchmark.joins import analyse
from tts_service.benchmark.report import format_table
from tts_service.benchmark.texts import first_sentence_token, naive_sentences, tokenize

TINY = BenchPlan(
    latency_turns=5,
    runtime_latency_turns=5,
    capacity_ramp=(2,),
    capacity_trial_s=1.0,
    capacity_confirm_s=1.0,
    capacity_stagger_s=0.2,
    requested_sessions=2,
    memory_sessions=3,
    join_paragraphs=1,
)


@pytest.fixture(scope="module")
def tiny_run(hibari_backend: HibariBackend, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("bench")
    report = run_plan(TINY, out, backend=hibari_backend)
    return out, report


def _positive(section: dict[str, Any], *keys: str) -> None:
    for key in keys:
        assert isinstance(section[key], float | int) and not isinstance(section[key], bool), key
        assert section[key] > 0, key


def _count(section: dict[str, Any], *keys: str) -> None:
    for key in keys:
        assert type(section[key]) is int and section[key] >= 0, key


def test_json_has_every_section_with_machine_info(tiny_run: tuple[Path, Any]) -> None:
    """The JSON file holds each section, the machine it ran on and a timestamp."""
    out, report = tiny_run
    saved = json.loads((out / JSON_NAME).read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(report))
    for key in (
        "machine",
        "plan",
        "first_audio",
        "real_time_factor",
        "capacity",
        "memory",
        "joins",
        "timeline_plot",
        "targets",
        "timestamp_utc",
    ):
        assert key in saved, key
    m = saved["machine"]
    _count(m, "cpu_count")
    assert isinstance(m["python_version"], str) and isinstance(m["hibari_version"], str)
    assert datetime.datetime.fromisoformat(saved["timestamp_utc"]).tzinfo is not None


def test_latency_and_rtf_figures_are_positive_numbers(tiny_run: tuple[Path, Any]) -> None:
    """First-audio and real-time-factor figures are positive, with the requested turn counts."""
    _, report = tiny_run
    fa = report["first_audio"]
    assert fa["turns"] == 5 and fa["runtime_turns"] == 5
    _positive(
        fa,
        "engine_first_frame_ms_p50",
        "engine_first_frame_ms_p99",
        "naive_first_audio_ms_p50",
        "engine_e2e_first_audio_ms_p50",
        "naive_e2e_first_audio_ms_p50",
        "runtime_first_frame_ms_p50",
        "runtime_first_frame_ms_p99",
    )
    _count(fa, "first_units_cut_by_hold_count")
    rtf = report["real_time_factor"]
    _positive(rtf, "engine_rtf", "naive_rtf", "engine_audio_s", "naive_audio_s", "engine_x_real_time")
    _count(rtf, "engine_units", "naive_sentences")


def test_capacity_memory_and_joins_report_counts_as_ints(tiny_run: tuple[Path, Any]) -> None:
    """Capacity, memory and join sections carry integer counts and positive sizes."""
    _, report = tiny_run
    cap = report["capacity"]
    _count(cap, "max_sessions_zero_late_frames", "workers")
    assert len(cap["ramp"]) == 1 and len(cap["confirmations"]) == 1
    trial = cap["ramp"][0]
    assert trial["sessions"] == 2
    _count(
        trial,
        "late_frames",
        "late_frames_text_starved",
        "frames_played",
        "turns_completed",
        "errors",
        "runtime_jobs_run",
        "runtime_max_queue_depth",
    )
    assert trial["frames_played"] > 0 and trial["runtime_jobs_run"] > 0
    mem = report["memory"]
    assert mem["sessions_open"] == 3
    _positive(mem, "rss_model_loaded_mb", "rss_with_sessions_mb", "pending_audio_per_session_s_mean")
    assert isinstance(mem["rss_per_session_mb"], float)
    joins = report["joins"]
    assert joins["paragraphs"] == 1
    _count(joins, "engine_clicks", "engine_joins", "naive_raw_clicks", "naive_trimmed_clicks")
    assert joins["engine_joins"] >= 1
    assert all(isinstance(t["met"], bool) for t in report["targets"])


def test_timeline_png_is_written(tiny_run: tuple[Path, Any]) -> None:
    """The timeline plot is a PNG file in the output folder."""
    out, report = tiny_run
    png = out / PNG_NAME
    assert report["timeline_plot"]["png_path"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _count(report["timeline_plot"], "units", "frames", "underruns")
    assert report["timeline_plot"]["units"] >= 2


def test_table_shows_every_section(tiny_run: tuple[Path, Any]) -> None:
    """The printed table names each section and where the files are."""
    _, report = tiny_run
    table = format_table(report)
    for part in (
        "first audio",
        "real-time factor",
        "concurrent real-time calls",
        "memory",
        "joins",
        JSON_NAME,
        PNG_NAME,
    ):
        assert part in table


def test_quick_flag_maps_to_a_small_plan() -> None:
    """--quick gives 5 s trials over 5 and 10 calls; the full plan confirms for --duration."""
    quick = BenchPlan.from_args(argparse.Namespace(quick=True, duration=60.0, sessions=100))
    assert quick.capacity_ramp == (5, 10) and quick.capacity_trial_s == 5.0
    full = BenchPlan.from_args(argparse.Namespace(quick=False, duration=42.0, sessions=80))
    assert full.capacity_confirm_s == 42.0 and full.requested_sessions == 80


def test_tokens_are_seeded_and_lossless() -> None:
    """The same seed splits text the same way, and the pieces join back into the text."""
    text = "Sure, I can do that. Your booking is for two."
    assert tokenize(text, 3) == tokenize(text, 3)
    assert "".join(tokenize(text, 3)) == text
    assert all(1 <= len(t) <= 5 for t in tokenize(text, 3))


def test_naive_splitter_waits_for_whitespace_after_the_sentence() -> None:
    """The naive server's first sentence is complete only once whitespace follows its full stop."""
    assert naive_sentences("Hi there. How are you? Fine") == ["Hi there.", "How are you?", "Fine"]
    index, sentence = first_sentence_token(["Hi", " there", ".", " How"])
    assert (index, sentence) == (3, "Hi there.")


def test_join_analysis_counts_a_hard_cut_as_a_click() -> None:
    """A polarity flip at a join is a click; a join through silence is not."""
    rate = 24000
    t = np.arange(rate // 2) / rate
    tone = (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    cut = int(np.argmax(tone))
    flipped = np.concatenate([tone[:cut], -tone[cut:]])
    assert analyse(flipped, [(0, cut), (cut, len(flipped))], rate).clicks == 1
    quiet = np.zeros(rate // 10, np.float32)
    joined = np.concatenate([tone, quiet, tone])
    spans = [(0, len(tone)), (len(tone) + len(quiet), len(joined))]
    assert analyse(joined, spans, rate).clicks == 0
