"""How well the default STT hears phone callers, and how far its confidence can be trusted.

    python benchmarks/stt_bench.py [--out bench-out]

Every utterance of both ``v2v_sets`` caller sets (questions, barge-ins, backchannels, and each
hesitation's two halves), through the mu-law line, resampled as ``agent.stt`` does and decoded
one after another by pocketsphinx's general model, as one call's decoder hears them. Per set:

* the word error rate (WER), for the decoder's settings side by side: the cepstral mean carried
  from utterance to utterance (the service's default) or restarted for each one, from today's
  narrowband starting mean or pocketsphinx's own, with or without the second (flat) pass, with
  or without the bounds on the search's size (``agent.stt.GENERAL_MODEL_OPTIONS``);
* how the word posteriors (``agent.turn_taking.confidence``) separate right words from wrong
  ones: the share of each above ``TRUST``, and their ratio; and how many utterances the
  turn-taking trusts (``Heard.trusted``), and of those how many had their last word right;
* seconds of CPU per second of audio, and how long the decoder takes to finish an utterance
  (``end_utt``: the wait between the VAD's stop and the final transcript).

Writes ``<out>/stt_bench.json``. The figures are properties of the recognizer and the callers, not
of the machine, but for the CPU ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from v2v_sets import CALLER_SETS, CallerSet  # noqa: E402

from agent.stt import (  # noqa: E402
    DECODER_SAMPLE_RATE,
    GENERAL_MODEL_OPTIONS,
    NARROWBAND_CMN_INIT,
    clean_hypothesis,
    normalize_phrase,
    restart,
)
from agent.turn_taking.confidence import TRUST, Heard  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.engine.resample import resample_pcm16  # noqa: E402

RATE = 8000
#: pocketsphinx's own starting mean, for comparison
POCKETSPHINX_CMN_INIT = "40,3,-1"
#: (starting mean, restarted at each utterance, the decoder's own options)
SETTINGS: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "the service's (carried, one pass)": (NARROWBAND_CMN_INIT, False, dict(GENERAL_MODEL_OPTIONS)),
    "restarted each utterance": (NARROWBAND_CMN_INIT, True, dict(GENERAL_MODEL_OPTIONS)),
    "pocketsphinx's starting mean": (POCKETSPHINX_CMN_INIT, False, dict(GENERAL_MODEL_OPTIONS)),
    "with the second (flat) pass": (NARROWBAND_CMN_INIT, False, {**GENERAL_MODEL_OPTIONS, "fwdflat": True}),
    "without the search's bounds": (NARROWBAND_CMN_INIT, False, {"fwdflat": False}),
}


def utterances(backend: HibariBackend, callers: CallerSet) -> list[tuple[str, np.ndarray]]:
    """(what was said, how the line carried it) for every utterance of ``callers``."""
    out: list[tuple[str, np.ndarray]] = []
    k = 0
    for text in (*callers.ask, *callers.barge, *callers.backchannel):
        out.append((text, callers.voice(k).speak(backend, text)))
        k += 1
    for first, _, rest in callers.hesitate:
        voice = callers.voice(k)
        k += 1
        out += [(first, voice.speak(backend, first)), (rest, voice.speak(backend, rest))]
    return [(text, g711.decode(g711.encode(pcm))) for text, pcm in out]


def decode(decoder: Any, line: np.ndarray) -> tuple[list[tuple[str, float]], float]:
    """One utterance, fed in 20 ms pieces with 0.3 s of silence around it: its words and
    posteriors, and the seconds ``end_utt`` took (what a caller waits for after the VAD's stop)."""
    pad = np.zeros(int(0.3 * RATE), np.int16)
    audio = resample_pcm16(np.concatenate([pad, line, pad]), RATE, DECODER_SAMPLE_RATE).tobytes()
    decoder.start_utt()
    for i in range(0, len(audio), 640):
        decoder.process_raw(audio[i : i + 640], False, False)
    began = time.perf_counter()
    decoder.end_utt()
    ended_s = time.perf_counter() - began
    return [
        (clean_hypothesis(s.word), float(s.prob))
        for s in decoder.seg()
        if clean_hypothesis(s.word) and not s.word.startswith(("<", "["))
    ], ended_s


def aligned(ref: list[str], hyp: list[str]) -> tuple[int, list[bool]]:
    """The edit distance, and for each hypothesis word whether it matches the reference word it
    aligns with."""
    n, m = len(ref), len(hyp)
    cost = np.zeros((n + 1, m + 1), np.int32)
    cost[:, 0], cost[0, :] = np.arange(n + 1), np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i, j] = min(
                cost[i - 1, j] + 1, cost[i, j - 1] + 1, cost[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1])
            )
    right = [False] * m
    i, j = n, m
    while i > 0 and j > 0:
        if cost[i, j] == cost[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]):
            right[j - 1] = ref[i - 1] == hyp[j - 1]
            i, j = i - 1, j - 1
        elif cost[i, j] == cost[i - 1, j] + 1:
            i -= 1
        else:
            j -= 1
    return int(cost[n, m]), right


