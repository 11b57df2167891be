"""README's two commands stay true: CI runs exactly the README's test command, and its server
speaks the protocol and the OpenAI route as the README's client blocks show.

The rest of the README and ``docs/`` (every command parses, every link leads somewhere, the
engine's blocks run) is ``tests/test_docs.py``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from ports import fixed_port

ROOT = Path(__file__).resolve().parent.parent
#: how long the README's main command may take to answer /healthz (the model loads first)
HEALTHY_WITHIN_S = 60.0


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """The second command of the README is a line of .ci/run, character for character."""
    commands = _readme_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert commands[1] in ci_lines


def test_readme_main_command_speaks_with_the_cli() -> None:
    """The first README command installs the package and runs the warmline CLI."""
    first = _readme_commands()[0]
    assert "pip install -e ." in first and "warmline " in first


def _readme_python_block(marker: str) -> str:
    """The README's one ``python`` block that holds ``marker``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.+?)\n```", text, flags=re.S) if marker in b]
    assert len(blocks) == 1, f"one README python block with {marker!r}, found {len(blocks)}"
    return blocks[0]


def _run_readme_clients() -> None:
    """The README's WebSocket and OpenAI blocks, as written, against its server on 8765."""
    scope: dict[str, object] = {}
    exec(compile(_readme_python_block('connect("ws://127.0.0.1:8765/")'), "README.md", "exec"), scope)
    pcm = scope["pcm"]  # 16 kHz: 1280 samples, 2560 bytes a frame
    assert isinstance(pcm, bytes) and len(pcm) >= 10 * 2560 and len(pcm) % 2560 == 0, len(pcm)
    exec(compile(_readme_python_block('base_url="http://127.0.0.1:8765/v1"'), "README.md", "exec"), {})
    mp3 = Path("hello.mp3").read_bytes()
    assert len(mp3) > 4000 and (mp3[:3] == b"ID3" or mp3[0] == 0xFF), mp3[:16]


def test_readme_main_command_serves_the_readme_clients(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server part of the README's first command, run as written (CI installed the package
    the way that command does), answers /healthz within ``HEALTHY_WITHIN_S``, speaks to the
    README's WebSocket and OpenAI blocks as written, and stops on Ctrl-C."""
    monkeypatch.chdir(tmp_path)  # the OpenAI block writes hello.mp3 where it runs
    server_command = _readme_commands()[0].split("&&")[-1].strip()
    argv = shlex.split(server_command)
    assert argv[:2] == ["warmline", "serve"], server_command
    executable = shutil.which(argv[0])
    assert executable is not None, "the warmline command is not on PATH: is the package installed?"
    with fixed_port(8765, "the README's server"):
        started = time.monotonic()
        proc = subprocess.Popen(
            [executable, *argv[1:]],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        health: dict[str, object] = {}
        try:
            while time.monotonic() - started < HEALTHY_WITHIN_S and proc.poll() is None:
                try:
                    with urllib.request.urlopen("http://127.0.0.1:8765/healthz", timeout=2) as resp:
                        health = json.loads(resp.read())
                except OSError:
                    time.sleep(0.2)
                    continue
                if health.get("status") == "ok":
                    break
            ready_s = time.monotonic() - started
            if health.get("status") == "ok":
                _run_readme_clients()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                stdout, stderr = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
        assert health.get("status") == "ok" and health.get("model_loaded") is True, (health, stderr[-2000:])
        assert ready_s < HEALTHY_WITHIN_S
        assert "serving on http://127.0.0.1:8765/" in stdout
        assert proc.returncode == 0 and "Traceback" not in stderr, stderr[-2000:]
