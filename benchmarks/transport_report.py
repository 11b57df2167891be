"""The report of ``transport_bench.py``: its table and its timeline plot, from the JSON it writes.

    print(table(report))                     # one row per transport, p50 / max
    plot(report, Path("transport_timeline.png"))

Pure functions of the report dict (no I/O but the PNG); benchmark scaffolding, never imported by
the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def table(report: dict[str, Any]) -> str:
    def cell(section: dict[str, Any], key: str) -> str:
        s = section[key]
        return "-" if s["p50"] is None else f"{s['p50']:.1f} / {s['max']:.1f}"

    web, tel = report["webrtc"], report["telephony"]
    web_after = max(r["packets_after_barge_in"] for r in web["turns"])
    web_begun = max(r["frames_begun_after_barge_in"] for r in web["turns"])
    tel_cut = [r for r in tel["turns"] if "frames_sent_after_barge_in" in r]
    tel_after = max((r["frames_sent_after_barge_in"] for r in tel_cut), default=0)
    tel_media = sum(r["media_after_clear"] for r in tel_cut)
    lines = [
        f"{'transport':<34}{'1st frame -> 1st packet ms':>28}{'barge-in -> last packet ms':>28}"
        "  after barge-in",
        f"{'':<34}{'p50 / max':>28}{'p50 / max':>28}",
        f"{'WebRTC (engine track, aiortc/Opus)':<34}{cell(web, 'first_frame_to_first_packet_ms'):>28}"
        f"{cell(web, 'barge_in_to_last_packet_ms'):>28}  <= {web_after} packets of the frame playing, "
        f"{web_begun} frames begun (+ the 80 ms fade tail)",
        f"{'Telephony (/twilio, mu-law 8 kHz)':<34}{cell(tel, 'first_frame_to_first_packet_ms'):>28}"
        f"{cell(tel, 'barge_in_to_last_packet_ms'):>28}  <= {tel_after} frames in flight, "
        f"{tel_media} media after clear, {tel['cleared_frames']} frames dropped by clear",
    ]
    return "\n".join(lines)


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(11, 5.5), sharex=False)
    panels = [
        ("WebRTC: engine track over aiortc (one answer, barge-in)", report["webrtc"]["timeline"]),
        (
            "Telephony: /twilio with a simulated carrier (one answer, barge-in)",
            report["telephony"]["timeline"],
        ),
    ]
    for ax, (title, tl) in zip(axes, panels, strict=True):
        rows = [
            ("engine frames", tl["engine_frames"], "tab:blue"),
            ("packets sent", tl["packets"], "tab:green"),
            ("received", tl["received"], "tab:orange"),
        ]
        if "marks" in tl:
            rows.append(("marks echoed", tl["marks"], "tab:purple"))
        for y, (label, xs, color) in enumerate(rows):
            ax.scatter(xs, [y] * len(xs), marker="|", s=120, color=color, label=label)
        ax.axvline(tl["barge_in"], color="red", linestyle="--", label="barge-in")
        ax.set_yticks(range(len(rows)), [r[0] for r in rows])
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("seconds from the answer's command / first engine frame")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


__all__ = ["plot", "table"]
