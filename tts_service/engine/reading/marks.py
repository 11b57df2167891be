"""Marks on spoken words back to the written tokens they were read from.

The model marks the words it was given ("two", "thousand", ... "cents"); listeners, contexts and
barge-in accounting want what the LLM wrote ("$2,418.07"). A written token's mark starts with the
audio of its first spoken word (a barge-in anywhere in its expansion counts it as heard); a token
read as nothing (a lone emoji) gets an empty mark where the next word starts.

``groups`` pairs each written token with its count of spoken words, in order; the backend's marks
are one per whitespace-separated spoken word. Marks beyond the groups pass through unchanged.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from tts_service.engine.types import WordMark

__all__ = ["WrittenMarks", "to_written"]


def to_written(marks: Sequence[WordMark], groups: Sequence[tuple[str, int]]) -> tuple[WordMark, ...]:
    """A whole unit's marks, relabelled; each written mark spans all of its spoken words."""
    if not groups or sum(n for _, n in groups) != len(marks):
        return tuple(marks)
    out: list[WordMark] = []
    at = 0
    for written, count in groups:
        if count == 0:
            pos = marks[at].start_sample if at < len(marks) else (marks[-1].end_sample if marks else 0)
            out.append(WordMark(written, pos, pos))
            continue
        first, last = marks[at], marks[at + count - 1]
        out.append(WordMark(written, first.start_sample, max(first.start_sample, last.end_sample)))
        at += count
    return tuple(out)


class WrittenMarks:
    """The streaming form, for models that mark words frame by frame as they speak them."""

    def __init__(self) -> None:
        self._groups: deque[tuple[str, int]] = deque()
        self._skip = 0  # spoken words still to come of the token last marked

    def add(self, groups: Iterable[tuple[str, int]]) -> None:
        self._groups.extend(groups)

    def clear(self) -> None:
        self._groups.clear()
        self._skip = 0

    def relabel(self, marks: Iterable[WordMark]) -> list[WordMark]:
        out: list[WordMark] = []
        for mark in marks:
            if self._skip:
                self._skip -= 1
                continue
            while self._groups and self._groups[0][1] == 0:
                out.append(WordMark(self._groups.popleft()[0], mark.start_sample, mark.start_sample))
            if not self._groups:
                out.append(mark)
                continue
            written, count = self._groups.popleft()
            out.append(WordMark(written, mark.start_sample, mark.end_sample))
            self._skip = count - 1
        return out
