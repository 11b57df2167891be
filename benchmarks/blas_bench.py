"""What numpy's spinning BLAS pool costs the agent at a caller's pause: ``python benchmarks/blas_bench.py``.

At each pause the agent runs two models at once: whisper tiny.en transcribes the utterance so far
(``agent.stt.tiny``, on the recognizer's thread) while Smart Turn scores it (Pipecat's analyzer,
on its own thread), and the turn's verdict waits for both. Both compute their features with a
small numpy matrix product, after which numpy's OpenBLAS threads spin for about 0.1 s: on a
2-core machine a spinning thread takes the core the other model needs. This runs the two side by
side, as at a pause, on phone-line utterances of both ``v2v_sets`` caller sets (every question,
barge-in and hesitation's first part, in the voices the caller sets give them), with numpy's pool
as it comes and with one thread (``agent.blas.one_blas_thread``, which the agent's server holds),
interleaved utterance by utterance so that both see the same machine. Prints each model's wall
time per utterance, p50 and p90, and the ratios one thread / pool; writes ``<out>/blas_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from v2v_sets import CALLER_SETS, RATE  # noqa: E402

from agent.blas import blas_threads, one_blas_thread  # noqa: E402
from agent.stt.tiny_model import SAMPLE_RATE, load_tiny_whisper  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.dsp import float_to_pcm16, pcm16_to_float  # noqa: E402
from tts_service.engine.resample import resample_pcm16  # noqa: E402
from tts_service.pipecat.compat import shared_smart_turn_analyzer  # noqa: E402

#: the audio each model is given: 0.3 s of line quiet, the utterance, the 60 ms of quiet after
#: which the agent hears a pause
BEFORE_S = 0.3
AFTER_S = 0.06
#: Smart Turn is fed in the transport's 20 ms frames
FRAME_S = 0.02
MODES = ("pool", "one thread")


def utterances(backend: HibariBackend) -> list[tuple[str, np.ndarray]]:
    """(text, float32 at 16 kHz through the mu-law line) for both caller sets' turns."""
    out: list[tuple[str, np.ndarray]] = []
    for callers in CALLER_SETS.values():
        texts = [*callers.ask, *callers.barge, *(first for first, _, _ in callers.hesitate)]
        for k, text in enumerate(texts):
            line = g711.decode(g711.encode(callers.voice(k).speak(backend, text)))
            padded = np.concatenate(
                [np.zeros(int(BEFORE_S * RATE), np.int16), line, np.zeros(int(AFTER_S * RATE), np.int16)]
            )
            out.append((text, pcm16_to_float(resample_pcm16(padded, RATE, SAMPLE_RATE))))
    return out


async def at_a_pause(samples: np.ndarray) -> tuple[float, float]:
    """Whisper and Smart Turn on ``samples`` at once, as at a pause: each one's wall seconds."""
    whisper = load_tiny_whisper()
    analyzer = shared_smart_turn_analyzer()
    analyzer.set_sample_rate(SAMPLE_RATE)
    pcm = float_to_pcm16(samples).astype("<i2").tobytes()
    step = int(FRAME_S * SAMPLE_RATE) * 2
    for i in range(0, len(pcm), step):
        analyzer.append_audio(pcm[i : i + step], is_speech=i < len(pcm) - int(AFTER_S * SAMPLE_RATE) * 2)
    loop = asyncio.get_running_loop()

    async def transcribe() -> float:
        began = time.perf_counter()
        await loop.run_in_executor(None, whisper.transcribe, samples)
        return time.perf_counter() - began

    async def score() -> float:
        began = time.perf_counter()
        await analyzer.analyze_end_of_turn()  # on the analyzer's own thread
        return time.perf_counter() - began

    try:
        whisper_s, smart_turn_s = await asyncio.gather(transcribe(), score())
    finally:
        await analyzer.cleanup()
    return whisper_s, smart_turn_s


async def run(said: list[tuple[str, np.ndarray]], rounds: int) -> dict[str, dict[str, list[float]]]:
    times: dict[str, dict[str, list[float]]] = {m: {"whisper": [], "smart turn": []} for m in MODES}
    await at_a_pause(said[0][1])  # warm both models and the threads
    for _ in range(rounds):
        for k, (_, samples) in enumerate(said):
            # alternate which mode goes first, so neither always follows the other
            for mode in MODES if k % 2 == 0 else MODES[::-1]:
                if mode == "pool":
                    whisper_s, smart_turn_s = await at_a_pause(samples)
                else:
                    with one_blas_thread():
                        whisper_s, smart_turn_s = await at_a_pause(samples)
                times[mode]["whisper"].append(whisper_s)
                times[mode]["smart turn"].append(smart_turn_s)
    return times


def summary(times: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, models in times.items():
        out[mode] = {
            model: {"p50_ms": 1000 * float(np.median(v)), "p90_ms": 1000 * float(np.percentile(v, 90))}
            for model, v in models.items()
        }
    out["ratio one thread / pool"] = {
        model: {q: out["one thread"][model][q] / out["pool"][model][q] for q in ("p50_ms", "p90_ms")}
        for model in ("whisper", "smart turn")
    }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="times through the utterances (default 1)")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    backend = HibariBackend()
    backend.load()
    said = utterances(backend)
    pool = blas_threads()
    with one_blas_thread():
        limited = blas_threads()
    print(f"{len(said)} utterances; BLAS threads: pool {pool}, limited {limited}")
    times = asyncio.run(run(said, args.rounds))
    report = summary(times)
    print(f"{'':24}{'whisper p50':>12}{'p90':>8}{'Smart Turn p50':>16}{'p90':>8}   (ms, side by side)")
    for mode in (*MODES, "ratio one thread / pool"):
        row = report[mode]
        cells = [row[m][q] for m in ("whisper", "smart turn") for q in ("p50_ms", "p90_ms")]
        digits = 2 if mode.startswith("ratio") else 0
        widths = (12, 8, 16, 8)
        print(f"{mode:24}" + "".join(f"{c:>{w}.{digits}f}" for c, w in zip(cells, widths, strict=True)))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "blas_bench.json"
    report_json = {"blas_threads": {"pool": pool, "limited": limited}, "summary": report, "times_s": times}
    path.write_text(json.dumps(report_json, indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
