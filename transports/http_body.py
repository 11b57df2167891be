"""Request bodies read within a bound: a body over the limit is refused before it is held.

    body = await read_body(request, max_bytes=256 * 1024)   # raises BodyTooLarge (answer 413)

A ``Content-Length`` over the limit is refused before a byte is read; a body without one (chunked)
is refused as soon as what arrived passes the limit. Either way the server never holds more than
``max_bytes`` (plus one chunk) of a body, however large the client says or sends.
"""

from __future__ import annotations

from starlette.requests import Request

from tts_service.errors import InvalidInputError


class BodyTooLarge(InvalidInputError):
    """A request body over its route's limit (HTTP 413)."""

    code = "body_too_large"


async def read_body(request: Request, *, max_bytes: int) -> bytes:
    """The body of ``request``, at most ``max_bytes``; raises BodyTooLarge (or InvalidInputError
    for a ``Content-Length`` that is not a number)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise InvalidInputError("Content-Length is not a number")
        if int(declared) > max_bytes:
            raise BodyTooLarge(f"a request body here may hold at most {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(f"a request body here may hold at most {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


__all__ = ["BodyTooLarge", "read_body"]
