"""The voice agent end to end on a phone call: simulated Twilio carrier -> ``warmline call``'s app.

The caller (``transports.twilio.carrier``) speaks questions synthesized by hibari at 8 kHz mu-law
into the real ``/twilio`` endpoint of ``create_agent_app``; the agent's pipeline (Silero VAD, pocketsphinx
with the demo grammar, the demo responder, WarmlineTTSService, the Twilio transport) answers.
The answer the caller hears is judged by ``tests/asr.py``. Then the caller talks over the second
answer: the bot clears the carrier, and the LLM context keeps only the words whose marks came back.
Then the same agent takes a browser call (headless Chromium over WebRTC, ``agent_webrtc_scenario``),
and ``warmline call`` itself starts, answers ``/healthz`` and stops on SIGINT.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from test_webrtc_call import SCENARIO_TIMEOUT_S
from websockets.asyncio.client import connect

from agent.pipeline import AgentParts
from agent.responder import DEMO_INTENTS, DEMO_PHRASES, FALLBACK, pick_intent
from agent.server import AgentSettings, create_agent_app
from agent.stt.sphinx import PocketsphinxSTTService
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm, write_wav

ROOT = Path(__file__).resolve().parent.parent
QUESTION_1 = "What time do you open?"
QUESTION_2 = "Can I book a table for two?"
BARGE_IN = "Wait, stop please."
#: frames of the second answer the caller hears before talking over it
HEARD_FRAMES = 10
#: bounds on every wait, in 20 ms ticks (safety nets against hangs, not timing assertions)
MAX_TICKS = 1500


def speech(backend: Backend, text: str) -> bytes:
    """``text`` spoken by hibari, as 8 kHz mu-law (the caller's side of the call)."""
    return g711.encode(spoken_pcm(backend, text, 8000)).tobytes()


def words(text: str) -> list[str]:
    return list(normalize(text)) if any(c.isalpha() for c in text) else []


def test_the_agent_answers_a_phone_question_and_a_barge_in_keeps_only_the_heard_words(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    """Question -> recognised answer; barge-in -> one clear, no stale audio, context = heard words."""
    result: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            parts = AgentParts(runtime=runtime, stt=lambda: PocketsphinxSTTService(phrases=DEMO_PHRASES))
            app = create_agent_app(runtime, AgentSettings(), parts=parts)
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                async with connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
                    carrier = Carrier(ws)
                    clock = asyncio.create_task(carrier.run(), name="test-carrier")
                    try:
                        await carrier.begin()
                        result["barge_in_end_tick"] = await scenario(carrier, hibari_backend)
                        await carrier.end()
                    finally:
                        clock.cancel()
                        await asyncio.gather(clock, return_exceptions=True)
                for _ in range(300):  # the endpoint winds the call down after stop (bounded)
                    if app.state.agent.calls["twilio"] == 0:
                        break
                    await asyncio.sleep(0.01)
                agent = app.state.agent.recent[-1]  # what the finished call left behind
            result.update(carrier=carrier, agent=agent)

    asyncio.run(main())
    carrier: Carrier = result["carrier"]
    log = carrier.log
    agent = result["agent"]
    assert log.violations == []
    answer_1, answer_2 = pick_intent(QUESTION_1).answer, pick_intent(QUESTION_2).answer

    # what the bot heard, and what it answered
    users = [m["content"] for m in agent.messages if m["role"] == "user"]
    assert [words(u) for u in users[:2]] == [words(QUESTION_1), words(QUESTION_2)]

    # the first answer, as the caller heard it at 8 kHz, is recognised
    heard_1 = b"".join(p.payload for p in log.played if p.answer == 1)
    grammar = [answer_1, answer_2, *(i.answer for i in DEMO_INTENTS), FALLBACK.answer, *DISTRACTORS]
    assert recognizer(g711.decode(heard_1), 8000, grammar) == " ".join(normalize(answer_1))

    # barge-in: exactly one clear, and no audio of the interrupted answer after it
    assert len(log.clears) == 1
    clear_index = next(i for i, r in enumerate(log.received) if isinstance(r.message, tp.Clear))
    after = [r for r in log.received[clear_index + 1 :] if isinstance(r.message, tp.OutboundMedia)]
    assert all(r.tick >= result["barge_in_end_tick"] for r in after), "stale audio after the clear"
    assert log.cleared_echoes, "the carrier held audio when the caller barged in"

    # the context holds exactly the heard words: all of answer 1, the confirmed start of answer 2
    assistant = [words(m["content"]) for m in agent.messages if m["role"] == "assistant"]
    assert assistant[0] == words(answer_1)
    assert 0 < len(assistant[1]) < len(words(answer_2))
    assert assistant[1] == words(answer_2)[: len(assistant[1])]
    heard = agent.heard_words
    assert [w for turn in assistant for w in turn] == words(" ".join(heard))
    assert [t.interrupted for t in agent.turns[:2]] == [False, True]


async def scenario(carrier: Carrier, backend: Backend) -> int:
    """Question, whole answer; question, barge-in after ``HEARD_FRAMES`` frames; the barge-in's end tick."""
    await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
    carrier.say(speech(backend, QUESTION_1))
    assert await carrier.wait_until(lambda c: c.idle_for(50), max_ticks=MAX_TICKS), "no first answer"
    carrier.say(speech(backend, QUESTION_2))
    first_2 = len(carrier.log.echoed)
    assert await carrier.wait_until(
        lambda c: len(c.log.echoed) - first_2 >= HEARD_FRAMES, max_ticks=MAX_TICKS
    ), "no second answer"
    carrier.hold_playback = True  # the caller talks over the bot right after this mark
    carrier.say(speech(backend, BARGE_IN), question=False)
    assert await carrier.wait_until(lambda c: bool(c.log.clears), max_ticks=MAX_TICKS), "no clear"
    carrier.hold_playback = False
    await carrier.wait_until(lambda c: not c.speaking, max_ticks=MAX_TICKS)
    end_tick = carrier.tick
    # the bot answers the barge-in too; let that answer play out before hanging up
    await carrier.wait_until(lambda c: c.idle_for(50) and c.last_media_tick > end_tick, max_ticks=MAX_TICKS)
    return end_tick


def test_warmline_call_starts_and_answers_healthz() -> None:
    """``warmline call --port 0`` prints its address and answers /healthz, then stops on SIGINT."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "call", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # bounded by the test timeout; the server prints once it listens
        assert "voice agent" in line and "http://" in line, line
        url = line.split("http://", 1)[1].split("/", 1)[0]
        health: dict[str, Any] = {}
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://{url}/healthz", timeout=5) as resp:
                    health = json.loads(resp.read())
            except OSError:
                health = {}
            if health.get("status") == "ok":
                break
            time.sleep(0.1)
        assert health["status"] == "ok" and health["llm"] == "demo"
        with urllib.request.urlopen(f"http://{url}/metrics", timeout=5) as resp:
            assert b"warmline_agent_first_audio_seconds" in resp.read()
    finally:
        proc.send_signal(2)
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr


AGENT_WEBRTC_SCENARIO = ROOT / "tests" / "agent_webrtc_scenario.py"


def write_wav_question(backend: Backend, text: str, path: Path) -> None:
    """``text`` at 48 kHz after 3 s of silence (the call is up before it starts; the fake mic loops)."""
    speech = spoken_pcm(backend, text, 48000)
    pcm = np.concatenate([np.zeros(48000 * 3, np.int16), speech, np.zeros(48000 * 12, np.int16)])
    write_wav(path, pcm, 48000)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
@pytest.mark.chromium
def test_a_browser_call_is_answered_by_the_agent_over_webrtc(
    hibari_backend: Backend, recognizer: Callable[..., str | None], tmp_path: Path
) -> None:
    """Chromium asks over WebRTC; the agent hears the question and the page records its answer."""
    question = tmp_path / "question.wav"
    write_wav_question(hibari_backend, QUESTION_1, question)
    proc = subprocess.run(
        ["unshare", "-rn", sys.executable, str(AGENT_WEBRTC_SCENARIO), str(question), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT_S,
        cwd=ROOT,
    )
    assert proc.returncode == 0, f"unshare -rn failed:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no result from the scenario:\n{proc.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"
    assert result["page_errors"] == []
    assert result["heard"] in ("what time do you open", "when do you open"), result
    with wave.open(result["answer_wav"]) as wav:
        rate = wav.getframerate()
        heard = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    answer = pick_intent(QUESTION_1).answer
    grammar = [answer, *(i.answer for i in DEMO_INTENTS), FALLBACK.answer, *DISTRACTORS]
    said = recognizer(heard, rate, grammar)
    assert said == " ".join(normalize(answer)), f"{result}\n{proc.stderr[-6000:]}"
