"""Keep hibari's large buffers off glibc's heap, so the memory a unit took goes back when it ends.

One unit's graph run and DSP allocate tens of MB in buffers of 0.3 to 10 MB (spectra of 601 bins
per 12.5 ms frame, complex, several at once). glibc's malloc serves a buffer that large with mmap
at first, but each one freed raises its mmap threshold (up to 32 MB), so later ones come from the
heap arenas; a heap fragmented by them stays resident, and a server's RSS ratchets up with its
longest units, on every worker thread's arena (measured on one thread: +250 MB kept after three
turns of hostile text, still growing). Fixing the threshold at ``MMAP_THRESHOLD`` keeps every
such buffer in mmap, given back to the system when it is freed (measured: +21 MB after the same
turns, hibari's own bounded caches; no slower on ordinary sentences).

The setting is the process's, once, and harmless to the rest of it (small allocations are as
before). Where the C library has no ``mallopt`` (musl, macOS) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

__all__ = ["MMAP_THRESHOLD", "keep_large_buffers_off_the_heap"]

#: buffers at least this large come from mmap, and go back to the system when freed
MMAP_THRESHOLD = 256 * 1024
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h


@functools.cache
def keep_large_buffers_off_the_heap() -> bool:
    """Fix glibc's mmap threshold at ``MMAP_THRESHOLD`` (once); False where that cannot be done."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False  # not glibc
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
