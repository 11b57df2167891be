"""Hostile input on every phone route of ``warmline call``'s real app, as ``test_agent_hostile`` does
on ``/twilio``: deeply nested JSON before and after the start on each carrier, and one call limit
over every route at once (Twilio's, each carrier's, WebRTC's offers)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from log_errors import own_errors
from test_agent_hostile import DEEP, MAX_CALLS, STREAMS, agent_server, fetch, until
from test_carrier_calls import CARRIERS, CarrierCase
from test_webrtc_endpoint import NO_MUX_SDP
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from transports.media_stream.stream import CarrierStream
from transports.twilio import protocol as tp
from tts_service.engine.ports import Backend


@dataclass(frozen=True)
class Route:
    name: str
    path: str
    #: one message of the route's carrier carrying a Twilio-vocabulary event (None: it sends none)
    encode: Callable[[tp.InboundEvent], str | bytes | None]

    def messages(self, *events: tp.InboundEvent) -> list[str | bytes]:
        return [m for m in (self.encode(e) for e in events) if m is not None]


ROUTES = [Route("twilio", "/twilio", tp.encode_inbound), *(Route(c.name, c.path, c.encode) for c in CARRIERS)]


def of(case: CarrierCase) -> Route:
    return Route(case.name, case.path, case.encode)


def start(route: Route, n: int) -> list[str | bytes]:
    return route.messages(tp.Connected(), tp.Start(1, f"S{n}", "AC1", f"call-{n}"))


async def keep_talking(ws: ClientConnection, route: Route, n: int) -> None:
    """A live caller: one 20 ms chunk of silence every 100 ms while the socket is open (bounded)."""
    try:
        for i in range(2, 3000):
            for message in route.messages(tp.Media(i, f"S{n}", "inbound", i, 20 * i, bytes([0xFF]) * 160)):
                await ws.send(message)
            await asyncio.sleep(0.1)
    except ConnectionClosed:
        pass


async def open_stream(base: str, route: Route, n: int) -> tuple[ClientConnection, asyncio.Task[None]]:
    ws = await connect(f"ws://{base}{route.path}")
    try:
        for message in start(route, n):
            await ws.send(message)
    except ConnectionClosed:
        pass  # refused before its start (1013): too many streams starting
    return ws, asyncio.create_task(keep_talking(ws, route, n), name=f"test-caller-{route.name}-{n}")


async def hang_up(streams: list[tuple[ClientConnection, asyncio.Task[None]]]) -> None:
    for ws, talker in streams:
        talker.cancel()
        await asyncio.gather(talker, return_exceptions=True)
        await ws.close()


@pytest.mark.parametrize("case", CARRIERS, ids=[c.name for c in CARRIERS])
def test_deep_json_before_the_start_is_1008_and_after_it_ends_only_that_call(
    case: CarrierCase, hibari_backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    """5,000 nested ``[`` as the first message (and after ``connected``, where the carrier sends
    one): closed 1008, no call. After the start: that call ends in one log line, its slot and
    engine session are given back, a call beside it goes on; never a traceback."""
    caplog.set_level(logging.INFO, logger="warmline")
    route = of(case)
    seen: dict[str, object] = {}

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, runtime):
            slots = state.slots
            codes: list[int | None] = []
            befores = [[], route.messages(tp.Connected())]
            for before in befores if befores[1] else befores[:1]:
                async with connect(f"ws://{base}{route.path}") as ws:
                    for message in [*before, DEEP]:
                        await ws.send(message)
                    await asyncio.wait_for(ws.wait_closed(), 10)
                    codes.append(ws.close_code)
            seen["codes"] = codes
            seen["calls_before"] = state.calls[case.name]
            streams = [await open_stream(base, route, n) for n in (1, 2)]
            try:
                await until(lambda: state.calls[case.name] == 2, "the calls to start")
                await until(lambda: runtime.session_count == 2, "their engine sessions to open")
                deep_ws, _ = streams[0]
                await deep_ws.send(DEEP)
                await asyncio.wait_for(deep_ws.wait_closed(), 10)
                await until(lambda: state.calls[case.name] == 1, "the slot to be given back")
                await until(lambda: slots.taken == 1, "the call slot to be given back")
                await until(lambda: runtime.session_count == 1, "the engine session to close")
                await asyncio.sleep(0.3)
                seen["survivor_open"] = streams[1][0].close_code is None
            finally:
                await hang_up(streams)
            await until(lambda: state.calls[case.name] == 0 and slots.taken == 0, "every call to end")

    asyncio.run(main())
    assert seen["codes"] == [1008] * (2 if route.messages(tp.Connected()) else 1)
    assert seen["calls_before"] == 0 and seen["survivor_open"]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("warmline")]
    deep_lines = [line for line in lines if "nested too deeply" in line]
    assert len(deep_lines) == len(seen["codes"]) + 1, lines  # type: ignore[arg-type]
    assert sum(f"(protocol_error): {case.name}_malformed" in line for line in deep_lines) == 1, lines
    assert not own_errors(caplog.records)


def test_max_calls_holds_over_every_route_at_once(
    hibari_backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    """40 streams at once, spread over ``/twilio`` and every carrier's route, with ``--max-calls 4``:
    exactly 4 calls, 36 closed with 1013; while they hold every slot a WebRTC offer is 503."""
    caplog.set_level(logging.INFO, logger="warmline")
    seen: dict[str, object] = {}

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, _):
            slots = state.slots
            streams = list(
                await asyncio.gather(*(open_stream(base, ROUTES[n % len(ROUTES)], n) for n in range(STREAMS)))
            )
            try:
                await until(
                    lambda: sum(ws.close_code is not None for ws, _ in streams) >= STREAMS - MAX_CALLS,
                    "refusals",
                )
                await until(lambda: sum(state.calls.values()) == MAX_CALLS, "the calls to start")
                await asyncio.sleep(0.5)  # nothing else gets in late
                seen["codes"] = sorted(ws.close_code or 0 for ws, _ in streams)
                seen["calls"] = sum(state.calls.values())
                seen["taken"] = slots.taken
                offer = json.dumps({"sdp": NO_MUX_SDP, "type": "offer"}).encode()
                status, _, body = await asyncio.to_thread(fetch, f"http://{base}/api/offer", offer)
                seen["offer"] = (status, json.loads(body)["error"])
            finally:
                await hang_up(streams)
            await until(lambda: sum(state.calls.values()) == 0 and slots.taken == 0, "every call to end")

    asyncio.run(main())
    assert seen["codes"] == [0] * MAX_CALLS + [1013] * (STREAMS - MAX_CALLS)
    assert seen["calls"] == MAX_CALLS and seen["taken"] == MAX_CALLS
    assert seen["offer"] == (503, "no room for another call")
    assert not own_errors(caplog.records)


@pytest.mark.parametrize("case", CARRIERS, ids=[c.name for c in CARRIERS])
def test_a_reader_that_fails_ends_its_carrier_call_and_frees_its_slot(
    case: CarrierCase,
    hibari_backend: Backend,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on ``/twilio``: whatever breaks a carrier call's reader (its parser raising a bug's
    exception), the call ends, its slot and engine session are given back, one ERROR line."""
    caplog.set_level(logging.INFO, logger="warmline")
    route = of(case)
    receive = CarrierStream.receive

    def buggy(self: CarrierStream, data: str | bytes) -> tp.InboundEvent:
        if data == "boom":
            raise KeyError("a bug in the reader")
        return receive(self, data)

    monkeypatch.setattr(CarrierStream, "receive", buggy)

    async def main() -> None:
        async with agent_server(hibari_backend) as (base, state, runtime):
            stream = await open_stream(base, route, 1)
            try:
                await until(lambda: state.calls[case.name] == 1, "the call to start")
                await stream[0].send("boom")
                await asyncio.wait_for(stream[0].wait_closed(), 10)
                await until(lambda: state.calls[case.name] == 0, "the call to end")
                await until(lambda: state.slots.taken == 0, "the slot to be given back")
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
