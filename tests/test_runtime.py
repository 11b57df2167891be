"""The async runtime bridge: compute off the loop, EDF order, bounded look-ahead, clean shutdown."""

from __future__ import annotations

import asyncio
import threading

import pytest
from toy_backends import BatchToyFrameBackend, ToneBackend

from tts_service.engine.ports import UnitAudio, VoiceState
from tts_service.engine.session import SessionConfig, SessionState
from tts_service.engine.types import Done, Output, Paused, SpeechFrame
from tts_service.errors import CapacityError
from tts_service.runtime import EngineRuntime, RuntimeSession


class ThreadRecordingBackend(ToneBackend):
    """ToneBackend that records which threads load and synthesize, and can hold its worker."""

    def __init__(self) -> None:
        super().__init__()
        self.load_thread: int | None = None
        self.synth_threads: set[int] = set()
        self.order: list[str] = []
        self.gate = threading.Event()
        self.gate.set()

    def load(self) -> None:
        self.load_thread = threading.get_ident()
        super().load()

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        self.gate.wait(timeout=10)
        self.synth_threads.add(threading.get_ident())
        self.order.append(text)
        return super().synthesize(state, text, speed=speed, seed=seed)


async def collect(session: RuntimeSession, until: type = Done, timeout_s: float = 10.0) -> list[Output]:
    out: list[Output] = []

    async def run() -> None:
        async for item in session:
            out.append(item)
            if isinstance(item, until):
                return

    await asyncio.wait_for(run(), timeout_s)
    return out


def words(outputs: list[Output]) -> list[str]:
    return [w.word for o in outputs if isinstance(o, SpeechFrame) for w in o.words]


def test_model_load_and_compute_never_run_on_the_event_loop() -> None:
    """load() and every synthesis run on threads other than the loop's."""
    backend = ThreadRecordingBackend()

    async def main() -> None:
        loop_thread = threading.get_ident()
        async with EngineRuntime(backend, workers=2) as rt, await rt.open_session() as s:
            s.start("Hello there, friend. How are you?")
            s.flush()
            await collect(s)
        assert backend.load_thread not in (None, loop_thread)
        assert backend.synth_threads and loop_thread not in backend.synth_threads

    asyncio.run(main())


def test_twenty_concurrent_sessions_each_get_their_own_words() -> None:
    """Many sessions on one warm model each receive exactly their own text."""

    async def main() -> None:
        async with EngineRuntime(ToneBackend(), workers=2) as rt:
            sessions = [await rt.open_session() for _ in range(20)]
            for i, s in enumerate(sessions):
                s.start(f"Session number{i} says hello, and goodbye{i}.")
                s.flush()
            results = await asyncio.gather(*(collect(s) for s in sessions))
            for i, out in enumerate(results):
                assert words(out) == [
                    "Session",
                    f"number{i}",
                    "says",
                    "hello,",
                    "and",
                    f"goodbye{i}.",
                ]
            for s in sessions:
                await s.aclose()
            assert rt.session_count == 0

    asyncio.run(main())


def test_a_consumer_that_stops_reading_stops_the_compute() -> None:
    """Look-ahead is bounded: an unread session synthesizes only about refill_below_ms ahead."""
    backend = ToneBackend()
    text = " ".join(f"Sentence number {i} is here." for i in range(40))

    async def main() -> None:
        async with EngineRuntime(backend, workers=1) as rt:
            s = await rt.open_session(SessionConfig(refill_below_ms=500))
            s.start(text)
            s.flush()
            for _ in range(50):
                await asyncio.sleep(0.005)
            calls_unread = len(backend.calls)
            assert 1 <= calls_unread <= 2
            await collect(s)
            assert len(backend.calls) == 40
            await s.aclose()

    asyncio.run(main())


