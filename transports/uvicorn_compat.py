"""Every reliance on uvicorn's internals, in one place, checked against the version we know.

* ``QuietDenials``: uvicorn's websockets-sansio protocol logs "ASGI callable returned without
  completing handshake" at ERROR for every HTTP denial of a WebSocket upgrade (Kludex/uvicorn PR
  #3138), though answering 401 or 403 is what the app meant to do. The filter drops exactly that
  record, by its text, and only in a connection's task that marked its denial (``mark_denied``),
  so a real incomplete handshake still logs.

* ``BadInputIsNoTraceback``: a client that sends a text frame of invalid UTF-8 is closed with
  1007 by uvicorn, which also logs it with ``logger.exception`` (ERROR and a traceback, as if the
  server had a bug). The filter turns exactly that record, by its text, into one INFO line.

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

#: the record uvicorn logs (with a traceback) for a text frame that is not UTF-8 (its own text)
INVALID_UTF8 = "Invalid UTF-8 sequence received from client."

#: set in a connection's own task once its upgrade was answered with an HTTP denial
_denied: contextvars.ContextVar[bool] = contextvars.ContextVar("warmline_ws_denied", default=False)


def mark_denied() -> None:
    """This connection's upgrade is being denied on purpose (call before the denial response)."""
    _denied.set(True)


class QuietDenials(logging.Filter):
    """Drop uvicorn's incomplete-handshake error after an intended denial (see the module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_denied.get() and str(record.msg).startswith(INCOMPLETE_HANDSHAKE))


class BadInputIsNoTraceback(logging.Filter):
    """A client's invalid UTF-8 is the client's fault: one INFO line, no traceback (module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == INVALID_UTF8 and record.exc_info:
            record.msg = "a client sent a text frame that is not UTF-8; closed it with 1007"
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


__all__ = [
    "INCOMPLETE_HANDSHAKE",
    "INVALID_UTF8",
    "TESTED_UVICORN",
    "BadInputIsNoTraceback",
    "QuietDenials",
    "mark_denied",
]
