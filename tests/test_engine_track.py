"""The engine track: 20 ms packets of whole 80 ms frames, integer pts, barge-in on a frame edge.

The track reads an engine session run inline (``InlineSource``: jobs run when the track asks for
output), on a fake clock that the test moves 20 ms per packet, so every packet is determined by
the text and the verbs; the truth is the same verbs on a second session.
"""

from __future__ import annotations

import asyncio
import fractions

import numpy as np
import numpy.typing as npt
import pytest
from aiortc.mediastreams import MediaStreamError
from av import AudioFrame
from toy_backends import ToneBackend

from transports.webrtc.engine_track import PACKETS_PER_FRAME, EngineTrack
from tts_service.engine.clock import FakeClock
from tts_service.engine.session import EngineSession, SessionConfig, SessionState
from tts_service.engine.types import Event, Output, Paused, Resumed, SpeechFrame

RATE = 48000
PACKET = RATE // 50
TEXT = "Hello there, this is a test of the engine track. It speaks in whole frames."


class InlineSource:
    """An EngineSession whose jobs run inline when output is asked for (deterministic)."""

    def __init__(self, clock: FakeClock) -> None:
        self.session = EngineSession(ToneBackend(), SessionConfig(sample_rate=RATE), clock=clock)
        self.stall = 0  # answer None this many more times (a late engine)

    @property
    def sample_rate(self) -> int:
        return self.session.sample_rate

    @property
    def state(self) -> SessionState:
        return self.session.state

    def next_output_nowait(self) -> Output | None:
        if self.stall:
            self.stall -= 1
            return None
        while (item := self.session.next_output()) is None:
            if not self.session.step():
                return None
        return item

    def pause(self) -> Paused:
        return self.session.pause()

    def resume(self) -> Resumed:
        return self.session.resume()


def speaking(clock: FakeClock) -> InlineSource:
    source = InlineSource(clock)
    source.session.start(TEXT)
    source.session.flush()
    return source


def samples_of(frame: AudioFrame) -> npt.NDArray[np.int16]:
    data: npt.NDArray[np.int16] = frame.to_ndarray().reshape(-1).astype(np.int16)
    return data


async def take(track: EngineTrack, clock: FakeClock, n: int) -> list[AudioFrame]:
    """``n`` packets, the clock moving 20 ms before each (so the pacer never has to wait)."""
    out = []
    for _ in range(n):
        clock.advance(0.02)
        out.append(await track.recv())
    return out


def quarters(frames: list[SpeechFrame]) -> list[npt.NDArray[np.int16]]:
    """Each frame's four 20 ms quarters, in order."""
    pcm = [np.frombuffer(f.pcm16_bytes(), dtype="<i2") for f in frames]
    return [p[q * PACKET : (q + 1) * PACKET] for p in pcm for q in range(PACKETS_PER_FRAME)]


def test_packets_are_20ms_quarters_of_the_engine_frames_with_integer_pts() -> None:
    """Every packet is 960 samples at 48 kHz, pts counts samples, and the audio is the frames' quarters."""
    clock, truth_clock = FakeClock(), FakeClock()
    truth = [o for o in _drain(speaking(truth_clock)) if isinstance(o, SpeechFrame)]
    track = EngineTrack(speaking(clock), clock=clock, trace_packets=1000)

    packets = asyncio.run(take(track, clock, 4 * len(truth) + 8))

    assert [p.pts for p in packets] == [k * PACKET for k in range(len(packets))]
    assert {p.time_base for p in packets} == {fractions.Fraction(1, RATE)}
    assert {(p.sample_rate, p.samples, p.format.name, p.layout.name) for p in packets} == {
        (RATE, PACKET, "s16", "mono")
    }
    expected = quarters(truth)
    for k, packet in enumerate(packets):
        want = expected[k] if k < len(expected) else np.zeros(PACKET, np.int16)
        assert np.array_equal(samples_of(packet), want), k
    info = list(track.trace)
    assert [(i.frame_index, i.quarter) for i in info[: len(expected)]] == [
        (f.index, q) for f in truth for q in range(PACKETS_PER_FRAME)
    ]
    assert track.stats.underruns == 0 and track.stats.frames == len(truth)


def test_barge_in_finishes_the_frame_playing_and_sends_nothing_of_the_frames_after_it() -> None:
    """Pause two packets into frame 1: its last two quarters, the fade frame, then silence; pts runs on."""
    clock = FakeClock()
    events: list[Event] = []
    track = EngineTrack(speaking(clock), clock=clock, on_event=events.append, trace_packets=1000)

    async def main() -> tuple[list[AudioFrame], list[AudioFrame]]:
        before = await take(track, clock, 6)  # frame 0 whole, half of frame 1
        track.pause()
        after = await take(track, clock, 20)
        return before, after

    before, after = asyncio.run(main())
    frames_sent = [(i.frame_index, i.quarter) for i in track.trace if i.audible]
    assert frames_sent[:8] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    assert [q for _, q in frames_sent[8:]] == [0, 1, 2, 3]  # the engine's faded tail: one whole frame
    assert len(frames_sent) == 12
    assert all(not np.any(samples_of(p)) for p in after[6:])  # silence after the tail
    paused = [e for e in events if isinstance(e, Paused)]
    # the engine's count is what reached the caller: frames 0 and 1 and the faded tail
    assert len(paused) == 1 and paused[0].num_samples == 3 * PACKETS_PER_FRAME * PACKET
    assert [p.pts for p in before + after] == [k * PACKET for k in range(26)]


def test_resume_continues_the_answer_with_pts_running_on() -> None:
    """After a pause and some silence, resume plays the remainder; pts never jumps or repeats."""
    clock = FakeClock()
    events: list[Event] = []
    track = EngineTrack(speaking(clock), clock=clock, on_event=events.append, trace_packets=1000)

    async def main() -> list[AudioFrame]:
        packets = await take(track, clock, 8)
        track.pause()
        packets += await take(track, clock, 12)
        track.resume()
        packets += await take(track, clock, 12)
        return packets

    packets = asyncio.run(main())
    assert [p.pts for p in packets] == [k * PACKET for k in range(len(packets))]
    assert any(isinstance(e, Resumed) for e in events)
    resumed = [i for i in list(track.trace)[20:] if i.audible]
    assert resumed and resumed[0].quarter == 0  # a whole frame again, from its first quarter
    assert resumed[0].frame_index > 2


def test_a_late_engine_gives_silence_and_counts_an_underrun_without_breaking_pts() -> None:
    """When the engine has no frame in time the packet is silence, counted; the answer then goes on."""
    clock = FakeClock()
    source = speaking(clock)
    track = EngineTrack(source, clock=clock, trace_packets=100)

    async def main() -> None:
        await take(track, clock, 4)
        source.stall = 1
        await take(track, clock, 6)

    asyncio.run(main())
    audible = [i.audible for i in track.trace]
    assert audible[:6] == [True, True, True, True, False, True]
    assert track.stats.underruns == 1
    assert [i.pts for i in track.trace] == [k * PACKET for k in range(10)]


def test_recv_on_a_stopped_track_raises_media_stream_error() -> None:
    """A stopped track tells aiortc's sender to stop: recv raises MediaStreamError."""
    clock = FakeClock()
    track = EngineTrack(speaking(clock), clock=clock)
    track.stop()
    with pytest.raises(MediaStreamError):
        asyncio.run(track.recv())


def _drain(source: InlineSource) -> list[Output]:
    out = []
    for _ in range(10_000):
        item = source.next_output_nowait()
        if item is None:
            break
        out.append(item)
    return out
