"""One streamed turn on a virtual clock, recorded event by event, for the timeline plot.

Tokens arrive at ``TOKENS_PER_S``; a single worker runs each job as soon as the session hands it
out (the compute time is measured for real and added to the virtual clock); a real-time listener
takes one frame every 80 ms from the moment the first frame exists, and waits (an underrun) if
the next one is not there. A parallel ``Segmenter`` with the session's settings, fed the same
tokens at the same times and polled at its own deadlines, says when each unit's text was
complete. Everything is deterministic except the measured compute.
Never plots; never touches asyncio.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tts_service.benchmark.texts import first_sentence_token, tokenize
from tts_service.engine.clock import FakeClock
from tts_service.engine.jobs import JobResult, UnitJob
from tts_service.engine.ports import Backend, UnitBackend
from tts_service.engine.segmenter import Segmenter
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import FRAME_MS, Done, SampleFormat, SpeechFrame

F32 = npt.NDArray[np.float32]
TOKENS_PER_S = 30.0
FRAME_S = FRAME_MS / 1000.0
_MAX_STEPS = 100_000


@dataclass(slots=True)
class TurnTrace:
    """What happened when, in seconds from the first token, for one turn."""

    text: str
    sample_rate: int
    token_times_s: list[float] = field(default_factory=list)
    unit_ready_s: list[tuple[float, str]] = field(default_factory=list)
    synth_spans_s: list[tuple[float, float, str]] = field(default_factory=list)
    frame_times_s: list[float] = field(default_factory=list)
    frames: list[F32] = field(default_factory=list)
    unit_spans: list[tuple[int, int]] = field(default_factory=list)
    underruns: int = 0
    #: when naive stitching would play its first audio: first whole sentence, then its synthesis
    naive_first_audio_s: float = 0.0

    def sample_time_s(self, sample: int) -> float:
        """When output sample ``sample`` of the turn was played."""
        if not self.frame_times_s:
            return 0.0
        n = len(self.frames[0]) if self.frames else 1
        k = min(sample // n, len(self.frame_times_s) - 1)
        return self.frame_times_s[k] + (sample - k * n) / self.sample_rate


class _Sim:
    def __init__(self, backend: Backend, text: str, seed: int) -> None:
        self.clock = FakeClock()
        config = SessionConfig(sample_format=SampleFormat.FLOAT32, seed=seed)
        self.session = EngineSession(backend, config, clock=self.clock)
        self.segmenter = Segmenter(first_unit_hold_s=config.first_unit_hold_s, tail_hold_s=config.tail_hold_s)
        self.tokens = tokenize(text, seed)
        self.trace = TurnTrace(text, config.sample_rate)
        self.next_token = 0
        self.flushed = False
        self.in_flight: tuple[float, JobResult] | None = None  # (done at, result)
        self.next_play: float | None = None
        self.started = False
        self.done = False

    def _units(self, now: float) -> None:
        for unit in self.segmenter.units_ready():
            self.trace.unit_ready_s.append((now, unit.text))

    def _next_event(self) -> float | None:
        times = []
        if self.next_token < len(self.tokens) or not self.flushed:
            times.append(self.next_token / TOKENS_PER_S)
        if self.in_flight is not None:
            times.append(self.in_flight[0])
        if self.next_play is not None:
            times.append(self.next_play)
        for due in (self.session.next_deadline_s(), self.segmenter.next_deadline_s()):
            if due is not None and not math.isinf(due):
                times.append(due)
        return min(times) if times else None

    def _play(self, now: float) -> None:
        """The listener wants a frame now (or is waiting for one)."""
        while (item := self.session.next_output()) is not None:
            if isinstance(item, SpeechFrame):
                self.trace.frame_times_s.append(now)
                self.trace.frames.append(item.samples.astype(np.float32))
                self.next_play = now + FRAME_S
                self.started = True
                return
            if isinstance(item, Done):
                self.done = True
                self.next_play = None
                return
        if self.started and self.next_play is not None:
            self.trace.underruns += 1
        self.next_play = None  # wait: played as soon as the frame exists

    def step(self) -> bool:
        now = self._next_event()
        if now is None or self.done:
            return False
        self.clock.advance(max(0.0, now - self.clock.now_s))
        if self.next_token < len(self.tokens) and self.next_token / TOKENS_PER_S <= now:
            token = self.tokens[self.next_token]
            self.trace.token_times_s.append(now)
            self.session.inject(token)
            self.segmenter.feed(token, now)
            self.next_token += 1
        elif (
            not self.flushed and self.next_token >= len(self.tokens) and self.next_token / TOKENS_PER_S <= now
        ):
            self.session.flush()
            self.segmenter.flush()
            self.flushed = True
        self.segmenter.poll(now)
        self._units(now)
        if self.in_flight is not None and self.in_flight[0] <= now:
            self.session.complete(self.in_flight[1])
            self.in_flight = None
        if self.next_play is None or self.next_play <= now:
            self._play(now)
        if self.in_flight is None and (job := self.session.next_job()) is not None:
            t0 = time.perf_counter()
            result = job.run()
            spent = time.perf_counter() - t0
            self.in_flight = (now + spent, result)
            self.trace.synth_spans_s.append((now, now + spent, job.text if isinstance(job, UnitJob) else ""))
        return True


def _naive_first_audio_s(backend: Backend, tokens: list[str], seed: int) -> float:
    if not isinstance(backend, UnitBackend):
        return 0.0
    index, sentence = first_sentence_token(tokens)
    t0 = time.perf_counter()
    backend.synthesize(backend.new_voice_state(backend.default_voice), sentence, speed=1.0, seed=seed)
    return index / TOKENS_PER_S + time.perf_counter() - t0


def simulate_turn(backend: Backend, text: str, *, seed: int = 0) -> TurnTrace:
    """Stream ``text`` through a fresh session on the virtual clock and record the timeline."""
    sim = _Sim(backend, text, seed)
    sim.trace.naive_first_audio_s = _naive_first_audio_s(backend, sim.tokens, seed)
    for _ in range(_MAX_STEPS):
        if not sim.step():
            break
    sim.trace.unit_spans = list(sim.session.timeline.unit_spans)
    sim.session.close()
    return sim.trace
