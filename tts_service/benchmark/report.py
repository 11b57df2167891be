"""The benchmark's outputs: machine facts, targets, the printed table and the JSON file.

Pure formatting over the report dict that ``run_plan`` builds; the table is a function of the
JSON, so what is printed is what is saved. Targets are shown beside figures, never asserted.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Report = dict[str, Any]


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "cpu_count": os.cpu_count() or 0,
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python_version": platform.python_version(),
        "hibari_version": _version("hibari-tts"),
        "onnxruntime_version": _version("onnxruntime"),
        "numpy_version": _version("numpy"),
        "warmline_version": _version("warmline"),
    }


def timestamp_utc() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Target:
    """One figure with a target; ``met`` is reported, never asserted."""

    figure: str
    value: float
    op: str  # "<=" or ">=" or "=="
    goal: float
    unit: str

    @property
    def met(self) -> bool:
        if self.op == "<=":
            return self.value <= self.goal
        if self.op == ">=":
            return self.value >= self.goal
        return self.value == self.goal

    def to_json(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "value": self.value,
            "target": f"{self.op} {self.goal:g} {self.unit}".strip(),
            "met": self.met,
        }


def targets(report: Report) -> list[Target]:
    fa, cap, mem, joins = report["first_audio"], report["capacity"], report["memory"], report["joins"]
    return [
        Target("first_frame_ms_p50", fa["engine_first_frame_ms_p50"], "<=", 10, "ms"),
        Target("first_frame_ms_p99", fa["engine_first_frame_ms_p99"], "<=", 25, "ms"),
        Target("max_sessions_zero_late_frames", cap["max_sessions_zero_late_frames"], ">=", 100, "sessions"),
        Target("rss_per_session_mb", mem["rss_per_session_mb"], "<=", 3, "MB"),
        Target("join_clicks", joins["engine_clicks"], "==", 0, ""),
    ]


def write_json(report: Report, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


# -- the table ----------------------------------------------------------------------------------

_W = (50, 11, 18, 9, 16)


def _num(v: Any) -> str:
    if v is None or v == "":
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 0.1 and v != 0 else f"{v:,.1f}" if abs(v) >= 100 else f"{v:.2f}"
    return str(v)


def _row(label: str, engine: Any, naive: Any = None, ratio: Any = None, target: str = "") -> str:
    r = f"{_num(ratio)}x" if isinstance(ratio, int | float) and ratio else "-"
    cells = (label, _num(engine), _num(naive), r, target)
    return (
        f"{cells[0]:<{_W[0]}}{cells[1]:>{_W[1]}}{cells[2]:>{_W[2]}}{cells[3]:>{_W[3]}}  {cells[4]}"
    ).rstrip()


def _pair(section: dict[str, Any], a: str, b: str) -> str:
    return f"{section[a]:.2f} / {section[b]:.2f}"


def _header() -> str:
    return f"{'figure':<{_W[0]}}{'warmline':>{_W[1]}}{'naive':>{_W[2]}}{'ratio':>{_W[3]}}  target"


def _target(report: Report, figure: str) -> str:
    for t in report["targets"]:
        if t["figure"] == figure:
            return f"{t['target']} ({'met' if t['met'] else 'MISSED'})"
    return ""


def _section(title: str) -> str:
    return f"-- {title} " + "-" * max(0, sum(_W) - len(title) - 4)


def format_table(report: Report) -> str:
    """The human-readable summary of ``report``."""
    m, fa, rtf = report["machine"], report["first_audio"], report["real_time_factor"]
    cap, mem, j, plot = report["capacity"], report["memory"], report["joins"], report["timeline_plot"]
    lines = [
        f"Warmline engine benchmark vs naive sentence stitching  ({report['timestamp_utc']})",
        f"{m['cpus_usable']} CPUs, Python {m['python_version']}, hibari-tts {m['hibari_version']}, "
        f"onnxruntime {m['onnxruntime_version']}; ratios are naive / warmline, measured in this run",
        "",
        _header(),
        _section(f"first audio, warm, {fa['turns']} turns"),
        _row(
            "after the first unit is ready, p50 (ms)",
            fa["engine_first_frame_ms_p50"],
            fa["naive_first_audio_ms_p50"],
            fa["naive_over_engine_first_audio_p50_ratio"],
            _target(report, "first_frame_ms_p50"),
        ),
        _row(
            "after the first unit is ready, p99 (ms)",
            fa["engine_first_frame_ms_p99"],
            fa["naive_first_audio_ms_p99"],
            None,
            _target(report, "first_frame_ms_p99"),
        ),
        _row("  of which model compute, p50 (ms)", fa["engine_first_frame_model_ms_p50"]),
        _row("through the async runtime, p50 (ms)", fa["runtime_first_frame_ms_p50"]),
        _row("through the async runtime, p99 (ms)", fa["runtime_first_frame_ms_p99"]),
        _row(
            f"end to end from first token @{fa['tokens_per_s']:g} tok/s, p50 (ms)",
            fa["engine_e2e_first_audio_ms_p50"],
            fa["naive_e2e_first_audio_ms_p50"],
            fa["naive_over_engine_e2e_first_audio_p50_ratio"],
        ),
        _row(
            "end to end from first token, p99 (ms)",
            fa["engine_e2e_first_audio_ms_p99"],
            fa["naive_e2e_first_audio_ms_p99"],
        ),
        _row("first unit length, mean (chars)", fa["first_unit_chars_mean"]),
        _section(f"real-time factor, {rtf['text_chars']} chars"),
        _row(
            "compute s / audio s (model only)",
            rtf["engine_rtf"],
            rtf["naive_rtf"],
            round(rtf["naive_rtf"] / rtf["engine_rtf"], 3) if rtf["engine_rtf"] else None,
        ),
        _row("compute s / audio s (with engine work)", rtf["engine_rtf_with_engine_overhead"]),
        _row("x real time (model only)", rtf["engine_x_real_time"], rtf["naive_x_real_time"]),
        _row("audio produced (s)", rtf["engine_audio_s"], rtf["naive_audio_s"]),
        _section(f"concurrent real-time calls, runtime with {cap['workers']} workers"),
        _row(
            "max calls with zero late frames",
            cap["max_sessions_zero_late_frames"],
            None,
            None,
            _target(report, "max_sessions_zero_late_frames"),
        ),
    ]
    for trial in cap["ramp"]:
        lines.append(_trial_row("ramp", trial))
    for trial in cap["confirmations"]:
        lines.append(_trial_row("confirm", trial))
    lines += [
        _section("memory"),
        _row("RSS with the model loaded (MB)", mem["rss_model_loaded_mb"]),
        _row(f"RSS with {mem['sessions_open']} sessions open mid-turn (MB)", mem["rss_with_sessions_mb"]),
        _row(
            "RSS per extra session (MB)",
            mem["rss_per_session_mb"],
            None,
            None,
            _target(report, "rss_per_session_mb"),
        ),
        _row("pending audio held per session (s)", mem["pending_audio_per_session_s_mean"]),
        _section(f"joins, {j['paragraphs']} paragraphs streamed token by token (naive: raw / trimmed)"),
        _row(
            "clicks",
            j["engine_clicks"],
            f"{j['naive_raw_clicks']} / {j['naive_trimmed_clicks']}",
            None,
            _target(report, "join_clicks"),
        ),
        _row("joins analysed", j["engine_joins"], f"{j['naive_raw_joins']} / {j['naive_trimmed_joins']}"),
        _row(
            "largest jump at a join (full scale 1.0)",
            j["engine_max_join_jump"],
            f"{j['naive_raw_max_join_jump']:.4f} / {j['naive_trimmed_max_join_jump']:.4f}",
        ),
        _row(
            "smallest per-turn largest jump inside speech",
            j["engine_max_inside_speech_jump_min"],
            j["naive_raw_max_inside_speech_jump_min"],
        ),
        _row(
            "loudness spread across units, max (dB)",
            j["engine_loudness_spread_db_max"],
            _pair(j, "naive_raw_loudness_spread_db_max", "naive_trimmed_loudness_spread_db_max"),
        ),
        _row(
            "loudness spread across units, mean (dB)",
            j["engine_loudness_spread_db_mean"],
            _pair(j, "naive_raw_loudness_spread_db_mean", "naive_trimmed_loudness_spread_db_mean"),
        ),
        _section("timeline plot (one turn, virtual clock)"),
        _row("first frame / naive first audio (ms)", plot["first_frame_ms"], plot["naive_first_audio_ms"]),
        _row("units / underruns", f"{plot['units']} / {plot['underruns']}"),
        "",
        f"JSON: {report['json_path']}",
        f"PNG:  {plot['png_path']}",
    ]
    return "\n".join(lines)


def _trial_row(kind: str, t: dict[str, Any]) -> str:
    label = f"  {kind} {t['sessions']} calls, {t['duration_s']:g} s: late frames"
    ff = (
        f"first frame p50/p99 {t['first_frame_under_load_ms_p50']:.0f}/"
        f"{t['first_frame_under_load_ms_p99']:.0f} ms"
        if t["first_frame_under_load_turns"]
        else "no turn began in the window"
    )
    detail = (
        f"{t['late_frames_text_starved']} text-starved; {ff}; {t['runtime_jobs_run']} jobs, "
        f"{t['runtime_compute_s']:.1f} s compute, queue <= {t['runtime_max_queue_depth']}"
    )
    return _row(label, t["late_frames"], None, None, detail)


def print_table(report: Report) -> None:
    print(format_table(report), file=sys.stdout, flush=True)
