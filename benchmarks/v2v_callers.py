"""The callers of ``v2v_bench.py``: people on a phone line, as a script of acts, and what each act saw.

    acts = script(backend, 20)              # the caller's acts, in hibari's voice at 8 kHz
    caller = Caller(carrier, acts)          # on a ``transports.twilio.carrier.Carrier``
    await caller.run()                      # says each act when a person would
    results = measure(caller, observer)     # from the carrier's log and the bot's observer

A caller behaves as people do (``CYCLE``, repeated):

* ``ask``: a question in one breath, once the last answer has ended;
* ``hesitate``: a question with a pause of 0.5-1 s after a plainly unfinished phrase ("We are
  looking for ... something quiet"): the bot must wait for the rest;
* ``barge``: a new question over the answer, ``BARGE_IN_AFTER_S`` into it (a real barge-in);
* ``backchannel``: "Yeah.", "Mm hmm."... over the answer, ``LISTEN_S`` into it: the caller is
  listening, and the answer must go on;
* ``noise``: a cough or a knock over the answer: the answer must go on.

What they say and how they sound is a ``v2v_sets.CallerSet``: ``tuned`` (what the turn-taking was
developed against) or ``wide`` (other sentences, each act in a voice of its own).
Every act is judged from the caller's side (the carrier's log: what reached and what played) and
timed with the bot's ``agent.latency.TurnLatencyObserver`` (one monotonic clock, one process).
Benchmark scaffolding: never imported by the package.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from v2v_sets import TUNED, CallerSet, Voice

from agent.latency import ResponseTimes, TurnLatencyObserver
from agent.responder import pick_intent
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier, Utterance
from tts_service import g711
from tts_service.dsp import pcm16_to_float
from tts_service.engine.ports import Backend

RATE = 8000
#: the acts a caller goes through, repeated; each act over an answer follows one that is answered
CYCLE = (
    *("ask", "barge", "backchannel", "hesitate", "noise"),
    *("ask", "backchannel", "hesitate", "barge", "noise"),
)
#: the acts that expect an answer (the caller's turns)
TURNS = frozenset({"ask", "hesitate", "barge"})
#: the acts said over the bot's answer
OVER_ANSWER = frozenset({"barge", "backchannel", "noise"})
#: how long the caller listens to an answer before a barge-in, and before a backchannel or a noise
BARGE_IN_AFTER_S = 1.2
LISTEN_S = 1.0
#: a 20 ms chunk of the caller's voice (before the line's noise) counts as voiced within this many
#: dB of the act's loudest chunk. Relative, so a quiet caller's last word is not cut short: at
#: hibari's own level (about -18 dBFS at its loudest) this is the -40 dBFS a fixed threshold had
VOICED_BELOW_PEAK_DB = 22.0
#: the answer begins at the first bot media after a gap this long (earlier media is the last answer)
ANSWER_GAP_S = 0.1
#: a barge-in has silenced the caller's playback once nothing plays for this long
QUIET_S = 0.2
#: after a backchannel or a noise, how long the answer has to go on (else it counts as lost)
RESUME_WITHIN_S = 3.0
#: the acts a bot may pause for and then resume
TAKE_BACK = frozenset({"backchannel", "noise"})
#: the caller takes an answer as ended after this many 20 ms ticks without bot audio (longer after
#: an act the bot may pause for: its pause is not the end of the answer)
ENDED_TICKS = 25
ENDED_AFTER_TAKE_BACK_TICKS = 75
STAGES = ("vad", "stt", "turn end", "llm first token", "tts first frame", "line")
BARGE_STAGES = ("vad start", "bot stops", "line")
#: every wait is bounded (in carrier ticks of 20 ms)
MAX_TICKS = 1500


@dataclass(frozen=True, slots=True)
class Act:
    """One thing the caller does: what is said (mu-law at 8 kHz) and where its sound is."""

    kind: str
    text: str
    mulaw: bytes
    #: the 20 ms chunks holding the first and the last voiced sample
    first_voiced: int
    last_voiced: int

    @property
    def expected(self) -> str | None:
        """The demo responder's intent for the whole question (None: no answer is expected)."""
        return pick_intent(self.text).name if self.kind in TURNS else None


