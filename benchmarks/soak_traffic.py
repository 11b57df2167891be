"""The soak's traffic: WebSocket clients of ``warmline serve`` and Twilio callers of ``warmline call``.

    tally = await traffic(serve_address, call_address, ws_clients=8, calls=2, audio=..., seconds=60, seed=1)

Each WebSocket client connects, picks an encoding (PCM or mu-law), a rate and a mode (whole
utterances or streamed tokens), speaks a few turns of a random kind and disconnects, over and
over; each caller (``transports.twilio.carrier``) asks a question, hears the answer (sometimes
talking over it, sometimes saying "uh huh") and hangs up, over and over. What they did and every
error a client saw go into the ``Tally``. ``benchmarks/soak.py`` runs the servers and reads them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from transports.twilio.carrier import Carrier
from tts_service import wire as wp

SENTENCES = (
    "Thank you for waiting, your table is ready now.",
    "I can help you with that, let me check the schedule for tomorrow.",
    "Hello there, how are you doing today?",
    "The weather is lovely today, so the terrace is open.",
)
QUESTIONS = ("What time do you open?", "Can I book a table for two?", "What is the weather like?")
BARGE_IN = "Wait, stop please."
BACKCHANNEL = "Uh huh."
#: bound on any single wait for a server (a safety net against hangs)
WAIT_S = 60.0
#: 20 ms carrier ticks a call may take for any one step
MAX_TICKS = 1500


@dataclass(slots=True)
class Tally:
    turns: dict[str, int] = field(default_factory=dict)
    connections: int = 0
    calls: int = 0
    errors: list[str] = field(default_factory=list)

    def turn(self, kind: str) -> None:
        self.turns[kind] = self.turns.get(kind, 0) + 1

    def error(self, what: str) -> None:
        if len(self.errors) < 50:
            self.errors.append(what)
        else:
            self.errors[-1] = f"... and more; last: {what}"


async def events_until(ws: ClientConnection, *names: str) -> tuple[int, list[dict[str, Any]]]:
    """Frames and events until one of ``names``; raises on an error event."""
    frames, events = 0, []
    while True:
        message = await asyncio.wait_for(ws.recv(), WAIT_S)
        if isinstance(message, bytes):
            frames += 1
            continue
        event = wp.decode_event(message)
        events.append(event)
        if event["event"] == "error":
            raise RuntimeError(f"error event {event['code']}: {event['message'][:80]}")
        if event["event"] in names:
            return frames, events


async def send(ws: ClientConnection, **command: Any) -> None:
    await ws.send(json.dumps(command))


async def ws_turn(ws: ClientConnection, kind: str, streaming: bool, rng: random.Random) -> None:
    text = rng.choice(SENTENCES)
    if kind == "whole":
        if streaming:
            await send(ws, cmd="start", text="")
            for i in range(0, len(text), 4):
                await send(ws, cmd="inject", text=text[i : i + 4])
                await asyncio.sleep(0.03)
            await send(ws, cmd="flush")
        else:
            await send(ws, cmd="start", text=text)
        frames, _ = await events_until(ws, "done")
        if frames == 0:
            raise RuntimeError("a turn ended without audio")
        return
    if kind == "queued" and not streaming:
        await send(ws, cmd="start", text=text)
        await send(ws, cmd="inject", text=rng.choice(SENTENCES))
        await events_until(ws, "done")
        await events_until(ws, "done")
        return
    await send(ws, cmd="start", text=text)  # a barge-in: pause after a few frames
    if streaming:
        await send(ws, cmd="flush")
    for _ in range(rng.randint(2, 8)):
        message = await asyncio.wait_for(ws.recv(), WAIT_S)
        if isinstance(message, str) and wp.decode_event(message)["event"] == "done":
            return  # a short sentence may end first
    await send(ws, cmd="pause")
    await events_until(ws, "paused")
    await asyncio.sleep(rng.uniform(0.1, 0.5))
    if kind == "barge_resume":
        await send(ws, cmd="resume")
        await events_until(ws, "done")
    else:
        await send(ws, cmd="reset")
        await events_until(ws, "reset")


async def ws_client(url: str, rng: random.Random, tally: Tally, until: float) -> None:
    """Connect, configure, a few turns, leave (sometimes mid-turn, without a goodbye); repeat."""
    while time.monotonic() < until:
        try:
            async with connect(url, max_size=None) as ws:
                tally.connections += 1
                await events_until(ws, "ready")
                streaming = rng.random() < 0.5
                encoding = rng.choice(["pcm16", "mulaw"])
                rate = rng.choice([8000, 16000, 24000])
                await send(ws, cmd="config", streaming=streaming, encoding=encoding, sample_rate=rate)
                await events_until(ws, "configured")
                for _ in range(rng.randint(1, 4)):
                    kind = rng.choice(["whole", "whole", "barge_resume", "barge_reset", "queued"])
                    await ws_turn(ws, kind, streaming, rng)
                    tally.turn(f"ws {kind}")
                if rng.random() < 0.2:  # vanish mid-turn
                    await send(ws, cmd="start", text=rng.choice(SENTENCES))
                    await asyncio.wait_for(ws.recv(), WAIT_S)
                    ws.transport.abort()
                    tally.turn("ws vanished mid-turn")
        except (RuntimeError, TimeoutError, ConnectionClosed, OSError) as exc:
            if not (isinstance(exc, ConnectionClosed) and exc.rcvd is None and exc.sent is None):
                tally.error(f"ws: {type(exc).__name__}: {exc}"[:200])
        await asyncio.sleep(rng.uniform(0.0, 0.5))


async def phone_caller(
    url: str, audio: dict[str, bytes], rng: random.Random, tally: Tally, until: float
) -> None:
    """Call, ask, listen (sometimes talk over the answer or say "uh huh"), hang up; repeat."""
    while time.monotonic() < until:
        try:
            async with connect(url, max_size=None) as ws:
                carrier = Carrier(ws)
                clock = asyncio.create_task(carrier.run(), name="soak-carrier")
                try:
                    await carrier.begin()
                    await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
                    carrier.say(audio[rng.choice(QUESTIONS)])
                    heard = await carrier.wait_until(lambda c: len(c.log.echoed) >= 5, max_ticks=MAX_TICKS)
                    if not heard:
                        raise RuntimeError("no answer")
                    what = rng.choice(["listen", "listen", "barge", "backchannel"])
                    if what != "listen":
                        carrier.say(audio[BARGE_IN if what == "barge" else BACKCHANNEL], question=False)
                    await carrier.wait_until(lambda c: not c.speaking and c.idle_for(40), max_ticks=MAX_TICKS)
                    await carrier.end()
                    tally.turn(f"call {what}")
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
                tally.calls += 1
        except (RuntimeError, TimeoutError, ConnectionClosed, OSError) as exc:
            tally.error(f"call: {type(exc).__name__}: {exc}"[:200])
        await asyncio.sleep(rng.uniform(0.2, 1.0))


async def traffic(
    serve_address: str,
    call_address: str,
    *,
    ws_clients: int,
    calls: int,
    audio: dict[str, bytes],
    seconds: float,
    seed: int,
) -> Tally:
    """``ws_clients`` clients and ``calls`` callers for ``seconds``; what they did, in one tally."""
    tally = Tally()
    until = time.monotonic() + seconds
    tasks = [
        asyncio.create_task(
            ws_client(f"ws://{serve_address}/ws", random.Random(seed * 1000 + i), tally, until),
            name=f"soak-ws-{i}",
        )
        for i in range(ws_clients)
    ] + [
        asyncio.create_task(
            phone_caller(
                f"ws://{call_address}/twilio", audio, random.Random(seed * 1000 + 500 + i), tally, until
            ),
            name=f"soak-call-{i}",
        )
        for i in range(calls)
    ]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return tally
