"""Every reliance on Ray's internals, in one place, checked against the version we know.

* ``on_graceful_shutdown``: Ray Serve stops a replica (scale-down, a redeploy, ``serve.delete``)
  by calling its ``Replica.perform_graceful_shutdown`` (``ray/serve/_private/replica.py``), which
  waits for the replica's ongoing requests, each open WebSocket being one, and only then calls
  the user class's ``__del__``. Nothing public tells the user code that the wait has begun, so a
  replica could neither refuse new sessions nor close its sockets between turns: they would be
  cut at ``graceful_shutdown_timeout_s``. The hook wraps that method so a callback runs as the
  shutdown begins, before the wait. Ray calls it on the replica's own event loop, which is not
  the one user code runs on (``RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD``, on by default): the
  callback must be thread-safe (``loop.call_soon_threadsafe``).

* ``LOCAL_ONLY_ENV``: a Ray started by ``ray.init()`` advertises the machine's outward address
  and binds its GCS, raylet and actors there, whatever ``_node_ip_address`` says, so a cluster
  meant for one machine listens on every interface. ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``
  (``ray/_private/ray_constants.py``, the switch Ray uses on laptops) keeps a local cluster on
  127.0.0.1. It must be in the environment before ``import ray``.

``TESTED_RAY`` is the release line this was read from; ``tests/test_ray_serve.py`` tells
whether it still holds (a replica removed by a scale-down drains its sessions between turns).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from tts_service.tested_version import TestedVersion

TESTED_RAY = TestedVersion("ray", "2.60", contract_test="tests/test_ray_serve.py")
#: set before ``import ray`` so a local cluster binds loopback only (module doc)
LOCAL_ONLY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}

_log = logging.getLogger("warmline.ray")
_callbacks: list[Callable[[], None]] = []


def on_graceful_shutdown(callback: Callable[[], None]) -> None:
    """Call ``callback`` (from Ray's own loop: make it thread-safe) when Serve begins to stop this
    replica, before it waits for the replica's ongoing requests. Call from inside a replica."""
    from ray.serve._private import replica as replica_module

    TESTED_RAY.check()
    _callbacks.append(callback)
    replica_class: Any = replica_module.Replica
    if getattr(replica_class, "_warmline_hooked", False):
        return
    original: Callable[..., Awaitable[Any]] = replica_class.perform_graceful_shutdown

    @functools.wraps(original)
    async def perform_graceful_shutdown(self: Any, *args: Any, **kwargs: Any) -> Any:
        for hook in list(_callbacks):
            try:
                hook()
            except Exception:  # a failing hook must not keep Ray from stopping the replica
                _log.exception("warmline: the graceful-shutdown hook failed")
        return await original(self, *args, **kwargs)

    replica_class.perform_graceful_shutdown = perform_graceful_shutdown
    replica_class._warmline_hooked = True


__all__ = ["LOCAL_ONLY_ENV", "TESTED_RAY", "on_graceful_shutdown"]
