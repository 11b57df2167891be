"""40 valid WebRTC offers at once to ``warmline call --max-calls 4``; prints a JSON result.

    unshare -rn python tests/agent_offer_flood_scenario.py

Run by ``test_agent_hostile.py`` in a network namespace of its own (``webrtc_call_scenario``'s
setup: what ICE gathers is the namespace's veth pair, nothing outside). A plain aiortc peer makes
one real offer; it is posted 40 times at once, so every one is negotiated (ICE gathering, the
answer) concurrently. The result counts the answers' statuses, the most calls the agent ever
ran, and ``/healthz``; then trickled candidates on a live call, garbage and one well-formed; then
the calls end by themselves (their peer never connects) and ``calls_left`` is what remains.
The last line of stdout is the JSON result. Test scaffolding.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import aiohttp
from aiortc import RTCPeerConnection

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webrtc_call_scenario import setup_namespace, wait_for

from agent.pipeline import AgentParts
from agent.server import AgentSettings, AgentState, create_agent_app
from transports.serve import serving
from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend
from tts_service.runtime import EngineRuntime

MAX_CALLS = 4
OFFERS = 40
#: the peer never connects: the endpoint frees each slot after its connect timeout (15 s)
CALLS_END_TIMEOUT_S = 60.0
GOOD_CANDIDATE = "candidate:1 1 udp 2122260223 10.200.0.2 50000 typ host generation 0"
PATCHES = {"garbage": "garbage", "candidate:1": "candidate:1", "good": GOOD_CANDIDATE}

log = logging.getLogger("flood-scenario")


async def real_offer() -> tuple[RTCPeerConnection, str]:
    """An offer as a WebRTC peer makes it: audio, ICE credentials, fingerprint, its candidates."""
    pc = RTCPeerConnection()
    pc.addTransceiver("audio", direction="sendrecv")
    await pc.setLocalDescription(await pc.createOffer())
    return pc, pc.localDescription.sdp


async def most_calls(state: AgentState, seen: list[int], stop: asyncio.Event) -> None:
    """Sample the agent's WebRTC call count until ``stop``; the highest goes in ``seen``."""
    while not stop.is_set():
        seen[0] = max(seen[0], state.calls["webrtc"])
        await asyncio.sleep(0.005)


async def scenario() -> dict[str, Any]:
    result: dict[str, Any] = {}
    async with EngineRuntime(HibariBackend(), workers=1) as runtime:
        settings = AgentSettings(max_calls=MAX_CALLS)
        app = create_agent_app(runtime, settings, parts=AgentParts(runtime=runtime))
        state: AgentState = app.state.agent
        client, sdp = await real_offer()
        seen, stop = [0], asyncio.Event()
        sampler = asyncio.create_task(most_calls(state, seen, stop), name="flood-sampler")
        try:
            async with (
                serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port),
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http,
            ):
                url = f"http://{host}:{port}/api/offer"

                async def post() -> tuple[int, dict[str, Any]]:
                    async with http.post(url, json={"sdp": sdp, "type": "offer"}) as resp:
                        return resp.status, await resp.json()

                answers = await asyncio.gather(*(post() for _ in range(OFFERS)))
                result["statuses"] = [status for status, _ in answers]
                await wait_for(lambda: state.calls["webrtc"] >= min(MAX_CALLS, OFFERS), 30, "the calls")
                await asyncio.sleep(0.5)  # nothing else starts late
                async with http.get(f"http://{host}:{port}/healthz") as resp:
                    result["health_calls"] = (await resp.json())["calls"]
                pc_id = next(body["pc_id"] for status, body in answers if status == 200)
                result["patches"] = {}
                for name, candidate in PATCHES.items():
                    patch = {
                        "pc_id": pc_id,
                        "candidates": [{"candidate": candidate, "sdp_mid": "0", "sdp_mline_index": 0}],
                    }
                    async with http.patch(url, json=patch) as resp:
                        result["patches"][name] = resp.status
                        log.info("patch %s: %d %s", name, resp.status, await resp.text())
                await wait_for(lambda: state.calls["webrtc"] == 0, CALLS_END_TIMEOUT_S, "the calls to end")
                result["calls_left"] = state.calls["webrtc"]
        finally:
            stop.set()
            await sampler
            await client.close()
    result["most_calls"] = seen[0]
    return result


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    setup_namespace()
    try:
        result = asyncio.run(scenario())
        result["ok"] = True
    except Exception as exc:  # reported to the test as data, with the traceback on stderr
        log.exception("scenario failed")
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
