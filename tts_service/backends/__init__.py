"""Speech model backends and the registry that builds them by name.

Backend modules import heavy runtimes (onnxruntime, torch), so this package imports none of them:
``create_backend`` imports the one asked for. Nothing here loads weights; call ``load()`` on the
result.
"""

from __future__ import annotations

from typing import Any

from tts_service.engine.ports import Backend
from tts_service.errors import InvalidInputError, ModelNotAvailableError

_KNOWN = ("hibari", "piper", "pocket", "dia2")


def available_backends() -> tuple[str, ...]:
    """Names ``create_backend`` accepts."""
    return _KNOWN


def create_backend(name: str, **options: Any) -> Backend:
    """An unloaded backend called ``name``, built with ``options``.

    Raises InvalidInputError for an unknown name, ModelNotAvailableError when the backend's
    runtime is not installed (the message says what to install).
    """
    if name == "hibari":
        from tts_service.backends.hibari.backend import HibariBackend

        return HibariBackend(**options)
    if name == "piper":
        try:
            import espeakng_loader  # noqa: F401  (espeak-ng's library and data)
            import phonemizer  # noqa: F401
        except ImportError as exc:
            raise ModelNotAvailableError(
                f"the piper backend needs phonemizer and espeakng-loader ({exc}): "
                f"pip install 'warmline[piper]'"
            ) from exc
        from tts_service.backends.piper.backend import PiperBackend

        return PiperBackend(**options)
    if name == "pocket":
        try:
            from tts_service.backends.pocket.backend import PocketBackend
        except ImportError as exc:
            raise ModelNotAvailableError(
                f"the pocket backend needs torch and pocket-tts ({exc}): "
                f"pip install torch==2.13.0 pocket-tts==4.0.1"
            ) from exc
        return PocketBackend(**options)
    if name == "dia2":
        try:
            from tts_service.backends.dia2.backend import Dia2Backend
        except ImportError as exc:
            raise ModelNotAvailableError(
                f"the dia2 backend needs torch ({exc}): pip install torch, then "
                f"pip install git+https://github.com/nari-labs/dia2"
            ) from exc
        return Dia2Backend(**options)
    raise InvalidInputError(f"unknown backend {name!r}; known: {', '.join(_KNOWN)}")
