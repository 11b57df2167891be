"""Shared fixtures: one warm hibari backend for the whole test session, and the recognizer."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asr import recognize
from hypothesis import settings

from tts_service.backends.hibari.backend import HibariBackend

# Deterministic property tests: the same examples on every run and machine, no wall-clock deadline.
settings.register_profile("warmline", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("warmline")


@pytest.fixture(scope="session")
def hibari_backend() -> HibariBackend:
    """A loaded HibariBackend shared by every test (loading costs about a second)."""
    backend = HibariBackend()
    backend.load()
    return backend


@pytest.fixture(scope="session")
def recognizer() -> Callable[..., str | None]:
    """``tests/asr.py``'s ``recognize``: which grammar sentence the audio says, or None."""
    return recognize
