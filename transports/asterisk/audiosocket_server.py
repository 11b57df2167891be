"""The TCP listener a PBX's ``AudioSocket()`` dials: one bot per call, no carrier in between.

    server = AudioSocketServer(bot, AudioSocketSettings(), slots=slots, drain=drain)
    await server.start("127.0.0.1", 9092)     # ``warmline call --audiosocket-port 9092``
    ...
    await server.aclose()                      # stops listening, ends the calls left

Each connection must send its UUID within ``handshake_timeout_s`` (at most ``slots.max_pending``
connections wait for theirs), then takes a call slot from ``slots``, the ``CallSlots`` the
carriers' WebSocket routes share: one limit. Above it, or while ``drain`` is on, the PBX gets a
hangup and the socket closes. Then ``bot(call)`` runs beside the call's reader exactly as on a
carrier's route. Every connection's handler is a task this server names, keeps, and on
``aclose`` cancels and awaits; an error in one call is logged and never reaches another.
AudioSocket carries no credentials: keep the port on the PBX's private network.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from transports.asterisk import audiosocket as au
from transports.asterisk.audiosocket_call import AudioSocketCall
from transports.call_slots import CallSlots
from transports.drain import Drain
from transports.twilio.protocol import TwilioProtocolError
from transports.twilio.serving import serve_stream
from tts_service.engine.clock import Clock, monotonic

log = logging.getLogger("warmline.audiosocket")

AudioSocketBot = Callable[[AudioSocketCall], Coroutine[Any, Any, None]]


@dataclass(frozen=True, slots=True)
class AudioSocketSettings:
    handshake_timeout_s: float = 5.0
    media_timeout_s: float = 10.0
    end_grace_s: float = 2.0
    #: 20 ms chunks written ahead of Asterisk's playback
    lead_chunks: int = 2
    clock: Clock = monotonic


class AudioSocketServer:
    """AudioSocket calls on one TCP port (see the module doc)."""

    def __init__(
        self,
        bot: AudioSocketBot,
        settings: AudioSocketSettings | None = None,
        *,
        slots: CallSlots,
        drain: Drain | None = None,
    ) -> None:
        self.bot = bot
        self.settings = settings or AudioSocketSettings()
        self.slots = slots
        self.drain = drain
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._accept, host, port)
        log.info("audiosocket: listening on %s:%d", host, self.port)

    async def aclose(self) -> None:
        """Stop listening; cancel the calls still up (a drain has let them finish first)."""
        if self._server is not None:
            self._server.close()
        handlers = list(self._handlers)
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # the connection runs in a task this server names and owns (``aclose`` cancels it), not in
        # the one asyncio starts this callback in: that one only waits for it
        name = f"audiosocket-{next(self._ids)}"
        task = asyncio.create_task(self._connection(reader, writer, name), name=name)
        self._handlers.add(task)
        try:
            await asyncio.wait((task,))
        finally:
            self._handlers.discard(task)
            if not writer.is_closing():
                writer.transport.abort()
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: the connection failed", name, exc_info=task.exception())

    async def _connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, name: str
    ) -> None:
        peer = writer.get_extra_info("peername")
        if self.drain is not None and self.drain.draining:
            log.info("%s: refused %s: the server is draining", name, peer)
            await _hang_up(reader, writer)
            return
        if not self.slots.begin_pending(name):
            log.warning(
                "%s: refused %s: %d calls already waiting for their UUID", name, peer, len(self.slots.pending)
            )
            await _hang_up(reader, writer)
            return
        try:
            call = await AudioSocketCall.open(
                reader,
                writer,
                name=name,
                handshake_timeout_s=self.settings.handshake_timeout_s,
                clock=self.settings.clock,
                lead_chunks=self.settings.lead_chunks,
                media_timeout_s=self.settings.media_timeout_s,
            )
        except TwilioProtocolError as exc:
            log.warning("%s: call from %s refused (%s): %s", name, peer, exc.code, exc)
            await _hang_up(reader, writer)
            return
        finally:
            self.slots.end_pending(name)
        if not self.slots.take(name):  # no await since the check: the slot is this call's or none
            log.warning("%s: refused call %s: %d calls already", name, call.call_id, self.slots.taken)
            await call.close(reason="too many calls")
            return
        try:
            await serve_stream(call, self.bot, end_grace_s=self.settings.end_grace_s, name=name, log=log)
        finally:
            self.slots.give_back(name)


async def _hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Tell the PBX the call is over and close once it has (what it sent meanwhile is read and
    dropped, so the close is not a reset); never raises, waits at most 2 s."""
    try:
        writer.write(au.encode_hangup())
        writer.write_eof()
        async with asyncio.timeout(2.0):
            while await reader.read(au.CHUNK_BYTES):
                pass
        writer.close()
        async with asyncio.timeout(2.0):
            await writer.wait_closed()
    except (TimeoutError, OSError, RuntimeError):
        writer.transport.abort()


__all__ = ["AudioSocketBot", "AudioSocketServer", "AudioSocketSettings"]
