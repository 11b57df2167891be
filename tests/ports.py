"""A fixed port a test must listen on (the README's 8765, the examples' 7860), one test at a time.

``.ci/run`` runs the suite on Python 3.12 and 3.13 while the 3.11 suite runs, and each suite has
the tests that start a server on a documented port: a lock file in the temp directory, named
after the port, lets one test hold the port while the same test on another Python waits for it.
Inside the lock the port must be free: anything else there is a real clash, and fails the test.
"""

from __future__ import annotations

import contextlib
import fcntl
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def fixed_port(port: int, who: str) -> Iterator[None]:
    """Hold ``port`` (waiting for a concurrent suite's test to give it back), failing if it is taken."""
    lock = Path(tempfile.gettempdir()) / f"warmline-tests-port-{port}.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # the wait is bounded by the test timeout
        try:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    pytest.fail(f"port {port} is taken: {who} listens there")
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
