"""Browser-style calls to the voice agent, one after another, counting what each leaves behind.

    unshare -rn python tests/webrtc_leak_scenario.py QUESTION_WAV OUT_DIR

Run by ``test_call_leaks.py`` in a network namespace of its own (``webrtc_call_scenario``'s
setup: ICE can reach only the namespace's veth pair). The caller is a plain aiortc peer in this
process, not Chromium, so four calls fit in a short test: it sends the question (48 kHz, paced
in 20 ms packets), listens for the agent's answer, and hangs up after it or in the middle of
it. After each call has ended on the server, a ``census`` of the process is taken. The last
line of stdout is the JSON result. Test scaffolding.
"""

from __future__ import annotations

import asyncio
import contextlib
import fractions
import sys
import time
import wave
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
import numpy.typing as npt
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from av import AudioFrame

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webrtc_call_scenario import run_in_namespace, wait_for

from agent.server import AgentSettings, AgentState, create_agent_app
from transports.serve import serving
from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.benchmark.census import Census, census
from tts_service.runtime import EngineRuntime

RATE = 48000
PACKET = RATE // 50  # 20 ms
#: a received packet this loud is the agent speaking (its silence is exact zeros)
SPEECH_PEAK = 500
CALL_TIMEOUT_S = 60.0
#: how each call ends: after the answer, or a moment into it
HANG_UPS = ("after", "during", "after", "during")


class QuestionTrack(MediaStreamTrack):
    """The caller's microphone: half a second of silence, the question, then silence, in real time."""

    kind = "audio"

    def __init__(self, pcm: npt.NDArray[np.int16]) -> None:
        super().__init__()
        self._pcm = np.concatenate([np.zeros(RATE // 2, np.int16), pcm])
        self._pts = 0
        self._t0: float | None = None

    async def recv(self) -> AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._t0 is None:
            self._t0 = time.monotonic()
        delay = self._t0 + self._pts / RATE - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        chunk = self._pcm[self._pts : self._pts + PACKET]
        if len(chunk) < PACKET:
            chunk = np.concatenate([chunk, np.zeros(PACKET - len(chunk), np.int16)])
        frame = AudioFrame.from_ndarray(chunk.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, RATE)
        self._pts += PACKET
        return frame


async def listen(track: MediaStreamTrack, answered: asyncio.Event) -> None:
    """Read the agent's audio until the track ends; set ``answered`` at its first speech."""
    with contextlib.suppress(MediaStreamError):
        while True:
            frame = await track.recv()
            if not answered.is_set() and int(np.abs(frame.to_ndarray()).max()) > SPEECH_PEAK:
                answered.set()


async def one_call(url: str, question: npt.NDArray[np.int16], hang_up: str) -> bool:
    """Call, wait for the answer, hang up after it or during it; whether the agent answered."""
    pc = RTCPeerConnection()
    answered = asyncio.Event()
    listeners: list[asyncio.Task[None]] = []

    @pc.on("track")
    def on_track(track: MediaStreamTrack) -> None:
        listeners.append(asyncio.create_task(listen(track, answered), name="leak-caller-listener"))

    pc.addTrack(QuestionTrack(question))
    try:
        await pc.setLocalDescription(await pc.createOffer())
        offer = {"sdp": pc.localDescription.sdp, "type": pc.localDescription.type}
        async with aiohttp.ClientSession() as http, http.post(url, json=offer) as resp:
            resp.raise_for_status()
            answer = await resp.json()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type=answer["type"]))
        try:
            await asyncio.wait_for(answered.wait(), CALL_TIMEOUT_S)
        except TimeoutError:
            return False
        await asyncio.sleep(4.0 if hang_up == "after" else 0.5)
        return True
    finally:
        await pc.close()
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)


async def scenario(question_wav: Path, out_dir: Path) -> dict[str, Any]:
    del out_dir
    with wave.open(str(question_wav)) as wav:
        question = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    readings: list[dict[str, object]] = []
    sessions: list[int] = []
    answered: list[bool] = []
    async with EngineRuntime(HibariBackend(), workers=1) as runtime:
        app = create_agent_app(runtime, AgentSettings(demo_grammar=True))
        state: AgentState = app.state.agent
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            before = census()
            for hang_up in HANG_UPS:
                answered.append(await one_call(f"http://{host}:{port}/api/offer", question, hang_up))
                await wait_for(
                    lambda: state.calls["webrtc"] == 0 and not state.live, CALL_TIMEOUT_S, "the call to end"
                )
                readings.append((await settled(before)).to_json())
                sessions.append(runtime.session_count)
    return {
        "answered": answered,
        "before": before.to_json(),
        "readings": readings,
        "runtime_sessions": sessions,
    }


async def settled(before: Census) -> Census:
    """The census once nothing of the call is left (bounded: the test judges what remains)."""
    reading = census()
    for _ in range(20):
        if all(n <= before.objects.get(k, 0) for k, n in reading.objects.items()):
            break
        await asyncio.sleep(0.25)
        reading = census()
    return reading


def main() -> int:
    return run_in_namespace(scenario)


if __name__ == "__main__":
    sys.exit(main())
