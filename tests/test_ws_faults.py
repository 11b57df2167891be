"""Faults a live ``warmline serve`` meets from its model and its clients, judged from the wire.

* the model raises on one unit mid-turn: that client gets an ``error`` event, the turn goes on
  to its ``done``, and the next turn works;
* a turn's text would speak past ``--max-turn-audio-s``: one ``audio_too_long`` error, ``done``;
* a client floods the server with commands while another speaks: the flood is rate limited
  (one ``rate_limited`` error, the rest dropped) and the other client's turn is untouched, every
  frame of it paced as usual.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics

import pytest
from toy_backends import ToneBackend
from websockets.asyncio.client import ClientConnection, connect
from ws_helpers import LiveServer, Turn, ready, receive_until, run_with_server, send

from transports.serve_cli import add_serve_command, settings_from_args
from transports.ws.settings import ServerSettings
from tts_service.engine.session import SessionConfig
from tts_service.errors import InvalidInputError


def test_the_model_failing_mid_turn_is_an_error_event_and_the_turn_goes_on() -> None:
    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text="First part. Then crash here. And the last part.")
            turn = await receive_until(ws, "done")
            errors = [e for e in turn.events if e["event"] == "error"]
            assert [e["code"] for e in errors] == ["synthesis_failed"]
            assert "crash" in errors[0]["message"]
            assert turn.frames  # the rest of the turn was spoken
            await send(ws, cmd="start", text="All fine now.")
            after = await receive_until(ws, "done")
            assert after.frames and not [e for e in after.events if e["event"] == "error"]

    run_with_server(ToneBackend(fail_on="crash"), body)


def test_a_turn_past_its_audio_budget_is_an_audio_too_long_error_then_done() -> None:
    """A start whose text would speak past --max-turn-audio-s: the audio made plays, one
    ``audio_too_long`` error, then ``done``; the next turn speaks whole."""
    settings = ServerSettings(max_turn_audio_s=1.0)

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text="Go on now. " * 500)
            turn = await receive_until(ws, "done")
            errors = [e for e in turn.events if e["event"] == "error"]
            assert [e["code"] for e in errors] == ["audio_too_long"]
            assert 1.0 <= len(turn.pcm()) / 24000 < 3.0
            await send(ws, cmd="start", text="All fine now.")
            after = await receive_until(ws, "done")
            assert after.frames and not [e for e in after.events if e["event"] == "error"]

    run_with_server(ToneBackend(), body, settings)


def test_the_audio_budget_is_a_serve_flag_defaulting_to_the_engines() -> None:
    """``warmline serve --max-turn-audio-s`` sets it; the default is the engine's; it must be positive."""
    parser = argparse.ArgumentParser()
    add_serve_command(parser.add_subparsers())
    assert (
        settings_from_args(parser.parse_args(["serve", "--max-turn-audio-s", "30"])).max_turn_audio_s == 30.0
    )
    assert (
        settings_from_args(parser.parse_args(["serve"])).max_turn_audio_s == SessionConfig().max_turn_audio_s
    )
    with pytest.raises(InvalidInputError, match="max_turn_audio_s"):
        ServerSettings(max_turn_audio_s=0.0)


def test_a_flooding_client_is_rate_limited_and_another_clients_turn_is_untouched() -> None:
    settings = ServerSettings(commands_per_s=50.0, command_burst=100)
    flood_size = 5000

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as calm, connect(server.url()) as flood:
            await ready(calm)
            await ready(flood)
            baseline = await speak(calm, "A turn before the flood, to compare with.")
            flooding = asyncio.create_task(spam(flood, flood_size), name="test-flood")
            during = await speak(calm, "A turn before the flood, to compare with.")
            errors = await flooding
            assert errors.count("rate_limited") >= 1, set(errors)  # one per episode, not per command
            assert len(errors) < flood_size / 4  # most of the flood was dropped unanswered
            assert sum(f.num_samples for f in during.frames) == sum(f.num_samples for f in baseline.frames)
            gaps = [b.ms - a.ms for a, b in itertools.pairwise(during.frames)]
            assert statistics.median(gaps) > 60.0, gaps  # still paced at 80 ms

    async def speak(ws: ClientConnection, text: str) -> Turn:
        await send(ws, cmd="start", text=text)
        return await receive_until(ws, "done")

    async def spam(ws: ClientConnection, n: int) -> list[str]:
        """Send ``n`` commands as fast as the socket takes them; the error codes that came back."""
        for _ in range(n):
            await ws.send('{"cmd": "nope"}')
        codes: list[str] = []
        try:
            while True:
                message = await asyncio.wait_for(ws.recv(), 2.0)
                if isinstance(message, str):
                    codes.append(str(json.loads(message).get("code")))
        except TimeoutError:
            return codes

    run_with_server(ToneBackend(), body, settings)
