"""Plivo's V3 request signature: ``X-Plivo-Signature-V3`` with ``X-Plivo-Signature-V3-Nonce``.

    valid_signature(auth_token, "POST", url, form, nonce, header)

What is signed, as Plivo's server SDKs compute it: the URL without its query, then ``?`` and the
query and (for a GET) the parameters as ``key=value`` pairs sorted and joined with ``&``; for a
POST with a body, ``.`` after a non-empty query and then the body's parameters sorted by name,
each as ``key`` then ``value`` with nothing between (a name's several values sorted); then ``.``
and the nonce. The signature is base64 of HMAC-SHA256 under the account's auth token; the header
may hold several, comma-separated (one per token during a rotation). Plivo publishes no test
vector for V3, so ``tests/test_plivo.py`` checks the construction piece by piece.

Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from urllib.parse import parse_qs, urlsplit, urlunsplit

SIGNATURE_HEADER = "x-plivo-signature-v3"
NONCE_HEADER = "x-plivo-signature-v3-nonce"
Params = Mapping[str, Sequence[str]]


def _query_string(params: Params) -> str:
    return "&".join(f"{key}={value}" for key in sorted(params) for value in sorted(params[key]))


def signed_text(method: str, url: str, params: Params, nonce: str) -> str:
    """The text Plivo signs for a request (see the module doc)."""
    parts = urlsplit(url)
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    query: dict[str, list[str]] = {
        k: list(v) for k, v in parse_qs(parts.query, keep_blank_values=True).items()
    }
    if method.upper() == "GET":
        for key, values in params.items():
            query.setdefault(key, []).extend(values)
        text = f"{base}?{_query_string(query)}" if query else base
    else:
        query_string = _query_string(query)
        text = base
        if query_string or params:
            text += f"?{query_string}"
        if query_string and params:
            text += "."
        text += "".join(f"{key}{value}" for key in sorted(params) for value in sorted(params[key]))
    return f"{text}.{nonce}"


def compute_signature(auth_token: str, method: str, url: str, params: Params, nonce: str) -> str:
    digest = hmac.new(
        auth_token.encode(), signed_text(method, url, params, nonce).encode(), hashlib.sha256
    ).digest()
    return base64.b64encode(digest).decode("ascii")


def valid_signature(
    auth_token: str, method: str, url: str, params: Params, nonce: str | None, header: str | None
) -> bool:
    """Whether ``header`` holds Plivo's V3 signature of the request."""
    if not nonce or not header:
        return False
    expected = compute_signature(auth_token, method, url, params, nonce)
    return any(hmac.compare_digest(expected, candidate.strip()) for candidate in header.split(","))


__all__ = ["NONCE_HEADER", "SIGNATURE_HEADER", "compute_signature", "signed_text", "valid_signature"]
