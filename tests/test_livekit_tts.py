"""The LiveKit Agents plugin (``tts_service.livekit.tts``) through livekit-agents' own classes.

No LiveKit server: LiveKit's ``SynthesizeStream`` / ``ChunkedStream`` machinery (its
``AudioEmitter``, re-framing, segments, metrics and error handling) runs as in an agent, and the
audio it hands out is judged by the recognizer. Also an ``AgentSession`` speaking through the
plugin into an audio sink of the test's, the way a LiveKit room's output would take it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import runpy
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from asr import DISTRACTORS, normalize, recognize

from tts_service.backends.hibari.backend import HibariBackend

lk_agents = pytest.importorskip("livekit.agents", reason="the `livekit` extra is not installed")

from livekit import rtc  # noqa: E402
from livekit.agents import APIError, tts  # noqa: E402
from livekit.agents import voice as voice_agent  # noqa: E402
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT  # noqa: E402
from livekit.agents.voice import io  # noqa: E402

from tts_service.livekit.tts import WarmlineTTS  # noqa: E402

FIRST = "I would like to book a table for two people tonight."
SECOND = "Thank you for calling, we will see you soon."
LONG = " ".join(["The weather is lovely today, so the terrace is open for lunch."] * 6)
GRAMMAR = (*DISTRACTORS, FIRST, SECOND)
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def backend() -> HibariBackend:
    warm = HibariBackend()
    warm.load()
    return warm


def tokens(text: str) -> list[str]:
    """How an LLM streams text: word pieces with their spaces, a word sometimes split."""
    out: list[str] = []
    for i, word in enumerate(text.split(" ")):
        piece = word if i == 0 else f" {word}"
        out.extend([piece[:2], piece[2:]] if len(piece) > 5 else [piece])
    return [t for t in out if t]


async def push_slowly(stream: tts.SynthesizeStream, text: str, *, per_token_s: float = 1 / 30) -> None:
    for token in tokens(text):
        stream.push_text(token)
        await asyncio.sleep(per_token_s)
    stream.end_input()


async def collect(events: AsyncIterator[tts.SynthesizedAudio]) -> list[tts.SynthesizedAudio]:
    return [ev async for ev in events]


def pcm(events: Iterable[tts.SynthesizedAudio]) -> npt.NDArray[np.int16]:
    frames = [np.frombuffer(bytes(ev.frame.data), dtype=np.int16) for ev in events]
    return np.concatenate(frames) if frames else np.zeros(0, np.int16)


def heard(events: list[tts.SynthesizedAudio], sample_rate: int = 24000) -> str | None:
    return recognize(pcm(events), sample_rate, GRAMMAR)


def words_with_times(events: list[tts.SynthesizedAudio]) -> list[tuple[str, float, float, float]]:
    """Each aligned word: its text, start and end (s), and how much audio preceded its frame."""
    out = []
    before = 0.0
    for ev in events:
        for word in ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []):
            out.append((str(word).strip(), float(word.start_time), float(word.end_time), before))
        before += ev.frame.duration
    return out


def test_streamed_tokens_become_the_sentence_in_one_segment(backend: HibariBackend) -> None:
    async def main() -> list[tts.SynthesizedAudio]:
        async with WarmlineTTS(backend=backend) as voice:
            assert voice.capabilities.streaming and voice.capabilities.aligned_transcript
            async with voice.stream() as stream:
                pusher = asyncio.create_task(push_slowly(stream, FIRST), name="test-push")
                events = await collect(stream)
                await pusher
            return events

    events = asyncio.run(main())
    assert heard(events) == " ".join(normalize(FIRST))
    assert {ev.segment_id for ev in events} == {events[0].segment_id}
    assert [ev.is_final for ev in events] == [False] * (len(events) - 1) + [True]
    assert all(ev.frame.sample_rate == 24000 and ev.frame.num_channels == 1 for ev in events)


def test_aligned_words_are_the_text_in_order_and_in_time(backend: HibariBackend) -> None:
    async def main() -> list[tts.SynthesizedAudio]:
        async with WarmlineTTS(backend=backend) as voice, voice.stream() as stream:
            pusher = asyncio.create_task(push_slowly(stream, FIRST, per_token_s=0.0), name="test-push")
            events = await collect(stream)
            await pusher
            return events

    events = asyncio.run(main())
    words = words_with_times(events)
    assert [w for w, *_ in words] == FIRST.split(" ")
    starts = [start for _, start, _, _ in words]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    audio = pcm(events).astype(np.float32)
    total_s = len(audio) / 24000
    loud = float(np.sqrt(np.mean(audio**2)))
    for word, start, end, before in words:
        assert start < end <= total_s + 0.01, word
        # the word reaches LiveKit with the frame its audio starts in (LiveKit re-frames the
        # audio it is given into 80 ms frames and holds back a 10 ms tail, hence the slack)
        assert before - 0.1 <= start <= before + 0.1, (word, start, before)
        if end - start >= 0.08:  # a reduced word ("a": 25 ms of schwa) is quiet by nature
            span = audio[int(start * 24000) : int(end * 24000)]
            assert float(np.sqrt(np.mean(span**2))) > 0.2 * loud, f"{word!r} is silent where it is said"


def test_a_stream_closed_mid_turn_emits_nothing_more_and_frees_its_session(backend: HibariBackend) -> None:
    async def main() -> tuple[float, list[tts.SynthesizedAudio], int]:
        async with WarmlineTTS(backend=backend) as voice:
            stream = voice.stream()
            stream.push_text(LONG)
            stream.end_input()
            got = 0.0
            async for ev in stream:
                got += ev.frame.duration
                if got >= 0.8:
                    break
            await stream.aclose()
            after = await collect(stream)
            await asyncio.sleep(0.3)  # the engine's workers would still be making it
            return got, after, voice.runtime.session_count

    got, after, sessions = asyncio.run(main())
    assert got < 2.0  # the stream was cut mid-turn (the text is ~25 s of speech)
    assert after == []
    assert sessions == 0


def test_two_streams_at_once_each_get_their_own_audio(backend: HibariBackend) -> None:
    async def one(voice: WarmlineTTS, text: str) -> list[tts.SynthesizedAudio]:
        async with voice.stream() as stream:
            pusher = asyncio.create_task(push_slowly(stream, text), name="test-push")
            events = await collect(stream)
            await pusher
            return events

    async def main() -> tuple[list[tts.SynthesizedAudio], list[tts.SynthesizedAudio], int]:
        async with WarmlineTTS(backend=backend) as voice:
            first, second = await asyncio.gather(one(voice, FIRST), one(voice, SECOND))
            return first, second, voice.runtime.session_count

    first, second, sessions = asyncio.run(main())
    assert heard(first) == " ".join(normalize(FIRST))
    assert heard(second) == " ".join(normalize(SECOND))
    assert {ev.request_id for ev in first}.isdisjoint({ev.request_id for ev in second})
    assert sessions == 0


def test_synthesize_whole_text_at_the_configured_rate(backend: HibariBackend) -> None:
    async def main() -> tuple[rtc.AudioFrame, list[tts.SynthesizedAudio]]:
        async with WarmlineTTS(backend=backend, sample_rate=16000) as voice:
            whole = await voice.synthesize(SECOND).collect()
            async with voice.synthesize(FIRST) as chunked:
                events = await collect(chunked)
            return whole, events

    whole, events = asyncio.run(main())
    assert whole.sample_rate == 16000
    whole_pcm = np.frombuffer(bytes(whole.data), np.int16)
    assert recognize(whole_pcm, 16000, GRAMMAR) == " ".join(normalize(SECOND))
    assert heard(events, 16000) == " ".join(normalize(FIRST))
    assert [w for w, *_ in words_with_times(events)] == FIRST.split(" ")


def test_flush_ends_the_segment_before_the_input_ends(backend: HibariBackend) -> None:
    async def main() -> tuple[list[tts.SynthesizedAudio], bool]:
        async with WarmlineTTS(backend=backend) as voice, voice.stream() as stream:
            for token in tokens(SECOND):
                stream.push_text(token)
            stream.flush()
            events: list[tts.SynthesizedAudio] = []
            async for ev in stream:
                events.append(ev)
                if ev.is_final:
                    break
            # the segment is over, the stream is not: it waits for more input
            waiting = asyncio.ensure_future(stream.__anext__())
            done, _ = await asyncio.wait({waiting}, timeout=0.3)
            open_after_segment = not done
            stream.end_input()
            with contextlib.suppress(StopAsyncIteration):
                events.append(await waiting)
            events.extend(await collect(stream))
            return events, open_after_segment

    events, open_after_segment = asyncio.run(main())
    assert events[-1].is_final
    assert open_after_segment
    assert heard(events) == " ".join(normalize(SECOND))


def test_an_unknown_voice_is_an_api_error_reported_once_not_retried(backend: HibariBackend) -> None:
    async def main() -> tuple[APIError | None, list[tts.TTSError]]:
        errors: list[tts.TTSError] = []
        async with WarmlineTTS(backend=backend, voice="no-such-voice") as voice:
            voice.on("error", errors.append)
            try:
                async with voice.stream() as stream:
                    stream.push_text(FIRST)
                    stream.end_input()
                    await collect(stream)
            except APIError as exc:
                return exc, errors
        return None, errors

    error, reported = asyncio.run(main())
    assert error is not None and "no-such-voice" in str(error)
    assert len(reported) == 1 and not reported[0].recoverable


def test_a_sample_rate_the_engine_cannot_make_is_refused_at_construction() -> None:
    with pytest.raises(Exception, match="22050"):
        WarmlineTTS(sample_rate=22050)


# -- prewarm: the first stream finds the model loaded and warm ----------------------------------


def test_prewarm_in_a_worker_prewarm_function_loads_and_warms_before_any_stream() -> None:
    """As a LiveKit worker's prewarm function calls it: in the job process, no loop running yet."""
    fresh = HibariBackend()
    voice = WarmlineTTS(backend=fresh, sample_rate=16000)
    assert not fresh.is_warm() and not voice.warm
    voice.prewarm()
    assert fresh.is_warm() and voice.warm
    assert not voice.runtime.started  # its threads belong to the job's loop, which starts them

    async def main() -> list[tts.SynthesizedAudio]:
        async with voice:
            voice.prewarm()  # as AgentSession does once the job's loop runs: starts the runtime
            async with voice.stream() as stream:
                pusher = asyncio.create_task(push_slowly(stream, SECOND), name="test-push")
                events = await collect(stream)
                await pusher
            return events

    events = asyncio.run(main())
    assert heard(events, 16000) == " ".join(normalize(SECOND))


