"""The lexicon where users set it: `warmline serve/speak --lexicon FILE` and the WebSocket ``config``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from websockets.asyncio.client import connect
from ws_helpers import LiveServer, ready, receive_until, run_with_server, send

from tts_service.backends.hibari.backend import HibariBackend


def test_a_lexicon_file_that_does_not_parse_stops_the_server_at_start_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "words.txt"
    bad.write_text("# names\nWarmline = warm line\nthis line has no equals sign\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "agent.cli", "serve", "--port", "0", "--lexicon", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 2
    assert "line 3" in run.stderr and "this line has no equals sign" in run.stderr


def test_speak_dry_run_reads_with_a_lexicon_file(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("Warmline = warm line\n", encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "speak",
            "--dry-run",
            "--lexicon",
            str(words),
            "Warmline has 2 voices.",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert run.stdout.strip() == "warm line has two voices."


def test_a_wrong_lexicon_in_config_is_an_error_event_that_changes_nothing(
    hibari_backend: HibariBackend,
) -> None:
    """Phonemes the voice cannot say are refused, naming the symbol; a good lexicon applies next turn."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="config", word_timestamps=True)
            await receive_until(ws, "configured")
            await send(ws, cmd="config", speed=1.5, lexicon={"Nguyen": "/ŋw$n/"})
            event = (await receive_until(ws, "error")).events[-1]
            assert "'$'" in event["message"], event
            await send(ws, cmd="config")
            assert (await receive_until(ws, "configured")).events[-1]["speed"] == 1.0  # nothing changed
            await send(ws, cmd="start", text="Ask Nguyen.")
            before = await receive_until(ws, "done")
            await send(ws, cmd="config", lexicon={"Nguyen": "/ŋwˈɪn/", "Warmline": "warm line"})
            await receive_until(ws, "configured")
            await send(ws, cmd="start", text="Ask Nguyen.")
            after = await receive_until(ws, "done")
            assert before.words() == after.words() == ["Ask", "Nguyen."]  # marks stay written
            assert before.pcm().tobytes() != after.pcm().tobytes()

    run_with_server(hibari_backend, body)
