"""The WebSocket route of any carrier's media stream, and the call slots every carrier shares.

    slots = CallSlots(max_calls=16)
    route = stream_route("/telnyx", TELNYX, bot, CarrierSettings(), slots=slots, drain=drain)

A stream is accepted (after ``authorized``, when given, approves the upgrade request; else it is
refused before the accept: HTTP 403), read until its start (at most ``handshake_timeout_s``,
among at most ``max_pending`` others waiting), and only then takes a call slot from ``slots``:
one limit shared by every route given the same ``CallSlots``. Above it, or while ``drain`` is
on, the stream is closed with 1013. Then ``bot(call)`` runs beside the call's reader, as on
``/twilio``: when the stream ends first the bot is told (``report_end``) and given
``end_grace_s``; when the bot returns first the socket is closed. Both tasks are named after the
call, cancelled and awaited before the endpoint returns; an error in one call is logged and
never reaches another.

Admission and wiring only: no Pipecat, no engine, no protocol details.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import HTTPConnection, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from transports.drain import NOT_TAKING, Drain
from transports.http_body import BodyTooLarge, read_body
from transports.media_stream.call import CarrierCall
from transports.media_stream.stream import Dialect
from transports.twilio.protocol import TwilioProtocolError
from tts_service.engine.clock import Clock, monotonic
from tts_service.errors import InvalidInputError

log = logging.getLogger("warmline.carriers")

CarrierBot = Callable[[CarrierCall], Coroutine[Any, Any, None]]
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?")
#: the largest webhook body read
MAX_WEBHOOK_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class CarrierSettings:
    """Timing of one carrier's streams (the limits are the shared ``CallSlots``')."""

    #: host (and port) of the wss:// URL the webhook answers with; None: the request's Host header
    public_host: str | None = None
    #: how long a stream may take to start
    handshake_timeout_s: float = 5.0
    media_timeout_s: float = 10.0
    end_grace_s: float = 2.0
    #: frames sent ahead of the carrier's playback (it holds at most this much of our audio)
    lead_frames: int = 3
    clock: Clock = monotonic


class CallSlots:
    """The calls in progress and the streams still starting, over every route that shares it."""

    def __init__(
        self, max_calls: int = 64, max_pending: int | None = None, *, others: Callable[[], int] | None = None
    ) -> None:
        if max_calls < 1:
            raise ValueError("max_calls must be positive")
        self.max_calls = max_calls
        #: calls in progress on routes that keep their own count (Twilio's, WebRTC's): they take
        #: slots of the same limit
        self.others = others
        self.max_pending = max_pending if max_pending is not None else max(16, 4 * max_calls)
        self.live: set[str] = set()
        self.pending: set[str] = set()

    @property
    def taken(self) -> int:
        return len(self.live) + (self.others() if self.others is not None else 0)


def webhook_host(conn: HTTPConnection, public_host: str | None) -> str | None:
    """The host a webhook's answer points the carrier at: ``public_host``, else a sane Host header."""
    host = public_host or conn.headers.get("host", "")
    return host if _HOST.fullmatch(host) else None


async def read_webhook(
    request: Request, *, public_host: str | None, drain: Drain | None
) -> tuple[str, bytes] | Response:
    """A carrier webhook's host to answer with and its raw body (64 KiB at most), or the error
    response to send: 503 while draining, 400 without a usable host, 413 for a large body."""
    if drain is not None and drain.draining:
        return PlainTextResponse(f"{NOT_TAKING}\n", status_code=503)
    host = webhook_host(request, public_host)
    if host is None:
        return PlainTextResponse("no usable Host header; set public_host\n", status_code=400)
    try:
        body = await read_body(request, max_bytes=MAX_WEBHOOK_BYTES)
    except BodyTooLarge:
        return PlainTextResponse("request body too large\n", status_code=413)
    except InvalidInputError as exc:
        return PlainTextResponse(f"{exc}\n", status_code=400)
    return host, body


def form_parameters(body: bytes, fields: tuple[str, ...]) -> dict[str, str]:
    """The first non-empty value of each of ``fields`` in a urlencoded webhook body (256 chars)."""
    form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    found: dict[str, str] = {}
    for name in fields:
        values = [value for value in form.get(name, ()) if value]
        if values:
            found[name] = values[0][:256]
    return found


