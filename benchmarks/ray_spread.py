"""How a burst of calls spreads over Ray replicas: ``python benchmarks/ray_spread.py [--runs 5]``.

Each run starts ``warmline serve --ray --replicas 2`` afresh, waits until both replicas report,
then ``--bursts`` times opens ``--calls`` WebSockets at once, reads the replica each names in its
``ready``, and closes them all (waiting until no session is left before the next burst). Prints
each burst's split, e.g. ``4+4``, and writes ``bench-out/ray_spread.json``. A split is even when
no replica holds more than one call above the fair share (8 on 2: 4+4 or 5+3).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/ray_spread.py``

import soak  # noqa: E402  (each server a process of its own, logging to a file)
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

SERVE = ("serve", "--ray", "--replicas", "2", "--replica-cpus", "0.25")
WAIT_S = 300.0
soak.WAIT_S = WAIT_S  # a local Ray and two models start slowly on a loaded machine


def health(address: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://{address}/healthz", timeout=10) as resp:
        body: dict[str, Any] = json.loads(resp.read())
        return body


def wait_for(address: str, ok: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            if ok(health(address)["replicas"]):
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"timed out waiting until {what}")


async def burst(url: str, calls: int) -> list[str]:
    """Open ``calls`` WebSockets at once; the replica of each; then close them all."""

    async def one() -> tuple[ClientConnection, str]:
        ws = await connect(url, open_timeout=60)
        return ws, str(json.loads(await asyncio.wait_for(ws.recv(), 60))["replica"])

    opened = await asyncio.gather(*(one() for _ in range(calls)))
    await asyncio.gather(*(ws.close() for ws, _ in opened))
    return [replica for _, replica in opened]


def split(replicas: list[str], names: list[str]) -> list[int]:
    counts = Counter(replicas)
    return sorted((counts.get(name, 0) for name in names), reverse=True)


def even(counts: list[int]) -> bool:
    fair = sum(counts) / len(counts)
    return all(abs(count - fair) <= 1 for count in counts)


def main() -> int:
    p = argparse.ArgumentParser(description="How bursts of calls spread over two Ray replicas.")
    p.add_argument("--runs", type=int, default=5, help="server starts (default 5)")
    p.add_argument("--bursts", type=int, default=5, help="bursts a run (default 5)")
    p.add_argument("--calls", type=int, default=8, help="calls a burst (default 8)")
    p.add_argument("--out", default="bench-out", help="folder for ray_spread.json (default bench-out)")
    args = p.parse_args()
    runs: list[list[list[int]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            with soak.server(f"ray-{run}", Path(tmp), *SERVE) as srv:
                wait_for(srv.address, lambda reps: len(reps) == 2, "both replicas report")
                names = [r["replica"] for r in health(srv.address)["replicas"]]
                splits = []
                for _ in range(args.bursts):
                    replicas = asyncio.run(burst(f"ws://{srv.address}/ws", args.calls))
                    splits.append(split(replicas, names))
                    wait_for(srv.address, lambda reps: all(r["connections"] == 0 for r in reps), "calls end")
                    time.sleep(1.0)  # the replicas' reports and Serve's stats catch up
                runs.append(splits)
                print(f"run {run + 1}: " + "  ".join("+".join(map(str, s)) for s in splits), flush=True)
    bursts = [s for splits in runs for s in splits]
    uneven = [s for s in bursts if not even(s)]
    print(f"{len(bursts) - len(uneven)} of {len(bursts)} bursts of {args.calls} even on 2 replicas")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ray_spread.json").write_text(json.dumps({"calls": args.calls, "runs": runs}, indent=2))
    return 0 if not uneven else 1


if __name__ == "__main__":
    sys.exit(main())
