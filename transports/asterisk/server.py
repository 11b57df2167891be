"""The route that puts a bot on a call from a company's own Asterisk: ``/asterisk``.

    routes = asterisk_routes(bot, AsteriskSettings(), slots=slots, drain=drain)

Asterisk dials the bot itself, no carrier in between: a ``websocket_client.conf`` client whose
``uri`` is ``wss://HOST/asterisk?token=SECRET`` and a dialplan step
``Dial(WebSocket/warmline/c(ulaw)f(json))`` (``f(json)``, or ``control_message_format = json``
in ``chan_websocket.conf``: the JSON control messages this route speaks). The URL's query
reaches the bot as parameters, beside the channel's variables. Asterisk signs nothing: the
token is the guard (or keep the route on a private network). ``/asterisk`` is
``media_stream.server.stream_route`` over the ``chan_websocket`` codec: the call limit is the
shared ``CallSlots``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.routing import BaseRoute

from transports.asterisk.stream import ASTERISK
from transports.drain import Drain
from transports.media_stream.server import CallSlots, CarrierBot, CarrierSettings, stream_route


@dataclass(frozen=True, slots=True)
class AsteriskSettings:
    ws_path: str = "/asterisk"
    carrier: CarrierSettings = field(default_factory=CarrierSettings)


def asterisk_routes(
    bot: CarrierBot, settings: AsteriskSettings | None = None, *, slots: CallSlots, drain: Drain | None = None
) -> list[BaseRoute]:
    """The ``/asterisk`` WebSocket route (see the module doc)."""
    settings = settings or AsteriskSettings()
    return [stream_route(settings.ws_path, ASTERISK, bot, settings.carrier, slots=slots, drain=drain)]


__all__ = ["AsteriskSettings", "asterisk_routes"]
