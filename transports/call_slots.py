"""One call limit for every route of a server: the calls in progress and the streams still starting.

    slots = CallSlots(max_calls=16)
    if not slots.take(name):           # no await between the check and the taking
        refuse()
    try:
        ...                            # the call
    finally:
        slots.give_back(name)

Every route that answers calls (Twilio's, WebRTC's, each carrier's) takes from the same
``CallSlots``, so ``max_calls`` bounds them all together, however the calls are mixed. ``take``
checks and takes in one step on the event loop (no await in between), so calls that arrive
together cannot all see the same free slot; whoever took a slot gives it back however its call
ends. Streams accepted but not yet started wait among at most ``max_pending`` others
(``begin_pending``/``end_pending``), so sockets that say nothing cannot keep a real call out.

Plain state on the event loop: no I/O, no asyncio of its own.
"""

from __future__ import annotations


class CallSlots:
    """The call slots (and the starting streams) of every route that shares this object."""

    def __init__(self, max_calls: int = 64, max_pending: int | None = None) -> None:
        if max_calls < 0:
            raise ValueError("max_calls must not be negative")
        self.max_calls = max_calls
        self.max_pending = max_pending if max_pending is not None else max(16, 4 * max_calls)
        #: the names of the calls holding a slot
        self.live: set[str] = set()
        #: the names of the streams accepted and still waiting for their start
        self.pending: set[str] = set()

    @property
    def taken(self) -> int:
        """Slots held now, over every route."""
        return len(self.live)

    def take(self, name: str) -> bool:
        """Take a slot for ``name`` if one is free; False (nothing taken) when all are held."""
        if name in self.live:
            raise ValueError(f"{name} holds a slot already")
        if len(self.live) >= self.max_calls:
            return False
        self.live.add(name)
        return True

    def occupy(self, name: str) -> None:
        """Count a call that was admitted elsewhere (it holds a slot even above the limit)."""
        self.live.add(name)

    def give_back(self, name: str) -> None:
        """Give ``name``'s slot back (nothing if it holds none)."""
        self.live.discard(name)

    def begin_pending(self, name: str) -> bool:
        """Let ``name`` wait for its start if fewer than ``max_pending`` wait; False if not."""
        if len(self.pending) >= self.max_pending:
            return False
        self.pending.add(name)
        return True

    def end_pending(self, name: str) -> None:
        self.pending.discard(name)


__all__ = ["CallSlots"]
