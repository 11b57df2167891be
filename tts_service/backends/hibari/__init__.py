"""hibari: the embedded default voice, a small ONNX unit synthesizer whose voice ships in its wheel."""

from tts_service.backends.hibari.backend import HibariBackend

__all__ = ["HibariBackend"]
