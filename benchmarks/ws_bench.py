"""The WebSocket server as its clients see it: ``python benchmarks/ws_bench.py [--quick]``.

Starts ``warmline serve`` in a subprocess (so clients and server do not share an event loop) and
measures, from real ``websockets`` clients on 127.0.0.1:

* first-frame latency: command sent to first binary frame received, p50/p99 over sequential turns;
* pause: binary frames received after ``pause`` was sent, before ``paused`` (target: at most 1);
* capacity: the largest number of concurrent clients, each speaking continuously, with zero late
  frames (a frame arriving after the client's playback would have run dry), ramped with short
  trials and confirmed for ``--confirm-s`` (60 s; target 48 or more). Late frames are counted by
  the clients and by the server (``warmline_ws_late_frames_total``); both must be zero;
* memory: the server's RSS per connection (idle, and speaking).

Prints a table and writes ``bench-out/ws_bench.json``. Numbers depend on the machine and on what
else runs on it: run the full version on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
FRAME_S = 0.08
SENTENCE = "Hello there, how are you doing today?"
LONG_TEXT = (
    "I can help you with that, let me check the schedule for tomorrow. Thank you for waiting, your "
    "table is ready now. The train leaves at half past nine from the second platform. "
) * 6


@dataclass(slots=True)
class Server:
    """The ``warmline serve`` subprocess and where it listens."""

    proc: subprocess.Popen[str]
    port: int

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(match.group(1)) if match else 0

    def late_frames(self) -> float:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as resp:
            text = resp.read().decode()
        match = re.search(r"^warmline_ws_late_frames_total (\S+)$", text, flags=re.M)
        return float(match.group(1)) if match else 0.0


def start_server(max_sessions: int) -> Server:
    cmd = [sys.executable, "-m", "agent.cli", "serve", "--port", "0", "--max-sessions", str(max_sessions)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for _ in range(50):
        line = proc.stdout.readline()
        match = re.search(r"127\.0\.0\.1:(\d+)/", line)
        if match:
            return Server(proc, int(match.group(1)))
    proc.kill()
    raise RuntimeError("warmline serve did not start")


async def ready(ws: ClientConnection) -> None:
    event = json.loads(await ws.recv())
    assert event["event"] == "ready", event


async def until_event(ws: ClientConnection, name: str) -> int:
    """Frames received until event ``name``."""
    frames = 0
    while True:
        message = await asyncio.wait_for(ws.recv(), 60)
        if isinstance(message, bytes):
            frames += 1
        elif json.loads(message)["event"] == name:
            return frames


async def first_frame_latency(url: str, turns: int) -> list[float]:
    """Seconds from start sent to first frame received, for ``turns`` sequential turns."""
    out = []
    async with connect(url) as ws:
        await ready(ws)
        for _ in range(turns):
            t0 = time.perf_counter()
            await ws.send(json.dumps({"cmd": "start", "text": SENTENCE}))
            message = await asyncio.wait_for(ws.recv(), 60)
            assert isinstance(message, bytes), message
            out.append(time.perf_counter() - t0)
            await until_event(ws, "done")
    return out


async def frames_after_pause(url: str, trials: int) -> list[int]:
    """Binary frames that arrived after pause was sent, per trial."""
    out = []
    rng = np.random.default_rng(0)
    async with connect(url) as ws:
        await ready(ws)
        for _ in range(trials):
            await ws.send(json.dumps({"cmd": "start", "text": LONG_TEXT}))
            for _ in range(int(rng.integers(4, 16))):
                while not isinstance(await asyncio.wait_for(ws.recv(), 60), bytes):
                    pass
            await ws.send(json.dumps({"cmd": "pause"}))
            out.append(await until_event(ws, "paused"))
            await ws.send(json.dumps({"cmd": "reset"}))
            await until_event(ws, "reset")
    return out


@dataclass(slots=True)
class TrialStats:
    """What the clients of one capacity trial saw."""

    clients: int
    duration_s: float
    frames: int = 0
    late_client: int = 0
    late_server: float = 0.0
    failed_clients: int = 0
    first_frame_s: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.late_client == 0 and self.late_server == 0 and self.failed_clients == 0


async def speaking_client(url: str, stats: TrialStats, warm_at: float, stop_at: float) -> None:
    """Speak continuously until ``stop_at``, counting frames that come after playback ran dry."""
    try:
        async with connect(url) as ws:
            await ready(ws)
            sent = time.monotonic()
            await ws.send(json.dumps({"cmd": "start", "text": LONG_TEXT}))
            play_end: float | None = None
            streaming = False
            while time.monotonic() < stop_at:
                message = await asyncio.wait_for(ws.recv(), 30)
                now = time.monotonic()
                if isinstance(message, bytes):
                    if not streaming:
                        stats.first_frame_s.append(now - sent)
                    if play_end is None or now > play_end:
                        if streaming and now > warm_at:
                            stats.late_client += 1
                        play_end = now + FRAME_S
                    else:
                        play_end += FRAME_S
                    streaming = True
                    stats.frames += 1
                elif json.loads(message)["event"] == "done":
                    streaming = False
                    sent = time.monotonic()
                    await ws.send(json.dumps({"cmd": "start", "text": LONG_TEXT}))
    except (OSError, TimeoutError, AssertionError, ConnectionError) as exc:
        print(f"  client failed: {type(exc).__name__} {exc}", file=sys.stderr)
        stats.failed_clients += 1


async def capacity_trial(
    url: str, late_frames: Callable[[], float], clients: int, duration_s: float, *, settle_s: float = 0.0
) -> TrialStats:
    """``clients`` speaking at once for ``duration_s`` after a short warm-up; ``late_frames`` reads
    the server's count (read ``settle_s`` after the clients stop: metrics that lag need it)."""
    stats = TrialStats(clients, duration_s)
    warm_s = min(2.0, duration_s / 3)
    start = time.monotonic()
    warm_at, stop_at = start + warm_s, start + warm_s + duration_s
    tasks = [
        asyncio.create_task(speaking_client(url, stats, warm_at, stop_at), name=f"bench-client-{i}")
        for i in range(clients)
    ]
    await asyncio.sleep(warm_s)
    late_before = await asyncio.to_thread(late_frames)
    await asyncio.gather(*tasks)
    await asyncio.sleep(settle_s)
    stats.late_server = await asyncio.to_thread(late_frames) - late_before
    return stats


