"""A real browser calls the bot over WebRTC: headless Chromium, aiortc, Pipecat, hibari, all in a netns.

The whole call runs in ``webrtc_call_scenario.py`` under ``unshare -rn`` (a network namespace of
its own, so ICE cannot touch any address outside the test); the test writes the fake
microphone's ``question.wav`` with hibari, reads the scenario's JSON result and judges the answer
the page recorded with the recognizer.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from asr import DISTRACTORS, normalize

from tts_service.engine.ports import Backend
from tts_service.speech import spoken_pcm, write_wav

CHROMIUM = "/usr/bin/chromium"
SCENARIO = Path(__file__).resolve().parent / "webrtc_call_scenario.py"
QUESTION = "What time does the store open?"
ANSWER = "The store opens at nine tomorrow morning."
SCENARIO_TIMEOUT_S = 240

pytestmark = [
    pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed"),
    pytest.mark.chromium,
]


def write_question(backend: Backend, path: Path) -> None:
    """The caller's question spoken by hibari at 48 kHz, with silence around it (the fake mic loops)."""
    speech = spoken_pcm(backend, QUESTION, 48000)
    pcm = np.concatenate([np.zeros(24000, np.int16), speech, np.zeros(48000 * 12, np.int16)])
    write_wav(path, pcm, 48000)


def test_a_browser_calls_the_bot_hears_the_answer_and_a_closed_tab_ends_its_call(
    hibari_backend: Backend, recognizer: Callable[..., str | None], tmp_path: Path
) -> None:
    """Chromium's fake mic asks, the bot answers over aiortc, the page's recording is recognised."""
    question = tmp_path / "question.wav"
    write_question(hibari_backend, question)
    proc = subprocess.run(
        ["unshare", "-rn", sys.executable, str(SCENARIO), str(question), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT_S,
        cwd=SCENARIO.parent.parent,
    )
    assert proc.returncode == 0, f"unshare -rn failed:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no result from the scenario:\n{proc.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"

    assert result["trigger_events"][:3] == ["speech_start", "speech_end", "answer"]
    assert result["page_errors"] == []
    assert result["page_state"] == "connected"
    assert result["output_chunks"] == [[2 * 3840, 48000]]  # every write: one 80 ms frame at 48 kHz
    with wave.open(result["answer_wav"]) as wav:
        rate = wav.getframerate()
        heard = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    assert rate == 48000 and heard.size > rate  # the page recorded the remote track
    grammar = [ANSWER, QUESTION, *DISTRACTORS]
    assert recognizer(heard, rate, grammar) == " ".join(normalize(ANSWER))

    # a tab closed mid-answer, and one that crashed, each ended its call on the server
    assert result["tab_close_call_ended"] and result["tab_crash_call_ended"]
    assert result["calls_left"] == 0
