"""A browser calls the bot over WebRTC, inside a network namespace of its own; prints a JSON result.

    unshare -rn python tests/webrtc_call_scenario.py QUESTION_WAV OUT_DIR

Run by ``test_webrtc_call.py`` (and usable by hand). Inside the fresh namespace it brings up
``lo`` (plus 127.0.0.2) and a veth pair (10.200.0.1/2), so ICE can only ever reach addresses of
this namespace: aioice skips exactly 127.0.0.1 and Chromium ignores loopback for ICE, so both
peers pair over the veth addresses. The HTTP server binds 127.0.0.1 (a secure context for
``getUserMedia`` in Chromium). Then:

1. headless Chromium (fake microphone playing QUESTION_WAV) opens the call page, which calls the
   bot; the bot (SmallWebRTCTransport -> SpeechTrigger -> WarmlineTTSService -> output) answers
   when the question ends; the page records what it receives (an AudioWorklet on the remote
   track); the recording is written to OUT_DIR/answer.wav;
2. a second call's tab is closed while the bot is answering, and a third's crashes: the server
   must end each call by itself (the endpoint's call count back to 0).

The last line of stdout is the JSON result; everything else goes to stderr. Test scaffolding.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
from playwright.async_api import async_playwright
from starlette.applications import Starlette

from agent.sim import SpeakingWatch, SpeechTrigger, run_bot
from transports.serve import serving
from transports.webrtc.endpoint import OPUS_SAMPLE_RATE, WebRTCEndpoint, call_page_routes, webrtc_params
from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

ANSWER = "The store opens at nine tomorrow morning."
CHROMIUM = "/usr/bin/chromium"
NETNS_SETUP = (
    "ip link set lo up",
    "ip addr add 127.0.0.2/8 dev lo",
    "ip link add v0 type veth peer name v1",
    "ip addr add 10.200.0.1/24 dev v0",
    "ip addr add 10.200.0.2/24 dev v1",
    "ip link set v0 up",
    "ip link set v1 up",
)
#: bounds on waits (safety nets against hangs, not timing assertions)
CALL_TIMEOUT_S = 60.0
TAB_CLOSE_TIMEOUT_S = 45.0

log = logging.getLogger("scenario")


def chromium_args(question_wav: Path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={question_wav}",
        "--autoplay-policy=no-user-gesture-required",
    ]


def setup_namespace() -> None:
    for command in NETNS_SETUP:
        subprocess.run(command.split(), check=True)


class Bots:
    """Starts one bot per WebRTC connection and keeps what tests need to wait on."""

    def __init__(self, runtime: EngineRuntime) -> None:
        self.runtime = runtime
        self.watches: list[SpeakingWatch] = []
        self.triggers: list[SpeechTrigger] = []
        self.new_call = asyncio.Event()

    async def __call__(self, connection: SmallWebRTCConnection) -> None:
        transport = SmallWebRTCTransport(connection, webrtc_params())
        watch, trigger = SpeakingWatch(), SpeechTrigger([ANSWER], interrupt_on_speech=False)
        self.watches.append(watch)
        self.triggers.append(trigger)
        self.new_call.set()
        tts = WarmlineTTSService(runtime=self.runtime)
        await run_bot(
            transport, tts, trigger, sample_rate=OPUS_SAMPLE_RATE, in_sample_rate=16000, extra=[watch]
        )


async def wait_for(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


#: the recording has taken in the answer's tail once it has been quiet this long (longer than any
#: pause inside a spoken answer)
ANSWER_TAIL_QUIET_S = 1.0


async def answer_recorded(page: Any, timeout_s: float = CALL_TIMEOUT_S) -> None:
    """Wait until the page's recording holds the whole answer: sound, then a second of quiet.

    The bot stops speaking on the server's clock; the page hears the end later, by the network,
    the jitter buffer and, on a loaded machine, a recorder that falls behind.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        quiet = await page.evaluate("window.warmline.quietS()")
        if quiet is not None and quiet >= ANSWER_TAIL_QUIET_S:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for the answer's tail to be recorded (quiet {quiet} s)")
        await asyncio.sleep(0.1)


