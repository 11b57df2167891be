"""numpy's BLAS on one thread while the agent serves (``agent.blas``): no core spun beside whisper."""

from __future__ import annotations

import asyncio

import numpy as np
from threadpoolctl import threadpool_limits

from agent.blas import blas_threads, one_blas_thread
from agent.pipeline import AgentParts
from agent.server import AgentSettings, create_agent_app
from transports.serve import serving
from transports.ws.settings import ServerSettings
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime


def test_one_blas_thread_limits_every_blas_library_and_gives_back_its_count() -> None:
    np.ones((64, 64)) @ np.ones((64, 64))  # numpy's BLAS is loaded and has run
    with threadpool_limits(limits=2, user_api="blas"):  # a pool of two, whatever the machine
        before = blas_threads()
        assert before and set(before) == {2}
        with one_blas_thread():
            assert set(blas_threads()) == {1}
            product = np.arange(16.0).reshape(4, 4) @ np.eye(4)  # products still work on one
        assert blas_threads() == before
    assert product[3, 2] == 14.0


def test_the_agent_server_holds_numpy_to_one_thread_while_it_serves(hibari_backend: Backend) -> None:
    seen: dict[str, list[int]] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            app = create_agent_app(runtime, AgentSettings(), parts=AgentParts(runtime=runtime))
            seen["before"] = blas_threads()
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0):
                seen["serving"] = blas_threads()
            seen["after"] = blas_threads()

    with threadpool_limits(limits=2, user_api="blas"):
        asyncio.run(main())
    assert set(seen["before"]) == {2}
    assert set(seen["serving"]) == {1}
    assert seen["after"] == seen["before"]
