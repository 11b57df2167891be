"""The carriers ``warmline call`` answers besides Twilio: Telnyx, Plivo, Exotel, Vonage, and a
company's own Asterisk.

    routes = carrier_routes(phone_bot, settings, slots=slots, drain=drain)

``/texml`` and ``/telnyx`` (Telnyx), ``/plivo/answer`` and ``/plivo`` (Plivo), ``/exotel``
(Exotel's Voicebot applet, configured with the stream URL itself), ``/vonage/answer`` and
``/vonage`` (Vonage's NCCO and WebSocket), ``/asterisk`` (``chan_websocket`` from a PBX), each a
``transports/<carrier>`` folder over ``transports.media_stream``. Every stream is a
``media_stream.call.CarrierCall``, a ``TwilioCall``, so the agent's Twilio bot answers them all.
They take their calls from the server's one ``CallSlots`` of ``--max-calls``, the one ``/twilio``
and WebRTC take from too. The server's token reaches each stream as its ``token``
parameter (Exotel's applet URL carries it as ``?token=``); each carrier's signature key (Exotel's
Basic auth) comes from the environment (``agent.call_cli``).
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from agent.settings import AgentSettings
from transports.asterisk.server import AsteriskSettings, asterisk_routes
from transports.call_slots import CallSlots
from transports.drain import Drain
from transports.exotel.server import ExotelSettings, exotel_routes
from transports.media_stream.server import CarrierBot, CarrierSettings
from transports.plivo.server import PlivoSettings, plivo_routes
from transports.telnyx.server import TelnyxSettings, telnyx_routes
from transports.vonage.server import VonageSettings, vonage_routes

#: the carriers' names, as calls are counted (``/healthz``'s ``calls``) and routes named
CARRIERS = ("telnyx", "plivo", "exotel", "vonage", "asterisk", "audiosocket")


def carrier_routes(
    bot: CarrierBot, settings: AgentSettings, *, slots: CallSlots, drain: Drain
) -> list[BaseRoute]:
    parameters = {"token": settings.token} if settings.token else {}
    carrier = CarrierSettings(public_host=settings.public_host)
    telnyx = TelnyxSettings(parameters=parameters, public_key=settings.telnyx_public_key, carrier=carrier)
    plivo = PlivoSettings(auth_token=settings.plivo_auth_token, url_token=settings.token, carrier=carrier)
    exotel = ExotelSettings(basic_auth=settings.exotel_basic_auth, carrier=carrier)
    vonage = VonageSettings(
        parameters=parameters, signature_secret=settings.vonage_signature_secret, carrier=carrier
    )
    return [
        *telnyx_routes(bot, telnyx, slots=slots, drain=drain),
        *plivo_routes(bot, plivo, slots=slots, drain=drain),
        *exotel_routes(bot, exotel, slots=slots, drain=drain),
        *vonage_routes(bot, vonage, slots=slots, drain=drain),
        *asterisk_routes(bot, AsteriskSettings(carrier=carrier), slots=slots, drain=drain),
    ]


__all__ = ["CARRIERS", "carrier_routes"]
