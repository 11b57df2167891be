"""The Twilio Media Streams codec: golden messages both ways, and errors that say what is wrong."""

from __future__ import annotations

import base64
import json

import pytest

from transports.twilio import protocol as tp

SID = "MZ18ad3ab5a668481ce02b83e7395059f0"
CALL = "CA5ed3a4a7e2e4a5b0d5e3f2c1b0a09f8e"
ACCOUNT = "AC3bc0a37e8a4c2d1b5e6f7a8b9c0d1e2f"
CHUNK = bytes(range(160))
B64 = base64.b64encode(CHUNK).decode()

#: Twilio's messages, character for character as a carrier sends them (numbers in strings)
GOLDEN_CONNECTED = '{"event": "connected", "protocol": "Call", "version": "1.0.0"}'
GOLDEN_START = json.dumps(
    {
        "event": "start",
        "sequenceNumber": "1",
        "start": {
            "accountSid": ACCOUNT,
            "streamSid": SID,
            "callSid": CALL,
            "tracks": ["inbound"],
            "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
            "customParameters": {"FirstName": "Jane", "RemoteParty": "Bob"},
        },
        "streamSid": SID,
    }
)
GOLDEN_MEDIA = json.dumps(
    {
        "event": "media",
        "sequenceNumber": "3",
        "media": {"track": "inbound", "chunk": "1", "timestamp": "5", "payload": B64},
        "streamSid": SID,
    }
)
GOLDEN_MARK = json.dumps({"event": "mark", "sequenceNumber": "4", "streamSid": SID, "mark": {"name": "f0"}})
GOLDEN_DTMF = json.dumps(
    {
        "event": "dtmf",
        "streamSid": SID,
        "sequenceNumber": "5",
        "dtmf": {"track": "inbound_track", "digit": "1"},
    }
)
GOLDEN_STOP = json.dumps(
    {
        "event": "stop",
        "sequenceNumber": "6",
        "stop": {"accountSid": ACCOUNT, "callSid": CALL},
        "streamSid": SID,
    }
)


def test_golden_carrier_messages_parse_to_their_events() -> None:
    """Each Twilio message shape parses to its event, numbers and base64 decoded."""
    assert tp.parse_inbound(GOLDEN_CONNECTED) == tp.Connected("Call", "1.0.0")
    assert tp.parse_inbound(GOLDEN_START) == tp.Start(
        1, SID, ACCOUNT, CALL, ("inbound",), tp.MediaFormat(), {"FirstName": "Jane", "RemoteParty": "Bob"}
    )
    assert tp.parse_inbound(GOLDEN_MEDIA) == tp.Media(3, SID, "inbound", 1, 5, CHUNK)
    assert tp.parse_inbound(GOLDEN_MARK) == tp.Mark(4, SID, "f0")
    assert tp.parse_inbound(GOLDEN_DTMF) == tp.Dtmf(5, SID, "inbound_track", "1")
    assert tp.parse_inbound(GOLDEN_STOP) == tp.Stop(6, SID, ACCOUNT, CALL)


def test_encode_inbound_round_trips_every_event_with_twilio_shapes() -> None:
    """Encoding a carrier event gives Twilio's JSON (numbers as strings) that parses back to it."""
    for golden in (GOLDEN_CONNECTED, GOLDEN_START, GOLDEN_MEDIA, GOLDEN_MARK, GOLDEN_DTMF, GOLDEN_STOP):
        event = tp.parse_inbound(golden)
        encoded = tp.encode_inbound(event)
        assert json.loads(encoded) == json.loads(golden)
        assert tp.parse_inbound(encoded) == event


def test_outbound_media_mark_and_clear_are_exactly_twilios_shapes() -> None:
    """The bot's media, mark and clear messages are the documented JSON, and parse back."""
    media = tp.encode_outbound(tp.OutboundMedia(SID, CHUNK))
    mark = tp.encode_outbound(tp.OutboundMark(SID, "f7"))
    clear = tp.encode_outbound(tp.Clear(SID))
    assert media == '{"event":"media","streamSid":"' + SID + '","media":{"payload":"' + B64 + '"}}'
    assert mark == '{"event":"mark","streamSid":"' + SID + '","mark":{"name":"f7"}}'
    assert clear == '{"event":"clear","streamSid":"' + SID + '"}'
    assert tp.parse_outbound(media) == tp.OutboundMedia(SID, CHUNK)
    assert tp.parse_outbound(mark) == tp.OutboundMark(SID, "f7")
    assert tp.parse_outbound(clear) == tp.Clear(SID)


@pytest.mark.parametrize(
    ("message", "error", "words"),
    [
        (b"\x00\x01", tp.MalformedMessageError, "not binary"),
        ("{oops", tp.MalformedMessageError, "not JSON"),
        ("[1, 2]", tp.MalformedMessageError, "JSON object"),
        ("[" * 5000, tp.MalformedMessageError, "nested too deeply"),  # not a RecursionError
        ('{"event": "media", "x": ' + "[" * 5000 + "]" * 5000 + "}", tp.MalformedMessageError, "nested"),
        (
            '{"event": "hangup", "sequenceNumber": "2", "streamSid": "MZ"}',
            tp.MalformedMessageError,
            "unknown",
        ),
        (GOLDEN_MEDIA.replace('"3"', '"three"'), tp.MalformedMessageError, "sequenceNumber"),
        (GOLDEN_MEDIA.replace(B64, "not base64!"), tp.BadPayloadError, "not base64"),
        (GOLDEN_MEDIA.replace(B64, base64.b64encode(bytes(159)).decode()), tp.BadPayloadError, "159 bytes"),
        (GOLDEN_MEDIA.replace(B64, ""), tp.BadPayloadError, "non-empty"),
        (GOLDEN_DTMF.replace('"digit": "1"', '"digit": "x"'), tp.MalformedMessageError, "keypad"),
        (GOLDEN_START.replace("audio/x-mulaw", "audio/l16"), tp.UnsupportedMediaFormatError, "audio/l16"),
        (
            GOLDEN_START.replace('"sampleRate": 8000', '"sampleRate": 16000'),
            tp.UnsupportedMediaFormatError,
            "16000",
        ),
        (GOLDEN_START.replace('"Jane"', "3"), tp.MalformedMessageError, "customParameters"),
    ],
)
def test_malformed_messages_raise_errors_that_say_what_is_wrong(
    message: str | bytes, error: type[tp.TwilioProtocolError], words: str
) -> None:
    """Each malformed message raises its own TwilioProtocolError subclass, naming the problem."""
    with pytest.raises(error, match=words):
        tp.parse_inbound(message)


def test_errors_carry_stable_codes() -> None:
    """Every protocol error has a code a log line or a metric can switch on."""
    codes = {
        cls.code
        for cls in (
            tp.TwilioProtocolError,
            tp.MalformedMessageError,
            tp.OutOfOrderError,
            tp.BadPayloadError,
            tp.UnsupportedMediaFormatError,
        )
    }
    assert codes == {
        "twilio_protocol",
        "twilio_malformed",
        "twilio_out_of_order",
        "twilio_bad_payload",
        "twilio_media_format",
    }
