"""What a token's reader sees of the words around it.

Apart from the readers because every one of them takes it (``english_tokens``, the fraction and
measure readers, ``english_neighbours``), and none of them owns it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Context"]


@dataclass(frozen=True, slots=True)
class Context:
    """Lower-case bare words before the token (nearest last) and the next one."""

    before: tuple[str, ...]
    next_word: str
    next_raw: str  # as written, punctuation stripped
    punctuated: bool = False  # the token itself ends in punctuation ("St,")
    prev_raw: str = ""  # the previous word as written
    after_next: str = ""  # the word after the next one, as written
    next_lead: str = ""  # punctuation before the next word ("(PDF)")
    digits_named: bool = False  # the unit named this number's digits before it ("the last four ... are 6032")
    topic: frozenset[str] = frozenset()  # every word of the unit, lower case ("gold" makes "14K" karats)

    def prev(self, k: int = 1) -> str:
        return self.before[-k] if len(self.before) >= k else ""
