"""Routes that put a bot on a Vonage call: the answer URL (an NCCO) and ``/vonage``.

    routes = vonage_routes(bot, VonageSettings(signature_secret=secret), slots=slots, drain=drain)

``GET`` or ``POST /vonage/answer`` (the Voice application's answer URL) answers with an NCCO
whose ``connect`` action opens a WebSocket to ``wss://HOST/vonage`` at
``audio/l16;rate=16000``, with headers for each configured value and the call's ``uuid``,
``from`` and ``to`` (from the answer request's query or form): they come back in
``websocket:connected`` and reach the bot as the start's parameters. With ``signature_secret``
the answer request must carry Vonage's signed-webhook JWT (``signature``), else 403. The docs
do not describe a signature on the WebSocket's own upgrade request, so ``/vonage`` is guarded by
what the signed answer put in it (the server's token header, checked by the bot).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

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
from transports.vonage.protocol import CONTENT_TYPE
from transports.vonage.signature import valid_jwt
from transports.vonage.stream import VONAGE
from tts_service import jsonlimits

log = logging.getLogger("warmline.vonage")

#: answer-request fields passed on to the bot as stream headers
FORWARDED_FIELDS = ("uuid", "from", "to")


@dataclass(frozen=True, slots=True)
class VonageSettings:
    ws_path: str = "/vonage"
    answer_path: str = "/vonage/answer"
    #: extra headers for every stream
    parameters: Mapping[str, str] = field(default_factory=dict)
    #: the account's signature secret: answer requests must then carry a valid JWT (None: not checked)
    signature_secret: str | None = field(default=None, repr=False)
    carrier: CarrierSettings = field(default_factory=CarrierSettings)
    wall_clock: Callable[[], float] = time.time


def ncco(stream_url: str, headers: Mapping[str, str]) -> list[dict[str, Any]]:
    """The NCCO that connects a call to the WebSocket at ``stream_url``."""
    endpoint = {
        "type": "websocket",
        "uri": stream_url,
        "content-type": CONTENT_TYPE,
        "headers": dict(headers),
    }
    return [{"action": "connect", "endpoint": [endpoint]}]


def vonage_routes(
    bot: CarrierBot, settings: VonageSettings | None = None, *, slots: CallSlots, drain: Drain | None = None
) -> list[BaseRoute]:
    """The answer route and the ``/vonage`` WebSocket route (see the module doc)."""
    settings = settings or VonageSettings()

    async def answer_endpoint(request: Request) -> Response:
        secret = settings.signature_secret

        def signed(body: bytes) -> bool:
            assert secret is not None
            authorization = request.headers.get("authorization")
            return valid_jwt(secret, authorization, body, now=settings.wall_clock())

        read = await read_webhook(
            request,
            public_host=settings.carrier.public_host,
            drain=drain,
            verify=signed if secret is not None else None,
            carrier="Vonage",
            log=log,
        )
        if isinstance(read, Response):
            return read
        host, body = read
        fields = form_parameters(request.url.query.encode(), FORWARDED_FIELDS)
        if request.headers.get("content-type", "").startswith("application/json"):
            fields.update(_json_fields(body))
        else:
            fields.update(form_parameters(body, FORWARDED_FIELDS))
        headers = {**settings.parameters, **fields}
        document = ncco(f"wss://{host}{settings.ws_path}", headers)
        return Response(json.dumps(document), media_type="application/json")

    return [
        Route(settings.answer_path, answer_endpoint, methods=["GET", "POST"]),
        stream_route(settings.ws_path, VONAGE, bot, settings.carrier, slots=slots, drain=drain),
    ]


def _json_fields(body: bytes) -> dict[str, str]:
    try:
        data = jsonlimits.loads(body or b"{}")
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v[:256] for k in FORWARDED_FIELDS if isinstance(v := data.get(k), str) and v}


__all__ = ["FORWARDED_FIELDS", "VonageSettings", "ncco", "vonage_routes"]
