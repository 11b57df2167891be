"""Vonage's signed webhooks: an HS256 JWT in ``Authorization: Bearer``, under the signature secret.

    valid_jwt(secret, headers["authorization"], body, now=time.time())

The token's header must say ``HS256``; its signature must be HMAC-SHA256 under the account's
signature secret (``warmline call`` reads it from ``$VONAGE_SIGNATURE_SECRET``); its ``iat``
must be within ``TOLERANCE_S`` of ``now`` (the docs set no bound: this one keeps a captured
request from being replayed later); and when it carries ``payload_hash``, that must be the
SHA-256 (hex) of the request's body. Pure: no clock of its own, no I/O, no JWT library.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from tts_service import jsonlimits

TOLERANCE_S = 300


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign_jwt(secret: str, claims: dict[str, Any]) -> str:
    """An HS256 JWT of ``claims`` (for the simulated carrier and the tests)."""
    head = _b64url_encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64url_encode(json.dumps(claims).encode())
    mac = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64url_encode(mac)}"


def valid_jwt(secret: str, authorization: str | None, body: bytes, *, now: float) -> bool:
    """Whether ``authorization`` is ``Bearer`` of a valid token for this request (module doc)."""
    if not authorization or not authorization.lower().startswith("bearer "):
        return False
    parts = authorization[7:].strip().split(".")
    if len(parts) != 3 or len(authorization) > 8192:
        return False
    try:
        header = jsonlimits.loads(_b64url(parts[0]))
        claims = jsonlimits.loads(_b64url(parts[1]))
        signature = _b64url(parts[2])
    except (binascii.Error, ValueError, RecursionError):  # RecursionError: nested past the parser
        return False
    if not isinstance(header, dict) or header.get("alg") != "HS256" or not isinstance(claims, dict):
        return False
    expected = hmac.new(secret.encode(), f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, signature):
        return False
    iat = claims.get("iat")
    if not isinstance(iat, int | float) or isinstance(iat, bool) or abs(now - iat) > TOLERANCE_S:
        return False
    payload_hash = claims.get("payload_hash")
    return payload_hash is None or payload_hash == hashlib.sha256(body).hexdigest()


__all__ = ["TOLERANCE_S", "sign_jwt", "valid_jwt"]
