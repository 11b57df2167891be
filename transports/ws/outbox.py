"""One connection's bounded send queue: messages wait here for the socket, never without limit.

Producers (the reader's replies, the writer's paced frames) ``put`` without waiting; the sender
task ``run``s the queue into the socket. A full queue means the client stopped reading:
``put`` raises ``CloseConnection(1008)``. The reader also uses ``wait_for_room`` (a low watermark
at half the queue) so a burst of commands cannot fill the queue with replies faster than a reading
client takes them; a client that makes no room for ``stall_timeout_s`` has stopped reading.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from starlette.websockets import WebSocket, WebSocketDisconnect

from transports.ws.metrics import ServerMetrics


class CloseConnection(Exception):
    """Raised by a connection task: close the WebSocket with ``code`` and ``reason``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"{code} {reason}")
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One WebSocket message waiting for the sender: JSON text or a binary audio frame."""

    data: str | bytes


def _slow_client() -> CloseConnection:
    return CloseConnection(1008, "client is not reading: send backlog full")


class Outbox:
    """At most ``max_messages`` messages waiting for one client."""

    def __init__(self, max_messages: int, *, stall_timeout_s: float, metrics: ServerMetrics) -> None:
        self._queue: asyncio.Queue[Outgoing] = asyncio.Queue(max_messages)
        self._low = max(1, max_messages // 2)
        self._room = asyncio.Event()  # set by the sender once the queue is below the low watermark
        self._stall_timeout_s = stall_timeout_s
        self._metrics = metrics
        self._unsent = 0  # queued, or taken by the sender and not yet written

    @property
    def idle(self) -> bool:
        """Everything queued has been written to the socket."""
        return self._unsent == 0

    def put(self, data: str | bytes) -> None:
        """Queue a message; raises CloseConnection when the client has let the queue fill up."""
        try:
            self._queue.put_nowait(Outgoing(data))
        except asyncio.QueueFull:
            self._metrics.rejected.labels("slow_client").inc()
            raise _slow_client() from None
        self._unsent += 1

    async def wait_for_room(self) -> None:
        """Return once the queue is below half full; raises CloseConnection after a stall."""
        if self._queue.qsize() < self._low:
            return
        self._room.clear()
        try:
            async with asyncio.timeout(self._stall_timeout_s):
                await self._room.wait()
        except TimeoutError:
            self._metrics.rejected.labels("slow_client").inc()
            raise _slow_client() from None

    async def run(self, websocket: WebSocket) -> None:
        """Send queued messages in order until the client goes away (then return)."""
        while True:
            item = await self._queue.get()
            if self._queue.qsize() < self._low:
                self._room.set()
            try:
                if isinstance(item.data, bytes):
                    await websocket.send_bytes(item.data)
                else:
                    await websocket.send_text(item.data)
            except (WebSocketDisconnect, OSError):
                return
            finally:
                self._unsent -= 1


__all__ = ["CloseConnection", "Outbox", "Outgoing"]
