"""The voice agent's Pipecat pipeline, assembled from swappable parts, and how one call runs it.

    parts = AgentParts(runtime=runtime)                 # one warm engine shared by every call
    agent = build_pipeline(transport, parts)            # transport: Twilio, WebRTC, any Pipecat one
    await run_agent(agent, in_sample_rate=8000, out_sample_rate=8000, name="twilio-1")

The pipeline is::

    transport.input() -> VAD -> STT -> heard probe -> user aggregator [-> relay] -> LLM (or the
        demo responder) -> WarmlineTTSService -> transport.output() -> spoken probe
        -> assistant aggregator [-> interruption sink]

(the bracketed two with the agent's turn-taking: ``agent.turn_taking.speculation``)

Turn-taking and barge-in: the VAD (Silero by default; its model ships in the pipecat wheel) marks
speech; the user aggregator's VAD start strategy broadcasts an ``InterruptionFrame`` when the
caller starts talking (the TTS pauses the engine, the transport drops or clears what it holds, the
responder stops streaming), and ends the caller's turn ``user_speech_timeout_s`` after the VAD
stop once the transcript is in. The assistant aggregator sits after the output so the context
holds only the words the caller heard (on Twilio: confirmed by the carrier's marks).

``TurnLog`` writes one line per bot turn (what was heard, first-audio latency, interrupted or
not) and feeds the optional metrics. This module builds and runs pipelines; it never loads a
model on the event loop and never owns the shared runtime.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipecat.audio.vad.vad_analyzer import VADAnalyzer
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    EndFrame,
    Frame,
    InterruptionFrame,
    TranscriptionFrame,
    TTSSpeakFrame,
)
from pipecat.observers.base_observer import BaseObserver
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transports.base_transport import BaseTransport
from pipecat.turns.user_stop import SpeechTimeoutUserTurnStopStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.workers.runner import WorkerRunner

from agent.responder import DemoResponder
from agent.stt.choice import stt_factory
from agent.turn_taking.strategies import TurnTaking, TurnTakingConfig
from agent.vad import EnergyGatedVADAnalyzer, silero_vad
from tts_service.engine.session import SessionConfig
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

log = logging.getLogger("warmline.agent")

SYSTEM_PROMPT = (
    "You are the friendly phone assistant of a small restaurant. Answer in one or two short spoken "
    "sentences, without lists, markdown or emojis."
)


#: the engine speaks an answer's first words once this long has passed since its first token (and
#: three words are complete): 0.1 s instead of the engine's 0.15 s, because in a call every ms
#: before the first word is heard as hesitation. At 30 tokens/s the third word is in at 67 ms, so
#: the hold costs one token and gives the first unit a fourth word; a faster LLM fills it with a
#: clause, which hibari (a contour per unit) speaks better than three words
FIRST_UNIT_HOLD_S = 0.1


def agent_tts(runtime: EngineRuntime, *, voice: str | None = None) -> WarmlineTTSService:
    """The agent's TTS: WarmlineTTSService on the shared runtime, tuned for a quick first word,
    in ``voice`` (None: the backend's default)."""
    config = SessionConfig(first_unit_hold_s=FIRST_UNIT_HOLD_S)
    return WarmlineTTSService(runtime=runtime, session_config=config, voice=voice)


@dataclass(frozen=True, slots=True)
class AgentParts:
    """Factories for each part of a call's pipeline; tests swap any of them."""

    runtime: EngineRuntime
    vad: Callable[[], VADAnalyzer] = silero_vad
    #: the default shares one pool of pocketsphinx decoders among the calls of these parts
    stt: Callable[[], FrameProcessor] = field(default_factory=stt_factory)
    llm: Callable[[], FrameProcessor] = DemoResponder
    tts: Callable[[EngineRuntime], FrameProcessor] = agent_tts
    system_prompt: str = SYSTEM_PROMPT
    #: after the VAD stop (and the transcript), how long the caller may pause before the bot answers;
    #: 0 because the VAD's stop already waits (``agent.vad``) and the streaming STT's transcript is
    #: final at the VAD stop, so any extra wait is added straight to the answer's latency
    user_speech_timeout_s: float = 0.0
    #: a callback for each finished turn (metrics)
    on_turn: Callable[[TurnRecord], None] | None = None
    #: callbacks with the LLM requests of each answered caller turn, and each barge-in's outcome
    #: ("resumed": a backchannel or a noise; "interrupted") (metrics)
    on_llm_requests: Callable[[int], None] | None = None
    on_barge_in: Callable[[str], None] | None = None
    #: Pipecat observers for each call's pipeline (``agent.latency.TurnLatencyObserver``, RTVI...)
    observers: Callable[[], list[BaseObserver]] = list
    #: the turn-taking (``agent.turn_taking``): turn ends by silence, Smart Turn and the words, a
    #: speculative answer held ready, take-back barge-ins; None: the fast VAD-only turn-taking
    #: (the turn ends at the VAD stop, any speech over the bot interrupts it)
    turn_taking: TurnTakingConfig | None = field(default_factory=TurnTakingConfig)


@dataclass(slots=True)
class TurnRecord:
    """One bot turn as the log line shows it."""

    number: int
    heard: str
    first_audio_s: float | None = None
    interrupted: bool = False


class TurnLog:
    """What was heard and how fast the bot answered, one log line per bot turn.

    ``heard_probe`` sits after the STT, ``spoken_probe`` after the transport's output.
    """

    def __init__(self, name: str, on_turn: Callable[[TurnRecord], None] | None = None) -> None:
        self.name = name
        self.turns: list[TurnRecord] = []
        self._on_turn = on_turn
        self._heard: list[str] = []
        self._heard_at_s: float | None = None
        self._current: TurnRecord | None = None
        self._turn_ended = asyncio.Event()
        self.heard_probe = _Probe(self._on_heard_side, name=f"{name}-heard-probe")
        self.spoken_probe = _Probe(self._on_spoken_side, name=f"{name}-spoken-probe")

    def _on_heard_side(self, frame: Frame, now_s: float) -> None:
        if isinstance(frame, TranscriptionFrame) and frame.text.strip():
            self._heard.append(frame.text.strip())
            self._heard_at_s = now_s

    def _on_spoken_side(self, frame: Frame, now_s: float) -> None:
        if isinstance(frame, BotStartedSpeakingFrame) and self._current is None:
            heard, self._heard = " ".join(self._heard), []
            latency = None if self._heard_at_s is None else now_s - self._heard_at_s
            self._heard_at_s = None
            self._current = TurnRecord(len(self.turns) + 1, heard, latency)
        elif isinstance(frame, InterruptionFrame) and self._current is not None:
            self._current.interrupted = True
            self._finish()
        elif isinstance(frame, BotStoppedSpeakingFrame) and self._current is not None:
            self._finish()

    async def quiet_after(self, finished: int) -> None:
        """Return once more than ``finished`` bot turns have ended and the bot is silent."""
        while len(self.turns) <= finished or self._current is not None:
            self._turn_ended.clear()
            await self._turn_ended.wait()

    def _finish(self) -> None:
        turn, self._current = self._current, None
        assert turn is not None
        self.turns.append(turn)
        self._turn_ended.set()
        latency = "n/a" if turn.first_audio_s is None else f"{turn.first_audio_s * 1000:.0f} ms"
        log.info(
            '%s: turn %d: heard "%s" | first audio %s | %s',
            self.name,
            turn.number,
            turn.heard or "-",
            latency,
            "interrupted" if turn.interrupted else "complete",
        )
        if self._on_turn is not None:
            self._on_turn(turn)


class _Probe(FrameProcessor):
    """Passes every frame on; shows each downstream frame to ``see`` first."""

    def __init__(self, see: Callable[[Frame, float], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._see = see

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction is FrameDirection.DOWNSTREAM:
            self._see(frame, self.get_clock().get_time() / 1e9)
        await self.push_frame(frame, direction)


@dataclass(slots=True)
class AgentPipeline:
    """One call's pipeline and the handles tests and logs look at."""

    pipeline: Pipeline
    transport: BaseTransport
    context: LLMContext
    stt: FrameProcessor
    llm: FrameProcessor
    tts: FrameProcessor
    turns: TurnLog
    observers: list[BaseObserver] = field(default_factory=list)
    #: the call's turn-taking (None with the fast VAD-only turn-taking)
    turn_taking: TurnTaking | None = None
    #: the worker running the pipeline, once ``run_agent`` has started it
    worker: PipelineWorker | None = None
    #: an ``EndFrame`` lets the output play what it holds before the call ends (``say_goodbye``)
    ends_by_frame: bool = True
    #: where the call does not end by frame: how long the far end may still be playing the last
    #: audio sent (its jitter buffer, its audio output) before a hang-up would cut it off
    playout_grace_s: float = 0.0

    async def say_goodbye(self, text: str) -> None:
        """Speak ``text`` after what is being said, then end the call once it has been played.

        An ``EndFrame`` behind the speech ends the pipeline once the output has played it, when
        the transport's output holds on to its audio until then (Twilio's waits for the marks).
        Pipecat's SmallWebRTC input disconnects the peer as the ``EndFrame`` passes it, before
        the goodbye is even made, so there the call waits for the bot to have finished speaking
        (``TurnLog``), gives the far end ``playout_grace_s`` to play its last words, and hangs up."""
        if self.worker is None:
            return
        if not self.ends_by_frame:
            spoken = len(self.turns.turns)
            await self.worker.queue_frame(TTSSpeakFrame(text))
            await self.turns.quiet_after(spoken)
            await asyncio.sleep(self.playout_grace_s)
            await self.hang_up()
            return
        await self.worker.queue_frames([TTSSpeakFrame(text), EndFrame()])

    async def hang_up(self) -> None:
        """End the call now, whatever is being said."""
        if self.worker is not None:
            await self.worker.cancel()


def build_pipeline(transport: BaseTransport, parts: AgentParts, *, name: str = "call") -> AgentPipeline:
    """The pipeline of one call on ``transport`` (see the module docstring for its shape)."""
    context = LLMContext(messages=[{"role": "system", "content": parts.system_prompt}])
    taking = None
    if parts.turn_taking is not None:
        taking = TurnTaking(
            parts.turn_taking, name=name, on_llm_requests=parts.on_llm_requests, on_barge_in=parts.on_barge_in
        )
    if taking is not None:
        strategies = taking.strategies()
        # a turn with no words (a noise, a backchannel taken back) asks nothing of the LLM
        user_params = LLMUserAggregatorParams(user_turn_strategies=strategies, empty_user_turn=None)
        vad: VADAnalyzer = EnergyGatedVADAnalyzer(parts.vad())
    else:
        strategies = UserTurnStrategies(
            stop=[SpeechTimeoutUserTurnStopStrategy(user_speech_timeout=parts.user_speech_timeout_s)]
        )
        user_params = LLMUserAggregatorParams(user_turn_strategies=strategies)
        vad = parts.vad()
    aggregators = LLMContextAggregatorPair(context, user_params=user_params)
    stt, llm, tts = parts.stt(), parts.llm(), parts.tts(parts.runtime)
    turns = TurnLog(name, parts.on_turn)
    relay = [taking.relay()] if taking is not None else []
    sink = [taking.sink()] if taking is not None else []
    pipeline = Pipeline(
        [
            transport.input(),
            VADProcessor(vad_analyzer=vad),
            stt,
            turns.heard_probe,
            aggregators.user(),
            *relay,
            llm,
            tts,
            transport.output(),
            turns.spoken_probe,
            aggregators.assistant(),
            *sink,
        ]
    )
    return AgentPipeline(
        pipeline, transport, context, stt, llm, tts, turns, parts.observers(), turn_taking=taking
    )


async def run_agent(
    agent: AgentPipeline,
    *,
    in_sample_rate: int,
    out_sample_rate: int,
    name: str = "call",
    enable_metrics: bool = False,
) -> None:
    """Run one call's pipeline until it ends or the transport reports the caller gone."""
    worker = PipelineWorker(
        agent.pipeline,
        params=PipelineParams(
            audio_in_sample_rate=in_sample_rate,
            audio_out_sample_rate=out_sample_rate,
            enable_metrics=enable_metrics,
        ),
        cancel_on_idle_timeout=False,
        observers=agent.observers,
    )
    agent.worker = worker

    async def gone(*_: Any) -> None:
        log.info("%s: the caller is gone; ending the pipeline", name)
        await worker.cancel()

    agent.transport.add_event_handler("on_client_disconnected", gone)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await runner.run()


__all__ = [
    "FIRST_UNIT_HOLD_S",
    "SYSTEM_PROMPT",
    "AgentParts",
    "AgentPipeline",
    "TurnLog",
    "TurnRecord",
    "agent_tts",
    "build_pipeline",
    "run_agent",
]
