"""JSON from a client, parsed with one bound on its nesting, the same on every Python.

    data = loads(message)   # raises NestedTooDeeply (a RecursionError) past MAX_DEPTH levels

Python's parser refuses deep nesting only where it runs out of recursion: 3.11 and 3.12 stop at
about a thousand levels, 3.13 takes 5,000 levels and stops near 20,000. So a message nested 5,000
deep was refused on one Python and parsed on another. No message of ours nests more than a few
levels, so ``loads`` refuses anything past ``MAX_DEPTH`` before parsing, with the error every
caller already treats as "nested too deeply": a ``RecursionError`` (``NestedTooDeeply``).

Pure; the scan runs only when the text holds more brackets than the bound allows.
"""

from __future__ import annotations

import json
from typing import Any

#: the deepest nesting a client's JSON may have (ours has two or three levels)
MAX_DEPTH = 64

__all__ = ["MAX_DEPTH", "NestedTooDeeply", "depth", "loads"]


class NestedTooDeeply(RecursionError):
    """JSON nested past ``MAX_DEPTH``: refused as the parser refuses what passes its own limit."""


def depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``, outside its strings."""
    deepest = level = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def loads(data: str | bytes | bytearray, *, max_depth: int = MAX_DEPTH, **kwargs: Any) -> Any:
    """``json.loads(data, **kwargs)``, refusing nesting past ``max_depth`` with ``NestedTooDeeply``.

    Bytes are decoded as ``json.loads`` decodes them (UTF-8, -16 or -32); a ``UnicodeDecodeError``
    (a ``ValueError``) comes out as it does from ``json.loads``.
    """
    text = data if isinstance(data, str) else bytes(data).decode(json.detect_encoding(data), "surrogatepass")
    if text.count("[") + text.count("{") > max_depth and depth(text) > max_depth:
        raise NestedTooDeeply(f"nested too deeply (more than {max_depth} levels)")
    try:
        return json.loads(text, **kwargs)
    except RecursionError as exc:  # the parser's own limit, below ours on some build
        raise NestedTooDeeply("nested too deeply") from exc
