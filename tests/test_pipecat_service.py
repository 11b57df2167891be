"""WarmlineTTSService in real Pipecat pipelines: tokens to audio, barge-in word accounting, lifecycle.

The pipelines are Pipecat's own: ``Pipeline``, ``PipelineWorker``, ``WorkerRunner``, an
``LLMContext`` with the assistant half of ``LLMContextAggregatorPair`` after the service. Between
them ``Playback`` (``agent.sim``) stands in for the output transport: it holds what the service
pushes and "plays" it when the test says so, so a barge-in lands after an exact number of audio
frames.

Truth for word accounting comes from the engine itself, run offline: with a clock that never
moves, the engine's units depend only on the text, so an ``EngineSession`` fed the same text
yields the same 80 ms frames with the same word marks as the service's session does.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from engine_helpers import frames_of, pump
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    MetricsFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSTextFrame,
    TTSUpdateSettingsFrame,
)
from pipecat.metrics.metrics import TTFBMetricsData, TTSUsageMetricsData
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import run_test
from pipecat.workers.runner import WorkerRunner
from toy_backends import ToneBackend

from agent.sim import Playback
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.clock import FakeClock
from tts_service.engine.ports import Backend
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.types import SpeechFrame, frame_samples
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

TIMEOUT_S = 30.0
Recognize = Callable[..., str | None]
SHORT = "Hello there, friend."
ANSWER = "Sure, I can help with that. The store opens at nine tomorrow morning. See you there!"


def frozen_clock() -> float:
    """A clock that never moves: hold timers never fire, so units depend only on the text."""
    return 0.0


class UpstreamRecorder(FrameProcessor):
    """First in the pipeline: keeps what the service sends upstream (errors)."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[Frame] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction is FrameDirection.UPSTREAM:
            self.frames.append(frame)
        await self.push_frame(frame, direction)


class Call:
    """One Pipecat pipeline run: service, playback, assistant context aggregator."""

    def __init__(self, service: WarmlineTTSService, *, hold: bool = False, sample_rate: int = 24000) -> None:
        self.service = service
        self.context = LLMContext()
        self.playback = Playback(hold=hold)
        self.upstream = UpstreamRecorder()
        aggregators = LLMContextAggregatorPair(self.context)
        self.pipeline = Pipeline([self.upstream, service, self.playback, aggregators.assistant()])
        self.worker = PipelineWorker(
            self.pipeline,
            params=PipelineParams(
                audio_out_sample_rate=sample_rate, enable_metrics=True, enable_usage_metrics=True
            ),
            cancel_on_idle_timeout=False,
        )

    async def send(self, *frames: Frame) -> None:
        await self.worker.queue_frames(list(frames))

    async def answer(self, *tokens: str, end: bool = True) -> None:
        """An LLM answer: start, the tokens, and (unless ``end`` is False) the end."""
        frames: list[Frame] = [LLMFullResponseStartFrame(), *(LLMTextFrame(text=t) for t in tokens)]
        if end:
            frames.append(LLMFullResponseEndFrame())
        await self.send(*frames)

    async def interrupt(self) -> None:
        """The caller barges in: an InterruptionFrame, once it has reached the playback."""
        await self.send(InterruptionFrame())
        await asyncio.wait_for(self.playback.interruption_seen.wait(), TIMEOUT_S)

    def assistant_text(self) -> list[str]:
        messages = [m for m in self.context.messages if isinstance(m, dict)]
        return [str(m.get("content")) for m in messages if m.get("role") == "assistant"]


@asynccontextmanager
async def running(call: Call, *, end: type[Frame] = EndFrame) -> AsyncIterator[Call]:
    """Run ``call``'s pipeline; on exit send ``end`` (EndFrame or CancelFrame) and wait for it."""
    started = asyncio.Event()

    async def _started(worker: PipelineWorker, frame: StartFrame) -> None:
        started.set()

    call.worker.add_event_handler("on_pipeline_started", _started)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(call.worker)
    run = asyncio.create_task(runner.run(), name="test-pipeline-runner")
    try:
        await asyncio.wait_for(started.wait(), TIMEOUT_S)
        yield call
        if end is CancelFrame:
            await call.worker.cancel()
        else:
            await call.worker.queue_frame(EndFrame())
        await asyncio.wait_for(run, TIMEOUT_S)
    finally:
        if not run.done():
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)


