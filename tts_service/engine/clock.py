"""Clocks the engine reads time from: monotonic seconds, injected so tests can use a fake one.

Never wall time: a clock only has to be monotonic.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]

monotonic: Clock = time.monotonic


class FakeClock:
    """A clock that moves only when told to; call it to read the time."""

    def __init__(self, start_s: float = 0.0) -> None:
        self.now_s = start_s

    def __call__(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (never backward) and return the new time."""
        if seconds < 0:
            raise ValueError("a monotonic clock cannot go back")
        self.now_s += seconds
        return self.now_s