def test_prewarm_in_a_running_loop_returns_at_once_and_warms_the_runtime_before_any_stream() -> None:
    fresh = HibariBackend()

    async def main() -> tuple[bool, bool, int, int, int, list[tts.SynthesizedAudio]]:
        async with WarmlineTTS(backend=fresh) as voice:
            voice.prewarm()  # AgentSession calls it on its loop: it must not block that loop
            returned_unloaded = not fresh.is_warm() and not voice.runtime.started
            await voice.wait_warm()
            warm = voice.warm and fresh.is_warm() and voice.runtime.started
            stats = voice.runtime.stats
            warmed = (stats.sessions_opened, stats.jobs_run, voice.runtime.session_count)
            async with voice.synthesize(FIRST) as whole:
                events = await collect(whole)
            return returned_unloaded, warm, *warmed, events

    returned_unloaded, warm, opened, jobs, open_now, events = asyncio.run(main())
    assert returned_unloaded and warm
    # the warm-up turn was said through the runtime (its own session, closed again) before any stream
    assert opened == 1 and jobs >= 1 and open_now == 0
    assert heard(events) == " ".join(normalize(FIRST))


# -- an AgentSession speaking through the plugin ------------------------------------------------


class CapturedAudio(io.AudioOutput):
    """An audio sink the way a room's output is one: it takes frames and reports their playout.

    Playout is immediate (the test reads the clock of nothing): a flush ends the segment as
    played to its end, a ``clear_buffer`` (an interruption) as cut where the frames stopped.
    """

    def __init__(self, *, signal_after_s: float = 0.8) -> None:
        super().__init__(label="test-capture", capabilities=io.AudioOutputCapabilities(pause=False))
        self.frames: list[rtc.AudioFrame] = []
        #: set once ``signal_after_s`` of audio was captured
        self.playing_for_a_while = asyncio.Event()
        self._signal_after_s = signal_after_s
        self._segment_s = 0.0
        self._playing = False

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if not self._playing:
            self._playing = True
            self.on_playback_started(created_at=time.time())
        self.frames.append(frame)
        self._segment_s += frame.duration
        if self.seconds >= self._signal_after_s:
            self.playing_for_a_while.set()

    def flush(self) -> None:
        super().flush()
        self._end(interrupted=False)

    def clear_buffer(self) -> None:
        self._end(interrupted=True)

    def _end(self, *, interrupted: bool) -> None:
        if self._playing:
            self.on_playback_finished(playback_position=self._segment_s, interrupted=interrupted)
        self._playing, self._segment_s = False, 0.0

    @property
    def seconds(self) -> float:
        return sum(f.duration for f in self.frames)

    def pcm(self) -> npt.NDArray[np.int16]:
        return np.concatenate([np.frombuffer(bytes(f.data), np.int16) for f in self.frames])


