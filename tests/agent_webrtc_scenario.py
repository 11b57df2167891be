"""The voice agent takes a browser call over WebRTC, inside a network namespace; prints a JSON result.

    unshare -rn python tests/agent_webrtc_scenario.py QUESTION_WAV OUT_DIR

Run by ``test_agent_call.py``. Like ``webrtc_call_scenario.py`` (whose namespace and Chromium
set-up it reuses), but the server is ``warmline call``'s app: headless Chromium's fake microphone
asks the question, the agent (Silero VAD, pocketsphinx with the demo grammar, so that the answer
does not hinge on open-vocabulary luck through Opus, the demo responder, Warmline TTS) answers,
and the page's recording of the answer is written to OUT_DIR/answer.wav. With a third argument
``--drain`` the server then drains: the bot says its goodbye and hangs up, and the page's
recording of that is OUT_DIR/goodbye.wav.

The last line of stdout is the JSON result; everything else goes to stderr. Test scaffolding.
"""

from __future__ import annotations

import base64
import logging
import sys
import tempfile
import wave
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import async_playwright
from webrtc_call_scenario import (
    CALL_TIMEOUT_S,
    CHROMIUM,
    answer_recorded,
    chromium_args,
    run_in_namespace,
    wait_for,
)

from agent.pipeline import AgentParts
from agent.responder import DEMO_PHRASES
from agent.server import GOODBYE_LEAD_S, AgentSettings, create_agent_app
from agent.stt.sphinx import PocketsphinxSTTService
from transports.drain import Drain
from transports.serve import serving
from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.runtime import EngineRuntime

log = logging.getLogger("agent-scenario")


async def scenario(question_wav: Path, out_dir: Path) -> dict[str, Any]:
    async with EngineRuntime(HibariBackend(), workers=1) as runtime:
        parts = AgentParts(runtime=runtime, stt=lambda: PocketsphinxSTTService(phrases=DEMO_PHRASES))
        drain = Drain()
        app = create_agent_app(runtime, AgentSettings(), parts=parts, drain=drain)
        state = app.state.agent
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"http://{host}:{port}/?autostart=1&record=1"
            with tempfile.TemporaryDirectory(prefix="warmline-chromium-") as profile:
                async with async_playwright() as pw:
                    context = await pw.chromium.launch_persistent_context(
                        profile, executable_path=CHROMIUM, headless=True, args=chromium_args(question_wav)
                    )
                    try:
                        page = await context.new_page()
                        errors: list[str] = []
                        page.on("pageerror", lambda exc: errors.append(str(exc)))
                        await page.goto(url)
                        await wait_for(lambda: bool(state.live), CALL_TIMEOUT_S, "the call to start")
                        (agent,) = state.live.values()
                        await wait_for(lambda: bool(agent.turns.turns), CALL_TIMEOUT_S, "the first turn")
                        await answer_recorded(page)
                        recording = await page.evaluate("window.warmline.takeRecording()")
                        if "--drain" in sys.argv[3:]:
                            drain.begin(GOODBYE_LEAD_S + 0.5)
                            await wait_for(lambda: state.calls["webrtc"] == 0, CALL_TIMEOUT_S, "the goodbye")
                            goodbye = await page.evaluate("window.warmline.takeRecording()")
                            write_recording(goodbye, out_dir / "goodbye.wav")
                        await page.evaluate("window.warmline.hangUp()")
                        await page.close()
                    finally:
                        await context.close()
            await wait_for(lambda: state.calls["webrtc"] == 0, CALL_TIMEOUT_S, "the call to end")
    path = out_dir / "answer.wav"
    write_recording(recording, path)
    record = state.recent[-1]  # what the finished call left behind
    turn = record.turns[0]
    users = [m["content"] for m in record.messages if m["role"] == "user"]
    transcripts = list(record.transcripts)
    return {
        "answer_wav": str(path),
        "heard": turn.heard,
        "users": users,
        "transcripts": transcripts,
        "page_errors": errors,
        "turns": [(t.number, t.heard, t.first_audio_s, t.interrupted) for t in record.turns],
    }


def write_recording(recording: dict[str, Any], path: Path) -> None:
    """The page's recording (base64 int16) as a mono WAV file."""
    samples = np.frombuffer(base64.b64decode(recording["samples"]), dtype="<i2")
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(int(recording["sampleRate"]))
        wav.writeframes(samples.tobytes())


def main() -> int:
    return run_in_namespace(scenario)


if __name__ == "__main__":
    sys.exit(main())