def tone_runtime(
    clock: Callable[[], float] = frozen_clock, backend: ToneBackend | None = None
) -> EngineRuntime:
    return EngineRuntime(backend or ToneBackend(), workers=1, clock=clock)


def tone_service(runtime: EngineRuntime, **kwargs: Any) -> WarmlineTTSService:
    """A service on a shared runtime that hands frames on as fast as they come."""
    return WarmlineTTSService(runtime=runtime, max_lead_s=None, **kwargs)


def truth_frames(
    backend: Backend, text: str, *, config: SessionConfig | None = None, flush: bool = True
) -> list[SpeechFrame]:
    """The frames the engine makes for ``text`` when time stands still (no hold ever fires)."""
    session = EngineSession(backend, config or SessionConfig(), clock=frozen_clock)
    session.start(text)
    if flush:
        session.flush()
    return frames_of(pump(session))


def words_before(frames: Sequence[SpeechFrame], num_frames: int) -> str:
    """The words whose audio starts in the first ``num_frames`` frames, as the context joins them."""
    return " ".join(w.word for f in frames[:num_frames] for w in f.words)


def tokens(text: str, size: int = 3) -> list[str]:
    """``text`` cut every ``size`` characters, as an LLM's tokens might be (mid-word included)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def cut_point(frames: Sequence[SpeechFrame], where: str) -> int:
    """How many frames to play so the barge-in lands ``where`` in the answer."""
    marks = [w for f in frames for w in f.words]
    edge = frame_samples(frames[0].sample_rate)
    for n in range(1, len(frames)):
        cut = n * edge
        heard = [w for w in marks if w.start_sample < cut]
        if not heard or len(heard) == len(marks):
            continue
        last, nxt = heard[-1], marks[len(heard)]
        in_gap = last.end_sample <= cut <= nxt.start_sample
        ends_sentence = last.word.endswith((".", "!", "?"))
        if where == "mid-word" and last.start_sample < cut - edge and cut < last.end_sample:
            return n
        if where == "mid-sentence" and in_gap and not ends_sentence:
            return n
        if where == "between-sentences" and in_gap and ends_sentence:
            return n
    raise AssertionError(f"no cut point {where} in the answer")


def audio_of(frames: Sequence[Frame]) -> list[TTSAudioRawFrame]:
    return [f for f in frames if isinstance(f, TTSAudioRawFrame)]


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``main`` on a fresh loop (pytest-timeout bounds it)."""
    asyncio.run(main())


# -- tokens to audio --------------------------------------------------------------------------