async def llm_tokens(text: str, per_token_s: float = 1 / 30) -> AsyncIterator[str]:
    for token in tokens(text):
        await asyncio.sleep(per_token_s)
        yield token


async def started_session(voice: WarmlineTTS) -> tuple[voice_agent.AgentSession, CapturedAudio]:
    """An ``AgentSession`` speaking through ``voice`` into a ``CapturedAudio``, started."""
    session = voice_agent.AgentSession(tts=voice)
    sink = CapturedAudio()
    session.output.audio = sink
    await session.start(voice_agent.Agent(instructions="a test agent"))
    return session, sink


def test_an_agent_session_says_streamed_llm_tokens_through_the_plugin(backend: HibariBackend) -> None:
    async def main() -> tuple[CapturedAudio, list[str]]:
        async with WarmlineTTS(backend=backend) as voice:
            session, sink = await started_session(voice)
            try:
                handle = session.say(llm_tokens(FIRST))
                await handle.wait_for_playout()
                said = [m.text_content or "" for m in session.history.messages() if m.role == "assistant"]
            finally:
                await session.aclose()
            return sink, said

    sink, said = asyncio.run(main())
    assert recognize(sink.pcm(), sink.frames[0].sample_rate, GRAMMAR) == " ".join(normalize(FIRST))
    assert said == [FIRST]