def test_earliest_deadline_first_serves_a_starting_call_before_a_buffered_one() -> None:
    """A session waiting for its first frame is served before one with audio buffered."""
    backend = ThreadRecordingBackend()

    async def main() -> None:
        async with EngineRuntime(backend, workers=1) as rt:
            buffered = await rt.open_session(SessionConfig(refill_below_ms=100_000))
            buffered.start("First of many, ")
            assert await collect(buffered, until=SpeechFrame)  # buffered now has audio queued up
            backend.gate.clear()
            blocker = await rt.open_session()
            blocker.start("Blocker one, ")  # the only worker takes this and waits at the gate
            await asyncio.sleep(0.05)
            buffered.inject("and more. Later for buffered. And")  # queued, deadline in the future
            fresh = await rt.open_session()
            fresh.start("Fresh call, ")  # queued after it, deadline now
            await asyncio.sleep(0.05)
            assert rt.queue_depth == 2
            backend.gate.set()
            await collect(fresh, until=SpeechFrame)
            for _ in range(200):  # let the buffered session's job run too
                if "and more." in backend.order:
                    break
                await asyncio.sleep(0.01)
            assert backend.order.index("Fresh call,") < backend.order.index("and more.")
            for s in (buffered, blocker, fresh):
                await s.aclose()

    asyncio.run(main())


def test_pause_through_the_runtime_stops_frames_at_once() -> None:
    """After pause() only the fade frame and Paused arrive, even while compute is in flight."""

    async def main() -> None:
        async with EngineRuntime(ToneBackend(), workers=2) as rt, await rt.open_session() as s:
            s.start("One sentence here. Another sentence there. And a third one too.")
            s.flush()
            got = 0
            async for item in s:
                if isinstance(item, SpeechFrame):
                    got += 1
                    if got == 5:
                        s.pause()
                        break
            tail = await collect(s, until=Paused)
            assert sum(isinstance(o, SpeechFrame) for o in tail) <= 1
            await asyncio.sleep(0.1)
            assert s.next_output_nowait() is None
            assert s.state is SessionState.PAUSED

    asyncio.run(main())


def test_hold_timer_fires_from_the_loop() -> None:
    """Words without punctuation are spoken once the hold expires, with no further input."""

    backend = ToneBackend()

    async def main() -> None:
        async with EngineRuntime(backend, workers=1) as rt:
            s = await rt.open_session(SessionConfig(first_unit_hold_s=0.05))
            s.start("one two three four")
            out = await collect(s, until=SpeechFrame, timeout_s=5)
            assert words(out)[0] == "one"
            assert backend.calls == ["one two three"]  # the unfinished last word waits
            await s.aclose()

    asyncio.run(main())


def test_capacity_and_close() -> None:
    """Beyond max_sessions opening fails with CapacityError; aclose ends iteration and joins threads."""

    async def main() -> None:
        rt = EngineRuntime(ToneBackend(), workers=2, max_sessions=1)
        await rt.start()
        s = await rt.open_session()
        with pytest.raises(CapacityError):
            await rt.open_session()
        s.start("Hello.")
        await rt.aclose()
        assert s.closed
        assert [item async for item in s] == []
        assert not any(t.name.startswith("warmline-runtime") for t in threading.enumerate())

    asyncio.run(main())


def test_frame_jobs_of_several_sessions_run_as_one_batch() -> None:
    """Queued frame jobs for one batch-capable model advance together; each session gets its own words."""
    backend = BatchToyFrameBackend()

    async def main() -> None:
        async with EngineRuntime(backend, workers=1, max_batch=8) as rt:
            blocker = await rt.open_session()
            backend.gate.clear()
            blocker.start("hold on")  # the only worker takes this job and waits at the gate
            await asyncio.sleep(0.05)
            sessions = [await rt.open_session() for _ in range(4)]
            names = ["anna", "bert", "cleo", "dora"]  # no digits: this model's text is normalized
            for name, s in zip(names, sessions, strict=True):
                s.start(f"alpha {name} gamma")
                s.flush()
            await asyncio.sleep(0.05)
            backend.gate.set()
            results = await asyncio.gather(*(collect(s) for s in sessions))
            for name, out in zip(names, results, strict=True):
                assert words(out) == ["alpha", name, "gamma"]
            assert max(backend.batch_sizes) >= 2 and rt.stats.batches_run >= 1
            for s in [blocker, *sessions]:
                await s.aclose()

    asyncio.run(main())
