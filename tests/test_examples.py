"""The server examples start as their docstrings say, answer their first request, and stop on Ctrl-C.

(``examples/engine_alone.py`` is run by ``test_cli.py``; ``pipecat_bot.py`` by
``test_pipecat_remote.py``, locally and with ``--url``.) Each example listens on 127.0.0.1:7860 as documented.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from ports import fixed_port

ROOT = Path(__file__).resolve().parent.parent
PORT = 7860


def run_example(script: str, ready: str, request: urllib.request.Request) -> tuple[int, str, bytes]:
    """Start ``script``, wait for its ``ready`` line, send ``request``, then SIGINT it."""
    with fixed_port(PORT, "the example"):
        return _run_example(script, ready, request)


def _run_example(script: str, ready: str, request: urllib.request.Request) -> tuple[int, str, bytes]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / script)],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # bounded by the test timeout
        assert ready in line, line
        with urllib.request.urlopen(request, timeout=10) as resp:
            body = resp.read()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    return proc.returncode, stderr, body


def test_browser_call_example_serves_the_call_page() -> None:
    rc, stderr, body = run_example(
        "browser_call.py", "call page on http://", urllib.request.Request(f"http://127.0.0.1:{PORT}/")
    )
    assert b"<html" in body.lower() and b"/static/call.js" in body
    assert rc == 0 and "Traceback" not in stderr, stderr


def test_twilio_example_answers_the_voice_webhook_with_a_stream() -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}/twiml", data=b"", method="POST")
    rc, stderr, body = run_example("twilio_bot.py", "Twilio bot on http://", request)
    assert b"<Stream" in body and b"/twilio" in body
    assert rc == 0 and "Traceback" not in stderr, stderr
