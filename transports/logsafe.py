"""Client-supplied text made safe for one log line: the one helper every log site uses for it.

    log.info("%s: stream %s started", name, loggable(start.stream_sid))

A client that can put a newline (or a carriage return, an ANSI escape, U+2028...) into a log
line can forge the lines after it. ``loggable`` escapes every character that is not printable
(``str.isprintable``: controls, format characters, line and paragraph separators, unassigned
code points; the plain space stays) the way Python's ``repr`` would, escapes the backslash so
that an escape in the output always means an escape, and bounds the length. Printable text
comes back unchanged, so the usual log line reads as before.

Pure functions: no I/O, no logging of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

#: how much of one client string a log line shows, by default
DEFAULT_MAX_CHARS = 200
_ELLIPSIS = "..."


def _escape(char: str) -> str:
    if char == "\\":
        return "\\\\"
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x100:
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def loggable(value: object, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """``value`` as text fit for one log line: nothing unprintable left raw, at most ``max_chars``.

    A longer text is cut (before escaping, so an escape is never cut in half) and ends in
    ``...``; the escapes may make the result longer than ``max_chars``, at most tenfold.
    """
    text = value if isinstance(value, str) else str(value)
    cut = len(text) > max_chars
    if cut:
        text = text[: max(0, max_chars - len(_ELLIPSIS))]
    if "\\" in text or not text.isprintable():
        text = "".join(_escape(char) for char in text)
    return text + _ELLIPSIS if cut else text


def loggable_names(names: Iterable[object], *, max_names: int = 16) -> str:
    """A few client-supplied names (a mapping's keys, say), sorted, escaped and comma-separated."""
    items = sorted(loggable(name, max_chars=64) for name in names)
    shown = ", ".join(items[:max_names])
    more = len(items) - max_names
    return f"{shown} and {more} more" if more > 0 else shown


__all__ = ["DEFAULT_MAX_CHARS", "loggable", "loggable_names"]
