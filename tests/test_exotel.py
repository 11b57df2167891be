"""Exotel's Voicebot stream: golden messages both ways, linear PCM to and from mu-law, Basic auth."""

from __future__ import annotations

import asyncio
import base64
import json

import numpy as np
import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from transports.exotel import protocol as ex
from transports.exotel.server import ExotelSettings, basic_auth_ok, exotel_routes
from transports.exotel.stream import EXOTEL
from transports.media_stream.server import CallSlots
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.ws.settings import ServerSettings
from tts_service import g711

SID = "MZxxxxxxxxxxxxxxxxxxxxxxxx"
#: Exotel's documented start example
START = {
    "event": "start",
    "sequence_number": "1",
    "stream_sid": SID,
    "start": {
        "stream_sid": SID,
        "call_sid": "CAxxxxxxxxxxxxxxxxxxxxxxxx",
        "account_sid": "ACxxxxxxxxxxxxxxxxxxxxxxxx",
        "from": "+919876543210",
        "to": "+918047491899",
        "custom_parameters": {"key1": "value1"},
        "media_format": {"encoding": "audio/x-raw", "sample_rate": "8000", "bit_rate": "16"},
    },
}
#: 100 ms of a 440 Hz tone as Exotel sends it: 16-bit little-endian PCM at 8 kHz
TONE = (np.sin(2 * np.pi * 440 * np.arange(800) / 8000) * 8000).astype("<i2")


def test_the_documented_messages_parse_and_linear_audio_reaches_the_bot_as_mulaw() -> None:
    assert ex.parse_inbound('{"event": "connected"}') == tp.Connected()
    start = ex.parse_inbound(json.dumps(START))
    assert isinstance(start, tp.Start) and start.custom_parameters == {"key1": "value1"}
    payload = base64.b64encode(TONE.tobytes()).decode()
    media = {
        "event": "media",
        "sequence_number": "3",
        "stream_sid": SID,
        "media": {"chunk": "2", "timestamp": "200", "payload": payload},
    }
    event = ex.parse_inbound(json.dumps(media))
    assert isinstance(event, tp.Media) and (event.chunk, event.timestamp_ms) == (2, 200)
    assert event.payload == g711.encode(TONE.astype(np.int16)).tobytes()
    heard = g711.decode(event.payload).astype(np.float64)
    assert np.max(np.abs(heard - TONE)) < 8000 * 0.05  # mu-law's companding error, no more
    dtmf = {
        "event": "dtmf",
        "sequence_number": "7",
        "stream_sid": SID,
        "dtmf": {"digit": "5", "duration": "100"},
    }
    assert ex.parse_inbound(json.dumps(dtmf)) == tp.Dtmf(7, SID, "inbound", "5")
    mark = {"event": "mark", "sequence_number": "15", "stream_sid": SID, "mark": {"name": "f0"}}
    assert ex.parse_inbound(json.dumps(mark)) == tp.Mark(15, SID, "f0")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"event": "playAudio"}', "exotel_malformed"),
        (
            json.dumps(
                {
                    **START,
                    "start": {
                        **START["start"],
                        "media_format": {"encoding": "audio/x-raw", "sample_rate": "16000"},
                    },
                }
            ),
            "exotel_media_format",
        ),
        (
            json.dumps({"event": "media", "stream_sid": SID, "media": {"chunk": "1", "payload": "AA=="}}),
            "exotel_bad_payload",
        ),
    ],
)
def test_bad_messages_raise_with_an_exotel_code(text: str, code: str) -> None:
    with pytest.raises(tp.TwilioProtocolError) as raised:
        ex.parse_inbound(text)
    assert raised.value.code == code


def test_the_bots_frames_leave_as_linear_pcm_in_320_byte_multiples_and_marks() -> None:
    framer = EXOTEL.framer(tp.Start(1, SID, "AC", "CA"))
    mulaw = g711.encode(np.resize(TONE, 640).astype(np.int16)).tobytes()
    messages, name = framer.frame(mulaw)
    assert name == "f0" and len(messages) == tp.CHUNKS_PER_FRAME + 1
    media = [json.loads(m) for m in messages[:-1]]
    assert all(m["event"] == "media" and m["stream_sid"] == SID for m in media)
    pcm = b"".join(base64.b64decode(m["media"]["payload"]) for m in media)
    assert len(pcm) == 1280 and all(len(base64.b64decode(m["media"]["payload"])) == 320 for m in media)
    assert pcm == g711.decode(mulaw).astype("<i2").tobytes()
    assert json.loads(messages[-1]) == {"event": "mark", "stream_sid": SID, "mark": {"name": "f0"}}
    assert json.loads(framer.clear()) == {"event": "clear", "stream_sid": SID}
    assert ex.parse_outbound(messages[0]) == tp.OutboundMedia(SID, mulaw[:160])


def test_basic_auth_guards_the_stream_before_it_is_accepted() -> None:
    assert basic_auth_ok("key:tok", "Basic " + base64.b64encode(b"key:tok").decode())
    assert not basic_auth_ok("key:tok", "Basic " + base64.b64encode(b"key:other").decode())
    assert not basic_auth_ok("key:tok", "Bearer key:tok")
    assert not basic_auth_ok("key:tok", None)

    async def bot(call: object) -> None:
        raise AssertionError("no call may start")

    async def main() -> None:
        app = Starlette(routes=exotel_routes(bot, ExotelSettings(basic_auth="key:tok"), slots=CallSlots()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(f"ws://{host}:{port}/exotel"):
                    pass
            assert refused.value.response.status_code == 403
            headers = {"Authorization": "Basic " + base64.b64encode(b"key:tok").decode()}
            async with connect(f"ws://{host}:{port}/exotel", additional_headers=headers) as ws:
                await ws.send("{not json")  # accepted, then ended by its own bad message
                await asyncio.wait_for(ws.wait_closed(), 10)
                assert ws.close_code == 1008

    asyncio.run(main())
