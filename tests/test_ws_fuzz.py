"""10,000 seeded random messages against a live server: no crash, and the session still speaks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable
from typing import Any

from asr import DISTRACTORS
from websockets.asyncio.client import ClientConnection, connect
from ws_helpers import LiveServer, receive_until, run_with_server, send

from transports.ws.settings import ServerSettings
from tts_service import wire as wp
from tts_service.backends.hibari.backend import HibariBackend

Recognize = Callable[..., str | None]

MESSAGES = 10_000
SEED = 20240611
WORDS = [
    "hello",
    "there",
    "the",
    "price",
    "is",
    "fine",
    "ok",
    "yes",
    "no",
    "[S1]",
    "[S2]",
    "$3.50",
    "3:30pm",
    "Dr.",
    "e.g.",
    "```",
    "#",
    "*",
    "café",
    "東京",
    "🙂",
    "\x00",
    "\u200b",
]
SAMPLE_RATES = [8000, 16000, 24000, 48000, 11025, 0, -8000, 8000.0, "8000", None, True]
VOICES = ["heart", "heart", "nobody", "", "../../etc/passwd", 7, None]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) + rng.choice(["", ".", "?", ","])


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randint(0, 7 if depth < 3 else 4)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, 2**64, 1.5, -0.0, 1e308])
    if kind in (3, 4):
        return _text(rng)
    if kind in (5, 6):
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {_text(rng)[:8]: _json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _command(rng: random.Random) -> dict[str, Any]:
    name = rng.choices(
        ["start", "inject", "flush", "pause", "resume", "reset", "config", "bogus"],
        weights=[10, 20, 6, 6, 6, 3, 6, 3],
    )[0]
    cmd: dict[str, Any] = {"cmd": name}
    if name in ("start", "inject") and rng.random() < 0.95:
        cmd["text"] = _text(rng) if rng.random() < 0.9 else _json_value(rng)
    if name == "config":
        for key, choices in (
            ("sample_rate", SAMPLE_RATES),
            ("voice", VOICES),
            ("encoding", ["pcm16", "mulaw", "opus", 1]),
            ("speed", [0.5, 1, 1.5, 2, 0, -1, 9, "1"]),
            ("word_timestamps", [True, False, "yes"]),
            ("streaming", [True, False, False, 1]),
        ):
            if rng.random() < 0.4:
                cmd[key] = rng.choice(choices)
    return cmd


def _mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(chars) + 1)
        op = rng.randint(0, 2)
        if op == 0:
            chars.insert(i, chr(rng.randint(0, 0x2FFF)))
        elif chars and i < len(chars):
            if op == 1:
                del chars[i]
            else:
                chars[i] = rng.choice('{}[]":,\\ ')
    return "".join(chars)


def random_message(rng: random.Random) -> str | bytes:
    """One message: mostly command-shaped, the rest broken JSON, other JSON, text or binary."""
    kind = rng.choices(range(6), weights=[50, 15, 10, 10, 10, 5])[0]
    if kind == 0:
        return json.dumps(_command(rng), ensure_ascii=rng.random() < 0.5)
    if kind == 1:
        return _mutate(rng, json.dumps(_command(rng)))
    if kind == 2:
        return json.dumps(_json_value(rng))
    if kind == 3:
        return "".join(chr(rng.randint(1, 0xD7FF)) for _ in range(rng.randint(0, 40)))
    if kind == 4:
        return rng.randbytes(rng.randint(0, 64))
    return json.dumps({"cmd": "inject", "text": "x" * rng.randint(4000, 6000)})


MARKER = "fuzz-end-marker"


async def drain_until_marker(ws: ClientConnection, counts: dict[str, int], framed: asyncio.Event) -> None:
    """Read everything the server sends (a client that reads is never dropped) up to the marker's reply.

    ``framed`` is set at the first frame.
    """
    while True:
        message = await ws.recv()
        event = {"event": "frame"} if isinstance(message, bytes) else wp.decode_event(message)
        counts[event["event"]] = counts.get(event["event"], 0) + 1
        if event["event"] == "frame":
            framed.set()
        if event["event"] == "error" and MARKER in event["message"]:
            return


def test_ten_thousand_random_messages_leave_the_session_usable(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """After 10,000 random messages the connection is open and a normal turn is heard."""
    rng = random.Random(SEED)
    settings = ServerSettings(
        commands_per_s=1e9, command_burst=10**9, max_message_bytes=4096, max_turn_chars=2000
    )
    sentence = "thank you for waiting, your table is ready now."

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            counts: dict[str, int] = {}
            framed = asyncio.Event()
            reader = asyncio.create_task(drain_until_marker(ws, counts, framed), name="fuzz-reader")
            try:
                for i in range(MESSAGES):
                    await ws.send(random_message(rng))
                    if i % 250 == 249:  # let turns speak between bursts, so frames interleave
                        await asyncio.sleep(0.1)
                        # with only that gap, one run on a loaded machine saw no frame in any of the
                        # 40: until a first frame has come, each gap waits up to a second for one
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(framed.wait(), 1.0)
                await send(ws, cmd="reset")
                await send(ws, cmd=MARKER)
                await asyncio.wait_for(asyncio.shield(reader), 120)
            finally:
                reader.cancel()
                await asyncio.wait([reader])
            assert counts["ready"] == 1 and counts["error"] > MESSAGES // 2 and counts["frame"] > 0
            await send(ws, cmd="reset")
            await send(
                ws, cmd="config", streaming=False, sample_rate=24000, encoding="pcm16", voice="heart", speed=1
            )
            configured = (await receive_until(ws, "configured")).events[-1]
            assert configured["sample_rate"] == 24000 and not configured["streaming"]
            await send(ws, cmd="start", text=sentence)
            turn = await receive_until(ws, "done")
            assert turn.frames and all(f.num_samples == 1920 for f in turn.frames)
            assert (
                recognizer(turn.pcm(), 24000, [sentence, *DISTRACTORS])
                == "thank you for waiting your table is ready now"
            )
        health = await server.get_json("/healthz")
        assert health["status"] == "ok"
        assert await server.wait_sessions(0) == 0

    run_with_server(hibari_backend, body, settings)
