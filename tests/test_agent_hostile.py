"""Hostile input against ``warmline call``'s real app on 127.0.0.1: limits hold, bad input is a 4xx.

Each test is a row of the adversarial probe: many Twilio streams at once against ``--max-calls``,
a call whose stream turns into deeply nested JSON (the call ends and gives its slot back), a
reader that fails (the same), deep JSON before ``start`` (1008), client strings with line breaks
(escaped in every log line), a webhook ``From`` full of control characters (well-formed TwiML),
and malformed offers and candidates (400 in the route's JSON shape). The WebRTC offers that reach
ICE run in a network namespace of their own: ``agent_offer_flood_scenario.py``, run by the last
test here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from log_errors import own_errors
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from agent.pipeline import AgentParts
from agent.server import AgentSettings, AgentState, create_agent_app
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.twilio.stream import InboundStream
from transports.ws.settings import ServerSettings
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime

MAX_CALLS = 4
STREAMS = 40
#: nested past any JSON parser's recursion limit
DEEP = "[" * 5000
#: bounds on every wait (safety nets against hangs, not timing assertions)
POLLS = 1000
POLL_S = 0.02
FLOOD_SCENARIO = Path(__file__).resolve().parent / "agent_offer_flood_scenario.py"


def fetch(url: str, data: bytes | None = None, method: str = "POST") -> tuple[int, str, bytes]:
    """(status, content type, body) of one request; HTTP errors are answers too."""
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return int(resp.status), resp.headers.get("content-type", ""), resp.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.headers.get("content-type", ""), exc.read()


@asynccontextmanager
async def agent_server(backend: Backend) -> AsyncIterator[tuple[str, AgentState, EngineRuntime]]:
    """The agent app (``--max-calls 4``) on 127.0.0.1; yields its base URL, state and runtime."""
    async with EngineRuntime(backend, workers=1) as runtime:
        app: Starlette = create_agent_app(
            runtime, AgentSettings(max_calls=MAX_CALLS), parts=AgentParts(runtime=runtime)
        )
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            yield f"{host}:{port}", app.state.agent, runtime


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(POLLS):
        if condition():
            return
        await asyncio.sleep(POLL_S)
    raise AssertionError(f"timed out waiting for {what}")


def start_messages(n: int, *, sid: str | None = None, parameters: dict[str, str] | None = None) -> list[str]:
    start = tp.Start(1, sid or f"MZ{n}", "AC1", f"CA{n}", custom_parameters=parameters or {})
    return [tp.encode_inbound(tp.Connected()), tp.encode_inbound(start)]


async def keep_talking(ws: ClientConnection, sid: str) -> None:
    """A live caller: one 20 ms chunk of silence every 100 ms while the socket is open (bounded)."""
    try:
        for i in range(2, 3000):
            await ws.send(tp.encode_inbound(tp.Media(i, sid, "inbound", i, 20 * i, bytes([0xFF]) * 160)))
            await asyncio.sleep(0.1)
    except ConnectionClosed:
        pass


async def open_stream(url: str, n: int, **start: Any) -> tuple[ClientConnection, asyncio.Task[None]]:
    ws = await connect(url)
    messages = start_messages(n, **start)
    try:
        for message in messages:
            await ws.send(message)
    except ConnectionClosed:
        pass  # refused before its start (1013): too many streams starting
    sid = json.loads(messages[1])["streamSid"]
    return ws, asyncio.create_task(keep_talking(ws, sid), name=f"test-caller-{n}")


async def hang_up(streams: list[tuple[ClientConnection, asyncio.Task[None]]]) -> None:
    for ws, talker in streams:
        talker.cancel()
        await asyncio.gather(talker, return_exceptions=True)
        await ws.close()


def test_max_calls_holds_against_40_twilio_streams_and_a_deep_message_frees_its_slot(
    hibari_backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    """40 streams at once: 4 calls, 36 closed with 1013. A call that then sends 5,000 nested ``[``
    ends with one log line, and its slot and engine session are given back: a new call gets in."""
    caplog.set_level(logging.INFO, logger="warmline")
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, runtime):
            url = f"ws://{base}/twilio"
            streams = list(await asyncio.gather(*(open_stream(url, n) for n in range(STREAMS))))
            try:
                await until(
                    lambda: sum(ws.close_code is not None for ws, _ in streams) >= STREAMS - MAX_CALLS,
                    "refusals",
                )
                await until(lambda: state.calls["twilio"] == MAX_CALLS, "the calls to start")
                await asyncio.sleep(0.5)  # nothing else gets in late
                seen["codes"] = sorted(ws.close_code or 0 for ws, _ in streams)
                seen["calls"] = state.calls["twilio"]
                health = await asyncio.to_thread(fetch, f"http://{base}/healthz", None, "GET")
                seen["health_calls"] = json.loads(health[2])["calls"]
                sessions_full = runtime.session_count
                live = [(ws, talker) for ws, talker in streams if ws.close_code is None]
                deep_ws, _ = live[0]
                await deep_ws.send(DEEP)
                await asyncio.wait_for(deep_ws.wait_closed(), 10)
                await until(lambda: state.calls["twilio"] == MAX_CALLS - 1, "the slot to be given back")
                await until(lambda: runtime.session_count == sessions_full - 1, "the engine session to close")
                newcomer = await open_stream(url, STREAMS)
                streams.append(newcomer)
                await until(lambda: state.calls["twilio"] == MAX_CALLS, "a new call to take the freed slot")
                seen["newcomer_open"] = newcomer[0].close_code is None
            finally:
                await hang_up(streams)
            await until(lambda: state.calls["twilio"] == 0, "every call to end")

    asyncio.run(main())
    assert seen["codes"] == [0] * MAX_CALLS + [1013] * (STREAMS - MAX_CALLS)
    assert seen["calls"] == MAX_CALLS and seen["health_calls"]["twilio"] == MAX_CALLS
    assert seen["newcomer_open"]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("warmline")]
    deep_lines = [line for line in lines if "nested too deeply" in line]
    assert len(deep_lines) == 1 and "(protocol_error): twilio_malformed" in deep_lines[0], lines
    assert not own_errors(caplog.records)


def test_a_reader_that_fails_ends_its_call_with_one_log_line_and_frees_its_slot(
    hibari_backend: Backend, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever breaks a call's reader (here: its parser raising a bug's exception on one message),
    the call ends, its slot and engine session are given back, and one ERROR line says why."""
    caplog.set_level(logging.INFO, logger="warmline")
    parse = InboundStream.receive

    def buggy(self: InboundStream, data: str | bytes) -> tp.InboundEvent:
        if data == "boom":
            raise KeyError("a bug in the reader")
        return parse(self, data)

    monkeypatch.setattr(InboundStream, "receive", buggy)

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, runtime):
            stream = await open_stream(f"ws://{base}/twilio", 1)
            try:
                await until(lambda: state.calls["twilio"] == 1, "the call to start")
                await stream[0].send("boom")
                await asyncio.wait_for(stream[0].wait_closed(), 10)
                await until(lambda: state.calls["twilio"] == 0, "the slot to be given back")
                await until(lambda: runtime.session_count == 0, "the engine session to close")
            finally:
                await hang_up([stream])

    asyncio.run(main())
    # the call's own lines: under xdist a worker's earlier test may leave a client that another
    # library closes when it is collected, which asyncio logs at ERROR during this test
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("warmline")]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert "ended (reader_failed): KeyError" in errors[0].getMessage()
    assert errors[0].exc_info is not None and errors[0].exc_info[0] is KeyError


