"""``warmline call`` drains: a live phone call is ended politely, new calls are sent elsewhere.

A simulated Twilio carrier on the real ``/twilio`` endpoint asks a question and hears its answer;
then the server drains with a bound just past ``GOODBYE_LEAD_S``: the bot says its goodbye, the
carrier hears all of it (judged by the recognizer) and the call ends well before the bound;
meanwhile the webhook answers 503, a new stream 1013 and ``/healthz`` 503.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from agent.pipeline import AgentParts
from agent.responder import DEMO_INTENTS, DEMO_PHRASES, pick_intent
from agent.server import GOODBYE, GOODBYE_LEAD_S, AgentSettings, create_agent_app
from agent.stt.sphinx import PocketsphinxSTTService
from transports.asterisk.audiosocket_carrier import AudioSocketPbx
from transports.drain import Drain
from transports.serve import serving
from transports.twilio.carrier import Carrier
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm, write_wav

QUESTION = "What time do you open?"
#: bounds on every wait, in 20 ms ticks (safety nets against hangs, not timing assertions)
MAX_TICKS = 1500
#: the end of a recording that must be quiet (the page heard the goodbye out), and how quiet
QUIET_TAIL_S = 0.3
QUIET_RMS = 100.0


def status_of(url: str, *, data: bytes | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_drained_phone_call_hears_a_goodbye_and_new_calls_are_turned_away(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    result: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            parts = AgentParts(runtime=runtime, stt=lambda: PocketsphinxSTTService(phrases=DEMO_PHRASES))
            drain = Drain()
            app = create_agent_app(runtime, AgentSettings(), parts=parts, drain=drain)
            state = app.state.agent
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                async with connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
                    carrier = Carrier(ws)
                    clock = asyncio.create_task(carrier.run(), name="test-carrier")
                    try:
                        await carrier.begin()
                        await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
                        carrier.say(g711.encode(spoken_pcm(hibari_backend, QUESTION, 8000)).tobytes())
                        assert await carrier.wait_until(lambda c: c.idle_for(50), max_ticks=MAX_TICKS)
                        drained_at = carrier.tick
                        drain.begin(GOODBYE_LEAD_S + 0.5)
                        base = f"http://{host}:{port}"
                        result["healthz"] = await asyncio.to_thread(status_of, f"{base}/healthz")
                        result["twiml"] = await asyncio.to_thread(
                            status_of, f"{base}/twiml", data=b"CallSid=CA1"
                        )
                        async with connect(f"ws://{host}:{port}/twilio") as late:
                            try:
                                await asyncio.wait_for(late.recv(), 10)
                            except ConnectionClosed as exc:
                                result["late_close"] = exc.rcvd.code if exc.rcvd else None
                        # the bot says goodbye and hangs up: the stream closes (bounded wait)
                        for _ in range(MAX_TICKS):
                            if state.calls["twilio"] == 0:
                                break
                            await asyncio.sleep(0.02)
                        result["remaining_s"] = drain.remaining_s()
                        result["goodbye"] = b"".join(
                            p.payload for p in carrier.log.played if p.tick > drained_at
                        )
                    finally:
                        clock.cancel()
                        await asyncio.gather(clock, return_exceptions=True)
                result["in_time"] = await asyncio.wait_for(drain.wait_empty(), 60)
                result["record"] = state.recent[-1]

    asyncio.run(main())
    assert result["healthz"] == 503 and result["twiml"] == 503
    assert result["late_close"] == 1013
    assert result["in_time"] is True and result["remaining_s"] > 0, result
    grammar = [GOODBYE, *(i.answer for i in DEMO_INTENTS), *DISTRACTORS]
    assert recognizer(g711.decode(result["goodbye"]), 8000, grammar) == " ".join(normalize(GOODBYE))
    assistant = [m["content"] for m in result["record"].messages if m["role"] == "assistant"]
    assert normalize(assistant[0]) == normalize(pick_intent(QUESTION).answer)


def test_a_drained_audiosocket_call_hears_a_goodbye_and_the_pbx_gets_its_hangup(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    """``--audiosocket-port`` drains like the carriers' routes: a goodbye, a hangup, no new call."""
    result: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            parts = AgentParts(runtime=runtime, stt=lambda: PocketsphinxSTTService(phrases=DEMO_PHRASES))
            drain = Drain()
            app = create_agent_app(runtime, AgentSettings(audiosocket_port=0), parts=parts, drain=drain)
            state = app.state.agent
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, _):
                audiosocket_port = app.state.audiosocket.port
                pbx = await AudioSocketPbx.connect(host, audiosocket_port)
                clock = asyncio.create_task(pbx.run(), name="test-pbx")
                try:
                    await pbx.wait_until(lambda p: p.tick >= 10, max_ticks=MAX_TICKS)
                    pbx.say(spoken_pcm(hibari_backend, QUESTION, 8000))
                    assert await pbx.wait_until(lambda p: p.idle_for(50), max_ticks=MAX_TICKS)
                    result["during_call"] = state.calls["audiosocket"]
                    drained_at = pbx.tick
                    drain.begin(GOODBYE_LEAD_S + 0.5)
                    late = await AudioSocketPbx.connect(host, audiosocket_port)
                    async with asyncio.timeout(10):
                        result["late"] = await late.reader.read()
                    late.writer.close()
                    for _ in range(MAX_TICKS):  # the bot says goodbye and hangs up
                        if state.calls["audiosocket"] == 0:
                            break
                        await asyncio.sleep(0.02)
                    await pbx.wait_until(lambda p: p.log.hangups > 0, max_ticks=100)
                    result["remaining_s"] = drain.remaining_s()
                    result["goodbye"] = b"".join(p.pcm for p in pbx.log.played if p.tick > drained_at)
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
                result["in_time"] = await asyncio.wait_for(drain.wait_empty(), 60)
                result["pbx"] = pbx
                result["record"] = state.recent[-1]

    asyncio.run(main())
    assert result["during_call"] == 1
    assert result["late"] == b"\x00\x00\x00"  # AudioSocket's hangup, and the socket closed
    assert result["in_time"] is True and result["remaining_s"] > 0, result
    assert result["pbx"].log.hangups == 1 and result["pbx"].log.violations == []
    assert result["record"].transport == "audiosocket"
    grammar = [GOODBYE, *(i.answer for i in DEMO_INTENTS), *DISTRACTORS]
    goodbye = np.frombuffer(result["goodbye"], "<i2")
    assert recognizer(goodbye, 8000, grammar) == " ".join(normalize(GOODBYE))
    assistant = [m["content"] for m in result["record"].messages if m["role"] == "assistant"]
    assert normalize(assistant[0]) == normalize(pick_intent(QUESTION).answer)


