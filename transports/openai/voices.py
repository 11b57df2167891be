"""Which of our voices speaks for each of OpenAI's voice names, so tools that default to them work.

OpenAI's built-in voices have no counterpart here, so each name maps to the usable voice closest
in character (gender and accent; hibari's ``fable`` is a British male voice, as OpenAI's is):
the first of its preferences that this server can load, else the backend's default voice. A
name of our own always means that voice. Anything else is an unknown voice (HTTP 400).

========================================  ==============================
OpenAI voice                              preferences (hibari voices)
========================================  ==============================
alloy, nova, marin                        heart
coral, shimmer                            kore, heart
sage                                      emma, heart
fable                                     fable, fenrir
ash, ballad, echo, onyx, verse, cedar     fenrir, fable
========================================  ==============================

Only ``heart`` ships inside the wheel; the other hibari voices are used once they are in hibari's
cache (Warmline never downloads), so on a fresh install every OpenAI name speaks as ``heart``.
``GET /v1/audio/voices`` lists what each name resolves to on this server.
"""

from __future__ import annotations

from collections.abc import Sequence

#: OpenAI's built-in voice names and the voices of ours that stand in for them, best first
OPENAI_VOICES: dict[str, tuple[str, ...]] = {
    "alloy": ("heart",),
    "nova": ("heart",),
    "marin": ("heart",),
    "coral": ("kore", "heart"),
    "shimmer": ("kore", "heart"),
    "sage": ("emma", "heart"),
    "fable": ("fable", "fenrir"),
    "ash": ("fenrir", "fable"),
    "ballad": ("fenrir", "fable"),
    "echo": ("fenrir", "fable"),
    "onyx": ("fenrir", "fable"),
    "verse": ("fenrir", "fable"),
    "cedar": ("fenrir", "fable"),
}


def resolve_voice(name: str, usable: Sequence[str], default: str) -> str | None:
    """The voice of ours that ``name`` means here, or None when it names no voice at all."""
    if name in usable:
        return name
    key = name.strip().lower()
    if key in usable:
        return key
    preferences = OPENAI_VOICES.get(key)
    if preferences is None:
        return None
    return next((voice for voice in preferences if voice in usable), default)


def aliases(usable: Sequence[str], default: str) -> dict[str, str]:
    """Every OpenAI voice name and the voice it resolves to on this server."""
    return {name: resolve_voice(name, usable, default) or default for name in OPENAI_VOICES}


__all__ = ["OPENAI_VOICES", "aliases", "resolve_voice"]