@dataclass(slots=True)
class ActResult:
    """What one act got, times relative to the caller's speech (its end, or its start)."""

    index: int
    kind: str
    text: str
    expected: str | None
    #: the caller's words the bot answered, and the intent its answer was for
    heard: str | None = None
    answered: str | None = None
    #: voice to voice: the caller's last voiced sample to the first audio of the answer
    v2v_s: float | None = None
    stages_s: dict[str, float | None] = field(default_factory=dict)
    #: an answer began while the caller was still talking (in a pause, or over the words)
    cut_in: bool = False
    #: a barge-in: speech start to the caller's playback going quiet for good, and to the clear
    barge_in_s: float | None = None
    clear_s: float | None = None
    barge_stages_s: dict[str, float | None] = field(default_factory=dict)
    #: a backchannel or a noise: the answer went on (never paused, or paused and resumed)
    kept: bool | None = None
    #: it paused the answer (the caller heard it stop) and the answer resumed
    resumed: bool | None = None
    #: how long the caller heard nothing of the answer, if it paused and resumed
    paused_s: float | None = None
    #: the longest silence in the answer from the act's start to where it went on (a backchannel
    #: heard in pieces, "Okay, ... sure", may pause it more than once)
    longest_pause_s: float | None = None
    #: a barge-in: the answer played again after it first went quiet, before the caller's last
    #: word (talked over, ducked): the bot is silent only from ``barge_in_s``
    talked_over: bool = False
    #: LLM requests the bot made from this act's speech to the next act
    llm_requests: int = 0


# -- the caller's sounds ----------------------------------------------------------------------


def script(cast: Mapping[str, Backend], count: int, callers: CallerSet = TUNED) -> list[Act]:
    """``count`` acts in ``callers``' cycle (``CYCLE`` unless it has its own), each kind taking
    ``callers``' phrases in turn, each act in its caller's voice (``CallerSet.voice``; a
    hesitation in its speaker's, ``CallerSet.hesitation_voice``, from ``cast``: name -> backend)."""
    pools: dict[str, Iterable[Any]] = {
        "ask": callers.ask,
        "barge": callers.barge,
        "hesitate": callers.hesitate,
        "backchannel": callers.backchannel,
        "noise": callers.noise,
    }
    cycles = {kind: itertools.cycle(pool) for kind, pool in pools.items()}
    cycle = callers.cycle or CYCLE
    backend = cast["hibari"]
    acts = []
    hesitations = 0
    for k in range(count):
        kind = cycle[k % len(cycle)]
        item = next(cycles[kind])
        voice = callers.voice(k)
        if kind == "hesitate":
            first, pause_s, rest = item
            voice = callers.hesitation_voice(k, hesitations)
            hesitations += 1
            speaker = cast[voice.speaker]
            if callers.cut:
                clean = _padded(voice.cut(speaker, first, pause_s, rest))
                acts.append(_act("hesitate", f"{first} {rest}", voice.on_line(clean), clean))
            else:
                acts.append(hesitation(speaker, first, pause_s, rest, voice))
        elif kind == "noise":
            sound = noise(item, seed=k)
            acts.append(_act(kind, item, sound, pcm16_to_float(sound)))
        else:
            clean = voice.clean(backend, item)
            acts.append(_act(kind, item, voice.on_line(clean), clean))
    return acts


def hesitation(backend: Backend, first: str, pause_s: float, rest: str, voice: Voice | None = None) -> Act:
    """``first``, ``pause_s`` of silence (the line's hiss, on a noisy line), then ``rest``, as one act."""
    voice = voice or Voice()
    head, tail = (_padded(voice.clean(backend, text)) for text in (first, rest))
    gap = np.zeros(round(pause_s * RATE / tp.CHUNK_BYTES) * tp.CHUNK_BYTES, np.float32)
    clean = np.concatenate([head, gap, tail])
    return _act("hesitate", f"{first} {rest}", voice.on_line(clean), clean)


