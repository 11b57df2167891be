"""A phone carrier's voice webhook, read within bounds: the code ``/twiml`` and every carrier's
answer URL share.

    read = await read_webhook(request, public_host=None, drain=drain, verify=signed,
                              carrier="Telnyx", log=log)
    if isinstance(read, Response):
        return read                                  # 503, 400, 408, 413 or 403
    host, body = read
    parameters = form_parameters(body, ("From", "To", "CallSid"))

While ``drain`` is on the answer is 503; without a usable host (``public_host``, else a Host
header that looks like one) 400; a body over 64 KiB 413, one not complete by the request's
deadline 408 (``transports.http_body``); a body ``verify`` does not approve 403, with one log
line naming the carrier and the (escaped) peer.

No Starlette routes, no protocol: the carrier's own answer document is its server's business.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from urllib.parse import parse_qs

from starlette.requests import HTTPConnection, Request
from starlette.responses import PlainTextResponse, Response

from transports.drain import NOT_TAKING, Drain
from transports.http_body import BodyRefused, read_body
from transports.twilio.serving import peer

_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?")
#: the largest webhook body read
MAX_WEBHOOK_BYTES = 64 * 1024


def webhook_host(conn: HTTPConnection, public_host: str | None) -> str | None:
    """The host a webhook's answer points the carrier at: ``public_host``, else a sane Host header."""
    host = public_host or conn.headers.get("host", "")
    return host if _HOST.fullmatch(host) else None


async def read_webhook(
    request: Request,
    *,
    public_host: str | None,
    drain: Drain | None,
    verify: Callable[[bytes], bool] | None = None,
    carrier: str = "carrier",
    log: logging.Logger | None = None,
) -> tuple[str, bytes] | Response:
    """A webhook's host to answer with and its raw body, or the error response (module doc)."""
    if drain is not None and drain.draining:
        return PlainTextResponse(f"{NOT_TAKING}\n", status_code=503)
    host = webhook_host(request, public_host)
    if host is None:
        return PlainTextResponse("no usable Host header; set public_host\n", status_code=400)
    try:
        body = await read_body(request, max_bytes=MAX_WEBHOOK_BYTES)
    except BodyRefused as exc:  # too large (413), not complete in time (408), or the client left
        return PlainTextResponse(f"{exc}\n", status_code=exc.status, headers=exc.headers)
    if verify is not None and not verify(body):
        if log is not None:
            path, who = request.url.path, peer(request)
            log.warning("%s: refused a webhook from %s: invalid %s signature", path, who, carrier)
        return PlainTextResponse(f"invalid {carrier} signature\n", status_code=403)
    return host, body


def form(body: bytes) -> dict[str, list[str]]:
    """A urlencoded webhook body, blank values too (a carrier signs every field it sent)."""
    return parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)


def form_parameters(body: bytes, fields: tuple[str, ...]) -> dict[str, str]:
    """The first non-empty value of each of ``fields`` in a urlencoded webhook body (256 chars)."""
    values = form(body)
    found: dict[str, str] = {}
    for name in fields:
        given = [value for value in values.get(name, ()) if value]
        if given:
            found[name] = given[0][:256]
    return found


__all__ = ["MAX_WEBHOOK_BYTES", "form", "form_parameters", "read_webhook", "webhook_host"]
