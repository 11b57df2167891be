"""A phone call on every carrier's route: a simulated carrier (real message shapes, real-time
playback, acknowledgements as the carrier sends them), a Pipecat bot over the same
``TwilioMediaStreamTransport``, hibari on a frozen clock.

For each carrier: the first answer is heard whole; the second is cut by a barge-in right after an
acknowledgement (the carrier freezes its playback while the caller talks), so the words the bot's
context holds are exactly those of the frames the carrier acknowledged; one clear (or the
carrier's equivalent), no bot audio written after it, and none played once the clear arrived.
The scenario and the bot are ``test_twilio_call``'s, so Twilio is the reference every carrier
must match.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from asr import DISTRACTORS, normalize
from log_errors import own_errors
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from test_twilio_call import (
    ANSWER_1,
    ANSWER_2,
    HEARD_FRAMES,
    QUESTION_1,
    Bot,
    frozen_clock,
    scenario,
    truth_frames,
    words_of,
)
from websockets.asyncio.client import ClientConnection, connect

from transports.asterisk import protocol as asterisk_protocol
from transports.asterisk.carrier import AsteriskPbx
from transports.asterisk.server import AsteriskSettings, asterisk_routes
from transports.exotel import protocol as exotel_protocol
from transports.exotel.carrier import ExotelCarrier
from transports.exotel.server import ExotelSettings, exotel_routes
from transports.media_stream.server import CallSlots, CarrierBot, CarrierSettings
from transports.plivo import protocol as plivo_protocol
from transports.plivo.carrier import PlivoCarrier
from transports.plivo.server import PlivoSettings, plivo_routes
from transports.serve import serving
from transports.telnyx import protocol as telnyx_protocol
from transports.telnyx.carrier import TelnyxCarrier
from transports.telnyx.server import TelnyxSettings, telnyx_routes
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier
from transports.vonage import protocol as vonage_protocol
from transports.vonage.carrier import VonageCarrier
from transports.vonage.server import VonageSettings, vonage_routes
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.engine.reading.preview import preview
from tts_service.runtime import EngineRuntime


@dataclass(frozen=True)
class CarrierCase:
    name: str
    path: str
    routes: Callable[[CarrierBot, CallSlots, CarrierSettings], list[BaseRoute]]
    carrier: Callable[[ClientConnection], Carrier]
    #: the carrier echoes the acknowledgements of the audio a clear dropped
    echoes_cleared: bool
    #: one carrier message carrying a Twilio-vocabulary event (None: the carrier sends none)
    encode: Callable[[tp.InboundEvent], str | bytes | None]
    #: a media message whose audio cannot be (None: a JSON one with its base64 spoiled)
    bad_media: bytes | None = None


CARRIERS = [
    CarrierCase(
        "telnyx",
        "/telnyx",
        lambda bot, slots, settings: telnyx_routes(bot, TelnyxSettings(carrier=settings), slots=slots),
        lambda ws: TelnyxCarrier(ws, parameters={"caller": "test"}),
        echoes_cleared=True,
        encode=telnyx_protocol.encode_inbound,
    ),
    CarrierCase(
        "plivo",
        "/plivo",
        lambda bot, slots, settings: plivo_routes(bot, PlivoSettings(carrier=settings), slots=slots),
        lambda ws: PlivoCarrier(ws, parameters={"caller": "test"}),
        echoes_cleared=False,
        encode=plivo_protocol.encode_inbound,
    ),
    CarrierCase(
        "exotel",
        "/exotel",
        lambda bot, slots, settings: exotel_routes(bot, ExotelSettings(carrier=settings), slots=slots),
        lambda ws: ExotelCarrier(ws, parameters={"caller": "test"}),
        echoes_cleared=False,
        encode=exotel_protocol.encode_inbound,
    ),
    CarrierCase(
        "vonage",
        "/vonage",
        lambda bot, slots, settings: vonage_routes(bot, VonageSettings(carrier=settings), slots=slots),
        lambda ws: VonageCarrier(ws, parameters={"caller": "test"}),
        echoes_cleared=False,
        encode=vonage_protocol.encode_inbound,
        bad_media=bytes(641),  # not whole 16-bit samples
    ),
    CarrierCase(
        "asterisk",
        "/asterisk",
        lambda bot, slots, settings: asterisk_routes(bot, AsteriskSettings(carrier=settings), slots=slots),
        # a low high-water mark, so that the call runs through Asterisk's XOFF/XON flow control
        lambda ws: AsteriskPbx(ws, parameters={"caller": "test"}, high_water=8, low_water=4),
        echoes_cleared=False,
        encode=asterisk_protocol.encode_inbound,
        bad_media=bytes(32001),  # more than a second of audio in one frame
    ),
]


@asynccontextmanager
async def carrier_server(backend: Backend, case: CarrierCase) -> AsyncIterator[tuple[str, Bot]]:
    async with EngineRuntime(backend, workers=1, clock=frozen_clock) as runtime:
        bot = Bot(runtime, [ANSWER_1, ANSWER_2])
        app = Starlette(routes=case.routes(bot, CallSlots(max_calls=4), CarrierSettings()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            yield f"ws://{host}:{port}{case.path}", bot


@pytest.mark.scenario  # a whole phone call in real time (tests/conftest.py: SCENARIO_MODULES)
@pytest.mark.parametrize("case", CARRIERS, ids=[c.name for c in CARRIERS])
def test_a_call_barges_in_and_the_context_holds_exactly_the_acknowledged_words(
    case: CarrierCase, hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    truth_1 = truth_frames(hibari_backend, ANSWER_1)
    truth_2 = truth_frames(hibari_backend, ANSWER_2)
    result: dict[str, Any] = {}

    async def main() -> None:
        async with carrier_server(hibari_backend, case) as (url, bot):
            async with connect(url, max_size=None) as ws:
                carrier = case.carrier(ws)
                clock = asyncio.create_task(carrier.run(), name="test-carrier")
                try:
                    await carrier.begin()
                    await scenario(carrier, hibari_backend)
                    await carrier.end()
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
            for _ in range(200):
                if bot.transports and bot.transports[0].call.end_reason is not None:
                    break
                await asyncio.sleep(0.01)
            result.update(carrier=carrier, bot=bot)

    asyncio.run(main())
    carrier: Carrier = result["carrier"]
    bot: Bot = result["bot"]
    log = carrier.log
    transport = bot.transports[0]
    assert log.violations == []
    assert transport.call.custom_parameters.get("caller") == "test"
    assert bot.dtmf.digits == ["5"]

    marks = [r.message.name for r in log.received if isinstance(r.message, tp.OutboundMark)]
    media = [r.message for r in log.received if isinstance(r.message, tp.OutboundMedia)]
    assert marks == [f"f{i}" for i in range(len(marks))]
    assert len(media) == tp.CHUNKS_PER_FRAME * len(marks)

    # barge-in: one clear, nothing written after it, nothing played once it arrived
    assert len(log.clears) == 1
    clear_index = next(i for i, r in enumerate(log.received) if isinstance(r.message, tp.Clear))
    assert [r for r in log.received[clear_index + 1 :] if isinstance(r.message, tp.OutboundMedia)] == []
    assert [p for p in log.played if p.tick > log.clears[0]] == []
    assert bool(log.cleared_echoes) == case.echoes_cleared
    if isinstance(carrier, AsteriskPbx):  # its flow control was exercised, and obeyed
        assert carrier.flow_log and carrier.flow_log[0][1] is True

    # the context: the first answer whole, the second up to the frames the carrier acknowledged
    contexts = list(bot.heard)
    assert len(contexts) == 2
    assert bot.heard[contexts[0]] == words_of(truth_1)
    echoed_2 = [name for _, name in log.echoed if int(name[1:]) >= len(truth_1)]
    assert len(echoed_2) == HEARD_FRAMES
    assert bot.heard[contexts[1]] == words_of(truth_2[:HEARD_FRAMES])

    heard_1 = b"".join(p.payload for p in log.played if p.answer == 1)
    grammar = [ANSWER_1, preview(ANSWER_2, hibari_backend.capabilities), QUESTION_1, *DISTRACTORS]
    assert recognizer(g711.decode(heard_1), 8000, grammar) == " ".join(normalize(ANSWER_1))


@pytest.mark.parametrize("case", CARRIERS, ids=[c.name for c in CARRIERS])
def test_bad_streams_end_only_themselves_with_one_log_line_each(
    case: CarrierCase, caplog: pytest.LogCaptureFixture
) -> None:
    """Media before start, bad base64, not JSON, an unknown event, a stream gone silent: each ends
    its own call in one log line; a good call open on the same route throughout goes on."""
    caplog.set_level(logging.INFO, logger="warmline")

    def wire(event: tp.InboundEvent) -> list[str | bytes]:
        message = case.encode(event)
        return [] if message is None else [message]

    def start(sid: str) -> list[str | bytes]:
        return [*wire(tp.Connected()), *wire(tp.Start(1, sid, "AC1", f"call-{sid}"))]

    def media(sid: str, i: int) -> tp.Media:
        return tp.Media(i, sid, "inbound", i, 20 * i, bytes([0xFF]) * 160)

    bad_media = case.bad_media or str(wire(media("S1", 2))[0]).replace('"payload":"', '"payload":"!!')
    bad_streams = [
        [*wire(tp.Connected()), *wire(media("S1", 2))],
        [*start("S1"), bad_media],
        [*start("S1"), "{not json"],
        [*start("S1"), '{"event":"nonsense"}'],
    ]
    served: list[str] = []

    async def quiet_bot(call: Any) -> None:
        served.append(call.start.call_sid)
        await call.ended.wait()

    async def main() -> None:
        settings = CarrierSettings(media_timeout_s=0.5, handshake_timeout_s=2.0)
        routes = case.routes(quiet_bot, CallSlots(max_calls=4), settings)
        app = Starlette(routes=routes)
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"ws://{host}:{port}{case.path}"
            async with connect(url) as survivor:
                for message in start("S0"):
                    await survivor.send(message)

                async def talk() -> None:
                    for i in range(2, 2000):
                        await survivor.send(wire(media("S0", i))[0])
                        await asyncio.sleep(0.1)

                talking = asyncio.create_task(talk(), name="test-survivor")
                for messages in bad_streams:
                    async with connect(url) as ws:
                        for message in messages:
                            await ws.send(message)
                        await asyncio.wait_for(ws.wait_closed(), 10)
                async with connect(url) as ws:  # a stream that goes silent
                    for message in start("S2"):
                        await ws.send(message)
                    await asyncio.wait_for(ws.wait_closed(), 10)
                talking.cancel()
                await asyncio.gather(talking, return_exceptions=True)
                assert not survivor.close_code, "the good call was dropped"

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("warmline")]
    name = case.name
    assert sum(f"stream refused ({name}_out_of_order)" in line for line in lines) == 1, lines
    assert sum(f"(protocol_error): {name}_bad_payload" in line for line in lines) == 1, lines
    assert sum(f"(protocol_error): {name}_malformed" in line for line in lines) == 2, lines
    assert sum("(media_timeout)" in line for line in lines) == 1, lines
    assert not own_errors(caplog.records)
    assert len(served) == 5  # the survivor and the four that started


def test_every_carrier_route_shares_one_call_limit_and_a_silent_socket_is_closed_at_the_bound() -> None:
    """One slot across Telnyx and Plivo: a started Telnyx call keeps a Plivo call out (1013), and
    a call another transport took from the same slots counts too; a socket that never starts is
    closed (1008)."""
    served: list[str] = []

    async def quiet_bot(call: Any) -> None:
        served.append(call.carrier)
        await call.ended.wait()

    def start(case: CarrierCase, sid: str) -> list[str | bytes]:
        events = (tp.Connected(), tp.Start(1, sid, "AC1", f"call-{sid}"))
        return [m for m in (case.encode(e) for e in events) if m is not None]

    telnyx, plivo = CARRIERS[0], CARRIERS[1]

    async def main() -> None:
        slots = CallSlots(max_calls=1)
        settings = CarrierSettings(handshake_timeout_s=1.0, media_timeout_s=30.0)
        app = Starlette(
            routes=[*telnyx.routes(quiet_bot, slots, settings), *plivo.routes(quiet_bot, slots, settings)]
        )
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            async with connect(f"ws://{host}:{port}/telnyx") as first:
                for message in start(telnyx, "S1"):
                    await first.send(message)
                for _ in range(100):
                    if served:
                        break
                    await asyncio.sleep(0.02)
                assert served == ["telnyx"]
                async with connect(f"ws://{host}:{port}/plivo") as second:
                    for message in start(plivo, "S2"):
                        await second.send(message)
                    await asyncio.wait_for(second.wait_closed(), 10)
                    assert second.close_code == 1013
                async with connect(f"ws://{host}:{port}/plivo") as silent:
                    await asyncio.wait_for(silent.wait_closed(), 10)
                    assert silent.close_code == 1008  # no start within the handshake bound
            for _ in range(100):  # the Telnyx call's slot comes back when it ends
                if not slots.live:
                    break
                await asyncio.sleep(0.02)
            assert slots.take("twilio-1")  # a call on another transport holds the one slot
            async with connect(f"ws://{host}:{port}/telnyx") as third:
                for message in start(telnyx, "S3"):
                    await third.send(message)
                await asyncio.wait_for(third.wait_closed(), 10)
                assert third.close_code == 1013
        assert served == ["telnyx"]

    asyncio.run(main())
