"""A simulated Twilio carrier: the other end of a Media Stream, to test a bot without a phone line.

    async with connect(f"ws://{host}:{port}/twilio") as ws:
        carrier = Carrier(ws)
        clock = asyncio.create_task(carrier.run())  # one tick every 20 ms until cancelled
        await carrier.begin()                       # ``connected`` then ``start``
        carrier.say(question)                       # the caller speaks: mu-law at 8 kHz
        await carrier.wait_until(lambda c: c.idle_for(25), max_ticks=1500)
        await carrier.end()                         # ``stop``: the caller hangs up
        clock.cancel()

It is a protocol peer for users' own bots as much as for Warmline's tests and benchmarks: the real
message shapes, real-time playback. Every 20 ms tick the carrier sends one inbound ``media``
message (the caller's "microphone": queued speech, else mu-law silence) and plays one 20 ms
payload of the bot's audio, echoing each mark once the audio before it has played. A ``clear``
drops the buffered audio and echoes the marks it held, as Twilio does. ``hold_playback`` freezes
playback (a scenario's way to make a barge-in land between two marks). Everything received is
checked against the protocol and recorded with the tick it arrived on (``log``).

The caller's side of the line, never the bot's: the endpoints and the agent never import it. It
never raises on a bot's protocol error (it records it in ``log.violations``), and its waits are
bounded by tick counts, never open-ended.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection

from transports.twilio import protocol as tp

SILENCE_CHUNK = bytes([0xFF]) * tp.CHUNK_BYTES
TICK_S = tp.CHUNK_MS / 1000


@dataclass(frozen=True, slots=True)
class Received:
    """A bot message and the tick it arrived on (the time too, for benchmarks)."""

    tick: int
    time_s: float
    message: tp.OutboundMessage


@dataclass(slots=True)
class Played:
    """A 20 ms payload the carrier played to the caller."""

    tick: int
    time_s: float
    payload: bytes
    answer: int


@dataclass(slots=True)
class Utterance:
    """Speech the caller queued with ``say``; ``sent_s`` fills as its 20 ms chunks go out."""

    chunks: int
    sent_s: list[float] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return len(self.sent_s) == self.chunks


@dataclass(slots=True)
class CarrierLog:
    """What the carrier saw and did."""

    received: list[Received] = field(default_factory=list)
    played: list[Played] = field(default_factory=list)
    #: marks echoed because their audio played, with the tick
    echoed: list[tuple[int, str]] = field(default_factory=list)
    #: marks echoed because a clear dropped their audio
    cleared_echoes: list[str] = field(default_factory=list)
    clears: list[int] = field(default_factory=list)
    #: (tick, time): the caller's playback went quiet (a clear, or the bot's audio ran out)
    went_silent: list[tuple[int, float]] = field(default_factory=list)
    #: (tick, what): protocol problems in the bot's messages (must stay empty)
    violations: list[tuple[int, str]] = field(default_factory=list)
    #: ticks on which a scenario step happened, by name
    steps: dict[str, float] = field(default_factory=dict)


class Carrier:
    """One simulated Twilio media stream over ``ws``; ``run()`` it in a task, drive it with steps."""

    def __init__(
        self,
        ws: ClientConnection,
        *,
        stream_sid: str = "MZ00000000000000000000000000000001",
        call_sid: str = "CA00000000000000000000000000000001",
        account_sid: str = "AC00000000000000000000000000000001",
        parameters: dict[str, str] | None = None,
    ) -> None:
        self.ws = ws
        self.stream_sid = stream_sid
        self.call_sid = call_sid
        self.account_sid = account_sid
        self.parameters = parameters or {}
        self.log = CarrierLog()
        self.tick = 0
        self.answer = 0
        self.hold_playback = False
        self._mic: deque[tuple[bytes, Utterance]] = deque()
        self._buffer: deque[bytes | str] = deque()
        self._seq = itertools.count(1)
        self._chunk = itertools.count(1)
        self._ticked = asyncio.Event()
        self._stopped = False
        self._media_since_mark = 0
        self._playing = False
        self.last_media_tick = -1

    # -- the carrier's wire format (another carrier's simulator overrides these) ---------------

    def encode(self, event: tp.InboundEvent) -> str | bytes | None:
        """The message that carries ``event`` on this carrier's wire (None: it sends none)."""
        return tp.encode_inbound(event)

    def parse(self, data: str | bytes) -> tp.OutboundMessage:
        """A bot's message, read as this carrier reads it; raises a TwilioProtocolError."""
        return tp.parse_outbound(data)

    async def cleared(self, dropped: list[str]) -> None:
        """After a clear: Twilio echoes the marks it dropped."""
        for name in dropped:
            self.log.cleared_echoes.append(name)
            await self.send_event(tp.Mark(next(self._seq), self.stream_sid, name))

    # -- caller side --------------------------------------------------------------------------

    async def send_event(self, event: tp.InboundEvent) -> None:
        message = self.encode(event)
        if message is not None:
            await self.ws.send(message)

    async def begin(self) -> None:
        """``connected`` then ``start``, as Twilio opens every stream."""
        await self.send_event(tp.Connected())
        start = tp.Start(
            next(self._seq),
            self.stream_sid,
            self.account_sid,
            self.call_sid,
            ("inbound",),
            tp.MediaFormat(),
            self.parameters,
        )
        await self.send_event(start)

    async def end(self) -> None:
        """``stop``, as Twilio ends a stream when the call hangs up."""
        await self.send_event(tp.Stop(next(self._seq), self.stream_sid, self.account_sid, self.call_sid))

    async def press(self, digit: str) -> None:
        """The caller presses a key (a ``dtmf`` event)."""
        await self.send_event(tp.Dtmf(next(self._seq), self.stream_sid, "inbound_track", digit))

    def say(self, mulaw: bytes, *, question: bool = True) -> Utterance:
        """Queue the caller's speech (mu-law at 8 kHz); a question makes what plays next its answer."""
        if question:
            self.answer += 1
        padded = mulaw + SILENCE_CHUNK[: (-len(mulaw)) % tp.CHUNK_BYTES]
        utterance = Utterance(len(padded) // tp.CHUNK_BYTES)
        self._mic.extend(
            (padded[i : i + tp.CHUNK_BYTES], utterance) for i in range(0, len(padded), tp.CHUNK_BYTES)
        )
        return utterance

    @property
    def speaking(self) -> bool:
        return bool(self._mic)

    # -- the clock ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Send the caller's audio and play the bot's, one tick every 20 ms, until cancelled."""
        receiver = asyncio.create_task(self._receive(), name="carrier-receiver")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            while True:
                await asyncio.sleep(max(0.0, t0 + (self.tick + 1) * TICK_S - loop.time()))
                self.tick += 1
                chunk, utterance = self._mic.popleft() if self._mic else (SILENCE_CHUNK, None)
                media = tp.Media(
                    next(self._seq), self.stream_sid, "inbound", next(self._chunk), self.tick * 20, chunk
                )
                await self.send_event(media)
                if utterance is not None:
                    utterance.sent_s.append(loop.time())
                if not self.hold_playback:
                    await self._play_one()
                self._ticked.set()
                self._ticked.clear()
        finally:
            self._stopped = True
            self._ticked.set()  # nobody waits for a tick that will not come
            receiver.cancel()
            await asyncio.gather(receiver, return_exceptions=True)

    async def _play_one(self) -> None:
        now = asyncio.get_running_loop().time()
        if self._buffer and isinstance(self._buffer[0], bytes):
            payload = self._buffer.popleft()
            assert isinstance(payload, bytes)
            self.log.played.append(Played(self.tick, now, payload, self.answer))
            self._playing = True
        elif self._playing:
            self._playing = False
            self.log.went_silent.append((self.tick, now))
        while self._buffer and isinstance(self._buffer[0], str):
            name = self._buffer.popleft()
            assert isinstance(name, str)
            self.log.echoed.append((self.tick, name))
            await self.send_event(tp.Mark(next(self._seq), self.stream_sid, name))

    async def wait_until(self, done: Callable[[Carrier], bool], *, max_ticks: int) -> bool:
        """Wait, tick by tick, until ``done(self)``; False after ``max_ticks`` ticks."""
        for _ in range(max_ticks):
            if done(self):
                return True
            if self._stopped:
                break
            await self._ticked.wait()
        return done(self)

    def idle_for(self, ticks: int) -> bool:
        """Nothing buffered and no bot media for ``ticks`` ticks."""
        return not self._buffer and self.last_media_tick >= 0 and self.tick - self.last_media_tick >= ticks

    @property
    def buffered_frames(self) -> int:
        return sum(1 for item in self._buffer if isinstance(item, str))

    # -- bot side -----------------------------------------------------------------------------

    async def _receive(self) -> None:
        async for raw in self.ws:
            now = asyncio.get_running_loop().time()
            try:
                message = self.parse(raw)
            except tp.TwilioProtocolError as exc:
                self.log.violations.append((self.tick, str(exc)))
                continue
            self.log.received.append(Received(self.tick, now, message))
            if message.stream_sid != self.stream_sid:
                self.log.violations.append((self.tick, "wrong streamSid"))
            if isinstance(message, tp.OutboundMedia):
                self._on_media(message)
            elif isinstance(message, tp.OutboundMark):
                if self._media_since_mark != tp.CHUNKS_PER_FRAME:
                    self.log.violations.append((self.tick, f"mark after {self._media_since_mark} media"))
                self._media_since_mark = 0
                self._buffer.append(message.name)
            else:
                await self._on_clear()

    def _on_media(self, message: tp.OutboundMedia) -> None:
        if len(message.payload) != tp.CHUNK_BYTES:
            self.log.violations.append((self.tick, f"media of {len(message.payload)} bytes"))
        self._media_since_mark += 1
        self.last_media_tick = self.tick
        for i in range(0, len(message.payload), tp.CHUNK_BYTES):
            self._buffer.append(message.payload[i : i + tp.CHUNK_BYTES])

    async def _on_clear(self) -> None:
        self.log.clears.append(self.tick)
        if self._playing:  # the caller hears silence from now on
            self._playing = False
            self.log.went_silent.append((self.tick, asyncio.get_running_loop().time()))
        if self._media_since_mark:
            self.log.violations.append((self.tick, f"clear inside a frame ({self._media_since_mark} media)"))
        dropped = [item for item in self._buffer if isinstance(item, str)]
        self._buffer.clear()
        await self.cleared(dropped)


__all__ = ["SILENCE_CHUNK", "TICK_S", "Carrier", "CarrierLog", "Played", "Received", "Utterance"]
