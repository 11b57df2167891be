"""Telnyx's webhook signature: Ed25519 over ``<telnyx-timestamp>|<raw body>``.

    valid_signature(public_key_b64, headers["telnyx-timestamp"], raw_body,
                    headers["telnyx-signature-ed25519"], now=time.time())

The public key is the account's (Mission Control portal, base64 of 32 bytes; ``warmline call``
reads it from ``$TELNYX_PUBLIC_KEY``). A timestamp more than ``TOLERANCE_S`` from ``now`` is
refused, so a captured request cannot be replayed later. Pure: no clock of its own, no I/O.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

SIGNATURE_HEADER = "telnyx-signature-ed25519"
TIMESTAMP_HEADER = "telnyx-timestamp"
#: how far a request's timestamp may be from the server's clock
TOLERANCE_S = 300


def public_key(text: str) -> Ed25519PublicKey:
    """The key from its base64 form; raises ValueError when it is not 32 bytes of base64."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the Telnyx public key is not base64: {exc}") from exc
    if len(raw) != 32:
        raise ValueError(f"a Telnyx public key is 32 bytes, not {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def valid_signature(
    key: Ed25519PublicKey, timestamp: str | None, body: bytes, signature: str | None, *, now: float
) -> bool:
    """Whether ``signature`` is Telnyx's over ``timestamp|body``, with the timestamp near ``now``."""
    if (
        not timestamp
        or not signature
        or not timestamp.isascii()
        or not timestamp.isdigit()
        or len(timestamp) > 12
    ):
        return False
    if abs(now - int(timestamp)) > TOLERANCE_S:
        return False
    try:
        raw = base64.b64decode(signature, validate=True)
        key.verify(raw, timestamp.encode("ascii") + b"|" + body)
    except (binascii.Error, ValueError, InvalidSignature):
        return False
    return True


__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "TOLERANCE_S", "public_key", "valid_signature"]