async def scenario(question_wav: Path, out_dir: Path) -> dict[str, Any]:
    backend = HibariBackend()
    result: dict[str, Any] = {"answer": ANSWER}
    async with EngineRuntime(backend, workers=1) as runtime:
        bots = Bots(runtime)
        endpoint = WebRTCEndpoint(bots)
        app = Starlette(routes=[*call_page_routes(), *endpoint.routes()])
        try:
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                page_url = f"http://{host}:{port}/?autostart=1&record=1"
                with tempfile.TemporaryDirectory(prefix="warmline-chromium-") as profile:
                    async with async_playwright() as pw:
                        context = await pw.chromium.launch_persistent_context(
                            profile, executable_path=CHROMIUM, headless=True, args=chromium_args(question_wav)
                        )
                        try:
                            result.update(await answered_call(context, page_url, bots, out_dir))
                            for how in ("close", "crash"):
                                result.update(await closed_tab(context, page_url, bots, endpoint, how))
                        finally:
                            await context.close()
        finally:
            await endpoint.aclose()
        result["calls_left"] = endpoint.calls
    return result


async def answered_call(context: Any, url: str, bots: Bots, out_dir: Path) -> dict[str, Any]:
    """Call, let the bot answer, record the answer as the page received it."""
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    await wait_for(lambda: bool(bots.watches), CALL_TIMEOUT_S, "the bot to start")
    watch = bots.watches[0]
    await asyncio.wait_for(watch.started.wait(), CALL_TIMEOUT_S)
    await asyncio.wait_for(watch.stopped.wait(), CALL_TIMEOUT_S)
    await answer_recorded(page)
    recording = await page.evaluate("window.warmline.takeRecording()")
    state = await page.evaluate("window.warmline.state()")
    samples = np.frombuffer(__import__("base64").b64decode(recording["samples"]), dtype="<i2")
    path = out_dir / "answer.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(int(recording["sampleRate"]))
        wav.writeframes(samples.tobytes())
    await page.evaluate("window.warmline.hangUp()")
    await page.close()
    return {
        "answer_wav": str(path),
        "recorded_s": samples.size / int(recording["sampleRate"]),
        "page_state": state,
        "page_errors": errors,
        "trigger_events": [name for name, _ in bots.triggers[0].events],
        "output_chunks": sorted(watch.chunks),
    }


async def closed_tab(
    context: Any, url: str, bots: Bots, endpoint: WebRTCEndpoint, how: str
) -> dict[str, Any]:
    """A call whose tab closes (or crashes) while the bot speaks: the server must end it by itself."""
    await wait_for(lambda: endpoint.calls == 0, TAB_CLOSE_TIMEOUT_S, "the previous call to end")
    calls_before = len(bots.watches)
    page = await context.new_page()
    await page.goto(url)
    await wait_for(lambda: len(bots.watches) > calls_before, CALL_TIMEOUT_S, "the bot")
    await asyncio.wait_for(bots.watches[calls_before].started.wait(), CALL_TIMEOUT_S)
    closed_at = time.monotonic()
    if how == "crash":  # no pagehide, no DTLS goodbye: only the missing keep-alive tells
        with contextlib.suppress(Exception):
            await page.goto("chrome://crash", timeout=5000)
    await page.close()
    try:
        await wait_for(lambda: endpoint.calls == 0, TAB_CLOSE_TIMEOUT_S, f"the {how} tab's call to end")
        ended = True
    except TimeoutError:
        ended = False
    teardown_s = round(time.monotonic() - closed_at, 2)
    return {f"tab_{how}_call_ended": ended, f"tab_{how}_teardown_s": teardown_s}


def run_in_namespace(scenario: Callable[[Path, Path], Awaitable[dict[str, Any]]]) -> int:
    """The scenario scripts' main: set up the namespace, run ``scenario(question_wav, out_dir)``
    from argv, and print its result (or the failure) as one JSON line for the test to read."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    question_wav, out_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    if os.environ.get("WARMLINE_NO_NETNS") != "1":
        setup_namespace()
    try:
        result = asyncio.run(scenario(question_wav, out_dir))
        result["ok"] = True
    except Exception as exc:  # reported to the test as data, with the traceback on stderr
        log.exception("scenario failed")
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result))
    return 0


def main() -> int:
    return run_in_namespace(scenario)


if __name__ == "__main__":
    sys.exit(main())