def test_an_answer_becomes_whole_80ms_frames_and_the_context_records_all_of_it() -> None:
    """Tokens cut mid-word give exactly the engine's frames, 80 ms each, and the whole answer in context."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.answer(*tokens(ANSWER))
            truth = truth_frames(rt.backend, ANSWER)
        audio = audio_of(call.playback.received)
        assert [f.audio for f in audio] == [f.pcm16_bytes() for f in truth]
        assert {len(f.audio) for f in audio} == {2 * frame_samples(24000)}
        assert call.assistant_text() == [ANSWER]

    run(main)


def test_hibari_speaks_the_llm_tokens_and_the_recognizer_hears_them(
    hibari_backend: Backend, recognizer: Recognize
) -> None:
    """Real hibari audio out of a Pipecat pipeline at 16 kHz is recognised as the streamed answer."""
    sentence = "i can help you with that, let me check the schedule for tomorrow."

    async def main() -> list[TTSAudioRawFrame]:
        async with EngineRuntime(hibari_backend, workers=1) as rt:
            call = Call(tone_service(rt, session_config=SessionConfig(seed=0)), sample_rate=16000)
            async with running(call):
                await call.answer(*tokens(sentence, 4))
        assert call.assistant_text() == [sentence]
        return audio_of(call.playback.received)

    audio: list[TTSAudioRawFrame] = []

    async def collect() -> None:
        audio.extend(await main())

    run(collect)
    assert audio and all(f.sample_rate == 16000 and len(f.audio) == 2 * 1280 for f in audio)
    samples = np.frombuffer(b"".join(f.audio for f in audio), dtype="<i2")
    grammar = [sentence, *DISTRACTORS]
    assert recognizer(samples, 16000, grammar) == " ".join(normalize(sentence))


def test_the_model_is_loaded_and_warm_once_the_pipeline_started_before_any_text(
    recognizer: Recognize,
) -> None:
    """Built as the README shows (the service owns its runtime), on a hibari model not yet loaded:
    by the time the StartFrame has passed, the model is loaded and one warm-up turn was said at
    the pipeline's rate, so the first answer does not pay for it."""
    fresh = HibariBackend()
    seen: dict[str, object] = {}

    async def main() -> list[TTSAudioRawFrame]:
        service = WarmlineTTSService(backend=fresh)
        call = Call(service, sample_rate=16000)
        assert not fresh.is_warm() and not service.warm
        async with running(call):  # returns once the pipeline started: no text was sent yet
            runtime = service.runtime
            assert runtime is not None
            seen.update(
                warm=service.warm and fresh.is_warm() and runtime.started,
                sessions_opened=runtime.stats.sessions_opened,  # the warm-up's and the call's
                jobs_before_text=runtime.stats.jobs_run,
                open_sessions=runtime.session_count,
            )
            await call.answer(*tokens(SHORT))
        return audio_of(call.playback.received)

    audio: list[TTSAudioRawFrame] = []

    async def collect() -> None:
        audio.extend(await main())

    run(collect)
    assert seen["warm"] is True
    assert seen["sessions_opened"] == 2 and seen["open_sessions"] == 1
    assert isinstance(seen["jobs_before_text"], int) and seen["jobs_before_text"] >= 1
    samples = np.frombuffer(b"".join(f.audio for f in audio), dtype="<i2")
    assert recognizer(samples, 16000, [SHORT, *DISTRACTORS]) == " ".join(normalize(SHORT))


@pytest.mark.parametrize("sample_rate", [8000, 16000, 24000])
def test_audio_comes_at_the_pipeline_output_rate_in_whole_80ms_frames(sample_rate: int) -> None:
    """The engine session runs at the pipeline's output rate; every frame is 80 ms of it."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt), sample_rate=sample_rate)
            async with running(call):
                await call.answer(*tokens(ANSWER))
            truth = truth_frames(rt.backend, ANSWER, config=SessionConfig(sample_rate=sample_rate))
        audio = audio_of(call.playback.received)
        assert len(audio) == len(truth)
        assert {(f.sample_rate, f.num_channels, len(f.audio)) for f in audio} == {
            (sample_rate, 1, 2 * frame_samples(sample_rate))
        }

    run(main)


def test_each_word_frame_follows_the_audio_frame_its_word_starts_in_and_carries_no_pts() -> None:
    """Words travel in order with the audio, without a pts: any output transport then releases
    each once the audio before it has been written (``test_context_under_load``)."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.answer(*tokens(ANSWER))
            truth = truth_frames(rt.backend, ANSWER)
        marks = [w for f in truth for w in f.words]
        edge = frame_samples(24000)
        samples, seen = 0, []
        for frame in call.playback.received:
            if isinstance(frame, TTSAudioRawFrame):
                samples += frame.num_frames
            elif isinstance(frame, TTSTextFrame):
                seen.append((frame.text, samples, frame.pts))
        assert [w for w, _, _ in seen] == [m.word for m in marks]
        for (word, before, pts), mark in zip(seen, marks, strict=True):
            assert before - edge <= mark.start_sample < before, (word, before, mark.start_sample)
            assert not pts, word

    run(main)


# -- interruption -----------------------------------------------------------------------------


