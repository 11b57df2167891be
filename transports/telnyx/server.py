"""Routes that put a bot on a Telnyx call: ``POST /texml`` (the TeXML webhook) and ``/telnyx``.

    routes = telnyx_routes(bot, TelnyxSettings(public_key=key_b64), slots=slots, drain=drain)

``POST /texml`` answers a TeXML application's voice webhook with
``<Connect><Stream url="wss://HOST/telnyx" bidirectionalMode="rtp" bidirectionalCodec="PCMU">``
and a ``<Parameter>`` for each configured value and the caller's ``From``/``To``/``CallSid``
(they reach the bot as the start's ``custom_parameters``). With ``public_key`` the webhook must
carry Telnyx's Ed25519 signature (``signature``), else 403. Telnyx does not sign the stream's
own upgrade request, so ``/telnyx`` is guarded by what the signed answer put in it (the server's
token parameter, checked by the bot), as ``/twilio`` is. ``/telnyx`` is
``media_stream.server.stream_route`` over the Telnyx codec: the call limit is the shared
``CallSlots``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr

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
from transports.telnyx.signature import SIGNATURE_HEADER, TIMESTAMP_HEADER, public_key, valid_signature
from transports.telnyx.stream import TELNYX

log = logging.getLogger("warmline.telnyx")

#: webhook form fields passed on to the bot as stream parameters
FORWARDED_FIELDS = ("From", "To", "CallSid")


@dataclass(frozen=True, slots=True)
class TelnyxSettings:
    ws_path: str = "/telnyx"
    texml_path: str = "/texml"
    #: extra ``<Parameter>`` values for every stream
    parameters: Mapping[str, str] = field(default_factory=dict)
    #: the account's Ed25519 public key (base64): webhooks must then be signed (None: not checked)
    public_key: str | None = field(default=None, repr=False)
    carrier: CarrierSettings = field(default_factory=CarrierSettings)
    #: the wall clock signatures' timestamps are checked against
    wall_clock: Callable[[], float] = time.time


def texml(stream_url: str, parameters: Mapping[str, str]) -> str:
    """The TeXML document that connects a call to the bidirectional stream at ``stream_url``."""
    params = "".join(
        f"<Parameter name={quoteattr(name)} value={quoteattr(value)}/>" for name, value in parameters.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>'
        f'<Stream url={quoteattr(stream_url)} bidirectionalMode="rtp" bidirectionalCodec="PCMU" codec="PCMU">'
        f"{params}</Stream></Connect></Response>"
    )


def telnyx_routes(
    bot: CarrierBot, settings: TelnyxSettings | None = None, *, slots: CallSlots, drain: Drain | None = None
) -> list[BaseRoute]:
    """The ``POST /texml`` route and the ``/telnyx`` WebSocket route (see the module doc)."""
    settings = settings or TelnyxSettings()
    key = public_key(settings.public_key) if settings.public_key else None

    async def texml_endpoint(request: Request) -> Response:
        def signed(body: bytes) -> bool:
            assert key is not None
            headers = request.headers
            stamp, signature = headers.get(TIMESTAMP_HEADER), headers.get(SIGNATURE_HEADER)
            return valid_signature(key, stamp, body, signature, now=settings.wall_clock())

        read = await read_webhook(
            request,
            public_host=settings.carrier.public_host,
            drain=drain,
            verify=signed if key is not None else None,
            carrier="Telnyx",
            log=log,
        )
        if isinstance(read, Response):
            return read
        host, body = read
        parameters = {**settings.parameters, **form_parameters(body, FORWARDED_FIELDS)}
        return Response(texml(f"wss://{host}{settings.ws_path}", parameters), media_type="application/xml")

    return [
        Route(settings.texml_path, texml_endpoint, methods=["POST"]),
        stream_route(settings.ws_path, TELNYX, bot, settings.carrier, slots=slots, drain=drain),
    ]


__all__ = ["FORWARDED_FIELDS", "TelnyxSettings", "telnyx_routes", "texml"]
