"""What the caller has heard, from the marks a carrier echoes once the audio before them has played.

    ledger: MarkLedger[Item] = MarkLedger(max_outstanding=250)
    ledger.sent(seq)                    # frame ``seq`` left, followed by its mark
    if not ledger.hold(item):           # something that follows frame ``seq`` (its words, say)
        release(item)                   # ... nothing is playing: it may go on at once
    for item in ledger.returned(seq):   # mark ``seq`` came back: frames up to ``seq`` were played
        release(item)
    for item in ledger.clear():         # barge-in: the carrier drops what it holds
        drop_or_release(item)           # these follow audio the caller never (surely) heard

An item is held behind the newest frame sent before it and released, in order, when that
frame's mark comes back; the carrier plays in order, so a mark also confirms every frame before
it. After ``clear`` the carrier echoes the marks it dropped: those names are recognised and
ignored, as is a mark the ledger never issued. A mark echoed for audio that played while the
clear was on its way cannot be told apart from an echo of dropped audio, so the ledger counts
neither: what was heard is frozen when the clear is sent (at most the audio of one round trip is
under-reported, never over-reported).

If the carrier stops echoing, the oldest frame is taken as played once more than
``max_outstanding`` are waiting, so memory stays bounded (``assumed_played`` counts those).

Sans-I/O and synchronous: no clock, no asyncio, no Pipecat. Never reports an item as heard
before the mark of the frame it follows has come back.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Generic, TypeVar

log = logging.getLogger("warmline.marks")

T = TypeVar("T")


@dataclass(slots=True)
class _Pending(Generic[T]):
    """A frame whose mark has not come back, and the items that follow it."""

    seq: int
    items: list[T] = field(default_factory=list)


@dataclass(slots=True)
class LedgerStats:
    """Counters for logs, metrics and tests."""

    returned: int = 0
    cleared: int = 0
    cleared_echoes: int = 0
    unknown_marks: int = 0
    assumed_played: int = 0


class MarkLedger(Generic[T]):
    """Frames sent but not yet confirmed played, and the items waiting on each."""

    def __init__(self, *, max_outstanding: int = 250) -> None:
        if max_outstanding < 1:
            raise ValueError("max_outstanding must be positive")
        self._max = max_outstanding
        self._pending: deque[_Pending[T]] = deque()
        self._last_sent = -1
        self._cleared_upto = -1
        self.stats = LedgerStats()

    @property
    def playing(self) -> bool:
        """True while some frame sent has not been confirmed played: the carrier holds our audio."""
        return bool(self._pending)

    @property
    def outstanding(self) -> int:
        """Frames sent whose marks have not come back."""
        return len(self._pending)

    @property
    def last_sent(self) -> int:
        """The ``seq`` of the newest frame sent (-1 before the first)."""
        return self._last_sent

    def sent(self, seq: int) -> list[T]:
        """Frame ``seq`` (larger than any before) has left; returns items released to bound memory."""
        if seq <= self._last_sent:
            raise ValueError(f"frame {seq} sent after frame {self._last_sent}: seq must grow")
        self._last_sent = seq
        self._pending.append(_Pending(seq))
        released: list[T] = []
        while len(self._pending) > self._max:
            oldest = self._pending.popleft()
            if self.stats.assumed_played == 0:
                log.warning("the carrier has not echoed %d marks: taking frames as played", self._max)
            self.stats.assumed_played += 1
            released.extend(oldest.items)
        return released

    def hold(self, item: T) -> bool:
        """Hold ``item`` until the newest frame sent is played; False when nothing is playing."""
        if not self._pending:
            return False
        self._pending[-1].items.append(item)
        return True

    def returned(self, seq: int) -> list[T]:
        """The mark of frame ``seq`` came back: the items of every frame up to it, in order."""
        if not self._pending or seq < self._pending[0].seq or seq > self._last_sent:
            if seq <= self._cleared_upto:
                self.stats.cleared_echoes += 1
            else:
                self.stats.unknown_marks += 1
            return []
        released: list[T] = []
        while self._pending and self._pending[0].seq <= seq:
            released.extend(self._pending.popleft().items)
            self.stats.returned += 1
        return released

    def clear(self) -> list[T]:
        """The carrier drops everything it holds: the items of every frame not confirmed, in order."""
        return [item for _, items in self.clear_frames() for item in items]

    def clear_frames(self) -> list[tuple[int, list[T]]]:
        """Like ``clear``, frame by frame: each unconfirmed frame's seq and its items, in order
        (for a transport that sends the cleared frames again after a pause)."""
        dropped = [(pending.seq, pending.items) for pending in self._pending]
        self.stats.cleared += len(self._pending)
        self._pending.clear()
        self._cleared_upto = self._last_sent
        return dropped


__all__ = ["LedgerStats", "MarkLedger"]
