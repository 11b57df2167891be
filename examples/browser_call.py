"""A voice bot you call from a browser (WebRTC), with the agent's parts (``warmline call`` does more).

python examples/browser_call.py      # then open http://127.0.0.1:7860/ and press Call

The page sends your microphone over WebRTC (aiortc on this side, SmallWebRTC's offer/answer);
the agent's pipeline answers with the demo responder. Talk over it: it stops within one frame.
"""

import asyncio
import contextlib

from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport
from starlette.applications import Starlette

from agent.pipeline import AgentParts, build_pipeline, run_agent
from transports.serve import serving
from transports.webrtc.endpoint import OPUS_SAMPLE_RATE, WebRTCEndpoint, call_page_routes, webrtc_params
from transports.ws.settings import ServerSettings
from tts_service.backends import create_backend
from tts_service.runtime import EngineRuntime


async def main() -> None:
    async with EngineRuntime(create_backend("hibari")) as runtime:  # one warm model for every call
        parts = AgentParts(runtime=runtime)  # demo responder; swap llm= for a real LLM service

        async def bot(connection: SmallWebRTCConnection) -> None:
            agent = build_pipeline(SmallWebRTCTransport(connection, webrtc_params()), parts)
            await run_agent(agent, in_sample_rate=16000, out_sample_rate=OPUS_SAMPLE_RATE)

        endpoint = WebRTCEndpoint(bot)
        app = Starlette(routes=[*call_page_routes(), *endpoint.routes()])
        try:
            async with serving(app, ServerSettings(), port=7860) as (host, port):
                print(f"call page on http://{host}:{port}/ (Ctrl-C to stop)")
                await asyncio.Event().wait()
        finally:
            await endpoint.aclose()  # hang up every call


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends every call and exits quietly
        asyncio.run(main())
