"""The punctuation the segmenter cuts at, in every script it serves, and how it reads a word's end.

Latin, Arabic and Devanagari text separates words with spaces, so its marks end a unit only at a
word's end: ``. ! ? …`` and Arabic ``؟``, Devanagari ``। ॥`` end sentences; ``, ; :`` and Arabic
``، ؛`` end clauses. Chinese and Japanese write no spaces between words, so their marks
(``。！？`` and ``，、；：``) cut wherever they stand, right after the mark and any closing
brackets or quotes (``」』）``): ``wide_break`` finds that place. Spanish ``¿ ¡`` open a phrase:
they never end anything and stay with the words after them.
"""

from __future__ import annotations

import re

__all__ = [
    "ABBREVIATIONS",
    "CLAUSE_ENDS",
    "CLOSERS",
    "NUMBER_ABBREVIATIONS",
    "OPENERS",
    "SENTENCE_ENDS",
    "WIDE_CLAUSE_ENDS",
    "WIDE_SENTENCE_ENDS",
    "is_clause_end",
    "is_sentence_end",
    "only_openers",
    "wide_break",
]

#: Words that end in a period without ending the sentence (compared lower-case, without the period).
ABBREVIATIONS: frozenset[str] = frozenset(
    {"dr", "mr", "mrs", "ms", "prof", "st", "sr", "jr", "mt", "gen", "col", "capt", "lt", "sgt", "rev",
     "hon", "fr", "vs", "etc", "maj", "gov", "sen", "rep", "pres", "adm", "incl", "ref", "ctr"}
)  # fmt: skip
#: abbreviations a number follows ("ext. 204", "Dec. 31", "reg. $129"): before a digit or a currency
#: sign, not a sentence end
NUMBER_ABBREVIATIONS: frozenset[str] = frozenset(
    {"ext", "no", "nos", "apt", "ste", "fig", "vol", "pp", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
     "sep", "sept", "oct", "nov", "dec", "approx", "rm", "pg", "mon", "tue", "tues", "wed", "thu", "thur",
     "thurs", "fri", "sat", "sun", "weds", "p", "est", "op", "reg", "opt", "ch", "sec", "c", "hwy", "rte",
     "bldg", "fl"}
)  # fmt: skip
SENTENCE_ENDS = ".!?…"
CLOSERS = "\"”’')]"
CLAUSE_ENDS = ",;:"
#: sentence and clause ends of scripts that space their words (Arabic, Devanagari)
SPACED_SENTENCE_ENDS = "؟।॥"
SPACED_CLAUSE_ENDS = "،؛"
#: CJK marks: they cut inside a run of text without spaces
WIDE_SENTENCE_ENDS = "。！？｡"
WIDE_CLAUSE_ENDS = "，、；："
#: closing brackets and quotes that stay with the mark before them
WIDE_CLOSERS = "」』）】》〉〕］｝"
#: marks that open a phrase (Spanish): never an end, kept with the words after them
OPENERS = "¿¡"

_ALL_CLOSERS = CLOSERS + WIDE_CLOSERS
_SENTENCE = SENTENCE_ENDS + SPACED_SENTENCE_ENDS + WIDE_SENTENCE_ENDS
_CLAUSE = CLAUSE_ENDS + SPACED_CLAUSE_ENDS + WIDE_CLAUSE_ENDS
_WIDE = WIDE_SENTENCE_ENDS + WIDE_CLAUSE_ENDS
_WIDE_MARK = re.compile(f"[{_WIDE}]")
# Leading and trailing punctuation around a word ("(Dr", "$3.50", "above)"); dots are kept.
EDGE_PUNCT = re.compile(r"^[^\w.]+|[^\w.]+$")


def is_clause_end(word: str) -> bool:
    core = word.rstrip(_ALL_CLOSERS)
    return bool(core) and core[-1] in _CLAUSE


def is_sentence_end(word: str, *, at_line_start: bool) -> bool:
    """Whether ``word`` (followed by whitespace) may end a sentence; the next character decides."""
    core = word.rstrip(_ALL_CLOSERS)
    if not core or core[-1] not in _SENTENCE:
        return False
    stem = core.rstrip(_SENTENCE)
    if core[-1] != "." or len(core) - len(stem) > 1:
        return True  # ! ? … 。 ؟ । and runs such as "?!" or "..."
    bare = EDGE_PUNCT.sub("", stem)
    if not bare:
        return True
    if bare.lower() in ABBREVIATIONS or (len(bare) == 1 and bare.isalpha()) or bare in ("Ft", "Attn"):
        return False  # "Dr.", "etc.", the initial in "J. Smith", "Ft. Worth" (but "6 ft." may end one)
    if "." in bare and all(part.isalpha() and len(part) <= 2 for part in bare.split(".")):
        return False  # "e.g.", "U.S.", "a.m.", "Ph.D."; not "$3.50." or "example.com."
    # "1. " at the start of a line is a markdown list item, not the end of a sentence.
    return not (at_line_start and stem.isdigit())


def only_openers(word: str) -> bool:
    """``word`` is nothing but opening marks ("¿"): it goes with the word after it."""
    return bool(word) and not word.strip(OPENERS)


def wide_break(piece: str, after_mark: bool) -> tuple[int | None, bool]:
    """Where a CJK mark cuts ``piece``: the index of the first character after a mark and its
    closers (None: not in this piece), and whether the scanned text ends in a mark and closers.

    ``after_mark``: the text before ``piece`` in the same word ends in a mark (and closers), so a
    cut may fall at index 0. Deciding at the next character keeps the cut where it is however the
    tokens split the text.
    """
    start = 0
    if not after_mark:
        found = _WIDE_MARK.search(piece)
        if found is None:
            return None, False  # the common case, in one scan in C
        start = found.start()
    for i in range(start, len(piece)):
        ch = piece[i]
        if ch in _WIDE:
            after_mark = True
        elif after_mark and ch not in _ALL_CLOSERS:
            return i, False
    return None, after_mark