@pytest.mark.parametrize("max_lead_s", [None, 0.3], ids=["unpaced", "paced"])
@pytest.mark.parametrize("where", ["mid-word", "mid-sentence", "between-sentences"])
def test_after_a_barge_in_the_context_holds_exactly_the_words_that_began_playing(
    where: str, max_lead_s: float | None
) -> None:
    """Interrupted after N played frames, the assistant context is the words whose audio started in them."""

    async def main() -> None:
        async with tone_runtime() as rt:
            truth = truth_frames(rt.backend, ANSWER)
            played = cut_point(truth, where)
            call = Call(WarmlineTTSService(runtime=rt, max_lead_s=max_lead_s), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await asyncio.wait_for(call.playback.play(played), TIMEOUT_S)
                await call.interrupt()
                assert call.service.session is not None
                assert call.service.session.state is SessionState.IDLE
                await call.answer(*tokens("Okay."))
        assert call.assistant_text() == [words_before(truth, played), "Okay."]
        assert_nothing_after_interruption(call, first_context=first_context_id(call))

    run(main)


def test_words_of_a_sentence_the_llm_has_not_finished_reach_the_context() -> None:
    """A barge-in while the LLM is mid-sentence keeps the heard words of that unfinished sentence."""
    text = "I checked for you. The store opens at nine tomorrow, and"
    clock = FakeClock()

    async def main() -> None:
        async with tone_runtime(clock) as rt:
            call = Call(tone_service(rt), hold=True)
            async with running(call):
                await call.answer(text, end=False)  # one token: the engine has it all at once
                await asyncio.wait_for(call.playback.play(1), TIMEOUT_S)
                clock.advance(10.0)  # the tail hold expires: the engine speaks the unfinished sentence
                truth = held_truth(rt.backend, text)
                played = len(truth) - 3
                await asyncio.wait_for(call.playback.play(played - 1), TIMEOUT_S)
                await call.interrupt()
        heard = words_before(truth, played)
        assert "store" in heard.split()  # the cut is inside the sentence the LLM was still writing
        assert call.assistant_text() == [heard]
        assert_nothing_after_interruption(call, first_context=first_context_id(call))

    run(main)


def held_truth(backend: Backend, text: str) -> list[SpeechFrame]:
    """The frames for unfinished ``text`` once its hold has expired (its last partial word unsaid)."""
    clock = FakeClock()
    session = EngineSession(backend, SessionConfig(), clock=clock)
    session.start(text[: text.rfind(" ") + 1])
    outputs = pump(session)
    clock.advance(10.0)
    return frames_of(outputs + pump(session))


def first_context_id(call: Call) -> str | None:
    return next(f.context_id for f in call.playback.received if isinstance(f, TTSStartedFrame))


def assert_nothing_after_interruption(call: Call, *, first_context: str | None) -> None:
    """No audio or word of the interrupted context reached the pipeline after the InterruptionFrame."""
    late = [
        f
        for f in call.playback.after_interruption
        if isinstance(f, (TTSAudioRawFrame, TTSTextFrame, TTSStoppedFrame)) and f.context_id == first_context
    ]
    assert call.playback.interrupted
    assert late == []


def test_the_answer_after_a_barge_in_starts_from_a_reset_prefix() -> None:
    """After an interruption the engine drops the prefix, and the next answer is spoken in full."""
    backend = ToneBackend()

    async def main() -> None:
        async with tone_runtime(backend=backend) as rt:
            call = Call(tone_service(rt), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await asyncio.wait_for(call.playback.play(8), TIMEOUT_S)
                await call.interrupt()
                assert backend.context_resets == 0
                call.playback.hold = False
                await call.answer(*tokens("Of course. Anything else?"))
            assert call.service.session is None
        assert backend.context_resets == 1
        assert call.assistant_text()[-1] == "Of course. Anything else?"
        second = [f for f in call.playback.after_interruption if isinstance(f, TTSAudioRawFrame)]
        assert len(second) == len(truth_frames(backend, "Of course. Anything else?"))

    run(main)


@pytest.mark.parametrize("stale_end", [True, False], ids=["ended", "never-ended"])
def test_tokens_of_an_interrupted_answer_that_arrive_after_the_interruption_are_never_spoken(
    stale_end: bool,
) -> None:
    """Pipecat's InterruptionFrame overtakes tokens already queued behind it: they stay unsaid.

    An LLM cancelled mid-answer may or may not send the answer's end; either way the next
    answer's start is spoken whole, and the context holds the heard words and that answer.
    """

    async def main() -> None:
        async with tone_runtime() as rt:
            truth = truth_frames(rt.backend, ANSWER)
            call = Call(tone_service(rt), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER), end=False)
                await asyncio.wait_for(call.playback.play(8), TIMEOUT_S)
                await call.interrupt()
                overtaken: list[Frame] = [LLMTextFrame(text="Stale words of the old answer. ")]
                await call.send(*overtaken, *([LLMFullResponseEndFrame()] if stale_end else []))
                call.playback.hold = False
                await call.answer(*tokens("Okay."))
        assert call.assistant_text() == [words_before(truth, 8), "Okay."]
        spoken = [f.text for f in call.playback.after_interruption if isinstance(f, TTSTextFrame)]
        assert spoken == ["Okay."]

    run(main)


def test_a_speak_frame_mid_answer_is_spoken_after_the_answer_not_inside_it() -> None:
    """A TTSSpeakFrame arriving mid-answer gets its own context, played after the whole answer."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            half = len(ANSWER) // 2
            async with running(call):
                await call.send(
                    LLMFullResponseStartFrame(),
                    *(LLMTextFrame(text=t) for t in tokens(ANSWER[:half])),
                    TTSSpeakFrame("Please hold."),
                    *(LLMTextFrame(text=t) for t in tokens(ANSWER[half:])),
                    LLMFullResponseEndFrame(),
                )
            truth = truth_frames(rt.backend, ANSWER) + truth_frames(rt.backend, "Please hold.")
        received = call.playback.received
        contexts = [f.context_id for f in audio_of(received)]
        answer_ctx, speak_ctx = dict.fromkeys(contexts)
        assert contexts == [answer_ctx] * (len(contexts) - contexts.count(speak_ctx)) + [speak_ctx] * (
            contexts.count(speak_ctx)
        )
        assert [f.audio for f in audio_of(received)] == [f.pcm16_bytes() for f in truth]
        words = [f.text for f in received if isinstance(f, TTSTextFrame)]
        assert " ".join(words) == ANSWER + " Please hold."

    run(main)


def test_a_greeting_outside_an_answer_is_spoken_and_committed_to_the_context() -> None:
    """A TTSSpeakFrame with no LLM answer around it is spoken whole and appended to the context."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.send(TTSSpeakFrame("Hello, thanks for calling."))
            truth = truth_frames(rt.backend, "Hello, thanks for calling.")
        assert [f.audio for f in audio_of(call.playback.received)] == [f.pcm16_bytes() for f in truth]
        assert call.assistant_text() == ["Hello, thanks for calling."]

    run(main)


def test_an_uninterruptible_speak_frame_survives_a_barge_in_on_the_answer_before_it() -> None:
    """A barge-in drops the answer but not the uninterruptible TTSSpeakFrame queued behind it."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt), hold=True)
            notice = TTSSpeakFrame("This call is recorded.")
            notice.interruptible = False
            async with running(call):
                await call.answer(*tokens(ANSWER), end=False)
                await call.send(notice)
                await asyncio.wait_for(call.playback.play(8), TIMEOUT_S)
                await call.interrupt()
                call.playback.hold = False
                await call.send(LLMFullResponseEndFrame())
            truth = truth_frames(rt.backend, ANSWER)
            notice_truth = truth_frames(rt.backend, "This call is recorded.")
        after = audio_of(call.playback.after_interruption)
        assert [f.audio for f in after] == [f.pcm16_bytes() for f in notice_truth]
        assert_nothing_after_interruption(call, first_context=first_context_id(call))
        assert call.assistant_text()[0] == words_before(truth, 8)

    run(main)


# -- settings and metrics ---------------------------------------------------------------------


def test_settings_update_changes_voice_and_speed_from_the_next_turn() -> None:
    """TTSUpdateSettingsFrame between answers switches voice and speed for the next answer only."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.answer(*tokens("First answer."))
                await call.send(
                    TTSUpdateSettingsFrame(delta=WarmlineTTSService.Settings(voice="b", speed=2.0))
                )
                await call.answer(*tokens("Second answer."))
            first = truth_frames(rt.backend, "First answer.")
            second = truth_frames(rt.backend, "Second answer.", config=SessionConfig(voice="b", speed=2.0))
        assert [f.audio for f in audio_of(call.playback.received)] == [
            f.pcm16_bytes() for f in first + second
        ]
        assert call.service.settings == WarmlineTTSService.Settings(
            model="tone", voice="b", language=None, speed=2.0
        )

    run(main)


def test_ttfb_and_usage_metrics_are_reported() -> None:
    """The service reports TTFB and TTS usage (characters) metrics for an answer."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            assert call.service.can_generate_metrics()
            async with running(call):
                await call.answer(*tokens(ANSWER))
        data = [d for f in call.playback.received if isinstance(f, MetricsFrame) for d in f.data]
        ttfb = [d for d in data if isinstance(d, TTFBMetricsData) and d.value > 0]
        usage = [d for d in data if isinstance(d, TTSUsageMetricsData)]
        assert ttfb and all(d.processor == call.service.name for d in ttfb)
        assert [d.value for d in usage] == [len(ANSWER)]

    run(main)


def test_an_output_rate_the_engine_cannot_make_is_reported_upstream_as_an_error() -> None:
    """At 44.1 kHz the service pushes an ErrorFrame naming the supported rates instead of crashing."""

    async def main() -> None:
        async with tone_runtime() as rt:
            service = tone_service(rt)
            _, up = await run_test(
                service,
                frames_to_send=[],
                pipeline_params=PipelineParams(audio_out_sample_rate=44100),
                start_timeout=TIMEOUT_S,
            )
        errors = [f for f in up if isinstance(f, ErrorFrame)]
        assert errors and "8000, 16000, 24000, 48000" in errors[0].error
        assert service.session is None

    run(main)


def test_a_unit_the_model_fails_on_is_reported_upstream_and_the_answer_goes_on() -> None:
    """A synthesis error becomes an upstream ErrorFrame; the other sentences are still spoken."""

    async def main() -> None:
        async with tone_runtime(backend=ToneBackend(fail_on="opens")) as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.answer(*tokens(ANSWER))
            truth = truth_frames(rt.backend, ANSWER)
        errors = [f for f in call.upstream.frames if isinstance(f, ErrorFrame)]
        assert len(errors) == 1 and "opens" in errors[0].error
        assert [f.audio for f in audio_of(call.playback.received)] == [f.pcm16_bytes() for f in truth]
        assert words_before(truth, len(truth)) == "Sure, I can help with that. See you there!"

    run(main)


# -- lifecycle --------------------------------------------------------------------------------


class LoadRecordingBackend(ToneBackend):
    """ToneBackend that records the thread its model is loaded on."""

    def __init__(self) -> None:
        super().__init__()
        self.load_thread: int | None = None

    def load(self) -> None:
        self.load_thread = threading.get_ident()
        super().load()


def warmline_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("warmline-runtime")]


@pytest.mark.parametrize("end", [EndFrame, CancelFrame])
def test_end_and_cancel_leave_no_task_or_thread_behind(end: type[Frame]) -> None:
    """A service that owns its runtime loads off the loop and leaves no task or thread after End/Cancel."""
    backend = LoadRecordingBackend()

    async def main() -> None:
        service = WarmlineTTSService(backend=backend, max_lead_s=0.2)
        call = Call(service, hold=end is CancelFrame)
        async with running(call, end=end):
            await call.answer(*tokens(SHORT))
            if end is CancelFrame:
                await asyncio.wait_for(call.playback.play(3), TIMEOUT_S)
        assert backend.load_thread not in (None, threading.get_ident())
        assert service.session is None and service.runtime is None
        assert warmline_threads() == []
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
        if end is EndFrame:
            assert call.assistant_text() == [SHORT]

    run(main)


def test_two_calls_share_one_warm_runtime_and_each_hears_its_own_answer() -> None:
    """Two services on one shared runtime speak concurrently, each its own words; the runtime stays open."""

    async def main() -> None:
        async with tone_runtime() as rt:
            calls = [Call(tone_service(rt)) for _ in range(2)]
            texts = ["Hello from the first call.", "And this is the second one."]
            async with running(calls[0]), running(calls[1]):
                await asyncio.gather(*(c.answer(*tokens(t)) for c, t in zip(calls, texts, strict=True)))
            assert rt.session_count == 0
            assert warmline_threads()
        assert [c.assistant_text() for c in calls] == [[t] for t in texts]

    run(main)