def run(backend: HibariBackend) -> dict[str, Any]:
    from pocketsphinx import Decoder

    report: dict[str, Any] = {}
    for name, callers in CALLER_SETS.items():
        said = utterances(backend, callers)
        audio_s = sum(len(line) for _, line in said) / RATE
        rows: dict[str, Any] = {}
        for setting, (cmn, restarted, options) in SETTINGS.items():
            decoder = Decoder(logfn="/dev/null", cmninit=cmn, **options)
            finish_s: list[float] = []
            errors = words = 0
            right_p: list[float] = []
            wrong_p: list[float] = []
            trusted = trusted_last_right = 0  # utterances ``Heard.trusted`` takes, and of those
            # the ones whose last word (the one an ending's cue reads) was right
            began = time.process_time()
            for text, line in said:
                if restarted:
                    restart(decoder, cmn)
                heard, ended_s = decode(decoder, line)
                finish_s.append(ended_s)
                ref = normalize_phrase(text).split()
                distance, right = aligned(ref, [w for w, _ in heard])
                errors += distance
                words += len(ref)
                for (_, p), ok in zip(heard, right, strict=True):
                    (right_p if ok else wrong_p).append(p)
                if Heard.of(heard).trusted(TRUST):
                    trusted += 1
                    trusted_last_right += right[-1]
            rows[setting] = {
                "wer": errors / words,
                "words_right": len(right_p),
                "words_wrong": len(wrong_p),
                "right_above_trust": float(np.mean([p >= TRUST for p in right_p])) if right_p else None,
                "wrong_above_trust": float(np.mean([p >= TRUST for p in wrong_p])) if wrong_p else None,
                "utterances_trusted": trusted,
                "trusted_last_word_right": trusted_last_right,
                "cpu_per_audio_s": (time.process_time() - began) / audio_s,
                "end_utt_p50_s": float(np.median(finish_s)),
                "end_utt_p90_s": float(np.quantile(finish_s, 0.9)),
            }
        report[name] = {"utterances": len(said), "audio_s": audio_s, "settings": rows}
    return report


def print_report(report: dict[str, Any]) -> None:
    sets = list(report)
    print(f"{'pocketsphinx general model, 8 kHz line':<58}" + "".join(f"{s:>26}" for s in sets))
    for setting in SETTINGS:
        print(
            f"{'WER, ' + setting:<58}"
            + "".join(f"{report[s]['settings'][setting]['wer']:>26.2f}" for s in sets)
        )
    for setting in SETTINGS:
        cells = [
            f"{report[s]['settings'][setting]['end_utt_p50_s'] * 1000:.0f} / "
            f"{report[s]['settings'][setting]['end_utt_p90_s'] * 1000:.0f}"
            for s in sets
        ]
        print(f"{'end_utt ms p50/p90, ' + setting:<58}" + "".join(f"{c:>26}" for c in cells))
    default = next(iter(SETTINGS))
    for label, key in (
        ("right words above TRUST", "right_above_trust"),
        ("wrong words above TRUST", "wrong_above_trust"),
    ):
        cells = []
        for s in sets:
            row = report[s]["settings"][default]
            cells.append(f"{row[key]:.2f} of {row['words_right' if 'right' in key else 'words_wrong']}")
        print(f"{label + f' ({TRUST})':<58}" + "".join(f"{c:>26}" for c in cells))
    ratios = []
    for s in sets:
        row = report[s]["settings"][default]
        ratio = (
            row["right_above_trust"] / row["wrong_above_trust"] if row["wrong_above_trust"] else float("inf")
        )
        ratios.append(f"{ratio:.1f}x")
    print(f"{'  right / wrong':<58}" + "".join(f"{r:>26}" for r in ratios))
    cells = []
    for s in sets:
        row = report[s]["settings"][default]
        cells.append(
            f"{row['utterances_trusted']}/{report[s]['utterances']}, "
            f"{row['trusted_last_word_right']} last word right"
        )
    print(f"{'utterances trusted (Heard.trusted)':<58}" + "".join(f"{c:>26}" for c in cells))
    for setting in SETTINGS:
        print(
            f"{'CPU s per audio s, ' + setting:<58}"
            + "".join(f"{report[s]['settings'][setting]['cpu_per_audio_s']:>26.3f}" for s in sets)
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    backend = HibariBackend()
    backend.load()
    report = run(backend)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "stt_bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {args.out / 'stt_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
