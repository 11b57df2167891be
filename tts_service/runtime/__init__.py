"""The engine's runtime: the only bridge between the synchronous engine and asyncio.

    async with EngineRuntime(create_backend("hibari")) as runtime:
        call = await runtime.open_session(SessionConfig(sample_rate=8000))

``bridge`` (``EngineRuntime`` and ``RuntimeSession``: the runtime's lifecycle, its sessions and their
verbs, on the event loop), ``scheduler`` (the job queue, earliest deadline first, the worker
threads and the batches: threads, no asyncio), ``warmup`` (one warm-up turn before the first call).
"""

from tts_service.runtime.bridge import EngineRuntime, RuntimeSession, RuntimeStats, SessionConfig

__all__ = ["EngineRuntime", "RuntimeSession", "RuntimeStats", "SessionConfig"]
