"""Backchannel or barge-in, from the first 0.3 s of speech over the bot: ``python benchmarks/peek_bench.py``.

The agent reads speech that begins over the bot as it goes on (``agent.stt.tiny``'s peeks: whisper
tiny.en on the speech so far) and talks it through, ducked, unless the words so far open a turn
(``BargeIn.opens_turn``). This says how often that verdict is right, on phrases of neither caller
set of ``v2v_bench``: 25 backchannels and 25 openings of a barge-in (most of them the phrases
``BargeIn``'s ``first_word_trust`` was chosen on, in voices of other seeds: the held-out check is
``v2v_bench``'s wide set), each in three voices (hibari, hibari a fifth down, Piper's joe), each
voice drawn from a seed (``v2v_sets.varied_voice``: speed, pitch, level, line hiss), over the
phone line's mu-law at 8 kHz, read at 0.25-0.45 s from the voice's onset (the first peek comes
0.12 s after the VAD's start, which is 0.15-0.2 s in).

For each reading point it prints, per voice and in all: the backchannels ducked (right) and the
barge-ins kept paused (right), and the peek's time on this machine. A barge-in read wrong is
talked over, quietly, until a later peek reads its turn; a backchannel read wrong leaves the
caller in silence until its words come at the pause. Writes JSON with every reading.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from v2v_bench import _joe  # noqa: E402
from v2v_sets import RATE, varied_voice  # noqa: E402

from agent.blas import one_blas_thread  # noqa: E402
from agent.stt.tiny_model import SAMPLE_RATE as WHISPER_RATE  # noqa: E402
from agent.stt.tiny_model import load_tiny_whisper  # noqa: E402
from agent.turn_taking.barge_in import BargeIn  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.dsp import pcm16_to_float  # noqa: E402
from tts_service.engine.resample import resample_pcm16  # noqa: E402

BACKCHANNELS = (
    "Yep.", "Mhm.", "Alright.", "Oh, okay.", "Cool.", "Yes.", "Okay, great.", "Uh huh, yeah.",
    "Gotcha.", "Yeah, yeah.", "Oh I see.", "Exactly.", "Sounds good.", "Makes sense.", "Oh, right.",
    "Hmm.", "Yes, sure.", "Uh huh.", "Mm hmm.", "Right, right.", "Sure, sure.", "Okay.", "I see.",
    "Of course.", "Perfect.",
)  # fmt: skip
BARGE_INS = (
    "But I already paid for it.", "Can you repeat that please?", "That's not what I asked.",
    "Excuse me, I have a question.", "Wait, which day was that?", "Could I speak to a manager?",
    "How about Thursday instead?", "My card was charged twice.", "Please cancel the order.",
    "Do you have anything earlier?", "Let me stop you there.", "We need two rooms, not one.",
    "Is that including tax?", "One more thing before you go.", "The address is wrong.",
    "Okay but what about parking?", "Yeah, can you also add a dessert?", "Hang on a second.",
    "What do you mean by that?", "Listen, I just need the total.", "Are you open on Sunday?",
    "Actually, make that three.", "Honestly, that seems too expensive.", "Two adults and a child.",
    "Never mind, I found it.",
)  # fmt: skip
SPEAKERS = ("hibari", "joe", "hibari-low")
#: where the speech is read, from its onset
READ_AT_S = (0.25, 0.3, 0.35, 0.45)
#: the line's quiet before the onset, as the pre-roll gives it
BEFORE_S = 0.2


def said(cast: dict[str, Any], text: str, speaker: str, seed: int) -> tuple[np.ndarray, int]:
    """``text`` in a voice of its own over the line, as mu-law-decoded int16 at 8 kHz, and the
    sample where the voice begins."""
    voice = replace(varied_voice(seed, SPEAKERS.index(speaker)), speaker=speaker)
    if speaker == "hibari-low":
        voice = replace(voice, semitones=voice.semitones - 7.0)
    clean = voice.clean(cast[speaker], text)
    level = np.abs(clean)
    onset = int(np.argmax(level > 0.02 * level.max()))
    pad = np.zeros(int(BEFORE_S * RATE), np.float32)
    pcm = voice.on_line(np.concatenate([pad, clean]))
    return g711.decode(g711.encode(pcm)), onset + len(pad)


@one_blas_thread()  # numpy as the agent's server runs it: the peeks' times as in a call
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="peek_bench.json")
    args = parser.parse_args()
    hibari = HibariBackend()
    hibari.load()
    cast = {"hibari": hibari, "hibari-low": hibari, "joe": _joe()}
    whisper = load_tiny_whisper()
    judge = BargeIn()
    rows: list[dict[str, Any]] = []
    for kind, phrases in (("backchannel", BACKCHANNELS), ("barge-in", BARGE_INS)):
        for k, text in enumerate(phrases):
            for speaker in SPEAKERS:
                line, onset = said(cast, text, speaker, 4100 + k)
                row: dict[str, Any] = {"kind": kind, "text": text, "speaker": speaker, "read": {}}
                for at_s in READ_AT_S:
                    heard_pcm = line[: onset + int(at_s * RATE)].astype("<i2").tobytes()
                    samples = pcm16_to_float(resample_pcm16(heard_pcm, RATE, WHISPER_RATE))
                    started = time.perf_counter()
                    heard = whisper.transcribe(samples, so_far=True)
                    took = time.perf_counter() - started
                    turn = judge.opens_turn(heard)
                    row["read"][str(at_s)] = {
                        "words": [[w, round(p, 3)] for w, p in heard.words],
                        "turn": turn,
                        "right": turn == (kind == "barge-in"),
                        "ms": round(took * 1000, 1),
                    }
                rows.append(row)
    head = f"{'read at':<10}{'voice':<12}{'backchannels ducked':>22}{'barge-ins kept paused':>24}"
    print(f"{head}{'peek ms p50':>13}")
    summary: dict[str, Any] = {}
    for at_s in READ_AT_S:
        for speaker in (*SPEAKERS, "all"):
            mine = [r for r in rows if speaker in ("all", r["speaker"])]
            reads = [r["read"][str(at_s)] for r in mine]
            bc = [x["right"] for r, x in zip(mine, reads, strict=True) if r["kind"] == "backchannel"]
            bi = [x["right"] for r, x in zip(mine, reads, strict=True) if r["kind"] == "barge-in"]
            ms = float(np.median([x["ms"] for x in reads]))
            summary[f"{at_s}/{speaker}"] = {
                "backchannels": [sum(bc), len(bc)],
                "barge_ins": [sum(bi), len(bi)],
            }
            print(
                f"{at_s:<10}{speaker:<12}{f'{sum(bc)}/{len(bc)}':>22}{f'{sum(bi)}/{len(bi)}':>24}{ms:>13.0f}"
            )
    Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
