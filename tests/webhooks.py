"""What the carriers' webhook tests share: one HTTP request that answers errors too, and a bot
for routes where no stream may start."""

from __future__ import annotations

import urllib.error
import urllib.request


def request(url: str, body: bytes | None, headers: dict[str, str], method: str = "POST") -> tuple[int, str]:
    """(status, body) of one request; HTTP errors are answers too."""
    req = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode()


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    return request(url, body, headers)


def get(url: str, headers: dict[str, str]) -> tuple[int, str]:
    return request(url, None, headers, "GET")


async def no_stream(call: object) -> None:
    raise AssertionError("no stream in this test")


__all__ = ["get", "no_stream", "post", "request"]
