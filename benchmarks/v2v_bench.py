"""Voice to voice over a simulated phone line: Warmline's agent against a stock Pipecat bot.

    python benchmarks/v2v_bench.py [--turns 20] [--out bench-out] [--bots warmline,stock]

A simulated Twilio carrier (``transports.twilio.carrier``: 20 ms mu-law each way, in real time,
playback that a ``clear`` stops) calls each bot in turn and asks ``--turns`` spoken questions
(hibari's voice at 8 kHz). Every even turn waits for the previous answer to finish; every odd
turn asks its question over the answer, ``BARGE_IN_AFTER_S`` into it (a barge-in).

* ``warmline``: the ``warmline call`` app (``agent.server.create_agent_app``) with its defaults
  (Silero VAD before a streaming pocketsphinx STT, the agent's turn timing, the demo responder,
  ``WarmlineTTSService``), on the real ``/twilio`` endpoint;
* ``warmline-webrtc`` (only when asked for): the same with ``--vad webrtc``;
* ``stock``: ``v2v_stock.stock_app``, the bot Pipecat's docs build (Silero VAD with its default
  turn settings, segmented STT, sentence-mode TTS on the same voice, same responder).

Both use pocketsphinx with the demo's closed grammar, the same responder (first token after 50 ms,
then 30 tokens/s) and the same hibari voice. Per turn, from the carrier's clock and the bot's
``agent.latency.TurnLatencyObserver`` (one clock for both, in one process):

* voice to voice: from the end of the caller's speech (the 20 ms chunk holding its last voiced
  sample left the carrier) to the first audio of the answer reaching the carrier, split into VAD
  (speech end -> VAD stop), STT (-> final transcript), turn end (-> context to the LLM), LLM
  first token, TTS first frame, and the line (-> the carrier);
* barge-in reaction: from the start of the caller's speech to the caller's playback going quiet
  (the ``clear``), split into VAD start, interruption, and the line.

A turn whose answer began before the caller finished is counted as ``answered early``, not timed.
Prints a table, writes ``<out>/v2v_bench.json`` and ``<out>/v2v_latency.png`` (stacked p50s).
Figures depend on the machine and what else runs; ratios compare the two bots of the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import functools
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/v2v_bench.py``
sys.path.insert(0, str(ROOT / "benchmarks"))  # the stock bot, ``v2v_stock``

from pipecat.observers.base_observer import BaseObserver  # noqa: E402
from v2v_stock import stock_app  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from agent.latency import ResponseTimes, TurnLatencyObserver  # noqa: E402
from agent.pipeline import AgentParts  # noqa: E402
from agent.responder import DEMO_PHRASES, pick_intent  # noqa: E402
from agent.server import AgentSettings, create_agent_app  # noqa: E402
from agent.stt import PocketsphinxSTTService  # noqa: E402
from agent.vad import VAD_ANALYZERS  # noqa: E402
from transports import g711  # noqa: E402
from transports.serve import serving  # noqa: E402
from transports.twilio import protocol as tp  # noqa: E402
from transports.twilio.carrier import Carrier, Utterance  # noqa: E402
from transports.ws.settings import ServerSettings  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.runtime import EngineRuntime  # noqa: E402
from tts_service.speech import spoken_pcm  # noqa: E402

QUESTIONS = (
    "What time do you open?",
    "Can I book a table for two?",
    "What is the weather like?",
    "When do you close?",
    "I would like to book a table.",
    "Is it sunny today?",
    "What are your opening hours?",
    "I want to make a reservation.",
    "When do you open?",
    "Hello.",
)
#: how long the caller listens to an answer before talking over it (odd turns)
BARGE_IN_AFTER_S = 1.2
#: a 20 ms chunk of the caller's speech counts as voiced above this RMS (int16), about -40 dBFS
VOICED_RMS = 330.0
#: the answer begins at the first bot media after a gap this long (earlier media is the last answer)
ANSWER_GAP_S = 0.1
#: a barge-in has silenced the caller's playback once nothing plays for this long
QUIET_S = 0.2
STAGES = ("vad", "stt", "turn end", "llm first token", "tts first frame", "line")
BARGE_STAGES = ("vad start", "interruption", "line")
BOTS = ("warmline", "warmline-webrtc", "stock")
#: every wait is bounded (in carrier ticks of 20 ms)
MAX_TICKS = 1500


@dataclass(slots=True)
class Question:
    text: str
    mulaw: bytes
    first_voiced: int
    last_voiced: int


@dataclass(slots=True)
class TurnResult:
    """One question and its answer, times relative to the end (or start) of the caller's speech."""

    index: int
    question: str
    barge_in: bool
    expected: str
    heard: str | None = None
    answered: str | None = None
    v2v_s: float | None = None
    stages_s: dict[str, float | None] = field(default_factory=dict)
    answered_early: bool = False
    barge_in_s: float | None = None
    clear_s: float | None = None
    barge_stages_s: dict[str, float | None] = field(default_factory=dict)


