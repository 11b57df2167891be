"""Give the memory a finished call freed back to the system (glibc's ``malloc_trim``).

A phone call builds tens of MB in C heaps (the recognizer's decoder, the VAD's tensors, the
engine session's buffers) on several threads. When the call ends those are freed, but glibc keeps
freed pages in its per-thread arenas for reuse; under changing concurrency the arenas' high-water
marks climb for a while before they level off, so a server that carried a burst of calls keeps the
burst's RSS for good. ``malloc_trim(0)`` walks every arena and returns its free pages.

Elsewhere than glibc (musl, macOS) there is no such call and :func:`trim` does nothing; the
process is as it would be without it. The trim walks every arena under its lock (a few ms on a
server's heap), so callers on an event loop use a :class:`Trimmer`: one thread of its own, trims
never queued.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

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


class Trimmer:
    """Trims on one thread of its own, one trim at a time, for a server that trims per call.

    A trim asked for while one runs is folded into it (that one returns what the other freed
    too): calls ending together never queue trims, and the process gains one thread, made on
    the first trim and joined by ``aclose``, not threads of the loop's default executor.
    """

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._running: asyncio.Future[bool] | None = None
        self._closed = False

    async def trim(self) -> bool:
        """Trim now (or join the trim under way); True when memory was released."""
        if self._closed or not available():
            return False
        if self._running is None:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warmline-heap-trim")
            self._running = asyncio.get_running_loop().run_in_executor(self._executor, trim)
            self._running.add_done_callback(self._finished)
        return await asyncio.shield(self._running)

    def _finished(self, future: asyncio.Future[bool]) -> None:
        self._running = None
        if not future.cancelled() and future.exception() is None:
            log.debug("heap trimmed (released: %s)", future.result())

    async def aclose(self) -> None:
        """Wait for a trim under way, then stop the thread."""
        self._closed = True
        if self._running is not None:
            await asyncio.gather(asyncio.shield(self._running), return_exceptions=True)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)


__all__ = ["Trimmer", "available", "trim"]
