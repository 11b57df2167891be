"""The command line and the engine-alone example, run for real on the embedded voice."""

from __future__ import annotations

import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest
from asr import DISTRACTORS, recognize

from agent.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _read(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16), w.getframerate()


def test_speak_writes_a_recognisable_wav(tmp_path: Path, capsys: object) -> None:
    """`warmline speak TEXT` writes whole 80 ms frames that say the text, and prints its figures."""
    out = tmp_path / "a.wav"
    assert main(["speak", "I can help you with that.", "-o", str(out), "--sample-rate", "16000"]) == 0
    pcm, rate = _read(out)
    assert rate == 16000 and len(pcm) % 1280 == 0
    assert recognize(pcm, rate, ["i can help you with that", *DISTRACTORS]) == "i can help you with that"


def test_speak_tokens_streams_stdin(tmp_path: Path) -> None:
    """--tokens injects stdin as it arrives and prints time to first frame and real-time factor."""
    out = tmp_path / "b.wav"
    run = subprocess.run(
        [sys.executable, "-m", "agent.cli", "speak", "--tokens", "-o", str(out)],
        input="Thank you for calling, goodbye.",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "time to first frame" in run.stdout and "real-time factor" in run.stdout
    pcm, rate = _read(out)
    assert rate == 24000 and len(pcm) > 0


def test_speak_reports_user_errors_in_one_line(tmp_path: Path) -> None:
    """An unknown voice exits 2 with the error code, not a traceback."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "speak",
            "hi",
            "--voice",
            "nobody",
            "-o",
            str(tmp_path / "c.wav"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "unknown_voice" in run.stderr and "Traceback" not in run.stderr


def test_engine_alone_example_runs(tmp_path: Path) -> None:
    """examples/engine_alone.py runs as documented and writes a WAV."""
    out = tmp_path / "e.wav"
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "engine_alone.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "done:" in run.stdout
    pcm, rate = _read(out)
    assert rate == 16000 and len(pcm) % 1280 == 0 and len(pcm) > 16000


def test_an_unknown_voice_exits_2_with_the_voices_and_how_to_get_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the command line the operator reads both the error and its hint (how to install a voice)."""
    from hibari.voices import VOICES

    from tts_service.backends.hibari.backend import HibariBackend

    if set(VOICES) <= set(HibariBackend().voices()):
        pytest.skip("every hibari voice is cached here: there is no hint to print")
    assert main(["speak", "Hello.", "-o", str(tmp_path / "x.wav"), "--voice", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "error (unknown_voice)" in err and "available: heart" in err
    assert "hibari --voice" in err


def test_speak_dry_run_prints_what_the_model_gets_and_writes_no_wav(tmp_path: Path) -> None:
    """`speak --dry-run -` prints one line per line of stdin, in order, and synthesizes nothing."""
    out = tmp_path / "never.wav"
    run = subprocess.run(
        [sys.executable, "-m", "agent.cli", "speak", "--dry-run", "-", "-o", str(out)],
        input="Call 415-555-0188.\nThe PIN is 0091.\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert run.stdout.splitlines() == [
        "Call four one five, five five five, zero one eight eight.",
        "The Pin is zero zero nine one.",
    ]
    assert not out.exists()
