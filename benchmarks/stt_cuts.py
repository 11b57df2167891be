"""What the recognizers make of a caller who stops mid-sentence: ``python benchmarks/stt_cuts.py``.

Each hesitation of the wide caller set (``v2v_sets.WIDE``: a whole sentence cut after a word no
sentence ends on, in the voice and over the line ``v2v_bench`` gives it) is heard up to the
moment the STT transcribes it (the caller's level quiet for 60 ms), and the whole sentence
once, by whisper tiny.en (the default) and by pocketsphinx's general model. Per first part:

* whether the recognizer kept its last word ("who"), dropped it (wrote the words before it and
  nothing after), or wrote another word in its place or words after it ("who's", "where we");
* for whisper, how long the voice runs on after its last word ends (``Heard.unheard_s``: the
  decoder's alignment against the level): a dropped word leaves voiced audio after it;
* whisper's own score that the utterance ends there (``Heard.ends``), and which cue of the turn
  end reads it unfinished ("goes on": the score; "unfinished": the words' lists) or none (the bot
  would answer in the pause).

For the whole sentences, the same verdicts: a whole sentence read unfinished waits the bound.
Prints a table and a summary; nothing is tuned on it (the sentences are the wide set's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from v2v_bench import _joe  # noqa: E402
from v2v_callers import CYCLE  # noqa: E402
from v2v_sets import RATE, WIDE, CallerSet  # noqa: E402

from agent.stt.sphinx import (  # noqa: E402  # noqa: E402
    DECODER_SAMPLE_RATE,
    GENERAL_MODEL_OPTIONS,
    NARROWBAND_CMN_INIT,
    clean_hypothesis,
    normalize_phrase,
)
from agent.stt.tiny_model import SAMPLE_RATE as WHISPER_RATE  # noqa: E402
from agent.stt.tiny_model import load_tiny_whisper  # noqa: E402
from agent.turn_taking.confidence import Heard  # noqa: E402
from agent.turn_taking.policy import TurnEndPolicy  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.dsp import pcm16_to_float  # noqa: E402
from tts_service.engine.ports import Backend  # noqa: E402
from tts_service.engine.resample import resample_pcm16  # noqa: E402

#: the STT transcribes at the pause the level hears, some 60 ms into it
AT_PAUSE_S = 0.06


Said = tuple[str, str, np.ndarray, int]


def hesitations(cast: dict[str, Backend], callers: CallerSet = WIDE) -> list[Said]:
    """(first part, speaker, the whole act on the line as int16, the sample its pause starts at)
    for each hesitation, in the voice ``v2v_callers.script`` gives it."""
    cycle = callers.cycle or CYCLE
    acts = [k for k in range(callers.acts) if cycle[k % len(cycle)] == "hesitate"]
    out = []
    for n, (first, pause_s, rest) in enumerate(callers.hesitate):
        voice = callers.hesitation_voice(acts[n % len(acts)], n)
        clean = voice.cut(cast[voice.speaker], first, pause_s, rest)
        zeros = np.flatnonzero(clean == 0)
        runs = np.split(zeros, np.flatnonzero(np.diff(zeros) != 1) + 1)
        gap = next(r for r in runs if len(r) >= pause_s * RATE * 0.9)
        line = g711.decode(g711.encode(voice.on_line(clean)))
        out.append((first, voice.speaker, line, int(gap[0])))
    return out


def whisper_heard(line: np.ndarray) -> Heard:
    """Whisper's words for ``line`` (int16 at 8 kHz), as the STT service gets them."""
    return load_tiny_whisper().transcribe(pcm16_to_float(resample_pcm16(line, RATE, WHISPER_RATE)))


def sphinx_heard(decoder: Any, line: np.ndarray) -> Heard:
    audio = resample_pcm16(line, RATE, DECODER_SAMPLE_RATE).tobytes()
    decoder.start_utt()
    decoder.process_raw(audio, False, True)
    decoder.end_utt()
    words = [(clean_hypothesis(s.word), float(s.prob)) for s in decoder.seg() or []]
    return Heard.of([(w, p) for w, p in words if w and not w.startswith(("<", "["))])


def fate(first: str, heard: Heard) -> str:
    """What the recognizer did with the first part's last word."""
    said, got = normalize_phrase(first).split(), heard.text.split()
    if got and got[-1] == said[-1]:
        return "kept"
    if not got or got[-1] == said[-2] or (len(got) < len(said) and got[-1] in said[:-1]):
        return "dropped"
    return "changed"


def verdict(policy: TurnEndPolicy, heard: Heard) -> str:
    if policy.goes_on(heard):
        return "goes on"
    return "unfinished" if policy.unfinished(heard.text, heard) else "-"


def main() -> int:
    from pocketsphinx import Decoder

    hibari = HibariBackend()
    hibari.load()
    cast = {"hibari": hibari, "hibari-low": hibari, "joe": _joe()}
    policy = TurnEndPolicy()
    decoder = Decoder(logfn="/dev/null", cmninit=NARROWBAND_CMN_INIT, **GENERAL_MODEL_OPTIONS)
    counts: dict[str, dict[str, int]] = {"whisper": {}, "pocketsphinx": {}}
    caught = {"goes on": 0, "unfinished": 0, "-": 0}
    wholes_held = 0
    tails: list[float] = []
    dropped_tails: list[float] = []
    header = f"{'first part':<40}{'voice':<11}{'whisper':<46}{'fate':<9}{'after s':>7}{'ends':>6}"
    print(header + "  cue      sphinx")
    for first, speaker, line, pause_at in hesitations(cast):
        head = line[: pause_at + int(AT_PAUSE_S * RATE)]
        heard = whisper_heard(head)
        sphinx = sphinx_heard(decoder, head)
        whole = whisper_heard(line)
        if fate(first, heard) == "dropped" and heard.unheard_s is not None:
            dropped_tails.append(heard.unheard_s)
        for name, words in (("whisper", heard), ("pocketsphinx", sphinx)):
            counts[name][fate(first, words)] = counts[name].get(fate(first, words), 0) + 1
        cue = verdict(policy, heard)
        caught[cue] += 1
        wholes_held += verdict(policy, whole) != "-"
        tail = heard.unheard_s
        if tail is not None:
            tails.append(tail)
        ends = "-" if heard.ends is None else f"{heard.ends:.2f}"
        print(
            f"{first[-38:]:<40}{speaker:<11}{heard.text[-44:]:<46}{fate(first, heard):<9}"
            f"{'-' if tail is None else f'{tail:.2f}':>7}{ends:>6}  {cue:<9} {fate(first, sphinx)}"
        )
    n = len(WIDE.hesitate)
    print(f"last word of the first part, of {n}: " + "; ".join(f"{k} {v}" for k, v in counts.items()))
    print(
        f"voice after whisper's last word (Heard.unheard_s): {min(tails):.2f}..{max(tails):.2f} s; "
        f"where it dropped the word: {', '.join(f'{t:.2f}' for t in dropped_tails)}"
    )
    print(
        f"read unfinished: {caught['goes on']} by whisper's score, {caught['unfinished']} by the words "
        f"alone, {caught['-']} not at all; whole sentences read unfinished: {wholes_held} of {n}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
