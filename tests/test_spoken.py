"""Tests for tts_service.engine.spoken: English spoken forms for backends that read digits badly."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tts_service.engine.spoken import (
    digits_to_words,
    number_to_words,
    ordinal_to_words,
    to_spoken_form,
    year_to_words,
)

GOLDEN: list[tuple[str, str]] = [
    # cardinals
    ("42", "forty-two"),
    ("1,250", "one thousand two hundred fifty"),
    ("-7", "minus seven"),
    ("1000000", "one million"),
    ("7,000,000,000", "seven billion"),
    ("3,000,000,000,005", "three trillion five"),
    ("0", "zero"),
    ("007", "zero zero seven"),
    # decimals
    ("3.14", "three point one four"),
    ("0.5", "zero point five"),
    ("-2.5", "minus two point five"),
    # ordinals
    ("1st", "first"),
    ("22nd", "twenty-second"),
    ("103rd", "one hundred third"),
    ("the 12th", "the twelfth"),
    # years
    ("in 1999", "in nineteen ninety-nine"),
    ("2024", "twenty twenty-four"),
    ("2005", "two thousand five"),
    ("1900", "nineteen hundred"),
    ("2000", "two thousand"),
    ("1905", "nineteen oh five"),
    ("since 2010 we grew", "since twenty ten we grew"),
    ("It was 1984.", "It was nineteen eighty-four."),
    ("from 2019-2021", "from twenty nineteen to twenty twenty-one"),
    ("the 1990s", "the nineteen nineties"),
    ("the '80s", "the eighties"),
    ("2,024", "two thousand twenty-four"),
    ("I have 1500 apples", "I have one thousand five hundred apples"),
    ("March 3, 2024", "March third, twenty twenty-four"),
    # currency
    ("$3.50", "three dollars and fifty cents"),
    ("$1", "one dollar"),
    ("$0.99", "ninety-nine cents"),
    ("£20", "twenty pounds"),
    ("€5.25", "five euros and twenty-five cents"),
    ("$1.2M", "one point two million dollars"),
    ("$3 million", "three million dollars"),
    ("$5k", "five thousand dollars"),
    ("$1,250.75", "one thousand two hundred fifty dollars and seventy-five cents"),
    ("$1.01", "one dollar and one cent"),
    ("-$5", "minus five dollars"),
    ("£0.50", "fifty pence"),
    ("¥500", "five hundred yen"),
    # percent
    ("50%", "fifty percent"),
    ("3.5%", "three point five percent"),
    # times
    ("10:30", "ten thirty"),
    ("7:05 pm", "seven oh five p m"),
    ("12:00", "twelve o'clock"),
    ("9:00 AM", "nine a m"),
    ("14:00", "fourteen hundred"),
    ("at 5pm", "at five p m"),
    ("We met at 7 p.m. Then we left.", "We met at seven p m. Then we left."),
    # abbreviations
    ("Dr. Smith", "Doctor Smith"),
    ("Mr. Jones", "Mister Jones"),
    ("Mrs. Brown", "Missus Brown"),
    ("Ms. Lee", "Miz Lee"),
    ("St. Louis", "Saint Louis"),
    ("on Main St.", "on Main Street."),
    ("Visit St. Louis", "Visit Saint Louis"),
    ("I'm at 42 Main St. Come by!", "I'm at forty-two Main Street. Come by!"),
    ("the Dr. said", "the Doctor said"),
    ("e.g. apples", "for example apples"),
    ("i.e. this one", "that is this one"),
    ("apples, pears, etc.", "apples, pears, et cetera."),
    ("red vs. blue", "red versus blue"),
    ("approx. 5 km", "approximately five km"),
    # symbols
    ("A&B", "A and B"),
    ("1 + 1 = 2", "one plus one equals two"),
    ("2 * 3", "two times three"),
    ("#1", "number one"),
    ("20°C", "twenty degrees Celsius"),
    ("98.6°F", "ninety-eight point six degrees Fahrenheit"),
    ("1°C", "one degree Celsius"),
    # URLs and e-mails
    ("https://example.com/docs", "example dot com slash docs"),
    ("jane.doe@example.com", "jane dot doe at example dot com"),
    ("Visit example.com.", "Visit example dot com."),
    ("https://example.com/a_b?x=1", "example dot com slash a underscore b question mark x equals one"),
    # phone numbers
    ("555-1234", "five five five, one two three four"),
    ("(555) 123-4567", "five five five, one two three, four five six seven"),
    ("+1 555 123 4567", "plus one, five five five, one two three, four five six seven"),
    # digits glued to letters, versions
    ("MP3 and 5G", "MP three and five G"),
    ("COVID-19", "COVID-nineteen"),
    ("version 1.2.3", "version one dot two dot three"),
    # ordinary text passes through
    ("Hello, world. How are you?", "Hello, world. How are you?"),
    ("It's rock-and-roll, isn't it!", "It's rock-and-roll, isn't it!"),
    ("C++ is fun.", "C++ is fun."),
]


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_golden_spoken_forms(text: str, expected: str) -> None:
    """Each golden input is rewritten to exactly its spoken form."""
    assert to_spoken_form(text) == expected


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_spoken_form_is_idempotent_on_golden(text: str, expected: str) -> None:
    """Normalizing already-normalized text changes nothing."""
    once = to_spoken_form(text)
    assert to_spoken_form(once) == once


def test_golden_inputs_inside_a_sentence() -> None:
    """Rules fire mid-sentence and keep the sentence's own punctuation."""
    text = "Dr. Smith said the 10:30 am slot costs $3.50, e.g. about 50% of the 2024 budget."
    assert to_spoken_form(text) == (
        "Doctor Smith said the ten thirty a m slot costs three dollars and fifty cents, "
        "for example about fifty percent of the twenty twenty-four budget."
    )


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (13, "thirteen"),
        (20, "twenty"),
        (99, "ninety-nine"),
        (100, "one hundred"),
        (101, "one hundred one"),
        (1_001, "one thousand one"),
        (12_345, "twelve thousand three hundred forty-five"),
        (1_000_000_000_000, "one trillion"),
        (999_999_999_999_999, "nine hundred ninety-nine trillion nine hundred ninety-nine billion "
         "nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine"),
        (10**15, "one thousand trillion"),
        (-42, "minus forty-two"),
    ],
)  # fmt: skip
def test_number_to_words(n: int, words: str) -> None:
    """Cardinals read American style, no "and", hyphenated tens."""
    assert number_to_words(n) == words


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (1, "first"),
        (2, "second"),
        (3, "third"),
        (5, "fifth"),
        (8, "eighth"),
        (9, "ninth"),
        (11, "eleventh"),
        (12, "twelfth"),
        (20, "twentieth"),
        (22, "twenty-second"),
        (100, "one hundredth"),
        (103, "one hundred third"),
        (1_000_000, "one millionth"),
    ],
)
def test_ordinal_to_words(n: int, words: str) -> None:
    """Ordinals change only the last word, with the irregular forms."""
    assert ordinal_to_words(n) == words


