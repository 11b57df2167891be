"""The listener's playback clock: when a real-time listener will have played what it was given.

One model, used wherever audio meets a listener: the session (when its listener runs dry, which
sets a job's deadline), every transport (when the next frame may leave, and whether one was
late), the Pipecat service (how far ahead of real time it hands audio on).

A listener starts playing a piece of audio as soon as it arrives if it has nothing else queued,
otherwise right after what it has. ``play_end_s`` is when it will have played everything sent so
far. With a lead of ``lead_s``, the next piece may leave once ``now >= play_end_s - lead_s``: so
piece k of a stream is due at ``t0 + k * duration - lead_s``, and the listener never holds more
than ``lead_s`` of audio it could not yet have played (a barge-in never leaves seconds queued).

A piece that arrives after ``play_end_s`` in the middle of a stream is *late* (the listener ran
dry); the clock then restarts from it, without a burst to catch up. After a stream break (end of
turn, pause, reset) running dry is expected, so the next piece is never late. ``restart()``
forgets what was sent (the listener dropped it: a ``clear``, a pause).

Sans-I/O: the caller reads its clock and passes ``now`` in seconds; nothing here sleeps.
"""

from __future__ import annotations


class ListenerClock:
    """When the next piece of audio may be sent to one listener, and whether a sent one was late."""

    def __init__(self, lead_s: float = 0.0) -> None:
        if lead_s < 0:
            raise ValueError("lead_s must not be negative")
        self._lead_s = lead_s
        self._play_end_s: float | None = None
        self._streaming = False

    @property
    def lead_s(self) -> float:
        return self._lead_s

    @property
    def play_end_s(self) -> float | None:
        """When the listener will have played everything sent so far (None before the first)."""
        return self._play_end_s

    def delay_s(self, now: float) -> float:
        """Seconds to wait before the next piece may be sent (0 when it may go now)."""
        if self._play_end_s is None:
            return 0.0
        return max(0.0, self._play_end_s - self._lead_s - now)

    def sent(self, now: float, duration_s: float) -> bool:
        """Account for ``duration_s`` of audio sent at ``now``; True when the listener had run dry
        mid-stream (the piece was late)."""
        late = False
        if self._play_end_s is None or now > self._play_end_s:
            late = self._streaming and self._play_end_s is not None
            self._play_end_s = now + duration_s
        else:
            self._play_end_s += duration_s
        self._streaming = True
        return late

    def stream_break(self) -> None:
        """The stream stopped on purpose (turn done, paused, reset): the next piece cannot be late."""
        self._streaming = False

    def restart(self) -> None:
        """The listener holds nothing of ours any more: the next piece starts a new stream at once."""
        self._play_end_s = None
        self._streaming = False


__all__ = ["ListenerClock"]