def speech(backend: HibariBackend, text: str) -> Question:
    """``text`` spoken by hibari at 8 kHz mu-law, with the chunks its speech starts and ends in."""
    pcm = spoken_pcm(backend, text, 8000)
    pcm = np.concatenate([pcm, np.zeros((-len(pcm)) % tp.CHUNK_BYTES, np.int16)])
    rms = np.sqrt(np.mean(pcm.reshape(-1, tp.CHUNK_BYTES).astype(np.float64) ** 2, axis=1))
    voiced = np.flatnonzero(rms > VOICED_RMS)
    return Question(text, g711.encode(pcm).tobytes(), int(voiced[0]), int(voiced[-1]))


class Caller:
    """Drives one call: the questions, the barge-ins, and what each turn measured."""

    def __init__(self, carrier: Carrier, questions: list[Question]) -> None:
        self.carrier = carrier
        self.questions = questions
        self.results: list[TurnResult] = []
        self.spoken: list[tuple[Utterance, Question]] = []
        #: arrival times of the bot's media, kept up to date by ``media_times`` (read every tick, so
        #: incremental: rescanning the whole log on the bots' event loop would perturb what is timed)
        self._media_s: list[float] = []
        self._scanned = 0

    async def wait(self, done: Callable[[Carrier], bool], what: str) -> None:
        if not await self.carrier.wait_until(done, max_ticks=MAX_TICKS):
            raise TimeoutError(f"the bot never got there: {what}")

    async def run(self) -> None:
        await self.wait(lambda c: c.tick >= 25, "the line is up")
        for k, question in enumerate(self.questions):
            barge_in = k % 2 == 1
            if barge_in:
                start = self.answer_start(self.results[-1])
                await self.wait(
                    lambda c, t=start: bool(c.log.played) and c.log.played[-1].time_s >= t + BARGE_IN_AFTER_S,
                    "the answer played long enough to talk over it",
                )
            elif k:
                await self.wait(lambda c: c.idle_for(25), "the answer ended")
            utterance = self.carrier.say(question.mulaw)
            self.spoken.append((utterance, question))
            expected = pick_intent(question.text).name
            self.results.append(TurnResult(k, question.text, barge_in, expected))
            await self.wait(lambda c, u=utterance: u.done, "the question was said")
            end_s = utterance.sent_s[question.last_voiced]
            await self.wait(lambda c, e=end_s: self.first_answer_media(e) is not None, "an answer")

    def media_times(self) -> list[float]:
        """When each bot media message reached the carrier, in order."""
        received = self.carrier.log.received
        new = received[self._scanned :]
        self._media_s.extend(r.time_s for r in new if isinstance(r.message, tp.OutboundMedia))
        self._scanned = len(received)
        return self._media_s

    def first_answer_media(self, after_s: float) -> float | None:
        """The first bot media after ``after_s`` that follows a gap (the start of a new answer)."""
        media = self.media_times()
        for i in range(bisect.bisect_right(media, after_s), len(media)):
            if i == 0 or media[i] - media[i - 1] >= ANSWER_GAP_S:
                return media[i]
        return None

    def answer_start(self, turn: TurnResult) -> float:
        """When the answer to ``turn``'s question began reaching the carrier."""
        utterance, question = self.spoken[turn.index]
        first = self.first_answer_media(utterance.sent_s[question.last_voiced])
        assert first is not None
        return first


def measure(caller: Caller, observer: TurnLatencyObserver) -> None:
    """Fill each turn's figures from the carrier's log and the bot's observer."""
    log = caller.carrier.log
    media = caller.media_times()
    clears = [r.time_s for r in log.received if isinstance(r.message, tp.Clear)]
    responses = list(observer.responses)
    for turn, (utterance, question) in zip(caller.results, caller.spoken, strict=True):
        start_s = utterance.sent_s[question.first_voiced]
        end_s = utterance.sent_s[question.last_voiced]
        first = caller.first_answer_media(end_s)
        quiet_from = start_s
        if turn.barge_in:
            clear = next((t for t in clears if t >= start_s), None)
            silent = _quiet_after(log, start_s)
            vad = next((t for t in observer.speech_starts if t >= start_s), None)
            interrupted = next((t for t in observer.interruptions if t >= start_s), None)
            if silent is not None:
                turn.barge_in_s = silent - start_s
                turn.clear_s = None if clear is None else clear - start_s
                turn.barge_stages_s = _split(start_s, [vad, interrupted, silent], BARGE_STAGES)
                quiet_from = silent
        turn.answered_early = any(quiet_from < t < end_s for t in media)
        if first is None or turn.answered_early:
            continue
        response = _response_before(responses, start_s, first)
        if response is None:
            continue
        turn.heard = response.heard
        turn.answered = pick_intent(response.heard).name  # the demo responder's choice
        turn.v2v_s = first - end_s
        heard = max(t for t in (response.vad_stop_s, response.transcript_s) if t is not None)
        turn.stages_s = {
            "vad": None if response.vad_stop_s is None else response.vad_stop_s - end_s,
            "stt": None
            if response.vad_stop_s is None or response.transcript_s is None
            else max(0.0, response.transcript_s - response.vad_stop_s),
            "turn end": response.turn_end_s - heard,
            "llm first token": _gap(response.turn_end_s, response.first_token_s),
            "tts first frame": _gap(response.first_token_s, response.first_audio_s),
            "line": _gap(response.first_audio_s, first),
        }


