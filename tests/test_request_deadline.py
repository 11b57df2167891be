"""Request bodies under the request deadline, on every POST route (issue 30, row 4).

``/v1/audio/speech`` (``warmline serve``'s app), ``/twiml`` (with a Twilio auth token, so the body
is read for its signature) and ``/api/offer`` on one uvicorn server with a 0.5 s request deadline
(``serving(header_timeout_s=...)``, the setting ``warmline serve`` and ``warmline call`` give 10 s).
Raw sockets send complete headers and then a body that stalls, trickles a byte at a time (a
deadline reset by each byte would never fire) or is abandoned: each is answered 408 and closed
near the deadline, 40 at once leave no descriptor behind, and nothing is logged as an ERROR. A
body that does arrive in time, in pieces, still gets the route's own answer.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from toy_backends import ToneBackend

from transports.serve import serving
from transports.twilio.server import TwilioSettings, twilio_routes
from transports.webrtc.endpoint import WebRTCEndpoint
from transports.ws.server import create_app
from transports.ws.settings import ServerSettings
from tts_service.runtime import EngineRuntime

DEADLINE_S = 0.5
#: how long past the deadline an answer may take on a busy shared CPU
SLACK_S = 4.0
ROUTES = {
    "speech": ("/v1/audio/speech", "application/json", 400),  # a complete bad body: bad JSON
    "twiml": ("/twiml", "application/x-www-form-urlencoded", 403),  # unsigned
    "offer": ("/api/offer", "application/json", 400),  # not an offer
}


class Records(logging.Handler):
    """Every record of the server's loggers (uvicorn's do not propagate: attached to each)."""

    LOGGERS = ("uvicorn.error", "warmline")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def errors(self) -> list[str]:
        return [r.getMessage() for r in self.records if r.levelno >= logging.ERROR or r.exc_info]


async def never_called(call: Any) -> None:
    raise AssertionError("no call should start")


@asynccontextmanager
async def server(records: Records) -> AsyncIterator[tuple[str, int]]:
    """The three POST routes on one server with a ``DEADLINE_S`` request deadline."""
    async with EngineRuntime(ToneBackend(), workers=1, max_sessions=8) as runtime:
        app = create_app(runtime, ServerSettings())
        endpoint = WebRTCEndpoint(never_called)
        twilio = twilio_routes(never_called, TwilioSettings(auth_token="secret"))
        app.router.routes.extend([*twilio, *endpoint.routes()])
        try:
            async with serving(app, log_level="info", header_timeout_s=DEADLINE_S) as address:
                loggers = [logging.getLogger(name) for name in Records.LOGGERS]
                levels = [logger.level for logger in loggers]
                for logger in loggers:  # after uvicorn configured its loggers (that drops handlers)
                    logger.addHandler(records)
                    logger.setLevel(logging.INFO)
                try:
                    yield address
                finally:
                    for logger, level in zip(loggers, levels, strict=True):
                        logger.removeHandler(records)
                        logger.setLevel(level)
        finally:
            await endpoint.aclose()


async def post(
    host: str,
    port: int,
    route: str,
    *,
    body: bytes = b"",
    declared: int | None = None,
    drip_s: float | None = None,
    pieces: list[bytes] | None = None,
) -> tuple[bytes, float]:
    """POST to ``route``: complete headers (``Content-Length: declared``, else chunked), then
    ``body``, then a byte every ``drip_s`` (None: nothing more), or ``pieces`` 0.1 s apart. The
    status line (b"" if none) and the seconds until the server closed the connection."""
    path, content_type, _ = ROUTES[route]
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection(host, port)
    framing = f"Content-Length: {declared}" if declared is not None else "Transfer-Encoding: chunked"
    head = f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {content_type}\r\n{framing}\r\n\r\n"
    started = loop.time()
    writer.write(head.encode() + body)

    async def send_more() -> None:
        try:
            for piece in pieces or []:
                await asyncio.sleep(0.1)
                writer.write(piece)
            while drip_s is not None:
                await asyncio.sleep(drip_s)
                writer.write(b"1\r\nx\r\n" if declared is None else b"x")
                await writer.drain()
        except OSError:
            pass  # the server closed the connection: what the test waits for

    sender = asyncio.create_task(send_more(), name=f"test-post-{route}")

    async def read_to_close() -> bytes:
        """The answer up to the server's close. The client stops sending once the answer starts,
        as an HTTP client does; a byte it sent as the server closed can still draw a reset, which
        ends the answer there (its status line, read before, is what the tests judge)."""
        answer = b""
        try:
            while chunk := await reader.read(4096):
                answer += chunk
                sender.cancel()
        except ConnectionResetError:
            pass
        return answer

    try:
        answer = await asyncio.wait_for(read_to_close(), DEADLINE_S + SLACK_S + 2)
        closed_after = loop.time() - started
    finally:
        sender.cancel()
        await asyncio.gather(sender, return_exceptions=True)
        writer.close()
    return answer.partition(b"\r\n")[0], closed_after


def descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_stalled_or_trickled_body_is_answered_408_and_closed_at_the_deadline(route: str) -> None:
    records = Records()

    async def main() -> dict[str, tuple[bytes, float]]:
        async with server(records) as (host, port):
            return {
                "stalled": await post(host, port, route, body=b"{", declared=1000),
                "trickled": await post(host, port, route, body=b"{", declared=1000, drip_s=0.05),
                "trickled chunked": await post(host, port, route, body=b"1\r\n{\r\n", drip_s=0.05),
            }

    results = asyncio.run(main())
    for how, (status, closed_after) in results.items():
        assert status == b"HTTP/1.1 408 Request Timeout", (how, status)
        # not before the deadline, and a trickle (20 bytes a second, for 20 s) does not extend it
        assert DEADLINE_S - 0.05 <= closed_after <= DEADLINE_S + SLACK_S, (how, closed_after)
    assert records.errors() == []
    timeouts = [r for r in records.records if "not complete in time" in r.getMessage()]
    assert len(timeouts) == 3 and all(r.levelno == logging.INFO for r in timeouts)


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_body_that_arrives_in_pieces_within_the_deadline_gets_the_routes_answer(route: str) -> None:
    """The control: the deadline is on the body's end, not on its being sent in one piece."""
    expected = ROUTES[route][2]
    pieces = [b"n", b"ot", b" json"]  # 0.1 s apart: well within the deadline

    async def main() -> tuple[bytes, float]:
        async with server(Records()) as (host, port):
            return await post(host, port, route, body=b"", declared=8, pieces=pieces)

    status, _ = asyncio.run(main())
    assert status.startswith(f"HTTP/1.1 {expected} ".encode()), status


