"""Speech model backends and the registry that builds them by name.

Backend modules import heavy runtimes (onnxruntime, torch), so this package imports none of them:
``create_backend`` imports the one asked for. Nothing here loads weights; call ``load()`` on the
result.
"""

from __future__ import annotations

from typing import Any

from tts_service.backends.base import Backend
from tts_service.errors import InvalidInputError

_KNOWN = ("hibari",)


def available_backends() -> tuple[str, ...]:
    """Names ``create_backend`` accepts."""
    return _KNOWN


def create_backend(name: str, **options: Any) -> Backend:
    """An unloaded backend called ``name``, built with ``options``; raises InvalidInputError."""
    if name == "hibari":
        from tts_service.backends.hibari import HibariBackend

        return HibariBackend(**options)
    raise InvalidInputError(f"unknown backend {name!r}; known: {', '.join(_KNOWN)}")