Trial = Callable[[int, float], Awaitable[TrialStats]]


async def find_capacity(
    trial: Trial, *, max_clients: int, trial_s: float, confirm_s: float
) -> tuple[list[TrialStats], TrialStats | None]:
    """Ramp ``trial(clients, seconds)`` up until one has a late frame, then confirm the largest
    passing number for ``confirm_s`` (the next one down, if it fails). The ramp, and the
    confirmation that passed (None: none did)."""
    ramp: list[TrialStats] = []
    for n in [n for n in (8, 16, 24, 32, 48, 64, 96, 128, 192, 256) if n <= max_clients]:
        stats = await trial(n, trial_s)
        ramp.append(stats)
        print(f"  {n:4d} clients x {trial_s:.0f} s: late {stats.late_client}/{stats.late_server:g} "
              f"(client/server), {stats.frames} frames, failed {stats.failed_clients}")  # fmt: skip
        if not stats.ok:
            break
    passing = [s.clients for s in ramp if s.ok]
    while passing:
        n = passing.pop()
        confirmed = await trial(n, confirm_s)
        print(
            f"  confirm {n} clients x {confirm_s:.0f} s: late {confirmed.late_client}/"
            f"{confirmed.late_server:g} (client/server), failed {confirmed.failed_clients}"
        )
        if confirmed.ok:
            return ramp, confirmed
    return ramp, None