def test_forty_stalled_bodies_are_all_closed_and_leave_no_descriptor() -> None:
    """The probe's 40 connections, over the three routes at once: every one answered 408 and
    closed, the descriptors back where they were."""
    records = Records()

    async def main() -> tuple[list[bytes], int, int]:
        async with server(records) as (host, port):
            before = descriptors()
            routes = [list(ROUTES)[i % len(ROUTES)] for i in range(40)]
            results = await asyncio.gather(
                *(post(host, port, route, body=b"{", declared=500, drip_s=0.2) for route in routes)
            )
            for _ in range(50):  # the server's ends close as it sees the clients' (bounded)
                if descriptors() <= before:
                    break
                await asyncio.sleep(0.1)
            return [status for status, _ in results], before, descriptors()

    statuses, before, after = asyncio.run(main())
    assert statuses == [b"HTTP/1.1 408 Request Timeout"] * 40
    assert after <= before
    assert records.errors() == []


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_client_that_leaves_mid_body_is_one_info_line_not_an_error(route: str) -> None:
    records = Records()

    async def main() -> None:
        async with server(records) as (host, port):
            path, content_type, _ = ROUTES[route]
            _, writer = await asyncio.open_connection(host, port)
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {content_type}\r\n"
                "Content-Length: 1000\r\n\r\n{".encode()
            )
            await writer.drain()
            await asyncio.sleep(0.1)  # the route is reading the body
            writer.close()
            await writer.wait_closed()
            for _ in range(50):  # until the server has seen it leave (bounded)
                if any("left" in r.getMessage() for r in records.records):
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(DEADLINE_S)  # and past the deadline: nothing more is logged

    asyncio.run(main())
    assert records.errors() == []
    lines = [r for r in records.records if r.levelno >= logging.INFO]
    assert len(lines) == 1 and lines[0].levelno in (logging.INFO, logging.WARNING), [
        r.getMessage() for r in lines
    ]
    assert "left" in lines[0].getMessage()
