"""Warmline: a persistent-state streaming TTS engine for voice calls.

The engine core (``tts_service.engine``) is sans-I/O and synchronous; ``tts_service.runtime`` is the
only bridge to asyncio; backends (``tts_service.backends``) are the only modules that import model
runtimes.
"""

__version__ = "0.2.0"