def test_an_interrupted_agent_session_hears_nothing_more(backend: HibariBackend) -> None:
    async def main() -> tuple[float, float, int]:
        async with WarmlineTTS(backend=backend) as voice:
            session, sink = await started_session(voice)
            try:
                handle = session.say(LONG)
                await sink.playing_for_a_while.wait()
                await handle.interrupt()
                at_interrupt = sink.seconds
                await asyncio.sleep(1.0)
                sessions = voice.runtime.session_count
            finally:
                await session.aclose()
            return at_interrupt, sink.seconds, sessions

    at_interrupt, later, sessions = asyncio.run(main())
    assert at_interrupt < 3.0  # ~25 s of text: it was cut early
    assert later == at_interrupt
    assert sessions == 0


# -- the example --------------------------------------------------------------------------------


def run_example(*args: str) -> tuple[str, npt.NDArray[np.int16], int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "answer.wav"
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "livekit_agent.py"), str(out), *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        with wave.open(str(out)) as wav:
            rate = wav.getframerate()
            samples = np.frombuffer(wav.readframes(wav.getnframes()), np.int16)
    return done.stdout, samples, rate


def said_by_the_assistant(stdout: str) -> tuple[str, bool]:
    (line,) = [line for line in stdout.splitlines() if line.startswith("assistant")]
    role, _, text = line.partition(": ")
    return text, "interrupted" in role


@pytest.mark.scenario  # the whole example in real time; the interrupted run below is its quick twin
def test_the_example_says_its_answer_and_the_context_holds_it() -> None:
    answer = example_answer()
    stdout, samples, rate = run_example()
    text, interrupted = said_by_the_assistant(stdout)
    assert (text, interrupted) == (answer, False)
    assert recognize(samples, rate, (*DISTRACTORS, answer)) == " ".join(normalize(answer))


def test_the_example_interrupted_keeps_in_the_context_only_the_words_heard() -> None:
    answer = example_answer()
    stdout, samples, rate = run_example("--interrupt-s", "1.5", "--sample-rate", "16000")
    text, interrupted = said_by_the_assistant(stdout)
    words = normalize(answer)
    prefixes = [" ".join(words[:n]) for n in range(1, len(words) + 1)]
    assert interrupted and rate == 16000
    assert 0 < len(normalize(text)) < len(words) and answer.startswith(text)
    heard = heard_before_the_cut(samples, rate, (*DISTRACTORS, *prefixes))
    assert heard is not None and heard in prefixes
    # the context never claims a word the caller did not begin to hear. LiveKit's synchronizer
    # releases each word on its own clock (from the engine's timings) when the word begins: it may
    # trail the audio by a word or two, and it counts the word the cut fell in, whose fragment the
    # recognizer cannot name (one such run: heard "... with that", the context "... with that. We")
    assert len(normalize(text)) <= len(heard.split()) + 1, (heard, text)


def heard_before_the_cut(samples: np.ndarray, rate: int, sentences: tuple[str, ...]) -> str | None:
    """The sentence of ``sentences`` heard in audio that ends where an interruption cut it: if the
    cut fell inside a word, the fragment matches no sentence of the grammar (it cannot be named),
    so the audio is heard again without its last 0.1, 0.2, then 0.3 s. A shorter audio can only
    hear fewer words, so this never lets the context claim more than was heard."""
    for trim_s in (0.0, 0.1, 0.2, 0.3):
        kept = samples[: len(samples) - int(trim_s * rate)]
        if (heard := recognize(kept, rate, sentences)) is not None:
            return heard
    return None


def example_answer() -> str:
    return str(runpy.run_path(str(ROOT / "examples" / "livekit_agent.py"))["ANSWER"])


def test_the_installed_livekit_agents_is_the_tested_release_line() -> None:
    from tts_service.livekit.compat import TESTED_LIVEKIT

    assert TESTED_LIVEKIT.check(), (
        f"livekit-agents {TESTED_LIVEKIT.installed}: re-check tts_service/livekit/compat.py"
    )
