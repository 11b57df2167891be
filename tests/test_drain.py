"""Graceful drain: the turn in progress finishes and says ``done``, then 1001; nothing new is taken.

The ``Drain`` alone, then a live ``warmline serve`` app drained in the test's loop (real
websockets clients, the speech judged by the recognizer), then the ``warmline serve`` process
itself under SIGTERM and a double Ctrl-C.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from asr import DISTRACTORS, heard
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import WAIT_S, Turn, live_server, ready, receive_until, send

from transports.drain import Drain
from tts_service import wire as wp
from tts_service.backends.hibari.backend import HibariBackend

Recognize = Callable[..., str | None]
ROOT = Path(__file__).resolve().parent.parent

SENTENCE = "thank you for waiting, your table is ready now."


async def closed(ws: ClientConnection) -> tuple[int | None, str]:
    """Read until the server closes; its close code and reason."""
    try:
        while True:
            await asyncio.wait_for(ws.recv(), WAIT_S)
    except ConnectionClosed as exc:
        assert exc.rcvd is not None, "the connection dropped without a close frame"
        return exc.rcvd.code, exc.rcvd.reason


# -- the drain alone ---------------------------------------------------------------------------


def test_a_drain_waits_for_its_jobs_and_begins_once() -> None:
    async def main() -> None:
        drain = Drain()
        assert not drain.draining and drain.remaining_s() == float("inf")
        finished = asyncio.Event()

        async def job() -> None:
            with drain.job("call-1") as j:
                await drain.wait_begun()
                await asyncio.sleep(0.05)
                j.outcome = "finished"
            finished.set()

        task = asyncio.create_task(job(), name="test-job")
        await asyncio.sleep(0)
        assert drain.jobs == 1
        assert drain.begin(10.0) and not drain.begin(1.0)  # the first bound stands
        assert 9.0 < drain.remaining_s() <= 10.0
        assert await asyncio.wait_for(drain.wait_empty(), WAIT_S) is True
        assert finished.is_set() and drain.jobs == 0 and not drain.expired
        await task

    asyncio.run(main())


def test_a_drain_expires_at_its_bound_and_at_once_on_expire() -> None:
    async def main() -> None:
        drain = Drain()
        stuck = asyncio.Event()

        async def job() -> None:
            with drain.job("stuck"):
                await drain.wait_expired()
                stuck.set()

        task = asyncio.create_task(job(), name="test-stuck-job")
        await asyncio.sleep(0)
        drain.begin(0.2)
        assert await asyncio.wait_for(drain.wait_empty(grace_s=1.0), WAIT_S) is False
        assert stuck.is_set() and drain.expired and drain.remaining_s() == 0.0
        await task

        second = Drain()
        second.begin(3600.0)
        second.expire()  # the second Ctrl-C
        assert second.expired and await second.wait_expired(0.0)

    asyncio.run(main())


# -- a live server -----------------------------------------------------------------------------


def test_draining_finishes_the_turn_in_progress_then_closes_1001_and_takes_no_one_new(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """Mid-turn client: its whole sentence, done, 1001. Idle client: 1001 at once. New: 1013."""

    async def main() -> None:
        drain = Drain()
        async with live_server(hibari_backend, drain=drain) as server:
            async with connect(server.url()) as speaking, connect(server.url()) as idle:
                await ready(speaking)
                await ready(idle)
                await send(speaking, cmd="start", text=SENTENCE)
                turn = Turn()
                for _ in range(3):  # the turn is under way
                    turn.frames.append(wp.decode_audio_frame(await speaking.recv()))  # type: ignore[arg-type]
                drain.begin(30.0)
                assert await closed(idle) == (1001, "server going away: the turn in progress is finished")
                status, body = await server.get("/healthz")
                assert status == 503 and json.loads(body)["status"] == "draining"
                async with connect(server.url()) as late:
                    code, reason = await closed(late)
                    assert code == 1013 and "draining" in reason
                await send(speaking, cmd="start", text="A new turn now.")  # refused: it would begin one
                turn = await receive_until(speaking, "done", turn=turn)
                assert [e["code"] for e in turn.events if e["event"] == "error"] == ["draining"]
                assert recognizer(turn.pcm(), 24000, [SENTENCE, *DISTRACTORS]) == heard(SENTENCE)
                assert (await closed(speaking))[0] == 1001
            assert await asyncio.wait_for(drain.wait_empty(), WAIT_S) is True
            assert server.state.runtime.session_count == 0

    asyncio.run(main())


def test_a_streamed_turn_takes_its_remaining_tokens_while_draining(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """Streaming mode: injects and flush still reach the running turn; its done comes, then 1001."""
    first, rest = "thank you for waiting, ", "your table is ready now."

    async def main() -> None:
        drain = Drain()
        async with live_server(hibari_backend, drain=drain) as server:
            async with connect(server.url()) as ws:
                await ready(ws)
                await send(ws, cmd="config", streaming=True)
                await receive_until(ws, "configured")
                await send(ws, cmd="start", text=first)
                turn = Turn()
                turn.frames.append(wp.decode_audio_frame(await ws.recv()))  # type: ignore[arg-type]
                drain.begin(30.0)
                for i in range(0, len(rest), 4):
                    await send(ws, cmd="inject", text=rest[i : i + 4])
                await send(ws, cmd="flush")
                turn = await receive_until(ws, "done", turn=turn)
                assert not [e for e in turn.events if e["event"] == "error"], turn.events
                assert recognizer(turn.pcm(), 24000, [SENTENCE, *DISTRACTORS]) == heard(SENTENCE)
                assert (await closed(ws))[0] == 1001
            assert await asyncio.wait_for(drain.wait_empty(), WAIT_S) is True

    asyncio.run(main())


def test_a_turn_that_outlasts_the_bound_is_closed_with_1012(hibari_backend: HibariBackend) -> None:
    """A paused turn never resumed keeps its connection only until the drain's bound."""

    async def main() -> None:
        drain = Drain()
        async with live_server(hibari_backend, drain=drain) as server:
            async with connect(server.url()) as ws:
                await ready(ws)
                await send(ws, cmd="start", text=SENTENCE)
                await send(ws, cmd="pause")
                await receive_until(ws, "paused")
                started = time.monotonic()
                drain.begin(0.5)
                code, reason = await closed(ws)
                assert (code, reason) == (1012, "server restarting: drain time is up")
                assert time.monotonic() - started >= 0.5
            assert await asyncio.wait_for(drain.wait_empty(), WAIT_S) is False

    asyncio.run(main())