AGENT_WEBRTC_SCENARIO = Path(__file__).resolve().parent / "agent_webrtc_scenario.py"


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare (util-linux) is not installed")
@pytest.mark.chromium
def test_a_drained_browser_call_hears_the_whole_goodbye(
    hibari_backend: Backend, recognizer: Callable[..., str | None], tmp_path: Path
) -> None:
    """Over WebRTC, where an EndFrame would hang up before the goodbye is made, the page still
    records the whole goodbye before the call ends."""
    speech = spoken_pcm(hibari_backend, QUESTION, 48000)
    silence = np.zeros(48000 * 3, np.int16)
    question = tmp_path / "question.wav"
    write_wav(question, np.concatenate([silence, speech, np.zeros(48000 * 20, np.int16)]), 48000)
    proc = subprocess.run(
        [
            "unshare",
            "-rn",
            sys.executable,
            str(AGENT_WEBRTC_SCENARIO),
            str(question),
            str(tmp_path),
            "--drain",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"
    with wave.open(str(tmp_path / "goodbye.wav")) as wav:
        rate = wav.getframerate()
        heard = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    grammar = [GOODBYE, *(i.answer for i in DEMO_INTENTS), *DISTRACTORS]
    assert recognizer(heard, rate, grammar) == " ".join(normalize(GOODBYE)), proc.stderr[-3000:]
    # the call hung up only after the page had played the last word: its recording ends quiet
    tail = heard[-int(rate * QUIET_TAIL_S) :].astype(np.float64)
    loud = np.sqrt(np.mean(tail**2))
    assert loud < QUIET_RMS, f"the hang-up cut the goodbye's last word off (rms {loud:.0f} at the end)"
