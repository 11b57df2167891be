"""One warm-up turn before the first call, so the first caller does not pay for the model load.

    warm_backend(backend, config)          # no event loop yet (a worker's prewarm): this thread
    await warm_runtime(runtime, config)    # in a loop: the model loads off it, on the runtime

A backend's ``load()`` loads its weights and runs one inference. The warm-up turn then says
``WARMUP_TEXT`` through an engine session at the adapter's own settings (voice, sample rate,
speed), so what a first turn would otherwise pay once (that voice, the resampler to that rate,
the text stages, the runtime's worker threads) is paid here. Nothing of it is heard: its frames
are dropped and its session closed. The adapters (``tts_service.livekit``, ``tts_service.pipecat``) call
these; ``warmline serve`` loads the model before it serves (``transports.serve``).
"""

from __future__ import annotations

from tts_service.engine.config import SessionConfig
from tts_service.engine.ports import Backend
from tts_service.engine.session import EngineSession
from tts_service.engine.types import Done
from tts_service.runtime import EngineRuntime

#: what the warm-up turn says: a clause and a sentence end, so both kinds of unit are made once
WARMUP_TEXT = "Hello, and welcome."
#: bound on the inline rounds of a warm-up turn (a short turn needs two or three)
_MAX_ROUNDS = 64


def warm_backend(backend: Backend, config: SessionConfig | None = None) -> None:
    """Load ``backend`` and say the warm-up turn through an inline engine session, on this thread.

    Blocks for the load (about a second for hibari): for a thread with no event loop, such as a
    LiveKit worker's prewarm function, never for one with a loop running.
    """
    backend.load()
    session = EngineSession(backend, config or SessionConfig())
    try:
        session.start(WARMUP_TEXT)
        session.flush()
        for _ in range(_MAX_ROUNDS):
            session.run_jobs()
            if any(isinstance(out, Done) for out in session.drain()):
                return
    finally:
        session.close()


async def warm_runtime(runtime: EngineRuntime, config: SessionConfig | None = None) -> None:
    """Start ``runtime`` (the model loads on its thread) and say the warm-up turn through it.

    The event loop only waits: the load and the synthesis run on the runtime's threads.
    """
    await runtime.start()
    session = await runtime.open_session(config or SessionConfig())
    async with session:
        session.start(WARMUP_TEXT)
        session.flush()
        async for out in session:
            if isinstance(out, Done):
                return


__all__ = ["WARMUP_TEXT", "warm_backend", "warm_runtime"]
