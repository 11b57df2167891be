"""The route that puts a bot on an Exotel call: ``/exotel``, the Voicebot applet's WebSocket URL.

    routes = exotel_routes(bot, ExotelSettings(basic_auth="KEY:TOKEN"), slots=slots, drain=drain)

Exotel has no webhook answer to give: the applet (App Bazaar, Voicebot) is configured with the
stream's URL itself, ``wss://HOST/exotel?token=SECRET`` (its query reaches the bot as
parameters, beside the start's ``custom_parameters``). Exotel signs nothing; it authenticates by
IP allow-listing or by Basic auth written into the applet's URL
(``wss://KEY:TOKEN@HOST/exotel``), sent as an ``Authorization: Basic`` header. With
``basic_auth`` (``KEY:TOKEN``) the upgrade request must carry exactly that, else it is refused
before the accept (HTTP 403). ``/exotel`` is ``media_stream.server.stream_route`` over Exotel's
codec: the call limit is the shared ``CallSlots``.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass, field

from starlette.routing import BaseRoute
from starlette.websockets import WebSocket

from transports.drain import Drain
from transports.exotel.stream import EXOTEL
from transports.media_stream.server import CallSlots, CarrierBot, CarrierSettings, stream_route


@dataclass(frozen=True, slots=True)
class ExotelSettings:
    ws_path: str = "/exotel"
    #: ``KEY:TOKEN`` the applet's URL carries as Basic auth (None: not checked)
    basic_auth: str | None = field(default=None, repr=False)
    carrier: CarrierSettings = field(default_factory=CarrierSettings)


def basic_auth_ok(expected: str, header: str | None) -> bool:
    """Whether an ``Authorization`` header is ``Basic`` of exactly ``expected`` (``KEY:TOKEN``)."""
    if not header or not header.lower().startswith("basic "):
        return False
    try:
        presented = base64.b64decode(header[6:].strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    return hmac.compare_digest(presented, expected.encode())


def exotel_routes(
    bot: CarrierBot, settings: ExotelSettings | None = None, *, slots: CallSlots, drain: Drain | None = None
) -> list[BaseRoute]:
    """The ``/exotel`` WebSocket route (see the module doc)."""
    settings = settings or ExotelSettings()
    expected = settings.basic_auth

    def authorized(websocket: WebSocket) -> bool:
        return expected is None or basic_auth_ok(expected, websocket.headers.get("authorization"))

    return [
        stream_route(
            settings.ws_path, EXOTEL, bot, settings.carrier, slots=slots, drain=drain, authorized=authorized
        )
    ]


__all__ = ["ExotelSettings", "basic_auth_ok", "exotel_routes"]
