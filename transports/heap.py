"""Give the memory a finished call freed back to the system (glibc's ``malloc_trim``).

A phone call builds tens of MB in C heaps (the recognizer's decoder, the VAD's tensors, the
engine session's buffers) on several threads. When the call ends those are freed, but glibc keeps
freed pages in its per-thread arenas for reuse; under changing concurrency the arenas' high-water
marks climb for a while before they level off, so a server that carried a burst of calls keeps the
burst's RSS for good. ``malloc_trim(0)`` walks every arena and returns its free pages.

Elsewhere than glibc (musl, macOS) there is no such call and :func:`trim` does nothing; the
process is as it would be without it. The trim walks every arena under its lock (a few ms on a
server's heap), so callers on an event loop run it in a worker thread: :func:`trim_soon`.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable

log = logging.getLogger("warmline.heap")


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        function = libc.malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


def available() -> bool:
    """Whether this process's C library can give freed heap memory back (glibc)."""
    return _malloc_trim() is not None


def trim() -> bool:
    """Return every arena's free pages to the system; True when some memory was released."""
    function = _malloc_trim()
    return bool(function is not None and function(0))


async def trim_soon() -> bool:
    """:func:`trim` in a worker thread, so the event loop never waits on the arenas' locks."""
    if not available():
        return False
    released = await asyncio.to_thread(trim)
    log.debug("heap trimmed (released: %s)", released)
    return released


__all__ = ["available", "trim", "trim_soon"]
