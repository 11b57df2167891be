"""What a server process holds, for ``/metrics``: memory, descriptors, threads, asyncio tasks.

    register_process_metrics(registry)   # in every app's own registry

``process_*`` are prometheus_client's own (resident memory, open descriptors, CPU...); Warmline
adds ``warmline_threads`` and ``warmline_asyncio_tasks`` (the tasks of the loop that renders the
metrics, the server's own). A soak or an operator reads leaks from them: after the calls end,
every count is back where it was.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector


class _RuntimeCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("warmline_threads", "Threads of this process", value=threading.active_count())
        try:
            tasks = len(asyncio.all_tasks())
        except RuntimeError:  # rendered outside an event loop: no loop, no tasks to count
            return
        yield GaugeMetricFamily("warmline_asyncio_tasks", "Tasks of the server's event loop", value=tasks)


def register_process_metrics(registry: CollectorRegistry) -> None:
    """Add the process and runtime gauges to ``registry``."""
    ProcessCollector(registry=registry)
    registry.register(_RuntimeCollector())


__all__ = ["register_process_metrics"]
