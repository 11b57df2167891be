"""Who may connect, and how fast they may talk: bind policy, token, Origin, command rate.

* Binding: loopback by default; any other address needs a token (or an explicit ``--insecure``).
* Token: ``Authorization: Bearer <token>`` or ``?token=<token>`` (browsers cannot set headers on a
  WebSocket), compared in constant time.
* Origin: browsers send one; with no allow-list only same-origin pages (Origin host equal to the
  Host header) may connect, so a random web page cannot drive a local server; ``*`` allows any.
  Clients that send no Origin (programs, not browsers) are not affected.
* Rate: a token bucket per connection, with an injected clock.

Pure functions and one small class; no I/O and no asyncio.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from tts_service.engine.clock import Clock, monotonic
from tts_service.errors import InvalidInputError

#: where every server command (``warmline serve``, ``warmline call``) reads its token by default
TOKEN_ENV = "WARMLINE_TOKEN"
#: ``--insecure`` from the environment ("1"), the explicit opt-in a container can be given
INSECURE_ENV = "WARMLINE_INSECURE"


def insecure_from_env(environ: Mapping[str, str]) -> bool:
    """Whether ``$WARMLINE_INSECURE`` opts in to serving without a token ("1", "true", "yes")."""
    value = environ.get(INSECURE_ENV, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise InvalidInputError(f"${INSECURE_ENV} must be 1 or 0, not {value[:20]!r}")


class InsecureBindError(InvalidInputError):
    """A non-loopback address without a token (and without ``--insecure``)."""

    code = "insecure_bind"


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, token: str | None, insecure: bool) -> None:
    """Raise InsecureBindError when ``host`` is reachable from outside and nothing guards it."""
    if is_loopback(host) or token or insecure:
        return
    raise InsecureBindError(
        f"refusing to serve on {host} without a token: anyone who can reach it could use it "
        f"(pass --token SECRET or ${TOKEN_ENV}; or --insecure or ${INSECURE_ENV}=1 if something "
        "else guards it)"
    )


def request_token(headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """The token a request presents: the Bearer header first, else the ``token`` query parameter."""
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return query.get("token")


def token_ok(expected: str | None, presented: str | None) -> bool:
    """Constant-time comparison; every request passes when no token is configured."""
    if not expected:
        return True
    if presented is None:
        return False
    return hmac.compare_digest(presented.encode("utf-8", "surrogatepass"), expected.encode("utf-8"))


def authorized(expected: str | None, headers: Mapping[str, str], query: Mapping[str, str]) -> bool:
    """Whether a request presents the server's token (``request_token``, ``token_ok``)."""
    return token_ok(expected, request_token(headers, query))


def origin_ok(origin: str | None, host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a browser page from ``origin`` may connect (see the module docstring)."""
    if origin is None:
        return True
    allowed = tuple(a.rstrip("/").lower() for a in allowed)
    if "*" in allowed:
        return True
    if allowed:
        return origin.rstrip("/").lower() in allowed
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return bool(host) and netloc == (host or "").lower()


class TokenBucket:
    """``rate_per_s`` tokens a second, at most ``burst`` saved up; one per command."""

    def __init__(self, rate_per_s: float, burst: float, *, clock: Clock = monotonic) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError("rate_per_s must be positive and burst at least 1")
        self._rate = rate_per_s
        self._burst = burst
        self._clock = clock
        self._tokens = burst
        self._last = clock()

    def try_take(self) -> bool:
        """Take one token if there is one; False means the command is over the rate."""
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


__all__ = [
    "TOKEN_ENV",
    "InsecureBindError",
    "TokenBucket",
    "authorized",
    "check_bind",
    "is_loopback",
    "origin_ok",
    "request_token",
    "token_ok",
]