@pytest.mark.parametrize(
    ("year", "words"),
    [
        (1100, "eleven hundred"),
        (1999, "nineteen ninety-nine"),
        (2000, "two thousand"),
        (2009, "two thousand nine"),
        (2010, "twenty ten"),
        (1801, "eighteen oh one"),
    ],
)
def test_year_to_words(year: int, words: str) -> None:
    """Years read in pairs, except 2000-2009 and round thousands."""
    assert year_to_words(year) == words


def test_digits_to_words_reads_each_digit() -> None:
    """Digit strings are read one digit at a time, separators ignored."""
    assert digits_to_words("555-0123") == "five five five zero one two three"


@given(st.integers(min_value=-(10**18), max_value=10**18))
def test_number_to_words_is_words_only(n: int) -> None:
    """Every integer reads as lowercase words and hyphens, with no digits or double spaces."""
    words = number_to_words(n)
    assert re.fullmatch(r"[a-z]+(?:[ -][a-z]+)*", words)


_SPOKEN_ALPHABET = st.sampled_from(
    [
        *"0123456789 .,:;-+*=%$£€¥#@&°/()'!?aAmMpPstndrhCF\n",
        "e.g.",
        "Dr.",
        "https://",
        ".com",
        "1st",
        "²",
        "٣",
    ]
)


@given(st.lists(_SPOKEN_ALPHABET, max_size=30).map("".join))
@settings(max_examples=1000)
def test_spoken_form_never_raises_and_leaves_no_ascii_digits(text: str) -> None:
    """Digit- and symbol-heavy input never raises and comes back without ASCII digits."""
    out = to_spoken_form(text)
    assert not re.search(r"[0-9]", out)


@given(st.text())
def test_spoken_form_never_raises_on_arbitrary_text(text: str) -> None:
    """Arbitrary unicode, lone surrogates included, is handled without error."""
    to_spoken_form(text)


def test_speaker_tags_pass_through_untouched() -> None:
    """[S1]/[S2] are model markup: the digits inside them are not read out."""
    assert to_spoken_form("[S1] I paid $3. [S2] Only 2?") == "[S1] I paid three dollars. [S2] Only two?"
