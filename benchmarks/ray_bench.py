"""One process against two Ray Serve replicas: ``python benchmarks/ray_bench.py [--quick]``.

Starts ``warmline serve`` and then ``warmline serve --ray --replicas 2`` on this machine, in
turn, and for each finds the most concurrent callers that speak continuously with zero late
frames (``ws_bench``'s clients: a frame arriving after the caller's playback ran dry is late, as
counted by the clients and by every replica's ``warmline_ws_late_frames_total``), ramped with
short trials and confirmed for ``--confirm-s`` (60 s). Also the first-frame latency of sequential
turns through each, since Ray adds its HTTP proxy between the caller and the replica.

Both setups share the machine's cores, so the ratio says what the proxy and a second model cost
here; on a cluster each replica would have its own. Prints a table and writes
``bench-out/ray_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/ray_bench.py``

from soak import server  # noqa: E402  (each server a process of its own, logging to a file)
from websockets.asyncio.client import connect  # noqa: E402
from ws_bench import SENTENCE, TrialStats, capacity_trial, find_capacity  # noqa: E402

SETUPS = {
    "one process": ("serve",),
    "two Ray replicas": ("serve", "--ray", "--replicas", "2", "--replica-cpus", "0.25"),
}


def late_frames(address: str) -> float:
    """Late frames on every replica (samples with or without a ``replica`` label)."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    return sum(
        float(v) for v in re.findall(r"^warmline_ws_late_frames_total(?:\{[^}]*\})? (\S+)$", text, re.M)
    )


async def first_frame_ms(url: str, turns: int) -> list[float]:
    out: list[float] = []
    async with connect(url) as ws:
        json.loads(await ws.recv())
        for _ in range(turns):
            sent = time.monotonic()
            await ws.send(json.dumps({"cmd": "start", "text": SENTENCE}))
            first = True
            while True:
                message = await asyncio.wait_for(ws.recv(), 60)
                if isinstance(message, bytes):
                    if first:
                        out.append((time.monotonic() - sent) * 1000)
                        first = False
                elif json.loads(message)["event"] == "done":
                    break
    return out


async def capacity(address: str, args: argparse.Namespace) -> dict[str, Any]:
    async def trial(clients: int, duration_s: float) -> TrialStats:
        # replicas report their metrics twice a second: read the count a second after the clients
        return await capacity_trial(
            f"ws://{address}/ws", lambda: late_frames(address), clients, duration_s, settle_s=1.0
        )

    ramp, confirmed = await find_capacity(
        trial, max_clients=args.max_clients, trial_s=args.trial_s, confirm_s=args.confirm_s
    )
    return {
        "confirmed_callers": confirmed.clients if confirmed else 0,
        "confirm_s": args.confirm_s,
        "ramp": [s.clients for s in ramp],
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"cpus": os.cpu_count(), "quick": args.quick, "setups": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in SETUPS.items():
            print(f"  {name}:")
            with server(name.replace(" ", "-"), Path(tmp), *argv, "--max-sessions", "300") as srv:
                first = await first_frame_ms(f"ws://{srv.address}/ws", args.turns)
                row = {"first_frame_ms_p50": statistics.median(first), "first_frame_ms_max": max(first)}
                row.update(await capacity(srv.address, args))
                results["setups"][name] = row
    one, ray = results["setups"]["one process"], results["setups"]["two Ray replicas"]
    results["callers_ratio"] = (
        ray["confirmed_callers"] / one["confirmed_callers"] if one["confirmed_callers"] else None
    )
    results["first_frame_ratio"] = ray["first_frame_ms_p50"] / one["first_frame_ms_p50"]
    return results


def main() -> int:
    p = argparse.ArgumentParser(description="warmline serve: one process vs two Ray Serve replicas.")
    p.add_argument("--out", default="bench-out", help="folder for ray_bench.json (default bench-out)")
    p.add_argument("--quick", action="store_true", help="3 s trials, 10 s confirmation, up to 96 callers")
    p.add_argument("--confirm-s", type=float, default=None, help="confirmation run (default 60 s)")
    p.add_argument("--max-clients", type=int, default=None, help="ramp no further (default 256)")
    args = p.parse_args()
    args.trial_s = 3.0 if args.quick else 10.0
    args.confirm_s = args.confirm_s or (10.0 if args.quick else 60.0)
    args.max_clients = args.max_clients or (96 if args.quick else 256)
    args.turns = 5 if args.quick else 20
    results = asyncio.run(measure(args))
    print(
        f"\nzero-late-frame callers for {args.confirm_s:.0f} s, and first frame p50 (same run, this machine)"
    )
    for name, row in results["setups"].items():
        print(
            f"  {name:18s} {row['confirmed_callers']:4d} callers   "
            f"first frame {row['first_frame_ms_p50']:.0f} ms"
        )
    ratio = results["callers_ratio"]
    print(f"  two replicas / one process: callers x{ratio:.2f}" if ratio is not None else "  (no baseline)")
    print(f"  first frame x{results['first_frame_ratio']:.2f}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ray_bench.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
