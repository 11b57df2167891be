"""An event loop that stalls for a second: pacing recovers without a burst and without loss.

The server and the client share the test's loop, so a blocking ``time.sleep(1.0)`` mid-turn
stalls both, as a garbage collection pause or a starved process would stall a server. Judged
from the frames' own header times (when the server sent each, in ms since the turn began): after
the stall the server sends at most its lead and the late frame at once, then paces again at
80 ms; every frame of the turn arrives (the same samples as an unstalled turn of the same text).
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time

from websockets.asyncio.client import connect
from ws_helpers import LiveServer, receive_until, run_with_server, send

from transports.ws.settings import ServerSettings
from tts_service import wire as wp
from tts_service.backends.hibari.backend import HibariBackend

TEXT = "Thank you for waiting, your table is ready now. I can help you with anything else you need."
STALL_S = 1.0


def test_a_one_second_loop_stall_costs_no_frame_and_makes_no_burst(hibari_backend: HibariBackend) -> None:
    settings = ServerSettings()
    lead = settings.lead_frames
    result: dict[str, list[wp.AudioMessage]] = {}

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await receive_until(ws, "ready")
            await send(ws, cmd="start", text=TEXT)
            result["plain"] = (await receive_until(ws, "done")).frames
            await send(ws, cmd="start", text=TEXT)
            stalled = []
            for _ in range(6):
                message = await asyncio.wait_for(ws.recv(), 30)
                assert isinstance(message, bytes)
                stalled.append(wp.decode_audio_frame(message))
            time.sleep(STALL_S)  # noqa: ASYNC251 -- the stall under test: it blocks the whole loop
            result["stalled"] = stalled + (await receive_until(ws, "done")).frames
        result["late"] = [
            server.state.metrics.registry.get_sample_value("warmline_ws_late_frames_total") or 0.0
        ]  # type: ignore[list-item]

    run_with_server(hibari_backend, body, settings)
    plain, stalled = result["plain"], result["stalled"]
    assert sum(f.num_samples for f in stalled) == sum(f.num_samples for f in plain)  # nothing lost
    sent_ms = [f.ms for f in stalled]
    gaps = [b - a for a, b in itertools.pairwise(sent_ms)]
    stall = max(range(len(gaps)), key=gaps.__getitem__)
    assert gaps[stall] >= STALL_S * 1000 * 0.9  # the stall shows in the server's own send times
    after = sent_ms[stall + 1 :]
    burst = [t for t in after if t - after[0] < 40.0]
    assert len(burst) <= lead + 1, burst  # the late frame and the lead, then real time again
    paced = [b - a for a, b in itertools.pairwise(after[lead + 1 :])]
    assert paced and statistics.median(paced) > 60.0, paced  # 80 ms apart, give or take a wakeup