async def memory_per_connection(server: Server, clients: int) -> dict[str, float]:
    """Server RSS growth per connection, idle (connected) and speaking."""
    await asyncio.sleep(0.5)
    base = server.rss_kib()

    async def open_one() -> ClientConnection:
        return await connect(server.url)

    sockets = list(await asyncio.gather(*(open_one() for _ in range(clients))))
    try:
        for ws in sockets:
            await ready(ws)
        await asyncio.sleep(0.5)
        idle = server.rss_kib()
        for ws in sockets:
            await ws.send(json.dumps({"cmd": "start", "text": LONG_TEXT}))
        for ws in sockets:
            for _ in range(5):
                while not isinstance(await asyncio.wait_for(ws.recv(), 60), bytes):
                    pass
        speaking = server.rss_kib()
    finally:
        for ws in sockets:
            await ws.close()
    return {
        "clients": clients,
        "base_rss_kib": base,
        "idle_kib_per_connection": (idle - base) / clients,
        "speaking_kib_per_connection": (speaking - base) / clients,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server = start_server(max_sessions=max(args.max_clients, 64) + 8)
    try:
        results: dict[str, Any] = {"quick": args.quick, "cpus": os.cpu_count()}
        lat = await first_frame_latency(server.url, 10 if args.quick else 50)
        results["first_frame_ms"] = {
            "p50": float(np.percentile(lat, 50) * 1000),
            "p99": float(np.percentile(lat, 99) * 1000),
            "turns": len(lat),
        }
        after = await frames_after_pause(server.url, 5 if args.quick else 20)
        results["frames_after_pause"] = {
            "max": max(after),
            "mean": float(np.mean(after)),
            "trials": len(after),
        }

        # memory first, while the allocator has not yet grown to the capacity trials' high water
        results["memory"] = await memory_per_connection(server, 32 if args.quick else 64)

        trial_s = 3.0 if args.quick else 10.0

        async def trial(clients: int, duration_s: float) -> TrialStats:
            return await capacity_trial(server.url, server.late_frames, clients, duration_s)

        ramp, confirmed = await find_capacity(
            trial, max_clients=args.max_clients, trial_s=trial_s, confirm_s=args.confirm_s
        )
        best = max((s.clients for s in ramp if s.ok), default=0)
        results["capacity"] = {
            "ramp": [{k: v for k, v in asdict(s).items() if k != "first_frame_s"} for s in ramp],
            "best_trial_clients": best,
            "confirmed_clients": confirmed.clients if confirmed else 0,
            "confirm_s": args.confirm_s,
            "first_frame_ms_p99_under_load": (
                float(np.percentile(confirmed.first_frame_s, 99) * 1000)
                if confirmed and confirmed.first_frame_s
                else None
            ),
        }
        return results
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)


def print_table(r: dict[str, Any]) -> None:
    cap, mem = r["capacity"], r["memory"]
    lat, pause = r["first_frame_ms"], r["frames_after_pause"]
    rows = [
        ("first-frame latency p50 / p99", f"{lat['p50']:.1f} / {lat['p99']:.1f} ms ({lat['turns']} turns)"),
        ("frames after pause sent (max / mean)", f"{pause['max']} / {pause['mean']:.2f} (target <= 1)"),
        ("clients, zero late frames (ramp)", f"{cap['best_trial_clients']}"),
        (f"clients, zero late frames ({cap['confirm_s']:.0f} s)", f"{cap['confirmed_clients']} (target 48+)"),
        (
            "RSS per connection idle / speaking",
            f"{mem['idle_kib_per_connection']:.0f} / {mem['speaking_kib_per_connection']:.0f} KiB "
            f"({mem['clients']} connections)",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"\nWarmline WebSocket server ({'quick' if r['quick'] else 'full'}, {r['cpus']} CPUs)")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")


def main() -> int:
    p = argparse.ArgumentParser(description="Benchmark `warmline serve` from real WebSocket clients.")
    p.add_argument("--out", default="bench-out", help="folder for ws_bench.json (default bench-out)")
    p.add_argument("--quick", action="store_true", help="3 s trials, 5 s confirmation, up to 64 clients")
    p.add_argument("--confirm-s", type=float, default=None, help="confirmation run length (default 60)")
    p.add_argument("--max-clients", type=int, default=None, help="ramp no further (default 256; quick 64)")
    args = p.parse_args()
    args.confirm_s = args.confirm_s or (5.0 if args.quick else 60.0)
    args.max_clients = args.max_clients or (64 if args.quick else 256)
    results = asyncio.run(run(args))
    print_table(results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ws_bench.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out / 'ws_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
