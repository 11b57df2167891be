"""WebRTC and telephony side by side: ``python benchmarks/transport_bench.py [--turns N] [--quick]``.

Both transports carry hibari's answers in one run, inside a network namespace of their own
(the script re-runs itself under ``unshare -rn`` and brings up ``lo`` and a veth pair, so ICE
never touches an address outside it):

* WebRTC: ``transports.webrtc.engine_track.EngineTrack`` on a RuntimeSession at 48 kHz, sent over a
  loopback aiortc pair (Opus, real RTP over the veth). The benchmark drives the verbs itself.
* Telephony: the real ``/twilio`` endpoint with the Pipecat bot (``TwilioMediaStreamTransport``,
  ``WarmlineTTSService``) and a simulated carrier that plays at real time and echoes marks.

Per answer it measures: from the bot's first engine frame (the frame available to the transport:
out of the session for WebRTC, out of the TTS service for telephony) to the first packet leaving
the transport; from the barge-in (``track.pause()`` / the bot's ``InterruptionFrame``) to the
last packet of the interrupted answer, with the packets sent after it (target: nothing of a
frame not yet begun, at most one 80 ms frame in flight); and what the receiver saw.

Prints a table, writes ``bench-out/transport_bench.json`` and ``bench-out/transport_timeline.png``
(one answer with a barge-in, per transport). Numbers depend on the machine and what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/transport_bench.py``
sys.path.insert(0, str(ROOT / "benchmarks"))  # its report, ``transport_report``

from aiortc import RTCConfiguration, RTCPeerConnection  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from transport_report import plot, table  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from agent.sim import AudioProbe, SpeechTrigger, run_bot  # noqa: E402
from transports.serve import serving  # noqa: E402
from transports.twilio import protocol as tp  # noqa: E402
from transports.twilio.call import TwilioCall  # noqa: E402
from transports.twilio.carrier import Carrier  # noqa: E402
from transports.twilio.pipecat_transport import TwilioMediaStreamTransport  # noqa: E402
from transports.twilio.server import TwilioSettings, twilio_routes  # noqa: E402
from transports.webrtc.engine_track import EngineTrack  # noqa: E402
from transports.ws.settings import ServerSettings  # noqa: E402
from tts_service import g711  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.engine.session import SessionConfig, SessionState  # noqa: E402
from tts_service.engine.types import Output, Paused, Resumed, SpeechFrame  # noqa: E402
from tts_service.pipecat.service import WarmlineTTSService  # noqa: E402
from tts_service.runtime import EngineRuntime, RuntimeSession  # noqa: E402
from tts_service.speech import spoken_pcm  # noqa: E402

OUT_DIR = ROOT / "bench-out"
JSON_NAME = "transport_bench.json"
PNG_NAME = "transport_timeline.png"
NETNS_MARK = "WARMLINE_TRANSPORT_BENCH_NETNS"
NETNS_SETUP = (
    "ip link set lo up",
    "ip addr add 127.0.0.2/8 dev lo",
    "ip link add v0 type veth peer name v1",
    "ip addr add 10.200.0.1/24 dev v0",
    "ip addr add 10.200.0.2/24 dev v1",
    "ip link set v0 up",
    "ip link set v1 up",
)
ANSWER = (
    "Sure, I can help with that. The store opens at nine tomorrow morning, "
    "and the pharmacy counter opens half an hour later."
)
QUESTION = "What time does the store open tomorrow?"
BARGE_IN = "Sorry, one more thing please."
#: frames of each answer played before the barge-in
HEARD_FRAMES = 12
#: receiver audio above this RMS (int16) counts as audible
AUDIBLE_RMS = 30.0
WAIT_S = 30.0


# -- shared -----------------------------------------------------------------------------------


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(1000.0 * seconds, 1)


def summary(values: list[float | None]) -> dict[str, float | None]:
    xs = [v for v in values if v is not None]
    if not xs:
        return {"p50": None, "max": None, "n": 0}
    return {"p50": round(statistics.median(xs), 1), "max": round(max(xs), 1), "n": len(xs)}


async def until(condition: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


# -- WebRTC: the engine track over a loopback aiortc pair ------------------------------------


@dataclass(slots=True)
class ProbeSource:
    """A RuntimeSession as the track's source, noting when each turn's first frame was ready.

    The track still takes frames just in time (nothing is read ahead, so pause behaves as in
    production); a poller watches the engine's ``pending_samples`` every millisecond to note
    when the first 80 ms of a turn became available, and the frames the track takes are noted.
    """

    session: RuntimeSession
    first_ready: dict[int, float] = field(default_factory=dict)
    taken: list[tuple[float, int, int, bool]] = field(default_factory=list)

    @property
    def sample_rate(self) -> int:
        return self.session.sample_rate

    @property
    def state(self) -> SessionState:
        return self.session.state

    async def run(self) -> None:
        frame = self.session.sample_rate * 80 // 1000
        while True:
            engine = self.session.engine
            if engine.turn_id not in self.first_ready and engine.pending_samples >= frame:
                self.first_ready[engine.turn_id] = time.monotonic()
            await asyncio.sleep(0.001)

    def next_output_nowait(self) -> Output | None:
        out = self.session.next_output_nowait()
        if isinstance(out, SpeechFrame):
            self.taken.append((time.monotonic(), out.turn_id, out.index, out.last_in_pause))
        return out

    def pause(self) -> Paused:
        return self.session.pause()

    def resume(self) -> Resumed:
        return self.session.resume()


async def webrtc_run(backend: HibariBackend, turns: int) -> dict[str, Any]:
    async with EngineRuntime(backend, workers=2) as runtime:
        session = await runtime.open_session(SessionConfig(sample_rate=48000))
        probe = ProbeSource(session)
        reader = asyncio.create_task(probe.run(), name="bench-probe")
        track = EngineTrack(probe, trace_packets=200_000)
        bot = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        caller = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        received: list[tuple[float, float]] = []
        listeners: list[asyncio.Task[None]] = []

        async def listen(remote: Any) -> None:
            while True:
                frame = await remote.recv()
                pcm = frame.to_ndarray().astype(np.float32)
                received.append((time.monotonic(), float(np.sqrt(np.mean(pcm * pcm)))))

        @caller.on("track")
        def on_track(remote: Any) -> None:
            listeners.append(asyncio.create_task(listen(remote), name="bench-caller-listen"))

        bot.addTrack(track)
        caller.addTransceiver("audio", direction="recvonly")
        await caller.setLocalDescription(await caller.createOffer())
        await bot.setRemoteDescription(caller.localDescription)
        await bot.setLocalDescription(await bot.createAnswer())
        await caller.setRemoteDescription(bot.localDescription)
        try:
            await until(lambda: bot.connectionState == "connected" and bool(received), "aiortc to connect")
            rows = [await webrtc_turn(session, track, probe, received) for _ in range(turns)]
        finally:
            for task in (*listeners, reader):
                task.cancel()
            await asyncio.gather(*listeners, reader, return_exceptions=True)
            await bot.close()
            await caller.close()
            await session.aclose()
    timeline = rows[0].pop("timeline")
    for row in rows[1:]:
        row.pop("timeline")
    return {
        "turns": rows,
        "first_frame_to_first_packet_ms": summary([r["first_frame_to_first_packet_ms"] for r in rows]),
        "barge_in_to_last_packet_ms": summary([r["barge_in_to_last_packet_ms"] for r in rows]),
        "timeline": timeline,
        "track": {
            "packets": track.stats.packets,
            "underruns": track.stats.underruns,
            "late": track.stats.late,
        },
    }


async def webrtc_turn(
    session: RuntimeSession, track: EngineTrack, probe: ProbeSource, received: list[tuple[float, float]]
) -> dict[str, Any]:
    t_cmd = time.monotonic()
    session.start(ANSWER)
    session.flush()
    turn = session.engine.turn_id
    audible = [p for p in track.trace if p.turn_id == turn and p.audible]
    await until(lambda: any(p.turn_id == turn and p.audible for p in track.trace), "the first packet")
    # mid-frame, so the frame playing has to finish after the barge-in
    await until(
        lambda: sum(p.turn_id == turn for p in track.trace) >= 4 * HEARD_FRAMES + 2, "the answer to play"
    )
    t_barge = time.monotonic()
    track.pause()
    await asyncio.sleep(0.6)
    session.reset()
    await asyncio.sleep(0.4)
    audible = [p for p in track.trace if p.turn_id == turn and p.audible]
    frames = [f for f in probe.taken if f[1] == turn]
    fade = {f[2] for f in frames if f[3]}
    after = [p for p in audible if p.time_s > t_barge]
    rest = [p for p in after if p.frame_index not in fade]
    heard_rx = [t for t, rms in received if t >= t_cmd and rms > AUDIBLE_RMS]
    rx_after = [t for t in heard_rx if t > t_barge]
    return {
        "first_frame_to_first_packet_ms": ms(audible[0].time_s - probe.first_ready[turn]),
        "command_to_first_packet_ms": ms(audible[0].time_s - t_cmd),
        "first_packet_to_first_audio_received_ms": ms(heard_rx[0] - audible[0].time_s) if heard_rx else None,
        # the rest of the frame playing at the barge-in (the engine's faded tail frame apart)
        "barge_in_to_last_packet_ms": ms(max(p.time_s for p in rest) - t_barge) if rest else 0.0,
        "barge_in_to_fade_tail_end_ms": ms(max(p.time_s for p in after) - t_barge) if after else 0.0,
        "packets_after_barge_in": sum(p.frame_index not in fade for p in after),
        "fade_packets_after_barge_in": sum(p.frame_index in fade for p in after),
        "frames_begun_after_barge_in": len(
            {p.frame_index for p in after if p.frame_index not in fade and p.quarter == 0}
        ),
        "barge_in_to_last_audio_received_ms": ms(max(rx_after) - t_barge) if rx_after else 0.0,
        "timeline": {
            "t0": t_cmd,
            "engine_frames": [f[0] - t_cmd for f in frames],  # when the track took each frame
            "packets": [p.time_s - t_cmd for p in audible],
            "received": [t - t_cmd for t in heard_rx],
            "barge_in": t_barge - t_cmd,
        },
    }


# -- telephony: the /twilio endpoint and a simulated carrier ----------------------------------


class PhoneBot:
    """The Pipecat bot of the telephony run, with its probes."""

    def __init__(self, runtime: EngineRuntime, turns: int) -> None:
        self.runtime = runtime
        self.turns = turns
        self.probe = AudioProbe()
        self.transport: TwilioMediaStreamTransport | None = None

    async def __call__(self, call: TwilioCall) -> None:
        self.transport = TwilioMediaStreamTransport(call)
        trigger = SpeechTrigger([ANSWER] * self.turns)
        tts = WarmlineTTSService(runtime=self.runtime)
        await run_bot(self.transport, tts, trigger, sample_rate=8000, before_output=[self.probe])


def speech(backend: HibariBackend, text: str) -> bytes:
    return g711.encode(spoken_pcm(backend, text, 8000)).tobytes()


async def telephony_run(backend: HibariBackend, turns: int) -> dict[str, Any]:
    question, barge_in = speech(backend, QUESTION), speech(backend, BARGE_IN)
    async with EngineRuntime(backend, workers=2) as runtime:
        bot = PhoneBot(runtime, turns)
        app = Starlette(routes=twilio_routes(bot, TwilioSettings()))
        server = serving(app, ServerSettings(), host="127.0.0.1", port=0)
        async with server as (host, port), connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
            if True:
                carrier = Carrier(ws)
                clock = asyncio.create_task(carrier.run(), name="bench-carrier")
                try:
                    await carrier.begin()
                    carrier.say(question)
                    for _ in range(turns):
                        echoed = len(carrier.log.echoed)
                        clears = len(carrier.log.clears)
                        ok = await carrier.wait_until(
                            lambda c, e=echoed: len(c.log.echoed) - e >= HEARD_FRAMES, max_ticks=2000
                        )
                        if not ok:
                            raise TimeoutError("no answer")
                        carrier.say(barge_in)
                        if not await carrier.wait_until(
                            lambda c, n=clears: len(c.log.clears) > n, max_ticks=2000
                        ):
                            raise TimeoutError("no clear")
                    await carrier.wait_until(lambda c: c.idle_for(50), max_ticks=500)
                    await carrier.end()
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
    assert bot.transport is not None
    return telephony_rows(bot, carrier)


def telephony_rows(bot: PhoneBot, carrier: Carrier) -> dict[str, Any]:
    assert bot.transport is not None
    timeline = list(bot.transport.output().trace)
    sent = [(e.time_s, e.seq) for e in timeline if e.kind == "frame_sent"]
    barges = [timeline[i - 1].time_s for i, e in enumerate(timeline) if e.kind == "clear" and i > 0]
    contexts: dict[str | None, float] = {}
    for t, ctx in bot.probe.frames:
        contexts.setdefault(ctx, t)
    starts = sorted(contexts.values())
    media = [r for r in carrier.log.received if isinstance(r.message, tp.OutboundMedia)]
    clear_times = [r.time_s for r in carrier.log.received if isinstance(r.message, tp.Clear)]
    rows = []
    for k, t_first in enumerate(starts):
        t_next = starts[k + 1] if k + 1 < len(starts) else float("inf")
        first_sent = next((t for t, _ in sent if t >= t_first), None)
        first_rx = next((r.time_s for r in media if r.time_s >= t_first), None)
        barge = next((b for b in barges if t_first < b < t_next), None)
        row: dict[str, Any] = {
            "first_frame_to_first_packet_ms": ms(first_sent - t_first) if first_sent else None,
            "first_packet_to_carrier_ms": ms(first_rx - first_sent) if first_rx and first_sent else None,
        }
        if barge is not None:
            after = [t for t, _ in sent if barge < t < t_next]
            clear_rx = next((t for t in clear_times if t >= barge), None)
            row.update(
                {
                    "barge_in_to_last_packet_ms": ms(max(after) - barge) if after else 0.0,
                    "frames_sent_after_barge_in": len(after),
                    "media_after_clear": sum(1 for r in media if clear_rx and clear_rx < r.time_s < t_next),
                }
            )
        rows.append(row)
    cut = [r for r in rows if "barge_in_to_last_packet_ms" in r]
    t0 = starts[0]
    first_barge = next((b for b in barges if b > t0), t0)
    window = [t0 - 0.2, first_barge + 0.6]
    return {
        "turns": rows,
        "first_frame_to_first_packet_ms": summary([r["first_frame_to_first_packet_ms"] for r in rows]),
        "barge_in_to_last_packet_ms": summary([r["barge_in_to_last_packet_ms"] for r in cut]),
        "cleared_frames": len(carrier.log.cleared_echoes),
        "clears": len(carrier.log.clears),
        "violations": len(carrier.log.violations),
        "late_frames": bot.transport.call.late_frames,
        "timeline": {
            "engine_frames": [t - t0 for t, _ in bot.probe.frames if window[0] <= t <= window[1]],
            "packets": [t - t0 for t, _ in sent if window[0] <= t <= window[1]],
            "received": [r.time_s - t0 for r in media if window[0] <= r.time_s <= window[1]],
            "marks": [
                e.time_s - t0
                for e in timeline
                if e.kind == "mark_returned" and window[0] <= e.time_s <= window[1]
            ],
            "barge_in": first_barge - t0,
        },
    }


# -- report -----------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()}


def setup_namespace() -> None:
    for command in NETNS_SETUP:
        subprocess.run(command.split(), check=True)


async def run(turns: int) -> dict[str, Any]:
    backend = HibariBackend()
    await asyncio.to_thread(backend.load)
    webrtc = await webrtc_run(backend, turns)
    telephony = await telephony_run(backend, turns)
    return {
        "machine": machine(),
        "turns": turns,
        "heard_frames_before_barge_in": HEARD_FRAMES,
        "webrtc": webrtc,
        "telephony": telephony,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5, help="answers per transport (each cut by a barge-in)")
    parser.add_argument("--quick", action="store_true", help="2 answers per transport")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument(
        "--no-netns", action="store_true", help="run here (ICE may use this machine's addresses)"
    )
    args = parser.parse_args()
    if not args.no_netns and os.environ.get(NETNS_MARK) != "1":
        if shutil.which("unshare") is None:
            parser.error("unshare is missing: install util-linux, or pass --no-netns")
        env = {**os.environ, NETNS_MARK: "1"}
        return subprocess.call(["unshare", "-rn", sys.executable, __file__, *sys.argv[1:]], env=env)
    if os.environ.get(NETNS_MARK) == "1":
        setup_namespace()
    report = asyncio.run(run(2 if args.quick else args.turns))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / JSON_NAME).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    plot(report, args.out / PNG_NAME)
    print(table(report))
    print(f"\nwrote {args.out / JSON_NAME} and {args.out / PNG_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
