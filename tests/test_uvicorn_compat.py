"""The contract of ``transports.uvicorn_compat``: the uvicorn log record it silences is still the one
uvicorn writes after a denied WebSocket upgrade, and only a marked denial is silenced."""

from __future__ import annotations

import asyncio
import logging

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from transports.serve import serving
from transports.uvicorn_compat import INCOMPLETE_HANDSHAKE, TESTED_UVICORN, mark_denied


def test_the_installed_uvicorn_is_the_tested_release_line() -> None:
    """The filter matches uvicorn's own text, read from the release line the check names."""
    assert TESTED_UVICORN.check(), TESTED_UVICORN.installed


class Records(logging.Handler):
    """Every record that passes the logger's filters (uvicorn's loggers do not propagate)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


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


def test_uvicorn_still_logs_the_record_after_an_unmarked_denial() -> None:
    """Without the mark the record goes through: the text the filter matches is uvicorn's own."""
    assert len(incomplete_handshake_errors(marked=False)) == 1


def test_a_marked_denial_logs_nothing() -> None:
    """With the mark (as the servers set it before a 401 or 403) uvicorn's record is dropped."""
    assert incomplete_handshake_errors(marked=True) == []