def noise(kind: str, *, seed: int) -> np.ndarray:
    """A short non-speech sound at 8 kHz: a ``cough`` (a 0.3 s burst of shaped noise) or a
    ``knock`` (three thuds); seeded, so every run hears the same."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(0.3 * RATE)) / RATE
    if kind == "cough":
        burst = np.convolve(rng.standard_normal(len(t)), np.hanning(9), mode="same")  # low-passed
        sound = burst * np.exp(-t / 0.08) * (1 - np.exp(-t / 0.005))
    elif kind == "knock":
        sound = np.zeros_like(t)
        for onset in (0.0, 0.11, 0.22):
            at = t - onset
            thud = np.sin(2 * np.pi * 180 * at) * np.exp(-np.maximum(at, 0) / 0.015)
            sound += np.where(at >= 0, thud, 0.0)
    else:
        raise ValueError(f"unknown noise {kind!r}")
    return (sound / np.max(np.abs(sound)) * 9000).astype(np.int16)  # about -11 dBFS peak


def _act(kind: str, text: str, pcm: np.ndarray, clean: np.ndarray) -> Act:
    """An act of ``pcm`` (int16, as the line carries it), voiced where ``clean`` (the same sound
    without the line's noise, float) is."""
    voiced = _voiced(_padded(clean))
    return Act(kind, text, g711.encode(_padded(pcm)).tobytes(), int(voiced[0]), int(voiced[-1]))


def _padded(pcm: np.ndarray) -> np.ndarray:
    return np.concatenate([pcm, np.zeros((-len(pcm)) % tp.CHUNK_BYTES, pcm.dtype)])


def _voiced(clean: np.ndarray) -> np.ndarray:
    rms = np.sqrt(np.mean(clean.reshape(-1, tp.CHUNK_BYTES).astype(np.float64) ** 2, axis=1))
    level_db = 20.0 * np.log10(np.maximum(rms, 1e-9))
    return np.flatnonzero(level_db > level_db.max() - VOICED_BELOW_PEAK_DB)


# -- the call ---------------------------------------------------------------------------------


class Caller:
    """Drives one call: says each act when a person would, and keeps what was said when."""

    def __init__(self, carrier: Carrier, acts: list[Act]) -> None:
        self.carrier = carrier
        self.acts = acts
        self.said: list[Utterance] = []
        #: arrival times of the bot's media, kept up to date by ``media_times`` (read every tick, so
        #: incremental: rescanning the whole log on the bots' event loop would perturb what is timed)
        self._media_s: list[float] = []
        self._scanned = 0

    async def wait(self, done: Callable[[Carrier], bool], what: str) -> None:
        if not await self.carrier.wait_until(done, max_ticks=MAX_TICKS):
            raise TimeoutError(f"the bot never got there: {what}")

    async def run(self) -> None:
        await self.wait(lambda c: c.tick >= 25, "the line is up")
        answered: int | None = None  # the last act that expects an answer
        for k, act in enumerate(self.acts):
            if act.kind in OVER_ANSWER and answered is not None:
                start = self.answer_start(answered)
                delay = BARGE_IN_AFTER_S if act.kind == "barge" else LISTEN_S
                await self.wait(
                    lambda c, t=start + delay: bool(c.log.played) and c.log.played[-1].time_s >= t,
                    f"the answer played long enough for act {k} ({act.kind})",
                )
            elif k:
                # after a backchannel or a noise the answer may pause for a while and go on: a
                # person waits for the end of it, not for the first breath
                quiet = ENDED_AFTER_TAKE_BACK_TICKS if self.acts[k - 1].kind in TAKE_BACK else ENDED_TICKS
                await self.wait(lambda c, q=quiet: c.idle_for(q), "the answer ended")
            utterance = self.carrier.say(act.mulaw, question=act.kind in TURNS)
            self.said.append(utterance)
            await self.wait(lambda c, u=utterance: u.done, "the caller said it")
            if act.kind in TURNS:
                answered = k
                end_s = utterance.sent_s[act.last_voiced]
                await self.wait(lambda c, e=end_s: self._any_media_after(e), f"an answer to act {k}")

    def media_times(self) -> list[float]:
        """When each bot media message reached the carrier, in order."""
        received = self.carrier.log.received
        new = received[self._scanned :]
        self._media_s.extend(r.time_s for r in new if isinstance(r.message, tp.OutboundMedia))
        self._scanned = len(received)
        return self._media_s

    def _any_media_after(self, after_s: float) -> bool:
        media = self.media_times()
        return bool(media) and media[-1] > after_s

    def first_answer_media(self, after_s: float) -> float | None:
        """The first bot media after ``after_s`` that follows a gap (the start of a new answer)."""
        media = self.media_times()
        for i in range(bisect.bisect_right(media, after_s), len(media)):
            if i == 0 or media[i] - media[i - 1] >= ANSWER_GAP_S:
                return media[i]
        return None

    def answer_start(self, index: int) -> float:
        """When the answer to act ``index`` began reaching the carrier (or, if one was already
        playing through the end of its speech, its first media after that end)."""
        end_s = self.said[index].sent_s[self.acts[index].last_voiced]
        first = self.first_answer_media(end_s)
        if first is None:
            media = self.media_times()
            first = media[bisect.bisect_right(media, end_s)]
        return first


# -- what each act got ------------------------------------------------------------------------


def measure(caller: Caller, observer: TurnLatencyObserver) -> list[ActResult]:
    """Each act's figures, from the carrier's log and the bot's observer."""
    log = caller.carrier.log
    media = caller.media_times()
    clears = [r.time_s for r in log.received if isinstance(r.message, tp.Clear)]
    played = [p.time_s for p in log.played]
    responses = list(observer.responses)
    requests = list(observer.requests)
    stops = sorted([*observer.pauses, *observer.interruptions])
    results = []
    for k, (act, utterance) in enumerate(zip(caller.acts, caller.said, strict=True)):
        start_s = utterance.sent_s[act.first_voiced]
        end_s = utterance.sent_s[act.last_voiced]
        next_s = caller.said[k + 1].sent_s[0] if k + 1 < len(caller.said) else float("inf")
        result = ActResult(k, act.kind, act.text, act.expected)
        result.llm_requests = sum(start_s <= t < next_s for t in requests)
        results.append(result)
        quiet_from = start_s
        if act.kind in OVER_ANSWER:
            silent = _quiet_after(log, played, start_s, until_s=end_s)
            if act.kind == "barge" and silent is not None:
                first = next((t for _, t in log.went_silent if t >= start_s), silent)
                result.talked_over = any(first < t < silent for t in played)
                result.barge_in_s = silent - start_s
                clear = next((t for t in clears if t >= start_s), None)
                result.clear_s = None if clear is None else clear - start_s
                vad = next((t for t in observer.speech_starts if t >= start_s), None)
                stop = next((t for t in stops if t >= start_s), None)
                result.barge_stages_s = _chain(start_s, [vad, stop, silent], BARGE_STAGES)
                quiet_from = silent
            elif act.kind in TAKE_BACK:
                _judge_false_barge_in(result, log, played, start_s, end_s, next_s)
                continue
        if act.kind not in TURNS:
            continue
        # bot audio reached the caller before their last word (in a pause, or over the words)
        result.cut_in = any(quiet_from < t < end_s for t in media)
        first = caller.first_answer_media(end_s)
        response = None if first is None else _response_between(responses, start_s, first)
        if first is None or response is None or result.cut_in:
            continue
        result.heard = response.heard
        result.answered = pick_intent(response.heard).name  # the demo responder's choice
        result.v2v_s = first - end_s
        result.stages_s = _chain(
            end_s,
            [
                response.vad_stop_s,
                response.transcript_s,
                response.turn_end_s,
                response.first_token_s,
                response.first_audio_s,
                first,
            ],
            STAGES,
        )
    return results


def _judge_false_barge_in(
    result: ActResult, log: Any, played: list[float], start_s: float, end_s: float, next_s: float
) -> None:
    """A backchannel or a noise: did the answer go on, and did the caller hear it stop?"""
    quiet = next((t for _, t in log.went_silent if start_s <= t <= end_s + QUIET_S), None)
    resumed_at = None
    if quiet is not None:
        after = bisect.bisect_right(played, quiet)
        if after < len(played) and played[after] - quiet <= RESUME_WITHIN_S and played[after] < next_s:
            resumed_at = played[after]
    answered_it = result.llm_requests > 0  # the bot took the sound for a turn and answered it
    result.resumed = quiet is not None and resumed_at is not None and not answered_it
    result.kept = not answered_it and (quiet is None or resumed_at is not None)
    if result.resumed and quiet is not None and resumed_at is not None:
        result.paused_s = resumed_at - quiet
        until = bisect.bisect_right(played, max(end_s, resumed_at))
        heard = played[bisect.bisect_left(played, start_s) : until]
        result.longest_pause_s = max((b - a for a, b in itertools.pairwise(heard)), default=0.0)


def _quiet_after(log: Any, played: list[float], start_s: float, until_s: float | None = None) -> float | None:
    """When the caller's playback went quiet for good after ``start_s``: not a short pause, nor
    (given ``until_s``) one the answer came back from before ``until_s``."""
    for _, quiet_s in log.went_silent:
        if quiet_s < start_s:
            continue
        resumed = bisect.bisect_right(played, quiet_s)
        back_s = played[resumed] if resumed < len(played) else float("inf")
        if back_s - quiet_s >= QUIET_S and (until_s is None or back_s > until_s):
            return float(quiet_s)
    return None


def _response_between(
    responses: list[ResponseTimes], after_s: float, before_s: float
) -> ResponseTimes | None:
    """The last response that went out between the two times (the one the caller heard): by its
    turn end, or, for a speculative answer, by when it was requested."""
    found = None
    for r in responses:
        at = r.speculated_s if r.speculated_s is not None else r.turn_end_s
        if at is not None and after_s < at < before_s:
            found = r
    return found


def _chain(start_s: float, marks: list[float | None], names: tuple[str, ...]) -> dict[str, float | None]:
    """Stage lengths from cumulative milestones: each stage runs from the latest milestone so far
    (clamped to the last one, which ends the whole) to its own; a stage done before the one it
    follows (a speculative answer's LLM and TTS, before the turn end) takes no time; a missing
    milestone gives None. The stages sum to the last milestone minus ``start_s``."""
    end = marks[-1]
    out: dict[str, float | None] = {}
    previous = start_s
    for name, mark in zip(names, marks, strict=True):
        if mark is None or end is None:
            out[name] = None
            continue
        at = min(max(mark, previous), end)
        out[name] = at - previous
        previous = at
    return out


__all__ = [
    "BARGE_STAGES",
    "CYCLE",
    "ENDED_AFTER_TAKE_BACK_TICKS",
    "STAGES",
    "TAKE_BACK",
    "TURNS",
    "Act",
    "ActResult",
    "Caller",
    "hesitation",
    "measure",
    "noise",
    "script",
]
