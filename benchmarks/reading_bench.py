"""How well and how fast the reading stage reads: accuracy by category, and the time it adds.

    python benchmarks/reading_bench.py [--out reading-bench.json] [--first-frame]

Accuracy: every written item of ``reading_sets`` goes through ``preview`` (what ``warmline speak
--dry-run`` prints: the text the model receives) and counts when it matches one of the spoken
forms people use. TUNE is what the reader was developed on; HELD_OUT was never tuned on.
Time: p50/p95 of the speakable stage per unit, plain and number-heavy, against today's path
(markdown cleaning only, what the default backend got before) in the same run. ``--first-frame``
also times inject-to-first-frame of a first unit on the embedded voice, with and without reading.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reading_sets import HELD_OUT, TUNE

from tts_service.backends import create_backend
from tts_service.engine import speakable
from tts_service.engine.reading import Reading
from tts_service.engine.reading.preview import preview
from tts_service.engine.segmenter import Boundary, Unit
from tts_service.engine.speakable import SpeakableStage
from tts_service.engine.textclean import clean_for_speech

_NUMBER_WORDS = set(
    [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
    ]
)
PLAIN = [
    "Sure, I can help you with that today.",
    "Let me check your account and get back to you in a moment.",
    "Thanks for your patience while I look into this for you.",
    "Is there anything else I can help you with?",
]
NUMBER_HEAVY = [
    "Your total is $2,418.07, due 03/15/2024; call 415-555-0188 or email billing@acme.com.",
    "Flight UA123 leaves Tue at 7:05pm from gate B12, seat 14C, confirmation 4410-AZ.",
    "Ship to 123 Main St, Austin, TX 78701 by 5pm, about 10-15% off $3.4B.",
    "Open Mon-Fri 9am–6pm; dial 0800 123 456, PIN 0091, code 482913.",
]


def normalize(text: str) -> str:
    """Lower case, no punctuation or hyphens, "oh" as "zero", "a.m." as "am"; "and" between numbers goes."""
    text = text.lower().replace("-", " ").replace("’", "'")
    text = re.sub(r"\b([ap])\.? ?m\b\.?", r"\1m", text)
    text = re.sub(r"[^\w\s']", " ", text)
    words = ["zero" if w == "oh" else w for w in text.split()]
    kept = [
        w
        for i, w in enumerate(words)
        if not (
            w == "and"
            and 0 < i < len(words) - 1
            and words[i - 1] in _NUMBER_WORDS
            and words[i + 1] in _NUMBER_WORDS
        )
    ]
    return " ".join(kept)


def parse(block: str) -> list[tuple[str, str, list[str]]]:
    items = []
    for line in block.strip().splitlines():
        category, written, spoken = (part.strip() for part in line.split(" | ", 2))
        items.append((category, written, [s.strip() for s in spoken.split("||")]))
    return items


def accuracy(block: str, caps: object) -> tuple[dict[str, list[int]], list[tuple[str, str, str]]]:
    by_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for category, written, spoken in parse(block):
        got = preview(written, caps)  # type: ignore[arg-type]
        ok = normalize(got) in {normalize(s) for s in spoken}
        by_cat[category][0] += ok
        by_cat[category][1] += 1
        if not ok:
            misses.append((category, written, got))
    return dict(by_cat), misses


def _per_unit_ms(texts: list[str], caps: object, *, reading: bool, rounds: int) -> list[float]:
    stage = SpeakableStage(caps)  # type: ignore[arg-type]
    times = []
    for _ in range(rounds):
        for text in texts:
            unit = Unit(text, 0, Boundary.SENTENCE)
            t0 = time.perf_counter()
            if reading:
                stage.take([unit])
            else:
                clean_for_speech(text)  # today's path for the default backend
            times.append((time.perf_counter() - t0) * 1000)
    return times


def _stats(times: list[float]) -> dict[str, float]:
    q = statistics.quantiles(times, n=20)
    return {"p50_ms": round(statistics.median(times), 4), "p95_ms": round(q[18], 4)}


def first_frame_ms(rounds: int) -> dict[str, dict[str, float]]:
    from tts_service.engine.session import EngineSession, SessionConfig
    from tts_service.engine.types import SpeechFrame

    backend = create_backend("hibari")
    backend.load()
    text = "Your total is $2,418.07, and I can send it to jane.doe@mail.org today."
    original = speakable.read

    def measure() -> float:
        """Text in to the first 80 ms frame out: the first unit read, synthesized and framed."""
        session = EngineSession(backend, SessionConfig(seed=1))
        t0 = time.perf_counter()
        session.start(text)
        session.flush()
        while not any(isinstance(o, SpeechFrame) for o in session.drain()):
            job = session.next_job()
            if job is None:
                break
            session.complete(job.run())
        elapsed = (time.perf_counter() - t0) * 1000
        session.close()
        return elapsed

    def as_written(text: str, language: str = "en", **_: object) -> Reading:
        words = tuple(text.split())
        return Reading(text, words, tuple(1 for _ in words))

    out: dict[str, list[float]] = {"today": [], "reading": []}
    measure()  # warm the model
    for _ in range(rounds):  # alternated, so load on the machine hits both alike
        speakable.read = as_written  # type: ignore[assignment]
        out["today"].append(measure())
        speakable.read = original
        out["reading"].append(measure())
    return {k: {"p50_ms": round(statistics.median(v), 1)} for k, v in out.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="reading-bench.json")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--first-frame", action="store_true", help="also time the first frame (loads hibari)")
    parser.add_argument("--first-frame-rounds", type=int, default=21, help="rounds of each path (default 21)")
    args = parser.parse_args()
    caps = create_backend("hibari").capabilities
    result: dict[str, object] = {}
    for name, block in (("tune", TUNE), ("held_out", HELD_OUT)):
        by_cat, misses = accuracy(block, caps)
        right = sum(v[0] for v in by_cat.values())
        total = sum(v[1] for v in by_cat.values())
        result[name] = {"right": right, "total": total, "by_category": by_cat, "misses": misses}
        print(f"{name}: {right}/{total} ({100 * right / total:.1f} %)")
        for cat, (ok, n) in sorted(by_cat.items()):
            print(f"  {cat:10s} {ok:3d}/{n:<3d} ({100 * ok / n:.0f} %)")
    timing = {}
    for label, texts in (("plain", PLAIN), ("number_heavy", NUMBER_HEAVY)):
        today = _stats(_per_unit_ms(texts, caps, reading=False, rounds=args.rounds))
        new = _stats(_per_unit_ms(texts, caps, reading=True, rounds=args.rounds))
        timing[label] = {
            "today": today,
            "reading": new,
            "added_p50_ms": round(new["p50_ms"] - today["p50_ms"], 4),
        }
        print(
            f"{label}: today p50 {today['p50_ms']:.3f} ms, with reading p50 {new['p50_ms']:.3f} ms "
            f"(p95 {new['p95_ms']:.3f}); added {timing[label]['added_p50_ms']:.3f} ms per unit"
        )
    result["per_unit"] = timing
    if args.first_frame:
        ff = first_frame_ms(rounds=args.first_frame_rounds)
        result["first_frame"] = ff
        print(
            f"first frame (hibari, CPU): today {ff['today']['p50_ms']} ms, "
            f"with reading {ff['reading']['p50_ms']} ms"
        )
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
