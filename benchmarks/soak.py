"""Soak: mixed traffic against ``warmline serve`` and ``warmline call`` for a long time; nothing leaks.

    python benchmarks/soak.py [--minutes 60] [--ws-clients 8] [--calls 2] [--out bench-out]

Both servers run as processes of their own, as deployed (``warmline serve --port 0``, ``warmline
call --port 0 --demo-grammar``). Against ``serve``, ``--ws-clients`` clients each connect, pick an
encoding (PCM or mu-law), a rate and a mode (whole utterances or streamed tokens), speak a few
turns of a random kind (a whole turn; a barge-in that resumes; one that resets; utterances queued
behind one another; a turn cut by the client vanishing) and disconnect, over and over. Against
``call``, ``--calls`` simulated Twilio callers (``transports.twilio.carrier``) each ask a
question, hear the answer (sometimes talking over it, sometimes saying "uh huh") and hang up, over
and over.

The baseline is each server idle after ``--warmup-s`` of the same traffic (lazily built parts,
allocator arenas); the warm-up must outlast the call server's rise to its working level (about
8 minutes with 2 callers: see the plot), so an hour's run wants ``--warmup-s 600``. The final
reading is each idle again after the soak. Figures: RSS growth (final over baseline), threads,
descriptors and asyncio tasks against baseline (from the servers' ``/metrics``), client-visible
errors, the error lines each server logged (what no client sees: a call's recognizer failing),
the WebSocket server's late frames, turns and calls done. Writes ``<out>/soak.json`` and
``<out>/soak.png`` (RSS and counts over time), each sample to ``<out>/soak_series.jsonl`` as it
is taken, and each server's output to ``<out>/<name>.log``; a server that cannot answer
``/metrics`` within ``METRICS_TIMEOUT_S`` is recorded as such, not a crash of the soak. Exits 0;
``tests/test_soak.py`` runs a minute of it in CI and asserts from the JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/soak.py``

sys.path.insert(0, str(ROOT / "benchmarks"))  # its traffic, beside it

from soak_traffic import BACKCHANNEL, BARGE_IN, QUESTIONS, WAIT_S, traffic  # noqa: E402

from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.speech import spoken_pcm  # noqa: E402

#: how long one /metrics request may take (a server that cannot answer it is a finding)
METRICS_TIMEOUT_S = 30.0
#: the metrics the soak reads from each server's /metrics
GAUGES = {
    "rss_mb": "process_resident_memory_bytes",
    "fds": "process_open_fds",
    "threads": "warmline_threads",
    "tasks": "warmline_asyncio_tasks",
}


# -- the servers ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Server:
    name: str
    proc: subprocess.Popen[str]
    address: str

    def metrics(self) -> dict[str, float]:
        with urllib.request.urlopen(f"http://{self.address}/metrics", timeout=METRICS_TIMEOUT_S) as resp:
            text = resp.read().decode()
        values: dict[str, float] = {}
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
        return values

    def reading(self) -> dict[str, float]:
        started = time.monotonic()
        m = self.metrics()
        out = {key: m.get(metric, float("nan")) for key, metric in GAUGES.items()}
        out["rss_mb"] /= 1e6
        out["late_frames"] = m.get("warmline_ws_late_frames_total", 0.0)
        out["server_errors"] = sum(v for k, v in m.items() if k.startswith("warmline_ws_errors_total"))
        out["busy"] = m.get("warmline_ws_sessions", 0.0) + sum(
            v for k, v in m.items() if k.startswith("warmline_agent_calls{")
        )
        out["metrics_s"] = round(time.monotonic() - started, 3)
        return out

    def reading_or_error(self) -> dict[str, Any]:
        """``reading``, or what went wrong getting it (a slow or silent server is recorded, and the
        soak goes on)."""
        started = time.monotonic()
        try:
            return self.reading()
        except OSError as exc:
            return {"error": f"{type(exc).__name__}: {exc}", "after_s": round(time.monotonic() - started, 1)}


@contextlib.contextmanager
def server(name: str, out: Path, *argv: str) -> Any:
    """Run ``warmline <argv>`` with its output in ``<out>/<name>.log``, read for its address.

    A pipe nobody reads would fill with an hour of log lines and block the server's writes: the
    server would hang, and the soak would measure that instead of the server.
    """
    log_path = out / f"{name}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", *argv, "--port", "0"],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        yield Server(name, proc, address_in(log_path, proc))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def address_in(log_path: Path, proc: subprocess.Popen[str]) -> str:
    """The ``host:port`` the server prints once it listens (its log until then, if it dies)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        match = re.search(r"http://([^/\s]+)/", log_path.read_text())
        if match is not None:
            return match.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"{log_path.stem} did not start:\n{log_path.read_text()[-4000:]}")


