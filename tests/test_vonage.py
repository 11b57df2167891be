"""Vonage's Voice API WebSocket: golden messages both ways, 16 kHz frames, the JWT and the NCCO."""

from __future__ import annotations

import asyncio
import hashlib
import json

import numpy as np
import pytest
from starlette.applications import Starlette
from webhooks import get, no_stream

from transports.media_stream.audio import Decimator, Upsampler
from transports.media_stream.server import CallSlots, CarrierSettings
from transports.media_stream.stream import BINARY, IGNORED
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.twilio.stream import StreamState
from transports.vonage import protocol as vg
from transports.vonage.server import VonageSettings, vonage_routes
from transports.vonage.signature import sign_jwt, valid_jwt
from transports.vonage.stream import VONAGE, VonageStream
from transports.ws.settings import ServerSettings
from tts_service import g711

UUID = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab"
CONNECTED = {
    "event": "websocket:connected",
    "content-type": "audio/l16;rate=16000",
    "uuid": UUID,
    "from": "447700900000",
    "token": "t0k",
}


def tone(rate: int, ms: int, hz: float = 440.0) -> np.ndarray:
    n = rate * ms // 1000
    return (np.sin(2 * np.pi * hz * np.arange(n) / rate) * 8000).astype(np.int16)


def test_the_connected_event_opens_the_stream_with_the_nccos_headers_and_binary_audio_follows() -> None:
    stream = VonageStream()
    with pytest.raises(tp.OutOfOrderError) as raised:
        stream.receive(bytes(640))  # audio before websocket:connected
    assert raised.value.code == "vonage_out_of_order"
    start = stream.receive(json.dumps(CONNECTED))
    assert isinstance(start, tp.Start) and stream.state is StreamState.STREAMING
    assert start.stream_sid == UUID and start.custom_parameters == {
        "uuid": UUID,
        "from": "447700900000",
        "token": "t0k",
    }
    media = [stream.receive(tone(16000, 20).astype("<i2").tobytes()) for _ in range(3)]
    assert all(isinstance(m, tp.Media) and len(m.payload) == 160 for m in media)  # 20 ms at 8 kHz mu-law
    assert [m.chunk for m in media if isinstance(m, tp.Media)] == [1, 2, 3]
    assert stream.receive('{"event": "websocket:notify", "payload": {"name": "f0"}}') == tp.Mark(
        5, UUID, "f0"
    )
    assert stream.receive('{"event": "websocket:cleared"}') is IGNORED
    assert stream.receive('{"event": "websocket:dtmf", "digit": "7", "duration": 250}') == tp.Dtmf(
        6, UUID, "inbound", "7"
    )


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ('{"event": "websocket:hello"}', "vonage_malformed"),
        (json.dumps({**CONNECTED, "content-type": "audio/l16;rate=8000"}), "vonage_media_format"),
        (bytes(641), "vonage_bad_payload"),
        ('{"event": "websocket:notify", "payload": {}}', "vonage_malformed"),
    ],
)
def test_bad_messages_raise_with_a_vonage_code(data: str | bytes, code: str) -> None:
    with pytest.raises(tp.TwilioProtocolError) as raised:
        vg.parse_inbound(data)
    assert raised.value.code == code


def test_the_bots_frames_leave_as_20_ms_binary_frames_at_16_khz_and_a_notify() -> None:
    framer = VONAGE.framer(tp.Start(0, UUID, "-", UUID))
    messages, name = framer.frame(g711.encode(tone(8000, 80)).tobytes())
    assert name == "f0" and len(messages) == tp.CHUNKS_PER_FRAME + 1
    assert all(m.startswith(BINARY) for m in messages[:-1])  # sent by CarrierCall as binary frames
    assert json.loads(messages[-1]) == {"action": "notify", "payload": {"name": "f0"}}
    assert json.loads(framer.clear()) == {"action": "clear"}
    assert vg.encode_outbound(tp.OutboundMedia(UUID, b"\x01\x02")) == b"\x01\x02"


def test_the_resamplers_keep_exact_lengths_and_a_tone_through_16_khz_and_back() -> None:
    up, down = Upsampler(), Decimator()
    source = tone(8000, 1000)
    wide = np.concatenate([up.process(source[i : i + 160]) for i in range(0, 8000, 160)])
    back = np.concatenate([down.process(wide[i : i + 320]) for i in range(0, 16000, 320)])
    assert len(wide) == 16000 and len(back) == 8000
    delay = int(np.argmax(np.correlate(back[:2000].astype(float), source[:200].astype(float), "valid")))
    aligned = back[delay : delay + 7000].astype(float) - source[:7000]
    assert delay < 40 and np.sqrt(np.mean(aligned**2)) < 0.05 * 8000


def test_the_signed_webhook_jwt_is_checked() -> None:
    body = b'{"uuid": "u1"}'
    token = sign_jwt("secret", {"iat": 1700000000, "payload_hash": hashlib.sha256(body).hexdigest()})
    assert valid_jwt("secret", f"Bearer {token}", body, now=1700000100)
    assert not valid_jwt("other", f"Bearer {token}", body, now=1700000100)
    assert not valid_jwt("secret", f"Bearer {token}", body + b" ", now=1700000100)
    assert not valid_jwt("secret", f"Bearer {token}", body, now=1700000000 + 301)
    assert not valid_jwt("secret", token, body, now=1700000100)
    head, claims, _ = sign_jwt("secret", {"iat": 1700000000}).split(".")
    none_alg = sign_jwt("secret", {"iat": 1700000000}).replace(head, "eyJhbGciOiJub25lIn0", 1)
    assert not valid_jwt("secret", f"Bearer {none_alg}", b"", now=1700000000)
    assert valid_jwt("secret", "Bearer " + sign_jwt("secret", {"iat": 1700000000}), b"", now=1700000000)
    del claims


def test_the_answer_url_returns_an_ncco_to_the_stream_and_refuses_an_unsigned_request() -> None:
    now = 1700000000.0
    settings = VonageSettings(
        signature_secret="secret",
        parameters={"token": "t0k"},
        carrier=CarrierSettings(public_host="bot.example.com"),
        wall_clock=lambda: now,
    )

    async def main() -> None:
        app = Starlette(routes=vonage_routes(no_stream, settings, slots=CallSlots()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"http://{host}:{port}/vonage/answer?uuid=u1&from=447700900000&to=447700900001"
            signed = {"Authorization": "Bearer " + sign_jwt("secret", {"iat": int(now)})}
            status, text = await asyncio.to_thread(get, url, signed)
            assert status == 200, text
            assert json.loads(text) == [
                {
                    "action": "connect",
                    "endpoint": [
                        {
                            "type": "websocket",
                            "uri": "wss://bot.example.com/vonage",
                            "content-type": "audio/l16;rate=16000",
                            "headers": {
                                "token": "t0k",
                                "uuid": "u1",
                                "from": "447700900000",
                                "to": "447700900001",
                            },
                        }
                    ],
                }
            ]
            assert (await asyncio.to_thread(get, url, {}))[0] == 403

    asyncio.run(main())
