"""Request bodies read within bounds: a size, and the request's deadline.

    try:
        body = await read_body(request, max_bytes=256 * 1024)
    except BodyRefused as exc:                    # 400, 408 or 413; the connection is to close
        return PlainTextResponse(f"{exc}\\n", status_code=exc.status, headers=exc.headers)

Size: a ``Content-Length`` over the limit is refused before a byte is read; a body without one
(chunked) is refused as soon as what arrived passes the limit. Either way the server never holds
more than ``max_bytes`` (plus one chunk) of a body, however large the client says or sends.

Time: a request, headers and body, must be complete within the server's request deadline
(``REQUEST_TIMEOUT_S``), the one at which idle and slowloris connections are closed: the server's
protocol (``uvicorn_compat``) puts the request's deadline in its ASGI scope (``DEADLINE_EXTENSION``);
an app served without it gives the body ``REQUEST_TIMEOUT_S`` from its first read. The deadline is
on the whole body, so a body trickled a byte at a time gets no longer than a stalled one.

A client that leaves before its body is complete is not an error of the server: one INFO line,
and ``BodyAbandoned`` (its answer goes nowhere). Every ``BodyRefused`` asks for the connection to
be closed (``headers``): the rest of its body is unread, so the connection cannot carry another
request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from starlette.requests import ClientDisconnect, Request

from tts_service.errors import InvalidInputError

log = logging.getLogger("warmline.http")

#: how long a request, headers and body, may take to arrive (``warmline serve``, ``warmline call``)
REQUEST_TIMEOUT_S = 10.0
#: the ASGI scope extension a server puts the request's deadline in: ``{"loop_time": float}``,
#: on the event loop's clock (``loop.time()``)
DEADLINE_EXTENSION = "warmline.request_deadline"


class BodyRefused(InvalidInputError):
    """A request body the route cannot take; ``status`` is the HTTP status to answer it with."""

    code = "bad_body"
    status = 400

    @property
    def headers(self) -> dict[str, str]:
        """Headers for the answer: it ends the connection, as the rest of the body was never read."""
        return {"Connection": "close"}


class BodyTooLarge(BodyRefused):
    """A request body over its route's limit (HTTP 413)."""

    code = "body_too_large"
    status = 413


class BodyTimeout(BodyRefused):
    """A request body not complete by the request's deadline (HTTP 408)."""

    code = "body_timeout"
    status = 408


class BodyAbandoned(BodyRefused):
    """The client left before its body was complete (nobody reads the answer)."""

    code = "body_abandoned"


def deadline_extension(loop_time: float) -> dict[object, object]:
    """What a server puts at ``scope["extensions"][DEADLINE_EXTENSION]``: the request's deadline
    on the loop's clock, for ``read_body``."""
    return {"loop_time": loop_time}


def request_deadline(scope: Mapping[str, Any]) -> float | None:
    """The deadline a server put in ``scope`` (``deadline_extension``), or None."""
    extension = (scope.get("extensions") or {}).get(DEADLINE_EXTENSION)
    if not isinstance(extension, dict):
        return None
    value = extension.get("loop_time")
    return float(value) if isinstance(value, int | float) else None


async def read_body(request: Request, *, max_bytes: int) -> bytes:
    """The body of ``request``, at most ``max_bytes``, complete by the request's deadline;
    raises a ``BodyRefused`` (see the module doc)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        digits = declared.strip()
        if not (digits.isascii() and digits.isdigit()):
            raise BodyRefused("Content-Length is not a number")
        # its length first: int() refuses (ValueError) a number of over 4,300 digits
        significant = digits.lstrip("0") or "0"
        if len(significant) > len(str(max_bytes)) or int(significant) > max_bytes:
            raise BodyTooLarge(f"a request body here may hold at most {max_bytes} bytes")
    loop = asyncio.get_running_loop()
    deadline = request_deadline(request.scope)
    if deadline is None:
        deadline = loop.time() + REQUEST_TIMEOUT_S
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout_at(deadline):
            async for chunk in request.stream():
                size += len(chunk)
                if size > max_bytes:
                    raise BodyTooLarge(f"a request body here may hold at most {max_bytes} bytes")
                chunks.append(chunk)
    except TimeoutError:
        log.info("%s: request body not complete in time (%d bytes came): 408", request.url.path, size)
        raise BodyTimeout("the request body was not complete in time") from None
    except ClientDisconnect:
        log.info("%s: the client left before its body was complete (%d bytes came)", request.url.path, size)
        raise BodyAbandoned("the client left before its request body was complete") from None
    return b"".join(chunks)


__all__ = [
    "DEADLINE_EXTENSION",
    "REQUEST_TIMEOUT_S",
    "BodyAbandoned",
    "BodyRefused",
    "BodyTimeout",
    "BodyTooLarge",
    "deadline_extension",
    "read_body",
    "request_deadline",
]