#: an ERROR or CRITICAL line in a server's log: ``warmline``'s logging ("<date> <time> ERROR
#: <logger>: ...") or Pipecat's loguru ("... | ERROR    | ..."); a client never sees these
LOG_ERROR = re.compile(r"^\S+ \S+ (?:ERROR|CRITICAL) |\| (?:ERROR|CRITICAL) +\|")


def log_errors(log_path: Path, *, keep: int = 20) -> dict[str, Any]:
    """How many error lines the server logged, and the first ``keep`` of them."""
    lines = [line for line in log_path.read_text(errors="replace").splitlines() if LOG_ERROR.search(line)]
    return {"count": len(lines), "first": lines[:keep]}


# -- the traffic ----------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def sampling(
    servers: list[Server], every_s: float, series: list[dict[str, Any]], log: TextIO
) -> AsyncIterator[None]:
    """Sample every server every ``every_s`` into ``series``, each row also written to ``log``
    as it is taken (a soak that dies keeps what it saw)."""
    t0 = time.monotonic()

    async def sample() -> None:
        while True:
            row: dict[str, Any] = {"t_s": round(time.monotonic() - t0, 1)}
            for s in servers:
                row[s.name] = await asyncio.to_thread(s.reading_or_error)
            series.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()
            await asyncio.sleep(every_s)

    task = asyncio.create_task(sample(), name="soak-sampler")
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def idle_reading(s: Server) -> dict[str, Any]:
    """The server's reading once it has been idle (no session, no call) for two seconds (or the
    error of the last try, after a minute of them)."""
    reading: dict[str, Any] = {}
    for _ in range(600):
        reading = await asyncio.to_thread(s.reading_or_error)
        if reading.get("busy") == 0:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(2.0)
    for _ in range(3):
        reading = await asyncio.to_thread(s.reading_or_error)
        if "error" not in reading:
            break
    return reading


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out)
    backend = HibariBackend()
    backend.load()
    audio = {
        text: g711.encode(spoken_pcm(backend, text, 8000)).tobytes()
        for text in (*QUESTIONS, BARGE_IN, BACKCHANNEL)
    }
    with server("serve", out, "serve") as serve, server("call", out, "call", "--demo-grammar") as call:
        servers = [serve, call]
        series: list[dict[str, Any]] = []
        t0 = time.monotonic()
        async with sampling(servers, args.sample_s, series, args.series_log):
            started = {s.name: await asyncio.to_thread(s.reading) for s in servers}
            warm = await traffic(
                serve.address,
                call.address,
                ws_clients=args.ws_clients,
                calls=args.calls,
                audio=audio,
                seconds=args.warmup_s,
                seed=1,
            )
            baseline = {s.name: await idle_reading(s) for s in servers}
            began = time.monotonic()
            soak_began_s = began - t0
            tally = await traffic(
                serve.address,
                call.address,
                ws_clients=args.ws_clients,
                calls=args.calls,
                audio=audio,
                seconds=args.minutes * 60,
                seed=2,
            )
            soaked_s = time.monotonic() - began
            final = {s.name: await idle_reading(s) for s in servers}
    logged = {name: log_errors(out / f"{name}.log") for name in ("serve", "call")}
    result: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "minutes": round(soaked_s / 60, 2),
        "soak_began_s": round(soak_began_s, 1),
        "ws_clients": args.ws_clients,
        "calls_at_once": args.calls,
        "started": started,
        "baseline": baseline,
        "final": final,
        "servers": {},
        "warmup_errors": warm.errors,
        "errors": tally.errors,
        "log_errors": logged,
        "turns": tally.turns,
        "connections": tally.connections,
        "calls": tally.calls,
        "series": series,
    }
    for name in ("serve", "call"):
        b, f = baseline[name], final[name]
        if "error" in b or "error" in f:  # the server could not be read: a finding, not a crash
            result["servers"][name] = {
                "error": b.get("error") or f.get("error"),
                "counts_back_to_baseline": False,
            }
            continue
        result["servers"][name] = {
            "rss_baseline_mb": round(b["rss_mb"], 1),
            "rss_final_mb": round(f["rss_mb"], 1),
            "rss_growth_pct": round(100 * (f["rss_mb"] - b["rss_mb"]) / b["rss_mb"], 2),
            "threads": [int(b["threads"]), int(f["threads"])],
            "fds": [int(b["fds"]), int(f["fds"])],
            "tasks": [int(b["tasks"]), int(f["tasks"])],
            "counts_back_to_baseline": all(int(b[k]) == int(f[k]) for k in ("threads", "fds", "tasks")),
            "late_frames": int(f["late_frames"] - b["late_frames"]),
        }
    return result


