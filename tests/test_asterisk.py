"""Asterisk's ``chan_websocket`` (JSON control messages): golden messages both ways, flow control."""

from __future__ import annotations

import json

import pytest

from transports.asterisk import protocol as ak
from transports.asterisk.stream import ASTERISK, AsteriskStream
from transports.media_stream.stream import BINARY, IGNORED
from transports.twilio import protocol as tp
from transports.twilio.stream import StreamState

#: the MEDIA_START of Asterisk's chan_websocket JSON format (its commit message's example)
MEDIA_START = {
    "event": "MEDIA_START",
    "connection_id": "media_connection1",
    "channel": "WebSocket/media_connection1/0x5140001a0040",
    "channel_id": "1761245643.1",
    "format": "ulaw",
    "optimal_frame_size": 160,
    "ptime": 20,
    "channel_variables": {
        "DIALEDPEERNUMBER": "media_connection1/c(ulaw)",
        "MEDIA_WEBSOCKET_CONNECTION_ID": "media_connection1",
    },
}


def test_media_start_opens_the_stream_and_binary_audio_marks_keys_and_flow_control_follow() -> None:
    stream = AsteriskStream()
    with pytest.raises(tp.OutOfOrderError) as raised:
        stream.receive(bytes(160))
    assert raised.value.code == "asterisk_out_of_order"
    start = stream.receive(json.dumps(MEDIA_START))
    assert isinstance(start, tp.Start) and stream.state is StreamState.STREAMING
    assert (
        start.stream_sid == "1761245643.1"
        and start.custom_parameters["MEDIA_WEBSOCKET_CONNECTION_ID"] == "media_connection1"
    )
    frames = [stream.receive(bytes([0xFF]) * 160) for _ in range(2)]
    assert [f.chunk for f in frames if isinstance(f, tp.Media)] == [1, 2]
    processed = {"event": "MEDIA_MARK_PROCESSED", "channel_id": "1761245643.1", "correlation_id": "f0"}
    assert stream.receive(json.dumps(processed)) == tp.Mark(4, "1761245643.1", "f0")
    assert stream.receive('{"event": "DTMF_END", "channel_id": "1761245643.1", "digit": "9"}') == tp.Dtmf(
        5, "1761245643.1", "inbound", "9"
    )
    assert stream.receive('{"event": "MEDIA_XOFF", "channel_id": "1761245643.1"}') is IGNORED and stream.xoff
    assert (
        stream.receive('{"event": "MEDIA_XON", "channel_id": "1761245643.1"}') is IGNORED and not stream.xoff
    )
    assert stream.receive('{"event": "QUEUE_DRAINED", "channel_id": "1761245643.1"}') is IGNORED


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (json.dumps({**MEDIA_START, "format": "slin16"}), "asterisk_media_format"),
        ('{"event": "MEDIA_END"}', "asterisk_malformed"),
        ("MEDIA_START connection_id:c1 channel:WebSocket/c1", "asterisk_malformed"),  # the plain-text format
        (b"", "asterisk_bad_payload"),
    ],
)
def test_bad_messages_raise_with_an_asterisk_code(data: str | bytes, code: str) -> None:
    with pytest.raises(tp.TwilioProtocolError) as raised:
        ak.parse_inbound(data)
    assert raised.value.code == code


def test_the_bots_frames_leave_as_binary_ulaw_then_mark_media_and_the_clear_is_flush_media() -> None:
    framer = ASTERISK.framer(tp.Start(0, "1761245643.1", "c1", "1761245643.1"))
    messages, name = framer.frame(bytes(range(256)) * 2 + bytes(128))
    assert name == "f0" and all(m.startswith(BINARY) for m in messages[:-1]) and len(messages) == 5
    assert json.loads(messages[-1]) == {"command": "MARK_MEDIA", "correlation_id": "f0"}
    assert json.loads(framer.clear()) == {"command": "FLUSH_MEDIA"}
    for message in (tp.OutboundMark("1761245643.1", "f0"), tp.Clear("1761245643.1")):
        assert ak.parse_outbound(ak.encode_outbound(message), "1761245643.1") == message
