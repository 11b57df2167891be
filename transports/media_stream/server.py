"""The WebSocket route of any carrier's media stream, and the webhook helpers carriers share.

    slots = CallSlots(max_calls=16)
    route = stream_route("/telnyx", TELNYX, bot, CarrierSettings(), slots=slots, drain=drain)

A stream is accepted (after ``authorized``, when given, approves the upgrade request; else it is
refused before the accept: HTTP 403), read until its start (at most ``handshake_timeout_s``,
among at most ``max_pending`` others waiting), and only then takes a call slot from ``slots``:
one limit shared by every route given the same ``transports.call_slots.CallSlots`` (Twilio's and
WebRTC's too, in ``warmline call``). Above it, or while ``drain`` is on, the stream is closed
with 1013. Then ``bot(call)`` runs beside the call's reader, exactly as on ``/twilio``: both run
``transports.twilio.serving``, so the stream, its reader or the bot ending ends the call, the
tasks are named, cancelled and awaited, client strings are escaped in every log line, and an
error in one call is logged and never reaches another.

Admission and wiring only: no Pipecat, no engine, no protocol details.
"""

from __future__ import annotations

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

from transports.call_slots import CallSlots
from transports.drain import NOT_TAKING, Drain
from transports.http_body import BodyRefused, read_body
from transports.media_stream.call import CarrierCall
from transports.media_stream.stream import Dialect
from transports.twilio.serving import peer, serve_admitted
from tts_service.engine.clock import Clock, monotonic

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


def webhook_host(conn: HTTPConnection, public_host: str | None) -> str | None:
    """The host a webhook's answer points the carrier at: ``public_host``, else a sane Host header."""
    host = public_host or conn.headers.get("host", "")
    return host if _HOST.fullmatch(host) else None


async def read_webhook(
    request: Request, *, public_host: str | None, drain: Drain | None
) -> tuple[str, bytes] | Response:
    """A carrier webhook's host to answer with and its raw body (64 KiB at most), or the error
    response to send: 503 while draining, 400 without a usable host, 413 for a large body, 408
    for one not complete in time."""
    if drain is not None and drain.draining:
        return PlainTextResponse(f"{NOT_TAKING}\n", status_code=503)
    host = webhook_host(request, public_host)
    if host is None:
        return PlainTextResponse("no usable Host header; set public_host\n", status_code=400)
    try:
        body = await read_body(request, max_bytes=MAX_WEBHOOK_BYTES)
    except BodyRefused as exc:  # too large (413), not complete in time (408), or the client left
        return PlainTextResponse(f"{exc}\n", status_code=exc.status, headers=exc.headers)
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

    async def open_call(websocket: WebSocket, name: str) -> CarrierCall:
        call = await CarrierCall.open(
            websocket,
            dialect,
            name=name,
            handshake_timeout_s=settings.handshake_timeout_s,
            clock=settings.clock,
            lead_frames=settings.lead_frames,
            media_timeout_s=settings.media_timeout_s,
        )
        call.url_parameters = dict(websocket.query_params)
        return call

    async def endpoint(websocket: WebSocket) -> None:
        signed = authorized is None or authorized(websocket)
        await serve_admitted(
            websocket,
            f"{dialect.name}-{next(call_ids)}",
            unsigned=None if signed else f"invalid {dialect.name} signature",
            open_call=open_call,
            bot=bot,
            slots=slots,
            drain=drain,
            end_grace_s=settings.end_grace_s,
            log=log,
        )

    return WebSocketRoute(path, endpoint)


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