def test_deep_json_before_start_is_refused_with_1008(hibari_backend: Backend) -> None:
    """Nested JSON as the first message or after ``connected``: closed 1008, no call, no traceback."""
    codes: list[int | None] = []

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, _):
            for before in ([], [tp.encode_inbound(tp.Connected())]):
                async with connect(f"ws://{base}/twilio") as ws:
                    for message in [*before, DEEP]:
                        await ws.send(message)
                    await asyncio.wait_for(ws.wait_closed(), 10)
                    codes.append(ws.close_code)
            assert state.calls["twilio"] == 0

    asyncio.run(main())
    assert codes == [1008, 1008]


def test_client_strings_with_line_breaks_are_escaped_in_every_log_line(
    hibari_backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    """A streamSid and a parameter name carrying a forged log line: logged escaped, on one line."""
    caplog.set_level(logging.DEBUG, logger="warmline")
    forged = "\n2099-01-01 INFO warmline.agent: forged\r\u2028"

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, _):
            url = f"ws://{base}/twilio"
            stream = await open_stream(url, 1, sid=f"MZ{forged}", parameters={f"p{forged}": "v"})
            try:
                await until(lambda: state.calls["twilio"] == 1, "the call to start")
                await stream[0].send(tp.encode_inbound(tp.Stop(10_000, f"MZ{forged}", "AC1", "CA1")))
                await asyncio.wait_for(stream[0].wait_closed(), 10)
            finally:
                await hang_up([stream])
            await until(lambda: state.calls["twilio"] == 0, "the call to end")

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("warmline")]
    started = [line for line in lines if "started (parameters:" in line]
    assert started and "MZ\\n2099-01-01 INFO warmline.agent: forged\\r\\u2028" in started[0]
    assert "p\\n2099" in started[0]
    assert any("ended (stop)" in line and "MZ\\n2099" in line for line in lines)
    assert not [line for line in lines if any(c in line for c in "\n\r\u2028")]


