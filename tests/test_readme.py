"""README's two commands stay true: CI runs exactly the README's test command."""

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


def test_readme_engine_example_runs() -> None:
    """The README's engine-in-one-screen example runs as written and yields whole frames."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.+?)\n```", text, flags=re.S)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), scope)
    pcm = scope["pcm"]
    assert isinstance(pcm, list) and len(pcm) > 10 and all(len(b) == 640 * 2 for b in pcm)


def test_readme_main_command_answers_a_health_check_in_bounded_time() -> None:
    """The server part of the README's first command, run as written (CI installed the package
    the way that command does), answers /healthz within ``HEALTHY_WITHIN_S`` and stops on Ctrl-C."""
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
