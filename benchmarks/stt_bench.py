"""How well the agent's recognizers hear phone callers, and how far their confidence can be trusted.

    python benchmarks/stt_bench.py [--out bench-out] [--endings-only] [--whisper-variants]

Every utterance of both ``v2v_sets`` caller sets (questions, barge-ins, backchannels, and each
hesitation's two halves), through the mu-law line, resampled as ``agent.stt.sphinx`` does and decoded
one after another as one call's recognizer hears them: whisper tiny.en (the default,
``agent.stt.tiny_model``), and pocketsphinx's general model. Per set:

* the word error rate (WER) of whisper tiny.en, and of pocketsphinx's settings side by side: the
  cepstral mean carried
  from utterance to utterance (the service's default) or restarted for each one, from today's
  narrowband starting mean or pocketsphinx's own, with or without the second (flat) pass, with
  or without the bounds on the search's size (``agent.stt.sphinx.GENERAL_MODEL_OPTIONS``);
* how the word posteriors (``agent.turn_taking.confidence``) separate right words from wrong
  ones: the share of each above ``TRUST``, and their ratio; and how many utterances the
  turn-taking trusts (``Heard.trusted``), and of those how many had their last word right;
* how many of the hesitations' unfinished halves ("We are looking for") the turn end reads as
  unfinished (``TurnEndPolicy.unfinished``: the words, or the recognizer's own odds of an
  unfinished last word), and how many whole phrases it wrongly reads so;
* on ``v2v_sets.ENDINGS`` (phrases of neither set, three voices each: fragments that stop on an
  article, whole phrases that end on a pronoun), how many of each the turn end reads unfinished,
  whisper's odds of an article where it wrote a pronoun (``Heard.unfinished``), and for each bar
  of those odds how many of each it misreads: ``TurnEndPolicy.article_soundalike_probability`` is
  the bar that misreads the fewest (``--endings-only`` runs this part alone, in seconds);
* seconds of CPU per second of audio, and how long the recognizer takes to finish an utterance
  (pocketsphinx's ``end_utt``, whisper's whole transcription: the wait between the VAD's stop and
  the final transcript, unless whisper already ran at the caller's pause);
* with ``--whisper-variants``, the same for whisper in other settings (``WHISPER_VARIANTS``: two
  threads, other compute types, less silence after the phrase): its time at a pause is on every
  answer's path, and each setting is weighed by its words and by how many halves and whole
  phrases the turn end holds (read unfinished, or going on by whisper's own score).

Writes ``<out>/stt_bench.json``. The figures are properties of the recognizer and the callers, not
of the machine, but for the CPU ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from v2v_sets import CALLER_SETS, ENDINGS, CallerSet  # noqa: E402

from agent.blas import one_blas_thread  # noqa: E402
from agent.stt.sphinx import (  # noqa: E402
    DECODER_SAMPLE_RATE,
    GENERAL_MODEL_OPTIONS,
    NARROWBAND_CMN_INIT,
    clean_hypothesis,
    normalize_phrase,
    restart,
)
from agent.stt.tiny_model import SAMPLE_RATE as WHISPER_RATE  # noqa: E402
from agent.stt.tiny_model import TinyWhisper, load_tiny_whisper, model_dir  # noqa: E402
from agent.turn_taking.confidence import TRUST, Heard  # noqa: E402
from agent.turn_taking.cues import ends_on_article_soundalike, unfinished  # noqa: E402
from agent.turn_taking.policy import TurnEndPolicy  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.dsp import pcm16_to_float  # noqa: E402
from tts_service.engine.resample import resample_pcm16  # noqa: E402

RATE = 8000
#: pocketsphinx's own starting mean, for comparison
POCKETSPHINX_CMN_INIT = "40,3,-1"
#: the default recognizer's row
WHISPER = "whisper tiny.en (the default)"
#: ``--whisper-variants``: the default's alternatives (``TinyWhisper``'s keywords), each a row: is
#: there a faster whisper at the caller's pause that hears as well?
WHISPER_VARIANTS: dict[str, dict[str, Any]] = {
    "whisper, 2 threads": {"threads": 2},
    "whisper, float32": {"compute_type": "float32"},
    "whisper, int8_float32": {"compute_type": "int8_float32"},
    "whisper, 3 s of silence after": {"pad_s": 3.0},
    "whisper, 2 s of silence after": {"pad_s": 2.0},
    "whisper, 1 s of silence after": {"pad_s": 1.0},
}
#: pocketsphinx's rows: (starting mean, restarted at each utterance, the decoder's own options)
SETTINGS: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "pocketsphinx (carried, one pass)": (NARROWBAND_CMN_INIT, False, dict(GENERAL_MODEL_OPTIONS)),
    "restarted each utterance": (NARROWBAND_CMN_INIT, True, dict(GENERAL_MODEL_OPTIONS)),
    "pocketsphinx's starting mean": (POCKETSPHINX_CMN_INIT, False, dict(GENERAL_MODEL_OPTIONS)),
    "with the second (flat) pass": (NARROWBAND_CMN_INIT, False, {**GENERAL_MODEL_OPTIONS, "fwdflat": True}),
    "without the search's bounds": (NARROWBAND_CMN_INIT, False, {"fwdflat": False}),
}


def whisper_hears(line: np.ndarray, whisper: TinyWhisper | None = None) -> tuple[Heard, float]:
    """One utterance with 0.3 s of silence around it, as the STT service gives it to whisper
    (the agent's, unless ``whisper``): its words, and the seconds the transcription took."""
    pad = np.zeros(int(0.3 * RATE), np.int16)
    samples = pcm16_to_float(resample_pcm16(np.concatenate([pad, line, pad]), RATE, WHISPER_RATE))
    whisper = whisper or load_tiny_whisper()
    began = time.perf_counter()
    heard = whisper.transcribe(samples)
    return heard, time.perf_counter() - began


def whisper_variant(name: str) -> TinyWhisper:
    """The agent's whisper in one of ``WHISPER_VARIANTS``' settings, warmed as the agent's is."""
    whisper = TinyWhisper(model_dir(), **WHISPER_VARIANTS[name])
    whisper.transcribe(np.zeros(WHISPER_RATE // 2, np.float32))
    return whisper


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


@dataclass
class Tally:
    """One recognizer setting's figures over a caller set, utterance by utterance."""

    finish_s: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    errors: int = 0
    words: int = 0
    right_p: list[float] = field(default_factory=list)
    wrong_p: list[float] = field(default_factory=list)
    #: utterances ``Heard.trusted`` takes, and of those the ones whose last word (the one an
    #: ending's cue reads) was right
    trusted: int = 0
    trusted_last_right: int = 0
    halves: int = 0
    halves_unfinished: int = 0
    wholes_unfinished: int = 0
    #: read unfinished, or going on (whisper's score, a word left out): the turn end holds them
    halves_held: int = 0
    wholes_held: int = 0

    def add(self, policy: TurnEndPolicy, text: str, heard: Heard, ended_s: float, cpu_s: float) -> None:
        self.finish_s.append(ended_s)
        self.cpu_s += cpu_s
        ref = normalize_phrase(text).split()
        distance, right = aligned(ref, [w for w, _ in heard.words])
        self.errors += distance
        self.words += len(ref)
        for (_, p), ok in zip(heard.words, right, strict=True):
            (self.right_p if ok else self.wrong_p).append(p)
        if heard.trusted(TRUST):
            self.trusted += 1
            self.trusted_last_right += right[-1]
        reads_unfinished = policy.unfinished(heard.text, heard)
        held = reads_unfinished or policy.goes_on(heard, heard.text)
        if unfinished(text):
            self.halves += 1
            self.halves_unfinished += reads_unfinished
            self.halves_held += held
        else:
            self.wholes_unfinished += reads_unfinished
            self.wholes_held += held

    def row(self, audio_s: float) -> dict[str, Any]:
        right_p, wrong_p = self.right_p, self.wrong_p
        return {
            "wer": self.errors / self.words,
            "words_right": len(right_p),
            "words_wrong": len(wrong_p),
            "right_above_trust": float(np.mean([p >= TRUST for p in right_p])) if right_p else None,
            "wrong_above_trust": float(np.mean([p >= TRUST for p in wrong_p])) if wrong_p else None,
            "utterances_trusted": self.trusted,
            "trusted_last_word_right": self.trusted_last_right,
            "unfinished_halves": self.halves,
            "unfinished_halves_read_unfinished": self.halves_unfinished,
            "whole_phrases_read_unfinished": self.wholes_unfinished,
            "unfinished_halves_held": self.halves_held,
            "whole_phrases_held": self.wholes_held,
            "cpu_per_audio_s": self.cpu_s / audio_s,
            "end_utt_p50_s": float(np.median(self.finish_s)),
            "end_utt_p90_s": float(np.quantile(self.finish_s, 0.9)),
        }


def run(backend: HibariBackend, variants: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every setting on every utterance, the settings taking turns utterance by utterance: a
    shared machine that slows down for a minute slows them alike."""
    from pocketsphinx import Decoder

    whispers: dict[str, TinyWhisper | None] = {WHISPER: None} | {n: whisper_variant(n) for n in variants}
    policy = TurnEndPolicy()
    report: dict[str, Any] = {}
    for name, callers in CALLER_SETS.items():
        said = utterances(backend, callers)
        audio_s = sum(len(line) for _, line in said) / RATE
        decoders = {
            setting: Decoder(logfn="/dev/null", cmninit=cmn, **options)
            for setting, (cmn, _, options) in SETTINGS.items()
        }
        tallies = {setting: Tally() for setting in (*whispers, *SETTINGS)}
        for text, line in said:
            for setting, tally in tallies.items():
                began = time.process_time()
                if setting in whispers:
                    heard, ended_s = whisper_hears(line, whispers[setting])
                else:
                    cmn, restarted, _ = SETTINGS[setting]
                    if restarted:
                        restart(decoders[setting], cmn)
                    words_heard, ended_s = decode(decoders[setting], line)
                    heard = Heard.of(words_heard)
                tally.add(policy, text, heard, ended_s, time.process_time() - began)
        rows = {setting: tally.row(audio_s) for setting, tally in tallies.items()}
        report[name] = {"utterances": len(said), "audio_s": audio_s, "settings": rows}
    return report


#: ``article_soundalike_probability`` values the endings are read at: the figures it is chosen on
SOUNDALIKE_SWEEP = (0.0005, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01)


def endings(backend: HibariBackend) -> dict[str, Any]:
    """How the turn end reads ``ENDINGS`` through whisper: per kind (fragments, whole phrases), how
    many read unfinished, and the odds of an article where whisper wrote an article's soundalike;
    and, for each ``SOUNDALIKE_SWEEP`` value of ``article_soundalike_probability``, how many of
    each it would misread (a fragment read finished is a cut-in, a whole read unfinished a wait
    of the bound)."""
    policy = TurnEndPolicy()
    heard: dict[str, list[Heard]] = {"fragments": [], "wholes": []}
    for text, fragment, voice in ENDINGS.said():
        line = g711.decode(g711.encode(voice.speak(backend, text)))
        heard["fragments" if fragment else "wholes"].append(whisper_hears(line)[0])
    out: dict[str, Any] = {}
    for kind, said in heard.items():
        odds = [words.unfinished for words in said if ends_on_article_soundalike(words.text)]
        out[kind] = {
            "phrases": len(said),
            "read_unfinished": sum(policy.unfinished(words.text, words) for words in said),
            "soundalike_endings": len(odds),
            "soundalike_odds_min": min(odds, default=None),
            "soundalike_odds_p10": float(np.quantile(odds, 0.1)) if odds else None,
            "soundalike_odds_p50": float(np.median(odds)) if odds else None,
            "soundalike_odds_p90": float(np.quantile(odds, 0.9)) if odds else None,
            "soundalike_odds_max": max(odds, default=None),
        }
    sweep = []
    for threshold in SOUNDALIKE_SWEEP:
        at = replace(policy, article_soundalike_probability=threshold)
        fragments_missed = sum(not at.unfinished(words.text, words) for words in heard["fragments"])
        wholes_held = sum(at.unfinished(words.text, words) for words in heard["wholes"])
        sweep.append(
            {
                "article_soundalike_probability": threshold,
                "fragments_read_finished": fragments_missed,
                "wholes_read_unfinished": wholes_held,
                "misread": fragments_missed + wholes_held,
            }
        )
    out["sweep"] = sweep
    return out


def print_endings(report: dict[str, Any]) -> None:
    threshold = TurnEndPolicy().article_soundalike_probability
    print(f"endings (v2v_sets.ENDINGS, whisper): article_soundalike_probability {threshold}")
    for kind in ("fragments", "wholes"):
        row = report[kind]
        print(f"  {kind:<10} read unfinished {row['read_unfinished']}/{row['phrases']}", end="")
        if row["soundalike_endings"]:
            print(
                f"; written with a soundalike last {row['soundalike_endings']}, article odds"
                f" min {row['soundalike_odds_min']:.4f} p10 {row['soundalike_odds_p10']:.4f}"
                f" p50 {row['soundalike_odds_p50']:.4f} p90 {row['soundalike_odds_p90']:.4f}"
                f" max {row['soundalike_odds_max']:.4f}"
            )
        else:
            print()
    fragments, wholes = report["fragments"]["phrases"], report["wholes"]["phrases"]
    print("  article_soundalike_probability  fragments read finished  wholes read unfinished  misread")
    for row in report["sweep"]:
        mark = "  <- the policy's" if row["article_soundalike_probability"] == threshold else ""
        print(
            f"  {row['article_soundalike_probability']:>30.4f}"
            f"  {row['fragments_read_finished']:>16}/{fragments:<6}"
            f"  {row['wholes_read_unfinished']:>15}/{wholes:<6}  {row['misread']:>7}{mark}"
        )


#: a verdict's two keys of a row: the unfinished halves given it, and the whole phrases given it
READ_UNFINISHED = ("unfinished_halves_read_unfinished", "whole_phrases_read_unfinished")
HELD = ("unfinished_halves_held", "whole_phrases_held")


def _halves(row: dict[str, Any], halves: str, wholes: str) -> str:
    """ "12/13, 8 whole too": the unfinished halves counted under ``halves``, of all of them, and
    the whole phrases counted under ``wholes`` (``READ_UNFINISHED``, ``HELD``)."""
    return f"{row[halves]}/{row['unfinished_halves']}, {row[wholes]} whole too"


def print_report(report: dict[str, Any]) -> None:
    sets = list(report)
    rows = tuple(report[sets[0]]["settings"])
    print(f"{'8 kHz mu-law line':<58}" + "".join(f"{s:>26}" for s in sets))
    for setting in rows:
        print(
            f"{'WER, ' + setting:<58}"
            + "".join(f"{report[s]['settings'][setting]['wer']:>26.2f}" for s in sets)
        )
    for setting in rows:
        cells = [
            f"{report[s]['settings'][setting]['end_utt_p50_s'] * 1000:.0f} / "
            f"{report[s]['settings'][setting]['end_utt_p90_s'] * 1000:.0f}"
            for s in sets
        ]
        print(f"{'finish ms p50/p90, ' + setting:<58}" + "".join(f"{c:>26}" for c in cells))
    for default in (WHISPER, next(iter(SETTINGS))):
        print(default)
        for label, key in (
            ("right words above TRUST", "right_above_trust"),
            ("wrong words above TRUST", "wrong_above_trust"),
        ):
            cells = []
            for s in sets:
                row = report[s]["settings"][default]
                of = row["words_right" if "right" in key else "words_wrong"]
                cells.append("-" if row[key] is None else f"{row[key]:.2f} of {of}")
            print(f"{'  ' + label + f' ({TRUST})':<58}" + "".join(f"{c:>26}" for c in cells))
        cells = []
        for s in sets:
            row = report[s]["settings"][default]
            cells.append(
                f"{row['utterances_trusted']}/{report[s]['utterances']}, "
                f"{row['trusted_last_word_right']} last word right"
            )
        print(f"{'  utterances trusted (Heard.trusted)':<58}" + "".join(f"{c:>26}" for c in cells))
        cells = [_halves(report[s]["settings"][default], *READ_UNFINISHED) for s in sets]
        print(f"{'  unfinished halves read unfinished':<58}" + "".join(f"{c:>26}" for c in cells))
    for setting in rows:
        cells = [_halves(report[s]["settings"][setting], *HELD) for s in sets]
        print(f"{'halves held, ' + setting:<58}" + "".join(f"{c:>26}" for c in cells))
    for setting in rows:
        print(
            f"{'CPU s per audio s, ' + setting:<58}"
            + "".join(f"{report[s]['settings'][setting]['cpu_per_audio_s']:>26.3f}" for s in sets)
        )


@one_blas_thread()  # numpy as the agent's server runs it: CPU and times as in a call
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument(
        "--endings-only", action="store_true", help="only the endings (seconds, not the caller sets' minutes)"
    )
    parser.add_argument(
        "--whisper-variants",
        action="store_true",
        help="also whisper with 2 threads, other compute types and shorter silence after the phrase",
    )
    args = parser.parse_args()
    backend = HibariBackend()
    backend.load()
    variants = tuple(WHISPER_VARIANTS) if args.whisper_variants else ()
    report = {} if args.endings_only else run(backend, variants)
    report["endings"] = endings(backend)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "stt_bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not args.endings_only:
        print_report({name: report[name] for name in CALLER_SETS})
    print_endings(report["endings"])
    print(f"wrote {args.out / 'stt_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
