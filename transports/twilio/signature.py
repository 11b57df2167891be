"""Twilio's request signature (``X-Twilio-Signature``): compute it, and check the one a request carries.

It is base64(HMAC-SHA1(auth token, the URL Twilio requested + every POST form parameter as name+value,
sorted by name)); a WebSocket handshake or a GET signs the URL alone.

Twilio is not consistent about writing a default port into the URL it signs, so ``valid_signature``
tries the URL with and without it, as Twilio's own validators do. Pure functions over strings: no
I/O, no web framework, and nothing here may log a token or a signature.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

#: the request header (lower-case, as ASGI servers present header names)
SIGNATURE_HEADER = "x-twilio-signature"
#: the port a URL may leave out, by scheme
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

Params = Mapping[str, str | Sequence[str]]


def compute_signature(auth_token: str, url: str, params: Params) -> str:
    """The ``X-Twilio-Signature`` Twilio sends for a request to ``url`` with form ``params``.

    A parameter Twilio sent more than once is given as a sequence of its values.
    """
    signed = [url]
    for name in sorted(params):
        value = params[name]
        values = [value] if isinstance(value, str) else sorted(value)
        signed.extend(name + v for v in values)
    digest = hmac.new(auth_token.encode("utf-8"), "".join(signed).encode("utf-8"), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def valid_signature(auth_token: str, url: str, params: Params, signature: str | None) -> bool:
    """Whether ``signature`` is Twilio's for ``url`` (with or without its default port) and ``params``.

    False for a missing or empty signature and for an empty token. Constant-time comparison.
    """
    if not auth_token or not signature:
        return False
    presented = signature.strip().encode("utf-8", "surrogatepass")
    matches = [
        hmac.compare_digest(compute_signature(auth_token, candidate, params).encode("ascii"), presented)
        for candidate in url_variants(url)
    ]
    return any(matches)


def url_variants(url: str) -> tuple[str, ...]:
    """``url`` as given, then (when it has one) the same URL with its default port added or removed.

    Only the authority changes; every other character of ``url`` is kept, since the signature
    covers the URL byte for byte. A non-default port is never removed: it names another server.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return (url,)
    default = DEFAULT_PORTS.get(parts.scheme)
    start = url.find("//") + 2
    end = start + len(parts.netloc)
    if default is None or not parts.netloc or url[start:end] != parts.netloc:
        return (url,)
    if port is None:
        if parts.netloc.endswith(":"):  # "host:" (an empty port): leave such a URL alone
            return (url,)
        other = f"{parts.netloc}:{default}"
    elif port == default:
        other = parts.netloc[: parts.netloc.rfind(":")]
    else:
        return (url,)
    return (url, url[:start] + other + url[end:])


__all__ = [
    "DEFAULT_PORTS",
    "SIGNATURE_HEADER",
    "Params",
    "compute_signature",
    "url_variants",
    "valid_signature",
]
