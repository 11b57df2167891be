"""Memory of ``warmline serve`` under hostile text: RSS before, at the peak and after each one.

    python benchmarks/hostile_memory.py [--texts combining,capitals] [--ws-listen-s 8] [--check]
                                        [--out bench-out]

Starts a real ``warmline serve`` (hibari) on 127.0.0.1 and an ephemeral port, as its own process,
warms it with one ordinary request on each route, then sends each hostile text (10,000
characters, the default ``--max-turn-chars``: a letter and a combining accent, unspaced capitals,
digit runs, emoji, a letter under thousands of marks, mixed scripts, one long word, a code block,
and ordinary prose to compare) through:

* ``POST /v1/audio/speech`` (``pcm``, SSE): the whole body is read, as fast as the server sends it;
* a WebSocket ``start``: the audio is read for ``--ws-listen-s`` seconds (the server paces it at
  real time, and a turn may make ``--max-turn-audio-s``: ten minutes), then ``reset``.

Around each request the server's RSS is read from ``/proc``: before, the peak (``VmHWM`` after
``clear_refs`` reset it, so the peak of that request alone) and after (once the request is over
and the server has settled). Figures are also given as ratios to the baseline, the RSS after the
warm-up. Prints a table and writes ``<out>/hostile_memory.json``. With ``--check`` it exits 1
unless every text peaks under ``+200 MB`` and ends within 10 % of the baseline (issue 30's bar).
Linux only (``/proc``). Every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import platform
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/hostile_memory.py``

from websockets.asyncio.client import connect  # noqa: E402

from tts_service.benchmark.calls import PARAGRAPHS  # noqa: E402

SIZE = 10_000  # characters of each text: the default --max-turn-chars
PEAK_BAR_MB = 200.0
AFTER_BAR = 0.10
START_TIMEOUT_S = 180.0
REQUEST_TIMEOUT_S = 300.0
SETTLE_S = 1.0


def _fill(piece: str) -> str:
    return (piece * (SIZE // len(piece) + 1))[:SIZE]


TEXTS: dict[str, str] = {
    "combining": "e\u0301" * (SIZE // 2),
    "capitals": _fill("ABC"),
    "digits": "7" * SIZE,
    "digit sentences": _fill("Your code is " + "1" * 40 + ". "),
    "emoji": "\U0001f642" * SIZE,
    "zalgo": "h" + "\u0301" * (SIZE - 1),
    "mixed scripts": _fill("Добрый день 你好世界 مرحبا שלום こんにちは Γειά σου नमस्ते "),
    "long word": _fill("supercalifragilistic"),
    "code block": "```\n" + _fill("x = 1\n")[: SIZE - 8] + "\n```",
    "prose": _fill(" ".join(PARAGRAPHS) + " "),
}
assert all(len(text) == SIZE for text in TEXTS.values())


# -- the server process -------------------------------------------------------------------------


class Server:
    """``warmline serve`` as a child process, and its memory as ``/proc`` tells it."""

    def __init__(self, extra_args: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [
            sys.executable,
            "-m",
            "agent.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            *extra_args,
        ]
        self.proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self.address = self._wait_for_banner()

    def _wait_for_banner(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            found = re.search(r"serving on http://([\d.]+:\d+)/", line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError("warmline serve did not start")

    def rss_mb(self) -> float:
        return self._status_kb("VmRSS") / 1024

    def reset_peak(self) -> None:
        with open(f"/proc/{self.proc.pid}/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS

    def peak_mb(self) -> float:
        return self._status_kb("VmHWM") / 1024

    def _status_kb(self, field: str) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise RuntimeError(f"no {field} for the server")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


# -- one request on each route --------------------------------------------------------------------


def speech(address: str, text: str) -> dict[str, Any]:
    """One ``/v1/audio/speech`` request (``pcm`` in SSE events, so an error after the audio began
    is named), read whole: status, error code, audio seconds."""
    body = {
        "model": "tts-1",
        "voice": "alloy",
        "input": text,
        "response_format": "pcm",
        "stream_format": "sse",
    }
    request = urllib.request.Request(
        f"http://{address}/v1/audio/speech",
        data=json.dumps(body, ensure_ascii=False).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    received = 0
    code: str | None = None
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            status = response.status
            while line := response.readline():
                if not line.startswith(b"data: "):
                    continue
                event = json.loads(line[6:])
                if event["type"] == "speech.audio.delta":
                    received += len(base64.b64decode(event["audio"]))
                elif event["type"] == "error":
                    code = event["error"]["code"]
    except urllib.error.HTTPError as exc:
        status = exc.code
        code = json.loads(exc.read())["error"]["code"]
    return {"status": status, "code": code, "audio_s": round(received / 2 / 24000, 1)}


async def ws_turn(address: str, text: str, listen_s: float) -> dict[str, Any]:
    """One WebSocket ``start``: audio and events for at most ``listen_s``, then ``reset``."""
    samples = 0
    events: list[str] = []
    async with connect(f"ws://{address}/ws", max_size=None) as ws:
        await asyncio.wait_for(ws.recv(), 30)  # ready
        await ws.send(json.dumps({"cmd": "start", "text": text}, ensure_ascii=False))
        deadline = time.monotonic() + listen_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(ws.recv(), left)
            except TimeoutError:
                break
            if isinstance(message, bytes):
                samples += int.from_bytes(message[:4], "little")
                continue
            event = json.loads(message)
            events.append(event["event"] if event["event"] != "error" else f"error {event.get('code')}")
            if event["event"] == "done":
                break
        await ws.send(json.dumps({"cmd": "reset"}))
    return {"events": sorted(set(events)), "audio_s": round(samples / 24000, 1)}


def measure(server: Server, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    before = server.rss_mb()
    server.reset_peak()
    started = time.monotonic()
    result = run()
    elapsed = time.monotonic() - started
    # the request's peak counts its start: RSS can fall between the first reading and the reset
    peak = max(before, server.peak_mb(), server.rss_mb())
    time.sleep(SETTLE_S)
    after = server.rss_mb()
    return {
        **result,
        "seconds": round(elapsed, 1),
        "rss_before_mb": before,
        "rss_peak_mb": peak,
        "rss_after_mb": after,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", default=",".join(TEXTS), help=f"comma-separated, of: {', '.join(TEXTS)}")
    parser.add_argument("--ws-listen-s", type=float, default=8.0)
    parser.add_argument("--serve-args", default="", help="more `warmline serve` flags, one string")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every text meets issue 30's bar")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    names = [n.strip() for n in args.texts.split(",") if n.strip()]
    unknown = [n for n in names if n not in TEXTS]
    if unknown or not names:
        parser.error(f"unknown texts: {unknown}; choose from {list(TEXTS)}")
    if not Path("/proc/self/status").exists():
        parser.error("this benchmark reads /proc: Linux only")

    server = Server(args.serve_args.split())
    rows: list[dict[str, Any]] = []
    try:
        idle = server.rss_mb()
        speech(server.address, "Warming up the speech route.")
        asyncio.run(ws_turn(server.address, "Warming up the WebSocket.", 10.0))
        time.sleep(SETTLE_S)
        baseline = server.rss_mb()
        for name in names:
            text = TEXTS[name]
            for route, run in (
                ("openai", lambda t=text: speech(server.address, t)),
                ("ws", lambda t=text: asyncio.run(ws_turn(server.address, t, args.ws_listen_s))),
            ):
                row = {"text": name, "route": route, **measure(server, run)}
                row["peak_over_baseline_mb"] = round(row["rss_peak_mb"] - baseline, 1)
                row["peak_ratio"] = round(row["rss_peak_mb"] / baseline, 3)
                row["after_ratio"] = round(row["rss_after_mb"] / baseline, 3)
                row["meets_bar"] = (
                    row["peak_over_baseline_mb"] < PEAK_BAR_MB and row["after_ratio"] <= 1 + AFTER_BAR
                )
                for key in ("rss_before_mb", "rss_peak_mb", "rss_after_mb"):
                    row[key] = round(row[key], 1)
                rows.append(row)
                print_row(row)
        final = server.rss_mb()
    finally:
        server.stop()

    result = {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "text_chars": SIZE,
        "serve_args": args.serve_args,
        "ws_listen_s": args.ws_listen_s,
        "rss_idle_mb": round(idle, 1),
        "rss_baseline_mb": round(baseline, 1),
        "rss_final_mb": round(final, 1),
        "bar": {"peak_over_baseline_mb": PEAK_BAR_MB, "after_ratio": 1 + AFTER_BAR},
        "max_peak_over_baseline_mb": max(r["peak_over_baseline_mb"] for r in rows),
        "max_after_ratio": max(r["after_ratio"] for r in rows),
        "all_meet_bar": all(r["meets_bar"] for r in rows),
        "rows": rows,
    }
    print(
        f"baseline {baseline:.0f} MB (idle {idle:.0f}); "
        f"worst peak +{result['max_peak_over_baseline_mb']:.0f} MB, "
        f"worst after x{result['max_after_ratio']:.3f}, final {final:.0f} MB; "
        f"{'every text meets' if result['all_meet_bar'] else 'NOT every text meets'} the bar "
        f"(+{PEAK_BAR_MB:.0f} MB peak, within {AFTER_BAR:.0%} after)"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hostile_memory.json").write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out / 'hostile_memory.json'}")
    return 1 if args.check and not result["all_meet_bar"] else 0


def print_row(row: dict[str, Any]) -> None:
    outcome = (
        f"{row['status']} {row['code'] or ''}".strip()
        if row["route"] == "openai"
        else " ".join(row["events"])
    )
    print(
        f"  {row['text']:<16} {row['route']:<6} {row['audio_s']:>6.1f} s audio in {row['seconds']:>5.1f} s  "
        f"RSS {row['rss_before_mb']:>5.0f} -> peak {row['rss_peak_mb']:>5.0f} "
        f"(+{row['peak_over_baseline_mb']:.0f}, x{row['peak_ratio']:.2f}) "
        f"-> {row['rss_after_mb']:>5.0f} (x{row['after_ratio']:.3f})  {outcome}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
