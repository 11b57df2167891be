"""The contract of ``transports.uvicorn_compat``: the uvicorn log record it silences is still the one
uvicorn writes after a denied WebSocket upgrade, and only a marked denial is silenced."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from transports.http_body import request_deadline
from transports.serve import serving
from transports.uvicorn_compat import (
    INCOMPLETE_HANDSHAKE,
    INVALID_UTF8,
    TESTED_UVICORN,
    UVICORN_LOGS_DENIALS,
    mark_denied,
)


def test_the_installed_uvicorn_is_the_tested_release_line() -> None:
    """The filter matches uvicorn's own text, read from the release line the check names."""
    assert TESTED_UVICORN.check(), TESTED_UVICORN.installed


class Records(logging.Handler):
    """Every record that passes the logger's filters (uvicorn's loggers do not propagate)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self.records.append(record)


def incomplete_handshake_errors(*, marked: bool) -> list[str]:
    """Deny one upgrade with HTTP 403 (marked or not); uvicorn's incomplete-handshake records logged."""

    async def deny(websocket: WebSocket) -> None:
        if marked:
            mark_denied()
        await websocket.send_denial_response(PlainTextResponse("no\n", status_code=403))

    records = Records()
    logger = logging.getLogger("uvicorn.error")

    async def main() -> None:
        app = Starlette(routes=[WebSocketRoute("/ws", deny)])
        async with serving(app, log_level="error") as (host, port):
            logger.addHandler(records)  # after uvicorn configured its loggers (that drops handlers)
            with pytest.raises(InvalidStatus):
                async with connect(f"ws://{host}:{port}/ws"):
                    pass
            await asyncio.sleep(0.2)  # uvicorn logs once the app has returned

    try:
        asyncio.run(main())
    finally:
        logger.removeHandler(records)
    return [m for m in records.messages if m.startswith(INCOMPLETE_HANDSHAKE)]


def test_an_unmarked_denial_logs_the_record_where_uvicorn_still_writes_it() -> None:
    """Without the mark the record goes through: the text the filter matches is uvicorn's own
    (before 0.55; from 0.55 uvicorn writes none after a denial, so there is nothing to drop)."""
    assert len(incomplete_handshake_errors(marked=False)) == (1 if UVICORN_LOGS_DENIALS else 0)


def test_a_marked_denial_logs_nothing() -> None:
    """With the mark (as the servers set it before a 401 or 403) uvicorn's record is dropped."""
    assert incomplete_handshake_errors(marked=True) == []


def test_invalid_utf8_from_a_client_closes_1007_with_one_info_line_and_no_traceback() -> None:
    """uvicorn still closes with 1007 and logs its own record, which the filter makes one INFO line."""

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    records = Records()
    logger = logging.getLogger("uvicorn.error")
    closes: list[int | None] = []

    async def main() -> None:
        app = Starlette(routes=[WebSocketRoute("/ws", echo)])
        async with serving(app, log_level="info") as (host, port):
            logger.addHandler(records)
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(
                f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            )
            await reader.readuntil(b"\r\n\r\n")
            payload = b'{"cmd": "\xff"}'
            writer.write(bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)  # masked, zero key
            frame = await asyncio.wait_for(reader.read(4), 10)
            closes.append(int.from_bytes(frame[2:4], "big") if frame[:1] == b"\x88" else None)
            writer.close()
            await asyncio.sleep(0.2)

    try:
        asyncio.run(main())
    finally:
        logger.removeHandler(records)
    assert closes == [1007]
    mine = [r for r in records.records if "UTF-8" in r.getMessage()]
    assert len(mine) == 1 and mine[0].levelno == logging.INFO and mine[0].exc_info is None
    assert INVALID_UTF8 not in records.messages


def test_connections_that_never_complete_a_request_are_closed_but_websockets_live_on() -> None:
    """Nothing sent, a header byte at a time (slowloris), a trickle after a first response: each
    closed at the header deadline; a WebSocket open past it keeps working."""

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while (message := await websocket.receive())["type"] != "websocket.disconnect":
            await websocket.send_text(str(message.get("text")))

    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hi\n")

    async def closed_within(reader: asyncio.StreamReader, bound_s: float) -> bool:
        try:
            async with asyncio.timeout(bound_s):
                while await reader.read(65536):
                    pass
            return True
        except TimeoutError:
            return False

    async def main() -> dict[str, bool]:
        app = Starlette(routes=[WebSocketRoute("/ws", echo), Route("/", hello)])
        out: dict[str, bool] = {}
        async with (
            serving(app, log_level="error", header_timeout_s=0.5) as (host, port),
            connect(f"ws://{host}:{port}/ws") as ws,
        ):
            idle_reader, idle_writer = await asyncio.open_connection(host, port)
            slow_reader, slow_writer = await asyncio.open_connection(host, port)
            slow_writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")

            async def trickle(writer: asyncio.StreamWriter) -> None:
                for _ in range(40):
                    writer.write(b"X")
                    await asyncio.sleep(0.1)

            dripping = asyncio.create_task(trickle(slow_writer), name="test-slowloris")
            out["idle closed"] = await closed_within(idle_reader, 10)
            out["slowloris closed"] = await closed_within(slow_reader, 10)
            dripping.cancel()
            await asyncio.gather(dripping, return_exceptions=True)
            kept_reader, kept_writer = await asyncio.open_connection(host, port)
            kept_writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            out["answered"] = (await kept_reader.readline()).startswith(b"HTTP/1.1 200")
            kept_writer.write(b"GET / HT")  # then nothing: the next request never completes
            out["second request closed"] = await closed_within(kept_reader, 10)
            await ws.send("still here")
            out["websocket lives"] = await asyncio.wait_for(ws.recv(), 10) == "still here"
            for writer in (idle_writer, slow_writer, kept_writer):
                writer.close()
        return out

    results = asyncio.run(main())
    assert all(results.values()), results


def test_a_pipelined_request_gets_its_own_deadline_and_is_not_cut_under_its_response() -> None:
    """Two requests in one write: the second's headers are complete at once, so its response may
    take longer than the request deadline (the deadline is armed before uvicorn handles it, and
    its headers disarm it), and its body deadline is in its scope as the first one's is."""
    deadlines: list[bool] = []

    async def slow(request: Any) -> PlainTextResponse:
        deadlines.append(request_deadline(request.scope) is not None)
        if request.url.path == "/slow":
            await asyncio.sleep(1.0)  # twice the deadline
        return PlainTextResponse("done\n")

    async def main() -> bytes:
        app = Starlette(routes=[Route("/", slow), Route("/slow", slow)])
        async with serving(app, log_level="error", header_timeout_s=0.5) as (host, port):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(
                b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            try:
                return await asyncio.wait_for(reader.read(), 10)  # to EOF
            finally:
                writer.close()

    answer = asyncio.run(main())
    assert answer.count(b"HTTP/1.1 200 OK") == 2 and answer.endswith(b"done\n"), answer
    assert deadlines == [True, True]
