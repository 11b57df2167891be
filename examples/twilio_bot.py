"""A Twilio phone bot in ten lines with the agent's parts (``warmline call`` does this and more).

python examples/twilio_bot.py        # then point a Twilio number's voice webhook at https://HOST/twiml
"""

import asyncio
import contextlib

from starlette.applications import Starlette

from agent.pipeline import AgentParts, build_pipeline, run_agent
from transports.serve import serving
from transports.twilio.call import TwilioCall
from transports.twilio.pipecat_transport import TwilioMediaStreamTransport
from transports.twilio.server import twilio_routes
from transports.ws.settings import ServerSettings
from tts_service.backends import create_backend
from tts_service.runtime import EngineRuntime


async def main() -> None:
    async with EngineRuntime(create_backend("hibari")) as runtime:  # one warm model for every call
        parts = AgentParts(runtime=runtime)  # demo responder; swap llm= for a real LLM service

        async def bot(call: TwilioCall) -> None:
            transport = TwilioMediaStreamTransport(call)
            await run_agent(
                build_pipeline(transport, parts, name=call.name), in_sample_rate=8000, out_sample_rate=8000
            )

        async with serving(Starlette(routes=twilio_routes(bot)), ServerSettings(), port=7860) as (host, port):
            print(f"Twilio bot on http://{host}:{port}/twiml (Ctrl-C to stop)")
            await asyncio.Event().wait()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends every call and exits quietly
        asyncio.run(main())
