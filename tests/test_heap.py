"""``transports.heap``: freed C heap memory goes back to the system when a call ends."""

from __future__ import annotations

import asyncio
import resource
from pathlib import Path

import pytest

from transports import heap


def rss_mb() -> float:
    fields = Path("/proc/self/statm").read_text().split()
    return int(fields[1]) * resource.getpagesize() / 2**20


@pytest.mark.skipif(not heap.available(), reason="not glibc: there is no malloc_trim to call")
def test_trim_returns_the_pages_of_freed_blocks_that_glibc_kept() -> None:
    # 64 KiB blocks come from malloc's heap (below its mmap threshold); keeping one in 64 alive
    # pins the heap's top, so glibc cannot shrink it on free and keeps the rest as free chunks
    blocks = [bytes(64 * 1024) for _ in range(3200)]  # 200 MiB
    pins = blocks[::64]
    del blocks
    kept = rss_mb()
    assert asyncio.run(heap.trim_soon()) is True
    released = kept - rss_mb()
    assert released > 100, f"only {released:.0f} MiB of ~197 MiB freed came back"
    del pins


def test_without_glibc_trim_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    assert heap.available() is False
    assert heap.trim() is False
    assert asyncio.run(heap.trim_soon()) is False
