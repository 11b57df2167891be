"""An aiortc audio track fed straight by an engine session: whole 80 ms frames as 20 ms packets.

    session = await runtime.open_session(SessionConfig(sample_rate=48000))   # Opus's own rate
    track = EngineTrack(session, on_event=print)
    pc.addTrack(track)                      # aiortc calls recv() for every 20 ms packet
    session.start("Hello there."); session.flush()
    track.pause()                           # barge-in (or session.pause(): the same)

For users who run aiortc without Pipecat. ``recv`` is the pump: there is no task to own.

Packets. Each ``recv`` returns 20 ms of int16 mono audio at the session's rate with an integer
``pts`` in samples and ``time_base = 1/sample_rate``. The track sends silence whenever the engine
has nothing, so ``pts`` (and the RTP timestamps and sequence numbers aiortc derives from it) run
on without a jump across turns, pauses and resumes for the life of the track.

Pacing. ``engine.listener.ListenerClock`` on the injected monotonic clock: packet k leaves at
``t0 + (k - lead_packets) * 20 ms``; after a stall the clock restarts instead of bursting.

Barge-in. Frames are taken from the session one at a time, only once every packet of the previous
one has left, so the engine holds everything not yet begun. At a pause the frame being played
finishes (at most 60 ms more: the cut lands on a frame edge, no partial frame is ever sent),
every frame the engine had ready is dropped by ``session.pause()``, and the engine's ``Paused``
event counts exactly the frames that reached the caller. The engine's faded ``last_in_pause``
frame follows as the answer's tail (its first 10 ms fade out, the rest is silence).

Events (``Done``, ``Paused``, ``Resumed``, ``Reset``, ``ErrorEvent``) go to ``on_event`` in order,
as the frames around them are taken. This module never runs model compute, never reads wall
time, never holds more than one frame, and raises ``MediaStreamError`` from ``recv`` once stopped.
"""

from __future__ import annotations

import asyncio
import fractions
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from av import AudioFrame

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.listener import ListenerClock
from tts_service.engine.session import RUNNING, SessionState
from tts_service.engine.types import FRAME_MS, Done, Event, Output, Paused, Reset, Resumed, SpeechFrame

log = logging.getLogger("warmline.webrtc")

PACKET_MS = 20
PACKET_S = PACKET_MS / 1000
PACKETS_PER_FRAME = FRAME_MS // PACKET_MS


class OutputSource(Protocol):
    """What the track reads: a ``RuntimeSession`` (or any object with these members)."""

    @property
    def sample_rate(self) -> int: ...

    @property
    def state(self) -> SessionState: ...

    def next_output_nowait(self) -> Output | None: ...

    def pause(self) -> Paused: ...

    def resume(self) -> Resumed: ...


@dataclass(frozen=True, slots=True)
class PacketInfo:
    """One packet that left the track: when, its pts, and which engine frame it came from."""

    time_s: float
    pts: int
    turn_id: int = -1
    frame_index: int = -1
    quarter: int = -1

    @property
    def audible(self) -> bool:
        return self.frame_index >= 0


@dataclass(slots=True)
class TrackStats:
    """Counters of one track."""

    packets: int = 0
    audio_packets: int = 0
    #: packets of silence sent inside a turn because the engine had no frame ready
    underruns: int = 0
    #: packets that left after the listener would have run dry (the event loop stalled)
    late: int = 0
    frames: int = 0


class EngineTrack(MediaStreamTrack):
    """A live audio track over an engine session; see the module docstring for the contract."""

    kind = "audio"

    def __init__(
        self,
        source: OutputSource,
        *,
        clock: Clock = monotonic,
        lead_packets: int = 1,
        on_event: Callable[[Event], None] | None = None,
        trace_packets: int = 0,
    ) -> None:
        super().__init__()
        self._source = source
        self._clock = clock
        self._on_event = on_event
        self.sample_rate = source.sample_rate
        self.packet_samples = self.sample_rate * PACKET_MS // 1000
        self._time_base = fractions.Fraction(1, self.sample_rate)
        self._pacer = ListenerClock(lead_packets * PACKET_S)
        self._silence = np.zeros(self.packet_samples, dtype=np.int16)
        #: the packets of the frame being played that have not left yet (never more than 3)
        self._pending: deque[tuple[npt.NDArray[np.int16], PacketInfo]] = deque()
        self._pts = 0
        self._in_turn = False
        self.stats = TrackStats()
        #: the last ``trace_packets`` packets, for benchmarks and tests
        self.trace: deque[PacketInfo] = deque(maxlen=max(0, trace_packets))

    @property
    def pts(self) -> int:
        """The pts the next packet will carry (samples since the track began)."""
        return self._pts

    def pause(self) -> Paused | None:
        """Barge-in: the frame being played finishes; nothing of a later frame is sent.

        None when nothing is being spoken (a barge-in that raced the end of a turn is harmless).
        """
        if self._source.state not in RUNNING:
            return None
        return self._source.pause()

    def resume(self) -> Resumed | None:
        """A false barge-in: the paused remainder continues from the next frame (None: not paused)."""
        if self._source.state is not SessionState.PAUSED:
            return None
        return self._source.resume()

    async def recv(self) -> AudioFrame:
        """The next 20 ms packet, at its time; raises MediaStreamError once the track is stopped."""
        if self.readyState != "live":
            raise MediaStreamError
        delay_s = self._pacer.delay_s(self._clock())
        if delay_s > 0:
            await asyncio.sleep(delay_s)
            if self.readyState != "live":
                raise MediaStreamError
        samples, info = self._next_packet()
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = self.sample_rate
        frame.pts = info.pts
        frame.time_base = self._time_base
        self._pts += self.packet_samples
        self.stats.packets += 1
        if self._pacer.sent(self._clock(), PACKET_S):
            self.stats.late += 1
        if self.trace.maxlen:
            self.trace.append(info)
        return frame

    def _next_packet(self) -> tuple[npt.NDArray[np.int16], PacketInfo]:
        if not self._pending:
            self._take_frame()
        now = self._clock()
        if self._pending:
            samples, info = self._pending.popleft()
            self.stats.audio_packets += 1
            return samples, PacketInfo(now, self._pts, info.turn_id, info.frame_index, info.quarter)
        if self._in_turn:
            self.stats.underruns += 1
        return self._silence, PacketInfo(now, self._pts)

    def _take_frame(self) -> None:
        """Take the session's next frame (handing on the events before it), split into packets."""
        while (out := self._source.next_output_nowait()) is not None:
            if not isinstance(out, SpeechFrame):
                self._event(out)
                continue
            if (
                out.sample_rate != self.sample_rate
                or out.num_samples != self.packet_samples * PACKETS_PER_FRAME
            ):
                log.warning("track at %d Hz: dropping a frame at %d Hz", self.sample_rate, out.sample_rate)
                continue
            pcm = np.frombuffer(out.pcm16_bytes(), dtype="<i2").astype(np.int16)
            n = self.packet_samples
            for q in range(PACKETS_PER_FRAME):
                self._pending.append(
                    (pcm[q * n : (q + 1) * n], PacketInfo(0.0, -1, out.turn_id, out.index, q))
                )
            self.stats.frames += 1
            self._in_turn = not out.last_in_pause
            return

    def _event(self, event: Event) -> None:
        if isinstance(event, Done | Paused | Reset):
            self._in_turn = False
        if self._on_event is not None:
            self._on_event(event)


__all__ = ["PACKETS_PER_FRAME", "PACKET_MS", "EngineTrack", "OutputSource", "PacketInfo", "TrackStats"]
