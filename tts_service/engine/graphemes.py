"""Grapheme clusters, as far as a voice needs them: a base character and the marks riding on it.

One character a reader sees may be several code points: "e" followed by U+0301 (combining acute
accent) is "é". Limits on what a model is given count clusters and cuts fall between them, and
the marks are folded before a model reads them: NFC composes what it can ("e" + U+0301 becomes
"é", which a phonemizer reads as one letter rather than as an "e" and a stray symbol), a mark that
follows no base (at the start, after whitespace) is dropped, and a cluster keeps at most
``MAX_MARKS`` marks (text can stack hundreds on one letter).

A cluster here is a character that is not a mark (Unicode categories Mn, Mc, Me) or an emoji skin
tone, with the marks that follow it: the part of Unicode's extended grapheme clusters (UAX #29)
that decides where a cut is safe in text a voice reads. Regional-indicator pairs and Hangul jamo
are not joined (the cleaner drops emoji; jamo are rare in text for an English voice); ZWJ is
dropped by ``textclean.sanitize`` before any of this runs.

Standard library only; pure; never raises on any ``str``.
"""

from __future__ import annotations

import unicodedata

__all__ = ["MAX_MARKS", "count", "cut_before", "end_of", "extends", "fold_marks"]

#: marks one cluster keeps after folding (after NFC, what people write has two or three at most)
MAX_MARKS = 3

_MARKS = frozenset({"Mn", "Mc", "Me"})


def extends(char: str) -> bool:
    """Whether ``char`` joins the cluster before it (a combining mark or a skin tone)."""
    return unicodedata.category(char) in _MARKS or "\U0001f3fb" <= char <= "\U0001f3ff"


def count(text: str) -> int:
    """How many clusters ``text`` holds (a mark with nothing before it is a cluster of its own)."""
    if text.isascii():
        return len(text)
    return sum(1 for i, char in enumerate(text) if i == 0 or not extends(char))


def end_of(text: str, clusters: int) -> int:
    """The index just after the first ``clusters`` clusters of ``text`` (its length if it has fewer)."""
    if clusters <= 0:
        return 0
    seen = 0
    for i, char in enumerate(text):
        if i > 0 and not extends(char):
            seen += 1
            if seen == clusters:
                return i
    return len(text)


def cut_before(text: str, limit: int) -> int:
    """The largest cut in ``(0, limit]`` that falls between two clusters of ``text``.

    ``limit`` itself when the text is no longer than that, or when no cut up to it falls between
    clusters (one cluster of more than ``limit`` code points: it is cut where the limit falls).
    """
    if len(text) <= limit:
        return len(text)
    for cut in range(limit, 0, -1):
        if not extends(text[cut]):
            return cut
    return limit


def fold_marks(text: str, max_marks: int = MAX_MARKS) -> str:
    """``text`` in NFC, without marks that follow no base and with at most ``max_marks`` per cluster."""
    if text.isascii():
        return text
    out: list[str] = []
    marks = 0
    based = False
    for char in unicodedata.normalize("NFC", text):
        if extends(char):
            if based and marks < max_marks:
                out.append(char)
                marks += 1
        else:
            out.append(char)
            marks = 0
            based = not char.isspace()
    return "".join(out)
