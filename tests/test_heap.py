"""``transports.heap``: freed C heap memory goes back to the system when a call ends."""

from __future__ import annotations

import asyncio
import resource
import threading
from pathlib import Path

import pytest

from transports import heap


def rss_mb() -> float:
    fields = Path("/proc/self/statm").read_text().split()
    return int(fields[1]) * resource.getpagesize() / 2**20


async def trim_once() -> bool:
    trimmer = heap.Trimmer()
    try:
        return await trimmer.trim()
    finally:
        await trimmer.aclose()


@pytest.mark.skipif(not heap.available(), reason="not glibc: there is no malloc_trim to call")
def test_trim_returns_the_pages_of_freed_blocks_that_glibc_kept() -> None:
    # 64 KiB blocks come from malloc's heap (below its mmap threshold); keeping one in 64 alive
    # pins the heap's top, so glibc cannot shrink it on free and keeps the rest as free chunks
    blocks = [bytes(64 * 1024) for _ in range(3200)]  # 200 MiB
    pins = blocks[::64]
    del blocks
    kept = rss_mb()
    assert asyncio.run(trim_once()) is True
    released = kept - rss_mb()
    assert released > 100, f"only {released:.0f} MiB of ~197 MiB freed came back"
    del pins


def test_without_glibc_trim_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    assert heap.available() is False
    assert heap.trim() is False
    assert asyncio.run(trim_once()) is False


@pytest.mark.skipif(not heap.available(), reason="not glibc: there is no malloc_trim to call")
def test_a_trimmer_folds_concurrent_trims_into_one_on_its_own_thread() -> None:
    async def main() -> tuple[list[bool], set[str], set[str]]:
        trimmer = heap.Trimmer()
        before = {t.name for t in threading.enumerate()}
        results = await asyncio.gather(*(trimmer.trim() for _ in range(8)))
        during = {t.name for t in threading.enumerate()} - before
        await trimmer.aclose()
        after = {t.name for t in threading.enumerate()} - before
        assert await trimmer.trim() is False  # closed: no new thread
        return results, during, after

    results, during, after = asyncio.run(main())
    assert len(set(results)) == 1  # one trim, its result shared
    assert len(during) == 1 and next(iter(during)).startswith("warmline-heap-trim")
    assert not any(name.startswith("warmline-heap-trim") for name in after)
