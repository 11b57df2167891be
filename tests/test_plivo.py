"""Plivo audio streams: golden messages both ways, the stream's order, the V3 signature and the
answer XML."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from starlette.applications import Starlette
from webhooks import no_stream, post

from transports.media_stream.server import CallSlots, CarrierSettings
from transports.media_stream.stream import IGNORED
from transports.plivo import protocol as pv
from transports.plivo.server import PlivoSettings, plivo_routes
from transports.plivo.signature import compute_signature, signed_text, valid_signature
from transports.plivo.stream import PlivoStream
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.twilio.stream import StreamState
from transports.ws.settings import ServerSettings

SID = "87654321-4321-4321-4321-cba987654321"
#: Plivo's documented start example
START = {
    "event": "start",
    "sequenceNumber": 1,
    "start": {
        "callId": "12345678-1234-1234-1234-123456789abc",
        "streamId": SID,
        "accountId": "MAXXXXXXXXXXXXXXXXXX",
        "tracks": ["inbound"],
        "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000},
    },
    "extra_headers": "userId=12345;sessionId=abc-xyz",
}
PAYLOAD = bytes(range(160))


def media(seq: int, chunk: int) -> str:
    body = {
        "track": "inbound",
        "timestamp": "1705312200000",
        "chunk": chunk,
        "payload": base64.b64encode(PAYLOAD).decode(),
    }
    return json.dumps({"event": "media", "sequenceNumber": seq, "streamId": SID, "media": body})


def test_the_documented_messages_parse_into_twilios_events() -> None:
    start = pv.parse_inbound(json.dumps(START))
    assert isinstance(start, tp.Start)
    assert (start.stream_sid, start.call_sid, start.account_sid) == (
        SID,
        START["start"]["callId"],
        "MAXXXXXXXXXXXXXXXXXX",
    )
    assert start.custom_parameters == {"userId": "12345", "sessionId": "abc-xyz"}
    assert pv.parse_inbound(media(42, 41)) == tp.Media(42, SID, "inbound", 41, 1705312200000, PAYLOAD)
    played = {"event": "playedStream", "streamId": SID, "name": "customer greeting audio"}
    assert pv.parse_inbound(json.dumps(played)) == tp.Mark(0, SID, "customer greeting audio")
    assert (
        pv.parse_inbound(json.dumps({"event": "clearedAudio", "sequenceNumber": 9, "streamId": SID}))
        is IGNORED
    )
    dtmf = {"event": "dtmf", "sequenceNumber": 7, "streamId": SID, "dtmf": {"track": "inbound", "digit": "5"}}
    assert pv.parse_inbound(json.dumps(dtmf)) == tp.Dtmf(7, SID, "inbound", "5")
    assert pv.extra_headers("test1=12,test2=123") == {"test1": "12", "test2": "123"}  # the XML docs' form


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("[]", "plivo_malformed"),
        ('{"event": "connected"}', "plivo_malformed"),  # Plivo sends none
        ('{"event": "playedStream", "streamId": "S"}', "plivo_malformed"),
        (media(2, 1).replace('"payload": "', '"payload": "%%'), "plivo_bad_payload"),
        (
            json.dumps(
                {
                    **START,
                    "start": {
                        **START["start"],
                        "mediaFormat": {"encoding": "audio/x-l16", "sampleRate": 16000},
                    },
                }
            ),
            "plivo_media_format",
        ),
    ],
)
def test_bad_messages_raise_with_a_plivo_code(text: str, code: str) -> None:
    with pytest.raises(tp.TwilioProtocolError) as raised:
        pv.parse_inbound(text)
    assert raised.value.code == code


def test_the_bots_messages_are_plivos_shapes_and_the_carrier_reads_them_back() -> None:
    assert json.loads(pv.encode_outbound(tp.OutboundMedia(SID, b"\xff\x00"))) == {
        "event": "playAudio",
        "media": {"contentType": "audio/x-mulaw", "sampleRate": 8000, "payload": "/wA="},
    }
    assert json.loads(pv.encode_outbound(tp.OutboundMark(SID, "f3"))) == {
        "event": "checkpoint",
        "streamId": SID,
        "name": "f3",
    }
    assert json.loads(pv.encode_outbound(tp.Clear(SID))) == {"event": "clearAudio", "streamId": SID}
    for message in (tp.OutboundMedia(SID, PAYLOAD), tp.OutboundMark(SID, "f3"), tp.Clear(SID)):
        assert pv.parse_outbound(pv.encode_outbound(message), SID) == message


def test_start_opens_the_stream_and_a_playedstream_without_a_stream_id_is_the_streams() -> None:
    stream = PlivoStream()
    with pytest.raises(tp.OutOfOrderError) as raised:
        stream.receive(media(2, 1))
    assert raised.value.code == "plivo_out_of_order"
    assert stream.state is StreamState.AWAIT_CONNECTED  # unchanged by the error
    stream.receive(json.dumps(START))
    assert stream.state is StreamState.STREAMING
    assert isinstance(stream.receive(media(2, 1)), tp.Media)
    mark = stream.receive(json.dumps({"event": "playedStream", "name": "f0"}))
    assert mark == tp.Mark(3, SID, "f0")


def test_the_v3_signature_covers_url_query_body_and_nonce() -> None:
    url = "https://bot.example.com/plivo/answer?b=2&a=1"
    form = {"To": ["15550199"], "From": ["15550100"], "CallUUID": ["abc"]}
    assert signed_text("POST", url, form, "n0") == (
        "https://bot.example.com/plivo/answer?a=1&b=2.CallUUIDabcFrom15550100To15550199.n0"
    )
    assert (
        signed_text("POST", "https://h/p", form, "n0") == "https://h/p?CallUUIDabcFrom15550100To15550199.n0"
    )
    assert signed_text("GET", "https://h/p?b=2", {"a": ["1"]}, "n0") == "https://h/p?a=1&b=2.n0"
    signature = compute_signature("token", "POST", url, form, "n0")
    assert valid_signature("token", "POST", url, form, "n0", signature)
    assert valid_signature("token", "POST", url, form, "n0", f"other,{signature}")  # a token rotation
    assert not valid_signature("token", "POST", url, {**form, "To": ["1"]}, "n0", signature)
    assert not valid_signature("token", "POST", url, form, "n1", signature)
    assert not valid_signature("other", "POST", url, form, "n0", signature)
    assert not valid_signature("token", "POST", url, form, None, signature)


def test_the_answer_xml_streams_the_call_and_refuses_an_unsigned_request() -> None:
    settings = PlivoSettings(
        auth_token="tok", parameters={"token": "t0k"}, carrier=CarrierSettings(public_host="bot.example.com")
    )

    async def main() -> None:
        app = Starlette(routes=plivo_routes(no_stream, settings, slots=CallSlots()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"http://{host}:{port}/plivo/answer"
            body = b"CallUUID=abc-1&From=%2B15550100&To=%2B15550199"
            form = {"CallUUID": ["abc-1"], "From": ["+15550100"], "To": ["+15550199"]}
            signature = compute_signature("tok", "POST", "https://bot.example.com/plivo/answer", form, "n0")
            headers = {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Plivo-Signature-V3-Nonce": "n0",
            }
            status, text = await asyncio.to_thread(
                post, url, body, {**headers, "X-Plivo-Signature-V3": signature}
            )
            assert status == 200, text
            assert (
                '<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" '
                'extraHeaders="token=t0k,CallUUID=abc1,From=15550100,To=15550199">wss://bot.example.com/plivo</Stream>'
            ) in text
            assert (await asyncio.to_thread(post, url, body, headers))[0] == 403
            tampered = {**headers, "X-Plivo-Signature-V3": signature}
            assert (await asyncio.to_thread(post, url, body + b"&x=1", tampered))[0] == 403

    asyncio.run(main())
