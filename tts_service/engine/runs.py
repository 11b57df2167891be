"""Bound what one word of a unit asks of a model: long digit runs in groups, long words in pieces.

    text = group_long_numbers(fold_marks(cleaned))   # before any normalizer reads the numbers
    text = cut_long_words(text)                      # last: what the model is given

A model's reading of one word grows with the word: hibari reads a run of more than 36 digits as
a cardinal its number words run out for (a failed unit), a shorter one as "one hundred and eleven
decillion, ..." (23 s for 36 digits); a run of capitals is spelled letter by letter; a word
without spaces reaches the phonemizer and the model whole. So, for every backend:

* a number of more than ``MAX_NUMBER_DIGITS`` digits (an identifier, not a quantity) is read
  digit by digit in groups of ``DIGIT_GROUP`` (its own comma groups when it has them):
  "1111111111111111" becomes "1 1 1 1, 1 1 1 1, 1 1 1 1, 1 1 1 1", which every normalizer reads
  as single digits with a pause between groups;
* a word of more than ``MAX_WORD_GRAPHEMES`` grapheme clusters is cut into pieces of at most that
  many, after a punctuation mark in the second half of a piece where there is one ("/" in a long
  URL), else between clusters.

Pure, standard library only (and ``graphemes``); never raises on any ``str``.
"""

from __future__ import annotations

import re
import unicodedata

from tts_service.engine.graphemes import count, end_of, extends

__all__ = ["DIGIT_GROUP", "MAX_NUMBER_DIGITS", "MAX_WORD_GRAPHEMES", "cut_long_words", "group_long_numbers"]

#: longer digit strings are identifiers (card numbers, order ids), not quantities; as in ``spoken``
MAX_NUMBER_DIGITS = 15
#: digits read together in a long number without comma groups
DIGIT_GROUP = 4
#: the longest word a model is given (English words stay well under it; a longer URL is cut)
MAX_WORD_GRAPHEMES = 48

_WORD = re.compile(r"\S+")


def group_long_numbers(text: str) -> str:
    """``text`` with every number of more than ``MAX_NUMBER_DIGITS`` digits read in digit groups.

    A number is a run of digits (any script's: what ``str.isdigit`` accepts, so superscripts and
    circled digits too) with single commas between digits. The fraction after a decimal point is
    left as it is: normalizers read it digit by digit already.
    """
    if not any(char.isdigit() for char in text):
        return text
    out: list[str] = []
    i = 0
    done = 0
    n = len(text)
    while i < n:
        if not text[i].isdigit():
            i += 1
            continue
        end = _number_end(text, i)
        run = text[i:end]
        fraction = i >= 2 and text[i - 1] == "." and text[i - 2].isdigit()
        if not fraction and sum(char.isdigit() for char in run) > MAX_NUMBER_DIGITS:
            out.append(text[done:i])
            left = " " if i > 0 and text[i - 1].isalpha() else ""
            right = " " if end < n and text[end].isalpha() else ""
            out.append(left + _grouped(run) + right)
            done = end
        i = end
    out.append(text[done:])
    return "".join(out)


def _number_end(text: str, start: int) -> int:
    """Where the number that starts at ``start`` ends: digits, and single commas between digits."""
    end = start + 1
    n = len(text)
    while end < n and (text[end].isdigit() or (text[end] == "," and end + 1 < n and text[end + 1].isdigit())):
        end += 1
    return end


def _grouped(run: str) -> str:
    if "," in run:
        groups = run.split(",")
    else:
        groups = [run[k : k + DIGIT_GROUP] for k in range(0, len(run), DIGIT_GROUP)]
    return ", ".join(" ".join(_ascii_digit(char) for char in group) for group in groups)


def _ascii_digit(char: str) -> str:
    value = unicodedata.digit(char, None)
    return char if value is None else str(value)


def cut_long_words(text: str) -> str:
    """``text`` with every word of more than ``MAX_WORD_GRAPHEMES`` clusters cut into pieces."""
    if len(text) <= MAX_WORD_GRAPHEMES:
        return text
    return _WORD.sub(lambda m: " ".join(_pieces(m.group())), text)


def _pieces(word: str) -> list[str]:
    pieces: list[str] = []
    while len(word) > MAX_WORD_GRAPHEMES and count(word) > MAX_WORD_GRAPHEMES:
        end = end_of(word, MAX_WORD_GRAPHEMES)
        cut = end
        for at in range(end - 1, end // 2, -1):  # after a punctuation mark, if one is late enough
            if not word[at - 1].isalnum() and not extends(word[at - 1]) and not extends(word[at]):
                cut = at
                break
        pieces.append(word[:cut])
        word = word[cut:]
    pieces.append(word)
    return pieces