def test_twiml_is_well_formed_whatever_the_webhook_sends(hibari_backend: Backend) -> None:
    """``From`` with NUL, controls, an escape sequence and XML's own specials: TwiML that parses,
    with each character XML cannot hold replaced and the rest kept."""
    raw_from = "+1555\x00\x01\x08\x0b\x1b[2J<&>\"'\t\n\ufffe"

    async def main() -> tuple[int, bytes]:
        async with agent_server(hibari_backend) as (base, _, _):
            body = urllib.parse.urlencode({"From": raw_from, "CallSid": "CA\x00\x1f1"}).encode()
            status, _, text = await asyncio.to_thread(fetch, f"http://{base}/twiml", body)
            return status, text

    status, text = asyncio.run(main())
    assert status == 200
    document = ET.fromstring(text)  # expat: raises on anything not well-formed
    values = {p.get("name"): p.get("value") for p in document.iter("Parameter")}
    assert values["From"] == "+1555\ufffd\ufffd\ufffd\ufffd\ufffd[2J<&>\"'\t\n\ufffd"
    assert values["CallSid"] == "CA\ufffd\ufffd1"


@pytest.mark.parametrize(
    ("method", "body", "reason"),
    [
        ("POST", {"sdp": "v=0\r\nm=audio 9 x", "type": "offer", "pc_id": []}, "pc_id"),
        ("POST", {"sdp": "v=0\r\nm=audio 9 x", "type": "offer", "pc_id": {}}, "pc_id"),
        ("POST", {"sdp": ["v=0"], "type": "offer"}, "sdp and type"),
        ("POST", {"sdp": "v=0", "type": "offer", "restart_pc": "yes"}, "restart_pc"),
        (
            "PATCH",
            {"pc_id": "pc-1", "candidates": [{"candidate": "garbage", "sdp_mid": "0", "sdp_mline_index": 0}]},
            "candidate",
        ),
        (
            "PATCH",
            {
                "pc_id": "pc-1",
                "candidates": [{"candidate": "candidate:1", "sdp_mid": "0", "sdp_mline_index": 0}],
            },
            "candidate",
        ),
        ("PATCH", {"pc_id": [], "candidates": []}, "pc_id"),
        ("PATCH", {"pc_id": "pc-1", "candidates": "abc"}, "candidates"),
        (
            "PATCH",
            {"pc_id": "pc-1", "candidates": [{"candidate": "", "sdp_mid": "0", "sdp_mline_index": True}]},
            "sdp_mline_index",
        ),
    ],
)
def test_malformed_offers_and_candidates_are_400_with_the_reason(
    hibari_backend: Backend, method: str, body: dict[str, Any], reason: str
) -> None:
    """Wrong types in an offer or a patch, unparsable candidates: 400 in the route's JSON shape."""

    async def main() -> tuple[int, str, bytes]:
        async with agent_server(hibari_backend) as (base, _, _):
            return await asyncio.to_thread(
                fetch, f"http://{base}/api/offer", json.dumps(body).encode(), method
            )

    status, kind, text = asyncio.run(main())
    assert (status, kind) == (400, "application/json"), text
    assert reason in json.loads(text)["error"]


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
def test_max_calls_holds_against_40_simultaneous_webrtc_offers(tmp_path: Path) -> None:
    """40 valid offers at once: 4 answered, 36 answered 503, 4 calls; bad candidates on a live call
    are 400 (``agent_offer_flood_scenario.py``, in a network namespace of its own)."""
    proc = subprocess.run(
        ["unshare", "-rn", sys.executable, str(FLOOD_SCENARIO)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=FLOOD_SCENARIO.parent.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, f"unshare -rn failed:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no result from the scenario:\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"
    assert sorted(result["statuses"]) == [200] * MAX_CALLS + [503] * (STREAMS - MAX_CALLS)
    assert result["most_calls"] == MAX_CALLS and result["health_calls"]["webrtc"] == MAX_CALLS
    assert result["patches"] == {"garbage": 400, "candidate:1": 400, "good": 204}
    assert result["calls_left"] == 0
