"""Every reliance on uvicorn's internals, in one place, checked against the version we know.

* ``QuietDenials``: uvicorn's websockets-sansio protocol logs "ASGI callable returned without
  completing handshake" at ERROR for every HTTP denial of a WebSocket upgrade (Kludex/uvicorn PR
  #3138), though answering 401 or 403 is what the app meant to do. The filter drops exactly that
  record, by its text, and only in a connection's task that marked its denial (``mark_denied``),
  so a real incomplete handshake still logs.

``TESTED_UVICORN`` is the release line this was read from; ``tests/test_uvicorn_compat.py`` tells
whether it still holds (a denial logs nothing, an unfinished handshake still logs).
"""

from __future__ import annotations

import contextvars
import logging

from tts_service.tested_version import TestedVersion

TESTED_UVICORN = TestedVersion("uvicorn", "0.54", contract_test="tests/test_uvicorn_compat.py")
#: the start of the record uvicorn logs after a denial response (its own text)
INCOMPLETE_HANDSHAKE = "ASGI callable returned without completing"

#: set in a connection's own task once its upgrade was answered with an HTTP denial
_denied: contextvars.ContextVar[bool] = contextvars.ContextVar("warmline_ws_denied", default=False)


def mark_denied() -> None:
    """This connection's upgrade is being denied on purpose (call before the denial response)."""
    _denied.set(True)


class QuietDenials(logging.Filter):
    """Drop uvicorn's incomplete-handshake error after an intended denial (see the module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_denied.get() and str(record.msg).startswith(INCOMPLETE_HANDSHAKE))


__all__ = ["INCOMPLETE_HANDSHAKE", "TESTED_UVICORN", "QuietDenials", "mark_denied"]
