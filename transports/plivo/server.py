"""Routes that put a bot on a Plivo call: ``POST /plivo/answer`` (the answer XML) and ``/plivo``.

    routes = plivo_routes(bot, PlivoSettings(auth_token=token), slots=slots, drain=drain)

``POST /plivo/answer`` (the application's Answer URL) answers with
``<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000"
extraHeaders="...">wss://HOST/plivo</Stream>``; the extra headers carry each configured value
and the caller's ``CallUUID``/``From``/``To`` (they reach the bot as the start's
``custom_parameters``). Plivo allows only letters and digits in them, so other characters are
dropped (``+15550100`` arrives as ``15550100``); the server's token goes in the stream URL's
query instead (``url_token``), which the call adds to its parameters. With ``auth_token`` the
answer request must carry Plivo's V3 signature (``signature``) over the URL Plivo requested
(``public_url``), else 403.
Plivo does not document a signature on the stream's upgrade request, so ``/plivo`` is guarded by
what the signed answer put in it (the server's token parameter, checked by the bot).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode
from xml.sax.saxutils import escape, quoteattr

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from transports.drain import Drain
from transports.media_stream.server import (
    CallSlots,
    CarrierBot,
    CarrierSettings,
    form_parameters,
    read_webhook,
    stream_route,
)
from transports.plivo.signature import NONCE_HEADER, SIGNATURE_HEADER, valid_signature
from transports.plivo.stream import PLIVO
from transports.twilio.server import public_url
from transports.twilio.webhook import form

log = logging.getLogger("warmline.plivo")

#: webhook form fields passed on to the bot as stream parameters
FORWARDED_FIELDS = ("CallUUID", "From", "To")
#: Plivo's bound on ``extraHeaders``
MAX_EXTRA_HEADERS = 512
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class PlivoSettings:
    ws_path: str = "/plivo"
    answer_path: str = "/plivo/answer"
    #: extra values for every stream (letters and digits only reach the bot)
    parameters: Mapping[str, str] = field(default_factory=dict)
    #: the Plivo account's auth token: answer requests must then be signed (None: not checked)
    auth_token: str | None = field(default=None, repr=False)
    #: the server's token, sent in the stream URL's query (``?token=``), where any character goes
    url_token: str | None = field(default=None, repr=False)
    carrier: CarrierSettings = field(default_factory=CarrierSettings)


def stream_xml(stream_url: str, parameters: Mapping[str, str]) -> str:
    """The Plivo XML that connects a call to the bidirectional stream at ``stream_url``."""
    pairs = [f"{_UNSAFE.sub('', k)}={_UNSAFE.sub('', v)}" for k, v in parameters.items()]
    headers = ",".join(pair for pair in pairs if not pair.startswith("="))[:MAX_EXTRA_HEADERS]
    return (
        '<?xml version="1.0" encoding="UTF-8"?><Response>'
        '<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" '
        f"extraHeaders={quoteattr(headers)}>{escape(stream_url)}</Stream></Response>"
    )


def plivo_routes(
    bot: CarrierBot, settings: PlivoSettings | None = None, *, slots: CallSlots, drain: Drain | None = None
) -> list[BaseRoute]:
    """The answer route and the ``/plivo`` WebSocket route (see the module doc)."""
    settings = settings or PlivoSettings()

    async def answer_endpoint(request: Request) -> Response:
        token = settings.auth_token

        def signed(body: bytes) -> bool:
            assert token is not None
            url = public_url(request, settings.carrier.public_host, websocket=False)
            nonce, signature = request.headers.get(NONCE_HEADER), request.headers.get(SIGNATURE_HEADER)
            return valid_signature(token, "POST", url, form(body), nonce, signature)

        read = await read_webhook(
            request,
            public_host=settings.carrier.public_host,
            drain=drain,
            verify=signed if token is not None else None,
            carrier="Plivo",
            log=log,
        )
        if isinstance(read, Response):
            return read
        host, body = read
        parameters = {**settings.parameters, **form_parameters(body, FORWARDED_FIELDS)}
        url = f"wss://{host}{settings.ws_path}"
        if settings.url_token is not None:  # letters and digits only in extraHeaders: the URL carries it
            url += f"?{urlencode({'token': settings.url_token})}"
        return Response(stream_xml(url, parameters), media_type="application/xml")

    return [
        Route(settings.answer_path, answer_endpoint, methods=["POST"]),
        stream_route(settings.ws_path, PLIVO, bot, settings.carrier, slots=slots, drain=drain),
    ]


__all__ = ["FORWARDED_FIELDS", "PlivoSettings", "plivo_routes", "stream_xml"]
