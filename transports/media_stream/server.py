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
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from transports.call_slots import CallSlots
from transports.drain import Drain
from transports.media_stream.call import CarrierCall
from transports.media_stream.stream import Dialect
from transports.twilio.serving import peer, serve_admitted
from transports.twilio.webhook import MAX_WEBHOOK_BYTES, form_parameters, read_webhook, webhook_host
from tts_service.engine.clock import Clock, monotonic

log = logging.getLogger("warmline.carriers")

CarrierBot = Callable[[CarrierCall], Coroutine[Any, Any, None]]


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
