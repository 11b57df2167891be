"""Arithmetic as a person says it: "1-2=5" -> "one minus two equals five", "2^10" -> "two to the
power of ten", "3 + 4 = 7" over several tokens. Only where the context is clearly arithmetic (an
equals sign, a comparison, a power or a product); "1-2" alone stays a range and "10/2" a fraction.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_spans import Walk
from tts_service.engine.reading.english_units import unit_words
from tts_service.engine.reading.words import NumberWords

__all__ = ["expression", "spaced_expression", "term"]

_OPS = {"+": "plus", "-": "minus", "−": "minus", "–": "minus", "*": "times", "×": "times", "x": "times",
        "÷": "divided by", "/": "divided by", "^": "to the power of", "=": "equals", "<": "less than",
        ">": "greater than", ">=": "greater than or equal to", "<=": "less than or equal to",
        "≥": "greater than or equal to", "≤": "less than or equal to", "!=": "not equal to",
        "≠": "not equal to"}  # fmt: skip
#: operators that make a run of numbers arithmetic on their own (a dash or slash alone does not)
_CLEAR = frozenset(["*", "×", "÷", "^", "=", "<", ">", ">=", "<=", "≥", "≤", "!=", "≠"])
_PIECE = re.compile(r"\d+(?:\.\d+)?|>=|<=|!=|[-−–+*×÷/^=<>≥≤≠]")
_GUARD = frozenset("=*×÷^<>≥≤≠")


def _pieces(core: str) -> list[str] | None:
    """The numbers and operators ``core`` is made of, or None when it has anything else."""
    if len(core) > 200 or (not core[:1].isdigit() and core[:1] not in _OPS and core[:1] != "!"):
        return None
    pieces: list[str] = _PIECE.findall(core)
    return pieces if sum(map(len, pieces)) == len(core) else None


def _said(pieces: list[str], w: NumberWords) -> str:
    return " ".join(_OPS[p] if p in _OPS else w.number(p) for p in pieces)


def _well_formed(pieces: list[str], *, ends: bool) -> bool:
    """Numbers and operators alternate, a number first (and last, when ``ends``)."""
    for k, p in enumerate(pieces):
        if (k % 2 == 0) != p[0].isdigit():
            return False
    return bool(pieces) and (not ends or len(pieces) % 2 == 1)


def expression(core: str, w: NumberWords) -> str | None:
    """One token: "1-2=5", "2*8", "2^10", "10/2=5"; None unless clearly arithmetic."""
    if not core[:1].isdigit() or not _GUARD.intersection(core):
        return None
    pieces = _pieces(core)
    if pieces is None or len(pieces) < 3 or not _well_formed(pieces, ends=True):
        return None
    if not _CLEAR.intersection(pieces[1::2]):
        return None
    return _said(pieces, w)


def spaced_expression(walk: Walk, i: int) -> int:
    """Spaced: "3 + 4 = 7", "1- 2 = 5", "10 / 2 = 5", "6 x 7 = 42"; each token says its own part."""
    if not walk.core(i)[:1].isdigit():
        return 0
    tokens: list[list[str]] = []
    k = i
    while (core := walk.core(k)) and len(tokens) < 40:
        pieces = ["x"] if core == "x" and tokens else _pieces(core)
        if pieces is None:
            break
        tokens.append(pieces)
        k += 1
        if walk.trail(k - 1):
            break
    flat = [p for t in tokens for p in t]
    while flat and not flat[-1][0].isdigit() and tokens:  # "= " at a clause's end is no operand
        flat = flat[: len(flat) - len(tokens.pop())]
    if len(tokens) < 2 or not _well_formed(flat, ends=True) or not _CLEAR.intersection(flat[1::2]):
        return 0
    said = [_said(t, walk.w) for t in tokens]
    after = walk.core(i + len(tokens))
    # a product's unit ("2 * 10 cm"); a unit that is also a word ("in", "m") stays a word
    unit = None if walk.trail(i + len(tokens) - 1) or len(after) < 2 else unit_words(after, True)
    return walk.set(i, *said, unit) if unit and after not in ("in", "am", "pm") else walk.set(i, *said)


_TERM = re.compile(r"^(\d{1,6})([a-z])$")
_SIGNS = frozenset(["=", "+", "-", "−", "–", "<", ">", "≤", "≥", "*", "/", "÷"])


def term(core: str, before: str, after: str, w: NumberWords) -> str | None:
    """ "y = 2x + 3": a number times a letter, next to an operator, is "two x", not "two times"."""
    m = _TERM.match(core)
    if m is None or (before not in _SIGNS and after not in _SIGNS):
        return None
    return f"{w.number(m.group(1))} {m.group(2)}"
