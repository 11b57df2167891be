"""Which server turn the frames on the wire belong to: the segments begun, the answers owed.

Protocol v1 has no turn ids: frames belong to the server turn in effect when they were sent.
Every command that begins a server turn (``start``, an ``inject`` with no turn running) is a
*segment*, queued with the acknowledgements the server still owes (``paused``, ``resumed``,
``reset``) in the order their commands were sent. A segment takes over once the server is quiet
(after ``done``, a ``paused`` or a ``reset``; at once on a fresh connection). A ``done`` also
settles the ``paused`` and ``resumed`` its turn still owed: a pause that reaches the server after
the turn's ``done`` is answered with nothing. ``word`` events wait here for the frame they
precede, and are dropped whenever the server's turn changes.

``SegmentLedger`` keeps this bookkeeping for ``wire_session.WireSession``, which decides which
segment is still wanted and what is handed out. Sans-I/O and synchronous.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from dataclasses import dataclass

from tts_service.engine.types import WordMark

log = logging.getLogger("warmline.remote")


class Ack(enum.Enum):
    """An answer the server owes for a command sent."""

    PAUSED = "paused"
    RESUMED = "resumed"
    RESET = "reset"


@dataclass(eq=False, slots=True)
class Segment:
    """One server turn, begun by one command: the local turn it speaks for, and where it starts."""

    turn_id: int
    #: samples of the local turn handed out before this segment began
    base_samples: int
    received_samples: int = 0


class SegmentLedger:
    """The segments begun and acknowledgements owed, and the segment the server speaks for now."""

    def __init__(self) -> None:
        #: segments begun and acknowledgements owed, in the order their commands were sent
        self._owed: deque[Segment | Ack] = deque()
        self._server: Segment | None = None
        self._quiet = True
        #: word marks received for the frame to come
        self._words: list[WordMark] = []

    @property
    def server(self) -> Segment | None:
        """The segment the server's frames belong to now (None: between turns)."""
        return self._server

    @property
    def server_speaks(self) -> bool:
        """The server still has a turn of ours that may be paused or resumed (no done yet)."""
        return self._server is not None or any(isinstance(o, Segment) for o in self._owed)

    def fresh_server(self) -> None:
        """A new server session (a new connection, or none): it speaks for no segment yet."""
        self._server, self._quiet, self._words = None, True, []

    def clear(self) -> None:
        """The connection dropped: nothing is owed any more, and no server speaks."""
        self._owed.clear()
        self.fresh_server()

    def owe(self, item: Segment | Ack) -> None:
        """A command was queued that begins ``item`` (a segment) or is answered by it."""
        self._owed.append(item)

    def advance(self) -> None:
        """Once the server is quiet, the next segment begun is the one its frames belong to."""
        while self._quiet and self._owed and isinstance(self._owed[0], Segment):
            segment = self._owed.popleft()
            assert isinstance(segment, Segment)
            self._server, self._quiet = segment, False

    def acknowledged(self, ack: Ack) -> None:
        """The server answered ``ack``: segments begun behind earlier answers take over on the way."""
        while self._owed:
            item = self._owed.popleft()
            if isinstance(item, Segment):  # begun behind an earlier answer: it takes over now
                self._server, self._quiet = item, False
            elif item is ack:
                break
        else:
            log.debug("remote: an unexpected %s", ack.value)
        if ack is Ack.RESUMED:
            self._quiet = self._server is None
        else:
            self._quiet = True
            if ack is Ack.RESET:
                self._server = None
        self._words = []
        self.advance()

    def done(self) -> Segment | None:
        """The server's turn is done: the segment it ended (None: it spoke for none); the next
        segment begun takes over."""
        segment, self._server, self._quiet = self._server, None, True
        # A pause or resume that reached the server after this done is answered with nothing.
        while self._owed and self._owed[0] in (Ack.PAUSED, Ack.RESUMED):
            self._owed.popleft()
        self._words = []
        self.advance()
        return segment

    def add_word(self, word: WordMark) -> None:
        self._words.append(word)

    def take_words(self) -> list[WordMark]:
        """The word marks received since the last frame (they belong to the next one)."""
        words, self._words = self._words, []
        return words


__all__ = ["Ack", "Segment", "SegmentLedger"]
