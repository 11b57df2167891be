"""Real-time pacing of one connection's frames: at most ``lead_frames`` ahead of the listener.

The pacer models the listener's playback clock: a listener starts playing a frame as soon as it
arrives if it has nothing else queued, otherwise right after what it has. ``play_end_s`` is when
it will have played everything sent so far. A frame may leave once ``now >= play_end_s - lead``;
so frame k of a stream is due at ``t0 + (k - lead_frames) * frame_s`` and a barge-in never leaves
more than ``lead_frames`` of audio queued at the client.

A frame that leaves after ``play_end_s`` in the middle of a stream is *late* (the listener ran
dry); the clock then restarts from it. After a stream break (end of turn, pause, reset) running
dry is expected, so the next frame is never late.

Sans-I/O: the caller reads its clock and passes ``now`` in seconds; nothing here sleeps.
"""

from __future__ import annotations


class Pacer:
    """When the next frame of one connection may be sent, and whether a sent one was late."""

    def __init__(self, frame_s: float, lead_frames: int) -> None:
        if frame_s <= 0 or lead_frames < 0:
            raise ValueError("frame_s must be positive and lead_frames not negative")
        self._frame_s = frame_s
        self._lead_s = lead_frames * frame_s
        self._play_end_s: float | None = None
        self._streaming = False

    @property
    def play_end_s(self) -> float | None:
        """When the listener will have played every frame sent so far (None before the first)."""
        return self._play_end_s

    def delay_s(self, now: float) -> float:
        """Seconds to wait before the next frame may be sent (0 when it may go now)."""
        if self._play_end_s is None:
            return 0.0
        return max(0.0, self._play_end_s - self._lead_s - now)

    def frame_sent(self, now: float) -> bool:
        """Account for one frame sent at ``now``; True when it was late (the listener ran dry)."""
        late = False
        if self._play_end_s is None or now > self._play_end_s:
            late = self._streaming and self._play_end_s is not None
            self._play_end_s = now + self._frame_s
        else:
            self._play_end_s += self._frame_s
        self._streaming = True
        return late

    def stream_break(self) -> None:
        """The stream stopped on purpose (turn done, paused, reset): the next frame cannot be late."""
        self._streaming = False


__all__ = ["Pacer"]
