"""The audio a pause took back from the carrier, kept to be sent again when the bot resumes.

    replay: Replay[Item] = Replay()
    replay.sent(seq, mulaw)                    # every frame sent, until its mark comes back
    replay.played_up_to(seq)                   # mark ``seq`` returned
    replay.pause(ledger.clear_frames())        # a pause cleared the carrier: keep what it dropped
    replay.stash(item)                         # something that follows that audio, while paused
    for mulaw, items in replay.take(): ...     # resume: send these first, in order
    items = replay.drop()                      # the pause became an interruption: never sent again

Why ``clear`` and send again rather than hold back new media: Twilio plays what it holds (up to
the call's lead, a few frames), so holding back new frames would leave the caller hearing up to a
quarter second of the bot after they started speaking. A ``clear`` silences it within one 20 ms
payload; the frames it dropped are the ones whose marks had not come back, and their audio is
kept here, so a resume sends them again and the caller hears the answer continue from the first
frame they did not hear: no word lost. What played while the clear was on its way is heard twice
(at most one network round trip), never skipped.

Sans-I/O and bounded: at most the frames sent and not yet confirmed are kept.
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Replay(Generic[T]):
    """Payloads of frames sent and not confirmed played, and the frames a pause cleared."""

    def __init__(self) -> None:
        self._unplayed: deque[tuple[int, bytes]] = deque()
        self._cleared: list[tuple[bytes, list[T]]] = []
        self._paused = False

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def waiting(self) -> int:
        """Frames a pause cleared, waiting to be sent again."""
        return len(self._cleared)

    def sent(self, seq: int, payload: bytes) -> None:
        """Frame ``seq`` left with ``payload`` (its mark has not come back yet)."""
        self._unplayed.append((seq, payload))

    def played_up_to(self, seq: int) -> None:
        """The carrier played every frame up to ``seq``."""
        while self._unplayed and self._unplayed[0][0] <= seq:
            self._unplayed.popleft()

    def pause(self, cleared: list[tuple[int, list[T]]]) -> None:
        """A clear dropped these frames (seq and held items, in order): keep them for a resume."""
        payloads = dict(self._unplayed)
        self._cleared = [(payloads[seq], items) for seq, items in cleared if seq in payloads]
        self._unplayed.clear()
        self._paused = True

    def stash(self, item: T) -> bool:
        """Keep ``item`` behind the last cleared frame; False when none is waiting (it may go now)."""
        if not self._cleared:
            return False
        self._cleared[-1][1].append(item)
        return True

    def take(self) -> list[tuple[bytes, list[T]]]:
        """The bot resumes: the cleared frames and their items, to send again first, in order."""
        cleared, self._cleared = self._cleared, []
        self._paused = False
        return cleared

    def drop(self) -> list[T]:
        """The pause became an interruption: the cleared frames' items (their audio is never sent)."""
        items = [item for _, held in self._cleared for item in held]
        self._cleared = []
        self._paused = False
        return items


__all__ = ["Replay"]
