"""Tests for tts_service.engine.runs: long numbers read in digit groups, long words cut in pieces."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tts_service.engine.graphemes import count
from tts_service.engine.runs import (
    MAX_NUMBER_DIGITS,
    MAX_WORD_GRAPHEMES,
    cut_long_words,
    group_long_numbers,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Call 555 1234 now.", "Call 555 1234 now."),
        ("It is 123456789012345 long.", "It is 123456789012345 long."),  # 15 digits: a number still
        ("Card 4111111111111111.", "Card 4 1 1 1, 1 1 1 1, 1 1 1 1, 1 1 1 1."),
        ("x" + "7" * 18 + "y", "x 7 7 7 7, 7 7 7 7, 7 7 7 7, 7 7 7 7, 7 7 y"),  # glued to letters: apart
        ("1,000,000,000,000,000,000", "1, 0 0 0, 0 0 0, 0 0 0, 0 0 0, 0 0 0, 0 0 0"),  # its own groups
        ("pi is 3.14159265358979323846", "pi is 3.14159265358979323846"),  # a fraction stays
        ("\u0661" * 16, "1 1 1 1, 1 1 1 1, 1 1 1 1, 1 1 1 1"),  # Arabic-Indic digits
        ("\u00b2" * 16, "2 2 2 2, 2 2 2 2, 2 2 2 2, 2 2 2 2"),  # superscripts a phonemizer reads as digits
        ("no digits at all", "no digits at all"),
    ],
)
def test_group_long_numbers(text: str, expected: str) -> None:
    assert group_long_numbers(text) == expected


DIGIT = "[0-9\u0661\u00b2]"


@given(st.text(alphabet="0123456789,. ab\u0661\u00b2", max_size=80))
def test_grouped_numbers_keep_every_digit_and_none_is_left_long(text: str) -> None:
    """Every digit stays, in order; no number of more than MAX_NUMBER_DIGITS digits is left,
    except a fraction after a decimal point; text without a long number is unchanged."""
    out = group_long_numbers(text)
    digits = [unicodedata.digit(c) for c in text if c.isdigit()]
    assert [unicodedata.digit(c) for c in out if c.isdigit()] == digits
    for match in re.finditer(rf"{DIGIT}+(?:,{DIGIT}+)*", out):
        start = match.start()
        fraction = start >= 2 and out[start - 1] == "." and out[start - 2].isdigit()
        if not fraction:
            assert sum(c.isdigit() for c in match.group()) <= MAX_NUMBER_DIGITS
    numbers = re.findall(rf"{DIGIT}+(?:,{DIGIT}+)*", text)
    if all(sum(c.isdigit() for c in n) <= MAX_NUMBER_DIGITS for n in numbers):
        assert out == text


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("short words stay", ["short", "words", "stay"]),
        ("A" * 100, ["A" * 48, "A" * 48, "A" * 4]),
        ("e\u0301" * 50, ["e\u0301" * 48, "e\u0301" * 2]),  # counted in clusters, not code points
        (
            "https://example.com/" + "a" * 20 + "/" + "b" * 30,
            ["https://example.com/" + "a" * 20 + "/", "b" * 30],  # after the "/" late in the piece
        ),
    ],
)
def test_cut_long_words(text: str, pieces: list[str]) -> None:
    assert cut_long_words(text).split(" ") == pieces


@given(st.text(alphabet="aB1/.\u0301 ", max_size=300))
def test_cut_words_fit_and_keep_the_text(text: str) -> None:
    """No word of the result passes MAX_WORD_GRAPHEMES clusters; only spaces were added."""
    out = cut_long_words(text)
    assert out.replace(" ", "") == text.replace(" ", "")
    assert all(count(word) <= MAX_WORD_GRAPHEMES for word in out.split())
    if all(count(word) <= MAX_WORD_GRAPHEMES for word in text.split()):
        assert out == text