def peer(conn: HTTPConnection) -> str:
    return conn.client.host if conn.client else "an unknown peer"


def stream_route(
    path: str,
    dialect: Dialect,
    bot: CarrierBot,
    settings: CarrierSettings,
    *,
    slots: CallSlots,
    drain: Drain | None = None,
    authorized: Callable[[WebSocket], bool] | None = None,
) -> WebSocketRoute:
    """The WebSocket route at ``path`` for ``dialect``'s streams (see the module doc)."""
    call_ids = itertools.count(1)

    async def endpoint(websocket: WebSocket) -> None:
        name = f"{dialect.name}-{next(call_ids)}"
        if authorized is not None and not authorized(websocket):
            log.warning(
                "%s: refused a stream from %s: not signed as %s signs", name, peer(websocket), dialect.name
            )
            await websocket.close(1008, f"invalid {dialect.name} signature")  # before accept: HTTP 403
            return
        await websocket.accept()
        if drain is not None and drain.draining:
            log.info("%s: refused: the server is draining", name)
            await websocket.close(1013, NOT_TAKING)
            return
        if len(slots.pending) >= slots.max_pending:
            log.warning("%s: refused: %d streams already waiting for their start", name, len(slots.pending))
            await websocket.close(1013, "too many streams starting")
            return
        slots.pending.add(name)
        try:
            call = await _handshake(websocket, dialect, settings, name)
        finally:
            slots.pending.discard(name)
        if call is None:
            return
        call.url_parameters = dict(websocket.query_params)
        if slots.taken >= slots.max_calls:
            log.warning("%s: refused: %d calls already", name, slots.taken)
            await call.close(1013, "too many calls")
            return
        slots.live.add(name)
        try:
            await _serve(call, bot, settings, name)
        finally:
            slots.live.discard(name)

    return WebSocketRoute(path, endpoint)


async def _handshake(
    websocket: WebSocket, dialect: Dialect, settings: CarrierSettings, name: str
) -> CarrierCall | None:
    try:
        return await CarrierCall.open(
            websocket,
            dialect,
            name=name,
            handshake_timeout_s=settings.handshake_timeout_s,
            clock=settings.clock,
            lead_frames=settings.lead_frames,
            media_timeout_s=settings.media_timeout_s,
        )
    except TwilioProtocolError as exc:
        log.warning("%s: stream refused (%s): %s", name, exc.code, exc)
        try:
            async with asyncio.timeout(2.0):
                await websocket.close(1008, exc.code)
        except (TimeoutError, OSError, RuntimeError):
            pass  # the carrier is gone; uvicorn drops the transport when the endpoint returns
        return None


async def _serve(call: CarrierCall, bot: CarrierBot, settings: CarrierSettings, name: str) -> None:
    start = call.start
    log.info(
        "%s: stream %s of call %s started (parameters: %s)",
        name,
        start.stream_sid,
        start.call_sid,
        ", ".join(sorted(start.custom_parameters)) or "none",
    )
    reader = asyncio.create_task(call.run_reader(), name=f"{name}-reader")
    ended = asyncio.create_task(call.ended.wait(), name=f"{name}-ended")
    bot_task = asyncio.create_task(bot(call), name=f"{name}-bot")
    tasks = (reader, ended, bot_task)
    try:
        await asyncio.wait((ended, bot_task), return_when=asyncio.FIRST_COMPLETED)
        if not bot_task.done():
            await call.report_end()
            await asyncio.wait((bot_task,), timeout=settings.end_grace_s)
            if not bot_task.done():
                grace = settings.end_grace_s
                log.warning("%s: the bot did not stop %g s after the end; cancelling it", name, grace)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        await call.close()
    for task in (reader, bot_task):
        error = None if task.cancelled() else task.exception()
        if error is not None:
            log.error("%s: %s failed", name, task.get_name(), exc_info=error)


__all__ = [
    "MAX_WEBHOOK_BYTES",
    "CallSlots",
    "CarrierBot",
    "CarrierSettings",
    "form_parameters",
    "peer",
    "read_webhook",
    "stream_route",
    "webhook_host",
]
