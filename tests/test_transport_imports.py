"""The transports' wire codecs stay sans-I/O: importing them pulls in no asyncio, sockets or Pipecat."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("asyncio", "socket", "pipecat", "websockets", "aiortc", "starlette", "torch")


def test_twilio_codec_and_mark_ledger_import_no_io() -> None:
    """A fresh interpreter importing the Twilio codec, its state machines and the ledger loads no I/O."""
    code = (
        "import sys\n"
        "import transports.twilio.protocol, transports.twilio.stream, transports.twilio.marks\n"
        "import tts_service.g711\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the codecs import {out.stdout.strip()}"


def test_the_speech_api_request_checks_and_voice_names_import_no_io() -> None:
    """OpenAI's request shape and voice names are checked without the server or an event loop."""
    code = (
        "import sys\n"
        "import transports.openai.request, transports.openai.voices, transports.openai.encoders\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the speech API's checks import {out.stdout.strip()}"


def test_the_wire_codec_and_the_remote_sessions_protocol_half_import_no_io() -> None:
    """Protocol v1 (both halves) and the remote session's state are plain values and functions."""
    code = (
        "import sys\n"
        "import tts_service.wire, tts_service.remote.wire_session\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the wire codec imports {out.stdout.strip()}"
