"""The transports' wire codecs stay sans-I/O: importing them pulls in no asyncio, sockets or Pipecat."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("asyncio", "socket", "pipecat", "websockets", "aiortc", "starlette", "torch")


def io_loaded_by(*modules: str) -> str:
    """The forbidden modules a fresh interpreter has loaded after importing ``modules``."""
    code = (
        "import sys\n"
        f"import {', '.join(modules)}\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_twilio_codec_and_mark_ledger_import_no_io() -> None:
    """A fresh interpreter importing the Twilio codec, its state machines and the ledger loads no I/O."""
    loaded = io_loaded_by(
        "transports.twilio.protocol",
        "transports.twilio.stream",
        "transports.twilio.marks",
        "tts_service.g711",
    )
    assert loaded == "", f"the codecs import {loaded}"


def test_the_speech_api_request_checks_and_voice_names_import_no_io() -> None:
    """OpenAI's request shape and voice names are checked without the server or an event loop."""
    loaded = io_loaded_by(
        "transports.openai.request", "transports.openai.voices", "transports.openai.encoders"
    )
    assert loaded == "", f"the speech API's checks import {loaded}"


def test_the_wire_codec_and_the_remote_sessions_protocol_half_import_no_io() -> None:
    """Protocol v1 (both halves) and the remote session's state are plain values and functions."""
    loaded = io_loaded_by("tts_service.wire", "tts_service.remote.wire_session")
    assert loaded == "", f"the wire codec imports {loaded}"


def test_every_carriers_codec_and_stream_import_no_io() -> None:
    """Each carrier's codec and the shared stream state machine are sans-I/O, as Twilio's are."""
    loaded = io_loaded_by(
        "transports.media_stream.wire",
        "transports.media_stream.stream",
        "transports.telnyx.protocol",
        "transports.telnyx.stream",
        "transports.telnyx.signature",
        "transports.plivo.protocol",
        "transports.plivo.stream",
        "transports.plivo.signature",
        "transports.exotel.protocol",
        "transports.exotel.stream",
        "transports.vonage.protocol",
        "transports.vonage.stream",
        "transports.vonage.signature",
        "transports.media_stream.audio",
        "transports.asterisk.protocol",
        "transports.asterisk.stream",
    )
    assert loaded == "", f"the carriers' codecs import {loaded}"