def print_table(r: dict[str, Any]) -> None:
    def pair(values: list[int]) -> str:
        return f"{values[0]}/{values[1]}"

    print(f"\nsoak: {r['minutes']} min, {r['ws_clients']} WebSocket clients, {r['calls_at_once']} callers")
    print(
        f"{'server':8} {'RSS MB base -> final':>22} {'growth':>8} {'threads':>9} {'fds':>9} {'tasks':>9} late"
    )
    for name, s in r["servers"].items():
        if "error" in s:
            print(f"{name:8} could not be read: {s['error']}")
            continue
        rss = f"{s['rss_baseline_mb']:.1f} -> {s['rss_final_mb']:.1f}"
        counts = f"{pair(s['threads']):>9} {pair(s['fds']):>9} {pair(s['tasks']):>9}"
        print(f"{name:8} {rss:>22} {s['rss_growth_pct']:>7.2f}% {counts} {s['late_frames']:>4}")
    logged = ", ".join(f"{name} {e['count']}" for name, e in r["log_errors"].items())
    errors = len(r["errors"])
    print(f"connections {r['connections']}, calls {r['calls']}, errors {errors}; logged errors: {logged}")
    print("turns: " + ", ".join(f"{k} {v}" for k, v in sorted(r["turns"].items())))
    for e in r["errors"][:10]:
        print(f"  error: {e}")
    for name, e in r["log_errors"].items():
        for line in e["first"][:5]:
            print(f"  {name} logged: {line[:200]}")


def plot(r: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    t = [row["t_s"] / 60 for row in r["series"]]
    for name in ("serve", "call"):
        rows = [row[name] for row in r["series"]]
        nan = float("nan")
        axes[0].plot(t, [x.get("rss_mb", nan) for x in rows], label=f"warmline {name}")
        axes[1].plot(t, [x.get("fds", nan) for x in rows], label=f"{name} descriptors")
        axes[1].plot(t, [x.get("tasks", nan) for x in rows], label=f"{name} asyncio tasks", ls="--")
    for ax in axes:
        ax.axvline(r["soak_began_s"] / 60, color="grey", lw=0.8, ls=":")
    axes[0].set_ylabel("RSS (MB)")
    axes[1].set_ylabel("count")
    axes[1].set_xlabel("minutes (warm-up, then the soak from the dotted line)")
    for ax in axes:
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Soak: {r['minutes']} min of mixed traffic")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--ws-clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=2, help="phone callers at once")
    parser.add_argument("--warmup-s", type=float, default=60.0)
    parser.add_argument("--sample-s", type=float, default=5.0)
    parser.add_argument("--out", default="bench-out")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "soak_series.jsonl").open("w") as series_log:
        args.series_log = series_log
        result = asyncio.run(soak(args))
    (out / "soak.json").write_text(json.dumps(result, indent=1))
    plot(result, out / "soak.png")
    print_table(result)
    print(f"\nwrote {out / 'soak.json'} and {out / 'soak.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
