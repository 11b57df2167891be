"""Word marks from phoneme-word spans: shared by the backends whose models give per-phoneme durations.

``place_words`` gives each source word the sample span of the phoneme words it reads as (hibari,
piper): the model's durations place the phoneme words, this places the source words on them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tts_service.engine.types import WordMark


def place_words(
    words: Sequence[str], counts: Sequence[int], spans: Sequence[tuple[int, int]]
) -> tuple[WordMark, ...]:
    """Give each source word the sample span of its phoneme words.

    ``spans`` are the (start, end) samples of the spoken phoneme words, in order and not
    overlapping; every source word gets one mark, starts never decrease, ``start <= end``.
    ``counts[i]`` is how many phoneme words ``words[i]`` reads as alone. When they add up to the
    phoneme words actually spoken, they are assigned in order; otherwise (context changed a
    reading) the phoneme words are spread over the source words in proportion to
    ``max(count, 1)`` with monotone rounding, so every phoneme word is covered. A source word
    that gets none is a zero-length mark at the previous word's end.
    """
    m = len(spans)
    if not words or m == 0:
        return ()
    if sum(counts) == m:
        bounds = list(itertools.accumulate(counts))
    else:
        weights = [max(c, 1) for c in counts]
        total = sum(weights)
        bounds = [(2 * m * c + total) // (2 * total) for c in itertools.accumulate(weights)]
    out: list[WordMark] = []
    prev_bound = 0
    prev_start = prev_end = spans[0][0]
    for word, bound in zip(words, bounds, strict=True):
        if bound > prev_bound:
            start = max(spans[prev_bound][0], prev_start)
            end = max(spans[bound - 1][1], start)
        else:
            start = end = max(prev_end, prev_start)
        out.append(WordMark(word, start, end))
        prev_bound, prev_start, prev_end = bound, start, end
    return tuple(out)


__all__ = ["place_words"]
