"""Protocol v1 as pure functions: commands parsed, events and audio encoded, garbage refused."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tts_service import g711
from tts_service import wire as wp


def code_of(message: str | bytes, **kwargs: int) -> str:
    with pytest.raises(wp.ProtocolError) as info:
        wp.parse_command(message, **kwargs)
    return info.value.code


# -- commands ---------------------------------------------------------------------------------


def test_dia2stream_commands_parse() -> None:
    """The four dia2stream commands parse, speaker tags and all."""
    assert wp.parse_command('{"cmd": "start", "text": "[S1] Hello world!"}') == wp.StartCommand(
        "[S1] Hello world!"
    )
    assert wp.parse_command('{"cmd": "inject", "text": "[S1] More."}') == wp.InjectCommand("[S1] More.")
    assert wp.parse_command('{"cmd": "pause"}') == wp.PauseCommand()
    assert wp.parse_command('{"cmd": "reset"}') == wp.ResetCommand()


def test_extension_commands_parse() -> None:
    """flush, resume and a full config parse into their dataclasses."""
    assert wp.parse_command('{"cmd": "flush"}') == wp.FlushCommand()
    assert wp.parse_command('{"cmd": "resume"}') == wp.ResumeCommand()
    config = wp.parse_command(
        json.dumps(
            {
                "cmd": "config",
                "voice": "heart",
                "sample_rate": 8000,
                "encoding": "mulaw",
                "speed": 1,
                "word_timestamps": True,
                "streaming": False,
            }
        )
    )
    assert config == wp.ConfigureCommand("heart", 8000, wp.Encoding.MULAW, 1.0, True, False)


def test_start_text_is_optional_and_unknown_fields_are_ignored() -> None:
    """start without text is an empty turn; fields a later protocol may add do not break v1."""
    assert wp.parse_command('{"cmd": "start"}') == wp.StartCommand("")
    assert wp.parse_command('{"cmd": "pause", "reason": "barge-in"}') == wp.PauseCommand()
    assert wp.parse_command('{"cmd": "config"}') == wp.ConfigureCommand()


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (b'{"cmd": "start"}', "binary_not_accepted"),
        ("not json", "bad_json"),
        ("", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('"start"', "bad_json"),
        ('{"cmd": "start", "text": NaN}', "bad_json"),
        ("[" * 100_000 + "]" * 100_000, "message_too_large"),
        ("[" * 30_000 + "]" * 30_000, "bad_json"),
        ('{"text": "hi"}', "unknown_command"),
        ('{"cmd": "sing"}', "unknown_command"),
        ('{"cmd": 5}', "bad_type"),
        ('{"cmd": null}', "bad_type"),
        ('{"cmd": "start", "text": 5}', "bad_type"),
        ('{"cmd": "start", "text": null}', "bad_type"),
        ('{"cmd": "inject"}', "bad_type"),
        ('{"cmd": "config", "sample_rate": 11025}', "unsupported_sample_rate"),
        ('{"cmd": "config", "sample_rate": "8000"}', "bad_type"),
        ('{"cmd": "config", "sample_rate": true}', "bad_type"),
        ('{"cmd": "config", "encoding": "opus"}', "unsupported_format"),
        ('{"cmd": "config", "speed": "fast"}', "bad_type"),
        ('{"cmd": "config", "speed": -1}', "invalid_speed"),
        ('{"cmd": "config", "speed": 1e999}', "invalid_speed"),
        ('{"cmd": "config", "word_timestamps": 1}', "bad_type"),
        ('{"cmd": "config", "streaming": "yes"}', "bad_type"),
        ('{"cmd": "config", "voice": 3}', "bad_type"),
    ],
)
def test_bad_messages_get_stable_codes(message: str | bytes, code: str) -> None:
    """Every kind of bad message raises ProtocolError with its documented code."""
    assert code_of(message) == code


def test_message_size_counts_utf8_bytes() -> None:
    """The size limit is in bytes on the wire, not characters."""
    text = json.dumps({"cmd": "start", "text": "é" * 40}, ensure_ascii=False)
    assert len(text) < 100 < len(text.encode())
    assert code_of(text, max_bytes=100) == "message_too_large"
    assert wp.parse_command(text, max_bytes=200) == wp.StartCommand("é" * 40)


def test_commands_round_trip_through_encode_command() -> None:
    """encode_command is parse_command's inverse for every command."""
    commands: list[wp.Command] = [
        wp.StartCommand("hi"),
        wp.InjectCommand(" there"),
        wp.FlushCommand(),
        wp.PauseCommand(),
        wp.ResumeCommand(),
        wp.ResetCommand(),
        wp.ConfigureCommand(sample_rate=16000, encoding=wp.Encoding.PCM16, streaming=True),
    ]
    for command in commands:
        assert wp.parse_command(wp.encode_command(command)) == command


# -- events -----------------------------------------------------------------------------------


def test_ready_event_has_every_field_of_v1() -> None:
    """ready carries sample rate, frame length, encoding, voice and the protocol version."""
    ready = json.loads(wp.encode_ready(sample_rate=24000, encoding=wp.Encoding.PCM16, voice="heart"))
    assert ready == {
        "event": "ready",
        "sample_rate": 24000,
        "frame_ms": 80,
        "encoding": "pcm16",
        "voice": "heart",
        "protocol": 1,
    }
    behind_ray = wp.encode_ready(sample_rate=8000, encoding=wp.Encoding.MULAW, voice="heart", replica="r-1")
    assert json.loads(behind_ray)["replica"] == "r-1"  # only a server that is one of several says