# -- the warmline serve process ----------------------------------------------------------------


def start_server(*extra: str) -> tuple[subprocess.Popen[str], str]:
    """``warmline serve --port 0``: the process and its host:port, once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "serve", "--port", "0", *extra],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once it listens (bounded by the test's timeout)
    assert "serving on http://" in line, line
    return proc, line.split("http://", 1)[1].split("/", 1)[0]


def finish(proc: subprocess.Popen[str]) -> str:
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
    return stderr


def healthz_status(address: str) -> int:
    try:
        with urllib.request.urlopen(f"http://{address}/healthz", timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_sigterm_lets_the_sentence_finish_then_exits_0(recognizer: Recognize) -> None:
    """SIGTERM mid-turn: /healthz 503, the whole sentence and its done, 1001, exit 0, one log line."""
    proc, address = start_server("--drain-s", "30")

    async def client() -> tuple[Turn, tuple[int | None, str], int]:
        async with connect(f"ws://{address}/ws") as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCE)
            turn = Turn()
            turn.frames.append(wp.decode_audio_frame(await ws.recv()))  # type: ignore[arg-type]
            proc.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.2)
            health = await asyncio.to_thread(healthz_status, address)
            turn = await receive_until(ws, "done", turn=turn)
            return turn, await closed(ws), health

    try:
        turn, close, health = asyncio.run(client())
    finally:
        stderr = finish(proc)
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert health == 503
    assert close[0] == 1001
    assert recognizer(turn.pcm(), 24000, [SENTENCE, *DISTRACTORS]) == heard(SENTENCE)
    assert re.search(r"ws-1: drained in [0-9.]+ s \(closed 1001", stderr), stderr[-3000:]


@pytest.mark.skipif(sys.platform != "linux", reason="signals as on Linux")
def test_a_second_ctrl_c_stops_at_once() -> None:
    """Ctrl-C drains (a paused turn would hold it for 60 s); Ctrl-C again closes 1012 and exits."""
    proc, address = start_server("--drain-s", "60")

    async def client() -> tuple[int | None, str]:
        async with connect(f"ws://{address}/ws") as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCE)
            await send(ws, cmd="pause")
            await receive_until(ws, "paused")
            proc.send_signal(signal.SIGINT)
            await asyncio.sleep(0.5)
            proc.send_signal(signal.SIGINT)
            return await closed(ws)

    started = time.monotonic()
    try:
        close = asyncio.run(client())
    finally:
        stderr = finish(proc)
    assert close[0] == 1012
    assert time.monotonic() - started < 30  # nowhere near the 60 s bound
    assert proc.returncode == 0 and "Traceback" not in stderr, stderr[-3000:]
