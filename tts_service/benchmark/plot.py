"""The timeline PNG of one streamed turn: tokens, units, synthesis, frames and the waveform.

Three panels share one time axis in seconds from the first token: the event rows of the whole
turn, the audio as the listener heard it with every unit edge (join) marked, and the event rows
again, zoomed on the first moments, where first-clause streaming shows. Uses matplotlib's Agg
backend (no display). Never measures anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from tts_service.benchmark.simulate import FRAME_S, TOKENS_PER_S, TurnTrace

_ROWS = {"LLM tokens": 3.0, "unit text ready": 2.0, "synthesis (model)": 1.0, "frames out (80 ms)": 0.0}
_COLORS = {
    "tokens": "#555555",
    "ready": "#d62728",
    "synth": "#1f77b4",
    "frames": "#2ca02c",
    "join": "#ff7f0e",
}


def _event_rows(ax: Any, trace: TurnTrace, *, labels: bool) -> None:
    half = 0.3
    ax.vlines(
        trace.token_times_s,
        _ROWS["LLM tokens"] - half,
        _ROWS["LLM tokens"] + half,
        color=_COLORS["tokens"],
        linewidth=0.8,
    )
    ready = [t for t, _ in trace.unit_ready_s]
    ax.plot(ready, [_ROWS["unit text ready"]] * len(ready), "v", color=_COLORS["ready"], markersize=7)
    if labels:
        for t, text in trace.unit_ready_s:
            short = text if len(text) <= 28 else text[:26] + "…"
            ax.annotate(
                short,
                (t, _ROWS["unit text ready"]),
                xytext=(3, 7),
                textcoords="offset points",
                fontsize=7,
                color=_COLORS["ready"],
                rotation=12,
            )
    y = _ROWS["synthesis (model)"]
    ax.broken_barh(
        [(a, max(b - a, 0.004)) for a, b, _ in trace.synth_spans_s],
        (y - half, 2 * half),
        facecolors=_COLORS["synth"],
    )
    ax.vlines(trace.frame_times_s, -half, half, color=_COLORS["frames"], linewidth=0.8)
    ax.set_yticks(list(_ROWS.values()), list(_ROWS))
    ax.set_ylim(-0.7, 3.9)
    ax.grid(axis="x", alpha=0.3)


def _waveform(ax: Any, trace: TurnTrace) -> None:
    n = len(trace.frames[0]) if trace.frames else 0
    for t0, samples in zip(trace.frame_times_s, trace.frames, strict=True):
        ax.plot(t0 + np.arange(n) / trace.sample_rate, samples, color="#333333", linewidth=0.4)
    for k, (start, end) in enumerate(trace.unit_spans):
        label = "unit edge (join)" if k == 0 else None
        for edge in (start, end):
            ax.axvline(
                trace.sample_time_s(edge), color=_COLORS["join"], linewidth=1.0, alpha=0.9, label=label
            )
            label = None
    ax.set_ylabel("amplitude")
    ax.set_ylim(-1.0, 1.0)
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)


def plot_turn(trace: TurnTrace, path: Path) -> Path:
    """Write the timeline of ``trace`` to ``path`` (PNG) and return it."""
    fig, (top, wave, zoom) = plt.subplots(
        3, 1, figsize=(14, 9.5), gridspec_kw={"height_ratios": [1.3, 1.0, 1.3]}, constrained_layout=True
    )
    first = trace.frame_times_s[0] if trace.frame_times_s else 0.0
    end = (trace.frame_times_s[-1] + FRAME_S) if trace.frame_times_s else 1.0
    _event_rows(top, trace, labels=True)
    top.set_xlim(-0.02, end)
    top.set_title("Whole turn: tokens, units, synthesis and frames (virtual clock; compute measured)")
    _waveform(wave, trace)
    wave.set_xlim(-0.02, end)
    wave.set_title(
        f"Audio as the listener hears it ({len(trace.unit_spans)} units, {trace.underruns} underruns)"
    )
    _event_rows(zoom, trace, labels=True)
    naive = trace.naive_first_audio_s
    zoom.set_xlim(-0.01, min(end, max(first, naive) + 0.25))
    for t, color, label in (
        (first, _COLORS["frames"], "warmline first frame"),
        (naive, "#9467bd", "naive stitching first audio"),
    ):
        zoom.axvline(t, color=color, linestyle="--", linewidth=1.2)
        zoom.annotate(
            f"{label}: {t * 1000:.0f} ms",
            (t, 3.6),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize=8,
            color=color,
        )
    zoom.set_title("Zoom on the start: the first clause plays before the first sentence is even complete")
    zoom.set_xlabel("time since the first token (s)")
    text = trace.text if len(trace.text) <= 110 else trace.text[:108] + "…"
    fig.suptitle(
        f"Warmline: one streamed turn at {TOKENS_PER_S:.0f} tokens/s (hibari, 24 kHz)\n“{text}”", fontsize=11
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
