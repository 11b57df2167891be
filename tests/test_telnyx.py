"""Telnyx media streaming: golden messages both ways, the stream's order, the Ed25519 webhook
signature and the ``/texml`` answer."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from starlette.applications import Starlette
from webhooks import no_stream, post

from transports.media_stream.server import CallSlots, CarrierSettings
from transports.media_stream.stream import IGNORED
from transports.serve import serving
from transports.telnyx import protocol as tx
from transports.telnyx.server import TelnyxSettings, telnyx_routes
from transports.telnyx.signature import public_key, valid_signature
from transports.telnyx.stream import TelnyxStream
from transports.twilio import protocol as tp
from transports.twilio.stream import StreamState
from transports.ws.settings import ServerSettings

SID = "32DE0DEA-53CB-4B21-89A4-9E1819C043BC"
#: shaped as the examples of Telnyx's "Stream call media over WebSocket" reference
START = {
    "event": "start",
    "sequence_number": "1",
    "stream_id": SID,
    "start": {
        "user_id": "3E6F995F-85F7-4705-9741-53B116D28237",
        "call_control_id": "v2:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9BborherQ",
        "call_session_id": "ff55a038-6f5d-11ef-9692-02420aeffb1f",
        "from": "+13122010094",
        "to": "+13122123456",
        "tags": ["TAG1", "TAG2"],
        "client_state": "aGF2ZSBhIG5pY2UgZGF5ID1d",
        "custom_parameters": {"customer_id": "customer_123"},
        "media_format": {"encoding": "PCMU", "sample_rate": 8000, "channels": 1},
    },
}
PAYLOAD = bytes(range(160))


def media(seq: int, chunk: int, track: str = "inbound") -> str:
    body = {
        "track": track,
        "chunk": str(chunk),
        "timestamp": str(20 * chunk),
        "payload": base64.b64encode(PAYLOAD).decode(),
    }
    return json.dumps({"event": "media", "sequence_number": str(seq), "stream_id": SID, "media": body})


def test_the_documented_start_media_mark_dtmf_and_stop_parse_into_twilios_events() -> None:
    start = tx.parse_inbound(json.dumps(START))
    assert isinstance(start, tp.Start)
    assert start.stream_sid == SID and start.call_sid.startswith("v2:T02")
    assert start.custom_parameters == {"customer_id": "customer_123"}
    assert tx.parse_inbound('{"event": "connected", "version": "1.0.0"}') == tp.Connected("Call", "1.0.0")
    assert tx.parse_inbound(media(4, 2)) == tp.Media(4, SID, "inbound", 2, 40, PAYLOAD)
    assert tx.parse_inbound(media(5, 3, track="outbound")) is IGNORED
    mark = {"event": "mark", "sequence_number": "6", "stream_id": SID, "mark": {"name": "f0"}}
    assert tx.parse_inbound(json.dumps(mark)) == tp.Mark(6, SID, "f0")
    dtmf = {
        "event": "dtmf",
        "sequence_number": "7",
        "stream_id": SID,
        "occurred_at": "x",
        "dtmf": {"digit": "#"},
    }
    assert tx.parse_inbound(json.dumps(dtmf)) == tp.Dtmf(7, SID, "inbound", "#")
    stop = {
        "event": "stop",
        "sequence_number": "8",
        "stream_id": SID,
        "stop": {"user_id": "u", "call_control_id": "v2:c"},
    }
    assert tx.parse_inbound(json.dumps(stop)) == tp.Stop(8, SID, "-", "v2:c")
    error = {"event": "error", "stream_id": SID, "payload": {"code": 100002, "title": "Unknown error"}}
    assert tx.parse_inbound(json.dumps(error)) is IGNORED


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "telnyx_malformed"),
        ('{"event": "hello"}', "telnyx_malformed"),
        ('{"event": "mark", "stream_id": "S", "mark": {}}', "telnyx_malformed"),
        ('{"event": "dtmf", "stream_id": "S", "dtmf": {"digit": "x"}}', "telnyx_malformed"),
        (media(2, 1).replace('"payload": "', '"payload": "!!'), "telnyx_bad_payload"),
        (
            json.dumps(
                {
                    **START,
                    "start": {**START["start"], "media_format": {"encoding": "PCMA", "sample_rate": 8000}},
                }
            ),
            "telnyx_media_format",
        ),
    ],
)
def test_bad_messages_raise_with_a_telnyx_code(text: str, code: str) -> None:
    with pytest.raises(tp.TwilioProtocolError) as raised:
        tx.parse_inbound(text)
    assert raised.value.code == code


def test_the_bots_messages_are_telnyxs_shapes_and_the_carrier_reads_them_back() -> None:
    assert (
        tx.encode_outbound(tp.OutboundMedia(SID, b"\xff\x00"))
        == '{"event":"media","media":{"payload":"/wA="}}'
    )
    assert tx.encode_outbound(tp.OutboundMark(SID, "f3")) == '{"event":"mark","mark":{"name":"f3"}}'
    assert tx.encode_outbound(tp.Clear(SID)) == '{"event":"clear"}'
    for message in (tp.OutboundMedia(SID, PAYLOAD), tp.OutboundMark(SID, "f3"), tp.Clear(SID)):
        assert tx.parse_outbound(tx.encode_outbound(message), SID) == message


def test_the_stream_keeps_twilios_order_and_drops_a_late_chunk_without_ending() -> None:
    stream = TelnyxStream()
    with pytest.raises(tp.OutOfOrderError) as raised:
        stream.receive(media(2, 1))  # media before connected and start
    assert raised.value.code == "telnyx_out_of_order"
    stream.receive('{"event": "connected", "version": "1.0.0"}')
    stream.receive(json.dumps(START))
    assert stream.state is StreamState.STREAMING
    first = stream.receive(media(3, 5))
    assert isinstance(first, tp.Media) and first.chunk == 1
    assert stream.receive(media(2, 4)) is IGNORED and stream.late_media == 1  # Telnyx: order not guaranteed
    assert isinstance(stream.receive(media(4, 6)), tp.Media)
    stream.receive(json.dumps({"event": "stop", "sequence_number": "9", "stream_id": SID, "stop": {}}))
    with pytest.raises(tp.OutOfOrderError):
        stream.receive(media(10, 7))
    with pytest.raises(tp.OutOfOrderError):
        other = TelnyxStream()
        other.receive('{"event": "connected", "version": "1.0.0"}')
        other.receive(json.dumps(START))
        other.receive(media(2, 1).replace(SID, "another-stream"))


def keypair() -> tuple[Ed25519PrivateKey, str]:
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return private, base64.b64encode(raw).decode()


def sign(private: Ed25519PrivateKey, timestamp: str, body: bytes) -> str:
    return base64.b64encode(private.sign(timestamp.encode() + b"|" + body)).decode()


def test_the_ed25519_signature_is_checked_over_timestamp_and_body_and_its_age() -> None:
    private, key_b64 = keypair()
    key = public_key(key_b64)
    body = b"CallSid=v3%3Aabc&From=%2B15550100"
    signature = sign(private, "1700000000", body)
    assert valid_signature(key, "1700000000", body, signature, now=1700000100)
    assert not valid_signature(key, "1700000000", body + b"x", signature, now=1700000100)
    assert not valid_signature(key, "1700000000", body, signature, now=1700000000 + 301)  # replayed late
    assert not valid_signature(key, "1700000001", body, signature, now=1700000100)
    assert not valid_signature(key, None, body, signature, now=1700000100)
    assert not valid_signature(key, "1700000000", body, "not base64!", now=1700000100)
    assert not valid_signature(public_key(keypair()[1]), "1700000000", body, signature, now=1700000100)
    with pytest.raises(ValueError):
        public_key("c2hvcnQ=")


def test_texml_connects_the_call_to_the_stream_and_refuses_an_unsigned_webhook() -> None:
    private, key_b64 = keypair()
    now = 1700000000.0
    settings = TelnyxSettings(
        public_key=key_b64,
        parameters={"token": "t0k"},
        carrier=CarrierSettings(public_host="bot.example.com"),
        wall_clock=lambda: now,
    )

    async def main() -> None:
        app = Starlette(routes=telnyx_routes(no_stream, settings, slots=CallSlots()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"http://{host}:{port}/texml"
            body = b"CallSid=v3%3Aabc&From=%2B15550100&To=%2B15550199"
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            signed = {
                **form,
                "telnyx-timestamp": "1700000000",
                "telnyx-signature-ed25519": sign(private, "1700000000", body),
            }
            status, text = await asyncio.to_thread(post, url, body, signed)
            assert status == 200, text
            assert (
                '<Stream url="wss://bot.example.com/telnyx" bidirectionalMode="rtp" bidirectionalCodec="PCMU"'
                in text
            )
            for name, value in (
                ("token", "t0k"),
                ("CallSid", "v3:abc"),
                ("From", "+15550100"),
                ("To", "+15550199"),
            ):
                assert f'<Parameter name="{name}" value="{value}"/>' in text
            assert (await asyncio.to_thread(post, url, body, form))[0] == 403
            assert (await asyncio.to_thread(post, url, body + b"&x=1", signed))[0] == 403

    asyncio.run(main())
