"""Every reliance on uvicorn's internals, in one place, checked against the version we know.

* ``QuietDenials``: uvicorn's websockets-sansio protocol logs "ASGI callable returned without
  completing handshake" at ERROR for every HTTP denial of a WebSocket upgrade (Kludex/uvicorn PR
  #3138), though answering 401 or 403 is what the app meant to do. The filter drops exactly that
  record, by its text, and only in a connection's task that marked its denial (``mark_denied``),
  so a real incomplete handshake still logs. uvicorn 0.55 no longer writes the record after a
  denial response (``UVICORN_LOGS_DENIALS`` is False there); the filter stays for the older
  releases ``pyproject.toml`` admits.

* ``BadInputIsNoTraceback``: a client that sends a text frame of invalid UTF-8 is closed with
  1007 by uvicorn, which also logs it with ``logger.exception`` (ERROR and a traceback, as if the
  server had a bug). The filter turns exactly that record, by its text, into one INFO line.

* ``header_deadline_protocol``: uvicorn's h11 protocol closes a keep-alive connection that is
  idle after a response, but a connection that never completes its request headers (nothing
  sent, or one header byte every few seconds: slowloris) stays open for ever, and any byte
  disarms the keep-alive timer; nor does it bound how long a body may take. The subclass gives
  every request ``timeout_s`` from the connection (or the previous response) to be complete:
  headers not complete by then close the connection; once they are, the same deadline goes in
  the request's scope (``http_body.DEADLINE_EXTENSION``), where ``http_body.read_body`` answers a
  body not complete by then with 408. It relies on ``H11Protocol``'s ``connection_made``,
  ``connection_lost``, ``handle_events``, ``on_response_complete``, and its ``cycle`` (and the
  cycle's ``scope``, read by the app only once ``handle_events`` has returned) and ``transport``
  attributes.

``TESTED_UVICORN`` is the release line this was read from (0.54, then 0.55);
``tests/test_uvicorn_compat.py`` tells whether it still holds (a denial logs nothing, an
unfinished handshake still logs where uvicorn logs it).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging

from uvicorn.protocols.http.h11_impl import H11Protocol

from transports.http_body import DEADLINE_EXTENSION, deadline_extension
from tts_service.tested_version import TestedVersion

TESTED_UVICORN = TestedVersion("uvicorn", "0.55", contract_test="tests/test_uvicorn_compat.py")
#: whether this uvicorn logs the incomplete-handshake error after a denial response (before 0.55)
UVICORN_LOGS_DENIALS = tuple(int(p) for p in (TESTED_UVICORN.installed or "0.55").split(".")[:2]) < (0, 55)
#: the start of the record uvicorn logs after a denial response (its own text)
INCOMPLETE_HANDSHAKE = "ASGI callable returned without completing"

#: the record uvicorn logs (with a traceback) for a text frame that is not UTF-8 (its own text)
INVALID_UTF8 = "Invalid UTF-8 sequence received from client."

_log = logging.getLogger("warmline.http")

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


class _HeaderDeadlineH11Protocol(H11Protocol):
    """H11Protocol whose requests must complete their headers in ``header_timeout_s``."""

    header_timeout_s = 10.0
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        before = self.cycle
        deadline = self._deadline.when() if self._deadline is not None else None
        super().handle_events()
        if self.transport.get_protocol() is not self:
            self._disarm()  # the socket became a WebSocket
        elif self.cycle is not before and self.cycle is not None:
            # a request's headers arrived: its body has what is left of the same deadline (the
            # app's task has not run yet, so it reads the scope with the deadline in it)
            self._disarm()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.header_timeout_s
            self.cycle.scope.setdefault("extensions", {})[DEADLINE_EXTENSION] = deadline_extension(deadline)

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            # the next request on this connection has as long; armed before uvicorn handles a
            # pipelined request (in ``super()``), so that request's headers disarm it
            self._arm()
        super().on_response_complete()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = asyncio.get_running_loop().call_later(self.header_timeout_s, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and self.transport.get_protocol() is self:
            _log.info("closed a connection that sent no complete request in %g s", self.header_timeout_s)
            self.transport.close()


def header_deadline_protocol(timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing connections whose request headers take over ``timeout_s``."""
    return type("HeaderDeadlineH11Protocol", (_HeaderDeadlineH11Protocol,), {"header_timeout_s": timeout_s})


__all__ = [
    "INCOMPLETE_HANDSHAKE",
    "INVALID_UTF8",
    "TESTED_UVICORN",
    "UVICORN_LOGS_DENIALS",
    "BadInputIsNoTraceback",
    "QuietDenials",
    "header_deadline_protocol",
    "mark_denied",
]
