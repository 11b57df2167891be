"""One AudioSocket call on a TCP connection: Twilio's call, with the pacing standing in for marks.

    call = await AudioSocketCall.open(reader, writer, name="audiosocket-1")   # reads the UUID
    # then exactly as a ``transports.twilio.call.TwilioCall``: the same Pipecat bot runs on it

``AudioSocketCall`` is a ``TwilioCall`` (so ``TwilioMediaStreamTransport`` drives it unchanged)
whose frames leave as four AudioSocket audio messages of 20 ms signed linear 8 kHz (the 80 ms
mu-law frame decoded), each paced on its own slot, ``lead_chunks`` ahead of real time, and
written only while the transport's write buffer is under a small high-water mark: Asterisk plays
what it receives and acknowledges nothing, so this call holds at most the audio of a couple of
20 ms chunks beyond what the PBX has taken.

Heard words ("marks"). Frame ``seq`` counts as heard once its last chunk has left the write
buffer (``transport.get_write_buffer_size()``) and its play time has come (Asterisk plays from
when the audio arrives, in order, 20 ms a chunk); a task of the call's reader then tells the
listener (``on_mark(seq)``), so the ledger releases its words as a carrier's echo would.

Barge-in (``interrupt``). The chunks not yet written are dropped (the epoch, as for Twilio);
what is already written lies in the kernel or in Asterisk and cannot be recalled, so every frame
any chunk of which was written is reported heard at once, before the output forgets what it
had not confirmed. AudioSocket has no ``clear``. A pause (a barge-in not yet confirmed) is the
same cut: if the bot then resumes, it goes on from the first frame none of which was written
(the rest of a frame cut mid-way, at most 60 ms, is not played again).

The caller's audio, DTMF, Asterisk's hangup or error, a closed socket, silence past
``media_timeout_s`` and malformed bytes end the call as on any carrier: once, in one log line.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from dataclasses import dataclass
from typing import cast

import numpy as np
from starlette.websockets import WebSocket

from transports.asterisk import audiosocket as au
from transports.twilio import protocol as tp
from transports.twilio import stream as ts
from transports.twilio.call import EndReason, HandshakeError, TwilioCall
from tts_service import g711
from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.listener import ListenerClock

CHUNK_S = au.CHUNK_BYTES / 2 / au.SAMPLE_RATE
#: the most bytes read from the socket at once
READ_BYTES = 16 * 1024
#: how often the confirmer looks again at a frame still in the write buffer
_POLL_S = 0.01


class AudioSocketHandshakeError(HandshakeError):
    code = "audiosocket_handshake"


@dataclass(slots=True)
class _Sent:
    """A frame whose chunks are all written: heard once ``end`` bytes have left and at ``due_s``."""

    seq: int
    end: int
    due_s: float


class AudioSocketCall(TwilioCall):
    """An AudioSocket call after its UUID (see the module doc)."""

    carrier = "audiosocket"

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        parser: au.AudioSocketStream,
        *,
        name: str,
        clock: Clock = monotonic,
        lead_chunks: int = 2,
        high_water: int = 2 * (au.CHUNK_BYTES + 3),
        media_timeout_s: float = 10.0,
    ) -> None:
        call_id = str(parser.call_id)
        # the Twilio machinery reads the call's identity from a stream that has started: one
        # whose start names this call (AudioSocket carries no parameters)
        stream = ts.InboundStream()
        stream.receive(tp.encode_inbound(tp.Connected()))
        stream.receive(tp.encode_inbound(tp.Start(1, call_id, "audiosocket", call_id)))
        # never used: every method of TwilioCall that touches its WebSocket is overridden here
        super().__init__(
            cast(WebSocket, None), stream, name=name, clock=clock, media_timeout_s=media_timeout_s
        )
        self._pacer = ListenerClock(lead_chunks * CHUNK_S)
        self._reader = reader
        self._writer = writer
        self._parser = parser
        writer.transport.set_write_buffer_limits(high=high_water)
        self._seq = 0
        self._written = 0  # bytes handed to the transport
        self._play_end_s = 0.0  # when Asterisk will have played everything written
        self._sent: deque[_Sent] = deque()  # bounded: frames leave at real time
        self._sent_changed = asyncio.Event()
        self._partial: int | None = None  # a frame some (not all) of whose chunks were written
        self._heard = -1

    @classmethod
    async def open(
        cls,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        name: str,
        handshake_timeout_s: float = 5.0,
        clock: Clock = monotonic,
        lead_chunks: int = 2,
        media_timeout_s: float = 10.0,
    ) -> AudioSocketCall:
        """Read until the call's UUID; raises AudioSocketHandshakeError or AudioSocketError."""
        parser = au.AudioSocketStream()
        try:
            async with asyncio.timeout(handshake_timeout_s):
                while parser.call_id is None:
                    data = await reader.read(au.CHUNK_BYTES)  # no more than the UUID and a bit
                    if not data:
                        raise AudioSocketHandshakeError("the PBX closed the socket before the UUID")
                    for message in parser.feed(data):
                        if isinstance(message, au.Error):
                            raise AudioSocketHandshakeError(f"the PBX sent error {message.code}")
        except TimeoutError:
            raise AudioSocketHandshakeError(f"no UUID within {handshake_timeout_s:g} s") from None
        except OSError as exc:
            raise AudioSocketHandshakeError(f"the socket failed ({type(exc).__name__})") from None
        return cls(
            reader,
            writer,
            parser,
            name=name,
            clock=clock,
            lead_chunks=lead_chunks,
            media_timeout_s=media_timeout_s,
        )

    @property
    def call_id(self) -> uuid.UUID:
        assert self._parser.call_id is not None
        return self._parser.call_id

    def mark_seq(self, name: str) -> int | None:
        return None  # AudioSocket has no marks

    # -- sending ------------------------------------------------------------------------------

    async def send_frame(self, mulaw: bytes, *, epoch: int | None) -> int | None:
        """Send one 80 ms frame as four paced chunks; its seq, or None if no chunk of it was sent."""
        pcm = g711.decode(mulaw).astype("<i2").tobytes()
        seq = self._seq
        for i in range(0, len(pcm), au.CHUNK_BYTES):
            delay_s = self._pacer.delay_s(self.clock())
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            async with self._send_lock:
                if self._ended.is_set() or (epoch is not None and epoch != self._epoch):
                    return seq if i else None  # a frame begun is heard (``interrupt`` said so)
                if i == 0:
                    self._seq += 1
                    if self.listener is not None:
                        self.listener.on_mark_sent(seq)
                    self._partial = seq
                if not await self._write_chunk(au.encode_audio(pcm[i : i + au.CHUNK_BYTES])):
                    return None
                if self._pacer.sent(self.clock(), CHUNK_S):
                    self.late_frames += 1
        self._partial = None
        self._sent.append(_Sent(seq, self._written, self._play_end_s))
        self._sent_changed.set()
        self.frames_sent += 1
        return seq

    async def _write_chunk(self, data: bytes) -> bool:
        """Hand ``data`` to the transport, then wait (bounded, ``TwilioCall._write``) for it to go
        under its high water; False (the call ended) if the PBX took nothing in time or is gone."""
        now = self.clock()
        self._play_end_s = max(self._play_end_s, now) + CHUNK_S * (len(data) - 3) / au.CHUNK_BYTES

        async def send() -> None:
            self._writer.write(data)
            self._written += len(data)
            await self._writer.drain()

        return await self._write(send)

    async def interrupt(self, *, clear: bool) -> None:
        """Drop every chunk not yet written; report what was written as heard (it cannot be recalled)."""
        self._epoch += 1
        self._pacer.restart()
        async with self._send_lock:  # after the chunk being written, never inside it
            last = self._partial if self._partial is not None else (self._sent[-1].seq if self._sent else -1)
            self._partial = None
            self._sent.clear()
            self._sent_changed.set()
            if clear:
                self.clears_sent += 1
            await self._confirm(last)

    async def _confirm(self, seq: int) -> None:
        if seq <= self._heard:
            return
        self._heard = seq
        if self.listener is not None:
            await self.listener.on_mark(seq)

    def _drained(self) -> int:
        """Bytes that have left the transport (for the kernel, then Asterisk)."""
        return self._written - self._writer.transport.get_write_buffer_size()

    async def _run_confirmer(self) -> None:
        """Report each frame heard once it has left the write buffer and its play time has come."""
        while True:
            if not self._sent:
                self._sent_changed.clear()
                await self._sent_changed.wait()
                continue
            head = self._sent[0]
            wait_s = head.due_s - self.clock()
            if wait_s > 0 or self._drained() < head.end:
                self._sent_changed.clear()
                try:
                    async with asyncio.timeout(max(wait_s, _POLL_S)):
                        await self._sent_changed.wait()  # an interrupt may have taken it
                except TimeoutError:
                    pass
                continue
            async with self._send_lock:
                if self._sent and self._sent[0] is head:
                    self._sent.popleft()
                    await self._confirm(head.seq)

    async def close(self, code: int = 1000, reason: str = "call over") -> None:
        """Hang up: a hangup message, then the socket closed once the PBX has closed its side
        (what it sends meanwhile is read and dropped, so the close is no reset that could lose
        the hangup); at most 2 s, never raises. For the owner, once the reader has stopped."""
        self._end(EndReason.CLOSED, reason)
        if self._writer.is_closing():
            return
        try:
            self._writer.write(au.encode_hangup())
            self._writer.write_eof()
            async with asyncio.timeout(2.0):
                while await self._reader.read(READ_BYTES):
                    pass
                self._writer.close()
                await self._writer.wait_closed()
        except (TimeoutError, OSError, RuntimeError):
            self._writer.transport.abort()  # the PBX is gone or stuck: drop the connection

    # -- receiving ----------------------------------------------------------------------------

    async def _read(self) -> None:
        confirmer = asyncio.create_task(self._run_confirmer(), name=f"{self.name}-heard")
        try:
            while not self._ended.is_set() and await self._read_some():
                pass
        finally:
            confirmer.cancel()
            await asyncio.gather(confirmer, return_exceptions=True)

    async def _read_some(self) -> bool:
        try:
            async with asyncio.timeout(self._media_timeout_s):
                data = await self._reader.read(READ_BYTES)
        except TimeoutError:
            self._end(EndReason.MEDIA_TIMEOUT, f"no message for {self._media_timeout_s:g} s")
            return False
        except OSError as exc:
            self._end(EndReason.DISCONNECTED, f"receive failed ({type(exc).__name__})")
            return False
        if not data:
            self._end(EndReason.DISCONNECTED, "the PBX closed the socket without a hangup")
            return False
        try:
            messages = self._parser.feed(data)
        except au.AudioSocketError as exc:
            self._end(EndReason.PROTOCOL_ERROR, f"{exc.code}: {exc}")
            return False
        for message in messages:
            try:
                await self._deliver(message)
            except Exception as exc:  # a listener bug ends this call, never the server
                why = f"the listener failed on {type(message).__name__}: {type(exc).__name__}"
                self._end(EndReason.LISTENER_FAILED, why, error=exc)
                return False
            if isinstance(message, au.Hangup):
                self._end(EndReason.STOP, "the PBX hung up")
                return False
            if isinstance(message, au.Error):
                self._end(EndReason.PROTOCOL_ERROR, f"the PBX sent error {message.code}")
                return False
        return True

    async def _deliver(self, message: au.Message) -> None:
        listener = self.listener
        if listener is None:
            self._dropped_before_listener += 1
        elif isinstance(message, au.Audio):
            await listener.on_audio(np.frombuffer(message.pcm, dtype="<i2").astype(np.int16))
        elif isinstance(message, au.Dtmf):
            await listener.on_dtmf(message.digit)


__all__ = ["CHUNK_S", "AudioSocketCall", "AudioSocketHandshakeError"]