def test_events_encode_to_the_documented_json() -> None:
    """done, paused, resumed, reset, word and error have the documented shapes."""
    assert json.loads(wp.encode_done()) == {"event": "done"}
    assert json.loads(wp.encode_paused(spoken="Hello there", samples=3840)) == {
        "event": "paused",
        "spoken": "Hello there",
        "samples": 3840,
    }
    assert json.loads(wp.encode_resumed()) == {"event": "resumed"}
    assert json.loads(wp.encode_reset()) == {"event": "reset"}
    assert json.loads(wp.encode_word(word="Hello", start_ms=12.04, end_ms=300.0)) == {
        "event": "word",
        "word": "Hello",
        "start_ms": 12.0,
        "end_ms": 300.0,
    }
    assert json.loads(wp.encode_error("busy", "wait")) == {
        "event": "error",
        "code": "busy",
        "message": "wait",
    }


def test_events_are_ascii_even_for_unsendable_text() -> None:
    """Event JSON is ASCII, so any spoken text (even a lone surrogate) can be sent as text."""
    text = wp.encode_paused(spoken="café \ud800", samples=1)
    assert text.isascii()
    assert wp.decode_event(text)["spoken"] == "café \ud800"


# -- audio ------------------------------------------------------------------------------------


def test_audio_frame_header_is_dia2streams_8_bytes() -> None:
    """The header is <If: uint32 sample count then float32 ms, little-endian."""
    samples = np.array([0, 1, -1, 32767, -32768], np.int16)
    data = wp.encode_audio_frame(samples, 12.5)
    assert data[:8] == struct.pack("<If", 5, 12.5)
    assert data[8:] == samples.astype("<i2").tobytes()


def test_audio_frames_decode_back_in_both_encodings() -> None:
    """decode_audio_frame reads PCM16 and mu-law messages; audio_to_pcm16 gives int16 for both."""
    pcm = (np.sin(np.arange(1920) / 7) * 20000).astype(np.int16)
    message = wp.decode_audio_frame(wp.encode_audio_frame(pcm, 80.0))
    assert (message.num_samples, message.ms, message.encoding) == (1920, 80.0, wp.Encoding.PCM16)
    assert np.array_equal(wp.audio_to_pcm16(message), pcm)
    codes = g711.encode(pcm[:640])
    mulaw = wp.decode_audio_frame(wp.encode_audio_frame(codes, 1.0))
    assert mulaw.encoding is wp.Encoding.MULAW and mulaw.num_samples == 640
    assert np.array_equal(wp.audio_to_pcm16(mulaw), g711.decode(codes))


@pytest.mark.parametrize("data", [b"", b"\x01\x00\x00", struct.pack("<If", 4, 0.0) + b"\x00" * 3])
def test_malformed_audio_raises_protocol_error(data: bytes) -> None:
    """A short header or a payload that fits neither encoding is refused."""
    with pytest.raises(wp.ProtocolError):
        wp.decode_audio_frame(data)


# -- purity -----------------------------------------------------------------------------------


def test_codec_modules_import_no_io() -> None:
    """The wire codecs, pacing and security checks import no asyncio, sockets or server stack."""
    forbidden = ("asyncio", "socket", "starlette", "uvicorn", "websockets", "prometheus_client")
    code = (
        "import sys\n"
        "import tts_service.wire, tts_service.g711, tts_service.engine.listener, transports.security\n"
        f"print(','.join(m for m in {forbidden!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- fuzz -------------------------------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_fields = st.sampled_from(
    ["cmd", "text", "voice", "sample_rate", "encoding", "speed", "word_timestamps", "streaming"]
)
_names = st.sampled_from([*wp.COMMAND_NAMES, "", "START", "stop"]) | st.text(max_size=10)
_commandish = st.builds(
    lambda name, extra: json.dumps({"cmd": name, **extra}),
    _names | _json_values,
    st.dictionaries(_fields, _json_values, max_size=5),
)


@pytest.mark.parametrize("digits", [309, 310, 400, 4000])
def test_a_speed_too_large_for_a_float_is_invalid_speed_not_a_crash(digits: int) -> None:
    """A 310-digit integer overflows float(): the codec still raises ProtocolError, with a short message."""
    with pytest.raises(wp.ProtocolError) as info:
        wp.parse_command('{"cmd": "config", "speed": 1' + "0" * digits + "}")
    assert info.value.code == "invalid_speed" and len(str(info.value)) < 200


def test_an_integer_past_pythons_digit_limit_is_bad_json_in_our_words() -> None:
    """Over 4300 digits json.loads itself refuses; the client is not shown Python's message."""
    with pytest.raises(wp.ProtocolError) as info:
        wp.parse_command('{"cmd": "config", "speed": 1' + "0" * 5000 + "}")
    assert info.value.code == "bad_json" and "4300" not in str(info.value) and "limit" not in str(info.value)


@given(st.one_of(st.text(), st.binary(), _commandish, _json_values.map(json.dumps)))
def test_any_message_parses_or_raises_protocol_error_only(message: str | bytes) -> None:
    """Whatever arrives, parse_command returns a command or raises ProtocolError, nothing else."""
    try:
        command = wp.parse_command(message, max_bytes=4096)
    except wp.ProtocolError as exc:
        assert exc.code and str(exc)
    else:
        assert isinstance(command, wp.Command)
