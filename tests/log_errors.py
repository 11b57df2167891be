"""The ERROR lines a test's own calls logged, for the tests that assert there are none.

Under xdist one worker runs many tests in turn. An HTTP client another test left to the garbage
collector (the ``openai`` client's ``__del__`` schedules its ``aclose``) can be collected during a
later test, whose loop then runs that close against the earlier test's closed loop, and asyncio
logs it at ERROR: "Task exception was never retrieved ... RuntimeError('Event loop is closed')".
That line is about a loop that is no longer running, so it is never the running test's; every
other ERROR line is.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable


def own_errors(records: Iterable[logging.LogRecord]) -> list[logging.LogRecord]:
    """The records at ERROR or above, less asyncio's reports of another loop's leftover tasks."""
    return [r for r in records if r.levelno >= logging.ERROR and not _closed_loops_leftover(r)]


def _closed_loops_leftover(record: logging.LogRecord) -> bool:
    return record.name == "asyncio" and "Event loop is closed" in record.getMessage()