def _quiet_after(log: Any, start_s: float) -> float | None:
    """When the caller's playback went quiet for good after ``start_s`` (not a one-tick underrun)."""
    played = [p.time_s for p in log.played]
    for _, quiet_s in log.went_silent:
        if quiet_s < start_s:
            continue
        resumed = bisect.bisect_right(played, quiet_s)
        if resumed == len(played) or played[resumed] - quiet_s >= QUIET_S:
            return float(quiet_s)
    return None


def _response_before(responses: list[ResponseTimes], after_s: float, before_s: float) -> ResponseTimes | None:
    """The last response whose turn ended between the two times (the one the caller heard)."""
    found = None
    for r in responses:
        if after_s < r.turn_end_s < before_s:
            found = r
    return found


def _gap(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _split(start_s: float, marks: list[float | None], names: tuple[str, ...]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    previous: float | None = start_s
    for name, mark in zip(names, marks, strict=True):
        out[name] = _gap(previous, mark)
        previous = mark
    return out


async def call(app: Any, questions: list[Question]) -> Caller:
    """One phone call to ``app``'s ``/twilio``: every question, then hang up."""
    server = serving(app, ServerSettings(), host="127.0.0.1", port=0)
    async with server as (host, port), connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
        carrier = Carrier(ws)
        caller = Caller(carrier, questions)
        clock = asyncio.create_task(carrier.run(), name="v2v-carrier")
        try:
            await carrier.begin()
            await caller.run()
            await carrier.wait_until(lambda c: c.idle_for(25), max_ticks=MAX_TICKS)
            await carrier.end()
        finally:
            clock.cancel()
            await asyncio.gather(clock, return_exceptions=True)
    return caller


async def run_warmline(
    backend: HibariBackend, questions: list[Question], *, vad: str = "silero"
) -> list[TurnResult]:
    observers: list[TurnLatencyObserver] = []

    def make_observers() -> list[BaseObserver]:
        observers.append(TurnLatencyObserver())
        return [observers[-1]]

    async with EngineRuntime(backend, workers=2) as runtime:
        parts = AgentParts(
            runtime=runtime,
            vad=VAD_ANALYZERS[vad],
            stt=lambda: PocketsphinxSTTService(phrases=DEMO_PHRASES),
            observers=make_observers,
        )
        app = create_agent_app(runtime, AgentSettings(), parts=parts)
        caller = await call(app, questions)
    measure(caller, observers[-1])
    return caller.results


async def run_stock(backend: HibariBackend, questions: list[Question]) -> list[TurnResult]:
    observers: list[TurnLatencyObserver] = []

    def make_observers() -> list[BaseObserver]:
        observers.append(TurnLatencyObserver())
        return [observers[-1]]

    app = stock_app(backend, phrases=DEMO_PHRASES, observers=make_observers)
    caller = await call(app, questions)
    measure(caller, observers[-1])
    return caller.results


def p50(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def summary(results: list[TurnResult]) -> dict[str, Any]:
    timed = [r for r in results if r.v2v_s is not None]
    barges = [r for r in results if r.barge_in]
    return {
        "turns": len(results),
        "timed": len(timed),
        "answered_early": sum(r.answered_early for r in results),
        "right_answers": sum(r.answered == r.expected for r in results),
        "v2v_p50_s": p50([r.v2v_s for r in timed]),
        "v2v_p90_s": _quantile([r.v2v_s for r in timed], 0.9),
        "stages_p50_s": {s: p50([r.stages_s.get(s) for r in timed]) for s in STAGES},
        "barge_ins": len(barges),
        "barge_in_p50_s": p50([r.barge_in_s for r in barges]),
        "clear_p50_s": p50([r.clear_s for r in barges]),
        "barge_stages_p50_s": {s: p50([r.barge_stages_s.get(s) for r in barges]) for s in BARGE_STAGES},
    }


def _quantile(values: list[float | None], q: float) -> float | None:
    present = sorted(v for v in values if v is not None)
    return float(np.quantile(present, q)) if present else None


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f}"


def print_table(summaries: dict[str, dict[str, Any]]) -> None:
    bots = list(summaries)
    # the ratio column: how many times longer the stock bot takes than the first bot of the run
    versus = bots[0] if "stock" in bots and bots[0] != "stock" else None
    header = f"{'ms, p50':<34}" + "".join(f"{b:>16}" for b in bots)
    print(header + (f"  stock / {versus}" if versus else ""))

    def row(label: str, get: Callable[[dict[str, Any]], float | None], *, ratio: bool = False) -> None:
        values = {b: get(summaries[b]) for b in bots}
        line = f"{label:<34}" + "".join(f"{_ms(v):>16}" for v in values.values())
        if ratio and versus is not None:
            base, stock = values[versus], values["stock"]
            if base and stock:
                line += f"{stock / base:>11.2f}x"
        print(line)

    row("voice to voice", lambda s: s["v2v_p50_s"], ratio=True)
    for stage in STAGES:
        row(f"  {stage}", lambda s, st=stage: s["stages_p50_s"][st])
    row("voice to voice, p90", lambda s: s["v2v_p90_s"])
    row("barge-in: speech start to silence", lambda s: s["barge_in_p50_s"], ratio=True)
    for stage in BARGE_STAGES:
        row(f"  {stage}", lambda s, st=stage: s["barge_stages_p50_s"][st])
    row("barge-in: speech start to clear", lambda s: s["clear_p50_s"])
    for label, key in (("turns timed", "timed"), ("answered early", "answered_early")):
        print(f"{label:<34}" + "".join(f"{summaries[b][key]:>16}" for b in bots))
    print(f"{'right answers':<34}" + "".join(f"{summaries[b]['right_answers']:>16}" for b in bots))
    print("targets: voice to voice <= 500 ms p50; barge-in <= 250 ms (speech start to silence)")


def plot(summaries: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = list(summaries)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 5.5), height_ratios=[3, 2])
    colors = plt.get_cmap("tab10").colors
    for ax, stages, key, total_key, title, target in (
        (ax1, STAGES, "stages_p50_s", "v2v_p50_s", "voice to voice: speech end to first audio", 0.5),
        (ax2, BARGE_STAGES, "barge_stages_p50_s", "barge_in_p50_s", "barge-in: speech start to quiet", 0.25),
    ):
        for y, bot in enumerate(bots):
            left = 0.0
            for i, stage in enumerate(stages):
                width = max(0.0, summaries[bot][key][stage] or 0.0) * 1000
                ax.barh(y, width, left=left, color=colors[i], label=stage if y == 0 else None)
                left += width
            total = summaries[bot][total_key]
            if total is not None:
                ax.text(left + 10, y, f"{total * 1000:.0f} ms p50", va="center")
        ax.axvline(target * 1000, color="k", linestyle="--", linewidth=1)
        widest = max([target, *(summaries[b][total_key] or 0.0 for b in bots)]) * 1000
        ax.set_xlim(0, widest * 1.25)  # room for the p50 labels
        ax.set_yticks(range(len(bots)), bots)
        ax.set_title(f"{title}; stacked stage p50s; dashed: target", fontsize=10)
        ax.set_xlabel("ms")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


async def run_bench(turns: int, bots: list[str]) -> dict[str, Any]:
    backend = HibariBackend()
    await asyncio.to_thread(backend.load)
    texts = [QUESTIONS[k % len(QUESTIONS)] for k in range(turns)]
    questions = [speech(backend, t) for t in texts]
    runners = {
        "warmline": run_warmline,
        "warmline-webrtc": functools.partial(run_warmline, vad="webrtc"),
        "stock": run_stock,
    }
    results: dict[str, list[TurnResult]] = {}
    for bot in bots:
        t0 = time.monotonic()
        results[bot] = await runners[bot](backend, questions)
        print(f"{bot}: {turns} turns in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return {
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "turns": turns,
        "summary": {bot: summary(r) for bot, r in results.items()},
        "results": {bot: [asdict(t) for t in r] for bot, r in results.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="questions per bot (default 20)")
    parser.add_argument(
        "--bots",
        default="warmline,stock",
        help=f"comma-separated, of {', '.join(BOTS)} (the agent with the WebRTC VAD)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if args.turns < 2 or not bots or set(bots) - set(BOTS):
        parser.error(f"--turns must be at least 2 and --bots a list of {', '.join(BOTS)}")
    report = asyncio.run(run_bench(args.turns, bots))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "v2v_bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    plot(report["summary"], args.out / "v2v_latency.png")
    print_table(report["summary"])
    print(f"wrote {args.out / 'v2v_bench.json'} and {args.out / 'v2v_latency.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
