"""A simulated PBX dialing AudioSocket, for tests and benchmarks: Asterisk's side of the TCP call.

    pbx = await AudioSocketPbx.connect("127.0.0.1", port)
    clock = asyncio.create_task(pbx.run(), name="pbx")   # one tick every 20 ms until cancelled
    pbx.say(pcm)                                         # the caller speaks (int16 at 8 kHz)
    await pbx.wait_until(lambda p: p.idle_for(25), max_ticks=1500)
    await pbx.hang_up()

Real time, as Asterisk bridges a channel: the UUID first, then every 20 ms tick one 320-byte
audio message of the caller (queued speech, else silence) and one 20 ms chunk of the bot's audio
taken and played (``log.played``, with the tick and the time). The bot's audio is read off the
socket only while fewer than ``jitter_chunks`` chunks wait to be played, so a bot that writes
faster than real time meets TCP's flow control, as it would against a busy PBX. Anything the
bot sends that Asterisk would not take is recorded in ``log.violations``. Never the bot's side.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from transports.asterisk import audiosocket as au

TICK_S = 0.02
SILENCE = bytes(au.CHUNK_BYTES)


@dataclass(frozen=True, slots=True)
class Played:
    tick: int
    time_s: float
    pcm: bytes
    answer: int


@dataclass(slots=True)
class PbxLog:
    played: list[Played] = field(default_factory=list)
    hangups: int = 0
    violations: list[tuple[int, str]] = field(default_factory=list)


class AudioSocketPbx:
    """One simulated AudioSocket call; ``run()`` it in a task, drive it with steps."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        call_id: uuid.UUID | None = None,
        jitter_chunks: int = 4,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.call_id = call_id or uuid.UUID(int=1)
        self.jitter_chunks = jitter_chunks
        self.log = PbxLog()
        self.tick = 0
        self.answer = 0
        self.last_audio_tick = -1
        self._mic: deque[bytes] = deque()
        self._queue: deque[bytes] = deque()
        self._room = asyncio.Event()
        self._ticked = asyncio.Event()
        self._stopped = False

    @classmethod
    async def connect(cls, host: str, port: int, **kwargs: object) -> AudioSocketPbx:
        # a small read buffer: what the PBX has not taken stays in the kernel, as flow control
        reader, writer = await asyncio.open_connection(host, port, limit=1024)
        pbx = cls(reader, writer, **kwargs)  # type: ignore[arg-type]
        writer.write(au.encode_uuid(pbx.call_id))
        return pbx

    # -- the caller ---------------------------------------------------------------------------

    def say(self, pcm: npt.NDArray[np.int16], *, question: bool = True) -> None:
        if question:
            self.answer += 1
        data = pcm.astype("<i2").tobytes()
        data += bytes((-len(data)) % au.CHUNK_BYTES)
        self._mic.extend(data[i : i + au.CHUNK_BYTES] for i in range(0, len(data), au.CHUNK_BYTES))

    @property
    def speaking(self) -> bool:
        return bool(self._mic)

    async def press(self, digit: str) -> None:
        self.writer.write(au.encode_dtmf(digit))
        await self.writer.drain()

    async def hang_up(self) -> None:
        self.writer.write(au.encode_hangup())
        self.writer.close()
        try:
            async with asyncio.timeout(2.0):
                await self.writer.wait_closed()
        except (TimeoutError, OSError):
            self.writer.transport.abort()

    # -- the clock ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Send the caller's audio and play the bot's, one tick every 20 ms, until cancelled."""
        receiver = asyncio.create_task(self._receive(), name="pbx-receiver")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            while True:
                await asyncio.sleep(max(0.0, t0 + (self.tick + 1) * TICK_S - loop.time()))
                self.tick += 1
                if not self.writer.is_closing():
                    self.writer.write(au.encode_audio(self._mic.popleft() if self._mic else SILENCE))
                if self._queue:
                    pcm = self._queue.popleft()
                    self.log.played.append(Played(self.tick, loop.time(), pcm, self.answer))
                    self._room.set()
                self._ticked.set()
                self._ticked.clear()
        finally:
            self._stopped = True
            self._ticked.set()
            receiver.cancel()
            await asyncio.gather(receiver, return_exceptions=True)

    async def wait_until(self, done: Callable[[AudioSocketPbx], bool], *, max_ticks: int) -> bool:
        for _ in range(max_ticks):
            if done(self) or self._stopped:
                break
            await self._ticked.wait()
        return done(self)

    def idle_for(self, ticks: int) -> bool:
        """Nothing queued and none of the bot's audio played for ``ticks`` ticks."""
        last = self.log.played[-1].tick if self.log.played else -1
        return not self._queue and last >= 0 and self.tick - last >= ticks

    # -- the bot's side -----------------------------------------------------------------------

    async def _receive(self) -> None:
        stream = au.AudioSocketStream()
        stream.feed(au.encode_uuid(self.call_id))  # the bot's messages follow the call's UUID
        while True:
            while len(self._queue) >= self.jitter_chunks:
                self._room.clear()
                await self._room.wait()
            try:  # the PBX takes a message at a time
                header = await self.reader.readexactly(3)
                rest = await self.reader.readexactly(int.from_bytes(header[1:3], "big"))
            except asyncio.IncompleteReadError:
                return
            try:
                messages = stream.feed(header + rest)
            except au.AudioSocketError as exc:
                self.log.violations.append((self.tick, str(exc)))
                return
            for message in messages:
                if isinstance(message, au.Audio):
                    if len(message.pcm) != au.CHUNK_BYTES:
                        self.log.violations.append((self.tick, f"audio of {len(message.pcm)} bytes"))
                    self._queue.append(message.pcm)
                    self.last_audio_tick = self.tick
                elif isinstance(message, au.Hangup):
                    self.log.hangups += 1
                else:
                    self.log.violations.append((self.tick, f"the bot sent {type(message).__name__}"))


__all__ = ["TICK_S", "AudioSocketPbx", "PbxLog", "Played"]
