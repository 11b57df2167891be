"""Routes that put a bot on a phone call through Twilio Media Streams: ``/twilio`` and ``/twiml``.

    routes = twilio_routes(bot, TwilioSettings(public_host="bot.example.com"))
    app = Starlette(routes=[*routes, ...])          # or: fastapi_app.router.routes.extend(routes)

``POST /twiml`` is the voice webhook: it answers with the TwiML that connects the call to this
server's stream endpoint, ``<Connect><Stream url="wss://HOST/twilio">`` with a ``<Parameter>``
for each configured value and for the caller's ``From``/``To``/``CallSid`` from the webhook
form (they reach the bot as ``start.customParameters``). HOST is ``public_host`` or else the
request's Host header (when it looks like a host name).

``/twilio`` (WebSocket) accepts a stream, reads ``connected`` and ``start``, then runs
``bot(call)`` (a ``twilio_call.TwilioCall``; a Pipecat bot wraps it in
``twilio_pipecat.TwilioMediaStreamTransport``) beside the call's reader. When the stream ends
first, the bot is told (``report_end``) and given ``end_grace_s`` to finish before it is
cancelled; when the bot returns first, the socket is closed. Both tasks are named after the
call, cancelled and awaited before the endpoint returns; an error in one call is logged and
never reaches the event loop or another call. A stream takes a call slot only once its ``start``
has arrived: until then it waits, at most ``handshake_timeout_s``, among at most
``max_pending`` others, so sockets that connect and say nothing cannot keep a real call out.
Above ``max_calls`` (or ``max_pending``) a stream is closed with 1013; given ``slots``, those
bounds are the ones every route of the server shares. The stream's admission and serving are
``transports.twilio.serving``'s, which every carrier's route runs too.

With ``auth_token`` (the Twilio account's), every request must carry Twilio's ``X-Twilio-Signature``
over the URL Twilio requested (``https://`` or ``wss://`` and ``public_host`` when set, else the
request's Host header and ``X-Forwarded-Proto`` or own scheme; then its path and query) and, for
``/twiml``, its form: ``/twiml`` answers 403 without it, and ``/twilio`` refuses the handshake
before accepting it (an ASGI close with 1008, which the server sends as HTTP 403).

This module owns admission and wiring only: no Pipecat, no engine, no protocol details.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from transports.call_slots import CallSlots
from transports.drain import Drain
from transports.twilio.call import TwilioCall
from transports.twilio.serving import serve_admitted
from transports.twilio.signature import SIGNATURE_HEADER, valid_signature
from transports.twilio.webhook import form, form_parameters, read_webhook
from tts_service.engine.clock import Clock, monotonic

log = logging.getLogger("warmline.twilio")

TwilioBot = Callable[[TwilioCall], Coroutine[Any, Any, None]]
#: webhook form fields passed on to the bot as stream parameters
FORWARDED_FIELDS = ("From", "To", "CallSid")
_SCHEMES = ("http", "https", "ws", "wss")


@dataclass(frozen=True, slots=True)
class TwilioSettings:
    """Paths, limits and timing of the Twilio endpoints."""

    ws_path: str = "/twilio"
    twiml_path: str = "/twiml"
    #: host (and port) in the TwiML's wss:// URL; None: the webhook request's Host header
    public_host: str | None = None
    #: extra ``<Parameter>`` values for every stream
    parameters: Mapping[str, str] = field(default_factory=dict)
    #: the Twilio account's auth token: requests must then be signed by Twilio (None: not checked)
    auth_token: str | None = field(default=None, repr=False)
    max_calls: int = 64
    #: streams connected but not yet started (Twilio sends ``start`` at once; None: four per call
    #: slot, at least 16), so sockets that say nothing exhaust this bound, not the calls
    max_pending: int | None = None
    #: how long a stream may take to send ``connected`` and ``start``
    handshake_timeout_s: float = 5.0
    media_timeout_s: float = 10.0
    end_grace_s: float = 2.0
    #: frames sent ahead of the carrier's playback (it holds at most this much of our audio)
    lead_frames: int = 3
    clock: Clock = monotonic


def twiml(stream_url: str, parameters: Mapping[str, str]) -> str:
    """The TwiML document that connects a call to the media stream at ``stream_url``.

    Always well-formed XML, whatever the values hold: each is quoted, and a character XML 1.0
    cannot carry at all (NUL, most C0 controls, lone surrogates, U+FFFE/U+FFFF) is replaced
    with U+FFFD first, since not even a character reference may name it.
    """
    params = "".join(
        f"<Parameter name={_xml_attr(name)} value={_xml_attr(value)}/>" for name, value in parameters.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f"<Response><Connect><Stream url={_xml_attr(stream_url)}>{params}</Stream></Connect></Response>"
    )


#: what XML 1.0 cannot hold: everything outside its Char production
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_attr(value: str) -> str:
    """``value`` as a quoted XML attribute value; characters XML cannot hold become U+FFFD."""
    return quoteattr(_NOT_XML.sub("\ufffd", value))


def twilio_routes(
    bot: TwilioBot,
    settings: TwilioSettings | None = None,
    *,
    drain: Drain | None = None,
    slots: CallSlots | None = None,
) -> list[BaseRoute]:
    """The ``POST /twiml`` route and the ``/twilio`` WebSocket route, for any Starlette app.

    Once ``drain`` begins, the webhook answers 503 and a new stream is closed with 1013 (calls
    in progress go on: the bot decides how they end). ``slots``, when given, is the call limit
    shared with the server's other routes (``max_calls`` and ``max_pending`` are then its own).
    """
    settings = settings or TwilioSettings()
    call_ids = itertools.count(1)
    call_slots = slots or CallSlots(settings.max_calls, settings.max_pending)

    async def open_call(websocket: WebSocket, name: str) -> TwilioCall:
        return await TwilioCall.accept(
            websocket,
            name=name,
            handshake_timeout_s=settings.handshake_timeout_s,
            clock=settings.clock,
            lead_frames=settings.lead_frames,
            media_timeout_s=settings.media_timeout_s,
        )

    async def twiml_endpoint(request: Request) -> Response:
        def signed(body: bytes) -> bool:
            return _signed(request, settings, form(body), websocket=False)

        read = await read_webhook(
            request, public_host=settings.public_host, drain=drain, verify=signed, carrier="Twilio", log=log
        )
        if isinstance(read, Response):
            return read
        host, body = read
        parameters = {**settings.parameters, **form_parameters(body, FORWARDED_FIELDS)}
        document = twiml(f"wss://{host}{settings.ws_path}", parameters)
        return Response(document, media_type="application/xml")

    async def stream_endpoint(websocket: WebSocket) -> None:
        signed = _signed(websocket, settings, {}, websocket=True)
        await serve_admitted(
            websocket,
            f"twilio-{next(call_ids)}",
            unsigned=None if signed else "invalid Twilio signature",
            open_call=open_call,
            bot=bot,
            slots=call_slots,
            drain=drain,
            end_grace_s=settings.end_grace_s,
            log=log,
        )

    return [
        Route(settings.twiml_path, twiml_endpoint, methods=["POST"]),
        WebSocketRoute(settings.ws_path, stream_endpoint),
    ]


def _signed(
    conn: HTTPConnection, settings: TwilioSettings, form: Mapping[str, list[str]], *, websocket: bool
) -> bool:
    """True when no auth token is set, else whether the request carries Twilio's signature."""
    if settings.auth_token is None:
        return True
    url = public_url(conn, settings.public_host, websocket=websocket)
    return valid_signature(settings.auth_token, url, form, conn.headers.get(SIGNATURE_HEADER))


def public_url(conn: HTTPConnection, public_host: str | None, *, websocket: bool) -> str:
    """The URL Twilio requested: what it signed, as far as this server can see it.

    With ``public_host``, ``https://`` (``wss://``) and that host; else the Host header, and the
    scheme of ``X-Forwarded-Proto`` when a proxy sent one, or of the request itself. Then the path
    as it came on the wire and the query string.
    """
    secure, plain = ("wss", "ws") if websocket else ("https", "http")
    if public_host:
        scheme, host = secure, public_host
    else:
        forwarded = conn.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        own = forwarded if forwarded in _SCHEMES else str(conn.scope.get("scheme", plain))
        scheme, host = (secure if own in ("https", "wss") else plain), conn.headers.get("host", "")
    raw_path = conn.scope.get("raw_path") or conn.scope["path"].encode("utf-8")
    url = f"{scheme}://{host}{raw_path.decode('utf-8', 'replace')}"
    query = conn.scope.get("query_string", b"").decode("utf-8", "replace")
    return f"{url}?{query}" if query else url


__all__ = ["FORWARDED_FIELDS", "TwilioBot", "TwilioSettings", "public_url", "twilio_routes", "twiml"]
